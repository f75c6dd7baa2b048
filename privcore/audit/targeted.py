"""Shadow-model membership audit of a generator (TAPAS-style, Houssiau et al. 2022; Meeus et al. 2023).

Steps and defaults: :func:`audit`.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

from privcore.audit._base import (
    BOOTSTRAP,
    FPR_LEVELS,
    NEIGHBOURS,
    NUMERICAL_TOLERANCE,
    AuditError,
    AuditReportFace,
    Budget,
    nearest_distances,
    nearest_others,
    random_queries,
    roc_summary,
    seed_param,
)
from privcore.audit.factory import model_for_fit
from privcore.audit.one_output import output_checks
from privcore.base import (
    InputError,
    ProgressCallback,
    TooFewRowsError,
    bootstrap_replicates,
    epsilon_lower_bound,
    jsonable,
    percentile_interval,
    roc_statistics,
)
from privcore.data import NUMERICAL, Param, Schema, infer_schema
from privcore.data.prepare import prepare
from privcore.engine import EuclideanSpace
from privcore.evaluation import audit_verdict
from privcore.generators import generator_label as registry_label
from privcore.metrics import Explanation

POOL_SHARE, AUX_SHARE = 0.2, 0.4
MAX_TRAINING_ROWS = 1000


#: What the attacker is assumed to know, as the registry says it for every metric.
ATTACKER_KNOWS = ("The generator (the method, its settings and the right to run it), data from the same population "
                  "that it was not trained on, and the full record of the person under suspicion; not the training "
                  "data itself.")

#: The audit's explanation, written once like every metric's (shown by the Audit page and the Learn page).
EXPLANATION = Explanation(
    attack="Membership inference against the generator (Houssiau et al., TAPAS; Meeus et al., Achilles' heels): "
    "the attacker asks whether one particular person was in the data a synthetic table was generated from.",
    steps=(
        "Pick the most vulnerable real records (far from their nearest neighbours) and some random ones as targets.",
        "For each target, train the generator many times on other real data, half of the times with the target "
        "added, and describe every output by how many synthetic rows match the target on random sets of columns "
        "and how close the nearest ones come.",
        "Teach a classifier to tell outputs with the target from outputs without it, then score it on fresh "
        "generators: the AUC, the share of those trained with the target it catches at low false-positive rates, "
        "and the ε that no differentially private generator with a smaller ε could allow.",
    ),
    high="The generator's output changes visibly when this person is in its training data: publishing it tells an "
    "attacker whether they were, and often more.",
    low="Outputs with and without this person look alike to this attack and this budget.",
    blind_spots="It tests a few targets, one generator setting and one attack; a low AUC bounds only that attack "
    "and budget (a stronger attack or more models can do better), and the targets are people of this table, so a "
    "rarer person elsewhere may be more exposed. With few evaluation models the intervals are wide and the ε "
    "bounds small.",
    note="Choice: model-seeded set-up (training sets of the evaluation generators are drawn from data the shadow "
    "models never saw); a random forest as meta-classifier; numbers match within 5 % of the column's range.",
)




#: The targeted design's budget, declared once: the Audit page builds its inputs from these.
TARGETED_BUDGET: tuple[Param, ...] = (
    Param("targets", "int", 5, "Most vulnerable targets",
          "Real people with the most unusual records (farthest from their nearest neighbours) to attack.",
          minimum=0, maximum=100),
    Param("random_targets", "int", 5, "Random targets",
          "Real people drawn at random, to compare with the most vulnerable ones.", minimum=0, maximum=100),
    Param("shadow_models", "int", 50, "Shadow models per side",
          "Generators trained with the target, and as many without, from which the attack learns.",
          minimum=1, maximum=1000),
    Param("eval_models", "int", 20, "Evaluation models",
          "Fresh generators, half trained with the target, on which the attack is scored.", minimum=4, maximum=1000),
    Param("training_rows", "int", None, "Training rows",
          "Rows each generator is trained on.", minimum=10,
          rule=f"at most {MAX_TRAINING_ROWS:,}, and half of what the auxiliary and evaluation parts hold"),
    Param("n_queries", "int", 100, "Column queries",
          "Random sets of columns on which a synthetic row is compared with the target.", minimum=1),
    seed_param("Fixes the splits, the targets drawn at random and every model."),
)
_DEFAULT = {p.name: p.default for p in TARGETED_BUDGET}


@dataclass(frozen=True)
class AuditSettings(Budget):
    """Budget of an audit, declared in :data:`TARGETED_BUDGET` and checked by :meth:`~Budget.check`."""

    PARAMS = TARGETED_BUDGET

    targets: int = _DEFAULT["targets"]
    random_targets: int = _DEFAULT["random_targets"]
    shadow_models: int = _DEFAULT["shadow_models"]
    eval_models: int = _DEFAULT["eval_models"]
    training_rows: int | None = _DEFAULT["training_rows"]
    n_queries: int = _DEFAULT["n_queries"]
    seed: int = _DEFAULT["seed"]

    def check_together(self) -> None:
        """At least one target, vulnerable or random."""
        if self.targets + self.random_targets == 0:
            raise AuditError("The audit needs at least one target: set targets or random_targets above 0.")


@dataclass
class TargetResult:
    """The attack on one target record; ``row`` is its position in the real table as given."""

    row: int
    chosen: str
    vulnerability: float
    auc: float | None
    auc_interval: tuple[float, float] | None
    tpr_at: dict[str, float | None]
    tpr_at_interval: dict[str, tuple[float, float] | None]
    shadow_models: int
    eval_models: int
    failed_models: int
    epsilon_lower_bound: float | None = None
    eval_scores: list[float] = field(default_factory=list, repr=False)
    eval_labels: list[int] = field(default_factory=list, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The target's result as plain JSON values, without the evaluation scores and labels."""
        out = asdict(self)
        out.pop("eval_scores"), out.pop("eval_labels")
        return jsonable(out)


