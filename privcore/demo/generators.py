"""Simple built-in synthetic-data generators for the demo scenarios.

Every generator has the signature ``generator(real, types, n, rng) -> DataFrame``:

real : pandas.DataFrame
    The real (training) table.
types : dict
    Column name -> ``"numerical"``, ``"categorical"`` or ``"binary"``. Binary columns are treated
    like categorical ones.
n : int
    Number of synthetic rows.
rng : numpy.random.Generator
    Source of randomness; the output is a deterministic function of the inputs and the generator's
    state (use ``numpy.random.default_rng(seed)``).

They return a table with the same columns, in the same order and with the same dtypes as ``real``
(integer columns stay integers; missing categorical values can appear, as in the data) and a fresh
``RangeIndex``. They are deliberately simple, pure numpy/pandas and fast (20,000 rows well under a
second); they are teaching props, not serious synthesizers.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy.special import ndtr, ndtri

__all__ = [
    "exact_copy",
    "noisy_copy",
    "column_resampler",
    "gaussian_copula",
    "rare_leak",
    "rarest_rows",
    "GENERATORS",
]

#: Attribute key (in ``DataFrame.attrs``) under which :func:`rare_leak` records what it leaked.
LEAK_ATTR = "leaked_real_rows"


# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------
def _is_numerical(types: Mapping[str, str], col: str) -> bool:
    return types.get(col, "categorical") == "numerical"


def _is_integral(values: np.ndarray) -> bool:
    """True if every non-missing value is a whole number."""
    v = values[~np.isnan(values)]
    return bool(v.size) and bool(np.all(v == np.round(v)))


def _match_dtypes(out: pd.DataFrame, real: pd.DataFrame) -> pd.DataFrame:
    """Cast ``out`` column by column to ``real``'s dtypes (where the values allow it)."""
    for col in real.columns:
        dtype = real[col].dtype
        if out[col].dtype != dtype:
            try:
                out[col] = out[col].astype(dtype)
            except (TypeError, ValueError):  # e.g. int column that received NaN
                pass
    return out


def _row_positions(n_real: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Each real row once in shuffled order, repeated (new shuffle each round) until ``n`` rows."""
    rounds = -(-n // n_real)
    return np.concatenate([rng.permutation(n_real) for _ in range(rounds)])[:n]


def _codes(col: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Category codes (missing is its own category) and the category values, most frequent first.

    Ties in frequency are ordered by the category's text, missing last among equals.
    """
    values = col.astype(object).to_numpy()
    missing = pd.isna(values)
    keys = np.where(missing, "\x00missing", values.astype(str))
    uniq, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True,
                                            return_counts=True)
    order = np.lexsort((uniq == "\x00missing", uniq, -counts))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    cats = values[first[order]]
    return rank[inverse], cats


def _resample_categorical(col: pd.Series, n: int, rng: np.random.Generator) -> np.ndarray:
    values = col.to_numpy()
    return values[rng.integers(0, len(values), n)]


# --------------------------------------------------------------------------------------------------
# generators
# --------------------------------------------------------------------------------------------------
def exact_copy(real: pd.DataFrame, types: Mapping[str, str], n: int,
               rng: np.random.Generator) -> pd.DataFrame:
    """The real table itself, in the same row order.

    If ``n`` differs from ``len(real)`` the first ``n`` rows are returned (``n`` smaller) or the table is
    repeated (``n`` larger). ``types`` and ``rng`` are unused. Every privacy metric should flag this.
    """
    positions = np.arange(n) % len(real)
    return real.iloc[positions].reset_index(drop=True).copy()


