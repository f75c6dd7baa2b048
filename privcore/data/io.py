"""Load user tables and check that they fit together.

This is the first step of the data flow (load → schema → encode → neighbours → metrics →
report). :func:`load_table` turns a CSV, Parquet or Excel upload into a tidy
:class:`pandas.DataFrame`; the ``check_*`` functions and :func:`validate_tables` then check the
real, synthetic and holdout tables against each other. Every problem is raised as a subclass of
:class:`privcore.base.errors.InputError` whose message names the file (and column) and says what to
do, so callers can show it as is.

Uploaded data is only ever held in memory: nothing here writes to disk.
"""

from __future__ import annotations

import csv
import gzip
import io
import re
import zlib
from collections import Counter
from collections.abc import Mapping
from typing import BinaryIO
from numbers import Number
from pathlib import Path

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from privcore.base.errors import (
    AllMissingColumnError,
    ColumnMismatchError,
    ColumnTypeConflictError,
    DuplicateColumnsError,
    EmptyFileError,
    FileTooLargeError,
    InputError,
    NoHeaderError,
    TooFewRowsError,
    UnparseableFileError,
)

__all__ = [
    "MAX_UPLOAD_MB",
    "MISSING_TOKENS",
    "check_column_kinds_agree",
    "check_min_rows",
    "check_no_all_missing",
    "check_same_columns",
    "load_table",
    "validate_tables",
]

MAX_UPLOAD_MB = 200

#: Cell values (after stripping surrounding whitespace) read as missing. Matched exactly, not
#: case-insensitively, so that real categories such as "Na" (sodium) or "none" survive.
MISSING_TOKENS = frozenset(
    {"", "?", "NA", "N/A", "n/a", "#N/A", "NaN", "nan", "null", "NULL", "None"}
)

_SUPPORTED = (
    "Supported formats are CSV or TSV (optionally gzip-compressed), Parquet, and Excel (.xlsx)."
)
_DEFAULT_NAME = "the uploaded table"
_DELIMITERS = ",;\t|"
_DELIMITER_WORDS = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "'|' characters"}

_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGIC = b"PK\x03\x04"
_PARQUET_MAGIC = b"PAR1"
_OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # legacy .xls and password-protected .xlsx

_SNIFF_CHARS = 64_000  # enough for dozens of lines; csv.Sniffer is pure Python and slow on more
_SNIFF_LINES = 50
_ENCODING_SAMPLE = 256_000  # charset_normalizer sees a sample; the whole file is decoded afterwards
_CONTROL_CHARS = frozenset(
    chr(c) for c in [*range(32), *range(127, 160)] if chr(c) not in "\t\r\n"
)
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_FLOAT_TEXT = re.compile(rf"{_NUMBER.pattern}|[+-]?(?:inf|infinity)", re.IGNORECASE)


# --------------------------------------------------------------------------------------- loading