@dataclass
class AuditReport(AuditReportFace):
    """Per-target results, the summary and what the audit ran with."""

    design = "targeted"
    per_person = "targets"

    generator: str
    settings: AuditSettings
    targets: list[TargetResult]
    summary: dict[str, Any]
    warnings: list[str]
    seconds: float
    splits: dict[str, int]
    #: Seconds spent per phase: generator fits, samples, features, meta-classifiers, statistics.
    timings: dict[str, float] = field(default_factory=dict)
    #: The generator in words, as the verdict names it (``generator`` is its name for machines).
    label: str | None = None


# ---------------------------------------------------------------------------------------- the pieces


def achilles_scores(encoded: np.ndarray, k: int = NEIGHBOURS) -> np.ndarray:
    """Mean distance of each row to its ``k`` nearest other rows (Meeus et al.'s vulnerability score).

    Examples
    --------
    >>> achilles_scores(np.array([[0.0], [1.0], [2.0], [10.0]]), k=2).tolist()
    [1.5, 1.0, 1.5, 8.5]
    """
    n = len(encoded)
    k = min(k, n - 1)
    if k < 1:
        return np.zeros(n)
    return nearest_others(encoded, np.arange(n), k).mean(axis=1)


class FeatureExtractor:
    """TAPAS-style query features of one synthetic output about one target record."""

    def __init__(self, real: pd.DataFrame, schema: Schema, space: EuclideanSpace):
        self.columns = list(schema.columns)
        self.numerical = [c for c in self.columns if schema.types[c] == NUMERICAL]
        self.tolerance = {c: NUMERICAL_TOLERANCE * float(real[c].max() - real[c].min()) for c in self.numerical}
        self.space = space

    def features(self, target: pd.Series, target_encoded: np.ndarray, synthetic: pd.DataFrame,
                 queries: np.ndarray) -> np.ndarray:
        """Match shares for every query, then the distances to the nearest synthetic rows."""
        mismatch = np.empty((len(synthetic), len(self.columns)))
        for j, col in enumerate(self.columns):
            values = synthetic[col].to_numpy()
            if col in self.tolerance:
                with np.errstate(invalid="ignore"):
                    mismatch[:, j] = ~(np.abs(values.astype(float) - float(target[col])) <= self.tolerance[col])
            else:
                mismatch[:, j] = values != target[col]
        shares = ((mismatch @ queries.T) == 0).mean(axis=0) if len(synthetic) else np.zeros(len(queries))
        # A missing number (an ε-DP histogram can draw one) has no distance: such rows are left out here.
        complete = synthetic.dropna(subset=self.numerical) if self.numerical else synthetic
        nearest = nearest_distances(np.atleast_2d(target_encoded), self.space.transform(complete), NEIGHBOURS)[0]
        return np.r_[shares, np.minimum(nearest, 1e6)]


