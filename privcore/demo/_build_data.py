"""Regenerate the vendored demo data ``privcore/demo/data/adult.csv.gz``.

Not imported at runtime. Run from the repository root: ``python -m privcore.demo._build_data [SOURCE] [DEST]``.
"""

from __future__ import annotations

import gzip
import io
import sys
from pathlib import Path

import pandas as pd

DEFAULT_SOURCE = Path("/work/shared/data/adult.csv.gz")
DEFAULT_DEST = Path(__file__).resolve().parent / "data" / "adult.csv.gz"
EXPECTED_SHAPE = (32_561, 14)


def clean(raw: pd.DataFrame) -> pd.DataFrame:
    """Clean the raw Adult extract (index column already dropped or not).

    Parameters
    ----------
    raw : pandas.DataFrame
        The source table as read by ``pandas.read_csv`` with default options.

    Returns
    -------
    pandas.DataFrame
        Cleaned table: no index column, stripped strings, missing values as ``NaN``.

    Notes
    -----
    Cleaning: drop the index column, strip surrounding whitespace from every string value, turn ``'?'``
    (and empty strings) into missing values. Rows with missing values are kept. Row order is unchanged, so
    row position ``i`` in the output is row ``i`` (index value ``i``) of the source.
    """
    df = raw.copy()
    first = df.columns[0]
    if str(first).startswith("Unnamed") or str(first) == "":
        df = df.drop(columns=first)
    for col in df.columns:
        if df[col].dtype == object:
            stripped = df[col].str.strip()
            df[col] = stripped.mask(stripped.isin(["?", ""]))
    return df.reset_index(drop=True)


def to_gzip_csv_bytes(df: pd.DataFrame) -> bytes:
    r"""Serialise ``df`` as a deterministic gzip-compressed CSV.

    Notes
    -----
    The output is byte-for-byte deterministic: a CSV with ``\n`` line endings and empty fields for missing
    values, gzip-compressed at level 9 with no file name and a zero time stamp in the gzip header.
    """
    text = df.to_csv(index=False, lineterminator="\n")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(text.encode("utf-8"))
    return buf.getvalue()


def build(source: Path = DEFAULT_SOURCE, dest: Path = DEFAULT_DEST) -> pd.DataFrame:
    """Read ``source``, clean it and write the vendored file to ``dest``."""
    raw = pd.read_csv(source, keep_default_na=False, na_values=[""])
    df = clean(raw)
    if df.shape != EXPECTED_SHAPE:
        raise SystemExit(f"unexpected shape {df.shape}, expected {EXPECTED_SHAPE}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(to_gzip_csv_bytes(df))
    return df


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point: ``[SOURCE] [DEST]``, read from ``argv`` (default: ``sys.argv``).

    Notes
    -----
    SOURCE defaults to ``/work/shared/data/adult.csv.gz`` (the UCI Adult extract, 32,561 rows, first
    column a row index); DEST defaults to ``adult.csv.gz`` in the ``data`` folder beside this file.
    """
    args = sys.argv[1:] if argv is None else argv
    source = Path(args[0]) if len(args) > 0 else DEFAULT_SOURCE
    dest = Path(args[1]) if len(args) > 1 else DEFAULT_DEST
    df = build(source, dest)
    print(f"wrote {dest} ({dest.stat().st_size:,} bytes, {len(df):,} rows x {df.shape[1]} columns)")
    print("missing values per column:", {c: int(n) for c, n in df.isna().sum().items() if n})


if __name__ == "__main__":
    main()
