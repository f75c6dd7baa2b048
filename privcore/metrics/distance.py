"""Distance-based metrics in the vector space E (metrics.md §2; review §2.2): CVP, DVP, Auth, IdScore,
NSND, MDCR, NNAA and HitR.

Every metric here reads its nearest neighbours from the shared engine (``ctx.neighbours``), so CVP, DVP,
NSND, MDCR, Auth and NNAA share the passes real→synthetic, real→real, synthetic→real and
synthetic→synthetic in E, and the §5 baseline (holdout in place of the synthetic table) reuses the
real→real pass. IdScore registers its own weighted space ``"E_idscore"`` so its two passes are cached
too. Only NNAA with tables of different sizes computes extra neighbours itself: inside random subsets,
where the nearest *other* row is not the full table's. HitR needs no distances at all.

Ties (metrics.md §0): two distances closer than ``1e-12 · d_max`` (``d_max`` = the largest
real–synthetic distance in the space used) compare as equal; each comparison below says which way a tie
goes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcore.engine.context import MetricContext
from privcore.metrics.details import AdversarialAccuracy, NearestDistances, NormalisedDistances, NumericalMatches
from privcore.engine.encoding import EuclideanSpace
from privcore.base.errors import InputError
from privcore.metrics._exact_match import joint_tuple_ids
from privcore.engine.neighbors import Neighbours, PairExtremes, nearest_two
from privcore.data.params import Param
from privcore.metrics.registry import Explanation, MetricInfo, register
from privcore.metrics.results import MetricOutput, NotApplicable
from privcore.data.schema import NUMERICAL

REVIEW = "Trudslev et al., A review of privacy metrics for synthetic tabular data (PrivEval)"
QIAN = "original: Qian et al. (2023), Synthcity"
LAUTRUP = "Lautrup et al. (2024), SynthEval"

#: The DCR-delusion blind spot shared by every distance metric (metrics.md §4).
DISTANCE_BLIND_SPOT = (
    "Distances average over all columns, so a leak in one column is drowned by the others: in the "
    "'DCR delusion' study, the only person in the Adult census from Holland-Netherlands was revealed "
    "because a generator trained on them produced that country in most of its outputs, yet those "
    "synthetic rows were far from the person's record and every distance metric called them safe."
)

#: Attributes with at most this many distinct values in Y enter IdScore's entropy with their own values.
IDSCORE_MAX_DISTINCT = 10
#: Equal-width bins for the other numerical attributes (metrics.md §2, IdScore).
IDSCORE_BINS = 10
#: Pairs checked at once by HitR's box test (int64 + bool arrays per pair: ~50 MB).
HITR_PAIRS_PER_CHUNK = 2**22
#: HitR plans a grid on a second column only when the best single sweep leaves more candidate pairs
#: than this many per row of both tables (below that, planning costs more than checking).
HITR_GRID_AFTER = 2


# --------------------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------------------


def _require_space(ctx: MetricContext, name: str = "E") -> EuclideanSpace:
    space = ctx.space(name)
    if space.dim == 0:
        raise NotApplicable("every column is constant in the real table, so there are no distances to measure.")
    return space


def _require_two_real(ctx: MetricContext) -> None:
    if len(ctx.real) < 2:
        raise NotApplicable(
            f"needs at least 2 real rows (the nearest other real record is undefined); the real table has "
            f"{len(ctx.real)}."
        )


def _threshold_param(ctx: MetricContext, metric: str) -> float:
    value = ctx.params.get("threshold")
    try:
        threshold = float(value)
    except (TypeError, ValueError):
        threshold = math.nan
    if not 0.0 <= threshold <= 1.0:
        raise InputError(f"The {metric} threshold must be a number between 0 and 1; got {value!r}.")
    return threshold


@dataclass(frozen=True)
class _Closest:
    """Each real record's nearest synthetic record in E and its normalised distance ``n(y)``."""

    distance: np.ndarray
    index: np.ndarray
    extremes: PairExtremes
    normalised: np.ndarray

    @property
    def span(self) -> float:
        return self.extremes.span

    @property
    def degenerate(self) -> bool:
        """All real–synthetic pairs are equally far apart (d_max = d_min): n(y) = 0 for every y."""
        return self.span <= self.extremes.tie_tolerance

    def at_most(self, threshold: float) -> np.ndarray:
        """``n(y) ≤ threshold``; a distance within the tie tolerance of the cut-off counts as at most."""
        if self.degenerate:
            return np.full(len(self.distance), 0.0 <= threshold)
        cut = threshold * self.span + self.extremes.tie_tolerance
        return self.distance - self.extremes.d_min <= cut

    def at_least(self, threshold: float) -> np.ndarray:
        """``n(y) ≥ threshold``; a distance within the tie tolerance of the cut-off counts as at least."""
        if self.degenerate:
            return np.full(len(self.distance), 0.0 >= threshold)
        cut = threshold * self.span - self.extremes.tie_tolerance
        return self.distance - self.extremes.d_min >= cut

    def details(self, threshold: float | None = None) -> NormalisedDistances:
        return NormalisedDistances(
            d_yz=self.distance,
            nearest_synthetic=self.index,
            n=self.normalised,
            d_min=self.extremes.d_min,
            d_max=self.extremes.d_max,
            threshold=threshold,
        )


def _closest_synthetic(ctx: MetricContext) -> _Closest:
    """d_YZ and n(y) = (d_YZ − d_min)/(d_max − d_min), 0 when d_max = d_min (metrics.md §2)."""
    _require_space(ctx)
    nb = ctx.neighbours("E", "real", "synthetic")
    extremes = ctx.extremes("E", "real", "synthetic")
    return _Closest(nb.d1, nb.i1, extremes, extremes.normalise(nb.d1))


def _share(indicator: np.ndarray) -> float:
    return float(np.mean(indicator)) if len(indicator) else 0.0


# --------------------------------------------------------------------------------------------------
# CVP, DVP, NSND
# --------------------------------------------------------------------------------------------------


