"""The shared audit's stronger black-box attacks, reported beside today's.

RMIA and a gradient-boosted meta-classifier.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from privcore.audit.crossfit import NULL_SHUFFLES, crossfit_scores, record_statistics
from privcore.audit.meta import meta_scores
from privcore.audit.per_model import per_model_entry
from privcore.audit.rmia import rmia_scores
from privcore.base import jsonable

__all__ = ["STRONGER_ATTACKS", "StrongerResult", "attack_shares", "stronger_attack", "stronger_scores"]

#: The stronger attacks, in words (JSON ``stronger.attacks``; the pages' labels).
STRONGER_ATTACKS = {
    "rmia": "RMIA: each record's closeness to the output, relative to the shadow models and to other people",
    "meta": "Meta-classifier: gradient-boosted trees over every feature, today's score and RMIA's",
}


@dataclass
class StrongerResult:
    """Per record and in summary, the stronger attacks' results (:data:`STRONGER_ATTACKS`)."""

    records: list[dict[str, Any]]
    summary: dict[str, dict[str, Any]]
    #: Per attack, its result per target model (:func:`privcore.audit.per_model.per_model_entry`).
    models: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The ``stronger`` entry of the shared audit's JSON."""
        return {"attacks": dict(STRONGER_ATTACKS), "records": jsonable(self.records),
                "summary": jsonable(self.summary), "per_model": jsonable(getattr(self, "models", {}))}


