"""A gradient-boosted meta-classifier over the shared audit's black-box features, cross-fitted over the models.

As the MIDST challenge's black-box winners (SaTML 2025; the CITADEL/UQAM ensemble) stack distance, density and
RMIA features under a gradient-boosted classifier; here LightGBM (:data:`BOOSTER`).
"""

from __future__ import annotations

import numpy as np

from privcore.audit.crossfit import crossfit_scores, fold_scores, model_folds
from privcore.audit.rmia import bandwidth, log_signal, rmia_against
from privcore.audit.whitebox import calibrated

__all__ = ["BOOSTER", "meta_inputs", "meta_scores"]

#: LightGBM's settings: few shallow trees (a few dozen inputs, tens of thousands of pairs), one thread and
#: deterministic, so that the scores are the same on every machine and with any number of workers.
#: 31 bins and half the inputs per tree (seeded) halve the time on privbayes's features at no loss of power.
BOOSTER = {"n_estimators": 50, "learning_rate": 0.1, "num_leaves": 15, "min_child_samples": 40, "max_bin": 31,
           "reg_lambda": 1.0, "subsample": 1.0, "colsample_bytree": 0.5, "n_jobs": 1, "deterministic": True,
           "force_row_wise": True, "verbose": -1}


def meta_inputs(features: np.ndarray, membership: np.ndarray, train: np.ndarray, score: np.ndarray,
                distances: slice, folds: int, rule: np.ndarray | None = None) -> np.ndarray:
    """The classifier's inputs for the pairs of the models in ``score``, made from the models in ``train`` only.

    Parameters
    ----------
    features : numpy.ndarray
        Shape (models, records, features): the shared audit's features of every model's output.
    membership : numpy.ndarray
        Shape (models, records); only the rows of ``train`` are read.
    train, score : numpy.ndarray
        Boolean masks over the models. When they are the same models (the classifier's training pairs), each
        pair's own model is left out of its calibration and its RMIA shadows, and today's rule is cross-fitted
        within them.
    distances : slice
        Where the distances to the nearest synthetic rows are among the features (RMIA's signal).
    folds : int
        Folds of the rule's inner cross-fitting.
    rule : numpy.ndarray, optional
        Shape (score models, records): today's rule scores of the scored pairs, learnt on ``train`` (the audit's
        own cross-fitted scores); computed when omitted.

    Returns
    -------
    numpy.ndarray
        Shape (score models × records, 3 × features + 2).

    Notes
    -----
    For each (model, record) pair the inputs are:

    - every feature of :class:`privcore.audit.features.SharedFeatures` (query shares, distances, rare values, value
      reuse), as it is and calibrated per record against the training models, as the white-box attack calibrates
      losses (:func:`privcore.audit.whitebox.calibrated`: minus the record's mean over the models trained without it,
      and over those trained with it, in units of its spread): a global classifier then reads "closer than usual
      *for this person*", not "close";
    - today's per-record attack (:func:`privcore.audit.crossfit.crossfit_scores`: each record's best feature,
      LiRA-like), so that the classifier starts from what the audit already knew;
    - the RMIA score (:mod:`privcore.audit.rmia`).
    """
    same = np.array_equal(train, score)
    if rule is None:
        if same:  # each training model scored by a rule learnt on the other training models
            rule = crossfit_scores(features[train], membership[train], np.ones(int(train.sum()), bool), folds)
        else:
            rule = fold_scores(features, membership, train, score)
    distance = features[:, :, distances]
    rmia = rmia_against(log_signal(distance, bandwidth(distance[train])), membership, train, score)
    columns = [calibrated(features, membership, train, score), rule[:, :, None], rmia[:, :, None]]
    stacked = np.concatenate(columns, axis=2)
    return stacked.reshape(-1, stacked.shape[2])


def meta_scores(features: np.ndarray, membership: np.ndarray, usable: np.ndarray, folds: int, distances: slice,
                seed: int = 0, rule: np.ndarray | None = None) -> np.ndarray:
    """Score every (model, record) pair with a meta-classifier trained on the other folds' models (see the notes).

    Parameters
    ----------
    features : numpy.ndarray
        Shape (models, records, features); rows of failed models are ignored.
    membership : numpy.ndarray
        Shape (models, records), True where the record trained the model.
    usable : numpy.ndarray
        Shape (models,), False for failed models.
    folds : int
        Number of folds (model ``k`` in fold ``k mod folds``).
    distances : slice
        Where the nearest-row distances are among the features.
    seed : int
        The classifier's seed.
    rule : numpy.ndarray, optional
        Today's cross-fitted scores (:func:`privcore.audit.crossfit.crossfit_scores` on the same folds), when
        already computed.

    Returns
    -------
    numpy.ndarray
        Shape (models, records): the classifier's log-odds that the record trained the model; NaN for failed
        models and for a fold whose training pairs hold one class only.

    Notes
    -----
    Cross-fitting (:func:`meta_scores`): model ``k`` is in fold ``k mod folds``; a fold's models are scored by a
    classifier trained on the (model, record) pairs of the *other* folds' models only, and every input of a pair is
    made without the fold scored: the calibration means and RMIA's shadows are the training models (a training pair's
    own model left out of its means and of its shadows), today's rule for a training pair is cross-fitted again
    within the training models, and for a scored pair it is the rule learnt on all of them. So neither the model
    attacked nor its training set's labels reach its score.

    Examples
    --------
    A distance of 0 exactly on the training records is read perfectly:

    >>> member = np.random.default_rng(0).random((8, 40)) < 0.5
    >>> features = np.where(member, 0.0, 1.0)[:, :, None].repeat(2, axis=2)
    >>> scores = meta_scores(features, member, np.ones(8, bool), folds=2, distances=slice(0, 2))
    >>> bool(np.all((scores > 0) == member))
    True
    """
    import lightgbm  # a core dependency, imported here so that importing the audit stays quick

    if rule is None:
        rule = crossfit_scores(features, membership, usable, folds)
    scores = np.full(membership.shape, np.nan)
    for train, test in model_folds(usable, folds):
        labels = membership[train].ravel()
        if labels.all() or not labels.any():
            continue
        booster = lightgbm.LGBMClassifier(random_state=seed, **BOOSTER)
        booster.fit(meta_inputs(features, membership, train, train, distances, folds), labels)
        x_test = meta_inputs(features, membership, train, test, distances, folds, rule=rule[test])
        scores[test] = booster.predict(x_test, raw_score=True).reshape(int(test.sum()), membership.shape[1])
    return scores