def compute_cvp(ctx: MetricContext) -> MetricOutput:
    """Close Value Probability.

    ``risk = |{y ∈ Y : n(y) ≤ θ}| / |Y|`` with ``n(y) = (d_YZ(y) − d_min)/(d_max − d_min)`` in E and
    ``θ = 0.2`` by default (review eq. 14). per_record (real) = the indicator. A normalised distance equal
    to θ (within the tie tolerance) counts as close.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> real = pd.DataFrame({"x": [0.0, 1.0, 10.0]})
    >>> synthetic = pd.DataFrame({"x": [0.0, 1.0]})
    >>> round(evaluate(real, synthetic, metrics="cvp")["cvp"].risk, 6)  # n = 0, 0, 0.9
    0.666667
    """
    threshold = _threshold_param(ctx, "CVP")
    closest = _closest_synthetic(ctx)
    close = closest.at_most(threshold)
    risk = _share(close)
    return MetricOutput(
        risk=risk,
        raw=risk,
        per_record=close.astype(float),
        details=closest.details(threshold),
        params={"threshold": threshold},
    )


def compute_dvp(ctx: MetricContext) -> MetricOutput:
    """Distant Value Probability.

    ``raw = |{y ∈ Y : n(y) ≥ θ}| / |Y|`` (review eq. 15, θ = 0.8 by default; higher = safer),
    ``risk = 1 − raw``. per_record (real) = 1 − indicator. A normalised distance equal to θ (within the
    tie tolerance) counts as distant.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> real = pd.DataFrame({"x": [0.0, 1.0, 10.0]})
    >>> synthetic = pd.DataFrame({"x": [0.0, 1.0]})
    >>> round(evaluate(real, synthetic, metrics="dvp")["dvp"].risk, 6)  # only n = 0.9 is ≥ 0.8
    0.666667
    """
    threshold = _threshold_param(ctx, "DVP")
    closest = _closest_synthetic(ctx)
    distant = closest.at_least(threshold)
    raw = _share(distant)
    return MetricOutput(
        risk=1.0 - raw,
        raw=raw,
        per_record=1.0 - distant.astype(float),
        details=closest.details(threshold),
        params={"threshold": threshold},
    )


def compute_nsnd(ctx: MetricContext) -> MetricOutput:
    """Nearest Synthetic Neighbour Distance.

    ``raw = mean_y n(y)`` (review eq. 21; higher = farther = safer), ``risk = 1 − raw`` (Erratum: the
    review calls NSND a risk although larger means safer). per_record (real) = ``1 − n(y)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> real = pd.DataFrame({"x": [0.0, 1.0, 10.0]})
    >>> synthetic = pd.DataFrame({"x": [0.0, 1.0]})
    >>> round(evaluate(real, synthetic, metrics="nsnd")["nsnd"].risk, 6)  # 1 − (0 + 0 + 0.9)/3
    0.7
    """
    closest = _closest_synthetic(ctx)
    raw = float(np.mean(closest.normalised))
    return MetricOutput(
        risk=float(np.clip(1.0 - raw, 0.0, 1.0)),
        raw=raw,
        per_record=1.0 - closest.normalised,
        details=closest.details(),
    )


# --------------------------------------------------------------------------------------------------
# Auth, MDCR
# --------------------------------------------------------------------------------------------------


def compute_auth(ctx: MetricContext) -> MetricOutput:
    """Authenticity.

    ``raw = |{y ∈ Y : d_YY(y) < d_YZ(y)}| / |Y|`` (review eq. 16; 1 = private), ``risk = 1 − raw``.
    ``d_YY(y)`` is the distance to the nearest *other* real row (by position; a duplicate counts at
    distance 0). per_record (real) = 1 if ``d_YZ(y) ≤ d_YY(y)``: a tie is not "strictly closer to a
    real record", so it counts as at risk.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> real = pd.DataFrame({"x": [0.0, 0.0, 4.0, 10.0]})
    >>> synthetic = pd.DataFrame({"x": [1.0, 16.0]})
    >>> evaluate(real, synthetic, metrics="auth")["auth"].risk  # the duplicates are authentic
    0.5
    """
    _require_two_real(ctx)
    closest = _closest_synthetic(ctx)
    d_yy = ctx.neighbours("E", "real", "real").d1
    # Strict: the real neighbour must be closer by more than the tie tolerance; a tie goes to "at risk".
    authentic = d_yy < closest.distance - closest.extremes.tie_tolerance
    raw = _share(authentic)
    return MetricOutput(
        risk=1.0 - raw,
        raw=raw,
        per_record=1.0 - authentic.astype(float),
        details=NearestDistances(
            d_yz=closest.distance,
            d_yy=d_yy,
            nearest_synthetic=closest.index,
            nearest_real=ctx.neighbours("E", "real", "real").i1,
        ),
    )


def _safe_ratio(numerator: np.ndarray | float, denominator: float) -> np.ndarray:
    """numerator / denominator with MDCR's conventions for a zero denominator: 0/0 = 1, x/0 = ∞."""
    numerator = np.asarray(numerator, dtype=float)
    if denominator > 0:
        return numerator / denominator
    return np.where(numerator == 0, 1.0, np.inf)


