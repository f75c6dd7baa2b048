"""Turn a table's header row and body, as read from any format, into a tidy frame.

The frame :func:`privcore.data.io.load_table` returns: names and text stripped, missing tokens as NaN, numbers typed,
and a first row that looks like data rather than column names refused.
"""

from __future__ import annotations

import re
from numbers import Number

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from privcore.base import DuplicateColumnsError, EmptyFileError, NoHeaderError
from privcore.data.wording import capitalised, listed

#: Cell values (after stripping surrounding whitespace) read as missing. Matched exactly, not
#: case-insensitively, so that real categories such as "Na" (sodium) or "none" survive.
MISSING_TOKENS = frozenset(
    {"", "?", "NA", "N/A", "n/a", "#N/A", "NaN", "nan", "null", "NULL", "None"}
)
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_FLOAT_TEXT = re.compile(rf"{_NUMBER.pattern}|[+-]?(?:inf|infinity)", re.IGNORECASE)


def tidy_table(header: list, body: pd.DataFrame, name: str, *, check_header: bool) -> pd.DataFrame:
    """Turn a header row and a positionally labelled body into the final frame.

    Parameters
    ----------
    header : list
        The header row's cells.
    body : pandas.DataFrame
        The data rows, columns labelled by position.
    name : str
        The file's name in messages.
    check_header : bool
        Refuse a first row that looks like data (not for Parquet, which stores its names).

    Returns
    -------
    pandas.DataFrame
        As described in :func:`privcore.data.io.load_table`.

    Raises
    ------
    NoHeaderError, DuplicateColumnsError, EmptyFileError
    """
    if check_header:
        _check_header_not_numbers(header, name)
    texts = [header_text(value) for value in header]
    columns = [_normalise_text(body[c]) for c in body.columns]
    # Keep a column if it has a name or any value; blank and empty ones are layout artefacts.
    keep = [i for i, col in enumerate(columns) if texts[i] or col.notna().any()]
    header = [header[i] for i in keep]
    names = [texts[i] or f"Unnamed: {i}" for i in keep]  # pandas' naming, by original position
    body = pd.DataFrame({j: columns[i] for j, i in enumerate(keep)}, index=body.index)
    body = body.loc[body.notna().any(axis=1)].reset_index(drop=True)
    if body.empty:
        shown = listed([texts[i] for i in keep if texts[i]], limit=5, quote=False)
        what = f"a header row ({shown}) but no data rows" if shown else "no data rows"
        raise EmptyFileError(
            f"{capitalised(name)} has {what}. Export the table again with its rows, one record per line "
            "under a header row of column names.",
            file=name,
        )
    if check_header:
        _check_header_not_values(header, body, name)
    check_unique_names(names, name)
    return pd.DataFrame({n: _settle_type(body[j]) for j, n in enumerate(names)})


def header_text(value) -> str:
    """A header cell as a column name: stripped text, "" for a blank cell, 2020 for Excel's 2020.0.

    Parameters
    ----------
    value : object
        The cell.

    Returns
    -------
    str

    Examples
    --------
    >>> header_text(" age "), header_text(2020.0), header_text(None)
    ('age', '2020', '')
    """
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # Excel stores a header cell 2020 as 2020.0
    return str(value).strip()


def _looks_numeric(value):
    if isinstance(value, bool):
        return False
    if isinstance(value, Number):
        return not (isinstance(value, float) and np.isnan(value))
    return isinstance(value, str) and _NUMBER.fullmatch(value.strip()) is not None


def _is_blank(value):
    return header_text(value) in MISSING_TOKENS


def _check_header_not_numbers(header, name):
    filled = [v for v in header if not _is_blank(v)]
    if not filled or not all(_looks_numeric(v) for v in filled):
        return
    numbers = [float(v) for v in filled]
    consecutive = len(numbers) >= 2 and all(
        x.is_integer() and y - x == 1 for x, y in zip(numbers, numbers[1:])
    )
    if consecutive:
        return  # 0, 1, 2, … or 2019, 2020, … are names, e.g. pandas' default column labels
    raise NoHeaderError(
        f"The first row of {name} looks like data, not column names: every value in it is a "
        f"number ({listed([header_text(v) for v in filled], limit=5, quote=False)}). Add a header "
        "row with one name per column as the first line and upload the file again.",
        file=name,
    )


