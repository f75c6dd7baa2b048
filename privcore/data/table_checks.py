"""Check loaded tables against each other.

The same columns, no column without values, the same kind (numeric or text) of every column in every table, enough rows.
Each problem is raised as an :class:`privcore.base.errors.InputError` subclass whose message names the table and says
what to do.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import pandas as pd
from pandas.api import types as ptypes

from privcore.base import (
    AllMissingColumnError,
    ColumnMismatchError,
    ColumnTypeConflictError,
    EmptyFileError,
    TooFewRowsError,
)
from privcore.data.schema import NUMERICAL, Schema
from privcore.data.wording import capitalised, count_of, declare_categorical, leave_out, listed


def check_min_rows(df: pd.DataFrame, name: str, minimum: int, purpose: str) -> None:
    """Raise if a table has fewer rows than an analysis needs.

    Parameters
    ----------
    df : pandas.DataFrame
        The table.
    name : str
        File name or table role used in the message.
    minimum : int
        Smallest acceptable number of rows.
    purpose : str
        What needs the rows, as a noun phrase completing "at least 5 are needed for ...", e.g.
        "the distance metrics".

    Raises
    ------
    TooFewRowsError
        If ``len(df) < minimum``.
    """
    if len(df) >= minimum:
        return
    raise TooFewRowsError(
        f"{capitalised(name)} has {count_of(len(df), 'row')}; at least {minimum} are needed for {purpose}. "
        "Use a larger table, or leave out what needs more rows.",
        file=name,
    )


def check_no_all_missing(df: pd.DataFrame, name: str) -> None:
    """Raise if any column of a table has no value at all.

    Parameters
    ----------
    df : pandas.DataFrame
        The table.
    name : str
        File name or table role used in the message.

    Raises
    ------
    AllMissingColumnError
        Naming every such column; ``.column`` is the first.
    EmptyFileError
        If the table has no rows (then every column is trivially empty).
    """
    if len(df) == 0:
        raise EmptyFileError(
            f"{capitalised(name)} has no data rows. Upload a table with at least one record.", file=name
        )
    empty = [c for c in df.columns if df[c].isna().all()]
    if not empty:
        return
    them = "it" if len(empty) == 1 else "them"
    leave = leave_out(empty)
    raise AllMissingColumnError(
        f"{capitalised(name)} has {count_of(len(empty), 'column', 'columns')} with no values at all: "
        f"{listed(empty)}. {leave[:1].upper()}{leave[1:]}, remove {them} from every table, or fill {them} in "
        "and upload again.",
        file=name,
        column=empty[0],
    )


def check_same_columns(
    reference: pd.DataFrame, other: pd.DataFrame, reference_name: str, other_name: str
) -> None:
    """Raise if two tables do not have the same set of column names (order is ignored).

    Parameters
    ----------
    reference, other : pandas.DataFrame
        Usually the real table and a synthetic or holdout table.
    reference_name, other_name : str
        Names used in the message.

    Raises
    ------
    ColumnMismatchError
        With ``.missing`` (in ``reference`` but not in ``other``) and ``.extra`` (in ``other``
        but not in ``reference``), each in table order.
    """
    ref_cols, other_cols = set(reference.columns), set(other.columns)
    missing = [c for c in reference.columns if c not in other_cols]
    extra = [c for c in other.columns if c not in ref_cols]
    if not missing and not extra:
        return
    hints = _near_misses(missing, extra)
    message = (
        f"{capitalised(other_name)} does not have the same columns as {reference_name}. "
        f"Missing from {other_name} (present in {reference_name}): {listed(missing) or 'none'}. "
        f"Extra in {other_name} (not in {reference_name}): {listed(extra) or 'none'}. "
    )
    if hints:
        message += f"Perhaps renamed: {'; '.join(hints)}. "
    message += "Rename or remove columns so both tables have the same names; order does not matter."
    raise ColumnMismatchError(message, file=other_name, missing=missing, extra=extra)


def _near_misses(missing, extra):
    # The commonest cause of a mismatch is "Age" vs "age" or "capital gain" vs "capital_gain".
    def key(c):
        return re.sub(r"[\s_\-.]+", "", str(c)).casefold()

    by_key = {key(c): c for c in extra}
    return [f"{by_key[key(c)]!r} for {c!r}" for c in missing if key(c) in by_key]


def check_column_kinds_agree(tables: Mapping[str, pd.DataFrame]) -> None:
    """Raise if a column is numeric in one table and text in another.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        Tables keyed by the name used in messages, reference (real) table first.

    Raises
    ------
    ColumnTypeConflictError
        For the first such column (in the first table's column order), naming the first table
        where it is numeric, the first where it is text, and a value that is not a number.

    Notes
    -----
    Columns without any value in a table say nothing about their kind there and are skipped;
    :func:`check_no_all_missing` reports them.
    """
    order = list(dict.fromkeys(c for df in tables.values() for c in df.columns))
    for column in order:
        kinds = {
            table: _kind(df[column]) for table, df in tables.items() if column in df.columns
        }
        numeric = [t for t, k in kinds.items() if k == "numeric"]
        text = [t for t, k in kinds.items() if k == "text"]
        if not numeric or not text:
            continue
        example = _non_numeric_example(tables[text[0]][column])
        raise ColumnTypeConflictError(
            f"Column {column!r} is numeric in {numeric[0]} but text in {text[0]} "
            f"(e.g. {example!r}). Fix those values, {declare_categorical(column, 'the column')}, or "
            f"{leave_out(column)}.",
            file=text[0],
            column=column,
        )


def _kind(s):
    if s.isna().all() or ptypes.is_bool_dtype(s.dtype):
        return None
    if ptypes.is_numeric_dtype(s.dtype):
        return "numeric"
    if (
        s.dtype == object
        or ptypes.is_string_dtype(s.dtype)
        or isinstance(s.dtype, pd.CategoricalDtype)
    ):
        return "text"
    return None


def _non_numeric_example(s):
    values = s.dropna()
    parsed = pd.to_numeric(values.astype(str), errors="coerce")
    bad = values[parsed.isna().to_numpy()]
    return str((bad if len(bad) else values).iloc[0])


def read_columns(schema: Schema) -> tuple[list[str], list[str]]:
    """The columns an evaluation with ``schema`` reads, and those among them whose kind must agree.

    Parameters
    ----------
    schema : Schema
        The column settings (types, which columns are analysed, the pairing id column).

    Returns
    -------
    read : list of str
        The analysed columns and the pairing id column: a column left out is never read, so it may be empty
        or hold anything.
    kinds : list of str
        The numerical columns and the pairing id column. A categorical or binary column is compared as
        category text (:func:`privcore.data.schema.canonical_categories`: 40 and "40" are one category), so
        numbers in one table and text in another do not stop it.

    Examples
    --------
    >>> read_columns(Schema({"age": "numerical", "job": "categorical"}, pairing="id"))
    (['age', 'job', 'id'], ['age', 'id'])
    """
    pairing = [] if schema.pairing_column is None else [schema.pairing_column]
    return list(schema.types) + pairing, list(schema.columns_of(NUMERICAL)) + pairing


def validate_tables(
    real: pd.DataFrame,
    synthetic: Mapping[str, pd.DataFrame] | pd.DataFrame,
    holdout: pd.DataFrame | None = None,
    names: Mapping[str, str] | None = None,
    *,
    schema: Schema | None = None,
) -> None:
    """Check that the synthetic tables and the holdout fit the real table.

    Runs, in this order, :func:`check_same_columns` of every synthetic table and then the holdout
    against ``real``, :func:`check_no_all_missing` on ``real``, each synthetic table and the
    holdout, and :func:`check_column_kinds_agree` on all of them; the first failure is raised.
    With ``schema``, the column settings apply first (:func:`read_columns`): only the columns it reads must
    have values, and only its numerical columns (and the pairing id) must hold numbers in every table, so that
    following a message's advice (declare the column categorical, leave it out) makes the tables pass.

    Parameters
    ----------
    real : pandas.DataFrame
        The real (training) table.
    synthetic : dict of str to pandas.DataFrame, or pandas.DataFrame
        Synthetic tables keyed by a short name; a single frame is taken as ``{"synthetic": df}``.
    holdout : pandas.DataFrame, optional
        Real records not used to train the generator.
    names : mapping of str to str, optional
        Display names for messages, keyed by ``"real"``, ``"holdout"`` and the keys of
        ``synthetic``, e.g. ``{"real": "adult.csv", "ctgan": "ctgan_out.parquet"}``. Keys not in
        it are shown as they are.
    schema : Schema, optional
        The column settings (``--categorical``, ``--exclude``, the Configure page); without it every column
        is checked.

    Raises
    ------
    ColumnMismatchError, AllMissingColumnError, EmptyFileError, ColumnTypeConflictError
    """
    names = dict(names or {})
    if isinstance(synthetic, pd.DataFrame):
        synthetic = {"synthetic": synthetic}
    real_name = names.get("real", "real")
    others = [(names.get(key, key), df) for key, df in synthetic.items()]
    if holdout is not None:
        others.append((names.get("holdout", "holdout"), holdout))
    for other_name, df in others:
        check_same_columns(real, df, real_name, other_name)
    read, kinds = (None, None) if schema is None else read_columns(schema)
    for table_name, df in [(real_name, real), *others]:
        check_no_all_missing(only(df, read), table_name)
    check_column_kinds_agree({table_name: only(df, kinds) for table_name, df in [(real_name, real), *others]})


def only(df: pd.DataFrame, columns: list[str] | None) -> pd.DataFrame:
    """``df`` restricted to those of ``columns`` it has, in its own order (all of it for None)."""
    if columns is None:
        return df
    wanted = set(columns)
    return df[[c for c in df.columns if c in wanted]]