def compute_mdcr(ctx: MetricContext) -> MetricOutput:
    """Median Distance to Closest Record.

    ``raw = median(d_YZ) / median(d_YY)`` in E (review eq. 26); 1 if both medians are 0, ∞ if only the
    denominator is. ``risk = 1/(1 + raw)`` (Erratum: eq. 27's sigmoid rises as records get farther apart;
    1/(1 + ∞) = 0). per_record (real) = ``1/(1 + d_YZ(y)/median(d_YY))`` with the same zero conventions.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> real = pd.DataFrame({"x": [0.0, 0.0, 4.0, 10.0]})
    >>> synthetic = pd.DataFrame({"x": [1.0, 16.0]})
    >>> evaluate(real, synthetic, metrics="mdcr")["mdcr"].raw  # median 0.2 over median 0.2
    1.0
    """
    _require_two_real(ctx)
    closest = _closest_synthetic(ctx)
    d_yy = ctx.neighbours("E", "real", "real").d1
    median_yz = float(np.median(closest.distance))
    median_yy = float(np.median(d_yy))
    raw = float(_safe_ratio(median_yz, median_yy))
    ratios = _safe_ratio(closest.distance, median_yy)
    warnings = []
    if median_yy == 0:
        warnings.append(
            "At least half of the real records have an exact duplicate in the real table, so the median "
            "distance between real records is 0"
            + (" and MDCR is infinite (risk 0)." if math.isinf(raw) else " (as is the synthetic median): MDCR = 1.")
        )
    return MetricOutput(
        risk=1.0 / (1.0 + raw),
        raw=raw,
        per_record=1.0 / (1.0 + ratios),
        details=NearestDistances(
            d_yz=closest.distance,
            d_yy=d_yy,
            median_d_yz=median_yz,
            median_d_yy=median_yy,
        ),
        warnings=warnings,
    )


# --------------------------------------------------------------------------------------------------
# IdScore
# --------------------------------------------------------------------------------------------------


def attribute_entropy(values: pd.Series, kind: str) -> float:
    """Entropy ``H(a) = −Σ_v p_v ln p_v`` of one attribute over the real table (IdScore).

    A numerical attribute with more than 10 distinct values is cut into 10 equal-width bins over its
    range in Y (``numpy.histogram`` convention: each bin closed on the left, the last one also on the
    right). Every other attribute uses its own values.

    Examples
    --------
    >>> round(attribute_entropy(pd.Series(["a", "a", "b", "b"]), "categorical"), 6)  # ln 2
    0.693147
    >>> attribute_entropy(pd.Series([float(v) for v in range(11)]), "numerical") > 2.0
    True
    """
    if kind == NUMERICAL and values.nunique() > IDSCORE_MAX_DISTINCT:
        numbers = values.to_numpy(dtype=np.float64)
        counts, _ = np.histogram(numbers, bins=IDSCORE_BINS, range=(numbers.min(), numbers.max()))
    else:
        counts = values.value_counts(dropna=False).to_numpy()
    p = counts[counts > 0] / counts.sum()
    # The logarithm's base scales every weight by the same factor, which changes no comparison.
    return float(-(p * np.log(p)).sum())


class WeightedSpace:
    """IdScore's space: E with every coordinate of attribute ``a`` multiplied by ``w(a) = 1/(H(a) + 1e-8)``.

    Parameters
    ----------
    base : EuclideanSpace
        The evaluation's space E (its ``.blocks`` say which coordinates belong to which attribute).
    real : DataFrame
        Prepared real table (the entropies are computed on it).
    types : mapping
        Column name → type.
    """

    def __init__(self, base: EuclideanSpace, real: pd.DataFrame, types: dict[str, str]):
        self.base = base
        self.blocks = base.blocks
        self.dim = base.dim
        self.entropy = {b.column: attribute_entropy(real[b.column], types[b.column]) for b in base.blocks}
        # Erratum (metrics.md §2): eq. 19 divides by the weight; the text and Yoon et al. multiply.
        self.weight = {col: 1.0 / (h + 1e-8) for col, h in self.entropy.items()}
        self.coordinate_weight = np.ones(base.dim)
        for block in base.blocks:
            self.coordinate_weight[block.start : block.stop] = self.weight[block.column]

    def transform(self, df: pd.DataFrame) -> np.ndarray:
        """Weighted E coordinates of a prepared table."""
        return np.ascontiguousarray(self.base.transform(df) * self.coordinate_weight)


def compute_idscore(ctx: MetricContext) -> MetricOutput:
    """Identifiability Score.

    In E weighted per attribute by ``w(a) = 1/(H(a) + 1e-8)`` (each coordinate of ``a`` multiplied by
    ``w(a)``; Erratum: eq. 19 divides), ``risk = |{y : d̂_YZ(y) < d̂_YY(y)}| / |Y|`` (review eq. 20), with
    ``d̂_YY`` the distance to the nearest other weighted real row. A tie is not strictly closer, so it does
    not count. per_record (real) = the indicator.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> real = pd.DataFrame({"x": [0.0, 0.0, 0.0, 10.0], "c": list("ABCD")})
    >>> synthetic = pd.DataFrame({"x": [10.0, 0.0], "c": list("AD")})
    >>> evaluate(real, synthetic, metrics="idscore")["idscore"].risk
    0.25
    """
    _require_two_real(ctx)
    base = _require_space(ctx)
    types = dict(ctx.schema.types)
    space = ctx.space("E_idscore", lambda data: WeightedSpace(base, data.real, types))
    to_synthetic = ctx.neighbours("E_idscore", "real", "synthetic")
    to_real = ctx.neighbours("E_idscore", "real", "real")
    tolerance = ctx.extremes("E_idscore", "real", "synthetic").tie_tolerance
    # Strict, as eq. 20: the synthetic neighbour must be closer by more than the tie tolerance.
    identified = to_synthetic.d1 < to_real.d1 - tolerance
    risk = _share(identified)
    return MetricOutput(
        risk=risk,
        raw=risk,
        per_record=identified.astype(float),
        details=NearestDistances(
            d_yz=to_synthetic.d1,
            d_yy=to_real.d1,
            nearest_synthetic=to_synthetic.i1,
            nearest_real=to_real.i1,
            entropy=dict(space.entropy),
            weight=dict(space.weight),
        ),
    )


# --------------------------------------------------------------------------------------------------
# NNAA
# --------------------------------------------------------------------------------------------------


def _adversarial_accuracy(d_yz, d_yy, d_zy, d_zz, tolerance: float) -> tuple[float, float]:
    """The two halves of NNAA: share of real rows whose nearest row is real, likewise for synthetic.

    ``d_YZ > d_YY`` is strict: a tie (within the tolerance) means the nearest row is not clearly real.
    """
    real_term = _share(d_yz > d_yy + tolerance)
    synthetic_term = _share(d_zy > d_zz + tolerance)
    return real_term, synthetic_term