def load_table(
    source: str | Path | bytes | BinaryIO,
    name: str | None = None,
    *,
    max_bytes: int = MAX_UPLOAD_MB * 1024 * 1024,
) -> pd.DataFrame:
    """Read a CSV, Parquet or Excel table into a cleaned DataFrame.

    Parameters
    ----------
    source : str, pathlib.Path, bytes or binary file-like
        A path, the raw bytes of the file, or an object with ``getvalue()`` or ``read()`` (for
        example a Streamlit ``UploadedFile``; its ``.name`` is used for the format and messages).
    name : str, optional
        Name used in error messages. Defaults to the file name, or "the uploaded table" for bytes.
    max_bytes : int, optional
        Largest accepted size in bytes, for the file and, when gzip-compressed, for its content.

    Returns
    -------
    pandas.DataFrame
        One row per record with a fresh ``RangeIndex``. Column names and text values are stripped of
        surrounding whitespace, :data:`MISSING_TOKENS` are NaN, numeric-looking columns are
        ``int64`` (all integral, none missing) or ``float64``, and other text columns are ``object``
        columns of ``str``.

    Raises
    ------
    FileTooLargeError, EmptyFileError, NoHeaderError, DuplicateColumnsError, UnparseableFileError
        See the Notes. A path that does not exist, or is a directory, raises the base
        :class:`InputError` saying which.

    Notes
    -----
    The format comes from the file's leading bytes when they are unambiguous (gzip, zip-based
    Excel, Parquet's ``PAR1`` at both ends, legacy ``.xls``), otherwise from the extension
    (``.csv``, ``.tsv``, ``.txt``, ``.gz``, ``.parquet``/``.pq``, ``.xlsx``/``.xlsm``), and text
    otherwise. Content wins over the extension so that a misnamed file still loads.

    Text is decoded as UTF-8 (a UTF-8 or UTF-16 byte-order mark is honoured), else with
    charset_normalizer's guess, else as Windows-1252, else as Latin-1, which always decodes. When
    Windows-1252 (Excel's Western default, equal to Latin-1 for every letter) fits the bytes as
    well as charset_normalizer's pick it is preferred, because on short files that pick is
    arbitrary among equally good code pages. The cost is that short Central European files (Polish
    "Łódź") may be misread; UTF-8 avoids the question.

    The delimiter is one of ``,`` ``;`` tab ``|``: an Excel ``sep=`` first line wins, then
    :class:`csv.Sniffer` if its choice splits the first lines as consistently as the best
    candidate, else that best candidate (the one giving the most lines with the usual number of
    fields, preferring more than one field).

    The first row must hold the column names. It is taken for data (``NoHeaderError``) only in two
    conservative cases: every non-blank value in it is a number, unless they are consecutive
    integers such as pandas' default names ``0, 1, 2``; or it has at least two non-blank values and
    each one also occurs further down its own column, which real column names practically never do.
    Blank names become ``"Unnamed: <position>"`` as in pandas.

    Rows in which every value is missing, and blank-named columns without any value (trailing
    delimiters, formatted but empty Excel cells), carry no data and are dropped. Excel files are
    read from their first sheet, skipping blank rows above the header.
    """
    filename = _source_filename(source) or name  # raw bytes: the given name is the only hint
    name = name or filename or _DEFAULT_NAME
    data = _read_bytes(source, name, max_bytes)
    if not data:
        raise EmptyFileError(_empty_message(name), file=name)
    fmt = _detect_format(data, filename)
    if fmt == "gzip":
        data = _gunzip(data, name, max_bytes)
        inner = filename[: -len(".gz")] if filename and filename.lower().endswith(".gz") else None
        fmt = _detect_format(data, inner)
        if fmt == "gzip":
            raise UnparseableFileError(
                f"{_cap(name)} is compressed twice with gzip. Decompress it once more and upload "
                f"the result. {_SUPPORTED}",
                file=name,
            )
    if fmt == "xls":
        raise UnparseableFileError(
            f"{_cap(name)} is an old-style .xls workbook or a password-protected Excel file, which "
            "cannot be read. Open it in Excel or LibreOffice and save it as .xlsx or CSV without "
            f"a password. {_SUPPORTED}",
            file=name,
        )
    if fmt == "parquet":
        header, body = _read_parquet(data, name)
        check_header = False  # Parquet always stores column names explicitly
    elif fmt == "excel":
        header, body = _read_excel(data, name)
        check_header = True
    else:
        header, body = _read_text(data, name)
        check_header = True
    return _tidy(header, body, name, check_header=check_header)


def _source_filename(source):
    if isinstance(source, (str, Path)):
        return Path(source).name
    if isinstance(source, (bytes, bytearray, memoryview)):
        return None
    raw = getattr(source, "name", None)
    # Open files carry their full path (or an int for descriptors); messages want the base name.
    return Path(raw).name if isinstance(raw, (str, Path)) and str(raw) else None


