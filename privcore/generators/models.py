"""Generators that learn a model and draw new rows from it: copula, histograms, DP marginals."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privcore.data import Param
from privcore.generators.base import (
    BINS,
    LEVEL,
    BaseGenerator,
    GeneratorContextError,
    GeneratorSettingError,
    PopulationMixin,
    category_codes,
    check_level,
    check_settings_of,
    is_integral,
    is_numerical,
    match_dtypes,
    put_rows,
    rarity_order,
)
from privcore.generators.copies import category_keys, record_leak

__all__ = [
    "GaussianCopula",
    "RareLeak",
    "IndependentHistograms",
    "DPMarginals",
    "Grid",
    "Histogram",
    "histogram_counts",
    "level_to_epsilon",
    "epsilon_to_level",
]

#: ε at ladder level 0 and the factor ε grows by from level 0 to level → 1 (so ε → 100; ∞ at 1).
EPSILON_AT_LEVEL_0 = 0.1
EPSILON_DECADES = 3


def level_to_epsilon(level: float) -> float:
    """The ε of ``dp_marginals`` at ladder level s: ``0.1 · 1000**s``, and ``inf`` at s = 1.

    >>> [round(level_to_epsilon(s), 2) for s in (0, 0.25, 0.5, 0.75, 1)]
    [0.1, 0.56, 3.16, 17.78, inf]

    Notes
    -----
    Ladder level → ε (:func:`level_to_epsilon`): ε = 0.1 · 1000^s on a log grid, ε = ∞ (no noise) at s = 1:
    s = 0, 0.25, 0.5, 0.75, 1 give ε = 0.1, 0.56, 3.2, 17.8, ∞. Level 0 is the strongest privacy on the grid,
    not a fresh sample.
    """
    s = check_level(level, "dp_marginals")
    return math.inf if s == 1.0 else EPSILON_AT_LEVEL_0 * 10 ** (EPSILON_DECADES * s)


def epsilon_to_level(epsilon: float) -> float:
    """Inverse of :func:`level_to_epsilon`, clipped to [0, 1] (ε ≥ 100 is level 1 only at ∞).

    >>> epsilon_to_level(math.inf), epsilon_to_level(0.1), round(epsilon_to_level(10), 3)
    (1.0, 0.0, 0.667)
    """
    if math.isinf(epsilon):
        return 1.0
    return float(min(max(math.log10(epsilon / EPSILON_AT_LEVEL_0) / EPSILON_DECADES, 0.0), np.nextafter(1, 0)))


# --------------------------------------------------------------------------------------------------
# Gaussian copula (demo) and the hidden rare leak
# --------------------------------------------------------------------------------------------------
class GaussianCopula(BaseGenerator):
    """A Gaussian-copula-style model of the training table.

    Fit: every column is turned into normal scores. A numerical column's values are ranked (tied values
    get random ranks within the tie) and the rank's quantile ``u`` is mapped to ``Phi^-1(u)``; missing
    numerical values are treated as the lowest interval. A categorical column's categories (most
    frequent first, missing as its own category) split ``[0, 1]`` into intervals by their cumulative
    frequencies; each value gets a ``u`` drawn uniformly within its category's interval. The
    correlation matrix of the scores is estimated.

    Sample: draw from the multivariate normal with that correlation, map each score back to ``u =
    Phi(z)`` and then to a value: numerical columns by linear interpolation of the training empirical
    quantiles (rounded if the column holds whole numbers), categorical columns by the category whose
    interval contains ``u``. Numerical values are therefore interpolated, not copied (except through
    rounding), and the model keeps the marginals and the pairwise (rank) correlations only.

    The random ranks of the fit are drawn from the sample's seed (as the demo always did), so the
    estimated correlation differs very slightly between seeds.
    """

    name = "gaussian_copula"

    def _draw(self, n, rng):
        # Imported here: scipy (even scipy.special alone) costs about 0.2 s at start-up and only the copula's
        # draws need it, while the command line and the lab import this module.
        from scipy.special import ndtr, ndtri

        real, types = self.table, self.types
        m = len(real)
        cols = list(real.columns)
        scores = np.empty((m, len(cols)))
        decoders = []
        for j, col in enumerate(cols):
            if is_numerical(types, col):
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
                decoders.append(("num", vals, p_miss, is_integral(x)))
            else:
                codes, cats = category_codes(real[col])
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
        return match_dtypes(pd.DataFrame(out, columns=cols), real)


def rarest_categorical_rows(real: pd.DataFrame, types: Mapping[str, str], k: int) -> np.ndarray:
    """Positions of the ``k`` training rows rarest on their categorical and binary columns.

    A row is rarer the fewer rows share its exact combination of those values (missing counts as a
    value); ties go to the lower position. Without categorical columns: the first ``k`` rows.
    """
    cat_cols = [c for c in real.columns if not is_numerical(types, c)]
    if not cat_cols:
        return np.arange(min(k, len(real)))
    return rarity_order(real[cat_cols])[:k]


class RareLeak(GaussianCopula):
    """The :class:`GaussianCopula` output with a few of the rarest training rows copied in verbatim.

    ``max(min_leaks, round(leak_fraction * n))`` synthetic rows (capped at ``n`` and the training size),
    at random positions, are replaced by exact copies of the rows :func:`rarest_categorical_rows`
    returns. Their positions are recorded in ``attrs["leaked_real_rows"]`` and
    ``attrs["leaked_synthetic_rows"]``.
    """

    name = "rare_leak"
    PARAMS = (Param("leak_fraction", "float", 0.01, "Leaked share", "Share of synthetic rows replaced by rare "
                    "training rows.", minimum=0.0, maximum=1.0),
              Param("min_leaks", "int", 5, "Fewest leaks", "Leak at least this many rows.", minimum=0))

    def __init__(self, *, leak_fraction: float = 0.01, min_leaks: int = 5) -> None:
        super().__init__()
        checked = check_settings_of(self.name, self.PARAMS, {"leak_fraction": leak_fraction, "min_leaks": min_leaks})
        self.leak_fraction, self.min_leaks = checked["leak_fraction"], checked["min_leaks"]

    def settings(self):
        """The generator's settings (for reports and ``repr``)."""
        return {"leak_fraction": self.leak_fraction, "min_leaks": self.min_leaks}

    def _draw(self, n, rng):
        real = self.table
        out = super()._draw(n, rng)
        k = min(max(self.min_leaks, int(round(self.leak_fraction * n))), n, len(real))
        src = rarest_categorical_rows(real, self.types, k)
        dst = np.sort(rng.choice(n, size=k, replace=False))
        return record_leak(put_rows(out, dst, real, src), src, dst)