def _check_header_not_values(header, body, name):
    pairs = [(i, v) for i, v in enumerate(header) if not _is_blank(v)]
    if len(pairs) < 2:
        return
    same_row = np.ones(len(body), dtype=bool)
    for position, value in pairs:
        text = header_text(value)
        candidates = {value, text}
        if _looks_numeric(text):
            candidates.add(float(text))
        matches = body[position].isin(list(candidates)).to_numpy()
        if not matches.any():
            return
        same_row &= matches
    if same_row.any():
        # A row repeating the whole first row is a repeated header (concatenated exports) as often
        # as a duplicated first record: too ambiguous to call.
        return
    shown = listed([header_text(v) for _, v in pairs], limit=5, quote=False)
    raise NoHeaderError(
        f"The first row of {name} looks like data, not column names: each of its values ({shown}) "
        "also occurs further down the same column. Add a header row with one name per column as "
        "the first line and upload the file again.",
        file=name,
    )


def check_unique_names(names: list[str], name: str) -> None:
    """Refuse a table with two columns of the same name.

    Parameters
    ----------
    names : list of str
        The column names, in order.
    name : str
        The file's name in messages.

    Raises
    ------
    DuplicateColumnsError
        Naming every repeated name with its positions; ``.column`` is the first.
    """
    positions = {}
    for i, column in enumerate(names, start=1):
        positions.setdefault(column, []).append(i)
    duplicated = {c: p for c, p in positions.items() if len(p) > 1}
    if not duplicated:
        return
    described = "; ".join(
        f"{c!r} (columns {', '.join(map(str, p[:-1]))} and {p[-1]})" for c, p in duplicated.items()
    )
    raise DuplicateColumnsError(
        f"{capitalised(name)} has more than one column with the same name: {described}. Rename them so "
        "that every column has a unique name, then upload the file again.",
        file=name,
        column=next(iter(duplicated)),
    )


def _normalise_text(s):
    """Strip text values and turn missing tokens into NaN; other columns are returned unchanged."""
    if isinstance(s.dtype, pd.CategoricalDtype) or ptypes.is_string_dtype(s.dtype):
        s = s.astype(object)
    if s.dtype != object:
        return s
    if ptypes.infer_dtype(s, skipna=True) == "string":
        s = s.str.strip()
    else:  # mixed cells (Excel numbers next to text): only the strings need stripping
        s = s.map(lambda v: v.strip() if isinstance(v, str) else v)
    return s.mask(s.isin(MISSING_TOKENS))


def _settle_type(s):
    """Numeric-looking text becomes int64/float64, dates become datetime64, the rest str."""
    if s.dtype != object or s.isna().all():
        return s
    kind = ptypes.infer_dtype(s, skipna=True)
    if kind in {"datetime", "datetime64", "date"}:
        try:
            return pd.to_datetime(s)
        except (ValueError, TypeError, OverflowError):
            pass
    if kind != "boolean":  # True/False stay text, as they would be read from a CSV
        try:
            numbers = pd.to_numeric(s)
        except (ValueError, TypeError, OverflowError):
            numbers = None
        if numbers is None and kind == "string" and s.dropna().str.fullmatch(_FLOAT_TEXT).all():
            # pandas refuses a number beyond float range ("1e309"); read as ±inf, it is reported by
            # Schema.validate with its row instead of silently turning the column into text.
            numbers = s.map(lambda v: v if _isna(v) else float(v)).astype(np.float64)
        if numbers is not None and ptypes.is_numeric_dtype(numbers) and not ptypes.is_bool_dtype(
            numbers
        ):
            return _tidy_numbers(numbers)
    if kind != "string":
        s = s.map(lambda v: v if isinstance(v, str) or _isna(v) else str(v))
    return s


def _isna(value):
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _tidy_numbers(numbers):
    if numbers.dtype == np.int64:
        return numbers
    values = numbers.to_numpy(dtype=float, na_value=np.nan)
    integral = (
        np.isfinite(values).all()
        and np.abs(values).max() < 2**53  # beyond this float64 cannot hold every integer
        and (values == np.round(values)).all()
    )
    return numbers.astype(np.int64 if integral else np.float64)