def _read_bytes(source, name, max_bytes):
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_dir():
            raise InputError(
                f"{str(path)!r} is a directory, not a table file. Give the path of the CSV, TSV, "
                "Parquet or Excel file itself and try again.",
                file=name,
            )
        if not path.is_file():
            raise InputError(
                f"{_cap(name)} was not found (looked for {str(path)!r}). Check the path and try "
                "again.",
                file=name,
            )
        # Check the size before reading so that an oversized file never reaches memory.
        _check_size(path.stat().st_size, name, max_bytes)
        try:
            return path.read_bytes()
        except OSError as exc:
            raise InputError(
                f"{_cap(name)} could not be opened ({exc.strerror or exc}). Check that the file is "
                "readable and try again.",
                file=name,
            ) from exc
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        _check_size(len(data), name, max_bytes)
        return data
    size = getattr(source, "size", None)  # Streamlit's UploadedFile knows its size
    if isinstance(size, int):
        _check_size(size, name, max_bytes)
    if hasattr(source, "getvalue"):
        data = source.getvalue()
    elif hasattr(source, "read"):
        data = source.read(max_bytes + 1)  # never pull more than one byte past the limit
    else:
        raise TypeError(
            "load_table expects a path, bytes or a binary file-like object, "
            f"not {type(source).__name__}"
        )
    if isinstance(data, str):  # a text-mode handle; its encoding is already decided
        data = data.encode("utf-8")
    data = bytes(data)
    _check_size(len(data), name, max_bytes)
    return data


def _check_size(size, name, max_bytes, *, decompressed=False):
    if size <= max_bytes:
        return
    what = "decompresses to more than" if decompressed else "is"
    raise FileTooLargeError(
        f"{_cap(name)} {what} {_format_size(size)}, over the {_format_size(max_bytes)} limit for "
        "uploads. Use a sample of the rows, or save the table as Parquet (usually several times "
        "smaller), and try again.",
        file=name,
    )


def _format_size(n):
    if n >= 1024**2:
        value, unit = n / 1024**2, "MB"
    elif n >= 1024:
        value, unit = n / 1024, "KB"
    else:
        return f"{n} bytes"
    return f"{value:.1f}".rstrip("0").rstrip(".") + f" {unit}"


def _detect_format(data, filename):
    if data.startswith(_GZIP_MAGIC):
        return "gzip"
    if data.startswith(_ZIP_MAGIC):
        return "excel"
    # A text file could start with "PAR1" (a column name); Parquet also ends with it.
    if data.startswith(_PARQUET_MAGIC) and data.endswith(_PARQUET_MAGIC) and len(data) >= 12:
        return "parquet"
    if data.startswith(_OLE2_MAGIC):
        return "xls"
    suffix = Path(filename).suffix.lower() if filename else ""
    return {
        ".gz": "gzip",
        ".parquet": "parquet",
        ".pq": "parquet",
        ".xlsx": "excel",
        ".xlsm": "excel",
        ".xls": "xls",
    }.get(suffix, "text")


def _gunzip(data, name, max_bytes):
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as handle:
            # Read at most one byte past the limit so a small "zip bomb" cannot exhaust memory.
            out = handle.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise UnparseableFileError(
            f"{_cap(name)} looks gzip-compressed but could not be decompressed ({_short(exc)}); it "
            f"may be truncated or damaged. Compress the file again, or upload it uncompressed. "
            f"{_SUPPORTED}",
            file=name,
        ) from exc
    _check_size(len(out), name, max_bytes, decompressed=True)
    if not out:
        raise EmptyFileError(_empty_message(name), file=name)
    return out


def _read_parquet(data, name):
    import pyarrow.parquet as pq  # a pandas dependency here already; imported only when needed

    try:
        # pyarrow refuses to read duplicate names, so look for them in the schema first to say so.
        stored = pq.read_schema(io.BytesIO(data)).names
    except MemoryError:
        raise
    except Exception:
        stored = []  # damaged: read_parquet below fails and explains
    _check_unique([_header_text(n) for n in stored], name)
    try:
        df = pd.read_parquet(io.BytesIO(data))
    except MemoryError:
        raise
    except Exception as exc:  # pyarrow raises many unrelated types for damaged files
        raise UnparseableFileError(
            f"{_cap(name)} is not a valid Parquet file ({_short(exc)}). Check that it was saved "
            f"completely, or export the table again. {_SUPPORTED}",
            file=name,
        ) from exc
    if df.index.names != [None]:
        df = df.reset_index()  # a named index (e.g. "id") is data the user meant to upload
    header = list(df.columns)
    return header, df.set_axis(range(len(header)), axis=1).reset_index(drop=True)