# --------------------------------------------------------------------------------------------------
# histograms
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Grid:
    """The bins of one column's histogram.

    Either ``values`` (one bin per value; for a categorical column missing may be one of them) or
    ``edges`` (``len(edges) − 1`` intervals ``[e_i, e_i+1)``, the last one closed; values outside are
    counted in the end bins) plus, if ``missing``, a last bin for missing values. ``integral``: sampled
    numbers are rounded to whole numbers.
    """

    column: str
    values: np.ndarray | None = None
    edges: np.ndarray | None = None
    missing: bool = False
    integral: bool = False

    @property
    def size(self) -> int:
        """Number of bins."""
        return (len(self.values) if self.values is not None else len(self.edges) - 1) + int(self.missing)


@dataclass(frozen=True)
class Histogram:
    """One column's histogram in a DP release: exact counts, noisy counts, sampling probabilities."""

    grid: Grid
    counts: np.ndarray
    noisy: np.ndarray
    probabilities: np.ndarray
    epsilon: float


def _column_counts(col: pd.Series, grid: Grid) -> np.ndarray:
    if grid.values is not None:
        codes = pd.Index(category_keys(pd.Series(grid.values, dtype=object))).get_indexer(category_keys(col))
        return np.bincount(codes[codes >= 0], minlength=len(grid.values)).astype(float)
    x = col.to_numpy(dtype=float, na_value=np.nan)
    miss = np.isnan(x)
    bins = len(grid.edges) - 1
    idx = np.clip(np.searchsorted(grid.edges, x[~miss], side="right") - 1, 0, bins - 1)
    counts = np.bincount(idx, minlength=bins).astype(float)
    return np.append(counts, float(miss.sum())) if grid.missing else counts