def split_sizes(n: int, settings: AuditSettings) -> tuple[int, int, int, int]:
    """Rows of the target pool, the auxiliary and the evaluation data, and the training sets' rows ``m``.

    Parameters
    ----------
    n : int
        Usable rows of the real table.
    settings : AuditSettings
        The budget (its ``training_rows``, when set, is ``m``).

    Returns
    -------
    tuple of int
        ``(pool, auxiliary, evaluation, m)``.

    Raises
    ------
    TooFewRowsError
        Too few rows for the targets and two data sets that hold a training set each.

    Examples
    --------
    >>> split_sizes(1000, AuditSettings())
    (200, 400, 400, 200)
    """
    n_pool, n_aux = int(n * POOL_SHARE), int(n * AUX_SHARE)
    n_eval = n - n_pool - n_aux
    m = settings.training_rows or min(MAX_TRAINING_ROWS, n_aux // 2, n_eval // 2)
    n_targets = settings.targets + settings.random_targets
    if n_pool < n_targets or m < 10 or m > min(n_aux, n_eval) - 1:
        raise TooFewRowsError(
            f"The real table has {n} usable rows: too few to split into a target pool of at least {n_targets} "
            f"records and two data sets for training sets of {m} rows (about {max(5 * n_targets, 60)} rows are "
            "needed at the very least). Use a larger table, fewer targets or smaller training sets.")
    return n_pool, n_aux, n_eval, m


def meta_classifier(seed: int) -> RandomForestClassifier:
    """The attack's meta-classifier of one target: a random forest with out-of-bag scores.

    It uses one thread: the audit's processes already use every core.
    """
    return RandomForestClassifier(n_estimators=200, min_samples_leaf=2, random_state=seed, n_jobs=1, oob_score=True)


def chance_share_above(threshold: float, n_in: int, n_out: int, *, draws: int = 20_000, seed: int = 0) -> float:
    """Probability that an attack that guesses at random scores an AUC above ``threshold``.

    On ``n_in`` models with the target and ``n_out`` without (Monte Carlo over random rankings).
    """
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((draws, n_in + n_out)), axis=1)
    labels = np.r_[np.ones(n_in, dtype=np.int8), np.zeros(n_out, dtype=np.int8)]
    ranks = np.empty((draws, n_in + n_out), dtype=np.int64)
    np.put_along_axis(ranks, order, np.arange(n_in + n_out)[None, :].repeat(draws, 0), axis=1)
    auc = roc_statistics(ranks, np.broadcast_to(labels, ranks.shape), n_in + n_out).auc
    return float(np.mean(auc > threshold))




def _statistics(labels: np.ndarray, scores: np.ndarray, rng: np.random.Generator):
    """AUC and TPRs with percentile-bootstrap intervals (models with and without the target resampled apart)."""
    members, non = scores[labels == 1], scores[labels == 0]
    auc, tpr = roc_summary(members, non)
    n_in = len(members)

    def auc_and_tprs(resampled):
        boot_auc, boot_tpr = roc_summary(resampled[:, :n_in], resampled[:, n_in:])
        return np.column_stack([boot_auc, *boot_tpr.values()])

    # Members first, then non-members, all replicates in one chunk: the draws of the shared ``rng``.
    pooled = np.r_[members, non]
    replicates = bootstrap_replicates(auc_and_tprs, pooled, n_boot=BOOTSTRAP, seed=rng, vectorized=True,
                                      strata=np.r_[np.zeros(n_in), np.ones(len(non))],
                                      max_chunk_elements=BOOTSTRAP * len(pooled))
    intervals = [percentile_interval(replicates[:, column], 0.95) for column in range(replicates.shape[1])]
    return (float(auc[0]), intervals[0], {k: float(v[0]) for k, v in tpr.items()},
            dict(zip(tpr, intervals[1:])))


# ------------------------------------------------------------------------------------------ the audit