def _repeats_param(ctx: MetricContext) -> int:
    value = ctx.params.get("repeats")
    valid = isinstance(value, (int, np.integer, float)) and not isinstance(value, bool) and float(value).is_integer()
    repeats = int(value) if valid else 0
    if repeats < 1:
        raise InputError(f"The NNAA number of repeats must be a whole number of at least 1; got {value!r}.")
    return repeats


def _nearest_in_subset(
    top_two: Neighbours,
    query_rows: np.ndarray,
    member: np.ndarray,
    query: np.ndarray,
    subset_encoded: np.ndarray,
    own_position: np.ndarray | None,
    chunk_elements: int,
    workers: int | None = None,
) -> np.ndarray:
    """Distance from each query row to its nearest row of a subset of the reference table.

    ``top_two`` holds the query rows' nearest two rows of the *whole* reference table (a shared pass).
    If the nearest is in the subset, its distance is the answer; otherwise, if the second-nearest is,
    its distance is (every other row is at least that far). Only rows with neither in the subset are
    recomputed, with :func:`nearest_two` on the subset rows of the shared encoded array; when the query
    rows are the subset's own rows (``own_position`` = their positions in the subset), the row itself
    is skipped by position, as in the full pass.
    """
    index = top_two.index[query_rows]
    distance = top_two.distance[query_rows]
    # member has one extra False entry so that a missing neighbour (index −1) is never "in the subset".
    first_in, second_in = member[index[:, 0]], member[index[:, 1]]
    out = np.where(first_in, distance[:, 0], np.where(second_in, distance[:, 1], np.nan))
    todo = np.flatnonzero(~(first_in | second_in))
    if todo.size:
        found = nearest_two(query[todo], subset_encoded, chunk_elements=chunk_elements, workers=workers)[0]
        if own_position is None:
            out[todo] = found.d1
        else:
            is_self = found.index[:, 0] == own_position[todo]
            out[todo] = np.where(is_self, found.d2, found.d1)
    return out


def _nnaa_subsets(ctx: MetricContext, repeats: int, tolerance: float) -> tuple[list[tuple[float, float]], str]:
    """NNAA on ``repeats`` random subsets of the larger table, each of the smaller table's size.

    Inside a subset only the subset's rows can be neighbours, so every distance *to* the subset (its
    rows' nearest other subset row, the smaller table's nearest subset row) differs from the full
    table's; it is derived from the shared passes' two nearest rows where they lie in the subset and
    recomputed on the subset rows of the shared encoded arrays where they do not. Distances *from*
    subset rows to the whole smaller table do not change and are read from the shared passes.
    """
    n_real, n_synthetic = len(ctx.real), len(ctx.synthetic)
    larger, smaller = ("real", "synthetic") if n_real > n_synthetic else ("synthetic", "real")
    n_larger, n_smaller = max(n_real, n_synthetic), min(n_real, n_synthetic)
    larger_encoded, smaller_encoded = ctx.encoded("E", larger), ctx.encoded("E", smaller)
    larger_within = ctx.neighbours("E", larger, larger)
    smaller_to_larger = ctx.neighbours("E", smaller, larger)
    larger_to_smaller = ctx.neighbours("E", larger, smaller).d1
    smaller_within = ctx.neighbours("E", smaller, smaller).d1
    chunk = ctx.shared.chunk_elements
    rng = np.random.default_rng(ctx.seed)
    terms = []
    for _ in range(repeats):
        subset = rng.choice(n_larger, size=n_smaller, replace=False)
        member = np.zeros(n_larger + 1, dtype=bool)
        member[subset] = True
        subset_encoded = larger_encoded[subset]
        other_in_subset = _nearest_in_subset(
            larger_within, subset, member, subset_encoded, subset_encoded, np.arange(n_smaller), chunk, ctx.workers
        )
        smaller_to_subset = _nearest_in_subset(
            smaller_to_larger, np.arange(n_smaller), member, smaller_encoded, subset_encoded, None, chunk, ctx.workers
        )
        subset_to_smaller = larger_to_smaller[subset]
        if larger == "real":
            d_yz, d_yy, d_zy, d_zz = subset_to_smaller, other_in_subset, smaller_to_subset, smaller_within
        else:
            d_yz, d_yy, d_zy, d_zz = smaller_to_subset, smaller_within, subset_to_smaller, other_in_subset
        terms.append(_adversarial_accuracy(d_yz, d_yy, d_zy, d_zz, tolerance))
    return terms, larger


