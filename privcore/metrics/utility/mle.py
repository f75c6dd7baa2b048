"""Train on synthetic, test on real (SynQP's machine-learning efficacy, metrics.md §6)."""

from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd

from privcore.base import NotApplicable, one_blas_thread
from privcore.data import NUMERICAL, Param
from privcore.engine import MetricContext
from privcore.metrics.details import ModelScore, ModelUtility
from privcore.metrics.registry import Explanation, MetricInfo, register
from privcore.metrics.results import MetricOutput
from privcore.metrics.utility._base import SYNQP, array_digest

#: Model seeds (bootstrap draws of the training rows); the intervals are over them.
SEEDS = 5
LEARNERS = ("logistic/linear regression", "LightGBM")
#: The tables the models are trained on: the models trained on the real table are the reference.
ROLES = ("synthetic", "real")


def _interval(values: list[float]) -> tuple[float, float] | None:
    """Mean ± 1.96 standard errors over the seeds (None for fewer than two)."""
    values = [v for v in values if np.isfinite(v)]
    if len(values) < 2:
        return None
    mean, error = float(np.mean(values)), 1.96 * float(np.std(values, ddof=1)) / np.sqrt(len(values))
    return mean - error, mean + error


def _task(real_target, holdout_target, kind: str) -> tuple[str, list]:
    """``("binary" | "multiclass" | "numerical", classes)`` of a target."""
    if kind == NUMERICAL:
        return "numerical", []
    classes = sorted(set(map(str, real_target)) | set(map(str, holdout_target)))
    return ("binary" if len(classes) == 2 else "multiclass"), classes


def _model(learner: str, task: str, seed: int):
    if learner == LEARNERS[0]:
        # lazy: heavy, scikit-learn and LightGBM load only when a model-utility measure runs
        from sklearn.linear_model import LinearRegression, LogisticRegression
        from sklearn.pipeline import make_pipeline  # lazy: as above
        from sklearn.preprocessing import StandardScaler  # lazy: as above

        estimator = LinearRegression() if task == "numerical" else LogisticRegression(max_iter=1000)
        return make_pipeline(StandardScaler(), estimator)
    import lightgbm  # lazy: as above

    settings = dict(verbose=-1, random_state=seed, n_jobs=1, deterministic=True, force_row_wise=True)
    return lightgbm.LGBMRegressor(**settings) if task == "numerical" else lightgbm.LGBMClassifier(**settings)


