"""Related tables (a table of people and child tables of their rows) and the one-row-per-person table built from them."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from privcore.base import InputError

#: The category a person with no rows in a child table gets for that table's most frequent values.
NO_ROWS = "(no rows)"
#: Suffix of the column that holds a fingerprint of each person's whole set of rows of a child table.
ROW_SET = "set"


@dataclass(frozen=True)
class Relation:
    """A child table whose column ``column`` names a row of ``parent`` by its key ``parent_column``.

    Attributes
    ----------
    child, column : str
        The child table and its column holding the parent's key (a foreign key).
    parent, parent_column : str
        The parent table (one row per person) and its key column.
    order : str or None
        A child column that orders each person's rows (a year, a date, a visit number): the rows are then a
        sequence, summarised by its span and mean gap too.
    """

    child: str
    column: str
    parent: str
    parent_column: str
    order: str | None = None

    @classmethod
    def parse(cls, text: str, order: str | None = None) -> "Relation":
        """Read ``CHILD.COLUMN=PARENT.COLUMN`` (the command line's ``--relation``).

        Examples
        --------
        >>> Relation.parse("seasons.player_id=players.id")
        Relation(child='seasons', column='player_id', parent='players', parent_column='id', order=None)
        """
        try:
            left, right = text.split("=", 1)
            child, column = left.strip().split(".", 1)
            parent, parent_column = right.strip().split(".", 1)
        except ValueError:
            raise InputError(f"--relation {text!r}: write it as CHILD.COLUMN=PARENT.COLUMN, for example "
                             "visits.patient_id=patients.id (table names as given to --real NAME=PATH).") from None
        if not all((child, column, parent, parent_column)):
            raise InputError(f"--relation {text!r}: a table or column name is empty; write CHILD.COLUMN=PARENT.COLUMN.")
        return cls(child, column, parent, parent_column, order)


def people_table_name(relations: Sequence[Relation]) -> str:
    """The one parent table every relation points to (the people), or an error that says what is supported."""
    parents = sorted({r.parent for r in relations})
    if not relations:
        raise InputError("Several tables need at least one --relation CHILD.COLUMN=PARENT.COLUMN saying how they join.")
    if len(parents) != 1:
        raise InputError(f"The relations name {len(parents)} parent tables ({', '.join(parents)}); privcore takes "
                         "one table of people with one or more child tables pointing to it.")
    children = [r.child for r in relations]
    if parents[0] in children or len(set(children)) != len(children):
        raise InputError("Each child table joins its people once, and the people table is no one's child: "
                         f"relations given: {', '.join(f'{r.child}.{r.column}={r.parent}.{r.parent_column}' for r in relations)}.")
    return parents[0]


def check_related(tables: Mapping[str, pd.DataFrame], relations: Sequence[Relation], role: str,
                  names: Mapping[str, str] | None = None) -> None:
    """Refuse related tables that do not join: missing tables or columns, repeated keys, rows without a person.

    Parameters
    ----------
    tables : mapping of str to DataFrame
        The tables of one role (real, synthetic, holdout), by name.
    relations : sequence of Relation
    role : str
        ``"real"``, ``"synthetic"`` or ``"holdout"``, for the messages.
    names : mapping of str to str, optional
        Table name → file name, for the messages.

    Raises
    ------
    InputError
        Naming the table (and file), the column and what to do.
    """
    names = names or {}
    people = people_table_name(relations)
    needed = {people, *(r.child for r in relations)}
    missing = sorted(needed - set(tables))
    if missing:
        raise InputError(f"The {role} tables lack {', '.join(missing)}: give each table of the relations for every "
                         f"role (--{role} NAME=PATH), as for the real tables.", file=role)
    extra = sorted(set(tables) - needed)
    if extra:
        raise InputError(f"The {role} table(s) {', '.join(extra)} are in no --relation: say how they join to "
                         f"{people}, or leave them out.", file=role)
    for r in relations:
        for table, column in ((r.child, r.column), (r.parent, r.parent_column), (r.child, r.order)):
            if column is not None and column not in tables[table].columns:
                raise InputError(f"The {role} table {table} ({names.get(table, table)}) has no column {column!r} "
                                 f"named in the relation {r.child}.{r.column}={r.parent}.{r.parent_column}.",
                                 file=names.get(table, table), column=column)
    keys = tables[people][relations[0].parent_column]
    if keys.isna().any():
        raise InputError(f"{int(keys.isna().sum())} rows of the {role} table {people} ({names.get(people, people)}) "
                         f"have no {relations[0].parent_column}: every person needs a key.",
                         file=names.get(people, people), column=relations[0].parent_column)
    repeated = keys[keys.duplicated()]
    if len(repeated):
        raise InputError(f"The {role} table {people} ({names.get(people, people)}) repeats {len(repeated):,} values "
                         f"of its key {relations[0].parent_column!r} (e.g. {', '.join(map(str, repeated.unique()[:3]))}): "
                         "it must hold one row per person.", file=names.get(people, people),
                         column=relations[0].parent_column)
    known = set(keys.astype(str))
    for r in relations:
        child_keys = tables[r.child][r.column].astype(str)
        orphans = ~child_keys.isin(known)
        if orphans.any():
            examples = ", ".join(child_keys[orphans].unique()[:3])
            raise InputError(f"{int(orphans.sum()):,} rows of the {role} table {r.child} ({names.get(r.child, r.child)}) "
                             f"name a {r.column} that {people} does not hold (e.g. {examples}): every row must "
                             "belong to a person of that table.", file=names.get(r.child, r.child), column=r.column)


def person_table(tables: Mapping[str, pd.DataFrame], relations: Sequence[Relation],
                 kinds: Mapping[str, str] | None = None) -> tuple[pd.DataFrame, dict[str, str]]:
    """One row per person: the people table's columns and a summary of each child table's rows of that person.

    Parameters
    ----------
    tables : mapping of str to DataFrame
        Checked related tables (:func:`check_related`).
    relations : sequence of Relation
    kinds : mapping of str to str, optional
        ``"child.column"`` → ``"numerical"`` or ``"categorical"``: how each child column is summarised. Default: by
        the real tables' dtypes (numbers numerical). Pass the real tables' kinds for the synthetic and holdout
        tables, so that all three get the same columns.

    Returns
    -------
    people : DataFrame
        In the people table's row order, without its key column. Per child table ``c``: ``c.rows`` (how many rows
        the person has); per numerical child column ``x``: ``c.x.mean``, ``c.x.min``, ``c.x.max``; per categorical
        one: ``c.x.most`` (the most frequent value, the smallest on a tie) and ``c.x.distinct``; with an order
        column: ``c.order.first``, ``c.order.span`` (last − first) and ``c.order.gap`` (mean gap between consecutive
        rows), in days since 1970 and days for dates; ``c.set``, a fingerprint of the person's whole set of rows
        (:func:`row_sets`: equal for two people with the same rows, whatever their order), to check as an identifier.
        A person with no rows in ``c`` gets 0 for its numbers, :data:`NO_ROWS` for its categories and no fingerprint.
    kinds : dict
        The kinds used, ``"child.column"`` → kind, to pass on for the other roles.

    Examples
    --------
    >>> people = pd.DataFrame({"id": [1, 2, 3], "born": [1970, 1980, 1990]})
    >>> visits = pd.DataFrame({"pid": [1, 1, 2], "ward": ["a", "b", "b"], "days": [2.0, 4.0, 1.0]})
    >>> table, _ = person_table({"people": people, "visits": visits}, [Relation("visits", "pid", "people", "id")])
    >>> table.to_dict("list")  # doctest: +NORMALIZE_WHITESPACE
    {'born': [1970, 1980, 1990], 'visits.rows': [2, 1, 0], 'visits.ward.most': ['a', 'b', '(no rows)'],
     'visits.ward.distinct': [2, 1, 0], 'visits.days.mean': [3.0, 1.0, 0.0], 'visits.days.min': [2.0, 1.0, 0.0],
     'visits.days.max': [4.0, 1.0, 0.0], 'visits.set': ['8897b98741b99abc', 'c67048f1fb8c1fee', nan]}
    """
    people_name = people_table_name(relations)
    people = tables[people_name]
    key = relations[0].parent_column
    person_keys = people[key].astype(str).reset_index(drop=True)
    out = people.drop(columns=[key]).reset_index(drop=True)
    used: dict[str, str] = dict(kinds or {})
    for r in relations:
        child = tables[r.child]
        owner = child[r.column].astype(str)
        counts = owner.value_counts()
        parts = {f"{r.child}.rows": person_keys.map(counts).fillna(0).astype(np.int64)}
        for column in child.columns:
            if column in (r.column, r.order):
                continue
            name = f"{r.child}.{column}"
            kind = used.setdefault(name, "numerical" if pd.api.types.is_numeric_dtype(child[column])
                                   and not pd.api.types.is_bool_dtype(child[column]) else "categorical")
            if kind == "numerical":
                values = pd.to_numeric(child[column], errors="coerce")
                stats = values.groupby(owner).agg(["mean", "min", "max"])
                for stat in ("mean", "min", "max"):
                    parts[f"{name}.{stat}"] = person_keys.map(stats[stat]).fillna(0.0).astype(float)
            else:
                parts.update(_categorical_summary(child[column], owner, person_keys, name))
        if r.order is not None:
            parts.update(_sequence_summary(child[r.order], owner, person_keys, f"{r.child}.{r.order}"))
        parts[f"{r.child}.{ROW_SET}"] = person_keys.map(row_sets(child.drop(columns=[r.column]), owner))
        out = pd.concat([out, pd.DataFrame(parts)], axis=1)
    return out, used


def _categorical_summary(values: pd.Series, owner: pd.Series, person_keys: pd.Series, name: str) -> dict:
    """Each person's most frequent value of a child column (the smallest on a tie) and number of distinct values."""
    text = values.astype(str).where(values.notna(), "(missing)")
    frame = pd.DataFrame({"owner": owner.to_numpy(), "value": text.to_numpy()})
    counts = frame.groupby(["owner", "value"]).size().reset_index(name="n")
    counts = counts.sort_values(["owner", "n", "value"], ascending=[True, False, True], kind="mergesort")
    most = counts.drop_duplicates("owner").set_index("owner")["value"]
    distinct = counts.groupby("owner").size()
    return {f"{name}.most": person_keys.map(most).fillna(NO_ROWS).astype(str),
            f"{name}.distinct": person_keys.map(distinct).fillna(0).astype(np.int64)}


