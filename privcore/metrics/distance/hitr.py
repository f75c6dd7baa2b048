"""Hitting Rate (metrics.md §2; review §2.2): real records with a synthetic look-alike, no distances needed.

A look-alike has the same categories and every number within 1/30 of the column's range in the real
table; the box test runs on candidate pairs planned by sorted sweeps (and a grid on a second column when a
sweep leaves too many), in chunks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privcore.data import NUMERICAL
from privcore.engine import MetricContext
from privcore.metrics._exact_match import joint_tuple_ids
from privcore.metrics.details import NumericalMatches
from privcore.metrics.distance._base import DISTANCE_BLIND_SPOT, LAUTRUP, REVIEW, share
from privcore.metrics.registry import Explanation, MetricInfo
from privcore.metrics.results import MetricOutput

#: Pairs checked at once by HitR's box test (int64 + bool arrays per pair: ~50 MB).
HITR_PAIRS_PER_CHUNK = 2**22
#: HitR plans a grid on a second column only when the best single sweep leaves more candidate pairs
#: than this many per row of both tables (below that, planning costs more than checking).
HITR_GRID_AFTER = 2



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
    risk = share(hit)
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

HITR = MetricInfo(
    id="hitr",
    order=170,
    cost=(0.03, 1.0),
    one_thread_blas=True,
    size_matched=True,  # a larger table searched scores closer by itself
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