def _read_excel(data, name):
    try:
        raw = pd.read_excel(
            io.BytesIO(data), sheet_name=0, header=None, dtype=object, engine="openpyxl"
        )
    except MemoryError:
        raise
    except Exception as exc:  # zipfile, openpyxl and pandas each raise their own types
        raise UnparseableFileError(
            f"{_cap(name)} could not be read as an Excel workbook ({_short(exc)}). Open it in "
            "Excel or LibreOffice and save it again as .xlsx, or export the sheet as CSV. "
            f"{_SUPPORTED}",
            file=name,
        ) from exc
    filled = raw.notna().any(axis=1).to_numpy()
    if not filled.any():
        raise EmptyFileError(_empty_message(name), file=name)
    raw = raw.iloc[int(np.argmax(filled)) :]  # blank rows above the header are layout, not data
    header = raw.iloc[0].tolist()
    return header, raw.iloc[1:].reset_index(drop=True)


def _read_text(data, name):
    text = _decode(data, name)
    if not text.strip():
        raise EmptyFileError(_empty_message(name), file=name)
    _reject_binary(text, name)
    delimiter, text = _excel_sep_hint(text)
    skipped = 0 if delimiter is None else 1  # keep reported line numbers those of the file
    if delimiter is None:
        delimiter = _sniff_delimiter(text)
    try:
        raw = pd.read_csv(
            io.StringIO(text),
            sep=delimiter,
            header=None,  # read the header as data: pandas would rename duplicates to "a.1"
            index_col=False,
            dtype=str,
            na_filter=False,  # missing tokens are decided after stripping, see _normalise_text
            skipinitialspace=True,
            skip_blank_lines=True,
            engine="c",
        )
    except pd.errors.EmptyDataError as exc:
        raise EmptyFileError(_empty_message(name), file=name) from exc
    except MemoryError:
        raise
    except Exception as exc:
        raise UnparseableFileError(
            _parser_message(exc, name, delimiter, skipped), file=name
        ) from exc
    header = raw.iloc[0].tolist()
    return header, raw.iloc[1:].reset_index(drop=True)


def _decode(data, name):
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        candidates = ["utf-16"]  # Excel's "Unicode text" export
    elif data.startswith(b"\xef\xbb\xbf"):
        candidates = ["utf-8-sig"]
    elif b"\x00" in data[:_SNIFF_CHARS]:
        # Only UTF-16/32 put NUL bytes in text, and those were recognised by their BOM above.
        raise UnparseableFileError(_binary_message(name), file=name)
    else:
        candidates = ["utf-8", _guess_encoding, "cp1252", "latin-1"]
    for encoding in candidates:
        if callable(encoding):
            encoding = encoding(data)  # the guess is slow, so only made when UTF-8 fails
            if encoding is None:
                continue
        try:
            return data.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            continue
    raise UnparseableFileError(
        f"{_cap(name)} could not be decoded as text. Save it as UTF-8 CSV and try again. "
        f"{_SUPPORTED}",
        file=name,
    )


def _guess_encoding(data):
    from charset_normalizer import from_bytes  # imported lazily: only odd files need it

    sample = data[:_ENCODING_SAMPLE]
    if len(data) > _ENCODING_SAMPLE and b"\n" in sample:
        sample = sample[: sample.rindex(b"\n")]  # do not cut a multi-byte character in two
    results = from_bytes(sample)
    best = results.best()
    if best is None:
        return None
    # Several code pages usually fit equally well, and on short files charset_normalizer's pick
    # among them is arbitrary (it reads Latin-1 "Müller" as mac_latin2 "MŁller"). Prefer
    # Windows-1252, the commonest non-UTF-8 CSV encoding, whenever it fits as well as the best.
    if any(
        "cp1252" in r.could_be_from_charset and r.chaos <= best.chaos + 0.01 for r in results
    ):
        return "cp1252"
    # UTF-16/32 without a byte-order mark would have NUL bytes, which _decode has ruled out.
    return None if best.encoding.startswith(("utf_16", "utf_32")) else best.encoding


