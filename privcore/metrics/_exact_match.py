"""Exact-match keys: integer codes for "equal on these columns".

Shared by every metric that compares records value by value (CRP, ZCAP, GCAP, AIR's entropy weights, HitR's groups, the
IMS test, SynQP).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd


def value_codes(tables: Sequence[pd.DataFrame], columns: Sequence[str]) -> list[np.ndarray]:
    """Integer code of every value, column by column, over the union of ``tables`` (equal ⇔ same code).

    Returns one (len(table), len(columns)) int64 array per table.

    Notes
    -----
    Each value is replaced by an integer code over the union of the tables, so equal values get equal codes
    in every table, and each row's tuple of codes becomes one dense integer id. Values are compared exactly as
    prepared (numbers as float64, categories as strings; -0.0 equals 0.0, and a missing value is a value of
    its own).
    """
    sizes = [len(df) for df in tables]
    out = np.empty((sum(sizes), len(columns)), dtype=np.int64)
    for j, col in enumerate(columns):
        values = np.concatenate([df[col].to_numpy() for df in tables])
        if values.dtype.kind == "f":
            values = values + 0.0  # -0.0 and 0.0 are the same value
        out[:, j] = pd.factorize(values, use_na_sentinel=False)[0]
    return np.split(out, np.cumsum(sizes)[:-1])


def tuple_ids(codes: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense id of each row of non-negative integer codes (equal rows ⇔ equal ids) and the number of ids."""
    ids = np.zeros(len(codes), dtype=np.int64)
    n_ids = 1
    for j in range(codes.shape[1]):
        width = int(codes[:, j].max()) + 1 if len(codes) else 1
        if n_ids * width >= 2**62:
            ids, uniques = pd.factorize(ids)
            n_ids = len(uniques)
        ids = ids * width + codes[:, j]
        n_ids *= width
    ids, uniques = pd.factorize(ids)
    return ids.astype(np.int64), len(uniques)


def joint_tuple_ids(tables: Sequence[pd.DataFrame], columns: Sequence[str]) -> tuple[list[np.ndarray], int]:
    """Per table, the id of each row's tuple of values on ``columns``, ids shared by all ``tables``.

    Examples
    --------
    >>> real = pd.DataFrame({"a": [1.0, 2.0, 1.0], "b": ["x", "y", "x"]})
    >>> synthetic = pd.DataFrame({"a": [2.0, 1.0], "b": ["y", "y"]})
    >>> ids, n_ids = joint_tuple_ids([real, synthetic], ["a", "b"])
    >>> [i.tolist() for i in ids], n_ids
    ([[0, 1, 0], [1, 2]], 3)
    """
    codes = value_codes(tables, columns)
    ids, n_ids = tuple_ids(np.vstack(codes))
    return np.split(ids, np.cumsum([len(c) for c in codes])[:-1]), n_ids


def first_positions(ids: np.ndarray, n_ids: int) -> np.ndarray:
    """Position of the first row of each id ``0..n_ids-1``."""
    first = np.full(n_ids, len(ids), dtype=np.int64)
    np.minimum.at(first, ids, np.arange(len(ids)))
    return first