def compute_nnaa(ctx: MetricContext) -> MetricOutput:
    """Nearest Neighbour Adversarial Accuracy.

    ``NNAA = ½·[mean_y 1(d_YZ(y) > d_YY(y)) + mean_z 1(d_ZY(z) > d_ZZ(z))]`` in E, ``risk = 1 − NNAA``
    (0.5 = indistinguishable). With |Y| ≠ |Z|: the mean over ``R`` (default 10) random subsets of the
    larger table of the smaller size, ``rng = numpy.random.default_rng(seed)``, each repeat
    ``rng.choice(n_larger, size=n_smaller, replace=False)``. A tie is not "farther". per_record (real) =
    ``1 − 1(d_YZ(y) > d_YY(y))`` on the full tables.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> real = pd.DataFrame({"x": [0.0, 1.0, 9.0, 10.0]})
    >>> synthetic = pd.DataFrame({"x": [0.0, 4.0, 20.0, 21.0]})
    >>> evaluate(real, synthetic, metrics="nnaa")["nnaa"].risk
    0.5
    """
    _require_space(ctx)
    repeats = _repeats_param(ctx)
    n_real, n_synthetic = len(ctx.real), len(ctx.synthetic)
    if min(n_real, n_synthetic) < 2:
        raise NotApplicable("needs at least 2 rows in each table (every row's nearest other row of its own table).")
    to_synthetic = ctx.neighbours("E", "real", "synthetic")
    to_real = ctx.neighbours("E", "real", "real")
    tolerance = ctx.extremes("E", "real", "synthetic").tie_tolerance
    params: dict[str, Any] = {"repeats": repeats}
    warnings = []
    d_zy = d_zz = subsampled = repeat_values = None
    if n_real == n_synthetic:
        d_zy = ctx.neighbours("E", "synthetic", "real").d1
        d_zz = ctx.neighbours("E", "synthetic", "synthetic").d1
        real_term, synthetic_term = _adversarial_accuracy(to_synthetic.d1, to_real.d1, d_zy, d_zz, tolerance)
        params["repeats_used"] = 0
    else:
        terms, subsampled = _nnaa_subsets(ctx, repeats, tolerance)
        real_term = float(np.mean([t[0] for t in terms]))
        synthetic_term = float(np.mean([t[1] for t in terms]))
        repeat_values = [0.5 * (a + b) for a, b in terms]
        params.update({"repeats_used": repeats, "seed": ctx.seed})
        warnings.append(
            f"NNAA assumes tables of equal size; the {subsampled} table was cut to {min(n_real, n_synthetic)} "
            f"rows at random {repeats} times and the results averaged."
        )
    nnaa = 0.5 * (real_term + synthetic_term)
    details = AdversarialAccuracy(
        d_yz=to_synthetic.d1,
        d_yy=to_real.d1,
        baseline_value=0.5,
        d_zy=d_zy,
        d_zz=d_zz,
        subsampled=subsampled,
        repeat_values=repeat_values,
        real_term=real_term,
        synthetic_term=synthetic_term,
    )
    nearest_is_real = to_synthetic.d1 > to_real.d1 + tolerance
    return MetricOutput(
        risk=1.0 - nnaa,
        raw=nnaa,
        per_record=1.0 - nearest_is_real.astype(float),
        details=details,
        params=params,
        warnings=warnings,
    )


# --------------------------------------------------------------------------------------------------
# HitR
# --------------------------------------------------------------------------------------------------


@dataclass
class _SweepPlan:
    """Candidate synthetic rows of each real row: ``order[starts[i, k]:stops[i, k]]`` for every k."""

    order: np.ndarray
    starts: np.ndarray
    stops: np.ndarray

    @property
    def total(self) -> int:
        return int(np.sum(self.stops - self.starts))


def _sweep_plan(group_r, group_s, sweep, bucket=None) -> _SweepPlan:
    """Sort synthetic rows by (group[, grid cell of a second column], value of the sweep column).

    ``sweep`` = (real values, synthetic values, h): a real row's candidates on it are the synthetic rows
    of its group with a value in ``[y − h, y + h]`` (widened by a rounding margin; every pair is checked
    exactly later), one contiguous range of the sorted order. ``bucket`` = (real values, synthetic
    values, h) of an optional second column cut into cells of width 1.01·h from Y's minimum: a hit lies
    in the real row's cell or a neighbouring one (the 1 % keeps rounding from skipping a cell), so each
    real row gets three ranges and far fewer candidates.
    """
    if bucket is None:
        base_s, bases_r = group_s, [group_r]
    else:
        y_b, z_b, h_b = bucket
        width = 1.01 * h_b
        lo = y_b.min()
        cell_r = np.floor((y_b - lo) / width).astype(np.int64)
        top = int(cell_r.max())
        # Synthetic cells beyond the real ones ± 1 can never hit: clip them to sentinels no query reaches.
        cell_s = np.clip(np.floor((z_b - lo) / width), -2, top + 2).astype(np.int64)
        stride = top + 5
        base_s = group_s * stride + cell_s + 2
        bases_r = [group_r * stride + cell_r + 2 + step for step in (-1, 0, 1)]
    y, z, h = sweep
    values = np.unique(z)
    width = len(values) + 1
    key = base_s * width + np.searchsorted(values, z)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    margin = 1e-9 * (np.abs(y) + h)
    low = np.searchsorted(values, y - h - margin, side="left")
    high = np.searchsorted(values, y + h + margin, side="right")
    starts = np.stack([np.searchsorted(sorted_key, b * width + low, side="left") for b in bases_r], axis=1)
    stops = np.stack([np.searchsorted(sorted_key, b * width + high, side="left") for b in bases_r], axis=1)
    return _SweepPlan(order, starts, stops)


def _best_plan(group_r, group_s, y: dict, z: dict, h: dict) -> tuple[_SweepPlan, list[str]]:
    """The sweep column (and grid column) leaving the fewest candidate pairs; columns by selectivity."""
    single = {c: _sweep_plan(group_r, group_s, (y[c], z[c], h[c])) for c in y}
    ranked = sorted(single, key=lambda c: single[c].total)
    sweep = ranked[0]
    best = single[sweep]
    if best.total <= HITR_GRID_AFTER * (len(group_r) + len(group_s)):
        return best, ranked  # checking this few pairs costs less than planning a grid
    for other in ranked[1:]:
        # A grid narrower than rounding at this magnitude could skip a cell: keep such columns out.
        if h[other] <= 1e-9 * float(np.abs(y[other]).max()):
            continue
        plan = _sweep_plan(group_r, group_s, (y[sweep], z[sweep], h[sweep]), (y[other], z[other], h[other]))
        if plan.total < best.total:
            best = plan
    return best, ranked


