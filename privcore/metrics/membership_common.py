"""What every membership attack shares: its parameters, its registry texts, the evaluation-wide cache of
attack scores, and the metric output built from them (metrics.md §3).

Each attack gives every record a score (higher = "member"); :func:`attack_scores` computes one attack's
scores once per evaluation (the attack's own metric and ``mia_best`` read the same ones), and
:func:`attack_output` turns members' and non-members' scores into the metric's result with
:func:`~privcore.metrics.membership_summary.attack_summary`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from privcore.data.params import Param
from privcore.engine.context import MetricContext
from privcore.metrics import load_all, registry
from privcore.metrics.details import MembershipScores
from privcore.metrics.membership_roles import MembershipSets, Reference, membership_roles
from privcore.metrics.membership_summary import attack_summary, summary_fields
from privcore.metrics.results import MetricOutput

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
        Scores closer than this are tied (:func:`~privcore.metrics.membership_summary.snap_ties`).
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


#: ``score(ctx, sets, reference, params) -> AttackScores``.
ScoreFunction = Callable[[MetricContext, MembershipSets, Reference, Mapping], AttackScores]


@dataclass(frozen=True)
class Scorer:
    """How to score records for one attack of the battery, and which parameters the scores depend on."""

    score: ScoreFunction
    param_names: tuple[str, ...] = ()


#: Attack id → its scorer; every membership attack registers one (read by ``mia_best``).
SCORERS: dict[str, Scorer] = {}


def attack_scores(ctx: MetricContext, attack_id: str, params: Mapping, reference_table: Any = None) -> AttackScores:
    """The scores of attack ``attack_id`` on the shared members, non-members and ``R``, once per evaluation.

    The attack's own metric and ``mia_best`` both call this; whichever runs first computes, the other
    reads the cached scores (same seed, same settings, same reference), so no attack runs twice.
    """
    if attack_id not in SCORERS:  # each attack's module registers its scorer on import, which may not have run yet
        load_all()
    scorer = SCORERS[attack_id]
    table = params.get("reference") if reference_table is None else reference_table
    settings = tuple((name, _hashable(params.get(name))) for name in scorer.param_names)
    key = ("membership scores", attack_id, ctx.seed, ctx.is_baseline, id(table) if table is not None else None,
           settings)

    def compute() -> AttackScores:
        sets, reference = membership_roles(ctx, table)
        return scorer.score(ctx, sets, reference, params)

    return ctx.shared.cached(key, compute)


def battery_settings(ctx: MetricContext, attack_id: str, reference_table: Any = None) -> dict:
    """Attack ``attack_id``'s parameters as this evaluation runs it (its defaults when it was not chosen), with
    the caller's reference table, so that every attack a combining metric reads plays on the same ``R``
    and reads the same cached scores as the attack's own metric."""
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
    """:func:`attack_summary` of these scores with the evaluation's seed, computed once per evaluation: an
    attack's own metric and ``mia_best`` summarise the same scores with the same bootstrap, which at 10,000
    members and non-members is most of an attack's time. Keyed on the scores' bytes, so equal inputs, and only
    they, share one summary (treat it as read-only).

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
    """An attack's metric output: its ROC summary (:func:`attack_summary`) as
    :class:`~privcore.metrics.details.MembershipScores`, risk = the advantage, raw = the AUC.

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
