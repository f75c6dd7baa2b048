"""The shared-model audit's attack, cross-fitted over the models, and what it achieves for each record.

LiRA-like rule (Carlini et al. 2022, "Membership inference attacks from first principles").
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.stats import mannwhitneyu, rankdata

from privcore.audit._base import BOOTSTRAP, roc_summary
from privcore.base import epsilon_lower_bound

#: Variances are floored here so that a feature constant on one side (an exact copy: distance 0) stays finite.
VARIANCE_FLOOR = 1e-8
#: Error rate of the largest ε lower bound over all audited records (Bonferroni over the records).
FAMILY_ALPHA = 0.05
#: Out-models needed for the TPR at each FPR level (JSON key) is reported.
FPR_MIN_OUT = {"0": 1, "0.01": 100, "0.1": 10}
#: Shuffles of the training sets among the models behind the measured chance shares (:func:`null_shares`).
NULL_SHUFFLES = 2


def crossfit_scores(features: np.ndarray, membership: np.ndarray, usable: np.ndarray, folds: int) -> np.ndarray:
    """Score every (model, record) pair with a rule learnt on the other folds' models.

    Parameters
    ----------
    features : numpy.ndarray
        Shape (models, records, features); rows of failed models are ignored.
    membership : numpy.ndarray
        Shape (models, records), True where the record was in the model's training set.
    usable : numpy.ndarray
        Shape (models,), False for models that failed.
    folds : int
        Number of folds (model ``k`` is in fold ``k mod folds``).

    Returns
    -------
    numpy.ndarray
        Shape (models, records): P_out(Y < y) − P_in(Y > y) for each record's feature (0 for a record without
        a rule), NaN for failed models.

    Notes
    -----
    Attack (:func:`crossfit_scores`). The K models are split into folds (model ``k`` in fold ``k mod folds``).
    For each fold, a per-record rule is learnt on the *other* folds' models and scores this fold's models, so
    no model is ever scored by a rule that saw it. The rule is LiRA-like (Carlini et al. 2022, "Membership
    inference attacks from first principles"): a likelihood ratio of one scalar feature per record, the
    in-models' distribution of it against the out-models'. Two choices make it hold up with a few dozen models:

    - **One feature per record**, the one that separates in from out best on the training folds: the largest
      |AUC − ½| there, ties (several features that separate perfectly, say) broken by the largest |t| of the
      difference of means (pooled variance). Summed over all features, the many uninformative and correlated
      query shares drown one telling feature (a rare value, an exact copy) in noise; ranking first, not |t|
      alone, because a feature nearly constant on one side has a huge |t| with little separation.
    - **Empirical distributions, not Gaussians**: with y the feature turned so that larger means "in", the
      score is P_out(Y < y) − P_in(Y > y) over the training folds' models (ties count ½), in [−1, 1]. Distances
      and shares are skewed and often constant on one side, where a Gaussian's midpoint lands anywhere; and the
      score means the same in every fold, so the folds' scores can be ranked together for one AUC.

    A score above 0 says "trained with this record": the value is more typical of in-models than of out-models.

    Examples
    --------
    A feature equal to 1 in models trained with the record and 0 otherwise is scored perfectly:

    >>> member = np.array([[True], [True], [False], [False]] * 2)
    >>> scores = crossfit_scores(member[:, :, None].astype(float), member, np.ones(8, bool), folds=2)
    >>> bool(np.all((scores[:, 0] > 0) == member[:, 0]))
    True
    """
    scores = np.full(membership.shape, np.nan)
    for train, test in model_folds(usable, folds):
        scores[test] = fold_scores(features, membership, train, test)
    return scores


def model_folds(usable: np.ndarray, folds: int):
    """The cross-fitting split of the models: the masks ``(train, test)`` for each fold that has a usable model.

    ``train`` masks the usable models outside the fold (which train the attack), ``test`` those in it (which the attack
    then scores); model ``k`` is in fold ``k mod folds``.

    Examples
    --------
    >>> [(train.tolist(), test.tolist()) for train, test in model_folds(np.array([True, True, False]), 2)]
    [([False, True, False], [True, False, False]), ([True, False, False], [False, True, False])]
    """
    fold_of = np.arange(len(usable)) % folds
    for fold in range(folds):
        train, test = usable & (fold_of != fold), usable & (fold_of == fold)
        if test.any():
            yield train, test


def fold_scores(features: np.ndarray, membership: np.ndarray, train: np.ndarray, test: np.ndarray) -> np.ndarray:
    """Scores of the models in ``test`` by each record's rule learnt on the models in ``train``.

    One fold of :func:`crossfit_scores`.

    Parameters
    ----------
    features, membership : numpy.ndarray
        As for :func:`crossfit_scores`; only the rows of ``train`` are read from ``membership``.
    train, test : numpy.ndarray
        Boolean masks over the models.

    Returns
    -------
    numpy.ndarray
        Shape (test models, records).
    """
    records = np.arange(membership.shape[1])
    best, direction = _rule(features[train], membership[train])
    # The chosen feature of each record, turned so that larger means "in": (models, records).
    seen = features[train][:, records, best] * direction
    new = features[test][:, records, best] * direction
    inside = membership[train]
    below = (seen[None] < new[:, None]) + 0.5 * (seen[None] == new[:, None])  # (test, train, records)
    n_in, n_out = inside.sum(axis=0), (~inside).sum(axis=0)
    beyond_out = (below * ~inside[None]).sum(axis=1) / np.maximum(n_out, 1)
    short_of_in = ((1.0 - below) * inside[None]).sum(axis=1) / np.maximum(n_in, 1)
    return np.where(direction != 0, beyond_out - short_of_in, 0.0)


def _rule(features: np.ndarray, membership: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each record's feature (index) and its direction (+1: larger in in-models, −1: smaller, 0: no rule).

    Both come from the training models (see :func:`crossfit_scores`).
    """
    inside = membership.astype(float)
    outside = 1.0 - inside
    n_in, n_out = inside.sum(axis=0), outside.sum(axis=0)
    safe_in, safe_out = np.maximum(n_in, 1)[:, None], np.maximum(n_out, 1)[:, None]
    mean_in = np.einsum("tn,tnf->nf", inside, features) / safe_in
    mean_out = np.einsum("tn,tnf->nf", outside, features) / safe_out
    squares = np.einsum("tn,tnf->nf", inside, (features - mean_in[None]) ** 2) + \
        np.einsum("tn,tnf->nf", outside, (features - mean_out[None]) ** 2)
    variance = np.maximum(squares / np.maximum(n_in + n_out - 2, 1)[:, None], VARIANCE_FLOOR)
    t = (mean_in - mean_out) / np.sqrt(variance * (1.0 / safe_in + 1.0 / safe_out))
    # Separation on the training models: AUC of each feature from its ranks (ties count ½).
    ranks = rankdata(features, axis=0)
    auc = (np.einsum("tn,tnf->nf", inside, ranks) - (n_in * (n_in + 1) / 2)[:, None]) / (safe_in * safe_out)
    separation = np.abs(auc - 0.5)
    best_feature = separation >= separation.max(axis=1, keepdims=True) - 1e-9
    best = np.argmax(np.where(best_feature, np.abs(t), -1.0), axis=1)
    rows = np.arange(len(best))
    direction = np.sign(auc[rows, best] - 0.5)
    # A record seen on one side only (or on neither) in the training folds has no rule.
    direction[(n_in < 2) | (n_out < 2)] = 0.0
    return best, direction


def record_statistics(scores: np.ndarray, membership: np.ndarray, usable: np.ndarray, seed: int,
                      record: int, records: int = 1) -> dict | None:
    """AUC with its interval, TPRs, p-value and ε lower bound of one record (None without both sides).

    Parameters
    ----------
    scores, membership : numpy.ndarray
        The record's column of :func:`crossfit_scores` and of the membership matrix, shape (models,).
    usable : numpy.ndarray
        Shape (models,), False for failed models.
    seed, record : int
        The bootstrap draws from ``default_rng([seed, record])``: the same whatever else ran.
    records : int
        Records audited together: ``epsilon_lower_bound_familywise`` holds at confidence 1 − 0.05/records
        (Bonferroni), so that the largest of them over all records still holds at 95 % (metrics.md, third
        round); ``epsilon_lower_bound`` is the record's own bound at 95 %.

    Notes
    -----
    Per record (:func:`record_statistics`): the AUC over its in and out models with a 95 % percentile-bootstrap
    interval (in and out models resampled apart, as the targeted audit does), the TPR at FPR 0, 1 % and 10 %
    (1 % only with at least 100 out-models: fewer cannot measure it), a one-sided Mann–Whitney p-value, and
    the ε lower bound of :func:`privcore.base.stats.epsilon_lower_bound` from the counts at the rule's own
    threshold. Caveat: the folds' counts are summed, and each fold's rule was learnt on the others' models,
    so the counts are not strictly independent; the bound is as rigorous as a cross-validated estimate is.

    Examples
    --------
    >>> out = record_statistics(np.r_[1.0, -1.0] .repeat(10), np.r_[True, False].repeat(10),
    ...                         np.ones(20, bool), 0, 0)
    >>> out["auc"], out["auc_interval"], round(out["epsilon_lower_bound"], 4)
    (1.0, (1.0, 1.0), 1.0519)
    """
    members = scores[usable & membership]
    non = scores[usable & ~membership]
    if len(members) == 0 or len(non) == 0:
        return None
    auc, tpr = roc_summary(members, non)
    rng = np.random.default_rng([seed, record])
    boot_members = members[rng.integers(0, len(members), (BOOTSTRAP, len(members)))]
    boot_non = non[rng.integers(0, len(non), (BOOTSTRAP, len(non)))]
    boot_auc, _ = roc_summary(boot_members, boot_non)
    low, high = (float(x) for x in np.quantile(boot_auc, [0.025, 0.975]))
    flagged_in, flagged_out = int((members > 0).sum()), int((non > 0).sum())
    if np.all(members == members[0]) and np.all(non == members[0]):
        p_value = 1.0  # every score alike (no rule): nothing to test
    else:
        p_value = float(mannwhitneyu(members, non, alternative="greater").pvalue)
    return {
        "auc": float(auc[0]),
        "auc_interval": (low, high),
        "tpr_at": {key: float(tpr[key][0]) if len(non) >= FPR_MIN_OUT[key] else None for key in FPR_MIN_OUT},
        "epsilon_lower_bound": epsilon_lower_bound(flagged_in, len(members), flagged_out, len(non)),
        "epsilon_lower_bound_familywise": epsilon_lower_bound(flagged_in, len(members), flagged_out, len(non),
                                                              confidence=1 - FAMILY_ALPHA / max(1, records)),
        "p_value": p_value if math.isfinite(p_value) else 1.0,
        "models_in": len(members),
        "models_out": len(non),
    }


def null_shares(features: np.ndarray, membership: np.ndarray, usable: np.ndarray,
                settings: Any) -> dict[str, float]:
    """Shares of records that the attack puts above AUC 0.6 and 0.8 and above an interval of 0.5 by chance.

    That is, when membership carries no information: the training sets shuffled among the models, the attack rerun.

    Parameters
    ----------
    features : numpy.ndarray
        Shape (models, records, features), as the attack read them.
    membership : numpy.ndarray
        Shape (models, records); its rows are shuffled :data:`NULL_SHUFFLES` times (seeded).
    usable : numpy.ndarray
        Shape (models,), False for failed models.
    settings : SharedSettings
        The folds and the seed (any object with ``folds`` and ``seed``).

    Returns
    -------
    dict
        ``auc_above_0.6``, ``auc_above_0.8`` and ``interval_above_0.5``: shares over every record and shuffle.
    """
    rng = np.random.default_rng([settings.seed, 1])
    aucs, lows = [], []
    for _ in range(NULL_SHUFFLES):
        shuffled = membership[rng.permutation(len(membership))]
        scores = crossfit_scores(features, shuffled, usable, settings.folds)
        for i in range(shuffled.shape[1]):
            stats = record_statistics(scores[:, i], shuffled[:, i], usable, settings.seed, i)
            if stats is not None:
                aucs.append(stats["auc"])
                lows.append(stats["auc_interval"][0])
    if not aucs:
        return {"auc_above_0.6": math.nan, "auc_above_0.8": math.nan, "interval_above_0.5": math.nan}
    aucs_, lows_ = np.array(aucs), np.array(lows)
    return {"auc_above_0.6": float(np.mean(aucs_ > 0.6)), "auc_above_0.8": float(np.mean(aucs_ > 0.8)),
            "interval_above_0.5": float(np.mean(lows_ > 0.5))}
