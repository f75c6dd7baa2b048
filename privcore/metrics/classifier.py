"""Classifier metrics (metrics.md §2; review §2.2.3 and §2.2.11): D-MLP and MIR.

Both label real rows 1 and synthetic rows 0 and train a model to tell them apart on the features of
space E (``ctx.encoded("E", ...)``, shared with the distance metrics). In the §5 baseline the
"synthetic" role is the holdout, so the same code gives the fresh-sample score.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

# LightGBM uses OpenMP. With GNU OpenMP's default (active) waiting, idle threads spin between parallel
# regions and on a 2-core machine a fit has been measured 30–100× slower (metrics.md §2.2.11). libgomp
# reads OMP_WAIT_POLICY once, when it is loaded, so this must run before lightgbm is first imported;
# lightgbm is therefore imported lazily inside compute_mir. An explicit user setting is respected.
_POLICY_SET_TOO_LATE = "lightgbm" in sys.modules and os.environ.get("OMP_WAIT_POLICY", "").upper() != "PASSIVE"
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import warnings  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

import numpy as np  # noqa: E402

from privcore.base import NotApplicable, one_blas_thread  # noqa: E402
from privcore.engine import (
    MetricContext,  # noqa: E402
    map_on_cluster,  # noqa: E402
)
from privcore.metrics.details import ClassifierScores  # noqa: E402
from privcore.metrics.registry import Explanation, MetricInfo, register  # noqa: E402
from privcore.metrics.results import MetricOutput  # noqa: E402

if TYPE_CHECKING:
    from privcore.metrics._mlp import DetectionMLP

# scikit-learn (and the network in privcore.metrics._mlp, which uses it) is imported inside the functions that
# fit: it costs about 0.5 s at start-up (it loads scipy.stats) and only D-MLP and MIR need it, while this module
# is imported by every evaluation to register its metrics.

REVIEW = "Trudslev et al., A review of privacy metrics for synthetic tabular data (PrivEval)"

#: D-MLP's cross-validation folds and MIR's repeats (metrics.md §2.2.3, §2.2.11).
N_FOLDS = 5
N_REPEATS = 5
TEST_SIZE = 0.3


#: LightGBM threads per fit. One: the five repeats run side by side instead (see compute_mir), which keeps
#: every core busy without OpenMP barriers; with ``deterministic=True`` the model does not depend on it.
LGBM_THREADS_PER_FIT = 1


def _parallel_fits(workers: int, n_fits: int) -> int:
    """Fits run side by side: the evaluation's workers, at most one per fit."""
    return max(1, min(workers, n_fits))


def _labelled_features(ctx: MetricContext) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """E features of real (label 1) and synthetic (label 0) rows in a canonical, content-defined order.

    Returns ``features``, ``labels`` and ``origin``: row ``p`` is row ``origin[p]`` of the stack
    [real; synthetic]. Real rows come first, each table sorted by its feature values. Folds, splits and
    SGD batches are drawn by position, so without this the metric would change when the same real table
    is uploaded in another row order (only HidR may depend on row order); identical rows
    are interchangeable, so the result does not depend on the input order at all. Computed once per
    evaluation and table pair: D-MLP and MIR read the same arrays (do not modify them).
    """
    if ctx.space("E").dim == 0:  # a model needs at least one feature (sklearn and LightGBM refuse none)
        raise NotApplicable("every column is constant in the real table, so there is no feature to tell real "
                            "from synthetic records by.")
    return ctx.shared.cached(("classifier features", ctx.is_baseline), lambda: _canonical_features(ctx))


def _canonical_features(ctx: MetricContext) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    real = ctx.encoded("E", "real")
    synthetic = ctx.encoded("E", "synthetic")
    stacked = np.vstack([real, synthetic])
    labels = np.r_[np.ones(len(real), dtype=np.int64), np.zeros(len(synthetic), dtype=np.int64)]
    # np.lexsort: the last key is the primary one; real (−1) before synthetic (0), then column by column.
    origin = np.lexsort([*stacked.T[::-1], -labels])
    return np.ascontiguousarray(stacked[origin]), labels[origin], origin


