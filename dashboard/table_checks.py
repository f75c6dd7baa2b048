"""How loaded tables fit together, in words: table names in messages, missing values, column mismatches.

Used by the Data page (next to each upload) and the Configure form; no Streamlit import.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from privcore.base.errors import ColumnMismatchError, InputError
from privcore.data.io import check_column_kinds_agree, check_no_all_missing, check_same_columns

from dashboard.state import Tables


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
    ``extra`` list the mismatched columns of a column mismatch.
    """

    role: str
    name: str
    message: str
    missing: list = field(default_factory=list)
    extra: list = field(default_factory=list)


def fit_problems(tables: Tables) -> list[FitProblem]:
    """Check every loaded table against the real one with privcore's checks, collecting all problems.

    Column mismatches come with the lists of missing and extra columns so that the page can explain
    them column by column; empty columns and numeric/text conflicts follow.
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
    for name, (role, table) in described.items():
        try:
            check_no_all_missing(table.frame, name)
        except InputError as exc:
            problems.append(FitProblem(role, table.name, sentence(str(exc))))
    try:
        check_column_kinds_agree({name: table.frame for name, (_, table) in described.items()})
    except InputError as exc:
        role, table = described.get(exc.file, ("real", tables.real))
        problems.append(FitProblem(role, table.name, sentence(str(exc))))
    return problems




def mismatch_frame(problem: FitProblem, real_name: str) -> pd.DataFrame:
    """One row per mismatched column saying where it is and where it is missing."""
    table = describe(problem.role, problem.name)
    rows = [(str(c), f"in {real_name}, missing from {table}") for c in problem.missing]
    rows += [(str(c), f"in {table}, not in {real_name}") for c in problem.extra]
    return pd.DataFrame(rows, columns=["column", "problem"])
