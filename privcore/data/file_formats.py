"""Read an uploaded table's bytes and tell its format.

Size limits, gzip, Parquet and Excel (text tables are read by :mod:`privcore.data.text_tables`).
"""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from privcore.base import EmptyFileError, FileTooLargeError, InputError, UnparseableFileError
from privcore.data.tidying import check_unique_names, header_text
from privcore.data.wording import SUPPORTED_FORMATS, capitalised, empty_file_message, short_error

_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGIC = b"PK\x03\x04"
_PARQUET_MAGIC = b"PAR1"
_OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # legacy .xls and password-protected .xlsx


def source_filename(source) -> str | None:
    """The base name of the file behind ``source``, which tells its format and names it in messages.

    Parameters
    ----------
    source : str, pathlib.Path, bytes or binary file-like
        As in :func:`privcore.data.io.load_table`.

    Returns
    -------
    str or None
        None for raw bytes and for objects without a usable ``name``.
    """
    if isinstance(source, (str, Path)):
        return Path(source).name
    if isinstance(source, (bytes, bytearray, memoryview)):
        return None
    raw = getattr(source, "name", None)
    # Open files carry their full path (or an int for descriptors); messages want the base name.
    return Path(raw).name if isinstance(raw, (str, Path)) and str(raw) else None


def read_bytes(source, name: str, max_bytes: int) -> bytes:
    """All the bytes of ``source``, refusing a missing path, a directory or more than ``max_bytes``.

    Parameters
    ----------
    source : str, pathlib.Path, bytes or binary file-like
        As in :func:`privcore.data.io.load_table`; a path's size is checked before it is read, and a
        handle is read at most one byte past the limit.
    name : str
        The file's name in messages.
    max_bytes : int
        Largest accepted size.

    Returns
    -------
    bytes

    Raises
    ------
    InputError, FileTooLargeError
    """
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
                f"{capitalised(name)} was not found (looked for {str(path)!r}). Check the path and try "
                "again.",
                file=name,
            )
        # Check the size before reading so that an oversized file never reaches memory.
        _check_size(path.stat().st_size, name, max_bytes)
        try:
            return path.read_bytes()
        except OSError as exc:
            raise InputError(
                f"{capitalised(name)} could not be opened ({exc.strerror or exc}). Check that the file is "
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
        f"{capitalised(name)} {what} {_format_size(size)}, over the {_format_size(max_bytes)} limit for "
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


def detect_format(data: bytes, filename: str | None) -> str:
    """The format of a file: from its leading bytes where they are unambiguous, else from its extension.

    Parameters
    ----------
    data : bytes
        The file's content.
    filename : str or None
        Its name, for the extension.

    Returns
    -------
    {"gzip", "excel", "parquet", "xls", "text"}
    """
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


def gunzip(data: bytes, name: str, max_bytes: int) -> bytes:
    """The content of a gzip-compressed file, at most ``max_bytes`` of it.

    Parameters
    ----------
    data : bytes
        The compressed file.
    name : str
        The file's name in messages.
    max_bytes : int
        Largest accepted size of the content.

    Returns
    -------
    bytes

    Raises
    ------
    UnparseableFileError, FileTooLargeError, EmptyFileError
    """
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as handle:
            # Read at most one byte past the limit so a small "zip bomb" cannot exhaust memory.
            out = handle.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise UnparseableFileError(
            f"{capitalised(name)} looks gzip-compressed but could not be decompressed ({short_error(exc)}); it "
            f"may be truncated or damaged. Compress the file again, or upload it uncompressed. "
            f"{SUPPORTED_FORMATS}",
            file=name,
        ) from exc
    _check_size(len(out), name, max_bytes, decompressed=True)
    if not out:
        raise EmptyFileError(empty_file_message(name), file=name)
    return out


def read_parquet(data: bytes, name: str) -> tuple[list, pd.DataFrame]:
    """The header and the body of a Parquet file; a named index becomes a column.

    Parameters
    ----------
    data : bytes
        The file.
    name : str
        The file's name in messages.

    Returns
    -------
    header : list
        Column names.
    body : pandas.DataFrame
        Columns labelled by position.

    Raises
    ------
    DuplicateColumnsError, UnparseableFileError
    """
    import pyarrow.parquet as pq  # a pandas dependency here already; imported only when needed

    try:
        # pyarrow refuses to read duplicate names, so look for them in the schema first to say so.
        stored = pq.read_schema(io.BytesIO(data)).names
    except MemoryError:
        raise
    except Exception:
        stored = []  # damaged: read_parquet below fails and explains
    check_unique_names([header_text(n) for n in stored], name)
    try:
        df = pd.read_parquet(io.BytesIO(data))
    except MemoryError:
        raise
    except Exception as exc:  # pyarrow raises many unrelated types for damaged files
        raise UnparseableFileError(
            f"{capitalised(name)} is not a valid Parquet file ({short_error(exc)}). Check that it was saved "
            f"completely, or export the table again. {SUPPORTED_FORMATS}",
            file=name,
        ) from exc
    if df.index.names != [None]:
        df = df.reset_index()  # a named index (e.g. "id") is data the user meant to upload
    header = list(df.columns)
    return header, df.set_axis(range(len(header)), axis=1).reset_index(drop=True)


def read_excel(data: bytes, name: str) -> tuple[list, pd.DataFrame]:
    """The header and the body of an Excel workbook's first sheet, blank rows above the header skipped.

    Parameters
    ----------
    data : bytes
        The file.
    name : str
        The file's name in messages.

    Returns
    -------
    header : list
        The header row's cells.
    body : pandas.DataFrame
        The rows below it as objects, columns labelled by position.

    Raises
    ------
    UnparseableFileError, EmptyFileError
    """
    try:
        raw = pd.read_excel(
            io.BytesIO(data), sheet_name=0, header=None, dtype=object, engine="openpyxl"
        )
    except MemoryError:
        raise
    except Exception as exc:  # zipfile, openpyxl and pandas each raise their own types
        raise UnparseableFileError(
            f"{capitalised(name)} could not be read as an Excel workbook ({short_error(exc)}). Open it in "
            "Excel or LibreOffice and save it again as .xlsx, or export the sheet as CSV. "
            f"{SUPPORTED_FORMATS}",
            file=name,
        ) from exc
    filled = raw.notna().any(axis=1).to_numpy()
    if not filled.any():
        raise EmptyFileError(empty_file_message(name), file=name)
    raw = raw.iloc[int(np.argmax(filled)) :]  # blank rows above the header are layout, not data
    header = raw.iloc[0].tolist()
    return header, raw.iloc[1:].reset_index(drop=True)