def _to_input_order(values: np.ndarray, origin: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Values of canonical rows ``start:stop`` (one table) back in that table's input order."""
    out = np.empty(stop - start, dtype=values.dtype)
    out[origin[start:stop] - start] = values[start:stop]
    return out


def make_mlp(seed: int) -> DetectionMLP:
    """D-MLP's classifier as metrics.md §2.2.3 fixes it, trained by :class:`DetectionMLP`.

    ``MLPClassifier(hidden_layer_sizes=(100,), early_stopping=True, max_iter=300, random_state=seed)``, trained by
    :class:`DetectionMLP`, which performs the same computation without scikit-learn's per-batch overhead (tests may
    substitute a stub).
    """
    from privcore.metrics._mlp import DetectionMLP  # imported here: it loads scikit-learn (see above)

    return DetectionMLP(hidden=100, max_iter=300, random_state=seed)


def make_lgbm(seed: int):
    """MIR's classifier: LightGBM defaults, silent, seeded, with an explicit thread count.

    ``deterministic=True`` and ``force_row_wise=True`` change no model setting; they fix the order of
    floating-point sums (LightGBM otherwise times row- against column-wise histograms at start-up and
    keeps the faster, so equal seeds could give different models). Row-wise was the faster of the two
    on Adult at 10,000 × 10,000 (2.2 s against 4.6 s for the five fits). With ``deterministic=True`` the
    model is the same for one thread or two (checked on Adult, identical probabilities), so one thread per
    fit changes no result: on a 2-core machine that another job also uses, five fits took 1.4 s with one
    thread against 3.7 s with two (two OpenMP threads wait for each other whenever one is descheduled).
    """
    import lightgbm  # lazy: OMP_WAIT_POLICY above must be set before libgomp loads

    return lightgbm.LGBMClassifier(
        verbose=-1,
        random_state=seed,
        n_jobs=LGBM_THREADS_PER_FIT,
        deterministic=True,
        force_row_wise=True,
    )


def _fit_fold(features, labels, train, test, seed) -> tuple[np.ndarray, int, bool]:
    """Fit D-MLP's network on one fold; return test probabilities, iterations, and whether it converged."""
    model = make_mlp(seed)
    model.fit(features[train], labels[train])
    return _fitted(model, features, test)


def _fit_fold_task(features, labels, train, test, seed) -> tuple[np.ndarray, int, bool]:
    """:func:`_fit_fold` as a task of a Dask cluster worker: single-threaded BLAS, as on the threads here."""
    from sklearn.exceptions import ConvergenceWarning  # imported here: see the note on scikit-learn above

    with one_blas_thread(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return _fit_fold(features, labels, train, test, seed)


def _run_folds(features, labels, folds, seed, workers: int, cluster=None,
               more_threads=None) -> list[tuple[np.ndarray, int, bool]]:
    """Fit the folds' networks: trained together on threads, or as tasks on a Dask cluster.

    Trained together on up to ``workers`` threads (:func:`privcore.metrics._mlp.fit_together`), each with
    single-threaded BLAS, or as tasks on a Dask cluster (one per fold, the features sent to every worker once).

    The network's matrices are small (batches of 200 rows), so multi-threaded BLAS mostly spins: with
    two BLAS threads on a busy 2-core machine ten epochs were measured at 6.1 s of CPU against 0.37 s
    with one. Each fold's result does not depend on the thread or worker it ran on, nor on the networks
    trained beside it, so neither does the metric. ``more_threads`` (D-MLP beside the other metrics, on one
    stack): asked between epochs how many threads the stack may take up now
    (:func:`privcore.metrics._mlp.fit_together`).
    """
    if cluster is not None:
        fits = [(train, test, seed) for train, test in folds]
        return map_on_cluster(cluster, _fit_fold_task, (features, labels), fits)
    from sklearn.exceptions import ConvergenceWarning  # imported here: see the note on scikit-learn above

    models = [make_mlp(seed) for _ in folds]
    threads = _parallel_fits(workers, len(folds))
    with one_blas_thread(), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # reported as a metric warning instead
        if all(isinstance(model, _detection_mlp()) for model in models):
            from privcore.metrics._mlp import fit_together  # imported here: it loads scikit-learn (see above)

            # One stack of networks, dealt to ``threads`` stacks from the first epoch (or, beside the other
            # metrics, to as many as ``more_threads`` grants later): fit_together's own split, one per thread.
            widen = more_threads if more_threads is not None else (lambda: threads)
            fit_together(models, features, labels, [train for train, _ in folds], widen=widen)
        else:  # a stand-in (tests): fitted fold by fold
            for model, (train, _) in zip(models, folds):
                model.fit(features[train], labels[train])
        # The test probabilities too: with two BLAS threads OpenBLAS may take another kernel for these small
        # products and round differently (seen on an AMD EPYC: one fold's AUC moved by 1.4e-4 between D-MLP
        # beside the others, BLAS held at one thread, and in turn).
        return [_fitted(model, features, test) for model, (_, test) in zip(models, folds)]


def _fitted(model, features, test) -> tuple[np.ndarray, int, bool]:
    """A fitted fold's test probabilities, iterations, and whether it converged."""
    iterations = int(getattr(model, "n_iter_", 0))
    # scikit-learn warns exactly when the iteration limit was reached; read that off instead of catching the
    # warning, because warning filters are process-wide and not thread-safe.
    converged = iterations < getattr(model, "max_iter", np.inf)
    return model.predict_proba(features[test])[:, 1], iterations, converged


def _detection_mlp() -> type:
    from privcore.metrics._mlp import DetectionMLP  # imported here: it loads scikit-learn (see above)

    return DetectionMLP


def compute_dmlp(ctx: MetricContext) -> MetricOutput:
    """Detection MLP: how well a small neural network tells real from synthetic rows.

    Features: space E, standardised on ``Y ∪ Z`` (in float64, then held as float32: the network trains in
    the features' precision, and float32 makes each epoch's matrix products about twice as fast while
    moving the fold AUCs far less than the fold-to-fold spread, see tests/report/test_golden.py). Labels: real 1,
    synthetic 0. Stratified 5-fold cross-validation (shuffled, ``random_state=seed``) of
    ``MLPClassifier(hidden_layer_sizes=(100,), early_stopping=True, max_iter=300, random_state=seed)``
    (computed by :class:`privcore.metrics._mlp.DetectionMLP`). ``risk = raw =`` mean fold ROC AUC (0.5 =
    indistinguishable; an AUC below 0.5 is kept as is). per_record (real) = out-of-fold probability of
    being real.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from privcore import evaluate
    >>> rng = np.random.default_rng(0)
    >>> real = pd.DataFrame({"a": rng.normal(size=200), "b": rng.choice(["x", "y"], 200)})
    >>> shifted = real.assign(a=real["a"] + 20)  # trivially separable
    >>> evaluate(real, shifted, metrics="dmlp", seed=0)["dmlp"].risk > 0.9
    True
    """
    from sklearn.metrics import roc_auc_score  # imported here: see the note on scikit-learn above
    from sklearn.model_selection import StratifiedKFold  # lazy: as the line above
    from sklearn.preprocessing import StandardScaler  # lazy: as the line above

    features, labels, origin = _labelled_features(ctx)
    features = StandardScaler().fit_transform(features).astype(np.float32)
    folds = list(StratifiedKFold(n_splits=N_FOLDS, shuffle=True, random_state=ctx.seed).split(features, labels))
    probability = np.empty(len(labels))
    fits = _run_folds(features, labels, folds, ctx.seed, ctx.workers, ctx.cluster, ctx.more_threads)
    fold_auc, fold_iterations, unconverged = [], [], 0
    for (_, test), (fold_probability, iterations, converged) in zip(folds, fits):
        probability[test] = fold_probability
        fold_auc.append(float(roc_auc_score(labels[test], fold_probability)))
        fold_iterations.append(iterations)
        unconverged += not converged
    auc = float(np.mean(fold_auc))
    n_real = int(labels.sum())
    probability_real = _to_input_order(probability, origin, 0, n_real)
    notes = []
    if unconverged:
        notes.append(
            f"The network stopped at its 300-iteration limit without converging in {unconverged} of "
            f"{N_FOLDS} folds; the AUC may understate how separable the tables are."
        )
    return MetricOutput(
        risk=auc,
        raw=auc,
        per_record=probability_real,
        details=ClassifierScores(
            scores=np.array(fold_auc),
            score_label="ROC AUC",
            baseline_auc=0.5,
            probability_real=probability_real.copy(),
            probability_synthetic=_to_input_order(probability, origin, n_real, len(labels)),
            fold_iterations=fold_iterations,
            n_features=int(features.shape[1]),
        ),
        params={
            "seed": ctx.seed,
            "n_folds": N_FOLDS,
            "hidden_layer_sizes": [100],
            "early_stopping": True,
            "max_iter": 300,
        },
        warnings=notes,
    )


def _fit_repeat(features, labels, train, test, seed) -> tuple[np.ndarray, np.ndarray]:
    """One MIR repeat: LightGBM fitted on ``train``; the real test rows and their predicted probabilities."""
    model = make_lgbm(seed)
    model.fit(features[train], labels[train])
    real_test = test[labels[test] == 1]
    # LGBMClassifier.predict is the class of the larger probability (the first on a tie): read it off the
    # same probabilities instead of predicting a second time.
    return real_test, np.asarray(model.predict_proba(features[real_test]))


def compute_mir(ctx: MetricContext) -> MetricOutput:
    """Membership Inference Risk (as defined by the review): LightGBM detection recall on real rows.

    For ``i = 0..4``: stratified 70/30 split of the labelled E features (real 1, synthetic 0) with
    ``random_state=seed+i``; ``LGBMClassifier`` (defaults, ``verbose=-1``, ``random_state=seed+i``)
    fitted on the training part; recall = share of real test rows predicted real. ``risk = raw =`` mean
    recall; ``interval`` = mean ± 1.96 standard errors (``std(ddof=1)/√5``), clipped to [0, 1].
    per_record (real) = mean predicted probability of being real over the repeats in which the row was in
    the test part; NaN for a row that never was (about 0.7⁵ ≈ 17 % of rows).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from privcore import evaluate
    >>> rng = np.random.default_rng(0)
    >>> real = pd.DataFrame({"a": rng.normal(size=200), "b": rng.choice(["x", "y"], 200)})
    >>> shifted = real.assign(a=real["a"] + 20)  # trivially separable
    >>> evaluate(real, shifted, metrics="mir", seed=0)["mir"].risk > 0.9
    True
    """
    from sklearn.model_selection import train_test_split  # imported here: see the note on scikit-learn above

    features, labels, origin = _labelled_features(ctx)
    n_real = int(labels.sum())
    rows = np.arange(len(labels))
    splits = [train_test_split(rows, test_size=TEST_SIZE, stratify=labels, random_state=ctx.seed + repeat)
              for repeat in range(N_REPEATS)]

    # LightGBM releases the GIL while it fits, so repeats on threads use the cores (or a cluster's workers);
    # each repeat's model depends only on its seed and split, so the result is the same wherever it ran.
    repeats = [(train, test, ctx.seed + repeat) for repeat, (train, test) in enumerate(splits)]
    threads = _parallel_fits(ctx.workers, N_REPEATS)
    if ctx.cluster is not None:
        fitted = map_on_cluster(ctx.cluster, _fit_repeat, (features, labels), repeats)
    elif threads == 1:
        fitted = [_fit_repeat(features, labels, *repeat) for repeat in repeats]
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            fitted = list(pool.map(lambda repeat: _fit_repeat(features, labels, *repeat), repeats))
    probability_sum = np.zeros(n_real)
    times_tested = np.zeros(n_real, dtype=np.int64)
    recalls = []
    for real_test, probability in fitted:
        recalls.append(float(np.mean(np.argmax(probability, axis=1) == 1)))
        probability_sum[real_test] += probability[:, 1]
        times_tested[real_test] += 1
    recalls = np.array(recalls)
    mean = float(recalls.mean())
    standard_error = float(recalls.std(ddof=1) / np.sqrt(N_REPEATS))
    per_record = np.full(n_real, np.nan)
    tested = times_tested > 0
    per_record[tested] = probability_sum[tested] / times_tested[tested]
    per_record = _to_input_order(per_record, origin, 0, n_real)
    times_tested = _to_input_order(times_tested, origin, 0, n_real)
    notes = []
    if _POLICY_SET_TOO_LATE:
        notes.append(
            "LightGBM was loaded before privcore could set OMP_WAIT_POLICY=PASSIVE; on a small machine the "
            "fits may be much slower than necessary."
        )
    return MetricOutput(
        risk=mean,
        raw=mean,
        per_record=per_record,
        interval=(max(0.0, mean - 1.96 * standard_error), min(1.0, mean + 1.96 * standard_error)),
        details=ClassifierScores(
            scores=recalls,
            score_label="recall on real rows",
            standard_error=standard_error,
            seeds=[ctx.seed + i for i in range(N_REPEATS)],
            times_in_test=times_tested,
            test_size=TEST_SIZE,
            n_features=int(features.shape[1]),
        ),
        params={"seed": ctx.seed, "repeats": N_REPEATS, "test_size": TEST_SIZE, "n_jobs": LGBM_THREADS_PER_FIT},
        warnings=notes,
    )


register(
    MetricInfo(
        id="dmlp",
        order=70,
        cost=(1.66, 1.3),
        reference_level=0.5,  # ROC AUC of a classifier that cannot tell real from synthetic
        thread="background",
        one_thread_blas=True,
        name="Detection MLP (D-MLP)",
        family="Classifier-based",
        summary="How well a small neural network tells real records from synthetic ones (ROC AUC).",
        attacker_knows="Both tables with their labels: which rows are real and which are synthetic.",
        needs=frozenset(),
        per_record_unit="real",
        raw_meaning="Mean cross-validated ROC AUC: 0.5 = cannot tell real from synthetic (best possible), "
        "1 = perfectly separable; below 0.5 is kept as is.",
        reference=f"{REVIEW}, §2.2.3; original: Qian et al. (2023), Synthcity.",
        explanation=Explanation(
            attack="An attacker trains a small neural network to recognise real records among synthetic ones; "
            "if it succeeds, real records carry traces the synthetic ones lack, and the review reads that as "
            "low privacy.",
            steps=(
                "Label the real records 1 and the synthetic ones 0, encode every column as numbers and "
                "standardise them.",
                "Split the rows into 5 parts; train the network on 4 and score the fifth, five times over.",
                "Measure each time how well the scores rank real above synthetic records (ROC AUC) and "
                "average the five values.",
            ),
            high="The network reliably picks out the real records (AUC near 1): the synthetic data is "
            "recognisably different from the real people.",
            low="The network does no better than a coin toss (AUC near 0.5, the best possible score): no "
            "real record stands out from the synthetic ones.",
            blind_spots="It measures how distinguishable the tables are, not how much they leak: an exact copy "
            "of the real table is indistinguishable and scores 0.5 or less, the best score, so read it next "
            "to a distance metric. An AUC below 0.5 is shown as is. The result depends on the network's "
            "training and on the seed.",
            note="",
        ),
        compute=compute_dmlp,
        details_type=ClassifierScores,
        min_rows=7,  # 5 stratified folds, and the network's 10 % early-stopping split needs ≥ 2 rows
        uses_classifier=True,
    )
)

register(
    MetricInfo(
        id="mir",
        order=150,
        cost=(1.15, 1.0),
        reference_level=0.5,  # recall of a detector that cannot tell them apart
        thread="either",
        one_thread_blas=True,
        name="Membership Inference Risk (MIR)",
        family="Classifier-based",
        summary="Recall of a LightGBM model trained to recognise real records among synthetic ones.",
        attacker_knows="Both tables with their labels: which rows are real and which are synthetic.",
        needs=frozenset(),
        per_record_unit="real",
        raw_meaning="Same as risk: mean share of held-out real records the model labels as real.",
        reference=f"{REVIEW}, §2.2.11; original: Lautrup et al. (2024), SynthEval.",
        explanation=Explanation(
            attack="An attacker trains a gradient-boosted tree model (LightGBM) on labelled real and synthetic "
            "records and then asks it, for real records it has not seen, whether they are real.",
            steps=(
                "Label the real records 1 and the synthetic ones 0; keep a random 30 % of each aside.",
                "Train LightGBM on the other 70 %.",
                "Count the share of the set-aside real records the model calls real (recall).",
                "Repeat with five seeds and report the mean and its standard error.",
            ),
            high="The model recognises unseen real records as real: real records have traits the synthetic "
            "data does not reproduce.",
            low="The model rarely calls an unseen real record real: it cannot tell them from synthetic ones.",
            blind_spots="Despite its name this is real-versus-synthetic detection recall, not membership "
            "inference: an exact copy of the real table puts each real record's twin in the training part "
            "with the opposite label and scores low, the opposite of its true risk. Recall ignores false "
            "alarms (a model calling everything real scores 1). Rows never in a test part have no "
            "per-record value.",
            note="Caveat: this is real-vs-synthetic detection recall, not membership inference; an exact copy "
            "scores low.",
        ),
        compute=compute_mir,
        details_type=ClassifierScores,
        min_rows=7,
        uses_classifier=True,
        interval_kind="standard error",
    )
)