def hit_counts(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    categorical: list[str],
    numerical: list[str],
    h: np.ndarray,
    pairs_per_chunk: int = HITR_PAIRS_PER_CHUNK,
) -> np.ndarray:
    """Number of synthetic rows hitting each real row (HitR's pair test), without an n×m matrix.

    Rows are grouped by the values that must be equal (categorical and binary columns, and numerical
    columns with h = 0). Inside a group, synthetic rows are sorted on a grid cell of one numerical
    column and on the value of another, chosen to leave the fewest candidates, so a real row's
    candidates are three contiguous ranges; only those pairs are checked on every numerical column,
    most selective first, in bounded chunks.

    Examples
    --------
    >>> real = pd.DataFrame({"x": [0.0, 30.0], "c": ["a", "a"]})
    >>> synthetic = pd.DataFrame({"x": [1.0, 2.0, 29.5], "c": ["a", "a", "b"]})
    >>> hit_counts(real, synthetic, ["c"], ["x"], np.array([1.0])).tolist()
    [1, 0]
    """
    n = len(real)
    exact = [c for c, tolerance in zip(numerical, h) if tolerance == 0]
    boxed = {c: float(tolerance) for c, tolerance in zip(numerical, h) if tolerance > 0}
    (group_r, group_s), n_groups = joint_tuple_ids([real, synthetic], list(categorical) + exact)
    if not boxed:
        return np.bincount(group_s, minlength=n_groups)[group_r]
    y = {c: real[c].to_numpy(dtype=np.float64) for c in boxed}
    z = {c: synthetic[c].to_numpy(dtype=np.float64) for c in boxed}
    plan, ranked = _best_plan(group_r, group_s, y, z, boxed)
    ranges = plan.starts.shape[1]
    query_row = np.repeat(np.arange(n), ranges)
    starts, lengths = plan.starts.ravel(), (plan.stops - plan.starts).ravel()
    ends = np.cumsum(lengths)
    counts = np.zeros(n, dtype=np.int64)
    first, n_queries = 0, len(lengths)
    while first < n_queries:
        offset = ends[first - 1] if first else 0
        # At least one range per chunk, however many candidates it has.
        last = max(first + 1, int(np.searchsorted(ends, offset + pairs_per_chunk, side="right")))
        size = lengths[first:last]
        total = int(size.sum())
        if total:
            within = np.arange(total) - np.repeat(np.cumsum(size) - size, size)
            pair_synthetic = plan.order[np.repeat(starts[first:last], size) + within]
            pair_row = np.repeat(query_row[first:last], size)
            # Most selective column first, dropping failed pairs as we go (the sweep column goes last:
            # its candidates pass it by construction except for the rounding margin).
            for col in ranked[1:] + ranked[:1]:
                keep = np.abs(y[col][pair_row] - z[col][pair_synthetic]) <= boxed[col]
                pair_row, pair_synthetic = pair_row[keep], pair_synthetic[keep]
            counts += np.bincount(pair_row, minlength=n)
        first = last
    return counts


def compute_hitr(ctx: MetricContext) -> MetricOutput:
    """Hitting Rate.

    A pair (y, z) hits when every categorical/binary value is equal and every numerical
    ``|y[a] − z[a]| ≤ h(a) = (max_Y a − min_Y a)/30`` (Erratum: eq. 30 prints max − max). Every analysed
    column counts, constant ones included (a constant numerical column has h = 0: equality required).
    ``risk = raw = |{y : some z hits y}| / |Y|``. per_record (real) = the indicator.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> real = pd.DataFrame({"x": [0.0, 10.0, 20.0, 30.0], "c": list("AABB")})
    >>> synthetic = pd.DataFrame({"x": [1.0, 20.5, 29.0], "c": list("AAB")})
    >>> evaluate(real, synthetic, metrics="hitr")["hitr"].risk  # h = 1: rows 0 and 3 are hit
    0.5
    """
    columns = ctx.schema.columns
    numerical = [c for c in columns if ctx.schema.types[c] == NUMERICAL]
    categorical = [c for c in columns if ctx.schema.types[c] != NUMERICAL]
    real, synthetic = ctx.real, ctx.synthetic
    h = np.array([(real[c].max() - real[c].min()) / 30.0 for c in numerical], dtype=np.float64)
    counts = hit_counts(real, synthetic, categorical, numerical, h)
    hit = counts > 0
    risk = _share(hit)
    return MetricOutput(
        risk=risk,
        raw=risk,
        per_record=hit.astype(float),
        details=NumericalMatches(
            hits_per_real=counts,
            hitting_pairs=int(counts.sum()),
            h=dict(zip(numerical, h.tolist())),
        ),
    )


# --------------------------------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------------------------------

_E_STEP = "Turn every record into numbers: numerical columns scaled 0–1 on the real data, each category a 0/1 flag."

register(
    MetricInfo(
        id="cvp",
        name="Close Value Probability (CVP)",
        family="Distance-based",
        summary="Share of real records that have a synthetic record unusually close to them.",
        attacker_knows="A real person's full record and the synthetic table.",
        needs=frozenset(),
        per_record_unit="real",
        raw_meaning="Same as risk: the share of real records whose closest synthetic record is within the threshold.",
        reference=f"{REVIEW}, §2.2.1; {QIAN}.",
        explanation=Explanation(
            attack="Someone who knows a real person's record looks for the synthetic record closest to it. If "
            "that record is much closer than real and synthetic records usually are, it was probably generated "
            "from this person, and the person is re-identified.",
            steps=(
                _E_STEP,
                "For each real record, measure the distance to its closest synthetic record.",
                "Rescale that distance so 0 is the smallest and 1 the largest distance between any real and any "
                "synthetic record.",
                "Count the real records whose rescaled distance is at most 0.2.",
            ),
            high="Most real people have a synthetic record sitting almost on top of them.",
            low="Few real people have a synthetic record close to them.",
            blind_spots=f"{DISTANCE_BLIND_SPOT} The 0–1 rescaling depends on the single farthest pair, so one "
            "outlier shifts every score, and the fixed 0.2 ignores how close real people already are to each other.",
            note="",
        ),
        compute=compute_cvp,
        passes=(('E', 'real', 'synthetic'),),
        details_type=NormalisedDistances,
        space="E", figures=("normalised_distances", "famd_map"),
        params=(Param("threshold", "float", 0.2, "Closeness threshold",
                      "A real record counts as at risk when its closest synthetic record lies within this share of "
                      "the range of closest distances (0 = the closest, 1 = the farthest).",
                      minimum=0.0, maximum=1.0, step=0.01),),
        min_rows=1,
    )
)

