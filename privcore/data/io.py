"""Load user tables and check that they fit together.

Uploaded data is only ever held in memory: nothing here writes to disk. The work is done by modules by purpose
(file_formats, text_tables, tidying, table_checks, wording); the public names stay importable from here.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

import pandas as pd

from privcore.base import EmptyFileError, UnparseableFileError
from privcore.data.file_formats import detect_format, gunzip, read_bytes, read_excel, read_parquet, source_filename
from privcore.data.table_checks import (
    check_column_kinds_agree,
    check_min_rows,
    check_no_all_missing,
    check_same_columns,
    validate_tables,
)
from privcore.data.text_tables import read_text
from privcore.data.tidying import MISSING_TOKENS, tidy_table
from privcore.data.wording import SUPPORTED_FORMATS, capitalised, empty_file_message

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

_DEFAULT_NAME = "the uploaded table"


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

    This is the first step of the data flow (load → schema → encode → neighbours → metrics →
    report). :func:`load_table` turns a CSV, Parquet or Excel upload into a tidy
    :class:`pandas.DataFrame`; the ``check_*`` functions and :func:`validate_tables` then check the
    real, synthetic and holdout tables against each other. Every problem is raised as a subclass of
    :class:`privcore.base.errors.InputError` whose message names the file (and column) and says what to
    do, so callers can show it as is.
    """
    filename = source_filename(source) or name  # raw bytes: the given name is the only hint
    name = name or filename or _DEFAULT_NAME
    data = read_bytes(source, name, max_bytes)
    if not data:
        raise EmptyFileError(empty_file_message(name), file=name)
    fmt = detect_format(data, filename)
    if fmt == "gzip":
        data = gunzip(data, name, max_bytes)
        inner = filename[: -len(".gz")] if filename and filename.lower().endswith(".gz") else None
        fmt = detect_format(data, inner)
        if fmt == "gzip":
            raise UnparseableFileError(
                f"{capitalised(name)} is compressed twice with gzip. Decompress it once more and upload "
                f"the result. {SUPPORTED_FORMATS}",
                file=name,
            )
    if fmt == "xls":
        raise UnparseableFileError(
            f"{capitalised(name)} is an old-style .xls workbook or a password-protected Excel file, which "
            "cannot be read. Open it in Excel or LibreOffice and save it as .xlsx or CSV without "
            f"a password. {SUPPORTED_FORMATS}",
            file=name,
        )
    if fmt == "parquet":
        header, body = read_parquet(data, name)
        check_header = False  # Parquet always stores column names explicitly
    elif fmt == "excel":
        header, body = read_excel(data, name)
        check_header = True
    else:
        header, body = read_text(data, name)
        check_header = True
    return tidy_table(header, body, name, check_header=check_header)
