"""Running the lab: check the settings, split the tables, build the ladder, evaluate every table once."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from privcore.base import one_blas_thread, usable_cores
from privcore.data import NUMERICAL, Schema, infer_schema, validate_tables
from privcore.engine import connected
from privcore.evaluation import validated_params
from privcore.generators import LADDER, level_to_epsilon, make_generator
from privcore.lab.errors import LabError, LabTableTooSmallError, LevelError
from privcore.lab.frontier import FrontierRun, TablePoint, split_utility
from privcore.lab.parallel import EvaluationSetup, Outcome, in_daemon_process, run_tasks
from privcore.lab.result import LabResult, LabRun, json_epsilon
from privcore.lab.settings import (
    DEFAULT_LEVELS,
    DEFAULT_METRICS,
    DEFAULT_SEEDS,
    MIN_PART_ROWS,
    REFERENCE,
    check_lab_settings,
    check_label,
    check_leaks,
    check_levels,
    check_margin,
    check_metrics,
    check_seeds,
    run_seeds,
)
from privcore.lab.statistics import DEFAULT_MARGIN, analyse, false_alarm_bound
from privcore.lab.summary import metric_sentence
from privcore.metrics import registry

__all__ = ["LabProgress", "run", "run_ladder", "split_tables"]

#: ``progress(done, total, message)``: ``done`` of ``total`` synthetic tables evaluated.
LabProgress = Callable[[int, int, str], None]

_RULE = ("Level k is separated when every seed's risk at k exceeds the largest reference risk by more than the "
         "margin; the detection level is the smallest k from which every level of the grid is separated.")


# --------------------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------------------
def _lab_schema(real: Any, schema: Schema | None, holdout: Any, synthetic: Mapping[str, pd.DataFrame],
                names: Mapping[str, str]) -> Schema:
    for role, table in (("real", real), ("holdout", holdout)):
        if table is not None and not isinstance(table, pd.DataFrame):
            raise LabError(f"The {role} table must be a pandas DataFrame; got {type(table).__name__}.")
    schema = (schema if schema is not None else infer_schema(real)).with_changes(pairing=None)  # nothing is paired
    # The column settings first (--categorical, --exclude, the Configure page), as for evaluate.
    validate_tables(real, dict(synthetic), holdout, names=names, schema=schema)
    schema.validate(real, dict(synthetic), holdout, real_name=names.get("real", "real"),
                    holdout_name=names.get("holdout", "holdout"))
    return schema


def split_tables(real: pd.DataFrame, holdout: pd.DataFrame | None, seed: int, *,
                 names: Mapping[str, str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The lab's three disjoint real tables: training, holdout (for the metrics) and fresh population.

    Without ``holdout``: a seeded shuffle of ``real`` (``numpy.random.default_rng(seed)``) gives half of it
    (rounded down) to training; of the rest, a third (rounded down) is the holdout and the remainder the
    population. With ``holdout``: ``real`` is the training table and the holdout is shuffled and split the
    same way (a third holdout, two thirds population). Each part needs :data:`MIN_PART_ROWS` rows, so the
    real table needs 6 × 20 = 120 rows without a holdout and the holdout 60 with one;
    :class:`LabTableTooSmallError` otherwise.

    The population is twice the holdout, so each seed's fresh sample (holdout-sized) is a different subset
    of it, and the reference runs vary over seeds as fresh real samples do.
    """
    names = dict(names or {})
    rng = np.random.default_rng(seed)
    if holdout is None:
        if len(real) < 6 * MIN_PART_ROWS:
            raise LabTableTooSmallError(
                f"{names.get('real', 'The real table')} has {len(real)} rows: too few to split off a holdout and a "
                f"fresh population for the lab (it needs at least {6 * MIN_PART_ROWS}: half for training, a sixth "
                "as the holdout, a third as fresh real rows). Give a holdout table, or a larger table.",
                file=names.get("real", "real"))
        order = rng.permutation(len(real))
        cut = len(real) // 2
        training, rest = real.iloc[order[:cut]], real.iloc[order[cut:]]
    else:
        if len(holdout) < 3 * MIN_PART_ROWS or len(real) < MIN_PART_ROWS:
            which, rows, need = (("holdout", len(holdout), 3 * MIN_PART_ROWS) if len(holdout) < 3 * MIN_PART_ROWS
                                 else ("real", len(real), MIN_PART_ROWS))
            raise LabTableTooSmallError(
                f"{names.get(which, 'The ' + which + ' table')} has {rows} rows: the lab needs at least {need} "
                "(the holdout is split into a third for the metrics and two thirds of fresh real rows).",
                file=names.get(which, which))
        training, rest = real, holdout.iloc[rng.permutation(len(holdout))]
    third = len(rest) // 3
    parts = training, rest.iloc[:third], rest.iloc[third:]
    return tuple(part.reset_index(drop=True) for part in parts)