def _reject_binary(text, name):
    sample = text[:_SNIFF_CHARS]
    # Latin-1 decodes anything, so binary files arrive here as text full of control characters;
    # real tables have none besides tab and newlines (maybe a stray DOS end-of-file mark).
    control = sum(1 for ch in sample if ch in _CONTROL_CHARS)
    if control > 0.01 * len(sample):
        raise UnparseableFileError(_binary_message(name), file=name)


def _binary_message(name):
    return (
        f"{_cap(name)} could not be read as a table: it looks like a binary file, not text. "
        f"Export the table as CSV, Parquet or Excel and upload that file. {_SUPPORTED}"
    )


def _excel_sep_hint(text):
    # Excel writes and honours a first line "sep=;" naming the delimiter.
    match = re.match(r"sep=(.)\r?\n", text)
    if match:
        return match.group(1), text[match.end() :]
    return None, text


def _sniff_delimiter(text):
    sample = text[:_SNIFF_CHARS]
    if len(text) > len(sample) and "\n" in sample:
        sample = sample[: sample.rindex("\n")]  # drop the last, probably cut, line
    sample = "\n".join(sample.splitlines()[:_SNIFF_LINES])
    scores = {d: _split_consistency(sample, d) for d in _DELIMITERS}
    best = max(_DELIMITERS, key=lambda d: scores[d])
    try:
        sniffed = csv.Sniffer().sniff(sample, delimiters=_DELIMITERS).delimiter
    except csv.Error:
        sniffed = None
    if sniffed in scores and scores[sniffed][:2] == scores[best][:2]:
        return sniffed
    return best if scores[best][0] else ","  # one column: any delimiter reads it the same


def _split_consistency(sample, delimiter):
    """(splits into several columns, share of lines with the usual width, usual width)."""
    try:
        widths = [len(row) for row in csv.reader(io.StringIO(sample), delimiter=delimiter) if row]
    except csv.Error:
        return (False, 0.0, 0)
    if not widths:
        return (False, 0.0, 0)
    width, count = Counter(widths).most_common(1)[0]
    return (width > 1, count / len(widths), width)


def _parser_message(exc, name, delimiter, skipped=0):
    text = str(exc)
    separators = _DELIMITER_WORDS.get(delimiter, repr(delimiter))
    ragged = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", text)
    if ragged:
        expected, line, seen = ragged.groups()
        line = int(line) + skipped
        problem = f"line {line} has {seen} values but the header has {expected}"
        advice = (
            f"Check that every row has the same number of {separators} and that values containing "
            "them are quoted."
        )
    elif "EOF inside string" in text:
        row = re.search(r"starting at row (\d+)", text)
        where = f" on line {int(row.group(1)) + 1 + skipped}" if row else ""
        problem = f"a quoted value{where} is never closed"
        advice = 'Check the quotation marks (") around that value.'
    else:
        problem = _short(exc)
        advice = f"Check that it is a table with one record per line, separated by {separators}."
    return f"{_cap(name)} could not be read as a table: {problem}. {advice} {_SUPPORTED}"


# ------------------------------------------------------------------------------------- tidying


def _tidy(header, body, name, *, check_header):
    """Turn a header row and a positionally labelled body into the final frame."""
    if check_header:
        _check_header_not_numbers(header, name)
    texts = [_header_text(value) for value in header]
    columns = [_normalise_text(body[c]) for c in body.columns]
    # Keep a column if it has a name or any value; blank and empty ones are layout artefacts.
    keep = [i for i, col in enumerate(columns) if texts[i] or col.notna().any()]
    header = [header[i] for i in keep]
    names = [texts[i] or f"Unnamed: {i}" for i in keep]  # pandas' naming, by original position
    body = pd.DataFrame({j: columns[i] for j, i in enumerate(keep)}, index=body.index)
    body = body.loc[body.notna().any(axis=1)].reset_index(drop=True)
    if body.empty:
        shown = _list([texts[i] for i in keep if texts[i]], limit=5, quote=False)
        what = f"a header row ({shown}) but no data rows" if shown else "no data rows"
        raise EmptyFileError(
            f"{_cap(name)} has {what}. Export the table again with its rows, one record per line "
            "under a header row of column names.",
            file=name,
        )
    if check_header:
        _check_header_not_values(header, body, name)
    _check_unique(names, name)
    return pd.DataFrame({n: _settle_type(body[j]) for j, n in enumerate(names)})


