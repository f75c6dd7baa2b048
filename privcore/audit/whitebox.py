"""The white-box membership attack of the shared audit: each record's loss under each trained model.

Threat model: :data:`THREAT_MODEL` (the MIDST challenge's white-box track, SaTML 2025).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from privcore.audit._base import AuditError
from privcore.audit.crossfit import model_folds, record_statistics
from privcore.audit.per_model import FPR_LEVELS, ModelAttack, cyclic_shuffle, model_attacks, models_summary
from privcore.base import jsonable
from privcore.generators import per_record_loss

__all__ = ["THREAT_MODEL", "WHITEBOX_FPR_LEVELS", "ModelAttack", "WhiteBoxResult", "attack_losses", "calibrated",
           "has_loss", "loss_matrix", "wants_whitebox", "whitebox_result"]

#: What the white-box attacker is assumed to have, as the page and the JSON state it.
THREAT_MODEL = ("White box: the attacker has each trained model (not only its synthetic output) and can compute "
                "each record's loss under it, here the generator's per-record loss at fixed timesteps with fixed "
                "noise; they also train shadow models like it on data from the same population, and know the "
                "full record of each person under suspicion.")
#: False-positive rates at which each target model's TPR is reported (JSON keys).
WHITEBOX_FPR_LEVELS = FPR_LEVELS
#: Floor of a record's loss spread (a loss constant over the models, as an exact copy's 0, stays finite).
SPREAD_FLOOR = 1e-6


def _loss_owner(generator: Any) -> Any:
    """The object whose ``per_record_loss`` answers: the generator, or the outside object it wraps."""
    if callable(getattr(generator, "per_record_loss", None)):
        return generator
    inner = getattr(generator, "inner", None)
    return inner if callable(getattr(inner, "per_record_loss", None)) else None


def has_loss(generator: Any) -> bool:
    """Whether ``generator`` (fitted or not) offers the white-box per-record loss.

    Examples
    --------
    >>> class Plain: pass
    >>> class Lossy:
    ...     def per_record_loss(self, table, *, seed=0): return table.iloc[:, 0].to_numpy()
    >>> has_loss(Plain()), has_loss(Lossy())
    (False, True)
    """
    return _loss_owner(generator) is not None


def wants_whitebox(generator: Any, asked: bool | None) -> bool:
    """Whether an audit of ``generator`` runs the white-box attack: as ``asked``, or when None, if it has a loss.

    Raises
    ------
    AuditError
        The attack was asked for (``asked`` True) and the generator has no loss.
    """
    if asked and not has_loss(generator):
        raise AuditError("The white-box attack needs a generator with a per-record loss (a per_record_loss method, "
                         "as tabddpm has); this one has none.")
    return has_loss(generator) if asked is None else bool(asked)


def loss_matrix(model: Any, table: pd.DataFrame, seed: int) -> np.ndarray | None:
    """A fitted model's loss on each record of ``table``: shape (records, columns), or None without a loss.

    Parameters
    ----------
    model : object
        A fitted generator.
    table : DataFrame
        Records with the training table's columns (the audit's pool).
    seed : int
        Seed of the loss's fixed noise (the same for every model of an audit).

    Returns
    -------
    numpy.ndarray or None
        One column per timestep of the model's ``default_loss_timesteps()`` when it has them, else one column.

    Raises
    ------
    privcore.generators.GeneratorOutputError
        The model's loss is not one finite number per record.
    """
    owner = _loss_owner(model)
    if owner is None:
        return None
    timesteps = getattr(owner, "default_loss_timesteps", None)
    if callable(timesteps):  # one call per timestep: each answer checked as one number per record
        columns = [per_record_loss(model, table, seed=seed, timesteps=[int(t)]) for t in timesteps()]
    else:
        columns = [per_record_loss(model, table, seed=seed)]
    return np.column_stack(columns)


def calibrated(losses: np.ndarray, membership: np.ndarray, train: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Features of the (model, record) pairs of the models in ``score``, calibrated on the models in ``train``.

    Also the black-box meta-classifier's calibration (:mod:`privcore.audit.meta`), on the shared features.

    Parameters
    ----------
    losses : numpy.ndarray
        Shape (models, records, columns): per-record values of every model (losses, or any features).
    membership : numpy.ndarray
        Shape (models, records); only the rows of ``train`` are read.
    train, score : numpy.ndarray
        Boolean masks over the models: those that calibrate, and those whose pairs are returned.

    Returns
    -------
    numpy.ndarray
        Shape (score models, records, 3 × columns): the values, and their distances to the record's mean over
        the training models without it and over those with it, each in units of the record's spread over the
        training models. A model both trained on and scored leaves itself out of the means.
    """
    seen, inside = losses[train], membership[train][:, :, None].astype(float)
    outside = 1.0 - inside
    sum_in, sum_out = (seen * inside).sum(axis=0), (seen * outside).sum(axis=0)
    n_in, n_out = inside.sum(axis=0), outside.sum(axis=0)
    spread = np.maximum(seen.std(axis=0), SPREAD_FLOOR)
    own = losses[score]
    own_in = membership[score][:, :, None].astype(float)
    self_in = own_in * train[score][:, None, None]  # the pair's own model is among the training models
    self_out = (1.0 - own_in) * train[score][:, None, None]
    mean_in = (sum_in - self_in * own) / np.maximum(n_in - self_in, 1.0)
    mean_out = (sum_out - self_out * own) / np.maximum(n_out - self_out, 1.0)
    return np.concatenate([own, (own - mean_out) / spread, (own - mean_in) / spread], axis=2)