def _sequence_summary(order: pd.Series, owner: pd.Series, person_keys: pd.Series, name: str) -> dict:
    """The first value, span (last − first) and mean gap of each person's ordered rows, in days for dates."""
    if pd.api.types.is_numeric_dtype(order):
        position = order.astype(float)
    else:
        dates = pd.to_datetime(order, errors="coerce")
        if dates.notna().sum() < 0.9 * order.notna().sum():
            raise InputError(f"The order column {name.split('.', 1)[1]!r} of {name.split('.')[0]} holds neither "
                             "numbers nor dates; give a number, a year or a date that orders each person's rows.",
                             column=name.split(".", 1)[1])
        position = (dates - pd.Timestamp("1970-01-01")).dt.total_seconds() / 86_400.0
    frame = pd.DataFrame({"owner": owner.to_numpy(), "at": position.to_numpy()}).dropna()
    grouped = frame.groupby("owner")["at"]
    span = grouped.max() - grouped.min()
    rows = grouped.size()
    gap = span / (rows - 1).where(rows > 1)
    return {f"{name}.first": person_keys.map(grouped.min()).fillna(0.0).astype(float),
            f"{name}.span": person_keys.map(span).fillna(0.0).astype(float),
            f"{name}.gap": person_keys.map(gap).fillna(0.0).astype(float)}


