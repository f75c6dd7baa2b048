"""Each attack of the shared audit read per target model: its known members and non-members ranked by the attack."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from privcore.base import jsonable, roc_statistics

__all__ = ["FPR_LEVELS", "ModelAttack", "cyclic_shuffle", "model_attacks", "models_summary", "per_model_entry",
           "spread"]

#: False-positive rates at which each target model's TPR is reported (JSON keys).
FPR_LEVELS = {"0": 0.0, "0.001": 0.001, "0.01": 0.01}
#: Bootstrap resamples of the records behind each model's AUC interval.
MODEL_BOOTSTRAP = 200


@dataclass
class ModelAttack:
    """One attack on one target model: its known members and non-members of the pool ranked."""

    model: int
    members: int
    non_members: int
    auc: float | None
    auc_interval: tuple[float, float] | None
    tpr_at: dict[str, float | None]


def _model_attack(k: int, scores: np.ndarray, member: np.ndarray, rng: np.random.Generator) -> ModelAttack:
    inside, outside = scores[member], scores[~member]
    if len(inside) == 0 or len(outside) == 0:
        return ModelAttack(k, len(inside), len(outside), None, None, {key: None for key in FPR_LEVELS})
    levels = tuple(FPR_LEVELS.values())
    both = np.r_[inside, outside]
    labels = np.r_[np.ones(len(inside), np.int8), np.zeros(len(outside), np.int8)]
    _, ranks = np.unique(both, return_inverse=True)
    stats = roc_statistics(ranks, labels, int(ranks.max()) + 1, levels)
    # Records resampled with members and non-members apart, as the per-record statistics resample models.
    picks = np.c_[rng.integers(0, len(inside), (MODEL_BOOTSTRAP, len(inside))),
                  len(inside) + rng.integers(0, len(outside), (MODEL_BOOTSTRAP, len(outside)))]
    boot = roc_statistics(ranks[picks], labels, int(ranks.max()) + 1).auc
    low, high = (float(x) for x in np.quantile(boot, [0.025, 0.975]))
    # A level below 1/non-members cannot be told from FPR 0 on this many people: not reported.
    tpr = {key: float(stats.tpr_at[level][0]) if level == 0 or len(outside) * level >= 1 else None
           for key, level in FPR_LEVELS.items()}
    return ModelAttack(k, len(inside), len(outside), float(stats.auc[0]), (low, high), tpr)


def model_attacks(scores: np.ndarray, membership: np.ndarray, usable: np.ndarray, seed: int) -> list[ModelAttack]:
    """The attack's result on every usable model whose scores are all finite.

    Parameters
    ----------
    scores : numpy.ndarray
        Shape (models, records): the cross-fitted score of each pair (larger means "member").
    membership : numpy.ndarray
        Shape (models, records), True where the record trained the model.
    usable : numpy.ndarray
        Shape (models,), False for failed models.
    seed : int
        Seeds the bootstrap of each model's AUC interval.

    Returns
    -------
    list of ModelAttack

    Notes
    -----
    The shared audit scores every (model, record) pair with a rule that never saw the model (cross-fitted). Read per
    record (over the models), that is the audit's question, "is this person exposed?"; read per model (over the
    records), it is the membership-inference benchmark's question, "how well does the attack tell this model's
    members from its non-members?", which papers such as "The DCR Delusion" (Table 1) and the MIDST challenge
    report as the TPR at FPR 0 per target model. The chance level reruns the attack with the training sets shifted
    among the models (:func:`cyclic_shuffle`: no model keeps its own).

    Examples
    --------
    Scores that put every member above every non-member give AUC 1 and TPR 1 at FPR 0:

    >>> member = np.array([[True, True, False, False]])
    >>> attack = model_attacks(member.astype(float), member, np.array([True]), seed=0)[0]
    >>> attack.auc, attack.tpr_at["0"]
    (1.0, 1.0)
    """
    rng = np.random.default_rng([seed, 38])
    return [_model_attack(k, scores[k], membership[k], rng) for k in range(len(scores))
            if usable[k] and np.all(np.isfinite(scores[k]))]


def spread(values: list[float]) -> dict[str, float | None]:
    """Median, minimum and maximum (all None for no values)."""
    if not values:
        return {"median": None, "min": None, "max": None}
    return {"median": float(np.median(values)), "min": float(min(values)), "max": float(max(values))}


def models_summary(models: list[ModelAttack], null: list[ModelAttack]) -> dict[str, Any]:
    """Median and range over the models of the AUC and of each TPR level, with the chance level.

    Also the share of models whose AUC interval lies above 0.5, and the same attack's AUC and TPR at FPR 0 on the
    shuffled training sets (``chance``).
    """
    def collect(attacks: list[ModelAttack], key: str | None) -> list[float]:
        values = [m.auc if key is None else m.tpr_at.get(key) for m in attacks]
        return [v for v in values if v is not None and math.isfinite(v)]

    summary: dict[str, Any] = {"models_scored": len(models), "auc": spread(collect(models, None))}
    for key in FPR_LEVELS:
        summary[f"tpr_at_fpr_{key}"] = spread(collect(models, key))
    lows = [m.auc_interval[0] for m in models if m.auc_interval is not None]
    summary["share_models_interval_above_0.5"] = float(np.mean(np.array(lows) > 0.5)) if lows else None
    summary["chance"] = {"auc": spread(collect(null, None)), "tpr_at_fpr_0": spread(collect(null, "0"))}
    return summary


def cyclic_shuffle(membership: np.ndarray, seed: int) -> np.ndarray:
    """Each model given another model's training set: a cyclic shift over a random order.

    So no model keeps its own (which would leak its true membership into the chance level).
    """
    order = np.random.default_rng([seed, 2]).permutation(len(membership))
    shuffled = np.empty_like(membership)
    shuffled[order] = membership[np.roll(order, 1)]
    return shuffled


def per_model_entry(scores: np.ndarray, null_scores: np.ndarray, membership: np.ndarray, shuffled: np.ndarray,
                    usable: np.ndarray, seed: int, null_usable: np.ndarray | None = None) -> dict[str, Any]:
    """One attack's per-model JSON entry: ``models`` (one :class:`ModelAttack` each) and ``summary``.

    ``summary`` is :func:`models_summary`, with the chance level from ``null_scores`` on the ``shuffled`` membership,
    over the models of ``null_usable``: by default ``usable``; leave out any model the shuffle left its own set.
    """
    models = model_attacks(scores, membership, usable, seed)
    null = model_attacks(null_scores, shuffled, usable if null_usable is None else null_usable, seed)
    return {"models": [jsonable(asdict(m)) for m in models], "summary": jsonable(models_summary(models, null))}
