"""How loaded tables fit together, in words: table names in messages, missing values, column mismatches.

Used by the Data page (next to each upload) and the Configure form; no Streamlit import.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from dashboard.session.state import Tables
from privcore.base import ColumnMismatchError, InputError
from privcore.data import Schema, check_column_kinds_agree, check_no_all_missing, check_same_columns, only, read_columns


def describe(role: str, name: str) -> str:
    """How a table is named in messages: "the synthetic table 'ctgan'"."""
    return f"the {role} table '{name}'"


def sentence(message: str) -> str:
    """The message with a capital first letter (privcore messages may start with a table name)."""
    return message[:1].upper() + message[1:]


def missing_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Missing values per column: count and share, one row per column, in table order."""
    counts = frame.isna().sum()
    share = counts / max(len(frame), 1)
    return pd.DataFrame(
        {"column": [str(c) for c in frame.columns], "missing values": counts.to_numpy(),
         "share": [f"{s:.1%}" for s in share.to_numpy()]}
    )


@dataclass
class FitProblem:
    """A way in which a loaded table does not fit the others.

    ``role`` and ``name`` say which loaded table the problem is shown with; ``missing`` and
    ``extra`` list the mismatched columns of a column mismatch; ``kind`` says what is wrong:
    ``"columns"`` (other column names), ``"empty"`` (a column without values, or no rows), ``"kinds"``
    (numbers in one table, text in another) or ``"settings"`` (the column settings do not fit it).
    """

    role: str
    name: str
    message: str
    missing: list = field(default_factory=list)
    extra: list = field(default_factory=list)
    kind: str = "columns"


def fit_problems(tables: Tables, schema: Schema | None = None) -> list[FitProblem]:
    """Check every loaded table against the real one with privcore's checks, collecting all problems.

    Column mismatches come with the lists of missing and extra columns so that the page can explain
    them column by column; empty columns and numeric/text conflicts follow.

    Parameters
    ----------
    tables : Tables
        The loaded tables.
    schema : Schema, optional
        The column settings (the Configure page's): applied ahead of the checks, as the command line applies
        ``--categorical`` and ``--exclude`` (:func:`privcore.data.table_checks.read_columns`). A column left
        out may be empty, and one declared categorical or binary may hold numbers in one table and text in
        another. Without it every column is checked.
    """
    if tables.real is None:
        return []
    loaded = [("real", tables.real)] + [("synthetic", t) for t in tables.synthetic.values()]
    if tables.holdout is not None:
        loaded.append(("holdout", tables.holdout))
    # Messages name tables by role and name; this maps those descriptions back to the tables.
    described = {describe(role, t.name): (role, t) for role, t in loaded}
    real_name = describe("real", tables.real.name)
    problems: list[FitProblem] = []
    for name, (role, table) in described.items():
        if role == "real":
            continue
        try:
            check_same_columns(tables.real.frame, table.frame, real_name, name)
        except ColumnMismatchError as exc:
            problems.append(FitProblem(role, table.name, sentence(str(exc)), list(exc.missing),
                                       list(exc.extra)))
    read, kinds = (None, None) if schema is None else read_columns(schema)
    for name, (role, table) in described.items():
        try:
            check_no_all_missing(only(table.frame, read), name)
        except InputError as exc:
            problems.append(FitProblem(role, table.name, sentence(str(exc)), kind="empty"))
    # Each table against the real one, so that a second table with numbers stored as text is named too.
    for name, (role, table) in described.items():
        if role == "real":
            continue
        try:
            check_column_kinds_agree({real_name: only(tables.real.frame, kinds), name: only(table.frame, kinds)})
        except InputError as exc:
            problems.append(FitProblem(role, table.name, sentence(str(exc)), kind="kinds"))
    return problems


def blocking_problems(tables: Tables, schema: Schema | None) -> list[FitProblem]:
    """The loaded tables that stop an evaluation with ``schema``, each with what is wrong, in table order.

    A synthetic table or the holdout blocks when ``schema`` does not validate against the real table and it
    (what :func:`privcore.evaluate` checks first); the real table blocks when the schema does not validate
    against it alone. Without a schema (the Configure page found the settings invalid), every problem of
    :func:`fit_problems` blocks. A blocking table is described by its own fit problems where it has some
    (they explain column by column), otherwise by the schema's message.
    """
    if tables.real is None:
        return []
    problems = fit_problems(tables, schema)
    if schema is None:
        return problems
    blocked: list[FitProblem] = []
    loaded = [("real", tables.real)] + [("synthetic", t) for t in tables.synthetic.values()]
    if tables.holdout is not None:
        loaded.append(("holdout", tables.holdout))
    for role, table in loaded:
        message = _settings_problem(schema, tables.real, role, table)
        if message is None:
            continue
        own = [p for p in problems if (p.role, p.name) == (role, table.name)]
        blocked += own or [FitProblem(role, table.name, message, kind="settings")]
        if role == "real":  # every other table is checked against it: nothing more to say until it is fixed
            break
    return blocked


def _settings_problem(schema: Schema, real, role: str, table) -> str | None:
    real_name = describe("real", real.name)
    name = describe(role, table.name)
    try:
        if role == "real":
            schema.validate(real.frame, None, None, real_name=real_name)
        elif role == "holdout":
            schema.validate(real.frame, None, table.frame, real_name=real_name, holdout_name=name)
        else:
            schema.validate(real.frame, {name: table.frame}, None, real_name=real_name)
    except InputError as exc:
        return sentence(str(exc))
    except Exception:  # noqa: BLE001 — unusual data; the Configure page says more
        return f"{sentence(name)} could not be checked against the column settings."
    return None


def one_per_table(problems: list[FitProblem]) -> list[FitProblem]:
    """The first problem of each table, in order."""
    first: dict[tuple[str, str], FitProblem] = {}
    for problem in problems:
        first.setdefault((problem.role, problem.name), problem)
    return list(first.values())


def problem_summary(problem: FitProblem) -> str:
    """What is wrong with a table in a few words, for a list of blocked tables."""
    return {
        "columns": "its columns differ from the real table's",
        "empty": "a column has no values",
        "kinds": "a column holds text where the real table has numbers (or the other way round)",
    }.get(problem.kind, "the column settings do not fit it")




def mismatch_frame(problem: FitProblem, real_name: str) -> pd.DataFrame:
    """One row per mismatched column saying where it is and where it is missing."""
    table = describe(problem.role, problem.name)
    rows = [(str(c), f"in {real_name}, missing from {table}") for c in problem.missing]
    rows += [(str(c), f"in {table}, not in {real_name}") for c in problem.extra]
    return pd.DataFrame(rows, columns=["column", "problem"])
