"""Membership-inference attacks by distance: distance and calibrated distance (metrics.md §3).

The density-ratio attack DOMIAS is in :mod:`privcore.metrics.membership.domias`; the shared machinery in
:mod:`privcore.metrics.membership._base`.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from privcore.engine import MetricContext, nearest_two
from privcore.metrics.details import MembershipScores
from privcore.metrics.membership._base import (
    COMMON_INFO,
    COMMON_PARAMS,
    MIA_NOTE,
    REFERENCE,
    REFERENCE_MIA,
    AttackScores,
    MembershipSets,
    Reference,
    Scorer,
    attack_output,
    attack_steps,
    membership_sets,
    output_from_scores,
    require_holdout,
)
from privcore.metrics.registry import Explanation, MetricInfo, register
from privcore.metrics.results import MetricOutput

# ------------------------------------------------------------------------------------------ attacks


def compute_mia_distance(ctx: MetricContext) -> MetricOutput:
    """Distance-to-closest-synthetic membership inference.

    Score ``s(x) = −d_E(x, Z)`` (closer to a synthetic row = more likely a member), on members (``Y`` or
    an equal-size sample) and non-members (``H`` or an equal-size sample). ``risk = max_t (TPR − FPR)``,
    ``raw`` = ROC AUC; scores within 1e-12·d_max are tied. per_record (real) = ``s(y)`` for every real
    row; ``interval`` = bootstrap interval of the advantage.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"x": [0.0, 2.0, 4.0, 6.0]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="mia_distance",
    ...                holdout=real + 1.0, params={"mia_distance": {"n_boot": 0}})
    >>> res["mia_distance"].raw, res["mia_distance"].risk
    (1.0, 1.0)
    """
    require_holdout(ctx, 1)
    sets = membership_sets(len(ctx.real), len(ctx.holdout), ctx.seed, split_holdout=False)
    d_real = ctx.neighbours("E", "real", "synthetic").d1
    d_hold = ctx.neighbours("E", "holdout", "synthetic").d1
    tolerance = ctx.extremes("E", "real", "synthetic").tie_tolerance
    return attack_output(ctx, sets, -d_real[sets.members], -d_hold[sets.nonmembers], -d_real,
                   tolerance=tolerance, details={"tie_tolerance": tolerance}, params={"space": "E"}, warnings=[])


def distance_ratio(to_reference: np.ndarray, to_synthetic: np.ndarray, tolerance: float) -> np.ndarray:
    """``log max(d_R, τ) − log max(d_Z, τ)``, with ``τ`` at least the smallest positive float (so it is finite).

    Examples
    --------
    >>> distance_ratio(np.array([2.0, 1.0]), np.array([1.0, 1.0]), 0.0).round(6).tolist()
    [0.693147, 0.0]
    """
    tau = max(float(tolerance), np.finfo(float).tiny)
    return (np.log(np.maximum(np.asarray(to_reference, dtype=float), tau))
            - np.log(np.maximum(np.asarray(to_synthetic, dtype=float), tau)))


def compute_mia_calibrated(ctx: MetricContext) -> MetricOutput:
    """Calibrated distance membership inference.

    Score ``s(x) = log max(d_E(x, R), τ) − log max(d_E(x, Z), τ)``: how many times closer ``x`` is to the
    synthetic data than to real people in general, with ``τ`` the tie tolerance of the distances (a
    distance within it counts as 0, metrics.md §0; so a record at distance 0 from a synthetic row scores by
    how far it is from the reference). ``R`` = the
    user's reference table (parameter ``reference``, real records disjoint from ``Y`` and ``H``) or,
    without one, a seeded half of ``H`` (the other half are the non-members). ``d(x, R)`` comes from one
    exact pass of :func:`privcore.engine.neighbors.nearest_two` on the shared E encoding. per_record (real) =
    ``s(y)`` for every real row.

    Notes
    -----
    Choice: the calibration is a ratio, not the difference ``d(x, R) − d(x, Z)`` of metrics.md §3. Distances
    differ in scale from dense to sparse regions of the data, so a difference lets a non-member in a sparse
    region outscore a copied member in a dense one (AUC 0.83 on the exact-copy demo); the ratio is free of
    that scale (AUC 0.98, the distance attack's level, and 0.5 on a fresh sample).

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"x": [0.0, 2.0, 4.0, 6.0]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="mia_calibrated",
    ...                holdout=real + 1.0, params={"mia_calibrated": {"n_boot": 0}})
    >>> round(res["mia_calibrated"].raw, 6)  # every member has a synthetic copy, no non-member has one
    1.0
    """
    require_holdout(ctx, 2)
    return output_from_scores(ctx, "mia_calibrated")


def calibrated_scores(ctx: MetricContext, sets: MembershipSets, reference: Reference, params: Mapping) -> AttackScores:
    """The scores of :func:`compute_mia_calibrated` for every real row and each non-member."""
    encoded_reference = reference.encoded(ctx, "E")
    encoded_real, encoded_hold = ctx.encoded("E", "real"), ctx.encoded("E", "holdout")
    chunk = ctx.shared.chunk_elements
    to_reference_real = nearest_two(encoded_real, encoded_reference, chunk_elements=chunk)[0].d1
    to_reference_non = nearest_two(encoded_hold[sets.nonmembers], encoded_reference, chunk_elements=chunk)[0].d1
    d_real = ctx.neighbours("E", "real", "synthetic").d1
    d_hold = ctx.neighbours("E", "holdout", "synthetic").d1
    tolerance = ctx.extremes("E", "real", "synthetic").tie_tolerance
    score_real = distance_ratio(to_reference_real, d_real, tolerance)
    score_non = distance_ratio(to_reference_non, d_hold[sets.nonmembers], tolerance)
    details = {"reference": reference.described, "reference_positions": sets.reference, "tie_tolerance": tolerance}
    return AttackScores(score_real, score_non, tolerance, details, {"space": "E", "reference": reference.described})


def distance_scores(ctx: MetricContext, sets: MembershipSets, reference: Reference, params: Mapping) -> AttackScores:
    """The distance attack's scores ``−d_E(x, Z)`` on the battery's members and non-members.

    Read from the shared real→synthetic and holdout→synthetic passes, which ``mia_distance`` reads too.

    Notes
    -----
    The attacker holds a real person's record ``x`` and the synthetic table ``Z`` and must decide whether
    ``x`` was in the training data ``Y``. We play the game on records whose answer we know: *members* are the
    real training rows (``Y``, or an equal-size seeded sample of it) and *non-members* are holdout rows
    (``H``, or half of it when the other half serves as the attacker's reference set ``R``). Each attack gives
    every record a score (higher = "member"); how well the score separates the two groups is the risk.

    Scores:

    (a) ``mia_distance``   ``s(x) = −d(x, Z)``, the distance in E to the closest synthetic row;
    (b) ``mia_calibrated`` ``s(x) = log max(d(x, R), τ) − log max(d(x, Z), τ)``: how many times closer ``x`` is to ``Z``
        than to real people in general (Chen et al., GAN-Leaks, calibrated attack, calibrated by ratio).

    Reported (:func:`~privcore.metrics.membership._base.attack_summary`): ROC AUC (``raw``), TPR at FPR 1 % and
    10 %, the membership advantage ``max(TPR − FPR)`` (``risk``), seeded percentile-bootstrap 95 % intervals
    (resampling members and non-members separately), and the ROC curve. Who plays member, non-member and reference,
    and from which draws, and the rest of the machinery every membership attack shares:
    :mod:`privcore.metrics.membership._base`.
    """
    d_real = ctx.neighbours("E", "real", "synthetic").d1
    d_hold = ctx.neighbours("E", "holdout", "synthetic").d1
    tolerance = ctx.extremes("E", "real", "synthetic").tie_tolerance
    return AttackScores(-d_real, -d_hold[sets.nonmembers], tolerance, {"tie_tolerance": tolerance}, {"space": "E"})




# -------------------------------------------------------------------------------------- registration

_BLIND_DISTANCE = (
    "Distance treats every column alike, so a unique value (the DCR-Delusion example: the only person born in "
    "Holland-Netherlands, reproduced in synthetic rows that are not close to that person) leaks membership "
    "without moving the distance; a single attack also only gives a lower bound on what stronger attacks "
    "(shadow models, TAPAS) can do."
)

register(
    MetricInfo(
        id="mia_distance",
        scorer=Scorer(distance_scores),
        order=270,
        cost=(0.64, 1.0),
        assumption="distance",
        name="Membership inference: distance to closest synthetic record",
        summary="Can an attacker tell training records from other real people by how close they are to the "
        "synthetic data?",
        attacker_knows="The synthetic table and the full record of the person under suspicion.",
        reference=f"{REFERENCE_MIA}; distance attack as in Chen et al., GAN-Leaks (CCS 2020); the DCR-Delusion "
        "paper (Yao et al. 2025) on why attacks, not distance tests, measure privacy.",
        explanation=Explanation(
            attack="The attacker guesses that a person was in the training data when some synthetic row is very "
            "close to their record.",
            steps=attack_steps("Score each person by minus the distance from their record to the closest synthetic "
                               "row."),
            high="Training records sit much closer to the synthetic rows than other real people do: the synthetic "
            "data gives away who was in the training data.",
            low="Close synthetic rows are no more common for training records than for other people: this attack "
            "learns nothing about membership.",
            blind_spots=_BLIND_DISTANCE,
            note=MIA_NOTE + "; distances in E; risk is the advantage max(TPR − FPR) and raw the ROC AUC.",
        ),
        compute=compute_mia_distance,
        passes=(('E', 'real', 'synthetic'), ('E', 'holdout', 'synthetic')),
        details_type=MembershipScores,
        space="E",
        figures=("famd_map",),
        params=COMMON_PARAMS,
        **COMMON_INFO,
    )
)

register(
    MetricInfo(
        id="mia_calibrated",
        scorer=Scorer(calibrated_scores),
        order=280,
        cost=(0.3, 1.3),
        assumption="distance",
        name="Membership inference: calibrated distance",
        summary="Like the distance attack, but discounting people who are close to everyone (typical records).",
        attacker_knows="The synthetic table, the suspect's record, and a reference sample of other real people "
        "from the same population.",
        reference=f"{REFERENCE_MIA}; calibrated attack of Chen et al., GAN-Leaks (CCS 2020).",
        explanation=Explanation(
            attack="Typical people are close to many records, synthetic or not; the attacker only suspects "
            "membership when a record is closer to the synthetic data than to comparable real people.",
            steps=attack_steps("Score each person by their distance to the closest reference person minus their "
                               "distance to the closest synthetic row."),
            high="Training records are close to the synthetic data in a way real people in general are not: the "
            "generator reproduces its training records.",
            low="Once typicality is accounted for, training records are not closer to the synthetic data than "
            "other people.",
            blind_spots=_BLIND_DISTANCE,
            note=MIA_NOTE + "; without a user reference table the holdout is split into two seeded halves, "
            "non-members and reference.",
        ),
        compute=compute_mia_calibrated,
        passes=(('E', 'real', 'synthetic'), ('E', 'holdout', 'synthetic')),
        details_type=MembershipScores,
        space="E",
        params=(*COMMON_PARAMS, REFERENCE),
        **COMMON_INFO,
    )
)