register(
    MetricInfo(
        id="dvp",
        name="Distant Value Probability (DVP)",
        family="Distance-based",
        summary="One minus the share of real records whose closest synthetic record is far away.",
        attacker_knows="A real person's full record and the synthetic table.",
        needs=frozenset(),
        per_record_unit="real",
        raw_meaning="Share of real records whose closest synthetic record is far (rescaled distance ≥ 0.8); "
        "higher = safer.",
        reference=f"{REVIEW}, §2.2.2; {QIAN}.",
        explanation=Explanation(
            attack="The same search as CVP seen from the other side: a real person whose closest synthetic record "
            "is far away cannot be linked to any synthetic record; everyone else might be.",
            steps=(
                _E_STEP,
                "For each real record, measure the distance to its closest synthetic record.",
                "Rescale it so 0 is the smallest and 1 the largest real–synthetic distance.",
                "Count the real records at 0.8 or more; the risk is one minus their share.",
            ),
            high="Almost no real person is far from every synthetic record.",
            low="Most real people are far from every synthetic record.",
            blind_spots=f"{DISTANCE_BLIND_SPOT} Being far from the single farthest pair is rare even for very safe "
            "data, so DVP is high for almost any synthetic table and separates generators poorly.",
            note="",
        ),
        compute=compute_dvp,
        passes=(('E', 'real', 'synthetic'),),
        details_type=NormalisedDistances,
        space="E", figures=("normalised_distances",),
        params=(Param("threshold", "float", 0.8, "Distance threshold",
                      "A real record counts as safe when its closest synthetic record lies at least this share of "
                      "the range of closest distances away (0 = the closest, 1 = the farthest).",
                      minimum=0.0, maximum=1.0, step=0.01),),
        min_rows=1,
    )
)

register(
    MetricInfo(
        id="auth",
        name="Authenticity (Auth)",
        family="Distance-based",
        summary="Share of real records that are at least as close to a synthetic record as to another real one.",
        attacker_knows="A real person's full record, the synthetic table and the rest of the real table (to know "
        "how close real people are to each other).",
        needs=frozenset(),
        per_record_unit="real",
        raw_meaning="Share of real records whose nearest other real record is strictly closer than their nearest "
        "synthetic record (1 = private).",
        reference=f"{REVIEW}, §2.2.4; {QIAN}.",
        explanation=Explanation(
            attack="A synthetic record that is closer to a real person than any other real person is suspicious: it "
            "looks like a copy of that person rather than a new, authentic record.",
            steps=(
                _E_STEP,
                "For each real record, find its closest synthetic record and its closest other real record.",
                "Count the real records whose closest other real record is strictly closer; the risk is one minus "
                "their share (a tie counts as a risk).",
            ),
            high="Most real people have a synthetic record closer to them than any other real person.",
            low="Real people are closer to each other than to any synthetic record.",
            blind_spots=f"{DISTANCE_BLIND_SPOT} Even a fresh sample of real people is often closer than a real "
            "neighbour, so compare with the holdout baseline.",
            note="",
        ),
        compute=compute_auth,
        passes=(('E', 'real', 'synthetic'), ('E', 'real', 'real')),
        details_type=NearestDistances,
        space="E", figures=("distances", "famd_map"),
        min_rows=1,
    )
)

register(
    MetricInfo(
        id="idscore",
        name="Identifiability Score (IdScore)",
        family="Distance-based",
        summary="Like Authenticity, but columns whose values are rare or unusual weigh more in the distance.",
        attacker_knows="A real person's full record, the synthetic table and the rest of the real table.",
        needs=frozenset(),
        per_record_unit="real",
        raw_meaning="Same as risk: share of real records whose weighted nearest synthetic record is strictly "
        "closer than their weighted nearest other real record.",
        reference=f"{REVIEW}, §2.2.5; {QIAN}; Yoon et al. (2020), ADS-GAN.",
        explanation=Explanation(
            attack="As in Authenticity, a synthetic record closer to a real person than any other real person "
            "points at that person; here a column with little variety (low entropy) counts more, because "
            "matching it is more telling.",
            steps=(
                _E_STEP,
                "Weigh each column by one over its entropy in the real data, so columns with few, lopsided values "
                "weigh more.",
                "For each real record, find its closest synthetic and closest other real record in this weighted "
                "space.",
                "Count the real records whose closest synthetic record is strictly closer.",
            ),
            high="Most real people are closer to a synthetic record than to any other real person, even when "
            "telling columns weigh more.",
            low="Real people are closer to each other than to any synthetic record.",
            blind_spots=f"{DISTANCE_BLIND_SPOT} Weighting by entropy favours columns with few values; a rare value "
            "in a varied column still weighs little.",
            note="Erratum: the review's eq. 19 divides each value by its weight, which contradicts its own text and "
            "the original (Yoon et al.), so we multiply; numerical columns with more than 10 distinct values are "
            "cut into 10 equal-width bins to compute their entropy.",
        ),
        compute=compute_idscore,
        passes=(('E_idscore', 'real', 'synthetic'), ('E_idscore', 'real', 'real')),
        details_type=NearestDistances,
        space="E_idscore", figures=("distances",),
        min_rows=1,
    )
)

register(
    MetricInfo(
        id="nsnd",
        name="Nearest Synthetic Neighbour Distance (NSND)",
        family="Distance-based",
        summary="How close, on average, each real record's closest synthetic record is (rescaled 0–1).",
        attacker_knows="A real person's full record and the synthetic table.",
        needs=frozenset(),
        per_record_unit="real",
        raw_meaning="Mean rescaled distance from each real record to its closest synthetic record; higher = "
        "farther = safer.",
        reference=f"{REVIEW}, §2.2.6; {QIAN}.",
        explanation=Explanation(
            attack="The closer synthetic records are to real people, the easier it is to trace a synthetic record "
            "back to the person it came from.",
            steps=(
                _E_STEP,
                "For each real record, measure the distance to its closest synthetic record.",
                "Rescale it so 0 is the smallest and 1 the largest real–synthetic distance.",
                "Average over the real records; the risk is one minus this average.",
            ),
            high="Real people's closest synthetic records are about as close as any real–synthetic pair gets.",
            low="Real people's closest synthetic records are as far as real–synthetic pairs get.",
            blind_spots=f"{DISTANCE_BLIND_SPOT} An average hides a few copied records among many distant ones, and "
            "the rescaling depends on the single farthest pair.",
            note="Erratum: the review calls NSND a risk although a larger value means safer, so the risk is one "
            "minus NSND.",
        ),
        compute=compute_nsnd,
        passes=(('E', 'real', 'synthetic'),),
        details_type=NormalisedDistances,
        space="E", figures=("normalised_distances",),
        min_rows=1,
    )
)

