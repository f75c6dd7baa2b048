"""The stacked membership attack: one model that combines the scores of every attack of the battery."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from privcore.base import NotApplicable
from privcore.data import Param
from privcore.engine import MetricContext
from privcore.metrics.details import MembershipScores
from privcore.metrics.membership._base import (
    COMMON_INFO,
    COMMON_PARAMS,
    DEFAULT_FEATURE_NEIGHBOURS,
    MIA_NOTE,
    REFERENCE,
    REFERENCE_MIA,
    AttackScores,
    MembershipSets,
    Reference,
    Scorer,
    attack_scores,
    attack_steps,
    battery_settings,
    crossfit_within_halves,
    learned_features,
    output_from_scores,
    require_holdout,
    small_lgbm,
)
from privcore.metrics.registry import Explanation, MetricInfo, battery_ids, register
from privcore.metrics.results import MetricOutput

#: The attacks of the battery that learn from labels, whose scores are therefore not stacked.
LEARNING_ATTACKS = ("mia_learned", "mia_stacked")


def input_attacks() -> tuple[str, ...]:
    """The attacks whose scores are stacked: every attack of the battery that learns nothing from labels."""
    return tuple(a for a in battery_ids() if a not in LEARNING_ATTACKS)

#: Small gradient-boosted trees (4 leaves, half the inputs per tree, 80 % of the rows per tree), each attack
#: score constrained to raise the prediction (higher = "member" for every attack).
MODEL_SETTINGS = {"n_estimators": 100, "learning_rate": 0.05, "num_leaves": 4, "feature_fraction": 0.5,
                  "bagging_fraction": 0.8, "bagging_freq": 1}
#: Inverse L2 penalty of the logistic regression on the standardised attack scores.
LOGISTIC_C = 0.1
#: Folds per half: each model learns from 90 % of its half. At 200 members (CART tables with leaves of 1 and
#: 5 rows, PrivBayes, noisy copy; 5 seeds each) 10 folds instead of the learned attack's 5 brought the stacked
#: attack from 0.020 to 0.008 AUC below the best single attack on the CART table with leaves of 5 rows, and
#: above it on PrivBayes and the noisy copy.
FOLDS = 10
#: The seed tag of the fold assignment (the learned attack uses 19).
FOLD_TAG = 23


def standardised(values: np.ndarray) -> np.ndarray:
    """Scores as z-scores over the scored records.

    Infinities become the most extreme finite score, and a constant score becomes 0 (it tells nobody apart).

    Examples
    --------
    >>> standardised(np.array([1.0, 2.0, 3.0])).round(3).tolist()
    [-1.225, 0.0, 1.225]
    >>> standardised(np.array([1.0, np.inf, 0.0])).round(3).tolist()  # +inf counts as the largest finite score
    [0.707, 0.707, -1.414]
    """
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    if len(finite) == 0:
        return np.zeros(len(values))
    values = np.nan_to_num(values, nan=float(np.median(finite)), posinf=float(finite.max()), neginf=float(finite.min()))
    sd = float(values.std())
    # A spread within rounding of the scores' magnitude is a constant score ([1.9, 1.9, 1.9] has a std of
    # about 2e-16, and dividing by it would turn rounding into ±1).
    constant = sd <= 1e-9 * max(1.0, float(np.abs(values).max()))
    return np.zeros(len(values)) if constant else (values - values.mean()) / sd


def fit_stack(features, labels, train, score_rows, extra_rows, seed, n_scores):
    """One fold of the stacked attack: the mean of two log-odds of "member", trained on the rows ``train``.

    - an L2-regularised logistic regression (``C`` = :data:`LOGISTIC_C`) on the ``n_scores`` standardised
      attack scores (the first columns): a weighted sum of the attacks, steady on a few hundred records;
    - small gradient-boosted trees (:data:`MODEL_SETTINGS`) on every column, each attack score only raising
      the prediction: what a sum cannot express, such as the typical distance at which a noisy copy puts a
      member's synthetic row.

    Measured at 250 members (noisy copy, exact copy, CART tables with leaves of 1 and 5 rows, PrivBayes; 5
    seeds each), against the best single attack on all records: the trees alone fell 0.023 AUC below it on
    average on the CART table with leaves of 5 rows, the logistic regression alone 0.05–0.08 on the noisy
    copy; their mean stays within 0.007 of it on every table (the learned attack's unconstrained trees of 15
    leaves fell 0.06 below on that CART table).

    Returns
    -------
    scored, extra : numpy.ndarray
        The log-odds at ``score_rows`` and at ``extra_rows``.
    """
    # Imported here: scikit-learn costs about 0.5 s at start-up and only this attack's fit needs it, while the
    # module is imported by every evaluation to register the metric.
    from sklearn.linear_model import LogisticRegression

    # No fixed-rule attack could run (a table too small for all of them): the trees alone on the distances.
    logistic = (LogisticRegression(C=LOGISTIC_C, max_iter=1000).fit(features[train, :n_scores], labels[train])
                if n_scores else None)
    # Distances may act either way (a noisy copy puts members at a typical distance, not the smallest).
    monotone = [1] * n_scores + [0] * (features.shape[1] - n_scores)
    trees = small_lgbm(seed, len(train), {**MODEL_SETTINGS, "monotone_constraints": monotone})
    trees.fit(features[train], labels[train])

    def log_odds(rows):
        if len(rows) == 0:
            return np.empty(0)
        trees_part = trees.predict(features[rows], raw_score=True)
        if logistic is None:
            return trees_part
        return 0.5 * logistic.decision_function(features[rows, :n_scores]) + 0.5 * trees_part

    return log_odds(score_rows), log_odds(extra_rows)


def stacked_scores(ctx: MetricContext, sets: MembershipSets, reference: Reference, params: Mapping) -> AttackScores:
    """The scores of :func:`compute_mia_stacked` for every real row and each non-member."""
    table = params.get("reference")
    columns, used, skipped = [], [], {}
    for attack_id in input_attacks():
        try:
            scores = attack_scores(ctx, attack_id, battery_settings(ctx, attack_id, table), table)
        except NotApplicable as exc:
            skipped[attack_id] = str(exc)
            continue
        columns.append(standardised(np.r_[scores.real, scores.nonmembers]))
        used.append(attack_id)
    k = int(params.get("k", DEFAULT_FEATURE_NEIGHBOURS))
    features = np.column_stack([*columns, learned_features(ctx, sets, reference, k)])
    scores, folds, across = crossfit_within_halves(ctx, features, sets, len(columns), FOLD_TAG, fit=fit_stack,
                                           folds=FOLDS)
    n_real = len(ctx.real)
    warnings = tuple(f"{a} could not run and is not stacked: {why}" for a, why in skipped.items())
    details = {"reference": reference.described, "reference_positions": sets.reference}
    settings = {"stacked_attacks": used, "k": k,
                "model": "mean log-odds of a logistic regression on the scores and gradient-boosted trees on every "
                         "input",
                "logistic_C": LOGISTIC_C, **MODEL_SETTINGS, "folds_per_half": folds, "reference": reference.described}
    return AttackScores(scores[:n_real], scores[n_real:], 0.0, details, settings, warnings,
                        across_halves=(across[:n_real], across[n_real:]))


def compute_mia_stacked(ctx: MetricContext) -> MetricOutput:
    """Stacked membership inference: a model on the standardised scores of the battery's attacks.

    Every record ``x`` is described by the z-scores of the fixed-rule attacks (:func:`input_attacks`, those
    that can run) and by its distances to its ``k`` nearest synthetic and reference rows (``k`` default 5, as
    the learned attack); a logistic regression on the z-scores and monotone gradient-boosted trees on every
    input learn members (1) from non-members (0) (:func:`fit_stack`); ``s(x)`` = the mean of their log-odds
    of "member". Cross-fitted within the halves of ``mia_best`` (module
    docstring), so no record is scored by a model that saw its label. per_record (real) = ``s(y)`` for every
    real row.

    Notes
    -----
    No single attack of the battery dominates (Ward et al. 2025): a distance wins on copies, a density ratio on
    smooth generators, the classifier on tree synthesisers. ``mia_stacked`` lets a model weigh them, the way
    stacked generalisation combines predictors (Wolpert 1992). Every record ``x`` (each real row and each
    non-member) is described by

    - the scores of the battery's fixed-rule attacks (:func:`input_attacks`), each standardised to mean 0 and
      standard deviation 1 over the scored records (so that no attack counts more for being on a larger scale),
      read from the evaluation's cache (:func:`privcore.metrics.membership._base.attack_scores`): the same
      scores those attacks report, computed once;
    - the learned attack's distances to the ``k`` nearest synthetic and reference rows
      (:func:`privcore.metrics.membership._base.learned_features`, the same neighbour search).

    Two models learn members (1) from non-members (0) and the score is the mean of their log-odds
    (:func:`fit_stack`): a regularised logistic regression on the standardised scores, and small gradient-boosted
    trees on every input in which each attack's score may only raise the prediction. They are cross-fitted within
    the halves of ``mia_best`` (:func:`privcore.metrics.membership._base.crossfit_within_halves`, 10 folds per
    half from ``numpy.random.default_rng([seed, 23])``), so

    - no record is scored by a model that saw its label;
    - ``mia_best``, which chooses on half A and reports on half B, chooses with scores learned from A's labels
      only.

    The learned attack's *score* is not an input: it is itself learned from labels of other records of the half,
    including those of the record being scored by the stacked model, so stacking it would let a record's label
    reach its own score through a second model. Its label-free distance features are inputs instead, and every
    fixed-rule attack uses only the synthetic and reference tables.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"x": [float(v) for v in range(0, 80, 2)]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="mia_stacked",
    ...                holdout=real + 1.0, params={"mia_stacked": {"n_boot": 0}})
    >>> res["mia_stacked"].raw > 0.9  # members sit at distance 0 from a synthetic row, non-members at 1
    True
    """
    require_holdout(ctx, 8)
    return output_from_scores(ctx, "mia_stacked")




register(MetricInfo(
    id="mia_stacked",
    order=360,
    cost=(1.5, 1.3),  # not measured on its own: the typical cost of a membership attack
    scorer=Scorer(stacked_scores, ("k",)),
    name="Membership inference: stacked attack (every attack combined)",
    summary="Do the attacks together, weighed by a model, tell training records from other people?",
    attacker_knows="The synthetic table, the suspect's record, a reference sample of other real people, every "
                   "attack of the battery, and for some other people whether they were in the training data (an "
                   "auditor's knowledge).",
    reference="Wolpert, Stacked Generalization (Neural Networks 1992); Ward et al. 2025 (Synth-MIA: no single "
              "attack dominates); Stadler, Oprisanu and Troncoso 2022 (learned meta-attacks); " + REFERENCE_MIA + ".",
    explanation=Explanation(
        attack="Each attack of the battery looks for one kind of leak; the attacker lets a model learn from people "
               "whose membership is known how much to trust each attack on these tables, and combines them.",
        steps=attack_steps("Score each person with every fixed-rule attack (put on one scale) and describe them by the "
                           "distances to their 5 closest synthetic rows and 5 closest reference people; train a "
                           "model (LightGBM) on some known members and non-members and score the others with it, "
                           "so nobody is scored by a model that saw them."),
        high="The attacks together give training records away, at least as well as the strongest of them alone: "
             "the synthetic data leaks membership.",
        low="Even combined, the attacks find nothing that sets training records apart from other people.",
        blind_spots="It learns from the holdout and training rows themselves, so on small tables the model has few "
                    "examples and can be a little weaker than the best single attack. Like every data-only attack, "
                    "a lower bound on what shadow-model attacks can do.",
        note=MIA_NOTE + "; Choice (beyond metrics.md): the inputs are the attacks that learn nothing from labels "
                         "plus the learned attack's distances (not its score, which is itself learned from labels); "
                         "the model is cross-fitted within the two halves that the strongest attack is chosen and "
                         "reported on, so choosing it stays honest.",
    ),
    compute=compute_mia_stacked,
    passes=(('E', 'real', 'synthetic'), ('E', 'holdout', 'synthetic')),
    details_type=MembershipScores,
    params=(*COMMON_PARAMS, REFERENCE,
            Param("k", "int", DEFAULT_FEATURE_NEIGHBOURS, "Neighbours",
                  "How many closest synthetic rows and closest reference people describe each person, beside "
                  "the attack scores.", minimum=1, maximum=50, step=1)),
    uses_classifier=True,
    **COMMON_INFO,
))