def _classifier(seed: int) -> Any:
    # A small linear model: a few dozen features from thousands of pairs; scaled, so one C suits any loss's units.
    return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=500, random_state=seed))


def attack_losses(losses: np.ndarray, membership: np.ndarray, usable: np.ndarray, folds: int,
                  seed: int = 0) -> np.ndarray:
    """Score every (model, record) pair with a classifier trained on the other folds' models (see the notes).

    Parameters
    ----------
    losses : numpy.ndarray
        Shape (models, records, columns): each model's loss on each record (failed models: any values).
    membership : numpy.ndarray
        Shape (models, records), True where the record was in the model's training set.
    usable : numpy.ndarray
        Shape (models,), False for failed models.
    folds : int
        Number of folds (model ``k`` in fold ``k mod folds``).
    seed : int
        Seed of the classifier.

    Returns
    -------
    numpy.ndarray
        Shape (models, records): the classifier's log-odds that the record trained the model (larger: more
        likely a member); NaN for failed models and for a fold whose training models hold only one class.

    Examples
    --------
    A loss of 0 exactly on the training records is read perfectly:

    >>> member = np.random.default_rng(0).random((8, 30)) < 0.5
    >>> scores = attack_losses((~member)[:, :, None] * 1.0, member, np.ones(8, bool), folds=2)
    >>> bool(np.all((scores > 0) == member))
    True
    """
    n_records = membership.shape[1]
    scores = np.full(membership.shape, np.nan)
    for train, test in model_folds(usable, folds):
        labels = membership[train].ravel()
        if labels.all() or not labels.any():
            continue
        x_train = calibrated(losses, membership, train, train)
        model = _classifier(seed).fit(x_train.reshape(labels.size, -1), labels)
        x_test = calibrated(losses, membership, train, test)
        scores[test] = model.decision_function(x_test.reshape(-1, x_test.shape[2])).reshape(int(test.sum()),
                                                                                              n_records)
    return scores


@dataclass
class WhiteBoxResult:
    """Per target model and per record, the white-box attack's results, and its summary over the models."""

    loss_columns: int
    models: list[ModelAttack]
    records: list[dict[str, Any]]
    summary: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The ``whitebox`` entry of the shared audit's JSON, the threat model stated."""
        return {"threat_model": THREAT_MODEL, "loss_columns": self.loss_columns,
                "models": [jsonable(asdict(m)) for m in self.models], "records": jsonable(self.records),
                "summary": jsonable(self.summary)}