register(
    MetricInfo(
        id="mdcr",
        name="Median Distance to Closest Record (MDCR)",
        family="Distance-based",
        summary="How close synthetic records are to real people compared with how close real people are to "
        "each other (medians).",
        attacker_knows="A real person's full record, the synthetic table and the rest of the real table.",
        needs=frozenset(),
        per_record_unit="real",
        raw_meaning="Median distance from real records to their closest synthetic record divided by the median "
        "distance to their closest other real record; below 1 = synthetic records are closer than real "
        "neighbours (risky).",
        reference=f"{REVIEW}, §2.2.9; {LAUTRUP}.",
        explanation=Explanation(
            attack="If synthetic records sit closer to real people than real people sit to each other, the "
            "generator has reproduced individuals rather than the population.",
            steps=(
                _E_STEP,
                "For each real record, measure the distance to its closest synthetic record and to its closest "
                "other real record.",
                "Divide the median of the first by the median of the second (MDCR).",
                "Turn it into a risk with 1/(1 + MDCR): 0.5 means synthetic records are as close as real neighbours.",
            ),
            high="Synthetic records are much closer to real people than real people are to each other.",
            low="Synthetic records are much farther from real people than real people are from each other.",
            blind_spots=f"{DISTANCE_BLIND_SPOT} A median ignores the closest records entirely: up to half of the "
            "real people can be copied without changing it.",
            note="Erratum: the review's sigmoid of MDCR rises as records get farther apart, the wrong direction, so "
            "we use DCR's transform 1/(1 + MDCR).",
        ),
        compute=compute_mdcr,
        passes=(('E', 'real', 'synthetic'), ('E', 'real', 'real')),
        details_type=NearestDistances,
        space="E", figures=("distances",),
        min_rows=1,
    )
)

register(
    MetricInfo(
        id="nnaa",
        name="Nearest Neighbour Adversarial Accuracy (NNAA)",
        family="Distance-based",
        summary="Whether each record's nearest neighbour gives away if it is real or synthetic.",
        attacker_knows="The real table and the synthetic table.",
        needs=frozenset(),
        per_record_unit="real",
        raw_meaning="Adversarial accuracy: 0.5 = real and synthetic records are mixed like one population; 0 = "
        "every record's nearest neighbour is from the other table (copies); 1 = never.",
        reference=f"{REVIEW}, §2.2.10; {LAUTRUP}; introduced by Yale et al. (2020).",
        explanation=Explanation(
            attack="A classifier that labels a record 'real' when its nearest neighbour is real: if synthetic "
            "records hug real ones, every real record's nearest neighbour is synthetic and vice versa, which "
            "shows the synthetic records were copied from these people.",
            steps=(
                _E_STEP,
                "For each real record, check whether its nearest other real record is strictly closer than its "
                "nearest synthetic record; average.",
                "For each synthetic record, check whether its nearest other synthetic record is strictly closer "
                "than its nearest real record; average.",
                "NNAA is the mean of both shares; the risk is one minus NNAA (0.5 is what a fresh sample gets).",
            ),
            high="Real and synthetic records are each other's nearest neighbours: the synthetic records shadow "
            "real people.",
            low="Each table's records are nearest to their own kind: the synthetic data keeps its distance.",
            blind_spots=f"{DISTANCE_BLIND_SPOT} A risk below 0.5 is not safer than 0.5; it means the synthetic "
            "data looks unlike the real data.",
            note="The metric assumes tables of equal size; otherwise it is averaged over 10 random subsets of the "
            "larger table with the smaller table's size.",
        ),
        compute=compute_nnaa,
        passes=(('E', 'real', 'synthetic'), ('E', 'synthetic', 'real'), ('E', 'real', 'real'),
                ('E', 'synthetic', 'synthetic')),
        details_type=AdversarialAccuracy,
        space="E", figures=("distances",),
        params=(Param("repeats", "int", 10, "Repeats",
                      "When the tables differ in size, how many random subsets of the larger one (each of the "
                      "smaller one's size) the accuracy is averaged over.", minimum=1, maximum=1000, step=1),),
        min_rows=2,
    )
)

register(
    MetricInfo(
        id="hitr",
        name="Hitting Rate (HitR)",
        family="Distance-based",
        summary="Share of real records with a synthetic look-alike: same categories, numbers within 1/30 of "
        "their range.",
        attacker_knows="A real person's full record and the synthetic table.",
        needs=frozenset(),
        per_record_unit="real",
        raw_meaning="Same as risk: the share of real records hit by at least one synthetic record.",
        reference=f"{REVIEW}, §2.2.13; {LAUTRUP}.",
        explanation=Explanation(
            attack="Someone who knows a real person's record looks for a synthetic record that matches it almost "
            "exactly; finding one suggests the person was in the training data.",
            steps=(
                "For each numerical column, set a tolerance of one thirtieth of its range in the real data.",
                "A synthetic record hits a real one when every category is equal and every number is within its "
                "tolerance.",
                "Count the real records hit by at least one synthetic record.",
            ),
            high="Most real people have a synthetic near-copy.",
            low="Hardly any real person has a synthetic near-copy.",
            blind_spots=f"{DISTANCE_BLIND_SPOT} With few, coarse columns many real people share their values, so "
            "even a fresh sample scores high: compare with the holdout baseline.",
            note="Erratum: the review's eq. 30 prints the tolerance as (max − max)/30, which is always 0; we use "
            "(max − min)/30.",
        ),
        compute=compute_hitr,
        details_type=NumericalMatches,
        figures=("famd_map",),
        min_rows=1,
    )
)