def histogram_counts(table: pd.DataFrame, grids: Sequence[Grid]) -> list[np.ndarray]:
    """The count vector of every column's histogram on its grid (each record adds 1 to at most one bin).

    >>> g = Grid("x", edges=np.array([0.0, 1.0, 2.0]), missing=True)
    >>> histogram_counts(pd.DataFrame({"x": [0.5, 1.5, 7.0, None]}), [g])[0].tolist()
    [1.0, 2.0, 1.0]
    """
    return [_column_counts(table[g.column], g) for g in grids]


def _probabilities(counts: np.ndarray) -> np.ndarray:
    """Negative counts clipped to 0, then normalised; uniform if nothing is left."""
    c = np.clip(counts, 0.0, None)
    total = c.sum()
    return c / total if total > 0 else np.full(len(c), 1.0 / len(c))


def sample_histograms(grids: Sequence[Grid], probabilities: Sequence[np.ndarray], n: int,
                      rng: np.random.Generator, like: pd.DataFrame) -> pd.DataFrame:
    """``n`` rows, each column drawn independently: a bin by its probability, a value uniformly within it."""
    out = {}
    for grid, p in zip(grids, probabilities):
        cum = np.cumsum(p)
        b = np.minimum(np.searchsorted(cum / cum[-1], rng.random(n), side="right"), len(p) - 1)
        if grid.values is not None:
            out[grid.column] = grid.values[b]
            continue
        bins = len(grid.edges) - 1
        y = np.full(n, np.nan)
        ok = b < bins
        low, high = grid.edges[b[ok]], grid.edges[b[ok] + 1]
        y[ok] = low + rng.random(int(ok.sum())) * (high - low)
        if grid.integral:
            y = np.round(np.clip(y, grid.edges[0], grid.edges[-1]))
        out[grid.column] = y
    return match_dtypes(pd.DataFrame(out, columns=like.columns), like)


class IndependentHistograms(BaseGenerator):
    """Each column drawn independently from its training marginal (no DP).

    Categorical and binary columns, and numerical columns with at most ``bins`` distinct values: by
    frequency (missing is a category). Other numerical columns: ``bins`` equal-width bins between the
    training min and max, a bin drawn by its frequency, then a value uniformly within it (rounded if the
    column holds whole numbers), plus a missing bin with the share of missing values. Rare categories
    (a country seen once) come back with their frequency; joint patterns are lost.
    """

    name = "independent_histograms"
    PARAMS = (BINS,)

    def __init__(self, *, bins: int = 20) -> None:
        super().__init__()
        self.bins = check_settings_of(self.name, self.PARAMS, {"bins": bins})["bins"]

    def settings(self):
        """The generator's settings (for reports and ``repr``)."""
        return {"bins": self.bins}

    def _fit(self):
        self.grids, counts = [], []
        for col in self.table.columns:
            x = self.table[col]
            if is_numerical(self.types, col) and x.nunique() > self.bins:
                v = x.to_numpy(dtype=float, na_value=np.nan)
                edges = np.linspace(np.nanmin(v), np.nanmax(v), self.bins + 1)
                self.grids.append(Grid(col, edges=edges, missing=bool(np.isnan(v).any()), integral=is_integral(v)))
                counts.append(_column_counts(x, self.grids[-1]))
            else:
                # The codes are each row's bin on this grid already: the counts that histogram_counts would find.
                codes, values = category_codes(x)
                self.grids.append(Grid(col, values=values))
                counts.append(np.bincount(codes, minlength=len(values)).astype(float))
        self.probabilities = [_probabilities(c) for c in counts]

    def _draw(self, n, rng):
        return sample_histograms(self.grids, self.probabilities, n, rng, self.table)


# --------------------------------------------------------------------------------------------------
# ε-DP marginals
# --------------------------------------------------------------------------------------------------
_MAGNITUDES = 2.0 ** np.arange(-10, 63)
#: Data-independent grid of the DP range step: signed powers of two around 0.
RANGE_EDGES = np.concatenate([-_MAGNITUDES[::-1], [0.0], _MAGNITUDES])