def noisy_copy(real: pd.DataFrame, types: Mapping[str, str], n: int, rng: np.random.Generator,
               *, noise: float = 0.05, swap_probability: float = 0.1) -> pd.DataFrame:
    """Each real row with a little noise, in shuffled order.

    Numerical columns get Gaussian noise with standard deviation ``noise`` times the column's standard
    deviation, are rounded back to whole numbers if the real column only holds whole numbers, and are
    clipped to the real column's range. Each categorical or binary value is, with probability
    ``swap_probability``, replaced by a value drawn from that column's marginal (which may by chance be
    the same value). Each real row is used once (if ``n > len(real)``, again in a new order).
    """
    base = real.iloc[_row_positions(len(real), n, rng)].reset_index(drop=True)
    out = {}
    for col in real.columns:
        if _is_numerical(types, col):
            x = base[col].to_numpy(dtype=float)
            ref = real[col].to_numpy(dtype=float)
            sd = np.nanstd(ref) if np.any(~np.isnan(ref)) else 0.0
            y = x + rng.normal(0.0, noise * sd if np.isfinite(sd) else 0.0, n)
            if _is_integral(ref):
                y = np.round(y)
            if np.any(~np.isnan(ref)):
                y = np.clip(y, np.nanmin(ref), np.nanmax(ref))
            out[col] = y
        else:
            x = base[col].to_numpy(dtype=object).copy()
            swap = rng.random(n) < swap_probability
            x[swap] = _resample_categorical(real[col].astype(object), int(swap.sum()), rng)
            out[col] = x
    return _match_dtypes(pd.DataFrame(out, columns=real.columns), real)


def column_resampler(real: pd.DataFrame, types: Mapping[str, str], n: int,
                     rng: np.random.Generator) -> pd.DataFrame:
    """Each column sampled independently, with replacement, from the real column's values.

    Every column keeps its marginal distribution but all relationships between columns are destroyed.
    Rare real values (a country seen once) are copied as they are, whole real rows almost never are.
    ``types`` is unused.
    """
    out = {col: real[col].to_numpy()[rng.integers(0, len(real), n)] for col in real.columns}
    return _match_dtypes(pd.DataFrame(out, columns=real.columns), real)


def gaussian_copula(real: pd.DataFrame, types: Mapping[str, str], n: int,
                    rng: np.random.Generator) -> pd.DataFrame:
    """A Gaussian-copula-style model of the real table.

    Fit: every column is turned into normal scores. A numerical column's values are ranked (tied values
    get random ranks within the tie) and the rank's quantile ``u`` is mapped to ``Phi^-1(u)``; missing
    numerical values are treated as the lowest interval. A categorical column's categories (most
    frequent first, missing as its own category) split ``[0, 1]`` into intervals by their cumulative
    frequencies; each value gets a ``u`` drawn uniformly within its category's interval. The
    correlation matrix of the scores is estimated.

    Sample: draw from the multivariate normal with that correlation, map each score back to ``u =
    Phi(z)`` and then to a value: numerical columns by linear interpolation of the real empirical
    quantiles (rounded if the column holds whole numbers), categorical columns by the category whose
    interval contains ``u``. Numerical values are therefore interpolated, not copied (except through
    rounding), and the model keeps the marginals and the pairwise (rank) correlations only.
    """
    m = len(real)
    cols = list(real.columns)
    scores = np.empty((m, len(cols)))
    decoders = []
    for j, col in enumerate(cols):
        if _is_numerical(types, col):
            x = real[col].to_numpy(dtype=float)
            miss = np.isnan(x)
            p_miss = miss.mean()
            vals = np.sort(x[~miss])
            # u uniformly within the interval [F(x-), F(x)] of each value, on the non-missing part
            lo = np.searchsorted(vals, x[~miss], side="left")
            hi = np.searchsorted(vals, x[~miss], side="right")
            u = np.empty(m)
            u[miss] = rng.random(miss.sum()) * p_miss
            u[~miss] = p_miss + (1 - p_miss) * (lo + rng.random(lo.size) * (hi - lo)) / max(vals.size, 1)
            decoders.append(("num", vals, p_miss, _is_integral(x)))
        else:
            codes, cats = _codes(real[col])
            cum = np.cumsum(np.bincount(codes, minlength=len(cats))) / m
            lower = np.concatenate([[0.0], cum[:-1]])
            u = lower[codes] + rng.random(m) * (cum[codes] - lower[codes])
            decoders.append(("cat", cats, cum, None))
        scores[:, j] = ndtri(np.clip(u, 1e-9, 1 - 1e-9))

    corr = np.corrcoef(scores, rowvar=False) if m > 1 else np.eye(len(cols))
    corr = np.nan_to_num(np.atleast_2d(corr), nan=0.0)
    np.fill_diagonal(corr, 1.0)
    # eigenvalue floor keeps the Cholesky factorisation stable for nearly collinear columns
    w, v = np.linalg.eigh(corr)
    corr = (v * np.maximum(w, 1e-6)) @ v.T
    d = np.sqrt(np.diag(corr))
    corr = corr / np.outer(d, d)
    chol = np.linalg.cholesky(corr)
    u_new = ndtr(rng.standard_normal((n, len(cols))) @ chol.T)

    out = {}
    for j, (col, (kind, a, b, integral)) in enumerate(zip(cols, decoders)):
        u = u_new[:, j]
        if kind == "num":
            vals, p_miss = a, b
            y = np.full(n, np.nan)
            ok = u >= p_miss
            if vals.size:
                q = np.clip((u[ok] - p_miss) / (1 - p_miss), 0.0, 1.0)
                # linear interpolation of the empirical quantile function (numpy's "linear" method)
                y[ok] = np.quantile(vals, q) if q.size else q
                if integral:
                    y = np.round(y)
            out[col] = y
        else:
            cats, cum = a, b
            idx = np.minimum(np.searchsorted(cum, u, side="right"), len(cats) - 1)
            out[col] = cats[idx]
    return _match_dtypes(pd.DataFrame(out, columns=cols), real)


