"""Related tables on the Data page: a table of people and a child table per role, turned into one row per person."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, MutableMapping

import pandas as pd

from dashboard.reference_table import set_reference
from dashboard.session.state import LoadedTable, Tables
from dashboard.uploads import RELATED, REPLACED_DEMO, choose_default_metrics, inferred_schema, parse_upload
from privcore.base import InputError
from privcore.data import Relation, check_related, person_table
from privcore.demo import RELATED_SCENARIOS, RELATED_TITLES, load_related

ROLES = ("real", "synthetic", "holdout")


@dataclass(frozen=True)
class RelatedTables:
    """Related tables loaded per person: what to say of them, and the real people's tables for the record explorer."""

    text: str
    people: pd.DataFrame
    child: pd.DataFrame
    relation: Relation

    def rows_of(self, position: int) -> pd.DataFrame:
        """The child rows of the real person at ``position`` of the people table (the person table's row)."""
        key = str(self.people[self.relation.parent_column].iloc[position])
        rows = self.child[self.child[self.relation.column].astype(str) == key]
        return rows.sort_values(self.relation.order) if self.relation.order else rows


def per_person(state: MutableMapping, tables: dict[str, dict[str, pd.DataFrame]], relation: Relation,
               source: str) -> None:
    """Check the related tables of every role, and load their person tables as the real, synthetic and holdout tables.

    Raises :class:`InputError` (naming the role, table and column) where the tables do not join; nothing loaded then
    changes.
    """
    for role, role_tables in tables.items():
        check_related(role_tables, [relation], role)
    real, kinds = person_table(tables["real"], [relation])
    people = {"real": real}
    for role in tables:
        if role != "real":
            people[role], _ = person_table(tables[role], [relation], kinds)
    label = f"{relation.parent} per person"
    state["tables"] = Tables(
        real=LoadedTable.from_frame(f"{label} (real)", people["real"]),
        synthetic={f"{label} ({source})": LoadedTable.from_frame(f"{label} ({source})", people["synthetic"])},
        holdout=(LoadedTable.from_frame(f"{label} (holdout)", people["holdout"]) if "holdout" in people else None),
    )
    state["schema"] = inferred_schema(people["real"])
    state["schema_draft"] = None
    state["demo"] = None
    state[REPLACED_DEMO] = None
    set_reference(state, None)
    text = (f"Evaluated per person: each of the {len(people['real']):,} real people of {relation.parent} is one "
            f"record, with their rows of {relation.child} summarised (how many, their typical values"
            + (f", and the first {relation.order}, span and gaps" if relation.order else "") + "); a person with many "
            "rows counts once, as a career or a sequence of visits gives a person away as a whole.")
    state[RELATED] = RelatedTables(text, tables["real"][relation.parent], tables["real"][relation.child], relation)
    choose_default_metrics(state)


def load_related_demo(state: MutableMapping, name: str) -> None:
    """Load a built-in related scenario (players and their seasons) per person."""
    scenario = load_related(name)
    tables = {role: {table: frame.copy() for table, frame in getattr(scenario, role).items()} for role in ROLES}
    per_person(state, tables, scenario.relation, "synthetic league")


def related_demo_choices() -> dict[str, tuple[str, str]]:
    """Related demo scenario → its title and what it shows."""
    return {name: (RELATED_TITLES[name], description) for name, description in RELATED_SCENARIOS.items()}


def parsed(files: dict[str, Any]) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """Uploaded files (slot → file or None) parsed, and a message per file that could not be read."""
    frames, errors = {}, []
    for slot, file in files.items():
        if file is None:
            continue
        frame, error = parse_upload(file)
        if error:
            errors.append(f"{file.name}: {error}")
        else:
            frames[slot] = frame
    return frames, errors


def apply_uploads(state: MutableMapping, frames: dict[str, pd.DataFrame], relation: Relation) -> str | None:
    """Load uploaded related tables per person; the error message to show, or None when loaded.

    ``frames`` holds ``"ROLE people"`` and ``"ROLE child"`` for the real and synthetic roles (the holdout's two are
    optional, both or neither).
    """
    needed = [f"{role} {part}" for role in ("real", "synthetic") for part in ("people", "child")]
    missing = [slot for slot in needed if slot not in frames]
    if missing:
        return f"Upload {', '.join(missing)} first."
    if ("holdout people" in frames) != ("holdout child" in frames):
        return "Upload both holdout tables (people and child), or neither."
    roles = [role for role in ROLES if f"{role} people" in frames]
    tables = {role: {relation.parent: frames[f"{role} people"], relation.child: frames[f"{role} child"]}
              for role in roles}
    try:
        per_person(state, tables, relation, "synthetic")
    except InputError as exc:
        return str(exc)
    return None


def schema_picture(related: RelatedTables) -> str:
    """The related tables as a Graphviz DOT picture: each table with its columns, the child pointing to its people."""
    r = related.relation

    def node(name: str, frame: pd.DataFrame, marked: dict[str, str]) -> str:
        columns = "".join(f"<TR><TD ALIGN='LEFT'>{_escape(c)}{marked.get(c, '')}</TD></TR>" for c in frame.columns)
        return (f'"{_escape(name)}" [shape=plain, label=<<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0">'
                f"<TR><TD BGCOLOR='#56B4E9'><B>{_escape(name)}</B></TD></TR>{columns}</TABLE>>];")

    people = node(f"{r.parent} (one row per person)", related.people, {r.parent_column: " (key)"})
    child = node(f"{r.child} (their rows)", related.child,
                 {r.column: f" → {r.parent}", **({r.order: " (order)"} if r.order else {})})
    return (f"digraph {{ rankdir=LR; {child} {people} "
            f'"{_escape(r.child)} (their rows)" -> "{_escape(r.parent)} (one row per person)" '
            f'[label="{_escape(r.column)} = {_escape(r.parent_column)}"]; }}')


def _escape(text: str) -> str:
    """Text safe inside a DOT HTML label or quoted name."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
