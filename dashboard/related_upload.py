"""Related tables on the Data page: a table of people and child tables per role, turned into one row per person."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, MutableMapping

import pandas as pd

from dashboard.reference_table import set_reference
from dashboard.session.state import LoadedTable, Tables
from dashboard.uploads import (
    RELATED,
    REPLACED_DEMO,
    choose_default_metrics,
    default_table_name,
    parse_upload,
)
from privcore.base import InputError
from privcore.data import Relation, suggest_sensitive
from privcore.demo import RELATED_SCENARIOS, RELATED_TITLES, load_related
from privcore.evaluation import Dataset, person_tables

ROLES = ("real", "synthetic", "holdout")
#: The people table's name in uploaded related tables (the child tables are named after their files).
PEOPLE = "people"


@dataclass(frozen=True)
class RelatedTables:
    """Related tables loaded per person: what to say of them, and the real people's tables for the record explorer."""

    text: str
    people: pd.DataFrame
    children: dict[str, pd.DataFrame]
    relations: tuple[Relation, ...]

    def rows_of(self, position: int) -> dict[str, pd.DataFrame]:
        """Child table → the rows of the real person at ``position`` of the people table (the person table's row)."""
        key = str(self.people[self.relations[0].parent_column].iloc[position])
        out = {}
        for r in self.relations:
            child = self.children[r.child]
            rows = child[child[r.column].astype(str) == key]
            out[r.child] = rows.sort_values(r.order) if r.order else rows
        return out


def per_person(state: MutableMapping, tables: dict[str, dict[str, pd.DataFrame]], relations: list[Relation],
               source: str) -> None:
    """Check the related tables of every role, and load their person tables as the real, synthetic and holdout tables.

    Raises :class:`InputError` (naming the role, table and column) where the tables do not join; nothing loaded then
    changes.
    """
    people, schema = person_tables(Dataset(tables["real"], tables["synthetic"], tables.get("holdout"),
                                           relations=tuple(relations)))
    parent = relations[0].parent
    label = f"{parent} per person"
    state["tables"] = Tables(
        real=LoadedTable.from_frame(f"{label} (real)", people["real"]),
        synthetic={f"{label} ({source})": LoadedTable.from_frame(f"{label} ({source})", people["synthetic"])},
        holdout=(LoadedTable.from_frame(f"{label} (holdout)", people["holdout"]) if "holdout" in people else None),
    )
    # The evaluation's own settings (each whole set of rows checked as an identifier, summaries of numbers numerical),
    # with a sensitive column proposed as for any new real table.
    suggestion = suggest_sensitive(people["real"])
    state["schema"] = schema if suggestion is None else replace(schema, sensitive=suggestion.column)
    state["schema_draft"] = None
    state["demo"] = None
    state[REPLACED_DEMO] = None
    set_reference(state, None)
    ordered = [r for r in relations if r.order]
    text = (f"Evaluated per person: each of the {len(people['real']):,} real people of {parent} is one record, with "
            f"their rows of {', '.join(r.child for r in relations)} summarised (how many, their typical values"
            + (", and for rows in order the first value, span and gaps" if ordered else "") + "); a person with many "
            "rows counts once, as a career or a sequence of visits gives a person away as a whole.")
    state[RELATED] = RelatedTables(text, tables["real"][parent], {r.child: tables["real"][r.child] for r in relations},
                                   tuple(relations))
    choose_default_metrics(state)


def load_related_demo(state: MutableMapping, name: str) -> None:
    """Load a built-in related scenario (players and their seasons) per person."""
    scenario = load_related(name)
    tables = {role: {table: frame.copy() for table, frame in getattr(scenario, role).items()} for role in ROLES}
    per_person(state, tables, [scenario.relation], "synthetic league")


def related_demo_choices() -> dict[str, tuple[str, str]]:
    """Related demo scenario → its title and what it shows."""
    return {name: (RELATED_TITLES[name], description) for name, description in RELATED_SCENARIOS.items()}


def parsed(people: dict[str, Any], children: dict[str, list[Any]]) -> tuple[dict[str, dict], list[str]]:
    """Uploaded files parsed: role → {"people": frame, child name → frame}, and a message per unreadable file.

    ``people`` holds each role's people file (or None), ``children`` each role's child files; a child table is named
    after its file (``visits.csv`` → ``visits``), so every role's files of one child table share a name.
    """
    frames: dict[str, dict] = {}
    errors = []
    for role in ROLES:
        for file in [people.get(role), *(children.get(role) or [])]:
            if file is None:
                continue
            frame, error = parse_upload(file)
            if error:
                errors.append(f"{file.name}: {error}")
                continue
            name = PEOPLE if file is people.get(role) else default_table_name(file.name)
            frames.setdefault(role, {})[name] = frame
    return frames, errors


def apply_uploads(state: MutableMapping, frames: dict[str, dict], key: str, owners: dict[str, str],
                  orders: dict[str, str | None]) -> str | None:
    """Load uploaded related tables per person; the error message to show, or None when loaded.

    ``frames`` as :func:`parsed` gives; ``key`` is the people table's key column, ``owners`` each child table's column
    naming its person and ``orders`` its column ordering the person's rows (or None).
    """
    for role in ("real", "synthetic"):
        have = frames.get(role, {})
        if PEOPLE not in have or len(have) < 2:
            return f"Upload the {role} people table and at least one table of their rows first."
    relations = [Relation(child, owners[child], PEOPLE, key, orders.get(child)) for child in owners]
    for role, have in frames.items():
        unknown = sorted(set(have) - {PEOPLE, *owners})
        if unknown:
            return (f"The {role} table(s) {', '.join(unknown)} match no real table of rows by file name: name each "
                    "role's files of one table alike (visits.csv for the real, synthetic and holdout visits).")
    tables = {role: frames[role] for role in ROLES if role in frames}
    try:
        per_person(state, tables, relations, "synthetic")
    except InputError as exc:
        return str(exc)
    return None


def schema_picture(related: RelatedTables) -> str:
    """The related tables as a Graphviz DOT picture: each table with its columns, each child pointing to its people."""
    parent = related.relations[0].parent

    def node(name: str, frame: pd.DataFrame, marked: dict[str, str]) -> str:
        columns = "".join(f"<TR><TD ALIGN='LEFT'>{_escape(c)}{marked.get(c, '')}</TD></TR>" for c in frame.columns)
        return (f'"{_escape(name)}" [shape=plain, label=<<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0">'
                f"<TR><TD BGCOLOR='#56B4E9'><B>{_escape(name)}</B></TD></TR>{columns}</TABLE>>];")

    people_name = f"{parent} (one row per person)"
    parts = [node(people_name, related.people, {related.relations[0].parent_column: " (key)"})]
    for r in related.relations:
        child_name = f"{r.child} (their rows)"
        parts.append(node(child_name, related.children[r.child],
                          {r.column: f" → {r.parent}", **({r.order: " (order)"} if r.order else {})}))
        parts.append(f'"{_escape(child_name)}" -> "{_escape(people_name)}" '
                     f'[label="{_escape(r.column)} = {_escape(r.parent_column)}"];')
    return f"digraph {{ rankdir=LR; {' '.join(parts)} }}"


def _escape(text: str) -> str:
    """Text safe inside a DOT HTML label or quoted name."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
