"""Distance to the closest synthetic record (metrics.md §2; review §2.2): CVP, DVP, NSND, Auth and MDCR.

Each reads the shared nearest-neighbour passes in E (``ctx.neighbours``): real→synthetic for all of them,
real→real for Auth and MDCR; the §5 baseline (holdout in place of the synthetic table) reuses the
real→real pass.
"""

from __future__ import annotations

import math

import numpy as np

from privcore.data import Param
from privcore.engine import MetricContext
from privcore.metrics.details import NearestDistances, NormalisedDistances
from privcore.metrics.distance._base import (
    DISTANCE_BLIND_SPOT,
    E_STEP,
    LAUTRUP,
    QIAN,
    REVIEW,
    closest_synthetic,
    require_space,
    require_two_real,
    share,
)
from privcore.metrics.registry import Explanation, MetricInfo
from privcore.metrics.results import MetricOutput

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
    threshold = float(ctx.params["threshold"])  # checked against its Param by check_value
    closest = closest_synthetic(ctx)
    close = closest.at_most(threshold)
    risk = share(close)
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
    threshold = float(ctx.params["threshold"])  # checked against its Param by check_value
    closest = closest_synthetic(ctx)
    distant = closest.at_least(threshold)
    raw = share(distant)
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
    closest = closest_synthetic(ctx)
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
    require_two_real(ctx)
    require_space(ctx)
    to_synthetic = ctx.neighbours("E", "real", "synthetic")
    d_yy = ctx.neighbours("E", "real", "real").d1
    # Strict: the real neighbour must be closer by more than the tie tolerance; a tie goes to "at risk". The
    # tolerance is the only use of d_max here, so alone (or beside IdScore) Auth's pass may leave the farthest
    # pair out (privcore.engine.tolerance).
    authentic = ctx.tie_tolerance("E", "real", "synthetic").decide(lambda tolerance: d_yy < to_synthetic.d1 - tolerance)
    raw = share(authentic)
    return MetricOutput(
        risk=1.0 - raw,
        raw=raw,
        per_record=1.0 - authentic.astype(float),
        details=NearestDistances(
            d_yz=to_synthetic.d1,
            d_yy=d_yy,
            nearest_synthetic=to_synthetic.i1,
            nearest_real=ctx.neighbours("E", "real", "real").i1,
        ),
    )


def _safe_ratio(numerator: np.ndarray | float, denominator: float) -> np.ndarray:
    """Numerator / denominator with MDCR's conventions for a zero denominator: 0/0 = 1, x/0 = ∞."""
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
    require_two_real(ctx)
    closest = closest_synthetic(ctx)
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


#: The middle share of ranks :func:`central_mean` averages: wider than one value of a code's lattice holds (4-7 %
#: of the rows on a 300-value code beside whole years of age), narrow enough to stay a median.
CENTRAL_SHARE = 0.10


def central_mean(values: np.ndarray, share: float = CENTRAL_SHARE) -> float:
    """The mean of the middle ``share`` of the sorted values: a median that moves with the shares of repeated values.

    Where distances take few values, the ordinary median jumps from one to the next as the share below it crosses
    one half; the mean of the values ranked between ``(1 − share)/2`` and ``(1 + share)/2`` moves by the share that
    changed side. It is a mean of order statistics, so it never falls when a value rises, and with two values or
    fewer in the middle (ten values or fewer in all) it is the ordinary median.

    Examples
    --------
    >>> central_mean(np.array([1.0, 2.0, 3.0, 4.0]))  # the two middle values: the ordinary median
    2.5
    >>> central_mean(np.array([0.0] * 49 + [1.0] * 51))  # np.median says 1.0; 49 % sit at 0
    0.6
    """
    ordered = np.sort(np.asarray(values, dtype=float))
    n = len(ordered)
    # The 1e-9 keeps n × share's rounding (100 × 1.1 / 2 = 55.00000000000001) from taking one more value.
    low = int(np.floor(n * (1.0 - share) / 2.0 + 1e-9))
    high = int(np.ceil(n * (1.0 + share) / 2.0 - 1e-9))
    if high - low <= 2:  # at most the median's own one or two values
        return float(np.median(ordered))
    return float(np.mean(ordered[low:high]))


def mdcr_compared(output: MetricOutput) -> float:
    """MDCR's risk with its median of ``d_YZ`` read by :func:`central_mean`: the score its size-matched comparison reads.

    Distances to the closest record often take few values (a many-valued code, whole years of age): the median then
    jumps from one value to the next as the share below it crosses one half. On a 300-value code beside whole years
    of age, ten random subsets of a fresh synthetic table all scored MDCR 0.50 and the holdout 0.40 (its share at
    the subsets' median distance was 0.499 against their 0.52), an "excess" of 0.10 with no spread to weigh it by.
    The central mean moves with that share, so subsets spread as fresh samples do.
    """
    median_yy = float(output.details.median_d_yy)
    return 1.0 / (1.0 + float(_safe_ratio(central_mean(output.details.d_yz), median_yy)))


# --------------------------------------------------------------------------------------------------
# Registry entries (registered in order by the package, privcore.metrics.distance)
# --------------------------------------------------------------------------------------------------

CVP = MetricInfo(
    id="cvp",
    order=50,
    cost=(0.24, 1.3),
    assumption="distance",
    one_thread_blas=True,
    size_matched=True,  # a larger table searched scores closer by itself
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
            E_STEP,
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

DVP = MetricInfo(
    id="dvp",
    order=60,
    cost=(0.01, 1.0),
    assumption="distance",
    one_thread_blas=True,
    size_matched=True,  # a larger table searched scores closer by itself
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
            E_STEP,
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

AUTH = MetricInfo(
    id="auth",
    order=80,
    cost=(0.09, 1.3),
    reference_level=0.5,  # a real record's nearest neighbour is as likely synthetic as real
    assumption="distance",
    one_thread_blas=True,
    size_matched=True,  # a larger table searched scores closer by itself
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
            E_STEP,
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
    tolerance_only=(('E', 'real', 'synthetic'),),
    details_type=NearestDistances,
    space="E", figures=("distances", "famd_map"),
    min_rows=1,
)

NSND = MetricInfo(
    id="nsnd",
    order=100,
    cost=(0.01, 1.0),
    assumption="distance",
    one_thread_blas=True,
    size_matched=True,  # a larger table searched scores closer by itself
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
            E_STEP,
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

MDCR = MetricInfo(
    id="mdcr",
    order=130,
    cost=(0.01, 1.0),
    reference_level=0.5,  # synthetic records as close to real people as real people are to each other
    assumption="distance",
    one_thread_blas=True,
    size_matched=True,  # a larger table searched scores closer by itself
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
            E_STEP,
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
    compared_by=mdcr_compared,
    passes=(('E', 'real', 'synthetic'), ('E', 'real', 'real')),
    details_type=NearestDistances,
    space="E", figures=("distances",),
    min_rows=1,
)
