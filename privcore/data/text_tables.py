"""Read a delimited text table (CSV, TSV and the like).

Decode the bytes, refuse binary files, find the delimiter, and explain the parser's errors.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter

import pandas as pd

from privcore.base import EmptyFileError, UnparseableFileError
from privcore.data.wording import SUPPORTED_FORMATS, capitalised, empty_file_message, short_error

_DELIMITERS = ",;\t|"
_DELIMITER_WORDS = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "'|' characters"}
_SNIFF_CHARS = 64_000  # enough for dozens of lines; csv.Sniffer is pure Python and slow on more
_SNIFF_LINES = 50
_ENCODING_SAMPLE = 256_000  # charset_normalizer sees a sample; the whole file is decoded afterwards
_CONTROL_CHARS = frozenset(
    chr(c) for c in [*range(32), *range(127, 160)] if chr(c) not in "\t\r\n"
)


def read_text(data: bytes, name: str) -> tuple[list, pd.DataFrame]:
    """The header and the body of a delimited text table.

    See :func:`privcore.data.io.load_table`'s Notes on encodings and delimiters.

    Parameters
    ----------
    data : bytes
        The file (decompressed).
    name : str
        The file's name in messages.

    Returns
    -------
    header : list of str
        The first row.
    body : pandas.DataFrame
        The other rows as text, columns labelled by position.

    Raises
    ------
    EmptyFileError, UnparseableFileError
    """
    text = _decode(data, name)
    if not text.strip():
        raise EmptyFileError(empty_file_message(name), file=name)
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
        raise EmptyFileError(empty_file_message(name), file=name) from exc
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
        f"{capitalised(name)} could not be decoded as text. Save it as UTF-8 CSV and try again. "
        f"{SUPPORTED_FORMATS}",
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
        f"{capitalised(name)} could not be read as a table: it looks like a binary file, not text. "
        f"Export the table as CSV, Parquet or Excel and upload that file. {SUPPORTED_FORMATS}"
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
        problem = short_error(exc)
        advice = f"Check that it is a table with one record per line, separated by {separators}."
    return f"{capitalised(name)} could not be read as a table: {problem}. {advice} {SUPPORTED_FORMATS}"