def _digest(table: pd.DataFrame) -> str:
    digest = hashlib.sha256(repr(list(table.columns)).encode())
    digest.update(pd.util.hash_pandas_object(table, index=False).to_numpy().tobytes())
    return digest.hexdigest()


#: By default the lab uses one process per this many synthetic tables (up to every usable core): starting a
#: process costs about as much as evaluating a few small tables.
TABLES_PER_WORKER = 4


def lab_workers(workers: int | None, tables: int) -> int:
    """Processes the lab's ``tables`` evaluations run on.

    ``workers`` when given (a whole number ≥ 1); by default every usable core
    (:func:`privcore.base.cores.usable_cores`) but no more than one per :data:`TABLES_PER_WORKER` tables, and 1
    inside a daemonic process such as the dashboard's worker pool, which may not start processes of its own.

    Raises
    ------
    LabError
        For a number of workers that is not a whole number ≥ 1.

    Examples
    --------
    >>> lab_workers(3, 100), lab_workers(None, 2)
    (3, 1)
    """
    if workers is None:
        return 1 if in_daemon_process() else max(1, min(usable_cores(), tables // TABLES_PER_WORKER))
    return check_lab_settings(workers=workers)["workers"]


class _Evaluator:
    """Evaluates synthetic tables against one training table and holdout with one ``reuse`` dict.

    A table evaluated before with the same seed (e.g. a level-0 table equal to the fresh reference) is not
    evaluated again.
    """

    def __init__(self, training, holdout, schema, metrics, params, share_passes, names, utility=()):
        self.setup = EvaluationSetup(training, holdout, schema, tuple(metrics), params, dict(names), share_passes,
                                     tuple(utility))
        self.metrics = metrics
        self.reuse: dict | None = {} if share_passes else None
        self.cache: dict[tuple[str, int], dict[str, tuple[float | None, float | None]]] = {}
        #: (table, seed) → the table's point of the privacy–utility frontier (None without utility measures).
        self.points: dict[tuple[str, int], TablePoint | None] = {}
        #: The frontier's runs, in the order the tables were planned.
        self.frontier: list[FrontierRun] = []
        self.evaluations = self.repeats = 0
        self.reasons: dict[str, str] = {}
        self.errors: list[str] = []

    def __call__(self, table: pd.DataFrame, seed: int, label: str,
                 key: tuple[str, int] | None = None) -> dict[str, tuple[float | None, float | None]]:
        key = key or (_digest(table), seed)
        if key in self.cache:
            self.repeats += 1
            return self.cache[key]
        return self.record(key, self.setup.evaluate(self.reuse, table, seed, label))

    def record(self, key: tuple[str, int], outcome: Outcome) -> dict[str, tuple[float | None, float | None]]:
        """Keep one evaluation's scores, errors and reasons (from this process or from a worker)."""
        self.evaluations += 1
        self.errors += list(outcome.errors)
        for metric, reason in outcome.reasons:
            self.reasons.setdefault(metric, reason)
        self.cache[key] = outcome.scores
        self.points[key] = outcome.point
        return outcome.scores

    def place(self, key: tuple[str, int], leak: str, level: float, seed: int, epsilon: float | None) -> None:
        """Add the table evaluated under ``key`` to the frontier as the run (leak, level, seed)."""
        point = self.points.get(key)
        if point is not None:
            self.frontier.append(FrontierRun(leak, level, seed, epsilon, point.privacy, point.privacy_metric,
                                             point.utility, point.utility_score, point.verdict))


# --------------------------------------------------------------------------------------------------
# the two entry points
# --------------------------------------------------------------------------------------------------
def run(
    real: pd.DataFrame,
    schema: Schema | None = None,
    *,
    holdout: pd.DataFrame | None = None,
    leaks: str | Iterable[str] = LADDER,
    levels: str | Iterable[float] = DEFAULT_LEVELS,
    seeds: int = DEFAULT_SEEDS,
    metrics: str | Iterable[str] = DEFAULT_METRICS,
    seed: int = 0,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    margin: float = DEFAULT_MARGIN,
    progress: LabProgress | None = None,
    share_passes: bool = True,
    names: Mapping[str, str] | None = None,
    workers: int | None = None,
    cluster: Any = None,
    utility: bool = True,
) -> LabResult:
    """Run the metric lab on a real table: which metric notices which leak, from which level.

    See :mod:`privcore.lab` for the design (split, reference, baselines, detection rule).

    Parameters
    ----------
    real : DataFrame
        The real table.
    schema : Schema, optional
        Column types and roles (key, sensitive); inferred from ``real`` when omitted. ``attribute_leak``
        and the inference metrics need a sensitive column.
    holdout : DataFrame, optional
        Real records not in ``real``; split into the metrics' holdout and the fresh population
        (:func:`split_tables`). Without it, both are split off ``real``.
    leaks : str or iterable of str
        Leak types from :data:`privcore.generators.LADDER` (default all seven).
    levels : str or iterable of float
        Leak levels in [0, 1] (default 0, 0.25, 0.5, 0.75, 1); 0 is always added.
    seeds : int
        Synthetic tables per leak type and level (default 3); seed i is ``seed + i``.
    metrics : str or iterable of str
        Metric ids, ``"all"`` or a preset (default :data:`DEFAULT_METRICS`).
    seed : int
        Seed of the split and first seed of the runs.
    params : mapping, optional
        Metric parameters, as for :func:`privcore.evaluate`.
    margin : float
        Detection margin in risk units (:func:`privcore.lab.statistics.separated`).
    progress : callable, optional
        ``progress(done, total, message)``: synthetic tables done of all.
    share_passes : bool
        Compute the passes that do not involve the synthetic table once for the whole lab (one ``reuse``
        dict for every :func:`privcore.evaluate` call); False only to measure what that saves.
    names : mapping, optional
        ``{"real": ..., "holdout": ...}`` file names for messages.
    workers : int, optional
        Processes the evaluations run on (:func:`lab_workers`; default every usable core). The result is the
        same for any number.
    cluster : str or distributed.Client, optional
        Run the evaluations as tasks on a Dask cluster (an address, ``"local:N"`` or a Client, as in
        :func:`privcore.evaluate`; optional extra ``privcore[dask]``); the result is the same.
    utility : bool
        Also evaluate the cheap utility measures (column shapes and column-pair trends) on every table, for the
        privacy–utility frontier (:mod:`privcore.lab.frontier`); utility measures named in ``metrics`` join the
        frontier either way, never the detection statistics.

    Returns
    -------
    LabResult

    Raises
    ------
    UnknownLeakError, LevelError, SeedsError, UnknownLabMetricError, LabTableTooSmallError, LabError
        Bad settings or tables too small to split (all :class:`privcore.base.errors.InputError`).
    InputError
        Unusable tables, schema or metric parameters, as for :func:`privcore.evaluate` (checked before any
        table is generated); ``attribute_leak`` without a sensitive column is a :class:`LabError`.

    Notes
    -----
    How the tables are made:

    - **Three disjoint real tables** (:func:`~privcore.lab.runs.split_tables`): the *training* table the
      generators learn from (the metrics' real table), the metrics' *holdout*, and a *population* of fresh
      real rows that the ladder's unleaked rows come from. Without a holdout the real table is split 1/2,
      1/6, 1/3 (seeded); a given holdout is split 1/3 holdout, 2/3 population. The population is kept apart
      from the holdout because a synthetic table made of holdout rows would sit at distance 0 from the
      holdout and distort every holdout-based attack; it is twice the holdout so that each seed's fresh
      sample is a different subset of it. Every synthetic table has as many rows as the holdout, so its
      risks compare with the holdout's.
    - **Seeds**: seed i (``seed + i``) draws the i-th synthetic table of every leak type and level and seeds
      its evaluation; for one seed the leak types share their fresh rows (common random numbers).
    - **Reference = fresh samples**: per seed, the ``fresh_sample`` generator's table (population rows only)
      is evaluated too and listed as runs of leak ``"fresh_sample"`` at level 0. For ``partial_copy``,
      ``rare_records``, ``attribute_leak``, ``value_reuse`` and ``column_resample`` it *is* the level-0 table
      (evaluated once).
      ``noisy_copy`` at level 0 is training rows with one σ of noise and every category redrawn, and
      ``dp_marginals`` at level 0 is the ε = 0.1 model (ε = 0.1·1000^s, ∞ at s = 1): neither is a fresh
      sample, so every leak type is compared with the fresh-sample runs, not with its own level 0, and
      these two may be detected already at level 0 (the sentence then says "already at level 0").
    - **Baselines**: a run's ``baseline`` is :func:`privcore.evaluate`'s fresh-sample baseline (the holdout
      in place of the synthetic table) for metrics that declare one; the attacks that use the holdout
      themselves (singling out, inference, the holdout tests, membership inference) have none there, and
      the lab gives them the risk of the same seed's fresh-sample table instead.
      ``settings["baseline_source"]`` says which. Excess risk = risk − baseline.
    - **Shared passes**: one ``reuse`` dict serves every :func:`privcore.evaluate` call (the training table
      and holdout never change), so real→real and holdout passes are computed once for the whole lab; a
      table equal to one already evaluated with the same seed is not evaluated again.
    """
    started = time.perf_counter()
    leaks, grid, n_seeds, ids = check_leaks(leaks), check_levels(levels), check_seeds(seeds), check_metrics(metrics)
    ids, measures = _privacy_and_utility(ids, utility)
    workers = lab_workers(workers, (len(leaks) * len(grid) + 1) * n_seeds)
    margin, seeds_used, names = check_margin(margin), run_seeds(seed, n_seeds), dict(names or {})
    schema = _lab_schema(real, schema, holdout, {}, names)
    validated_params(params, schema)
    if "attribute_leak" in leaks and schema.sensitive is None:
        raise LabError("The attribute leak (attribute_leak) changes the sensitive column, and none is chosen: name "
                       "it (--sensitive COLUMN) or leave attribute_leak out of the leak types (--leaks).")
    given = [table[schema.columns] for table in (real, holdout) if table is not None]
    gaps = [c for c in schema.columns_of(NUMERICAL) if any(table[c].isna().any() for table in given)]
    given = [table.astype({c: float for c in gaps}) for table in given]  # a missing number may come from any part
    training, evaluation, population = split_tables(given[0], given[1] if holdout is not None else None,
                                                    seeds_used[0], names=names)
    columns = schema.columns
    types = {c: schema.types[c] for c in columns}
    context = {"population": population, "key": schema.key_columns, "sensitive": schema.sensitive}
    ladder = [(REFERENCE, 0.0, make_generator(REFERENCE, population=population))]
    ladder += [(leak, level, make_generator(leak, level=level, **context)) for leak in leaks for level in grid]
    evaluator = _Evaluator(training, evaluation, schema, ids, params, share_passes, names, measures)
    with connected(cluster) as client:
        runs = _run_tables(evaluator, ids, seeds_used, progress, [
            (leak, level, lambda i, s, g=gen: g.sample(len(evaluation), s), gen) for leak, level, gen in ladder],
            training, types, workers=workers, client=client)
    fresh = {(r.metric, r.seed): r.risk for r in runs if r.leak == REFERENCE}
    own = {m: registry.get(m).baseline for m in ids}
    runs = [r if own[r.metric] else replace(r, baseline=fresh[(r.metric, r.seed)]) for r in runs]
    settings = {
        "kind": "generated", "leaks": leaks, "levels": grid, "reference": f"{REFERENCE} at level 0",
        "baseline_source": {m: "holdout" if own[m] else REFERENCE for m in ids},
        "rows": {"training": len(training), "holdout": len(evaluation), "population": len(population),
                 "synthetic": len(evaluation)},
        "epsilon_by_level": {f"{level:g}": json_epsilon(level_to_epsilon(level)) for level in grid}
        if "dp_marginals" in leaks else {},
    }
    return _finish(runs, ids, leaks, {leak: grid for leak in leaks}, lambda leak: (REFERENCE, 0.0), margin,
                   n_seeds, seeds_used, evaluator, settings, started, labels=False)


def run_ladder(
    real: pd.DataFrame,
    tables: Mapping[float, pd.DataFrame | Sequence[pd.DataFrame]],
    schema: Schema | None = None,
    *,
    holdout: pd.DataFrame | None = None,
    metrics: str | Iterable[str] = DEFAULT_METRICS,
    seed: int = 0,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    margin: float = DEFAULT_MARGIN,
    progress: LabProgress | None = None,
    name: str = "uploaded",
    share_passes: bool = True,
    names: Mapping[str, str] | None = None,
    workers: int | None = None,
    cluster: Any = None,
    utility: bool = True,
) -> LabResult:
    """The lab on a supplied ladder: synthetic tables with a numeric label each (e.g. one generator at several ε).

    The tables were made from ``real``, so nothing is split off it: ``holdout`` (real records not in
    ``real``) is used as given, for the fresh-sample baseline and the metrics that need one; without it
    those metrics do not run. Labels are sorted ascending and the **smallest label is the reference**:
    put the least leaky setting lowest (an ε ladder works as it is; negate a noise scale). A label may
    hold several tables (repeats, e.g. several generator seeds); the i-th table of a label is evaluated
    with seed ``seed + i`` and recorded under that seed. The detection rule is the generated lab's, with
    the reference label's tables in place of the fresh samples: with one table per label it compares
    single values (a chance pass has probability up to ½), so give repeats where you can.

    Runs carry ``leak = name`` and ``level = label``; ``baseline`` is evaluate's holdout baseline (None
    for metrics without one). Raises as :func:`run`; :class:`LevelError` for a label that is not a finite
    number, fewer than two labels or a label without tables. ``workers``, ``cluster`` and ``utility`` as in
    :func:`run` (without a holdout the frontier's utility is the raw score: there is no fresh sample).
    """
    started = time.perf_counter()
    if workers is not None:
        lab_workers(workers, 0)  # a bad value is refused before any table is checked
    ids, margin, names = check_metrics(metrics), check_margin(margin), dict(names or {})
    ids, measures = _privacy_and_utility(ids, utility)
    if not isinstance(tables, Mapping):
        raise LevelError("Give the supplied ladder as a mapping from a numeric label to a table (or a list of tables).")
    ladder: dict[float, list[pd.DataFrame]] = {}
    for label, given in tables.items():
        value = check_label(label, "The ladder label")
        group = [given] if isinstance(given, pd.DataFrame) else list(given)
        if not group or not all(isinstance(t, pd.DataFrame) for t in group):
            raise LevelError(f"Label {value:g} of the ladder needs one or more tables (pandas DataFrames).")
        ladder.setdefault(value, []).extend(group)
    if len(ladder) < 2:
        raise LevelError("A supplied ladder needs tables at two or more different labels (the smallest is the "
                         "reference).")
    seeds_used = run_seeds(seed, max(len(group) for group in ladder.values()))
    grid = sorted(ladder)
    workers = lab_workers(workers, sum(len(group) for group in ladder.values()))
    synthetic = {f"{name} {label:g} #{i + 1}": t for label in grid for i, t in enumerate(ladder[label])}
    schema = _lab_schema(real, schema, holdout, synthetic, names)
    validated_params(params, schema)
    evaluator = _Evaluator(real, holdout, schema, ids, params, share_passes, names, measures)
    jobs = [(name, label, lambda i, s, group=ladder[label]: group[i], None) for label in grid]
    with connected(cluster) as client:
        runs = _run_tables(evaluator, ids, seeds_used, progress, jobs, real, None,
                           count={label: len(ladder[label]) for label in grid}, workers=workers, client=client)
    settings = {
        "kind": "supplied", "leaks": [name], "levels": grid, "reference": f"label {grid[0]:g}",
        "tables_per_label": {f"{label:g}": len(ladder[label]) for label in grid},
        "baseline_source": {m: "holdout" if registry.get(m).baseline and holdout is not None else None for m in ids},
        "rows": {"training": len(real), "holdout": None if holdout is None else len(holdout)},
    }
    return _finish(runs, ids, [name], {name: grid}, lambda leak: (name, grid[0]), margin,
                   min(len(group) for group in ladder.values()), seeds_used, evaluator, settings, started, labels=True,
                   phrases={name: f"the {name} ladder"})


def _privacy_and_utility(ids: list[str], utility: bool) -> tuple[list[str], list[str]]:
    """The privacy metrics the lab compares and the utility measures of its frontier.

    See :func:`privcore.lab.frontier.split_utility`; :class:`LabError` when no privacy metric is left.
    """
    privacy, measures = split_utility(ids, utility)
    if not privacy:
        raise LabError("The lab compares privacy metrics, and only utility measures are chosen: add at least one "
                       "privacy metric (the utility measures are evaluated beside them, for the privacy-utility "
                       "frontier).")
    return privacy, measures


def _run_tables(evaluator, ids, seeds_used, progress, jobs, training, types, count=None, workers=1,
                client=None) -> list[LabRun]:
    """Evaluate every (leak, level, draw, generator) job at each seed; ``count`` limits seeds per level.

    With ``workers`` > 1 or a Dask ``client`` the evaluations run as tasks (:mod:`privcore.lab.parallel`);
    otherwise one after the other here. BLAS runs on one thread meanwhile, as in the neighbour engine: on the
    lab's small matrices (the FAMD fit of every evaluation above all) its threads gain little on a quiet
    2-core machine (one evaluation of the default metrics on 2,000 Adult rows: 1.2 s on one thread, 1.3 s on
    two) and cost much when another process holds a core (1.6–1.8 s against 2.9–3.6 s; a FAMD fit 0.07 s
    against 0.49 s).
    """
    with one_blas_thread():
        if workers > 1 or client is not None:
            return _evaluate_jobs_as_tasks(evaluator, ids, seeds_used, progress, jobs, training, types, count,
                                           workers, client)
        return _evaluate_jobs(evaluator, ids, seeds_used, progress, jobs, training, types, count)


def _planned_tables(jobs, seeds_used, count, training, types):
    """Every synthetic table of the lab, drawn in the sequential run's order: (leak, level, seed, ε, table)."""
    for leak, level, draw, generator in jobs:
        if generator is not None:
            generator.fit(training, types)
        epsilon = level_to_epsilon(level) if leak == "dp_marginals" else None
        for i, s in enumerate(seeds_used[:(count or {}).get(level, len(seeds_used))]):
            yield leak, level, s, epsilon, draw(i, s)


def _evaluate_jobs(evaluator, ids, seeds_used, progress, jobs, training, types, count) -> list[LabRun]:
    total = sum((count or {}).get(level, len(seeds_used)) for _, level, _, _ in jobs)
    runs, done = [], 0
    for leak, level, s, epsilon, table in _planned_tables(jobs, seeds_used, count, training, types):
        message = f"{leak} at level {level:g}, seed {s}"
        if progress is not None:
            progress(done, total, message)
        key = (_digest(table), s)
        scores = evaluator(table, s, message, key)
        evaluator.place(key, leak, level, s, epsilon)
        runs += [LabRun(leak, level, s, m, *scores[m], epsilon) for m in ids]
        done += 1
    if progress is not None:
        progress(total, total, "statistics")
    return runs


def _evaluate_jobs_as_tasks(evaluator, ids, seeds_used, progress, jobs, training, types, count, workers,
                            client) -> list[LabRun]:
    """Like :func:`_evaluate_jobs`, each distinct (table, seed) one task; the same result, in the same order.

    Outcomes are recorded in the sequential order once all have arrived.
    """
    total = sum((count or {}).get(level, len(seeds_used)) for _, level, _, _ in jobs)
    plan, first, outcomes, done = [], {}, {}, 0

    def report(message):
        if progress is not None:
            progress(done, total, message)

    def tasks():
        nonlocal done
        for leak, level, s, epsilon, table in _planned_tables(jobs, seeds_used, count, training, types):
            key = (_digest(table), s)
            plan.append((leak, level, s, epsilon, key))
            if key in first:
                evaluator.repeats += 1
                done += 1
                report(f"{leak} at level {level:g}, seed {s} (evaluated before)")
                continue
            first[key] = len(plan) - 1
            yield len(plan) - 1, table, s, f"{leak} at level {level:g}, seed {s}"

    def finished(position, outcome):
        nonlocal done
        outcomes[position] = outcome
        done += 1
        leak, level, s, _, _ = plan[position]
        report(f"{leak} at level {level:g}, seed {s}")

    report("starting the workers")
    run_tasks(evaluator.setup, tasks(), workers=workers, client=client, on_done=finished)
    for position in sorted(outcomes):
        evaluator.record(plan[position][4], outcomes[position])
    runs = []
    for leak, level, s, epsilon, key in plan:
        scores = evaluator.cache[key]
        evaluator.place(key, leak, level, s, epsilon)
        runs += [LabRun(leak, level, s, m, *scores[m], epsilon) for m in ids]
    if progress is not None:
        progress(total, total, "statistics")
    return runs


def _finish(runs, ids, leaks, grids, reference, margin, seeds, seeds_used, evaluator, settings, started, *,
            labels, phrases=None) -> LabResult:
    epsilon = (lambda leak, level: level_to_epsilon(level) if leak == "dp_marginals" else None)
    stats = analyse(runs, ids, leaks, grids, reference, margin=margin, epsilon=epsilon)
    ran = {r.metric for r in runs if r.risk is not None}
    not_applicable = {m: evaluator.reasons.get(m, "it returned no score on any table") for m in ids if m not in ran}
    summary = {m: metric_sentence(registry.get(m).name, stats["detection"][m], grids, reason=not_applicable.get(m),
                                  rising=stats["rising"][m],
                                  labels=labels, phrases=phrases) for m in ids}
    settings = {
        **settings, "seeds": seeds, "run_seeds": seeds_used, "metrics": ids, "margin": margin,
        "detection_rule": _RULE, "false_alarm_bound": false_alarm_bound(seeds),
        "evaluations": evaluator.evaluations, "repeated_tables": evaluator.repeats,
        "shared_passes": evaluator.reuse is not None,
    }
    return LabResult(runs=runs, detection=stats["detection"], agreement=stats["agreement"], summary=summary,
                     frontier=list(evaluator.frontier), frontier_measures=list(evaluator.setup.utility),
                     curves=stats["curves"], monotonicity=stats["monotonicity"], not_applicable=not_applicable,
                     settings=settings, seconds=time.perf_counter() - started, errors=evaluator.errors)