def _class_codes(values: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], list[str]]:
    """Each role's class labels (text) as codes ``0 .. k − 1`` in the sorted order of all the roles' classes.

    The models see the codes instead of the texts: a code keeps the sorted order of the texts, so every learner
    orders its classes the same way and fits the same model, without sorting the texts again at every fit.

    >>> codes, classes = _class_codes({"real": np.array(["b", "a"], dtype=object), "holdout": np.array(["c"], dtype=object)})
    >>> codes["real"].tolist(), codes["holdout"].tolist(), classes
    ([1, 0], [2], ['a', 'b', 'c'])
    """
    roles = list(values)
    both, distinct = pd.factorize(np.concatenate([values[r] for r in roles]))
    order = np.argsort(distinct.astype(str), kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    codes = rank[both]
    bounds = np.cumsum([0] + [len(values[r]) for r in roles])
    return ({r: codes[bounds[i]:bounds[i + 1]] for i, r in enumerate(roles)},
            [str(distinct[k]) for k in order])


def _score(task: str, model, features, truth, positive) -> float:
    """The fitted model's score on the holdout: ROC AUC, macro F1 or R².

    ``positive``: the positive class's label, as the model's ``classes_`` hold it.
    """
    from sklearn.metrics import f1_score, r2_score, roc_auc_score  # lazy: heavy, as in _model

    if task == "numerical":
        return float(r2_score(truth, model.predict(features)))
    if task == "binary":
        classes = list(model.classes_)
        if positive not in classes:  # trained on the other class only: every row gets the same score
            return 0.5
        probability = model.predict_proba(features)[:, classes.index(positive)]
        return float(roc_auc_score(np.asarray(truth) == positive, probability))
    return float(f1_score(truth, model.predict(features), average="macro", zero_division=0))


def _fit_and_score(task, learner, seed, train_x, train_y, test_x, test_y, positive) -> float:
    if task != "numerical" and not (train_y != train_y[0]).any():
        # One class only: the model can only ever predict it.
        if task == "binary":
            return 0.5
        from sklearn.metrics import f1_score  # lazy: heavy, as in _model

        return float(f1_score(test_y, np.full(len(test_y), train_y[0], dtype=train_y.dtype), average="macro",
                              zero_division=0))
    model = _model(learner, task, seed)
    model.fit(train_x, train_y)  # warnings silenced by the caller (_fit_all)
    return _score(task, model, test_x, test_y, positive)


def _fit_all(task, seed0: int, rows: int, kept: dict, values: dict, positive: str, workers: int,
             roles: tuple[str, ...] = ROLES) -> dict:
    """The holdout score of every (learner, seed, role) model of one target, for the ``roles`` given.

    Each model depends only on its seed, its bootstrap draw and its learner, so the order they are fitted in
    changes nothing. The fits run side by side on up to ``workers`` threads, the LightGBM models (the longer
    ones; one thread each, LightGBM releases the GIL) first. The matrix products of the logistic/linear
    regressions run on one BLAS thread each: on a 2-core machine OpenBLAS's own threads beside the fits made a
    10,000-row logistic regression about 7× slower (0.3 s against 0.04 s), and more under load.
    """
    def fit(job) -> float:
        learner, seed, role = job
        rng = np.random.default_rng([seed0, seed, 0 if role == "synthetic" else 1])
        picked = rng.choice(len(kept[role]), size=rows, replace=True)
        return _fit_and_score(task, learner, seed0 + seed, kept[role][picked], values[role][picked],
                              kept["holdout"], values["holdout"], positive)

    jobs = [(learner, seed, role) for learner in reversed(LEARNERS) for seed in range(SEEDS)
            for role in roles]  # LightGBM first: the longer fits start first
    threads = max(1, min(workers, len(jobs)))
    # One filter for all the fits, set here: warnings.catch_warnings is not safe to enter from several threads.
    with warnings.catch_warnings(), one_blas_thread():
        warnings.simplefilter("ignore")  # convergence of the logistic regression is reported by its score
        if threads == 1:
            return {job: fit(job) for job in jobs}
        for learner in LEARNERS:
            _model(learner, task, seed0)  # the learners' modules imported ahead of the threads' start
        from sklearn.metrics import f1_score  # noqa: F401  (imported by _score; likewise)

        with ThreadPoolExecutor(max_workers=threads) as pool:
            return dict(zip(jobs, pool.map(fit, jobs)))


def _features(encoded: dict[str, np.ndarray], keep: np.ndarray) -> dict[str, np.ndarray]:
    """The encoded columns ``keep`` of each role: a view where possible, a copy otherwise.

    A view where they are a leading or trailing run of columns (the bootstrap draws copy the rows anyway), a copy
    otherwise; the holdout, which every model scores, C-ordered.
    """
    columns = np.flatnonzero(keep)
    run = len(columns) and columns[-1] - columns[0] + 1 == len(columns)
    out = {role: (table[:, columns[0]:columns[-1] + 1] if run else table[:, keep]) for role, table in encoded.items()}
    out["holdout"] = np.ascontiguousarray(out["holdout"])
    return out


def _fitted(ctx: MetricContext, task: str, rows: int, kept: dict, values: dict, positive, keep: np.ndarray,
            encoded: dict) -> dict:
    """:func:`_fit_all` for one target, the models trained on the real table fitted once where ``reuse`` is kept.

    Where the caller keeps ``reuse`` between evaluations (the lab, the dashboard comparing several synthetic tables
    against one real table and holdout), the models trained on the real table are fitted once for all of them: their
    scores depend on the real table, the holdout, the target and the number of rows, which the key names, not on the
    synthetic table.
    """
    if not ctx.shared.reusing:
        return _fit_all(task, ctx.seed, rows, kept, values, positive, ctx.workers)
    key = ("utility_mle trained on real", task, positive, ctx.seed, rows, SEEDS, LEARNERS,
           array_digest(encoded["real"], encoded["holdout"], keep, values["real"], values["holdout"]))
    real = ctx.shared.reused(key)
    if real is None:
        fitted = _fit_all(task, ctx.seed, rows, kept, values, positive, ctx.workers)
        ctx.shared.keep_for_reuse(key, {job: score for job, score in fitted.items() if job[2] == "real"})
        return fitted
    return {**_fit_all(task, ctx.seed, rows, kept, values, positive, ctx.workers, roles=("synthetic",)), **real}


def model_utility(ctx: MetricContext, targets: list[str]) -> tuple[ModelUtility, list[str]]:
    """The scores of every target and learner, and warnings for the targets that could not be scored.

    Notes
    -----
    For each target (the sensitive column, and any column the user names in ``targets``) and each learner (logistic or
    linear regression on standardised one-hot features, as SynQP; LightGBM as the stronger learner), a model is fitted
    on the synthetic table and scored on the holdout, real people neither the generator nor the model saw; the same
    model fitted on the real table and scored on the same holdout is the reference (train-real-test-holdout). Binary
    target: ROC AUC; multi-class: macro F1; numerical: R². The features are the columns of the encoded space E (numbers
    min–max scaled, categories one-hot), the same encoding the distance metrics use, without the target's own block.

    Both models are trained on the same number of rows, the smaller of the real and the synthetic table: each of the
    :data:`SEEDS` draws that many rows with replacement from its table (a bootstrap) and seeds LightGBM, so the spread
    over the seeds gives the intervals. The score of a (target, learner) is the ratio synthetic / real (SynQP), the
    utility the mean ratio capped to [0, 1].
    """
    space = ctx.space("E")
    encoded = {role: ctx.encoded("E", role) for role in ("real", "synthetic", "holdout")}
    rows = min(len(ctx.real), len(ctx.synthetic))
    scores, notes, used = [], [], []
    for target in targets:
        block = next((b for b in space.blocks if b.column == target), None)
        keep = np.ones(space.dim, dtype=bool)
        if block is not None:
            keep[block.start:block.stop] = False
        if not keep.any():
            notes.append(f"'{target}' is the only column with more than one value: no feature to predict it from.")
            continue
        kind = ctx.schema.types[target]
        values = {"real": ctx.real[target], "synthetic": ctx.synthetic[target], "holdout": ctx.holdout[target]}
        if kind == NUMERICAL:
            values = {role: v.to_numpy(dtype=float) for role, v in values.items()}
        else:
            values = {role: v.astype(str).to_numpy(dtype=object) for role, v in values.items()}
        task, classes = _task(values["real"], values["holdout"], kind)
        if task != "numerical" and len(set(values["holdout"])) < 2:
            notes.append(f"'{target}' has one value only in the holdout: no score can tell a good model from a bad one.")
            continue
        positive = classes[-1] if task == "binary" else ""
        if task != "numerical":
            values, labels = _class_codes(values)  # the models see codes in the texts' order
            positive = labels.index(positive) if task == "binary" else -1
        score_name = {"binary": "ROC AUC", "multiclass": "macro F1", "numerical": "R²"}[task]
        kept = _features(encoded, keep)
        fitted = _fitted(ctx, task, rows, kept, values, positive, keep, encoded)
        for learner in LEARNERS:
            per_seed = {role: [fitted[learner, seed, role] for seed in range(SEEDS)] for role in ("synthetic", "real")}
            synthetic, real = float(np.mean(per_seed["synthetic"])), float(np.mean(per_seed["real"]))
            if not real > 0:
                notes.append(f"The {learner} model trained on the real table scores {real:.3f} ({score_name}) on "
                             f"'{target}' in the holdout: no better than guessing, so no ratio is formed.")
                continue
            ratios = [s / r if r > 0 else float("nan") for s, r in zip(per_seed["synthetic"], per_seed["real"])]
            scores.append(ModelScore(
                target=target, learner=learner, score_name=score_name, synthetic=synthetic,
                synthetic_interval=_interval(per_seed["synthetic"]), real=real, real_interval=_interval(per_seed["real"]),
                ratio=synthetic / real, ratio_interval=_interval(ratios), synthetic_per_seed=per_seed["synthetic"],
                real_per_seed=per_seed["real"]))
        used.append(target)
    if not scores:
        raise NotApplicable("no target could be scored: " + " ".join(notes) if notes else "no target to predict.")
    utility = float(np.mean([min(1.0, max(0.0, s.ratio)) for s in scores]))
    return ModelUtility(utility=utility, targets=used, learners=list(LEARNERS), scores=scores, train_rows=rows,
                        test_rows=len(ctx.holdout), seeds=[ctx.seed + s for s in range(SEEDS)]), notes


def default_targets(schema) -> list[str]:
    """The columns predicted by default: the sensitive column, or the last analysed column when none is chosen.

    >>> from privcore.data.schema import Schema
    >>> default_targets(Schema({"a": "numerical", "b": "binary"})), default_targets(Schema({"a": "numerical", "b": "binary"}, sensitive="a"))
    (['b'], ['a'])
    """
    if schema.sensitive:
        return [schema.sensitive]
    return list(schema.columns[-1:])


def compute_mle(ctx: MetricContext) -> MetricOutput:
    """Train on synthetic, test on the holdout, over the same trained on real.

    ``utility`` = mean over targets and learners of ``min(1, synthetic score / real score)``; ``raw`` = the mean
    uncapped ratio.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from privcore import evaluate, Schema
    >>> rng = np.random.default_rng(0)
    >>> def people(n):
    ...     x = rng.normal(size=n)
    ...     return pd.DataFrame({"x": x, "y": np.where(x + rng.normal(scale=0.5, size=n) > 0, "a", "b")})
    >>> real, holdout = people(300), people(300)
    >>> schema = Schema({"x": "numerical", "y": "binary"}, sensitive="y")
    >>> same = evaluate(real, real.copy(), schema, metrics="utility_mle", holdout=holdout)["utility_mle"]
    >>> same.utility.score > 0.95, same.utility.reference
    (True, 1.0)
    """
    if ctx.holdout is None or len(ctx.holdout) == 0:
        raise NotApplicable("needs a holdout table: the models are tested on real people neither the generator nor "
                            "the models saw.")
    named = list(ctx.params.get("targets") or default_targets(ctx.schema))
    targets = list(dict.fromkeys(([ctx.schema.sensitive] if ctx.schema.sensitive else []) + named))
    if not targets:
        raise NotApplicable("needs a column to predict: choose a sensitive column among the column settings or name "
                            "targets (the parameter 'Columns to predict').")
    if ctx.space("E").dim == 0:
        raise NotApplicable("every column is constant in the real table, so there is no feature to predict from.")
    details, notes = model_utility(ctx, targets)
    return MetricOutput(risk=None, raw=float(np.mean([s.ratio for s in details.scores])), details=details,
                        params={"targets": details.targets, "seeds": SEEDS, "learners": list(LEARNERS)},
                        warnings=notes)


register(MetricInfo(
    id="utility_mle",
    order=430,
    # 40 fits with its fresh-sample reference on the noisy-copy demo, 3 × 3,000 rows, load 4-6:
    # 0.89-1.02 s with one BLAS thread per logistic regression, 3.1 s with BLAS on every core: 3.1 × 0.3.
    cost=(0.95, 1.0),
    name="Train on synthetic, test on real (model utility, SynQP's MLE)",
    family="Utility",
    summary="Does a model trained on the synthetic table predict as well for real people as one trained on the real "
    "table?",
    attacker_knows="No attacker: a utility measure. An analyst trains a prediction model on the synthetic table and "
    "uses it on real people.",
    needs=frozenset({"holdout"}),
    per_record_unit="none",
    raw_meaning="The mean over targets and learners of (score of the model trained on synthetic) / (score of the "
    "model trained on real), both tested on the holdout, uncapped (SynQP's MLE ratio).",
    reference=f"{SYNQP}, machine-learning efficacy (MLE)",
    explanation=Explanation(
        attack="Not an attack: the measure asks whether the synthetic table is good enough to train a prediction "
        "model, the most common use of synthetic data.",
        steps=(
            "For the sensitive column (and any column named in the settings; the last column when no sensitive column "
            "is chosen), train a model on the synthetic table: "
            "a logistic or linear regression, as SynQP does, and LightGBM, a stronger learner.",
            "Train the same model on the real table, with as many rows, and test both on the holdout: real people "
            "that neither the generator nor the models saw (ROC AUC, macro F1 or R²).",
            "The score is the synthetic model's result divided by the real model's, averaged over targets and "
            "learners and capped at 1; five seeds give each result an interval.",
        ),
        high="A model trained on the synthetic table predicts about as well for real people as one trained on the "
        "real table.",
        low="Models trained on the synthetic table predict clearly worse: the relations that matter for the "
        "prediction were lost.",
        blind_spots="Only the chosen targets: a table can be useful for predicting one column and useless for "
        "another. A ROC AUC of 0.5 is a coin flip, so a model that learned nothing still keeps about 0.5 / the real "
        "model's AUC (about 0.6) of it.",
        note="Choice: both models are trained on the same number of rows (the smaller table's), drawn with "
        "replacement for each of five seeds; the fresh-sample reference is the model trained on the real table, "
        "tested on the holdout, which the ratio already divides by.",
    ),
    compute=compute_mle,
    details_type=ModelUtility,
    params=(Param("targets", "columns", None, "Columns to predict",
                  "Columns a model is trained to predict, each from all the other columns; the sensitive column is "
                  "always among them.", rule="the sensitive column (the last analysed column when none is chosen)",
                  derive=default_targets),),
    min_rows=10,
    baseline=False,
    uses_classifier=True,
    interval_kind="standard error",
))
