"""The strongest membership attack, chosen honestly, and the ε lower bound it implies (metrics.md §3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from privcore.base import (
    NotApplicable,
    bootstrap_replicates,
    epsilon_lower_bound,
    holm_adjust,
    percentile_interval,
    roc_auc,
    roc_curve,
)
from privcore.data import Param
from privcore.engine import MetricContext
from privcore.metrics.details import BatteryAttack, HeldOutSplit, MembershipBattery
from privcore.metrics.membership._base import (
    COMMON_INFO,
    COMMON_PARAMS,
    DEFAULT_PARAMS,
    MAX_CURVE_POINTS,
    MIA_NOTE,
    REFERENCE,
    REFERENCE_MIA,
    attack_scores,
    battery_settings,
    membership_roles,
    require_holdout,
    roc_statistics_batch,
    seeded_halves,
    shared_attack_summary,
    snap_ties,
)
from privcore.metrics.registry import Explanation, MetricInfo, battery_ids, register
from privcore.metrics.results import MetricOutput

#: False-positive rates at which the true-positive rate is reported.
LOW_FPRS = (0.001, 0.01, 0.1)
#: One-sided confidence of each Clopper–Pearson bound behind the ε lower bound (metrics.md §3: 95 %).
EPSILON_CONFIDENCE = 0.95
#: The attack each half starts from: the stacked attack combines every other one.
DEFAULT_ATTACK = "mia_stacked"
#: Paired bootstrap resamples of a half behind each choice (:func:`choose_attack`).
CHOICE_REPEATS = 200
#: Share of those resamples on which another attack must beat the default to replace it.
CHOICE_SUPPORT = 0.95
#: The seed tag of those resamples (other membership steps use 7, 11, 13, 17, 19, 23).
CHOICE_TAG = 29
#: The choice rule in words, for the report (details ``choice_rule``) and the explanation.
CHOICE_RULE = (
    f"On each half, the stacked attack (every attack combined) is kept unless another attack's AUC is above its "
    f"AUC on at least {100 * CHOICE_SUPPORT:.0f} % of {CHOICE_REPEATS} bootstrap resamples of that half (then the one "
    f"above it most often); without the stacked attack, the attack with the highest AUC on the half is the one to "
    f"beat. So an attack that leads on a small half by luck is not chosen. The choice is counted on the other "
    f"half only, whose records no choice and no model used for the choice saw."
)


def tpr_at_fprs(fpr: np.ndarray, tpr: np.ndarray, n_nonmembers: int, targets=LOW_FPRS) -> dict[str, float | None]:
    """The largest TPR at an FPR ≤ each target, from a full ROC curve; None where the sample cannot say.

    With fewer than ``1/target`` non-members the smallest FPR above 0 is already above the target, so
    "TPR at FPR 0.1 %" would silently mean "TPR with no false positive at all": it is reported as None.

    Examples
    --------
    >>> tpr_at_fprs(np.array([0.0, 0.0, 0.5, 1.0]), np.array([0.0, 0.5, 1.0, 1.0]), 2, (0.01, 0.5))
    {'0.01': None, '0.5': 1.0}
    """
    out: dict[str, float | None] = {}
    for target in targets:
        measurable = n_nonmembers * target >= 1 - 1e-9
        out[f"{target:g}"] = float(tpr[fpr <= target + 1e-12].max()) if measurable else None
    return out


def best_threshold(member_scores: np.ndarray, nonmember_scores: np.ndarray) -> tuple[float, float]:
    """The threshold ``t`` (flag a record when its score ≥ ``t``) with the largest TPR − FPR, and that gap.

    Among equal gaps the highest threshold wins; when no threshold beats flagging nobody, ``t = inf``.

    Examples
    --------
    >>> best_threshold(np.array([3.0, 2.0]), np.array([2.5, 1.0]))  # t = 3: ½ − 0; t = 2: 1 − ½; the higher wins
    (3.0, 0.5)
    """
    labels = np.r_[np.ones(len(member_scores)), np.zeros(len(nonmember_scores))]
    fpr, tpr, thresholds = roc_curve(labels, np.r_[member_scores, nonmember_scores])
    gap = tpr - fpr
    best = int(np.argmax(gap))
    if gap[best] <= 0:
        return float("inf"), 0.0
    return float(thresholds[best]), float(gap[best])


def _roc(member_scores, nonmember_scores):
    """The full ROC curve and the AUC of members' against non-members' scores."""
    labels = np.r_[np.ones(len(member_scores)), np.zeros(len(nonmember_scores))]
    scores = np.r_[member_scores, nonmember_scores]
    fpr, tpr, _ = roc_curve(labels, scores)
    return fpr, tpr, roc_auc(labels, scores)


def _curve(fpr, tpr):
    if len(fpr) <= MAX_CURVE_POINTS:
        return fpr, tpr
    # Keep the low-FPR end whole (it is what the log-log view shows), thin the rest evenly.
    head = np.flatnonzero(fpr <= 0.01)
    rest = np.linspace(0, len(fpr) - 1, MAX_CURVE_POINTS).round().astype(int)
    keep = np.unique(np.r_[head[:MAX_CURVE_POINTS], rest])
    return fpr[keep], tpr[keep]


@dataclass(frozen=True)
class Choice:
    """The attack chosen on one half (:func:`choose_attack`) and the evidence behind it."""

    attack: str
    #: The attack kept unless another beats it clearly.
    default: str
    #: Attack → share of the half's resamples on which it had the highest AUC (never highest: left out).
    votes: dict[str, float]
    #: Attack → share of the half's resamples on which its AUC was above the default's.
    wins_over_default: dict[str, float]


def choose_attack(scores: Mapping[str, tuple[np.ndarray, np.ndarray]], members: np.ndarray, nonmembers: np.ndarray,
                  rng: np.random.Generator, repeats: int = CHOICE_REPEATS) -> Choice:
    """Step 2 of :func:`compute_mia_best`'s Notes: the attack chosen on one half.

    The default is the stacked attack (:data:`DEFAULT_ATTACK`, every other attack combined) when it ran,
    else the attack with the highest AUC on the half. Every attack's AUC is counted on ``repeats``
    stratified bootstrap resamples of the half (the same resamples for every attack, so that they are
    compared on the same records); another attack replaces the default only when its AUC is above the
    default's on at least :data:`CHOICE_SUPPORT` of them, and among several such the one above it most
    often (ties: battery order). An attack that leads on the half by luck, as happens on a few hundred
    records, rarely leads on 95 % of the resamples. Only the half's own scores and labels are read.

    Parameters
    ----------
    scores : mapping
        Attack id → (member scores, non-member scores), in battery order.
    members, nonmembers : numpy.ndarray
        Positions of the half's members and non-members in those arrays.
    rng : numpy.random.Generator
        Draws the resamples.
    repeats : int
        Bootstrap resamples of the half (≥ 1).

    Returns
    -------
    Choice

    Examples
    --------
    >>> member, non = np.arange(20.0), np.arange(20.0) - 10
    >>> c = choose_attack({"weak": (member, non + 9), "strong": (member, non)}, np.arange(20), np.arange(20),
    ...                   np.random.default_rng(0), repeats=10)
    >>> c.default, c.attack, c.votes  # no stacked attack: the default is the best on the half
    ('strong', 'strong', {'strong': 1.0})
    """
    ids = list(scores)
    n_m, n_n = len(members), len(nonmembers)
    labels = np.r_[np.ones(n_m, dtype=np.int8), np.zeros(n_n, dtype=np.int8)]
    # Row 0 is the half itself, the others its resamples (members and non-members drawn apart).
    picks = np.vstack([np.r_[np.arange(n_m), n_m + np.arange(n_n)],
                       np.c_[rng.integers(0, n_m, (repeats, n_m)), n_m + rng.integers(0, n_n, (repeats, n_n))]])
    aucs = np.empty((len(picks), len(ids)))
    for j, attack_id in enumerate(ids):
        values = np.r_[scores[attack_id][0][members], scores[attack_id][1][nonmembers]]
        _, ranks = np.unique(values, return_inverse=True)
        n_levels = int(ranks.max()) + 1
        # In chunks of about 2**22 positions, so that memory stays bounded for large halves.
        step = max(1, 2**22 // max(n_levels, len(values)))
        aucs[:, j] = np.concatenate([roc_statistics_batch(ranks[picks[i:i + step]], labels[picks[i:i + step]],
                                                          n_levels)["auc"] for i in range(0, len(picks), step)])
    on_half, resampled = aucs[0], aucs[1:]
    default = ids.index(DEFAULT_ATTACK) if DEFAULT_ATTACK in ids else int(np.argmax(on_half))
    wins = (resampled > resampled[:, [default]]).mean(axis=0)
    challengers = np.flatnonzero(wins >= CHOICE_SUPPORT)
    chosen = int(challengers[np.argmax(wins[challengers])]) if len(challengers) else default
    leaders = np.bincount(np.argmax(resampled, axis=1), minlength=len(ids)) / len(resampled)
    return Choice(attack=ids[chosen], default=ids[default],
                  votes={ids[j]: float(leaders[j]) for j in np.flatnonzero(leaders)},
                  wins_over_default={ids[j]: float(wins[j]) for j in range(len(ids)) if j != default})


def honest_splits(scores: Mapping[str, tuple[np.ndarray, np.ndarray]], seed: int, delta: float,
                  repeats: int = CHOICE_REPEATS, counted: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None
                  ) -> tuple[list[HeldOutSplit], list[dict]]:
    """Steps 1–4 of :func:`compute_mia_best`'s Notes: choose on one half, count on the other, both ways.

    Parameters
    ----------
    scores : mapping
        Attack id → (member scores, non-member scores), ties already snapped, in battery order.
    seed : int
        The evaluation's seed.
    delta : float
        δ of the ε bound.
    repeats : int
        Bootstrap resamples behind each choice (:func:`choose_attack`).
    counted : mapping, optional
        Attack id → the scores counted on the held-out half, where they differ from ``scores``: for an attack
        that learns from the labels, each half scored by the model trained on the other half
        (:func:`privcore.metrics.membership._base.crossfit_within_halves`). Default: ``scores``.

    Returns
    -------
    splits : list of HeldOutSplit
        "A" then "B" (the half the choice was made on).
    held_out : list of dict
        Per split, the held-out member and non-member scores of the chosen attack and its threshold (for
        the bootstrap), and the positions of the records the choice read (``chosen_on``) and the records
        counted (``counted``): ``{"members": …, "nonmembers": …}`` each.
    """
    halves = seeded_halves(*(len(v) for v in next(iter(scores.values()))), seed)
    rng = np.random.default_rng([seed, CHOICE_TAG])
    splits, held_out = [], []
    for choose, count in (("A", "B"), ("B", "A")):
        (cm, cn), (tm, tn) = halves[choose], halves[count]
        choice = choose_attack(scores, cm, cn, rng, repeats)
        attack = choice.attack
        member, non = scores[attack]
        choice_auc = _roc(member[cm], non[cn])[2]
        threshold, _ = best_threshold(member[cm], non[cn])
        # The choice and threshold read the half's own scores; the count reads scores no label of its half shaped.
        count_member, count_non = (counted or {}).get(attack, (member, non))
        test_m, test_n = count_member[tm], count_non[tn]
        fpr, tpr, auc = _roc(test_m, test_n)
        tp, fp = int(np.sum(test_m >= threshold)), int(np.sum(test_n >= threshold))
        curve_fpr, curve_tpr = _curve(fpr, tpr)
        splits.append(HeldOutSplit(
            chosen_on=choose, attack=attack, choice_auc=float(choice_auc),
            default_attack=choice.default, choice_votes=choice.votes, wins_over_default=choice.wins_over_default,
            threshold=threshold, auc=auc,
            advantage=tp / len(test_m) - fp / len(test_n), true_positives=tp, members=len(test_m),
            false_positives=fp, nonmembers=len(test_n), tpr_at=tpr_at_fprs(fpr, tpr, len(test_n)),
            epsilon_lower_bound=epsilon_lower_bound(tp, len(test_m), fp, len(test_n), delta=delta,
                                                    confidence=EPSILON_CONFIDENCE),
            roc_fpr=curve_fpr, roc_tpr=curve_tpr,
        ))
        held_out.append({"members": test_m, "nonmembers": test_n, "threshold": threshold,
                         "chosen_on": {"members": cm, "nonmembers": cn}, "counted": {"members": tm, "nonmembers": tn}})
    return splits, held_out


def held_out_intervals(held_out: list[dict], n_boot: int, confidence: float, seed: int, threads: int = 1):
    """Percentile-bootstrap intervals of the mean held-out AUC and mean held-out TPR − FPR.

    The resamples are evaluated on ``threads`` threads, the same for every count.

    Each replicate resamples the members and the non-members of both held-out halves (with replacement,
    separately: strata) and recomputes both AUCs and both gaps at the fixed thresholds; the attack and the
    thresholds stay as chosen, since they were chosen on the other half.
    """
    if n_boot <= 0:
        return None, None
    # One stream for both halves, drawn half after half (members, then non-members, per chunk of replicates).
    rng = np.random.default_rng([seed, 17])
    aucs, gaps = np.zeros(n_boot), np.zeros(n_boot)
    for part in held_out:
        member, non = part["members"], part["nonmembers"]
        scores = np.r_[member, non]
        _, ranks = np.unique(scores, return_inverse=True)
        n_levels = int(ranks.max()) + 1
        labels = np.r_[np.ones(len(member), dtype=np.int8), np.zeros(len(non), dtype=np.int8)]
        members_first = 1 - labels  # strata in sorted order: members are resampled first

        def auc_and_gap(r, s, y, _n_levels=n_levels, _threshold=part["threshold"], _m=len(member)):
            flagged = s >= _threshold
            gap = flagged[:, :_m].mean(axis=1) - flagged[:, _m:].mean(axis=1)
            return np.column_stack([roc_statistics_batch(r, y, _n_levels)["auc"], gap])

        # In chunks of 2**22 positions so that memory stays bounded for large halves.
        replicates = bootstrap_replicates(auc_and_gap, ranks, scores, labels, n_boot=n_boot, seed=rng,
                                          vectorized=True, strata=members_first, max_chunk_elements=2**22,
                                          threads=threads)
        aucs += replicates[:, 0] / len(held_out)
        gaps += replicates[:, 1] / len(held_out)
    auc_low, auc_high = percentile_interval(aucs, confidence)
    gap_low, gap_high = np.clip(percentile_interval(gaps, confidence), 0.0, 1.0)
    return (float(auc_low), float(auc_high)), (float(gap_low), float(gap_high))


def compute_mia_best(ctx: MetricContext) -> MetricOutput:
    """The strongest of the membership attacks, chosen on one half of the records and reported on the other.

    See Notes for the rule. ``risk`` = mean held-out TPR − FPR of the chosen attack at its
    chosen threshold (clipped to [0, 1]); ``raw`` = mean held-out ROC AUC; ``interval`` = bootstrap
    interval of the risk (held-out halves resampled). per_record (real) = the score of every real row
    under the selected attack. ``details.epsilon_lower_bound``: the smallest ε of an (ε, δ)-DP mechanism
    that could let the attack do as well as counted (one-sided 95 % Clopper–Pearson bounds).

    Notes
    -----
    No single data-only attack dominates (Ward et al. 2025, Synth-MIA), so ``mia_best`` runs the whole battery
    (:func:`privcore.metrics.registry.battery_ids`) on the same members ``M``, non-members ``N`` and reference ``R`` and reports the strongest.
    Choosing the strongest on the records it is then scored on would inflate a fresh sample's score (the
    winner's curse: the maximum of ten AUCs near 0.5 is above 0.5), so:

    1. ``M`` and ``N`` are each split into seeded halves A and B (``numpy.random.default_rng([seed, 7])``:
       one permutation of ``M``, then one of ``N``; the first ``|M| // 2`` positions are A).
    2. On A, an attack is chosen by a rule that does not reward luck (:func:`choose_attack`): the stacked
       attack (every other attack combined, :mod:`privcore.metrics.membership.stacked`) is kept unless another
       attack's AUC is above its AUC on at least 95 % of 200 paired bootstrap resamples of A
       (``numpy.random.default_rng([seed, 29])``, one stream for both directions); without the stacked
       attack, the attack with the highest AUC on A is the one to beat. Then its threshold ``t`` at the
       largest TPR − FPR on A (ties: the highest threshold); a record is flagged a member when its score is
       ≥ ``t``. (Choosing the attack with the highest AUC on A instead would lose up to 0.10 AUC on B: on halves
       of 100–150 members an attack can lead by luck.)
    3. On B, the chosen attack's AUC, its TPR − FPR at ``t`` and its TPR at FPR 0.1 %, 1 %, 10 % are counted,
       and the ε lower bound of :func:`privcore.base.stats.epsilon_lower_bound` from the counts at ``t``.
    4. A and B swap roles. ``raw`` = the mean of the two held-out AUCs; ``risk`` = the mean held-out
       TPR − FPR at the chosen thresholds, clipped to [0, 1]; ``epsilon_lower_bound`` = the larger of the two.

    The learned and stacked attacks are cross-fitted within A and within B, so the scores the choice reads on A
    come from models trained on A's labels only; the scores counted on B come from one model trained on all of A
    (and the other way round): no record of B is counted under a choice or a model that saw its label, and B's
    records are scored independently of each other given that model, as the bootstrap of the interval assumes.
    ``details`` states the rule (``choice_rule``) and, per half, the attack chosen, the default, how often each
    attack led on the resamples (``choice_votes``) and beat the default (``wins_over_default``);
    ``choices_agree`` says whether both halves chose the same attack. ``details`` also lists every attack's AUC
    on all of ``M`` and ``N`` with its bootstrap interval and a one-sided Mann–Whitney p-value for AUC > 0.5,
    Holm-adjusted over the attacks that ran. The attacks'
    scores are the ones their own metrics report in the same evaluation, read from the evaluation's cache
    (:func:`privcore.metrics.membership._base.attack_scores`), with the settings those metrics run with.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"x": [float(v) for v in range(0, 80, 2)]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="mia_best",
    ...                holdout=real + 1.0, params={"mia_best": {"n_boot": 0}})
    >>> res["mia_best"].raw  # on a copy, the distance attack tells every member on either half
    1.0
    """
    require_holdout(ctx, 4)
    sets, reference = membership_roles(ctx, ctx.params.get("reference"))
    if len(sets.members) < 2 or len(sets.nonmembers) < 2:
        raise NotApplicable("needs at least 2 members and 2 non-members, so that each half has one of each.")
    n_boot = int(ctx.params.get("n_boot", DEFAULT_PARAMS["n_boot"]))
    confidence = float(ctx.params.get("confidence", DEFAULT_PARAMS["confidence"]))
    delta = float(ctx.params.get("delta", 0.0))
    scored, counted, skipped, summaries, real_scores, warnings = {}, {}, {}, {}, {}, list(sets.warnings)
    battery = battery_ids()
    for attack_id in battery:
        try:
            scores = attack_scores(ctx, attack_id, battery_settings(ctx, attack_id, ctx.params.get("reference")),
                                   ctx.params.get("reference"))
        except NotApplicable as exc:
            skipped[attack_id] = str(exc)
            continue
        member, non = scores.real[sets.members], scores.nonmembers
        snapped = snap_ties(np.r_[member, non], scores.tolerance)
        scored[attack_id] = (snapped[: len(member)], snapped[len(member) :])
        if scores.across_halves is not None:
            counted[attack_id] = (scores.across_halves[0][sets.members], scores.across_halves[1])
        real_scores[attack_id] = scores.real
        summaries[attack_id] = shared_attack_summary(ctx, member, non, scores.tolerance, n_boot, confidence)
    if not scored:
        raise NotApplicable("no membership attack could run: " + "; ".join(f"{a}: {r}" for a, r in skipped.items()))
    attacks = _battery_attacks(scored, summaries)
    splits, held_out = honest_splits(scored, ctx.seed, delta, counted=counted)
    chosen = {s.attack for s in splits}
    selected = max((a for a in scored if a in chosen), key=lambda a: attacks[a].auc)
    auc_interval, risk_interval = held_out_intervals(held_out, n_boot, confidence, ctx.seed, ctx.workers)
    held_out_auc = float(np.mean([s.auc for s in splits]))
    held_out_gap = float(np.mean([s.advantage for s in splits]))
    tpr_at = {key: (None if any(s.tpr_at[key] is None for s in splits) else
                    float(np.mean([s.tpr_at[key] for s in splits]))) for key in splits[0].tpr_at}
    if skipped:
        warnings.append(f"{len(skipped)} of the {len(battery)} attacks could not run and are left out: "
                        + "; ".join(f"{a} ({r})" for a, r in skipped.items()))
    if len(chosen) > 1:
        warnings.append("The two halves chose different attacks (" + " and ".join(s.attack for s in splits)
                        + "): no attack is clearly the strongest on these tables.")
    details = MembershipBattery(
        selected_attack=selected, attacks=attacks, splits=splits, held_out_auc=held_out_auc,
        held_out_auc_interval=auc_interval, held_out_advantage=held_out_gap,
        held_out_advantage_interval=risk_interval, tpr_at=tpr_at,
        epsilon_lower_bound=float(max(s.epsilon_lower_bound for s in splits)), delta=delta,
        epsilon_confidence=EPSILON_CONFIDENCE, n_boot=n_boot, confidence=confidence,
        n_members=len(sets.members), n_nonmembers=len(sets.nonmembers), reference=reference.described,
        not_applicable=skipped, member_positions=sets.members, nonmember_positions=sets.nonmembers,
        choice_rule=CHOICE_RULE, choices_agree=len(chosen) == 1,
        choice_agreement=float(np.mean([s.choice_votes.get(s.attack, 0.0) for s in splits])),
    )
    return MetricOutput(
        risk=float(np.clip(held_out_gap, 0.0, 1.0)),
        raw=held_out_auc,
        per_record=np.asarray(real_scores[selected], dtype=float),
        details=details,
        params={"n_boot": n_boot, "confidence": confidence, "delta": delta, "seed": ctx.seed,
                "reference": reference.described, "attacks": list(scored)},
        interval=risk_interval,
        warnings=warnings,
    )


def _battery_attacks(scored, summaries) -> dict[str, BatteryAttack]:
    """Every attack on all members and non-members, with Holm-adjusted one-sided p-values."""
    # Imported here: scipy.stats costs about 0.4 s at start-up and only this test needs it, while the module is
    # imported by every evaluation to register the metric.
    from scipy.stats import mannwhitneyu

    ids = list(scored)
    # Mann–Whitney U / (|M|·|N|) is the AUC, so its one-sided test is the test of AUC > 0.5 (ties corrected).
    p_values = np.array([float(mannwhitneyu(*scored[a], alternative="greater").pvalue) for a in ids])
    adjusted = holm_adjust(p_values)
    out = {}
    for i, attack_id in enumerate(ids):
        member, non = scored[attack_id]
        fpr, tpr, auc = _roc(member, non)
        summary = summaries[attack_id]
        curve_fpr, curve_tpr = _curve(fpr, tpr)
        out[attack_id] = BatteryAttack(
            auc=auc, auc_interval=summary["auc_interval"], p_value=float(p_values[i]),
            p_value_holm=float(adjusted[i]), tpr_at=tpr_at_fprs(fpr, tpr, len(non)),
            advantage=summary["advantage"], roc_fpr=curve_fpr, roc_tpr=curve_tpr,
        )
    return out


register(MetricInfo(
    id="mia_best",
    order=370,
    cost=(0.91, 1.0),
    name="Membership inference: strongest attack (held out)",
    summary="The strongest of ten membership attacks, chosen on half the people and measured on the other "
            "half, with the ε of differential privacy it rules out.",
    attacker_knows="The synthetic table, the suspect's record, a reference sample of other real people from the "
                   "same population, and every attack of the battery to choose from.",
    reference=f"Ward et al. 2025 (Synth-MIA: no single attack dominates); Carlini et al., Membership Inference "
              f"Attacks From First Principles (S&P 2022: TPR at low FPR); Jagielski, Ullman and Oprea, Auditing "
              f"Differentially Private Machine Learning (NeurIPS 2020: ε lower bounds); {REFERENCE_MIA}.",
    explanation=Explanation(
        attack="The attacker tries every membership attack privcore knows and keeps the one that works best; to "
               "stay honest, the choice is made on half of the people and the result counted on the other half.",
        steps=(
            "Score every training record (member) and holdout record (non-member) with each of the ten attacks "
            "(the tenth, the stacked attack, combines the others).",
            "Split members and non-members into two random halves. On the first, keep the stacked attack (all "
            "attacks combined) unless another attack beats it on at least 95 % of 200 resamples of that half, so "
            "that an attack that leads there by luck is not chosen; then pick the score threshold that best "
            "separates members from non-members.",
            "Count on the second half how well that attack and threshold do (AUC, members caught minus "
            "non-members wrongly accused, members caught at 0.1 %, 1 % and 10 % false accusations), then swap "
            "the halves and average.",
            "Turn the counts into the smallest ε a differentially private generator would need to allow them.",
        ),
        high="At least one attack tells training records from other people on records it was not tuned on: the "
             "synthetic data gives membership away.",
        low="Even the best of ten attacks, measured on fresh records, does no better than a coin flip.",
        blind_spots="Only data-only attacks: shadow-model attacks (the Audit page) can be stronger. A leak of a few "
                    "records hardly moves the AUC; the TPR at low FPR and the ε bound show it better. Halving the "
                    "records costs precision on small tables.",
        note=MIA_NOTE + "; Choice rule: " + CHOICE_RULE + " Choice: the ε lower bound is an indication for a "
                         "data-only attack on one release "
                         "(members differ from non-members by more than one record); the audit's per-target bound, "
                         "with generators trained with and without exactly that record, is the rigorous one.",
    ),
    compute=compute_mia_best,
    passes=(('E', 'real', 'synthetic'), ('E', 'holdout', 'synthetic')),
    details_type=MembershipBattery,
    params=(*COMMON_PARAMS, REFERENCE,
            Param("delta", "float", 0.0, "δ of the DP claim",
                  "The δ of the (ε, δ)-differential-privacy claim the ε lower bound refers to (0 = pure ε-DP).",
                  minimum=0.0, maximum=0.5, step=0.001)),
    uses_classifier=True,
    **COMMON_INFO,
))
