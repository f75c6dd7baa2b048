"""The UCI Adult table vendored as package data, and the fixed rule that draws the demo's samples from it."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import lru_cache
from importlib.resources import files
from types import MappingProxyType

import numpy as np
import pandas as pd

from privcore.base import InputError

#: Default number of rows in each of the real, holdout and synthetic tables.
DEFAULT_N = 3000

#: Column types of the Adult table.
ADULT_TYPES: Mapping[str, str] = MappingProxyType({
    "age": "numerical",
    "workclass": "categorical",
    "education": "categorical",
    "education-num": "numerical",
    "marital-status": "categorical",
    "occupation": "categorical",
    "relationship": "categorical",
    "race": "categorical",
    "gender": "binary",
    "capital-gain": "numerical",
    "capital-loss": "numerical",
    "hours-per-week": "numerical",
    "native-country": "categorical",
    "income": "binary",
})

#: The sensitive column of the demo (the attribute an attacker tries to infer).
SENSITIVE = "income"

_INT_COLUMNS = [c for c, t in ADULT_TYPES.items() if t == "numerical"]


@lru_cache(maxsize=1)
def _adult() -> pd.DataFrame:
    resource = files("privcore.demo") / "data" / "adult.csv.gz"
    dtypes = {c: ("int64" if c in _INT_COLUMNS else object) for c in ADULT_TYPES}
    with resource.open("rb") as fh:
        df = pd.read_csv(fh, compression="gzip", dtype=dtypes, keep_default_na=False, na_values=[""])
    return df


@lru_cache(maxsize=1)
def _hash_order() -> np.ndarray:
    n = len(_adult())
    keys = np.array([hashlib.sha256(f"adult-row-{i}".encode("ascii")).hexdigest() for i in range(n)])
    # A stable sort by key breaks ties by row, the order of sorting by (key, row), in half the time of sorted().
    return np.argsort(keys, kind="stable").astype(np.int64)


def load_adult() -> pd.DataFrame:
    """Load the full cleaned UCI Adult table.

    Returns
    -------
    pandas.DataFrame
        32,561 rows and 14 columns (``age`` ... ``income``), a ``RangeIndex`` equal to the row position
        in the source file, integer numerical columns, text categorical columns with ``NaN`` for
        missing (``'?'`` in the source; only ``workclass``, ``occupation`` and ``native-country``). A
        fresh copy on every call.

    Notes
    -----
    Becker, B. & Kohavi, R. (1996). Adult. UCI Machine Learning Repository.
    https://doi.org/10.24432/C5XW20. Licence CC BY 4.0.
    """
    return _adult().copy()


def sample_positions(n: int = DEFAULT_N, *, parts: int = 2) -> list[np.ndarray]:
    """Row positions (in :func:`load_adult`) of the demo samples of size ``n``.

    Parameters
    ----------
    n : int, default 3000
        Rows per sample.
    parts : int, default 2
        Number of consecutive samples: 2 gives ``[real, holdout]``, 3 adds the fresh sample.

    Returns
    -------
    list of numpy.ndarray
        ``parts`` disjoint integer arrays of length ``n``: slices ``[k*n, (k+1)*n)`` of the table's row
        positions sorted by ``sha256(f"adult-row-{i}")``.

    Raises
    ------
    privcore.base.errors.InputError
        If ``n`` is not positive or ``parts * n`` exceeds the 32,561 rows (a subclass of
        ``ValueError``).

    Notes
    -----
    Samples are drawn by a fixed rule that does not depend on any random number generator: every row
    position ``i`` of the table (0-based) gets the key ``sha256(f"adult-row-{i}")`` (hex digest of the ASCII
    string); rows are sorted by key (ties, which do not occur, by position). For a sample size ``n`` the
    real training sample is the first ``n`` rows of that order, the holdout the next ``n`` and the
    ``fresh_sample`` scenario's "synthetic" table the ``n`` after that. The three are disjoint and identical
    on every machine. Synthetic tables come from the generators in :mod:`privcore.demo.generators`
    (instances of the :mod:`privcore.generators` protocol), seeded with ``numpy.random.default_rng(seed)``.
    """
    total = len(_adult())
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"The demo sample size must be a positive whole number, got {n!r}.")
    if parts * n > total:
        raise InputError(
            f"The demo sample size n={n} is too large: {parts} disjoint samples of {n} rows need "
            f"{parts * n:,} rows but the Adult table has {total:,}. Use n <= {total // parts:,}."
        )
    order = _hash_order()
    return [order[k * n:(k + 1) * n].copy() for k in range(parts)]
