"""What every membership attack shares (metrics.md §3).

Who plays member, non-member and reference, the ROC summary of one attack, the parameters and registry texts, the
evaluation-wide cache of attack scores and the metric output built from them, and the machinery that more than one
attack reads (kernel densities, Gen-LRA's standardised space, the halves of ``mia_best`` and cross-fitting within them).
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from privcore.base import (
    InputError,
    NotApplicable,
    bootstrap_replicates,
    percentile_interval,
    roc_auc,
    roc_curve,
    roc_statistics,
)
from privcore.data import NUMERICAL, Param
from privcore.data.prepare import prepare
from privcore.engine import MetricContext, map_on_cluster, nearest_k, nearest_two
from privcore.metrics import registry
from privcore.metrics.classifier import make_lgbm
from privcore.metrics.details import MembershipScores
from privcore.metrics.results import MetricOutput

# ---------------------------------------------------------------------------------------- the ROC summary


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
    """:func:`attack_summary`'s flat keys as :class:`~privcore.metrics.details.MembershipScores` fields.

    The ``tpr_at_<fpr>`` values and their ``tpr_at_<fpr>_interval`` go into ``tpr_at`` and ``tpr_at_interval``, keyed by
    the FPR as written in the key (``"0.01"``, ``"0.1"``).
    """
    fields: dict = {"tpr_at": {}, "tpr_at_interval": {}}
    for key, value in summary.items():
        if key.startswith("tpr_at_") and key.endswith("_interval"):
            fields["tpr_at_interval"][key[len("tpr_at_"):-len("_interval")]] = value
        elif key.startswith("tpr_at_"):
            fields["tpr_at"][key[len("tpr_at_"):]] = value
        else:
            fields[key] = value
    return fields


# -------------------------------------------------------------------------------------------------- roles


@dataclass
class MembershipSets:
    """Who plays member, non-member and reference in one attack.

    Attributes
    ----------
    members : numpy.ndarray
        Positions in the real table.
    nonmembers : numpy.ndarray
        Positions in the holdout.
    reference : numpy.ndarray or None
        Positions in the holdout used as the reference set ``R`` (None: no reference or a user table).
    warnings : list of str
    """

    members: np.ndarray
    nonmembers: np.ndarray
    reference: np.ndarray | None = None
    warnings: list[str] = field(default_factory=list)


def membership_sets(n_real: int, n_holdout: int, seed: int, split_holdout: bool) -> MembershipSets:
    """Seeded choice of members, non-members and (optionally) a holdout-half reference set.

    Parameters
    ----------
    n_real, n_holdout : int
        Rows of ``Y`` and ``H``.
    seed : int
        Seed of ``numpy.random.default_rng``.
    split_holdout : bool
        Split ``H`` into non-members (first ``n_holdout // 2`` positions of a permutation) and ``R``.

    Returns
    -------
    MembershipSets
        Members and non-members of equal size (the larger pool sampled without replacement).

    Examples
    --------
    >>> s = membership_sets(4, 4, 0, split_holdout=True)
    >>> len(s.members), len(s.nonmembers), len(s.reference)
    (2, 2, 2)
    """
    rng = np.random.default_rng(seed)
    reference = None
    nonmembers = np.arange(n_holdout)
    if split_holdout:
        perm = rng.permutation(n_holdout)
        half = n_holdout // 2
        nonmembers, reference = np.sort(perm[:half]), np.sort(perm[half:])
    members = np.arange(n_real)
    size = min(len(members), len(nonmembers))
    warnings = []
    if len(members) > size:
        members = np.sort(rng.choice(members, size=size, replace=False))
        warnings.append(f"{size} of the {n_real} training rows, drawn at random, play the members (as many as "
                        "there are non-members).")
    elif len(nonmembers) > size:
        total = len(nonmembers)
        nonmembers = np.sort(rng.choice(nonmembers, size=size, replace=False))
        warnings.append(f"{size} of the {total} holdout rows available as non-members, drawn at random, play the "
                        "non-members (as many as there are training rows).")
    return MembershipSets(members, nonmembers, reference, warnings)


def require_holdout(ctx: MetricContext, minimum: int) -> None:
    """Raise NotApplicable unless the evaluation has a holdout of at least ``minimum`` rows."""
    if ctx.holdout is None or len(ctx.holdout) < minimum:
        raise NotApplicable(
            f"needs a holdout table with at least {minimum} rows (real records not used for training)."
        )


def _user_reference(ctx: MetricContext, table: Any = None) -> pd.DataFrame | None:
    """The user's reference table, prepared like the others (None when not given)."""
    table = ctx.params.get("reference") if table is None else table
    if table is None:
        return None
    if not isinstance(table, pd.DataFrame):
        raise InputError("The reference table must be a table of real records with the analysed columns.")
    schema = ctx.schema.with_changes(pairing=None)
    prepared = prepare(table, table, schema, names={"real": "reference", "synthetic": "reference"}).real
    if len(prepared) == 0:
        raise NotApplicable("the reference table has no usable rows.")
    return prepared


@dataclass(frozen=True)
class Reference:
    """The attacker's reference set ``R``: positions in the holdout, or the user's own table.

    Attributes
    ----------
    positions : numpy.ndarray or None
        Positions in the holdout (None for a user table).
    table : pandas.DataFrame or None
        The prepared user table (None for a holdout half).
    described : str
        ``R`` in words, for the report.
    """

    positions: np.ndarray | None
    table: pd.DataFrame | None
    described: str

    def __len__(self) -> int:
        return len(self.positions) if self.table is None else len(self.table)

    def encoded(self, ctx: MetricContext, space: str) -> np.ndarray:
        """``R`` in ``space`` (the holdout's cached encoding, or the user table's, once per evaluation)."""
        if self.table is None:
            return ctx.encoded(space, "holdout")[self.positions]
        return ctx.shared.cached(("reference encoded", id(self.table), space),
                                 lambda: ctx.space(space).transform(self.table))


def membership_roles(ctx: MetricContext, table: Any = None) -> tuple[MembershipSets, Reference]:
    """Members, non-members and ``R`` of the attacks that use a reference (one choice per evaluation).

    ``table`` is the user's reference table (default: the ``reference`` parameter of ``ctx``); without
    one, ``H`` is split in two seeded halves (:func:`membership_sets`).

    Notes
    -----
    **Roles.** *Members* are the real training rows (``Y``, or an equal-size seeded sample of it) and
    *non-members* are holdout rows (``H``, or half of it when the other half serves as the attacker's reference set
    ``R``). Sampling, all from ``numpy.random.default_rng(seed)`` in this order: (1) when ``R`` comes from the
    holdout, ``rng.permutation(|H|)``: the first ``|H| // 2`` positions are non-members, the rest ``R``; (2) when
    the member and non-member pools differ in size, the larger pool is cut to the smaller size with
    ``rng.choice(pool, size, replace=False)`` (positions then sorted).
    """
    table = ctx.params.get("reference") if table is None else table

    def choose():
        user = _user_reference(ctx, table)
        sets = membership_sets(len(ctx.real), len(ctx.holdout), ctx.seed, split_holdout=user is None)
        if user is None:
            return sets, Reference(sets.reference, None,
                                   f"half of the holdout ({len(sets.reference)} rows, seeded split)")
        return sets, Reference(None, user, f"user reference table ({len(user)} rows)")

    return ctx.shared.cached(("membership roles", ctx.seed, ctx.is_baseline, id(table) if table is not None
                              else None), choose)


# ---------------------------------------------------- parameters, texts, the shared scores and the output


#: Defaults of :data:`COMMON_PARAMS`.
DEFAULT_PARAMS = {"n_boot": 1000, "confidence": 0.95}

#: The parameters every membership attack takes.
COMMON_PARAMS = (
    Param("n_boot", "int", DEFAULT_PARAMS["n_boot"], "Bootstrap replicates",
          "Resamples behind the confidence intervals of the AUC, TPR and advantage; 0 skips the intervals "
          "(faster).", minimum=0, maximum=20_000, step=100),
    Param("confidence", "float", DEFAULT_PARAMS["confidence"], "Confidence level",
          "Coverage of the bootstrap intervals (0.95 = 95 % intervals).", minimum=0.5, maximum=0.999, step=0.005),
)
REFERENCE = Param("reference", "table", None, "Reference table",
                  "Real people of the same population who are neither training nor holdout records; without it, "
                  "half of the holdout serves as the reference.")

#: The choice note every membership attack's explanation starts with.
MIA_NOTE = (
    "Choice: members are the training rows and non-members the holdout rows, the larger group cut at random to "
    "the size of the smaller one"
)


#: The literature every membership attack cites.
REFERENCE_MIA = "Shokri et al. 2017 (membership inference); for synthetic data Stadler et al. 2022"


def attack_steps(score: str) -> tuple[str, ...]:
    """The explanation's steps of a membership attack, around its own scoring step ``score``."""
    return (
        "Take real people whose answer is known: training records (members) and holdout records (non-members).",
        score,
        "Rank everyone by the score and check how well the ranking puts members first: ROC AUC, and the largest "
        "gap between the share of members caught and of non-members wrongly accused (the advantage).",
    )


#: The registry fields every membership attack declares alike (``MetricInfo(**COMMON_INFO, ...)``).
COMMON_INFO = dict(
    family="Membership inference",
    needs=frozenset({"holdout"}),
    per_record_unit="real",
    raw_meaning="ROC AUC of the attack: 0.5 = no better than guessing, 1 = tells every member from every "
    "non-member.",
    min_rows=1,
    baseline=False,
    interval_kind="bootstrap",
)


@dataclass(frozen=True)
class AttackScores:
    """One attack's scores in one evaluation, higher = judged more likely a member.

    Attributes
    ----------
    real : numpy.ndarray
        The score of every real training row (the members are some of them).
    nonmembers : numpy.ndarray
        The score of each non-member, in the order of ``MembershipSets.nonmembers``.
    tolerance : float
        Scores closer than this are tied (:func:`~privcore.metrics.membership._base.snap_ties`).
    details : dict
        Extra :class:`~privcore.metrics.details.MembershipScores` fields (bandwidths, reference…).
    params : dict
        Settings the scores depend on, for the report.
    warnings : tuple of str
    """

    real: np.ndarray
    nonmembers: np.ndarray
    tolerance: float = 0.0
    details: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    #: For an attack that learns from the labels: every real row's and non-member's score from a model trained on
    #: the other half of ``mia_best``'s split (:func:`crossfit_within_halves`), which ``mia_best`` counts; None for
    #: the attacks whose scores no label shaped.
    across_halves: tuple[np.ndarray, np.ndarray] | None = None


#: ``score(ctx, sets, reference, params) -> AttackScores``.
ScoreFunction = Callable[[MetricContext, MembershipSets, Reference, Mapping], AttackScores]


@dataclass(frozen=True)
class Scorer:
    """How to score records for one attack of the battery, and which parameters the scores depend on."""

    score: ScoreFunction
    param_names: tuple[str, ...] = ()


def attack_scores(ctx: MetricContext, attack_id: str, params: Mapping, reference_table: Any = None) -> AttackScores:
    """The scores of attack ``attack_id`` on the shared members, non-members and ``R``, once per evaluation.

    The attack's own metric and ``mia_best`` both call this; whichever runs first computes, the other
    reads the cached scores (same seed, same settings, same reference), so no attack runs twice.

    Notes
    -----
    **Scores and their summary.** Each attack gives every record a score (higher = "member");
    :func:`attack_scores` computes one attack's scores once per evaluation (the attack's own metric and
    ``mia_best`` read the same ones), and :func:`attack_output` turns members' and non-members' scores into the
    metric's result with :func:`attack_summary`: ROC AUC, TPR at FPR 1 % and 10 %, the membership advantage
    ``max(TPR − FPR)``, seeded percentile-bootstrap intervals of each (members and non-members resampled
    separately, from ``numpy.random.default_rng(seed)``) and the ROC curve, all from :mod:`privcore.base.stats`.
    """
    scorer = registry.get(attack_id).scorer
    table = params.get("reference") if reference_table is None else reference_table
    settings = tuple((name, _hashable(params.get(name))) for name in scorer.param_names)
    key = ("membership scores", attack_id, ctx.seed, ctx.is_baseline, id(table) if table is not None else None,
           settings)

    def compute() -> AttackScores:
        sets, reference = membership_roles(ctx, table)
        return scorer.score(ctx, sets, reference, params)

    return ctx.shared.cached(key, compute)


def battery_settings(ctx: MetricContext, attack_id: str, reference_table: Any = None) -> dict:
    """Attack ``attack_id``'s parameters as this evaluation runs it, with the caller's reference table.

    Its defaults when it was not chosen; with the caller's reference table, so that every attack a combining metric
    reads plays on the same ``R`` and reads the same cached scores as the attack's own metric.
    """
    settings = dict(ctx.shared.metric_params.get(attack_id) or registry.get(attack_id).default_params)
    settings["reference"] = reference_table
    return settings


def _hashable(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


def output_from_scores(ctx: MetricContext, attack_id: str) -> MetricOutput:
    """A reference-using attack's metric output from its (shared) scores."""
    scores = attack_scores(ctx, attack_id, ctx.params)
    sets, _ = membership_roles(ctx)
    return attack_output(ctx, sets, scores.real[sets.members], scores.nonmembers, scores.real,
                         tolerance=scores.tolerance, details=dict(scores.details), params=dict(scores.params),
                         warnings=list(scores.warnings))


def shared_attack_summary(ctx: MetricContext, member_scores, nonmember_scores, tolerance: float, n_boot: int,
                          confidence: float) -> dict:
    """:func:`attack_summary` of these scores with the evaluation's seed, computed once per evaluation.

    An attack's own metric and ``mia_best`` summarise the same scores with the same bootstrap, which at 10,000 members
    and non-members is most of an attack's time. Keyed on the scores' bytes, so equal inputs, and only they, share one
    summary (treat it as read-only).

    Parameters
    ----------
    ctx : MetricContext
        The metric's context.
    member_scores, nonmember_scores : numpy.ndarray
        Attack scores (higher = "member").
    tolerance : float
        Scores closer than this are tied.
    n_boot : int
        Bootstrap replicates.
    confidence : float
        Coverage of the intervals.

    Returns
    -------
    dict
        As :func:`attack_summary`.
    """
    member_scores = np.ascontiguousarray(member_scores, dtype=float)
    nonmember_scores = np.ascontiguousarray(nonmember_scores, dtype=float)
    digest = hashlib.blake2b(member_scores.tobytes(), digest_size=16)
    digest.update(b"|" + nonmember_scores.tobytes())
    key = ("attack summary", len(member_scores), digest.hexdigest(), float(tolerance), int(n_boot), float(confidence),
           ctx.seed)
    # The threads change nothing in the summary, so they are not part of the key.
    return ctx.shared.cached(key, lambda: attack_summary(member_scores, nonmember_scores, tolerance=tolerance,
                                                         n_boot=n_boot, confidence=confidence, seed=ctx.seed,
                                                         threads=ctx.workers))


def attack_output(ctx: MetricContext, sets: MembershipSets, member_scores, nonmember_scores, per_record, *,
                  tolerance: float, details: dict, params: dict, warnings: list[str]) -> MetricOutput:
    """An attack's metric output: its ROC summary as :class:`~privcore.metrics.details.MembershipScores`.

    The ROC summary is :func:`attack_summary`; risk = the advantage, raw = the AUC.

    ``n_boot`` and ``confidence`` come from ``ctx.params``, already checked against their declarations
    (:data:`COMMON_PARAMS`) by :func:`privcore.data.params.check_value`.
    """
    n_boot = int(ctx.params.get("n_boot", DEFAULT_PARAMS["n_boot"]))
    confidence = float(ctx.params.get("confidence", DEFAULT_PARAMS["confidence"]))
    summary = shared_attack_summary(ctx, member_scores, nonmember_scores, tolerance, n_boot, confidence)
    details = MembershipScores(
        **summary_fields(summary),
        **details,
        member_scores=np.asarray(member_scores, dtype=float),
        nonmember_scores=np.asarray(nonmember_scores, dtype=float),
        member_positions=sets.members,
        nonmember_positions=sets.nonmembers,
        n_members=len(sets.members),
        n_nonmembers=len(sets.nonmembers),
        per_record_meaning="the attack score of each real training row (higher = judged more likely a member)",
    )
    return MetricOutput(
        risk=details.advantage,
        raw=details.auc,
        per_record=np.asarray(per_record, dtype=float),
        details=details,
        params={**params, "n_boot": n_boot, "confidence": confidence, "seed": ctx.seed},
        interval=details.advantage_interval,
        warnings=sets.warnings + warnings,
    )


# --------------------------------------------------------------------- kernel densities (DOMIAS, Gen-LRA)


#: Degrees of freedom of the Student-t kernel: 1 = Cauchy. Heavy tails keep the density ratio free of the
#: local scale of the data (a Gaussian kernel turns it into a difference of squared distances, which
#: lets a non-member in a sparse region outscore a copied member in a dense one).
KERNEL_TAIL = 1.0


#: Coarse candidate bandwidths, as multiples of the median nearest-neighbour distance between distinct
#: rows; the best one is then refined on a finer grid between its two neighbours.
BANDWIDTH_GRID = np.logspace(-4.0, 0.5, 10)


REFINE_POINTS = 9


#: Held-out rows scored when a bandwidth is chosen.
MAX_HELD_OUT = 1000


def t_kde_logpdf(data: np.ndarray, query: np.ndarray, bandwidths, *, tail: float = KERNEL_TAIL,
                 chunk_elements: int = 2**22) -> np.ndarray:
    """Log density of isotropic Student-t kernel density estimates at ``query``, in chunks.

    ``p(x) = (1/n) Σ_i t_ν(‖x − x_i‖ / h) / h^D`` with the D-variate Student-t density
    ``t_ν(u) = Γ((ν+D)/2) / (Γ(ν/2) (νπ)^{D/2}) · (1 + u²/ν)^{−(ν+D)/2}``, one column per bandwidth.

    Parameters
    ----------
    data : numpy.ndarray
        Shape (n, D): the rows the density is fitted on.
    query : numpy.ndarray
        Shape (m, D).
    bandwidths : float or sequence of float
        Kernel scales ``h`` (> 0).
    tail : float
        Degrees of freedom ν of the kernel.
    chunk_elements : int
        Distances held at once.

    Returns
    -------
    numpy.ndarray
        Shape (m, len(bandwidths)), natural-log densities.

    Examples
    --------
    >>> from scipy.stats import cauchy
    >>> x = np.array([[0.0], [2.0]])
    >>> got = t_kde_logpdf(x, np.array([[1.0]]), [0.5])[0, 0]
    >>> bool(np.isclose(got, np.log(0.5 * cauchy.pdf(1.0, scale=0.5) + 0.5 * cauchy.pdf(-1.0, scale=0.5))))
    True
    """
    data, query = np.asarray(data, dtype=float), np.asarray(query, dtype=float)
    h = np.atleast_1d(np.asarray(bandwidths, dtype=float))
    # Imported here: scipy (even scipy.special alone) costs about 0.2 s at start-up and the module is imported by
    # every evaluation to register its metrics.
    from scipy.special import gammaln

    n, dims = data.shape
    power = -(tail + dims) / 2
    constant = (gammaln((tail + dims) / 2) - gammaln(tail / 2) - dims / 2 * np.log(tail * np.pi) - np.log(n)
                - dims * np.log(h))
    out = np.empty((len(query), len(h)))
    for rows, d2 in squared_distance_blocks(query, data, chunk_elements):
        nearest = d2.min(axis=1)
        for j, scale in enumerate(h):
            out[rows, j] = _log_kernel_sum(d2, nearest, 1.0 / (tail * scale * scale), power)
    return out + constant


def squared_distance_blocks(query: np.ndarray, data: np.ndarray, chunk_elements: int):
    """Yield ``(rows, d2)``: a slice of query rows and their squared Euclidean distances to every data row.

    Distances are clipped at 0 against rounding, at most about ``chunk_elements`` of them at a time. Shared by the
    kernel density estimates, which need every distance, not only the nearest.
    """
    sq_data = np.einsum("ij,ij->i", data, data)
    step = max(1, chunk_elements // max(len(data), 1))
    for start in range(0, len(query), step):
        block = query[start : start + step]
        # (|q|² + |x|²) − 2·q·x with the same roundings as that expression, in two blocks instead of four
        # (doubling is exact, so doubling the product in place changes no value).
        twice = block @ data.T
        twice *= 2.0
        d2 = np.einsum("ij,ij->i", block, block)[:, None] + sq_data[None, :]
        d2 -= twice
        del twice
        np.maximum(d2, 0.0, out=d2)
        yield slice(start, start + len(block)), d2


#: Kernel terms below e^−40 times a row's largest term are left out of its sum: with at most 10^4·n terms
#: that changes no density by more than a relative 10^−13, and with many dimensions it skips most terms.
NEGLIGIBLE_LOG_RATIO = 40.0


def _log_kernel_sum(d2: np.ndarray, nearest: np.ndarray, inverse_scale: float, power: float) -> np.ndarray:
    """``log Σ_j (1 + d2[i, j]·c)^power`` per row, summing only the terms that are not negligible.

    The largest term of a row is the nearest point's; a term is kept when its log is within
    :data:`NEGLIGIBLE_LOG_RATIO` of it, i.e. when ``1 + d2·c ≤ (1 + nearest·c)·e^{40/|power|}``.
    """
    peak = power * np.log1p(nearest * inverse_scale)
    limit = ((1.0 + nearest * inverse_scale) * np.exp(NEGLIGIBLE_LOG_RATIO / -power) - 1.0) / inverse_scale
    # The kept terms row by row, as a boolean mask takes them (the order of nonzero's pairs), with the same
    # operations in place: 2,000 × 5,000 distances 0.72 -> 0.14 s against pairs of positions and their gather.
    kept = d2 <= limit[:, None]
    counts = np.count_nonzero(kept, axis=1)
    terms = d2[kept]
    terms *= inverse_scale
    np.log1p(terms, out=terms)
    terms *= power
    terms -= np.repeat(peak, counts)
    np.exp(terms, out=terms)
    return np.log(np.bincount(np.repeat(np.arange(len(d2)), counts), weights=terms, minlength=len(d2))) + peak


def held_out_bandwidth(data: np.ndarray, rng: np.random.Generator, *, chunk_elements: int = 2**22,
                       what: str = "the synthetic", logpdf: Callable = t_kde_logpdf) -> tuple[float, float]:
    """The kernel bandwidth of ``logpdf`` (default :func:`t_kde_logpdf`) with the largest held-out log-likelihood.

    The distinct rows of ``data`` are split at random in two halves; the density is fitted on one and
    scored on (at most :data:`MAX_HELD_OUT` rows of) the other, for every bandwidth of
    :data:`BANDWIDTH_GRID` times the median distance from a held-out row to its nearest fitted row, then
    on :data:`REFINE_POINTS` bandwidths between the best one's two neighbours.
    Distinct rows, because an exact duplicate across the halves makes the held-out likelihood grow
    without bound as the bandwidth shrinks.

    Returns
    -------
    bandwidth : float
    log_likelihood : float
        Its held-out log-likelihood.

    Raises
    ------
    NotApplicable
        With fewer than four distinct rows.
    """
    distinct = np.unique(np.asarray(data, dtype=float), axis=0)
    if len(distinct) < 4:
        raise NotApplicable(f"needs at least 4 distinct rows in {what} table to choose a density bandwidth.")
    perm = rng.permutation(len(distinct))
    half = len(distinct) // 2
    fit, held = distinct[perm[:half]], distinct[perm[half:]][:MAX_HELD_OUT]
    nearest = nearest_two(held, fit, chunk_elements=chunk_elements)[0].d1
    base = float(np.median(nearest[nearest > 0])) if np.any(nearest > 0) else 1.0
    coarse = base * BANDWIDTH_GRID
    scores = logpdf(fit, held, coarse, chunk_elements=chunk_elements).sum(axis=0)
    best = int(np.argmax(scores))
    low, high = coarse[max(best - 1, 0)], coarse[min(best + 1, len(coarse) - 1)]
    fine = np.geomspace(low, high, REFINE_POINTS)
    fine_scores = logpdf(fit, held, fine, chunk_elements=chunk_elements).sum(axis=0)
    pick = int(np.argmax(fine_scores))
    return float(fine[pick]), float(fine_scores[pick])


# ----------------------------------------------- Gen-LRA's standardised space (Gen-LRA, learned, stacked)


#: Default number of neighbours of Gen-LRA and DPI (Synth-MIA's default for both).
DEFAULT_K = 20


def scored_records(ctx: MetricContext, space: str, sets: MembershipSets) -> np.ndarray:
    """Every real row, then each non-member, encoded in ``space`` (the records the attacks score)."""
    return np.vstack([ctx.encoded(space, "real"), ctx.encoded(space, "holdout")[sets.nonmembers]])


def standardised_factors(ctx: MetricContext) -> np.ndarray:
    """Per-coordinate factors that turn E into Gen-LRA's space: numbers in units of their standard deviation.

    Each numerical coordinate of E (min–max scaled on ``Y``) is divided by its population standard
    deviation on ``Y``, which makes it the z-score of the column up to a shift; one-hot and binary
    coordinates keep their 0/1 values. This is the encoding of the published battery (Synth-MIA: standard
    scaling and one-hot). Columns constant in ``Y`` are already absent from E.
    """
    real = ctx.encoded("E", "real")
    if real.shape[1] == 0:
        raise NotApplicable("every column is constant in the real table, so there is no density to compare.")
    factors = np.ones(real.shape[1])
    for block in ctx.space("E").blocks:
        if ctx.schema.types[block.column] == NUMERICAL:
            sd = float(real[:, block.start].std())
            if sd > 0:
                factors[block.start] = 1.0 / sd
    return factors


def standardised_synthetic_neighbours(ctx: MetricContext, sets: MembershipSets, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Distances and indices of the ``k`` synthetic rows nearest to every real row and each non-member.

    In Gen-LRA's space (:func:`standardised_factors`), one pass per evaluation for Gen-LRA and the learned attack.

    At least :data:`DEFAULT_K` neighbours are found and kept, so the attack asking second reads the first
    ``k`` columns (nearest first, lowest index among ties: the same as a pass for ``k`` alone).
    """
    synthetic = ctx.encoded("E", "synthetic")
    found = ctx.shared.cached(("standardised records→synthetic", ctx.is_baseline,
                               np.asarray(sets.nonmembers).tobytes()), dict)
    if found.get("k", 0) < min(k, len(synthetic)):
        factors = standardised_factors(ctx)
        wanted = min(max(k, DEFAULT_K), len(synthetic))
        near = nearest_k(scored_records(ctx, "E", sets) * factors, synthetic * factors, wanted,
                         chunk_elements=ctx.shared.chunk_elements, label="records→synthetic (standardised)")
        found.update(k=wanted, distance=near.distance, index=near.index)
    return found["distance"][:, :k], found["index"][:, :k]


# -------------------------------- the halves of mia_best and cross-fitting within them (learned, stacked)


def seeded_halves(n_members: int, n_nonmembers: int, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Step 1 of :mod:`privcore.metrics.membership.best`'s docstring: the halves A and B of members and non-members.

    Returns
    -------
    dict
        ``{"A": (member positions, non-member positions), "B": (…)}``, positions in the order of
        :class:`~privcore.metrics.membership._base.MembershipSets` ``members`` and ``nonmembers``. The learned
        attack (:mod:`privcore.metrics.membership.learned`) trains within these halves, so it never learns
        from the half it is judged on.

    Examples
    --------
    >>> h = seeded_halves(5, 4, 0)
    >>> [len(h["A"][0]), len(h["A"][1]), len(h["B"][0]), len(h["B"][1])]
    [2, 2, 3, 2]
    """
    rng = np.random.default_rng([seed, 7])
    perm_m, perm_n = rng.permutation(n_members), rng.permutation(n_nonmembers)
    return {"A": (perm_m[: n_members // 2], perm_n[: n_nonmembers // 2]),
            "B": (perm_m[n_members // 2 :], perm_n[n_nonmembers // 2 :])}


#: Neighbours in ``Z`` and in ``R`` whose distances describe a record.
DEFAULT_FEATURE_NEIGHBOURS = 5


#: Folds within each half of ``mia_best`` (fewer when a half has fewer members or non-members).
INNER_FOLDS = 5


def stratified_folds(members: np.ndarray, nonmembers: np.ndarray, folds: int, rng: np.random.Generator
                     ) -> list[np.ndarray]:
    """Seeded stratified folds of one half: fold ``f`` holds every ``folds``-th member and non-member of a random order.

    So each fold has members and non-members in the half's proportion.

    Parameters
    ----------
    members, nonmembers : numpy.ndarray
        Row numbers (of the feature matrix) of the half's members and non-members.
    folds : int
        At most the smaller of the two counts.
    rng : numpy.random.Generator

    Returns
    -------
    list of numpy.ndarray
        Row numbers of each fold.

    Examples
    --------
    >>> parts = stratified_folds(np.arange(4), np.arange(4, 8), 2, np.random.default_rng(0))
    >>> [int((p < 4).sum()) for p in parts], sorted(int(v) for p in parts for v in p) == list(range(8))
    ([2, 2], True)
    """
    order_m, order_n = rng.permutation(members), rng.permutation(nonmembers)
    return [np.r_[order_m[f::folds], order_n[f::folds]] for f in range(folds)]


def small_lgbm(seed: int, n_train: int, settings: Mapping):
    """A seeded LightGBM classifier with ``settings`` and leaves sized for ``n_train`` labelled records."""
    # LightGBM's default of 20 rows per leaf cannot split a small table's few labelled records at all.
    leaf_rows = int(np.clip(n_train // 20, 2, 20))
    return make_lgbm(seed).set_params(**settings, min_child_samples=leaf_rows, min_data_in_bin=min(3, leaf_rows))


def fit_and_score(features, labels, train, score_rows, extra_rows, seed, settings):
    """One fold of :func:`crossfit_within_halves`: a LightGBM model (:func:`small_lgbm`) trained on the rows ``train``.

    Its probability of "member" at ``score_rows`` and at ``extra_rows``.
    """
    model = small_lgbm(seed, len(train), settings)
    model.fit(features[train], labels[train])
    scored = model.predict_proba(features[score_rows])[:, 1]
    extra = model.predict_proba(features[extra_rows])[:, 1] if len(extra_rows) else np.empty(0)
    return scored, extra


def learned_features(ctx: MetricContext, sets: MembershipSets, reference: Reference, k: int) -> np.ndarray:
    """Distances from every real row, then each non-member, to its ``k`` nearest synthetic and reference rows.

    To its ``k`` nearest synthetic rows and its ``k`` nearest reference rows, in Gen-LRA's space; one search per
    evaluation (the learned and the stacked attack both read it).

    Returns
    -------
    numpy.ndarray
        Shape (|Y| + |N|, 2·k) at most (``k`` capped at each table's size): synthetic distances first.
    """
    factors = standardised_factors(ctx)
    synthetic = ctx.encoded("E", "synthetic")
    fitted = reference.encoded(ctx, "E") * factors
    if len(synthetic) < 1 or len(fitted) < 1:
        raise NotApplicable("needs at least one synthetic and one reference row to measure distances to.")

    def compute() -> np.ndarray:
        to_synthetic, _ = standardised_synthetic_neighbours(ctx, sets, min(k, len(synthetic)))
        to_reference = nearest_k(scored_records(ctx, "E", sets) * factors, fitted, min(k, len(fitted)),
                                 chunk_elements=ctx.shared.chunk_elements, workers=ctx.workers,
                                 label="records→reference (learned attack)").distance
        return np.c_[to_synthetic, to_reference]

    return ctx.shared.cached(("learned features", ctx.is_baseline, id(reference.table) if reference.table is not None
                              else None, k,
                              np.asarray(sets.nonmembers).tobytes()), compute)


def crossfit_within_halves(ctx: MetricContext, features: np.ndarray, sets: MembershipSets, settings: Any,
                           fold_tag: int, fit: Callable | None = None, folds: int = INNER_FOLDS
                           ) -> tuple[np.ndarray, int, np.ndarray]:
    """Scores of a model trained to tell members from non-members, cross-fitted within the halves of ``mia_best``.

    See :mod:`privcore.metrics.membership.learned`'s docstring: no record is scored by a model that saw its label.
    Besides, every member and non-member is scored by one model trained on the whole other half: what ``mia_best``
    counts on a half (:func:`privcore.metrics.membership.best.honest_splits`).

    Parameters
    ----------
    ctx : MetricContext
    features : numpy.ndarray
        One row per real row, then per non-member (the order of
        :func:`~privcore.metrics.membership._base.scored_records`).
    sets : MembershipSets
    settings
        The model's settings, passed to ``fit`` (for :func:`fit_and_score`: LightGBM settings; leaf sizes are
        set from the training size).
    fold_tag : int
        Seed tag of the fold assignment (``numpy.random.default_rng([seed, fold_tag])``).
    fit : callable, optional
        ``fit(features, labels, train, score_rows, extra_rows, seed, settings) -> (scores, extra scores)``,
        one fold; a module-level function, so that a cluster's workers can run it (default:
        :func:`fit_and_score`).
    folds : int
        Folds per half (fewer when a half has fewer members or non-members).

    Returns
    -------
    scores : numpy.ndarray
        Predicted probability of "member" for every row of ``features``; training rows that play no role get
        the mean prediction of every fold model.
    folds : int
        Folds per half.
    across : numpy.ndarray
        Every member's and non-member's score from the model trained on all of the other half (NaN for the
        training rows that play no role). Scores pooled over the folds of one half come from ten models whose
        errors the records of a fold share, so an AUC over them spreads more than a bootstrap of its records says
        (measured on 20 fresh Adult samples of 1,500 rows: the stacked attack's AUC spread 0.0186 where 0.0149 is
        expected); one model's scores of records it never saw are independent given the model, as the bootstrap
        of :func:`privcore.metrics.membership.best.held_out_intervals` assumes.
    """
    fit = fit_and_score if fit is None else fit
    n_real = len(ctx.real)
    member_rows = np.asarray(sets.members)
    nonmember_rows = n_real + np.arange(len(sets.nonmembers))
    labels = np.zeros(len(features), dtype=int)
    labels[member_rows] = 1
    unlabelled = np.setdiff1d(np.arange(n_real), member_rows)
    halves = seeded_halves(len(member_rows), len(nonmember_rows), ctx.seed)
    smallest = min(min(len(m), len(n)) for m, n in halves.values())
    if smallest < 2:
        raise NotApplicable("needs at least 4 members and 4 non-members, so that each half has two of each to learn "
                            "from some and score the others.")
    folds = min(folds, smallest)
    rng = np.random.default_rng([ctx.seed, fold_tag])
    tasks = []
    for half_members, half_nonmembers in halves.values():
        parts = stratified_folds(member_rows[half_members], nonmember_rows[half_nonmembers], folds, rng)
        for f, part in enumerate(parts):
            train = np.concatenate([p for g, p in enumerate(parts) if g != f])
            tasks.append((train, part, unlabelled))
    within = len(tasks)
    for this, other in (("A", "B"), ("B", "A")):  # one model per half, scoring the other half
        tasks.append((np.r_[member_rows[halves[other][0]], nonmember_rows[halves[other][1]]],
                      np.r_[member_rows[halves[this][0]], nonmember_rows[halves[this][1]]], unlabelled[:0]))
    # Fits are independent and LightGBM releases the GIL; each is seeded and single-threaded, so the scores
    # do not depend on how many run at once, nor on where (threads here, or a cluster's workers).
    if ctx.cluster is not None:
        results = map_on_cluster(ctx.cluster, fit, (features, labels),
                                 [(train, part, extra, ctx.seed, settings) for train, part, extra in tasks])
    else:
        with ThreadPoolExecutor(max_workers=max(1, min(ctx.workers, len(tasks)))) as pool:
            results = list(pool.map(
                lambda t: fit(features, labels, t[0], t[1], t[2], ctx.seed, settings), tasks))
    scores, across = np.full(len(features), np.nan), np.full(len(features), np.nan)
    for (_, part, _), (scored, _) in zip(tasks[:within], results[:within]):
        scores[part] = scored
    for (_, part, _), (scored, _) in zip(tasks[within:], results[within:]):
        across[part] = scored
    if len(unlabelled):
        scores[unlabelled] = np.mean([extra for _, extra in results[:within]], axis=0)
    return scores, folds, across