def _header_text(value):
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
    return _header_text(value) in MISSING_TOKENS


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
        f"number ({_list([_header_text(v) for v in filled], limit=5, quote=False)}). Add a header "
        "row with one name per column as the first line and upload the file again.",
        file=name,
    )


def _check_header_not_values(header, body, name):
    pairs = [(i, v) for i, v in enumerate(header) if not _is_blank(v)]
    if len(pairs) < 2:
        return
    same_row = np.ones(len(body), dtype=bool)
    for position, value in pairs:
        text = _header_text(value)
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
    shown = _list([_header_text(v) for _, v in pairs], limit=5, quote=False)
    raise NoHeaderError(
        f"The first row of {name} looks like data, not column names: each of its values ({shown}) "
        "also occurs further down the same column. Add a header row with one name per column as "
        "the first line and upload the file again.",
        file=name,
    )


def _check_unique(names, name):
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
        f"{_cap(name)} has more than one column with the same name: {described}. Rename them so "
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


# -------------------------------------------------------------------------------------- checks


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
        f"{_cap(name)} has {_count(len(df), 'row')}; at least {minimum} are needed for {purpose}. "
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
            f"{_cap(name)} has no data rows. Upload a table with at least one record.", file=name
        )
    empty = [c for c in df.columns if df[c].isna().all()]
    if not empty:
        return
    raise AllMissingColumnError(
        f"{_cap(name)} has {_count(len(empty), 'column', 'columns')} with no values at all: "
        f"{_list(empty)}. Remove {'it' if len(empty) == 1 else 'them'} from every table, or fill "
        f"{'it' if len(empty) == 1 else 'them'} in, and upload again.",
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
        f"{_cap(other_name)} does not have the same columns as {reference_name}. "
        f"Missing from {other_name} (present in {reference_name}): {_list(missing) or 'none'}. "
        f"Extra in {other_name} (not in {reference_name}): {_list(extra) or 'none'}. "
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
            f"(e.g. {example!r}). Fix those values, or declare the column categorical.",
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


def validate_tables(
    real: pd.DataFrame,
    synthetic: Mapping[str, pd.DataFrame] | pd.DataFrame,
    holdout: pd.DataFrame | None = None,
    names: Mapping[str, str] | None = None,
) -> None:
    """Check that the synthetic tables and the holdout fit the real table.

    Runs, in this order, :func:`check_same_columns` of every synthetic table and then the holdout
    against ``real``, :func:`check_no_all_missing` on ``real``, each synthetic table and the
    holdout, and :func:`check_column_kinds_agree` on all of them; the first failure is raised.

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
    for table_name, df in [(real_name, real), *others]:
        check_no_all_missing(df, table_name)
    check_column_kinds_agree(dict([(real_name, real), *others]))


# ------------------------------------------------------------------------------------ wording


def _cap(name):
    # Messages start with the name; only the generic default needs a capital letter there.
    return name[:1].upper() + name[1:] if name.startswith("the ") else name


def _empty_message(name):
    return (
        f"{_cap(name)} is empty. Choose the file that holds the table: a header row of column "
        "names followed by one row per record."
    )


def _count(n, singular, plural=None):
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"


def _list(items, *, limit=10, quote=True):
    shown = [repr(str(i)) if quote else str(i) for i in list(items)[:limit]]
    rest = len(items) - len(shown)
    return ", ".join(shown) + (f" and {rest} more" if rest > 0 else "")


def _short(exc):
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."