def rarest_rows(real: pd.DataFrame, types: Mapping[str, str], k: int) -> np.ndarray:
    """Positions of the ``k`` most unique rows of ``real``.

    Uniqueness is judged on the categorical and binary columns only: a row is rarer the fewer real rows
    share its exact combination of those values (missing counts as a value). Ties are broken by row
    position, lowest first.
    """
    cat_cols = [c for c in real.columns if not _is_numerical(types, c)]
    if not cat_cols:
        return np.arange(min(k, len(real)))
    key = pd.util.hash_pandas_object(real[cat_cols].astype(object), index=False).to_numpy()
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    freq = counts[inverse]
    order = np.lexsort((np.arange(len(real)), freq))
    return order[:k]


def rare_leak(real: pd.DataFrame, types: Mapping[str, str], n: int, rng: np.random.Generator,
              *, leak_fraction: float = 0.01, min_leaks: int = 5) -> pd.DataFrame:
    """The :func:`gaussian_copula` output with a few of the rarest real rows copied in verbatim.

    ``max(min_leaks, round(leak_fraction * n))`` synthetic rows (capped at ``n`` and ``len(real)``),
    at random positions, are replaced by exact copies of the real rows returned by
    :func:`rarest_rows`. The real row positions and the synthetic row positions of the leak are
    recorded in ``result.attrs["leaked_real_rows"]`` and ``result.attrs["leaked_synthetic_rows"]``
    (for teaching and tests; ``attrs`` may not survive every pandas operation).
    """
    out = gaussian_copula(real, types, n, rng)
    k = min(max(int(min_leaks), int(round(leak_fraction * n))), n, len(real))
    src = rarest_rows(real, types, k)
    dst = np.sort(rng.choice(n, size=k, replace=False))
    for col in out.columns:
        values = out[col].to_numpy().copy()
        if values.dtype != real[col].dtype:
            values = values.astype(object)
        values[dst] = real[col].to_numpy()[src]
        out[col] = values
    out = _match_dtypes(out, real)
    out.attrs[LEAK_ATTR] = [int(i) for i in src]
    out.attrs["leaked_synthetic_rows"] = [int(i) for i in dst]
    return out


#: Generators by scenario name (``fresh_sample`` is not a generator: it needs the source population).
GENERATORS = {
    "exact_copy": exact_copy,
    "noisy_copy": noisy_copy,
    "column_resampler": column_resampler,
    "gaussian_copula": gaussian_copula,
    "rare_leak": rare_leak,
}