def row_sets(rows: pd.DataFrame, owner: pd.Series) -> pd.Series:
    """A fingerprint of each owner's whole set of rows: 16 hexadecimal digits, the same for the same rows in any order.

    A generator that copies a person's career (every season, every visit) under other attributes reproduces this
    value, which no summary of single columns pins down; checked like a name (:mod:`privcore.metrics.identifiers`),
    against the rate at which other real people's sets reappear.

    Parameters
    ----------
    rows : DataFrame
        A child table without its key column.
    owner : Series
        The person of each row (as text).

    Returns
    -------
    Series
        Owner → fingerprint.

    Examples
    --------
    >>> rows = pd.DataFrame({"year": [2001, 2000, 2000, 2001], "team": ["b", "a", "a", "b"]})
    >>> sets = row_sets(rows, pd.Series(["p", "p", "q", "q"]))
    >>> sets["p"] == sets["q"], len(sets["p"])
    (True, 16)
    """
    # Numbers as numbers (23, 23.0 and "23" read from two files are one value), everything else as text.
    text = pd.DataFrame({column: _canonical(values) for column, values in rows.items()}, index=rows.index)
    lines = text.apply(lambda row: "\x1f".join(row), axis=1) if len(rows.columns) else pd.Series("", index=rows.index)
    frame = pd.DataFrame({"owner": owner.to_numpy(), "line": lines.to_numpy()}).sort_values(["owner", "line"])
    joined = frame.groupby("owner", sort=False)["line"].agg("\x1e".join)
    return joined.map(lambda value: hashlib.blake2b(value.encode("utf-8"), digest_size=8).hexdigest())


def _canonical(values: pd.Series) -> pd.Series:
    """A child column's values as compared in :func:`row_sets`: numbers in one format where every value is one."""
    numbers = pd.to_numeric(values, errors="coerce") if not pd.api.types.is_bool_dtype(values) else None
    if numbers is not None and numbers.notna().sum() == values.notna().sum():
        text = numbers.astype(float).map(lambda x: format(x, ".12g"))
    else:
        text = values.astype(str)
    return text.where(values.notna(), "(missing)")
