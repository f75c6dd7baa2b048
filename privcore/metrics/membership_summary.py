"""How well an attack's scores separate members from non-members: the ROC summary of one attack.

Reported: ROC AUC, TPR at FPR 1 % and 10 %, the membership advantage ``max(TPR − FPR)``, seeded
percentile-bootstrap intervals of each (members and non-members resampled separately, from
``numpy.random.default_rng(seed)``) and the ROC curve, all from :mod:`privcore.base.stats`.
"""

from __future__ import annotations

import numpy as np

from privcore.base.roc import roc_auc, roc_curve, roc_statistics
from privcore.base.stats import bootstrap_replicates, percentile_interval
from privcore.metrics.results import NotApplicable

#: False-positive rates at which the true-positive rate is reported.
FPR_TARGETS = (0.01, 0.1)

#: Points kept of the ROC curve for the dashboard.
MAX_CURVE_POINTS = 500


def snap_ties(scores: np.ndarray, tolerance: float) -> np.ndarray:
    """Make scores that differ by at most ``tolerance`` exactly equal (metrics.md §0 tie rule).

    Sorted scores are chained into groups wherever consecutive gaps are ≤ ``tolerance``; each group takes its
    smallest value, so rounding noise in distances cannot split a tie.

    Examples
    --------
    >>> snap_ties(np.array([1.0, 1.0 + 1e-15, 2.0]), 1e-12).tolist()
    [1.0, 1.0, 2.0]
    """
    scores = np.asarray(scores, dtype=float)
    if tolerance <= 0 or len(scores) < 2:
        return scores.copy()
    order = np.argsort(scores, kind="stable")
    ordered = scores[order]
    starts = np.r_[True, np.diff(ordered) > tolerance]
    out = np.empty_like(scores)
    out[order] = ordered[starts][np.cumsum(starts) - 1]
    return out


def roc_statistics_batch(ranks: np.ndarray, labels: np.ndarray, n_levels: int) -> dict[str, np.ndarray]:
    """AUC, advantage and TPR at :data:`FPR_TARGETS` for many resamples at once, under the summary's names.

    Parameters
    ----------
    ranks : numpy.ndarray
        Shape (b, n): dense rank of each record's score (0 = lowest; equal scores, equal rank).
    labels : numpy.ndarray
        Shape (b, n): 1 = member, 0 = non-member; every row must hold both.
    n_levels : int
        Number of distinct ranks.

    Returns
    -------
    dict
        ``auc``, ``advantage`` and ``tpr_at_<fpr>`` arrays of length b, from
        :func:`privcore.base.stats.roc_statistics` (a tied member/non-member pair counts ½ in the AUC).
    """
    stats = roc_statistics(ranks, labels, n_levels, FPR_TARGETS)
    out = {"auc": stats.auc, "advantage": stats.advantage}
    for target in FPR_TARGETS:
        out[f"tpr_at_{target:g}"] = stats.tpr_at[target]
    return out


def _downsample_curve(fpr: np.ndarray, tpr: np.ndarray, keep: int) -> tuple[np.ndarray, np.ndarray]:
    """At most ``MAX_CURVE_POINTS`` points, keeping the ends and the point of maximal advantage."""
    if len(fpr) <= MAX_CURVE_POINTS:
        return fpr, tpr
    picks = np.unique(np.r_[np.linspace(0, len(fpr) - 1, MAX_CURVE_POINTS - 1).round().astype(int), keep])
    return fpr[picks], tpr[picks]


def attack_summary(
    member_scores: np.ndarray,
    nonmember_scores: np.ndarray,
    *,
    tolerance: float = 0.0,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    threads: int = 1,
) -> dict:
    """ROC AUC, TPR at FPR 1 % and 10 %, advantage, bootstrap intervals and the ROC curve of one attack.

    Parameters
    ----------
    member_scores, nonmember_scores : numpy.ndarray
        Attack scores (higher = "member").
    tolerance : float
        Scores closer than this are tied (:func:`snap_ties`).
    n_boot : int
        Bootstrap replicates (0: no intervals).
    confidence : float
        Coverage of the intervals.
    seed : int
        Bootstrap seed.
    threads : int
        Threads for the bootstrap's resamples (the same intervals for every count).

    Returns
    -------
    dict
        ``auc``, ``advantage``, ``tpr_at_0.01``, ``tpr_at_0.1``, each with an ``<name>_interval``; ``roc_fpr``,
        ``roc_tpr`` (≤ 500 points), ``n_boot``, ``confidence``.

    Examples
    --------
    >>> s = attack_summary(np.array([3.0, 2.0]), np.array([2.0, 1.0]), n_boot=0)
    >>> s["auc"], s["advantage"]
    (0.875, 0.5)
    """
    scores = snap_ties(np.r_[member_scores, nonmember_scores], tolerance)
    labels = np.r_[np.ones(len(member_scores), dtype=np.int8), np.zeros(len(nonmember_scores), dtype=np.int8)]
    if len(member_scores) == 0 or len(nonmember_scores) == 0:
        raise NotApplicable("needs at least one member and one non-member record.")
    # Point estimates on the full curve: every threshold kept, so TPR at FPR is exact.
    fpr, tpr, _ = roc_curve(labels, scores)
    gap = tpr - fpr
    summary = {
        "auc": roc_auc(labels, scores),
        "advantage": float(max(0.0, gap.max())),
        "roc_fpr": None,
        "roc_tpr": None,
    }
    for target in FPR_TARGETS:
        summary[f"tpr_at_{target:g}"] = float(tpr[fpr <= target].max())
    summary["roc_fpr"], summary["roc_tpr"] = _downsample_curve(fpr, tpr, int(np.argmax(gap)))
    summary["n_boot"] = int(n_boot)
    summary["confidence"] = float(confidence)
    names = ["auc", "advantage", *(f"tpr_at_{t:g}" for t in FPR_TARGETS)]
    if n_boot <= 0:
        for name in names:
            summary[f"{name}_interval"] = None
        return summary
    _, ranks = np.unique(scores, return_inverse=True)
    n_levels = int(ranks.max()) + 1

    def every_statistic(r, y):
        stats = roc_statistics_batch(r, y, n_levels)
        return np.column_stack([stats[name] for name in names])

    # One set of resamples for every statistic; members and non-members resampled apart (strata).
    replicates = bootstrap_replicates(every_statistic, ranks, labels, n_boot=n_boot, seed=seed, vectorized=True,
                                      strata=labels, threads=threads)
    for column, name in enumerate(names):
        summary[f"{name}_interval"] = percentile_interval(replicates[:, column], confidence)
    return summary


def summary_fields(summary: dict) -> dict:
    """:func:`attack_summary`'s flat keys as :class:`~privcore.metrics.details.MembershipScores` fields: the
    ``tpr_at_<fpr>`` values and their ``tpr_at_<fpr>_interval`` go into ``tpr_at`` and ``tpr_at_interval``,
    keyed by the FPR as written in the key (``"0.01"``, ``"0.1"``)."""
    fields: dict = {"tpr_at": {}, "tpr_at_interval": {}}
    for key, value in summary.items():
        if key.startswith("tpr_at_") and key.endswith("_interval"):
            fields["tpr_at_interval"][key[len("tpr_at_"):-len("_interval")]] = value
        elif key.startswith("tpr_at_"):
            fields["tpr_at"][key[len("tpr_at_"):]] = value
        else:
            fields[key] = value
    return fields