def audit(
    real: pd.DataFrame,
    generator: Any,
    schema: Schema | None = None,
    *,
    settings: AuditSettings | None = None,
    generator_name: str | None = None,
    generator_label: str | None = None,
    make: Callable[[pd.DataFrame], Any] | None = None,
    progress: ProgressCallback | None = None,
) -> AuditReport:
    """Shadow-model membership audit of ``generator`` on the real table (see Notes).

    Parameters
    ----------
    real : DataFrame
        The real table.
    generator : object
        Anything with ``fit(table, types)`` (or ``fit(table)``) and ``sample(n, seed)``; refitted for every
        model. Wrap SDV-style synthesizers with :class:`privcore.generators.SDVAdapter`.
    schema : Schema, optional
        Column types (inferred when omitted); the audit uses every analysed column.
    settings : AuditSettings, optional
        Budget and seed.
    generator_name : str, optional
        How the report names the generator (its ``generator`` field, for machines).
    generator_label : str, optional
        How the answer and the errors name the generator in words (e.g.
        :func:`privcore.generators.generator_title`); by default its label in the generator registry, or
        its name for a generator the registry does not know.
    make : callable, optional
        ``make(population) -> generator``: builds the generator with the auxiliary data as its population
        of real people outside the training data (built-ins that need one); overrides ``generator``.
    progress : callable, optional
        ``progress(fraction, message)``.

    Returns
    -------
    AuditReport

    Raises
    ------
    AuditError, TooFewRowsError
        Bad settings, too few rows for the three splits, or a generator that fails on every model.

    Notes
    -----
    Data-only scores look at one synthetic table. This audit attacks the *generator*: for one real person at
    a time (a target), it trains the generator many times on data with and without that person, learns from
    the outputs what the person's presence changes (a meta-classifier on query features), and measures how
    well that attack tells fresh outputs apart. It is the evidence the "DCR delusion" paper (Yao et al. 2025)
    asks for: it finds leaks that distance proxies pass.

    Steps (:func:`audit`):

    1. Split the real table, shuffled by the seed, into a target pool (20 %), auxiliary data (40 %) and
       evaluation data (40 %). Training sets have ``m`` rows (default min(1000, half of each data part)).
    2. Targets: the ``targets`` most vulnerable records of the pool by the Achilles score (mean distance in
       E to their 5 nearest other records of the real table; Meeus et al.), plus ``random_targets`` others
       drawn at random.
    3. For each target: ``shadow_models`` generators trained on ``m`` auxiliary rows *with* the target (it
       replaces one row) and as many *without* it; from each output, features: for ``n_queries`` random
       subsets of the columns, the share of synthetic rows matching the target on them (categories equal,
       numbers within 5 % of the column's range), and the target's distances in E to its 5 nearest
       synthetic rows. A random forest learns in/out from the shadow features.
    4. It is evaluated on ``eval_models`` fresh generators trained on evaluation rows, half with the target
       (the model-seeded set-up): ROC AUC and TPR at FPR 0, 1 % and 10 %, with bootstrap intervals.
    5. The ε it implies: the threshold with the largest TPR − FPR on the shadow models' out-of-bag scores
       (no shadow model is scored by trees trained on it), counted on the evaluation models, gives
       :func:`privcore.base.stats.epsilon_lower_bound`: no generator that is ε-differentially private for that
       record, with ε below it, could let the attack do this well (95 % confidence per bound). This is the
       rigorous bound: the generators differ by exactly that record.

    A generator that raises on one model is reported, not fatal; generators that need real people outside the
    training data (``fresh_sample``, the leak ladder) draw them from the auxiliary data.
    """
    started = time.perf_counter()
    settings = (settings or AuditSettings()).check()
    schema = schema if schema is not None else infer_schema(real)
    prepared = prepare(real, real, schema)
    data = prepared.real[list(schema.columns)].reset_index(drop=True)
    row_in_table = prepared.kept["real"]  # rows with a missing number may have been dropped
    n = len(data)
    rng = np.random.default_rng(settings.seed)
    order = rng.permutation(n)
    n_pool, n_aux, _, m = split_sizes(n, settings)
    n_targets = settings.targets + settings.random_targets
    pool, aux, evaluation = order[:n_pool], order[n_pool : n_pool + n_aux], order[n_pool + n_aux :]
    space = EuclideanSpace(data, [], schema)
    encoded = space.transform(data)
    vulnerability = achilles_scores(encoded)
    pool_order = pool[np.argsort(-vulnerability[pool], kind="stable")]
    vulnerable = pool_order[: settings.targets]
    rest = np.setdiff1d(pool, vulnerable)
    random_picks = rng.choice(rest, size=min(settings.random_targets, len(rest)), replace=False)
    chosen = [(int(r), "vulnerable") for r in vulnerable] + [(int(r), "random") for r in random_picks]
    population = data.iloc[aux].reset_index(drop=True)
    fitted = make(population) if make is not None else generator
    name = generator_name or getattr(fitted, "name", None) or type(fitted).__name__
    label = generator_label or registry_label(name)
    extractor = FeatureExtractor(data, schema, space)
    types = {c: schema.types[c] for c in schema.columns}
    warnings: list[str] = []
    results: list[TargetResult] = []
    total_models = n_targets * (2 * settings.shadow_models + settings.eval_models)
    done = 0
    timings = dict.fromkeys(("fit", "sample", "features", "meta_classifier", "statistics"), 0.0)
    clock = time.perf_counter

    def tick(message: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(min(1.0, done / total_models), message)

    for t_index, (row, how) in enumerate(chosen):
        target = data.iloc[row]
        queries = random_queries(len(schema.columns), settings.n_queries, rng)
        failures: list[str] = []

        def features_of(base_rows: np.ndarray, with_target: bool, model_seed: int) -> np.ndarray | None:
            training = data.iloc[base_rows].reset_index(drop=True)
            if with_target:
                training.iloc[0] = target
            try:
                model = model_for_fit(make, population, model_seed) if make is not None else fitted
                began = clock()
                fit_model(model, training, types)
                timings["fit"] += clock() - began
                began = clock()
                output = model.sample(m, seed=model_seed)
                timings["sample"] += clock() - began
                _check_columns(output, training, label)
                began = clock()
                features = extractor.features(target, encoded[row], output[list(schema.columns)], queries)
                timings["features"] += clock() - began
            except Exception as exc:  # noqa: BLE001 - one failing model is reported, not fatal
                failures.append(f"{type(exc).__name__}: {exc}")
                if not isinstance(exc, InputError):
                    failures[-1] += "\n" + traceback.format_exc(limit=3)
                return None
            return features

        def collect(source: np.ndarray, count: int, kind: str):
            feats, labels = [], []
            for i in range(count):
                with_target = i % 2 == 0
                base = rng.choice(source, size=m, replace=False)
                f = features_of(base, with_target, int(rng.integers(2**31)))
                tick(f"target {t_index + 1} of {n_targets}: {kind} model {i + 1} of {count}")
                if f is not None:
                    feats.append(f)
                    labels.append(int(with_target))
            return np.array(feats), np.array(labels)

        shadow_x, shadow_y = collect(aux, 2 * settings.shadow_models, "shadow")
        eval_x, eval_y = collect(evaluation, settings.eval_models, "evaluation")
        if len(failures) == 2 * settings.shadow_models + settings.eval_models:
            raise AuditError(f"The generator {label} failed on every model for target row {row}; the first error "
                             f"was: {failures[0].splitlines()[0]}")
        if failures:
            warnings.append(f"Target row {row}: {len(failures)} model(s) failed and were left out "
                            f"(first: {failures[0].splitlines()[0]}).")
        result = TargetResult(row=int(row_in_table[row]), chosen=how, vulnerability=float(vulnerability[row]), auc=None,
                              auc_interval=None, tpr_at={k: None for k in FPR_LEVELS},
                              tpr_at_interval={k: None for k in FPR_LEVELS}, shadow_models=len(shadow_y),
                              eval_models=len(eval_y), failed_models=len(failures))
        if len(set(shadow_y.tolist())) == 2 and len(set(eval_y.tolist())) == 2:
            began = clock()
            forest = meta_classifier(settings.seed).fit(shadow_x, shadow_y)
            scores = forest.predict_proba(eval_x)[:, 1]
            result.epsilon_lower_bound = implied_epsilon(forest.oob_decision_function_[:, 1], shadow_y, scores, eval_y)
            timings["meta_classifier"] += clock() - began
            began = clock()
            result.auc, result.auc_interval, result.tpr_at, result.tpr_at_interval = _statistics(eval_y, scores, rng)
            timings["statistics"] += clock() - began
            result.eval_scores, result.eval_labels = scores.tolist(), eval_y.tolist()
        else:
            warnings.append(f"Target row {row}: too few working models to train or evaluate the attack.")
        results.append(result)
    summary = _summary(results, settings, data, schema, fitted, make, population, evaluation, m, label)
    return AuditReport(generator=name, settings=settings, targets=results, summary=summary, warnings=warnings,
                       seconds=time.perf_counter() - started, label=label,
                       splits={"rows": n, "target_pool": len(pool), "auxiliary": len(aux),
                               "evaluation": len(evaluation), "training_rows": m}, timings=timings)


def implied_epsilon(shadow_scores: np.ndarray, shadow_labels: np.ndarray, eval_scores: np.ndarray,
                    eval_labels: np.ndarray) -> float:
    """ε lower bound of one target: threshold chosen on the shadow models, counted on the evaluation models.

    The threshold is the shadow score with the largest TPR − FPR (models at or above it are called "trained
    with the target"); :func:`privcore.base.stats.epsilon_lower_bound` turns the evaluation counts into ε.

    Examples
    --------
    A perfect attack on 10 + 10 evaluation models, and one that scores every model alike:

    >>> shadow, labels = np.r_[0.9, 0.2], np.r_[1, 0]
    >>> evaluation = np.r_[[1] * 10, [0] * 10]
    >>> round(implied_epsilon(shadow, labels, np.where(evaluation == 1, 0.9, 0.1), evaluation), 4)
    1.0519
    >>> implied_epsilon(shadow, labels, np.full(20, 0.5), evaluation)
    0.0
    """
    usable = np.isfinite(shadow_scores)
    shadow_scores, shadow_labels = shadow_scores[usable], shadow_labels[usable]
    if len(set(shadow_labels.tolist())) < 2:
        return 0.0
    candidates = np.unique(shadow_scores)
    gains = [np.mean(shadow_scores[shadow_labels == 1] >= t) - np.mean(shadow_scores[shadow_labels == 0] >= t)
             for t in candidates]
    threshold = candidates[int(np.argmax(gains))]
    flagged = eval_scores >= threshold
    members, non = eval_labels == 1, eval_labels == 0
    return epsilon_lower_bound(int(flagged[members].sum()), int(members.sum()), int(flagged[non].sum()),
                               int(non.sum()))


def fit_model(model: Any, table: pd.DataFrame, types: Mapping[str, str]) -> None:
    """Fit ``model`` on ``table`` with its column types, or without them for an outside ``fit(table)``."""
    try:
        model.fit(table, types)
    except TypeError:
        model.fit(table)


def _check_columns(output: Any, training: pd.DataFrame, name: str) -> None:
    if not isinstance(output, pd.DataFrame):
        raise AuditError(f"The generator {name} returned a {type(output).__name__}, not a table.")
    missing = [c for c in training.columns if c not in output.columns]
    if missing:
        raise AuditError(f"The generator {name} returned a table without the column(s) {', '.join(map(str, missing))}.")


def _summary(results, settings, data, schema, fitted, make, population, evaluation, m, label) -> dict[str, Any]:
    aucs = [r.auc for r in results if r.auc is not None]
    n_eval = settings.eval_models
    chance = chance_share_above(0.6, (n_eval + 1) // 2, n_eval // 2, seed=settings.seed)
    bounds = [r.epsilon_lower_bound for r in results if r.epsilon_lower_bound is not None]
    summary: dict[str, Any] = {
        "max_epsilon_lower_bound": max(bounds) if bounds else None,
        "share_auc_above_0.6": float(np.mean([a > 0.6 for a in aucs])) if aucs else None,
        "share_auc_above_0.8": float(np.mean([a > 0.8 for a in aucs])) if aucs else None,
        "share_clearly_exposed": float(np.mean([r.auc > 0.8 and r.auc_interval[0] > 0.5 for r in results
                                                if r.auc is not None])) if aucs else None,
        "chance_share_above_0.6": chance,
        "mean_auc": {how: _mean([r.auc for r in results if r.chosen == how and r.auc is not None])
                     for how in ("vulnerable", "random")},
    }
    summary["dcr_test"], summary["utility"] = _one_output(data, schema, fitted, make, population, evaluation, m,
                                                          settings.seed)
    summary["verdict"] = audit_verdict(summary, label)  # the answer names the generator in words
    return summary


def _mean(values) -> float | None:
    return float(np.mean(values)) if values else None


def _one_output(data, schema, fitted, make, population, evaluation, m, seed):
    """The DCR holdout test and the utility on one synthetic output, to show them beside the attack.

    See :func:`privcore.audit.one_output.output_checks`.
    """
    rng = np.random.default_rng([seed, 7])
    picks = rng.permutation(evaluation)
    training = data.iloc[picks[:m]].reset_index(drop=True)
    holdout = data.iloc[picks[m : 2 * m]].reset_index(drop=True)
    if len(holdout) < 2:
        return None, None
    try:
        model = model_for_fit(make, population, seed) if make is not None else fitted
        fit_model(model, training, {c: schema.types[c] for c in schema.columns})
        output = model.sample(m, seed=seed)
    except Exception:  # noqa: BLE001 - the checks are context, not the audit's result
        return None, None
    return output_checks(training, output, holdout, schema)
