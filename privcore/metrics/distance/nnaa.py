"""Nearest Neighbour Adversarial Accuracy (metrics.md §2; review §2.2).

NNAA reads the four shared passes real→synthetic, real→real, synthetic→real and synthetic→synthetic in E;
only with tables of different sizes does it compute extra neighbours itself: inside random subsets of the
larger table, where the nearest *other* row is not the full table's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privcore.base import NotApplicable
from privcore.data import Param
from privcore.engine import MetricContext, Neighbours, nearest_two
from privcore.metrics.details import AdversarialAccuracy
from privcore.metrics.distance._base import DISTANCE_BLIND_SPOT, E_STEP, LAUTRUP, REVIEW, require_space, share
from privcore.metrics.registry import Explanation, MetricInfo
from privcore.metrics.results import MetricOutput


def _adversarial_accuracy(d_yz, d_yy, d_zy, d_zz, tolerance: float) -> tuple[float, float]:
    """The two halves of NNAA: share of real rows whose nearest row is real, likewise for synthetic.

    ``d_YZ > d_YY`` is strict: a tie (within the tolerance) means the nearest row is not clearly real.
    """
    real_term = share(d_yz > d_yy + tolerance)
    synthetic_term = share(d_zy > d_zz + tolerance)
    return real_term, synthetic_term


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
    require_space(ctx)
    repeats = int(ctx.params["repeats"])  # checked against its Param by check_value
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

NNAA = MetricInfo(
    id="nnaa",
    order=140,
    cost=(0.36, 1.3),
    reference_level=0.5,  # 1 − NNAA; NNAA = 0.5 when real and synthetic are indistinguishable
    assumption="distance",
    one_thread_blas=True,
    size_matched=True,  # a larger table searched scores closer by itself
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
            E_STEP,
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