class DPMarginals(PopulationMixin, BaseGenerator):
    """ε-differentially private independent marginals (Laplace mechanism); see Notes.

    Parameters
    ----------
    epsilon : float, default 1.0
        Total privacy budget of one release (``math.inf``: no noise).
    bins : int, default 20
        Bins of a numerical column's histogram.
    population : DataFrame, optional
        Public table whose categories and numerical ranges define the grids (never sampled).
    bounds : mapping, optional
        ``{column: (low, high)}`` for numerical columns (public bounds; win over the population).
    categories : mapping, optional
        ``{column: [values…]}`` for categorical and binary columns (public domain; wins over the
        population).
    range_share : float, default 0.1
        Share of a numerical column's budget spent on the DP range when it has no public bounds.

    Notes
    -----
    **Differential privacy.**

    Release: one histogram per column, each on a grid fixed *before* the training data is looked at (see
    "grids" below), noised with the Laplace mechanism; the synthetic rows are sampled from the noisy
    histograms (post-processing, free).

    Sensitivity. Neighbouring tables differ by adding or removing one record. Each record falls in exactly
    one bin of each column's histogram (values outside a numerical grid are clipped into its end bins; a
    missing value has its own bin where the column's dtype can hold one; a category outside the public
    domain is not counted), so one record changes each of the d histograms by at most 1 in L1 and the
    whole vector of d histograms by at most d. Laplace noise of scale d/ε on every count therefore makes
    the release ε-DP; equivalently each column's histogram gets ε/d (sequential composition).
    :func:`histogram_counts` builds the count vectors; the tests check the sensitivity on neighbouring
    tables and the noise scale empirically.

    Grids. The data's own min/max or category list would leak (a record that is the maximum moves the
    range). So every grid comes from public information:

    - categorical and binary columns: ``categories[col]`` if given, else the distinct values of the
      ``population`` table (public data about other people, e.g. the holdout or the auditor's auxiliary
      data); without either the generator refuses to fit (:class:`GeneratorContextError`);
    - numerical columns: bounds ``bounds[col] = (low, high)`` if given, else the population's min and max,
      else a DP range: a share ``range_share`` of the column's ε/d is spent on a Laplace-noised histogram
      on a data-independent grid of signed powers of two (±2^-10 … ±2^62); the range runs from the lowest
      to the highest bin whose noisy count exceeds ``b·ln(K/0.1)`` (b the noise scale, K the number of
      bins: with probability ≥ 95 % no empty bin passes), or is the bin with the largest noisy count if
      none does; the histogram then gets the remaining (1 − ``range_share``)·ε/d. Then ``bins``
      equal-width bins between the bounds; an integer column whose range holds at most ``bins`` whole
      numbers gets one bin per number. Whether a column is whole-numbered is read from its dtype (schema,
      not data).

    Noise is drawn in ``sample(n, seed)``, from the seed: each call is one ε-DP release (a fresh noisy
    model), so k calls with different seeds cost k·ε in total; the same seed repeats the same release.
    Drawing it in ``fit`` with a fixed seed would give every shadow model of an audit the same noise, and
    the difference between training with and without a target would show through exactly.
    """

    name = "dp_marginals"
    #: ``level`` is the registry's way to set ε (:func:`level_to_epsilon`); the constructor takes ε itself.
    PARAMS = (Param("epsilon", "float", 1.0, "Privacy budget ε", "Total ε of one release; smaller is more private.",
                    minimum=1e-6, infinite=True),
              Param("level", "float", None, "Leak strength", "Sets ε = 0.1·1000^level (∞ at 1) instead of epsilon.",
                    minimum=LEVEL.minimum, maximum=LEVEL.maximum, rule="not set: epsilon is used"),
              BINS,
              Param("range_share", "float", 0.1, "Range budget share", "Share of a numerical column's ε spent on "
                    "finding its range when the population gives none.", minimum=0.01, maximum=0.9))

    def __init__(self, epsilon: float = 1.0, *, bins: int = 20, population: pd.DataFrame | None = None,
                 bounds: Mapping[str, tuple[float, float]] | None = None,
                 categories: Mapping[str, Sequence] | None = None, range_share: float = 0.1) -> None:
        super().__init__()
        checked = check_settings_of(self.name, self.PARAMS, {"epsilon": epsilon, "bins": bins,
                                                             "range_share": range_share})
        self.epsilon = float(checked["epsilon"])  # ∞ (ladder level 1): no noise
        self.bins, self.range_share = checked["bins"], checked["range_share"]
        self.bounds, self.categories = dict(bounds or {}), dict(categories or {})
        self._set_population(population, False, "")

    def settings(self):
        """The generator's settings (for reports and ``repr``)."""
        return {"epsilon": self.epsilon, "bins": self.bins, "range_share": self.range_share}

    # -- grids (public information only) ----------------------------------------------------------
    def _fit(self):
        super()._fit()
        self.plans = {col: self._plan(col) for col in self.table.columns}

    def _plan(self, col: str) -> Grid | None:
        """The column's grid, or ``None`` when its range must be found under DP."""
        pop = None if self._pop is None else self._pop[col]
        if not is_numerical(self.types, col):
            if col in self.categories:
                values = list(self.categories[col])
            elif pop is not None:
                values = sorted(pd.unique(pop.astype(object)), key=lambda v: (pd.isna(v), str(v)))
            else:
                raise GeneratorContextError(
                    f"dp_marginals needs the public list of categories of column '{col}': taking it from the "
                    f"training data would leak rare values. Pass population=TABLE (e.g. the holdout) or "
                    f"categories={{'{col}': [...]}}.", column=col)
            return Grid(col, values=np.array(values, dtype=object))
        if col in self.bounds:
            low, high = self.bounds[col]
            if not (np.isfinite(low) and np.isfinite(high) and low <= high):
                raise GeneratorSettingError(f"dp_marginals: the bounds of column '{col}' must be two finite "
                                            f"numbers, low ≤ high; got {self.bounds[col]!r}.")
            return self._grid(col, float(low), float(high))
        if pop is not None and pop.notna().any():
            return self._grid(col, float(pop.min()), float(pop.max()))
        return None

    def _grid(self, col: str, low: float, high: float) -> Grid:
        dtype = self.table[col].dtype
        integral = pd.api.types.is_integer_dtype(dtype)
        if integral and math.floor(high) - math.ceil(low) + 1 <= self.bins:
            return Grid(col, values=np.arange(math.ceil(low), math.floor(high) + 1).astype(object))
        edges = np.linspace(low, high, self.bins + 1) if high > low else np.array([low, high])
        return Grid(col, edges=edges, missing=not integral and not pd.api.types.is_bool_dtype(dtype),
                    integral=integral)

    def _dp_range(self, col: str, epsilon: float, rng: np.random.Generator) -> Grid:
        coarse = Grid(col, edges=RANGE_EDGES)
        noisy = _laplace(_column_counts(self.table[col], coarse), epsilon, rng)
        scale = 0.0 if math.isinf(epsilon) else 1.0 / epsilon
        passing = np.flatnonzero(noisy > scale * math.log(len(noisy) / 0.1))
        first, last = (passing[0], passing[-1]) if passing.size else (np.argmax(noisy),) * 2
        return self._grid(col, float(RANGE_EDGES[first]), float(RANGE_EDGES[last + 1]))

    # -- release and sampling ---------------------------------------------------------------------
    def release(self, seed: int = 0) -> list[Histogram]:
        """The noisy histograms one ``sample(n, seed)`` call draws from (for inspection and tests)."""
        self._fitted()
        return self._release(np.random.default_rng(seed))

    def noise_scale(self) -> float:
        """Laplace scale d/ε of a column histogram with a public grid (0 when ε = ∞)."""
        return 0.0 if math.isinf(self.epsilon) else self.table.shape[1] / self.epsilon

    def _release(self, rng: np.random.Generator) -> list[Histogram]:
        per_column = self.epsilon / self.table.shape[1]
        out = []
        for col, plan in self.plans.items():
            epsilon = per_column
            if plan is None:  # spend range_share of the column's budget on its range
                plan = self._dp_range(col, self.range_share * per_column, rng)
                epsilon = (1.0 - self.range_share) * per_column
            counts = _column_counts(self.table[plan.column], plan)
            noisy = _laplace(counts, epsilon, rng)
            out.append(Histogram(plan, counts, noisy, _probabilities(noisy), epsilon))
        return out

    def _draw(self, n, rng):
        histograms = self._release(rng)
        return sample_histograms([h.grid for h in histograms], [h.probabilities for h in histograms], n, rng,
                                 self.table)


def _laplace(counts: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """Counts plus Laplace noise of scale 1/ε (each count vector has L1 sensitivity 1)."""
    scale = 0.0 if math.isinf(epsilon) else 1.0 / epsilon
    return counts + rng.laplace(0.0, scale, len(counts))
