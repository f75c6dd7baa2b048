"""Discriminator (metrics.md §6): how well a classifier tells real rows from synthetic ones."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from privcore.base import NotApplicable
from privcore.engine import MetricContext
from privcore.metrics.classifier import make_lgbm
from privcore.metrics.details import Discrimination
from privcore.metrics.registry import Explanation, MetricInfo, register
from privcore.metrics.results import MetricOutput
from privcore.metrics.utility._base import array_digest

FOLDS = 5


def discriminate(real: np.ndarray, other: np.ndarray, seed: int, workers: int = 1) -> Discrimination:
    """The cross-fitted discriminator on two encoded tables (rows × features).

    Rows are put in a content-defined order first, so the result does not depend on the tables' row order. The
    folds are fitted side by side on up to ``workers`` threads (LightGBM releases the GIL; each fit is seeded and
    uses one thread, so the result does not depend on ``workers``).

    Notes
    -----
    LightGBM separates rows of the real table (label 1) from rows of the synthetic table (label 0) on the features of the
    encoded space E (the same encoding as the distance metrics), equal numbers of each (the larger table cut at random),
    5-fold cross-fitted: each row is scored by the model that did not train on it. The AUC is the mean over the folds
    (0.5 = indistinguishable); the utility is ``1 − max(0, 2·AUC − 1)``.
    """
    from sklearn.metrics import roc_auc_score  # lazy: heavy: scikit-learn only when the discriminator runs
    from sklearn.model_selection import StratifiedKFold  # lazy: as the line above

    rows = min(len(real), len(other))
    rng = np.random.default_rng([seed, 37])
    parts = []
    for table in (real, other):
        table = table[np.lexsort(table.T[::-1])] if table.shape[1] else table
        parts.append(table[np.sort(rng.choice(len(table), size=rows, replace=False))] if len(table) > rows else table)
    features = np.vstack(parts)
    labels = np.r_[np.ones(rows, dtype=np.int64), np.zeros(rows, dtype=np.int64)]

    def fold_auc(split) -> float:
        train, test = split
        model = make_lgbm(seed)
        model.fit(features[train], labels[train])
        return float(roc_auc_score(labels[test], model.predict_proba(features[test])[:, 1]))

    splits = list(StratifiedKFold(n_splits=FOLDS, shuffle=True, random_state=seed).split(features, labels))
    threads = max(1, min(workers, FOLDS))
    if threads == 1:
        fold_aucs = [fold_auc(split) for split in splits]
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            fold_aucs = list(pool.map(fold_auc, splits))  # in fold order
    auc = float(np.mean(fold_aucs))
    error = 1.96 * float(np.std(fold_aucs, ddof=1)) / np.sqrt(FOLDS)
    return Discrimination(utility=float(1.0 - max(0.0, 2.0 * auc - 1.0)), auc=auc, fold_aucs=fold_aucs,
                          auc_interval=(max(0.0, auc - error), min(1.0, auc + error)), rows_per_table=int(rows),
                          n_features=int(features.shape[1]), learner="LightGBM")


def compute_discriminator(ctx: MetricContext) -> MetricOutput:
    """Discriminator AUC: ``utility = 1 − max(0, 2·AUC − 1)``; ``raw`` = the AUC (0.5 = indistinguishable).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from privcore import evaluate
    >>> rng = np.random.default_rng(0)
    >>> real = pd.DataFrame({"a": rng.normal(size=200), "b": rng.choice(["x", "y"], 200)})
    >>> shifted = real.assign(a=real["a"] + 20)  # trivially told apart
    >>> evaluate(real, shifted, metrics="utility_discriminator")["utility_discriminator"].utility.score < 0.01
    True
    """
    if ctx.space("E").dim == 0:
        raise NotApplicable("every column is constant in the real table, so there is no feature to tell real from "
                            "synthetic rows by.")
    real, other = ctx.encoded("E", "real"), ctx.encoded("E", "synthetic")
    if min(len(real), len(other)) < FOLDS:
        raise NotApplicable(f"needs at least {FOLDS} rows in each table for {FOLDS}-fold cross-fitting.")
    if ctx.is_baseline and ctx.shared.reusing:
        # The fresh-sample reference (the holdout in place of the synthetic table) is the same for every
        # synthetic table compared against one real table and holdout: fitted once where the caller keeps
        # ``reuse`` between evaluations (the lab, the dashboard's comparisons).
        key = ("utility_discriminator against the holdout", ctx.seed, FOLDS, array_digest(real, other))
        details = ctx.shared.reused(key)
        if details is None:
            details = discriminate(real, other, ctx.seed, ctx.workers)
            ctx.shared.keep_for_reuse(key, details)
    else:
        details = discriminate(real, other, ctx.seed, ctx.workers)
    return MetricOutput(risk=None, raw=details.auc, details=details,
                        params={"seed": ctx.seed, "n_folds": FOLDS, "learner": "LightGBM"})


register(MetricInfo(
    id="utility_discriminator",
    order=440,
    # 10 fits with its fresh-sample reference on the demo's 3 × 3,000 rows, measured as is.
    cost=(1.2, 1.0),
    name="Discriminator (can a model tell synthetic rows from real ones?)",
    family="Utility",
    summary="How well does a classifier tell real rows from synthetic ones? 0.5 = not at all.",
    attacker_knows="No attacker: a utility measure. A classifier is given real and synthetic rows and learns what "
    "tells them apart.",
    needs=frozenset(),
    per_record_unit="none",
    raw_meaning="The cross-fitted ROC AUC of telling real (1) from synthetic (0) rows: 0.5 = indistinguishable, "
    "1 = always told apart.",
    reference="metrics.md §6; as SDMetrics' detection metrics and D-MLP/MIR of the review, with LightGBM",
    explanation=Explanation(
        attack="Not an attack on people: the measure asks whether the synthetic rows look like real ones as a "
        "whole. A classifier that easily tells them apart has found something the generator got wrong.",
        steps=(
            "Take as many real rows as synthetic ones and encode them as the distance metrics do.",
            "Train LightGBM to tell the two apart on four fifths of the rows and score the remaining fifth, five "
            "times, so that every row is scored by a model that never saw it.",
            "The AUC is the mean over the five folds; the score is 1 − (2·AUC − 1): 1 when the rows cannot be told "
            "apart, 0 when they always can.",
        ),
        high="The classifier cannot tell synthetic rows from real ones (AUC near 0.5), as it could not tell a fresh "
        "sample of real people.",
        low="Synthetic rows are easy to tell from real ones: some combination of values looks wrong.",
        blind_spots="Says that something differs, not what: the column shapes and pair trends show where. An exact "
        "copy also scores 1, so read it beside the privacy metrics.",
        note="Choice: LightGBM on the encoded space E, equal numbers of rows, 5-fold cross-fitted; an AUC below 0.5 "
        "counts as 0.5.",
    ),
    compute=compute_discriminator,
    details_type=Discrimination,
    min_rows=FOLDS,
    uses_classifier=True,
    interval_kind="standard error",
))