def _all_scores(features: np.ndarray, membership: np.ndarray, usable: np.ndarray, folds: int, distances: slice,
                seed: int, rule: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Each stronger attack's cross-fitted scores, shape (models, records)."""
    rule = crossfit_scores(features, membership, usable, folds) if rule is None else rule
    return {"rmia": rmia_scores(features[:, :, distances], membership, usable, folds),
            "meta": meta_scores(features, membership, usable, folds, distances, seed, rule=rule)}


def _statistics(scores: np.ndarray, membership: np.ndarray, usable: np.ndarray, seed: int,
                ids: np.ndarray) -> list[dict | None]:
    out = []
    for i, record in enumerate(ids):
        column = scores[:, i]
        out.append(record_statistics(np.nan_to_num(column), membership[:, i], usable & np.isfinite(column), seed,
                                     int(record), len(ids)))
    return out


def stronger_scores(features: np.ndarray, membership: np.ndarray, usable: np.ndarray, folds: int, distances: slice,
                    seed: int, ids: np.ndarray) -> dict[str, list[dict | None]]:
    """Each stronger attack's per-record statistics on one membership matrix, without the chance level.

    What :mod:`privcore.audit.timing` times once.

    Parameters
    ----------
    features, membership, usable, distances, folds, seed
        As for :func:`stronger_attack`.
    ids : numpy.ndarray
        Each record's id, which seeds its bootstrap.

    Returns
    -------
    dict
        Per attack, one :func:`privcore.audit.crossfit.record_statistics` (or None) per record.
    """
    scores = _all_scores(features, membership, usable, folds, distances, seed)
    return {name: _statistics(s, membership, usable, seed, ids) for name, s in scores.items()}


def attack_shares(stats: list[dict | None]) -> dict[str, float | None]:
    """Records scored, mean AUC and the shares of records above AUC 0.6 and 0.8 and with an interval above 0.5.

    Examples
    --------
    >>> attack_shares([{"auc": 0.9, "auc_interval": (0.7, 1.0)}, {"auc": 0.5, "auc_interval": (0.3, 0.7)}, None])
    {'records_scored': 2, 'mean_auc': 0.7, 'share_auc_above_0.6': 0.5, 'share_auc_above_0.8': 0.5, 'share_interval_above_0.5': 0.5}
    """
    scored = [s for s in stats if s is not None]
    if not scored:
        return {"records_scored": 0, "mean_auc": None, "share_auc_above_0.6": None, "share_auc_above_0.8": None,
                "share_interval_above_0.5": None}
    aucs = np.array([s["auc"] for s in scored])
    lows = np.array([s["auc_interval"][0] for s in scored])
    return {"records_scored": len(scored), "mean_auc": float(aucs.mean()),
            "share_auc_above_0.6": float(np.mean(aucs > 0.6)), "share_auc_above_0.8": float(np.mean(aucs > 0.8)),
            "share_interval_above_0.5": float(np.mean(lows > 0.5))}


def stronger_attack(features: np.ndarray, membership: np.ndarray, usable: np.ndarray, distances: slice, folds: int,
                    seed: int, rows: np.ndarray, rule: np.ndarray | None = None) -> StrongerResult:
    """RMIA and the meta-classifier on the shared audit's features, per record and in summary, with their chance.

    Parameters
    ----------
    features : numpy.ndarray
        Shape (models, records, features): the shared features of every model's output (failed models: any).
    membership, usable : numpy.ndarray
        Shapes (models, records) and (models,), as for :func:`privcore.audit.crossfit.crossfit_scores`.
    distances : slice
        Where the nearest-row distances are among the features (RMIA's signal).
    folds, seed : int
        The shared audit's folds and seed (the chance level's shuffles are drawn as ``null_shares`` draws them).
    rows : numpy.ndarray
        Each pool record's row in the real table as given (the per-record entries name it).
    rule : numpy.ndarray, optional
        Today's cross-fitted scores, when the audit has them (computed otherwise).

    Returns
    -------
    StrongerResult
        ``records``: per record, each attack's AUC and interval; ``summary``: per attack, :func:`attack_shares`
        with ``chance_share_above_0.6`` and ``chance_share_interval_above_0.5`` beside them.

    Notes
    -----
    Today's attack (:mod:`privcore.audit.crossfit`) picks one feature per record. Two attacks join it, on the same
    features of the same models, under the same threat model (the synthetic outputs only):

    - ``rmia``: each record's closeness to a target output calibrated on the shadow models and compared with the
      other pool records (:mod:`privcore.audit.rmia`);
    - ``meta``: LightGBM over every feature, calibrated per record, plus today's score and RMIA's
      (:mod:`privcore.audit.meta`).

    Both are cross-fitted over the models as today's is (model ``k`` in fold ``k mod folds``; no model's score is made
    with its own membership), and both get the same statistics per record (:func:`privcore.audit.crossfit.record_statistics`:
    AUC over the models with a bootstrap interval) and the same measured chance level: the training sets shuffled among
    the models with the same shuffles as :func:`privcore.audit.crossfit.null_shares`, and each attack rerun whole.

    **Which attack the summary and the verdict use.** Today's; the stronger attacks stand beside it
    (``stronger`` in the JSON) with their own shares and chance shares, and the pages show the three side by side.
    Taking, for the verdict, whichever attack exposes more records *after* seeing all three would be a maximum over
    attacks whose chance level was measured for each alone: the chance share of the maximum is larger than any of
    theirs, so the comparison with chance would be counted twice in the attacker's favour. Choosing on held-out
    models instead costs half the models of every attack. Keeping the verdict's attack fixed keeps the verdict's
    calibration (:mod:`privcore.evaluation.verdict`, and the ε lower bounds of each record, measured at today's
    rule's own threshold) exactly as it was validated, while the reader sees at once when the stronger attack
    finds more, each share next to its own chance. And it does not always find more: in ``bench/bench_audit_rmia.py``
    the meta-classifier exposes 84 % of 1,000 records against today's 52 % on ``privbayes`` (64 models), but on small
    CTGAN audits (100 records, 8 or 16 models) a lower raw share than today's rule, whose chance share is then high.
    """
    scores = _all_scores(features, membership, usable, folds, distances, seed, rule)
    stats = {name: _statistics(s, membership, usable, seed, rows) for name, s in scores.items()}
    records = []
    for i, row in enumerate(rows):
        entry: dict[str, Any] = {"row": int(row)}
        for name in STRONGER_ATTACKS:
            s = stats[name][i]
            entry[f"{name}_auc"] = None if s is None else s["auc"]
            entry[f"{name}_auc_interval"] = None if s is None else s["auc_interval"]
        records.append(entry)
    summary = {name: attack_shares(stats[name]) for name in STRONGER_ATTACKS}
    # What chance gives: the same shuffles of the training sets among the models as today's attack's chance level.
    rng = np.random.default_rng([seed, 1])
    null: dict[str, list[dict | None]] = {name: [] for name in STRONGER_ATTACKS}
    per_model: dict[str, dict[str, Any]] = {}
    for shuffle in range(NULL_SHUFFLES):
        order = rng.permutation(len(membership))
        shuffled = membership[order]
        null_scores = _all_scores(features, shuffled, usable, folds, distances, seed)
        for name, s in null_scores.items():
            null[name] += _statistics(s, shuffled, usable, seed, np.arange(len(rows)))
        if shuffle == 0:  # per target model; a model the shuffle left its own training set is no chance level
            moved = usable & (order != np.arange(len(order)))
            per_model = {name: per_model_entry(scores[name], null_scores[name], membership, shuffled, usable, seed,
                                               null_usable=moved) for name in STRONGER_ATTACKS}
    for name in STRONGER_ATTACKS:
        chance = attack_shares(null[name])
        summary[name]["chance_share_above_0.6"] = chance["share_auc_above_0.6"]
        summary[name]["chance_share_interval_above_0.5"] = chance["share_interval_above_0.5"]
    return StrongerResult(records=records, summary=summary, models=per_model)
