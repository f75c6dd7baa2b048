"""What the utility measures share (metrics.md §6).

The bins, the distances between binned shares, the association of two columns, and the declaration texts.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privcore.data import NUMERICAL

#: Most bins of a numerical column (equal-frequency at the real table's quantiles).
MAX_BINS = 20

#: Random subsets drawn when a utility measure's fresh-sample reference is compared at one size.
MATCH_REPEATS = 3

#: The fresh-sample reference of the measures that put the holdout in place of the synthetic table.
FRESH_SAMPLE = "a fresh sample of real people (the holdout in place of the synthetic table)"

SYNQP = ("Hu, Li, Bahamyirou and Chen, SynQP: A Framework and Metrics for Evaluating the Quality and Privacy Risk "
         "of Synthetic Data (arXiv 2601.12124)")
SDMETRICS = "SDMetrics Quality Report (DataCebo): column shapes and column-pair trends"


@dataclass(frozen=True)
class Binned:
    """One column of two tables in shared bins.

    Attributes
    ----------
    real, other : numpy.ndarray
        Bin code of each row (``0 .. n_bins − 1``).
    n_bins : int
        Bins in all (those of the real table, the missing bin and the "only in the other table" bin).
    labels : list of str
        A label per bin, for figures.
    """

    real: np.ndarray
    other: np.ndarray
    n_bins: int
    labels: list[str]


def _numerical_bins(real: np.ndarray, other: np.ndarray) -> Binned:
    finite = real[np.isfinite(real)]
    if len(finite) == 0:
        edges = np.array([])
        low = high = 0.0
    else:
        quantiles = np.quantile(finite, np.linspace(0, 1, MAX_BINS + 1)[1:-1], method="inverted_cdf")
        low, high = float(finite.min()), float(finite.max())
        edges = np.unique(np.concatenate([quantiles, [high]]))  # ties merged; the last edge is the maximum
    inside = len(edges)  # bins (−inf, e0], (e0, e1], …, (e_{m−2}, e_{m−1} = max]
    missing, outside = inside, inside + 1

    def codes(values: np.ndarray) -> np.ndarray:
        out = np.searchsorted(edges, values, side="left").astype(np.int64)
        out[(values < low) | (values > high)] = outside
        out[np.isnan(values)] = missing
        return out

    labels = [f"≤ {edges[0]:.4g}"] if inside else []
    labels += [f"{edges[k - 1]:.4g} – {edges[k]:.4g}" for k in range(1, inside)]
    return Binned(codes(real), codes(other), inside + 2, labels + ["missing", "outside the real range"])


def _as_text(values: pd.Series) -> np.ndarray:
    """Each value as its text (``str(value)``), missing values as missing (None, NaN or pd.NA), as an object array.

    Text columns (the prepared tables' categories) are taken as they are: converting 100,000 strings to strings
    was most of the column shapes' time.
    """
    array = values.to_numpy(dtype=object)
    if pd.api.types.infer_dtype(array, skipna=True) in ("string", "empty"):
        return array
    out = values.astype(str).to_numpy(dtype=object)
    out[pd.isna(array)] = None
    return out


def _categorical_bins(real: pd.Series, other: pd.Series) -> Binned:
    real_text, other_text = _as_text(real), _as_text(other)
    # One factorisation of both columns: each distinct text once, then a code per distinct text (−1: missing).
    both, distinct = pd.factorize(np.concatenate([real_text, other_text]), use_na_sentinel=True)
    in_real = np.zeros(len(distinct) + 1, dtype=bool)
    in_real[both[:len(real_text)]] = True  # the sentinel −1 marks the last slot, left out below
    categories = sorted(distinct[in_real[:-1]].tolist())
    missing, outside = len(categories), len(categories) + 1
    rank = {value: k for k, value in enumerate(categories)}
    lookup = np.array([rank.get(value, outside) for value in distinct] + [missing], dtype=np.int64)
    codes = lookup[both]  # −1 (missing) picks the last entry
    return Binned(codes[:len(real_text)], codes[len(real_text):], len(categories) + 2,
                  categories + ["missing", "only in the other table"])


def bin_column(real: pd.Series, other: pd.Series, kind: str) -> Binned:
    """The bins of one column shared by the real table and another one (see Notes).

    Parameters
    ----------
    real, other : Series
        The column in the real table and in the synthetic table (or the holdout).
    kind : str
        The column's type: ``"numerical"`` is cut at quantiles, anything else is categorical.

    Notes
    -----
    **Bins.** A numerical column is cut at the real table's quantiles into at most :data:`MAX_BINS` bins
    (equal-frequency; quantiles that coincide, as in a column that is mostly 0, are merged, so such a column gets fewer
    bins); each bin is ``(e_{k−1}, e_k]``. A category (binary included) is its own bin. A missing value is a bin of its
    own. A value only the other table has (a category the real table lacks, a number outside the real table's range)
    falls in one bin of its own, where the real table has nothing: it counts against fidelity.

    The same bins serve every measure: column shapes (TVD and Hellinger), the pairs' Cramér's V and the figures.

    Examples
    --------
    >>> b = bin_column(pd.Series([1.0, 2.0, 3.0, 4.0]), pd.Series([1.0, 9.0, float("nan")]), "numerical")
    >>> b.real.tolist(), b.other.tolist()
    ([0, 1, 2, 3], [0, 5, 4])
    >>> b = bin_column(pd.Series(["a", "b"]), pd.Series(["b", "c"]), "categorical")
    >>> b.real.tolist(), b.other.tolist(), b.labels
    ([0, 1], [1, 3], ['a', 'b', 'missing', 'only in the other table'])
    """
    if kind == NUMERICAL:
        return _numerical_bins(np.asarray(real, dtype=float), np.asarray(other, dtype=float))
    return _categorical_bins(pd.Series(real).reset_index(drop=True), pd.Series(other).reset_index(drop=True))


def shares(codes: np.ndarray, n_bins: int) -> np.ndarray:
    """The share of rows in each bin (all zeros for no rows)."""
    counts = np.bincount(codes, minlength=n_bins).astype(float)
    return counts / counts.sum() if counts.sum() else counts


def tvd(p: np.ndarray, q: np.ndarray) -> float:
    """Total variation distance ½ Σ |p_i − q_i| of two share vectors, in [0, 1].

    >>> tvd(np.array([0.5, 0.5, 0.0]), np.array([0.25, 0.25, 0.5]))
    0.5
    """
    return float(min(1.0, 0.5 * np.abs(np.asarray(p) - np.asarray(q)).sum()))


def hellinger(p: np.ndarray, q: np.ndarray) -> float:
    """Hellinger distance ``sqrt(1 − Σ sqrt(p_i q_i))`` of two share vectors (SynQP's form), in [0, 1].

    >>> round(hellinger(np.array([0.5, 0.5]), np.array([1.0, 0.0])), 6)
    0.541196
    """
    overlap = float(np.sqrt(np.asarray(p) * np.asarray(q)).sum())
    return float(math.sqrt(max(0.0, 1.0 - min(1.0, overlap))))


def ks_complement(real: np.ndarray, other: np.ndarray) -> float:
    """1 − the two-sample Kolmogorov–Smirnov statistic on the raw values (SDMetrics' KSComplement).

    >>> ks_complement(np.array([1.0, 2.0, 3.0, 4.0]), np.array([3.0, 4.0, 5.0, 6.0]))
    0.5
    """
    a = np.sort(np.asarray(real, dtype=float)[np.isfinite(real)])
    b = np.sort(np.asarray(other, dtype=float)[np.isfinite(other)])
    if len(a) == 0 or len(b) == 0:
        return float("nan")
    points = np.concatenate([a, b])
    gap = np.abs(np.searchsorted(a, points, "right") / len(a) - np.searchsorted(b, points, "right") / len(b))
    return float(1.0 - gap.max())


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's ρ of two numerical columns (0 when either is constant; rows with a missing value left out).

    >>> pearson(np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 7.0])) > 0.98
    True
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    if not keep.any():
        return 0.0
    x, y = x[keep] - x[keep].mean(), y[keep] - y[keep].mean()
    denominator = math.sqrt(float((x * x).sum()) * float((y * y).sum()))
    if denominator == 0.0:
        return 0.0
    return float(np.clip((x * y).sum() / denominator, -1.0, 1.0))


def cramers_v(a: np.ndarray, b: np.ndarray) -> float:
    """Bias-corrected Cramér's V (Bergsma 2013) of two binned columns, in [0, 1]; 0 for independent columns.

    The plain V of two independent columns is well above 0 on a few hundred rows with many categories; the
    correction removes that bias, so a table that keeps no association scores about 0.

    Examples
    --------
    >>> a = np.array([0, 0, 1, 1] * 25)
    >>> round(cramers_v(a, a), 6), round(cramers_v(a, np.array([0, 1] * 50)), 6)
    (1.0, 0.0)
    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    n = len(a)
    if n < 2:
        return 0.0
    width = int(b.max()) + 1
    table = np.bincount(a * width + b, minlength=(int(a.max()) + 1) * width).reshape(-1, width).astype(float)
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]  # only the values this table has
    r, k = table.shape
    if r < 2 or k < 2:
        return 0.0
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
    chi2 = float(((table - expected) ** 2 / expected).sum())
    phi2 = max(0.0, chi2 / n - (k - 1) * (r - 1) / (n - 1))
    r_corr, k_corr = r - (r - 1) ** 2 / (n - 1), k - (k - 1) ** 2 / (n - 1)
    denominator = min(k_corr - 1, r_corr - 1)
    if denominator <= 0:
        return 0.0
    return float(min(1.0, math.sqrt(phi2 / denominator)))


def array_digest(*arrays: np.ndarray) -> str:
    """A digest of arrays' shapes, types and values.

    Part of the key of a result kept for reuse between evaluations
    (:meth:`privcore.engine.context.SharedComputation.keep_for_reuse`).

    >>> array_digest(np.zeros(2)) == array_digest(np.zeros(2)), array_digest(np.zeros(2)) == array_digest(np.zeros(3))
    (True, False)
    """
    digest = hashlib.sha256()
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.shape}{array.dtype.str}|".encode())
        digest.update(array.view(np.uint8).reshape(-1) if array.size else b"")
    return digest.hexdigest()


def column_kinds(schema) -> dict[str, str]:
    """Column → ``"numerical"`` or ``"categorical"`` (binary counts as categorical)."""
    return {c: (NUMERICAL if schema.types[c] == NUMERICAL else "categorical") for c in schema.columns}