def whitebox_result(losses: Sequence[np.ndarray | None], membership: np.ndarray, usable: np.ndarray, folds: int,
                    seed: int, rows: np.ndarray) -> WhiteBoxResult:
    """The white-box attack cross-fitted over the models, per target model and per record, with its chance level.

    Parameters
    ----------
    losses : sequence of numpy.ndarray or None
        Per model, its :func:`loss_matrix` on the pool, shape (records, columns); None for a failed model.
    membership, usable : numpy.ndarray
        As for :func:`attack_losses`; a model without losses counts as failed.
    folds, seed : int
        The shared audit's folds and seed.
    rows : numpy.ndarray
        Each pool record's row in the real table as given (the per-record entries name it).

    Returns
    -------
    WhiteBoxResult

    Notes
    -----
    Threat model (:data:`THREAT_MODEL`): the attacker holds the trained model, not only its synthetic output, and
    can compute each record's loss under it; this is the setting of the MIDST challenge's white-box track (SaTML
    2025), where the winning attack ("Tartan Federer", CMU) reads each record's denoising loss at a few chosen
    timesteps with fixed noise and learns from shadow models which losses mark members. It applies to a generator
    that offers a per-record loss (:class:`privcore.generators.base.PerRecordLoss`: ``tabddpm``, or a generator of
    your own with a ``per_record_loss`` method).

    Steps:

    1. Every model of the shared audit, once fitted, scores every pool record (:func:`loss_matrix`): one column
       per timestep of the generator's :meth:`default_loss_timesteps` when it has them (one call per timestep, so
       that any generator's answer is checked as one finite number per record), else the single loss it returns.
       The noise seed is the audit's, the same for every model, so a record's losses differ between models
       through the models alone.
    2. A logistic regression per fold (:func:`attack_losses`), cross-fitted exactly as the black-box attack
       (:mod:`privcore.audit.crossfit`): model ``k`` is in fold ``k mod folds``, and a fold's models are scored by a
       classifier trained on the (model, record) pairs of the other folds only, so the model attacked is never in
       the attack's training data. Its features are the losses (standardised) and each record's losses
       calibrated against the training models: minus their mean over the models trained without the record, and
       minus their mean over those trained with it, in units of the record's spread (LiRA's per-record
       calibration, Carlini et al. 2022: a record that is hard for every model is not a member for its high loss).
       For a training pair the means leave out the pair's own model, so training and scoring see the same kind of
       feature.
    3. Per target model (:func:`whitebox_result`): the AUC over its known members and non-members of the pool
       (with a bootstrap interval over the records) and the TPR at FPR 0, 0.1 % and 1 % (a level is reported
       only with at least 1/level non-members; FPR 0 always); per record, the AUC over the models.

    What chance gives is measured as the black-box attack's is: the training sets shuffled among the models (none
    keeps its own) and the attack rerun once (``chance`` in the summary).
    """
    usable = np.asarray(usable) & np.array([loss is not None for loss in losses])
    if not usable.any():
        raise ValueError("No model returned its losses: the white-box attack has nothing to learn from.")
    shape = next(loss.shape for loss in losses if loss is not None)
    losses = np.stack([np.zeros(shape) if loss is None else loss for loss in losses])
    scores = attack_losses(losses, membership, usable, folds, seed)
    models = model_attacks(scores, membership, usable, seed)
    records = []
    for i, row in enumerate(rows):
        column, scored = scores[:, i], usable & np.isfinite(scores[:, i])
        stats = record_statistics(np.nan_to_num(column), membership[:, i], scored, seed, int(row))
        inside, outside = column[scored & membership[:, i]], column[scored & ~membership[:, i]]
        records.append({"row": int(row), "auc": None if stats is None else stats["auc"],
                        "auc_interval": None if stats is None else stats["auc_interval"],
                        "mean_score_in": float(inside.mean()) if len(inside) else None,
                        "mean_score_out": float(outside.mean()) if len(outside) else None})
    # Each model given another model's training set (no model keeps its own).
    shuffled = cyclic_shuffle(membership, seed)
    null = model_attacks(attack_losses(losses, shuffled, usable, folds, seed), shuffled, usable, seed)
    summary = models_summary(models, null)
    return WhiteBoxResult(loss_columns=int(losses.shape[2]), models=models, records=records, summary=summary)
