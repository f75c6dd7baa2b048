"""``evaluate``: run the chosen metrics on one (real, synthetic[, holdout]) triple."""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
import traceback
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from privcore.base import InputError, ProgressCallback, TooFewRowsError
from privcore.data import (
    BINARY,
    CATEGORICAL,
    MISSING,
    NUMERICAL,
    Param,
    PreparedData,
    Schema,
    check_params,
    check_seed,
    check_settings,
    column_report,
    infer_schema,
)
from privcore.data.prepare import prepare
from privcore.engine import (
    DEFAULT_CHUNK_ELEMENTS,
    SharedComputation,
    check_device,
    connected,
    pair_key,
    require_gpu,
    using_device,
)
from privcore.evaluation.background import background_ids, background_workers, claimable_ids, running_in_background
from privcore.evaluation.dataset import Dataset, EvaluationOptions
from privcore.evaluation.metric_run import MetricRun
from privcore.evaluation.outcome import Report
from privcore.metrics import (
    MetricResult,
    registry,
)


def resolve_metric_ids(metrics: str | Iterable[str], holdout: bool = False) -> list[str]:
    """Turn ``"all"``, a preset name, ``"id,id"`` or a list of ids into registered ids, in order.

    ``holdout`` says whether a holdout is given: the "quick" preset then includes the membership attacks
    (:func:`privcore.metrics.registry.quick_metrics`).

    Raises
    ------
    InputError
        For an unknown id or preset, naming it and the valid ids.
    """
    known = registry.metric_ids()
    presets = registry.presets(holdout)
    if isinstance(metrics, str):
        if metrics == "all":
            return known
        if metrics in presets:
            return presets[metrics]
        metrics = [m.strip() for m in metrics.split(",") if m.strip()]
    chosen = list(dict.fromkeys(metrics))
    unknown = [m for m in chosen if m not in known]
    if unknown:
        raise InputError(
            f"Unknown metric id(s): {', '.join(unknown)}. Valid ids: {' '.join(known)} "
            "(or 'all'; `python -m privcore metrics` lists them)."
        )
    if not chosen:
        raise InputError("No metric chosen: pass 'all' or a comma-separated list of metric ids.")
    return chosen


#: The numeric settings of :func:`evaluate`, each declared once and checked with
#: :func:`privcore.data.params.check_settings`. ``seed`` is the schema's (:func:`privcore.data.schema.check_seed`),
#: ``device`` a choice among words (:func:`privcore.engine.gpu.check_device`).
EVALUATE_PARAMS = (
    Param("workers", "int", None, "Workers", "Threads for the neighbour passes and the classifier metrics' folds.",
          minimum=1, rule="not set: every usable core"),
    Param("famd_components", "int", None, "FAMD axes", "k of the FAMD projection Φk.", minimum=1,
          rule="not set: min(5, r)"),
)


@dataclass(frozen=True)
class EvaluationPlan:
    """What :func:`evaluate` has checked and prepared, handed to the part that runs the metrics."""

    data: PreparedData
    ids: list[str]
    schema: Schema
    seed: int
    params: Mapping[str, Mapping[str, Any]]
    started: float
    progress: ProgressCallback | None = None
    famd_components: int | None = None
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS
    strict: bool = False
    reuse: dict | None = None
    workers: int | None = None
    client: Any = None
    device: str = "auto"
    warnings: list[str] = field(default_factory=list)


def evaluate(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema | None = None,
    metrics: str | Iterable[str] = "all",
    holdout: pd.DataFrame | None = None,
    seed: int | None = None,
    progress: ProgressCallback | None = None,
    *,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    reference: pd.DataFrame | None = None,
    names: Mapping[str, str] | None = None,
    famd_components: int | None = None,
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
    strict: bool = False,
    reuse: dict | None = None,
    workers: int | None = None,
    cluster: Any = None,
    device: str = "auto",
    dp_epsilon: float | None = None,
    split_reference: bool = True,
) -> Report:
    """Evaluate privacy metrics of a synthetic table against the real table it was trained on.

    Parameters
    ----------
    real : DataFrame
        The real (training) records ``Y``.
    synthetic : DataFrame
        The synthetic records ``Z`` (same columns).
    schema : Schema, optional
        Column types and roles; inferred from ``real`` when omitted.
    metrics : str or iterable of str
        ``"all"``, a preset name (:func:`privcore.metrics.registry.presets`), ``"id,id"`` or a list of ids.
    holdout : DataFrame, optional
        Real records ``H`` not used for training: enables attack metrics and the §5 baseline.
    seed : int, optional
        Seed of every random step, a whole number from 0 to ``privcore.data.schema.MAX_SEED``; default
        ``schema.seed``.
    progress : callable, optional
        ``progress(fraction, message)`` with fraction in [0, 1].
    params : mapping, optional
        Metric id → parameter overrides (e.g. ``{"cvp": {"threshold": 0.1}}``).
    reference : DataFrame, optional
        Real people of the same population who are neither in ``real`` nor in ``holdout``: every membership
        attack that can use one (:func:`privcore.metrics.registry.reference_metrics`, ``mia_best`` and
        ``mia_stacked`` among them) compares with it instead of with half of the holdout. The command line's
        ``--reference`` and the dashboard's reference upload both arrive here (:func:`with_reference`), so the
        same files give the same report. A ``reference`` given for one metric in ``params`` wins for that metric.
    names : mapping, optional
        Role → file name used in messages.
    famd_components : int, optional
        ``k`` of the FAMD projection Φk.
    chunk_elements : int
        Memory bound of the neighbour engine (distances held at once).
    strict : bool
        Re-raise a metric's internal error instead of recording it (for tests).
    reuse : dict, optional
        An empty dict kept between calls that compare several synthetic tables with the same real table:
        neighbour passes that do not involve the synthetic table (real→real, and the holdout passes of the
        §5 baseline) are computed once and reused. It checks itself: if the real table, holdout, schema
        or projection differ from the call that filled it, it is emptied first.
    workers : int, optional
        Threads for the neighbour passes and for the classifier metrics' folds and repeats, a whole number
        ≥ 1; default :func:`privcore.base.cores.usable_cores` (CPU affinity, cgroup quota and thread variables
        such as ``OMP_NUM_THREADS``). The report is the same for any number of workers.
    cluster : str or distributed.Client, optional
        Compute the neighbour passes on a Dask cluster (optional extra ``privcore[dask]``, see
        :mod:`privcore.engine.cluster`): a scheduler address ``"tcp://host:8786"``, ``"local:N"`` for N worker
        processes on this machine (started and stopped for this call), or a Client. The report is the same
        as on one machine; the tables are sent to the cluster's workers.
    device : {"auto", "cpu", "gpu"}
        Where the neighbour passes' matrix products run (optional extra ``privcore[gpu]``, see
        :mod:`privcore.engine.gpu`): ``"gpu"`` on an NVIDIA GPU, ``"cpu"`` never, ``"auto"`` (default) on a GPU
        only when one is usable and a pass has at least :data:`privcore.engine.gpu.GPU_MIN_PAIRS` pairs. The
        report is the same on either. Not combined with ``cluster``: with a cluster, ``"auto"`` means the
        cluster's CPUs and ``"gpu"`` is refused.
    dp_epsilon : float, optional
        The ε of a differential-privacy guarantee the generator is declared to give (a number > 0): the verdict
        shows the bound it places on any membership attack beside what the attacks measured, and flags an
        attack beyond it as a broken guarantee (:mod:`privcore.evaluation.verdict`).
    split_reference : bool
        Without a holdout, compare each similarity metric with a fresh sample that exists: half of the real table
        against the other half (:func:`split_reference_ids`, metrics.md §5). Default True; False leaves those
        metrics without a reference (the verdict then does not weigh them).

    Returns
    -------
    Report
        Mapping metric id → :class:`MetricResult`, plus ``rows`` and ``warnings``.

    Raises
    ------
    InputError
        When the tables, the schema or the seed are unusable (the message says which file and column).
        A numerical column holding ``inf``/``-inf`` or a magnitude beyond ``privcore.data.schema.MAX_MAGNITUDE``
        raises :class:`privcore.base.errors.ExtremeValueError` (file, column, first row) under either
        missing-value policy, never a silently wrong score. ``device="gpu"`` where CuPy or a GPU is
        missing, or together with a cluster, raises too, saying what to install or choose.

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "x"]})
    >>> evaluate(real, real.copy(), metrics="crp")["crp"].risk  # doctest: +ELLIPSIS
    0.99999...
    """
    return evaluate_tables(
        Dataset(real, synthetic, holdout, reference, schema, names=dict(names or {})), metrics,
        EvaluationOptions(seed=seed, progress=progress, params=params, famd_components=famd_components,
                chunk_elements=chunk_elements, strict=strict, reuse=reuse, workers=workers, cluster=cluster,
                device=device, dp_epsilon=dp_epsilon, split_reference=split_reference))


def evaluate_tables(dataset: Dataset, metrics: str | Iterable[str] = "all", options: EvaluationOptions | None = None) -> Report:
    """:func:`evaluate` on a :class:`~privcore.evaluation.dataset.Dataset` of one table per role.

    Parameters
    ----------
    dataset : Dataset
        The tables, their schema and file names (``dataset.related`` False).
    metrics : str or iterable of str
        As for :func:`evaluate`.
    options : EvaluationOptions, optional
        How to run it (seed, progress, parameters, engine); the defaults of :func:`evaluate`.

    Returns
    -------
    Report
    """
    options = options or EvaluationOptions()
    real, synthetic, holdout, reference = dataset.real, dataset.synthetic, dataset.holdout, dataset.reference
    schema, names, params = dataset.schema, dataset.names, options.params
    workers, famd_components, device = options.workers, options.famd_components, options.device
    chunk_elements, strict, reuse, cluster = options.chunk_elements, options.strict, options.reuse, options.cluster
    started = time.perf_counter()
    schema = schema if schema is not None else infer_schema(real)
    seed = check_seed(schema.seed if options.seed is None else options.seed)
    ids = resolve_metric_ids(metrics, holdout=holdout is not None)
    checked = check_settings("evaluate", EVALUATE_PARAMS, {"workers": workers, "famd_components": famd_components})
    workers, famd_components = checked["workers"], checked["famd_components"]
    device = check_device(device)
    dp_epsilon = check_dp_epsilon(options.dp_epsilon)
    if device == "gpu":
        if cluster is not None:
            raise InputError("Choose either a Dask cluster or the GPU, not both: the cluster's workers compute on "
                             "their CPUs. Leave the device at 'auto' (or 'cpu') with a cluster, or drop the cluster "
                             "to use the GPU.")
        require_gpu()
    params = with_reference(params, reference)
    data = prepare(real, synthetic, schema, holdout, names=dict(names or {}))
    for role, given in (("real", real), ("synthetic", synthetic)):
        if len(data.table(role)) == 0:
            raise _nothing_left(role, given, schema, dict(names or {}))
    report_warnings = list(data.warnings)
    if reuse is not None:
        fingerprint = _reuse_fingerprint(data, famd_components)
        if reuse.get("fingerprint") != fingerprint:
            reuse.clear()
            reuse["fingerprint"] = fingerprint
    # Metrics that call the neighbour engine themselves (not through the shared passes) find the device here.
    with connected(cluster) as client, using_device("cpu" if client is not None else device):
        report = _evaluate_prepared(EvaluationPlan(
            data=data, ids=ids, schema=schema, seed=seed, params=params, started=started, progress=options.progress,
            famd_components=famd_components, chunk_elements=chunk_elements, strict=strict, reuse=reuse,
            workers=workers, client=client, device=device, warnings=report_warnings))
    report.dp_epsilon = dp_epsilon
    report.columns = column_report(real.columns, schema, constant=[c for c in schema.columns
                                                                   if data.real[c].nunique(dropna=False) <= 1])
    if holdout is None and options.split_reference:
        _attach_split_reference(report, real, synthetic, schema, seed, params, famd_components=famd_components,
                                chunk_elements=chunk_elements, strict=strict, workers=workers, device=device)
    return report


#: The families read as similarity by the verdict (:mod:`privcore.evaluation.verdict`): how close the synthetic
#: records come to the training records, which moves the answer only against a fresh sample of the same size.
SIMILARITY_FAMILIES = ("Simulation-based", "Distance-based", "SynQP")


def split_reference_ids(metric_ids: Iterable[str]) -> list[str]:
    """The metrics of ``metric_ids`` that, without a holdout, are compared with half of the real table.

    The size-matched similarity metrics (``MetricInfo.size_matched``, with a fresh-sample baseline) that need neither
    a holdout nor a pairing.

    Examples
    --------
    >>> split_reference_ids(["crp", "dmlp", "singling_out_univariate", "sd_idr", "hidr", "mia_best"])
    ['crp', 'sd_idr']
    """
    out = []
    for metric_id in metric_ids:
        info = registry.get(metric_id)
        if info.size_matched and info.baseline and info.family in SIMILARITY_FAMILIES \
                and not info.needs & {"holdout", "pairing"}:
            out.append(metric_id)
    return out


#: Below this many real rows the real table is not split: each half would be below the size a comparison needs.
MIN_SPLIT_ROWS = 60


def _attach_split_reference(report: Report, real: pd.DataFrame, synthetic: pd.DataFrame, schema: Schema, seed: int,
                            params, **settings) -> None:
    """Without a holdout: compare the similarity metrics with half of the real table against the other half.

    Notes
    -----
    A similarity metric asks whether the synthetic records come closer to the training records than other real
    people of the same population do. Without a holdout there are no such people, but the real table holds two
    halves that are such people *for each other*: with ``Y = A ∪ B`` split at random, ``B`` is a fresh sample
    relative to ``A``. The synthetic table (trained on all of ``Y``, ``A`` included) is compared with ``A`` against
    ``B`` compared with ``A``, at like sizes (:func:`privcore.evaluation.size_match.size_match`): an evaluation with
    ``A`` as the real table and ``B`` as the holdout. The comparison is sound for closeness; it is not for the
    attacks that need non-members (membership inference, Anonymeter's control): ``B`` was in the training data
    too. The excess and its interval are attached to each metric's result as ``size_match`` with
    ``method="split"``; the metric's own score stays the whole table's.
    """
    ids = [m for m in split_reference_ids(report) if report[m].applicable and report[m].risk is not None]
    prepared = report.data.real if report.data is not None else real
    if not ids or len(prepared) < MIN_SPLIT_ROWS:
        return
    order = np.random.default_rng(seed).permutation(len(prepared))
    half = len(prepared) // 2
    first, second = prepared.iloc[order[:half]], prepared.iloc[order[half:]]
    # The halves are prepared tables: dates are already days and identifier or text columns (which the similarity
    # metrics do not read) are not among their columns, so the schema keeps the analysed columns only.
    # A binary column with missing values holds a third category, "(missing)", once prepared: typed categorical for
    # the halves, which E encodes the same way (one-hot with missing as a category).
    types = {c: (CATEGORICAL if kind == BINARY and (prepared[c] == MISSING).any() else kind)
             for c, kind in schema.types.items()}
    split_schema = replace(schema, types=types, pairing=None, dates=[], identifiers=[], texts=[], left_out={})
    own = {m: v for m, v in (params or {}).items() if m in ids}
    try:
        halves = evaluate(first.reset_index(drop=True), report.data.synthetic if report.data is not None else synthetic,
                          split_schema, metrics=ids, holdout=second.reset_index(drop=True), seed=seed, params=own,
                          split_reference=False, **settings)
    except Exception as exc:  # the whole report must not fail for its reference; the verdict then weighs nothing
        if settings.get("strict"):
            raise
        report.errors.append(f"split reference: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        return
    for metric_id in ids:
        match = halves[metric_id].size_match if metric_id in halves else None
        if match is not None:
            report.results[metric_id].size_match = replace(match, method="split")


def check_dp_epsilon(value: Any) -> float | None:
    """A declared ε of differential privacy, checked: None, or a finite number above 0.

    Raises
    ------
    InputError
        For anything else, saying what to give.

    Examples
    --------
    >>> check_dp_epsilon("1"), check_dp_epsilon(None)
    (1.0, None)
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        epsilon = float(value)
    except (TypeError, ValueError):
        epsilon = float("nan")
    if isinstance(value, bool) or not math.isfinite(epsilon) or epsilon <= 0:
        raise InputError(f"The declared differential-privacy ε must be a number above 0 (got {value!r}), e.g. 1 for "
                         "a generator trained with ε = 1; leave it out when the generator makes no such guarantee.")
    return epsilon


def _evaluate_prepared(plan: EvaluationPlan) -> Report:
    data, ids, schema, seed, progress, strict = plan.data, plan.ids, plan.schema, plan.seed, plan.progress, plan.strict
    client, reuse, report_warnings = plan.client, plan.reuse, plan.warnings
    shared = SharedComputation(data, famd_components=plan.famd_components, chunk_elements=plan.chunk_elements,
                               reuse=reuse, workers=plan.workers, cluster=client, device=plan.device)
    dropped = [c for c in schema.columns if data.real[c].nunique() <= 1]
    if dropped:
        report_warnings.append(
            f"Column(s) {', '.join(dropped)} are constant in the real table and are left out of distance "
            "spaces (exact-match metrics keep them)."
        )
    params = validated_params(plan.params, data.schema)
    results: dict[str, MetricResult] = {}
    errors: list[str] = []
    total = len(ids)
    shared.planned = planned_passes(ids, data.holdout is not None)
    shared.tolerance_only = tolerance_only_pairs(ids, data.holdout is not None)
    shared.metric_params = {metric_id: {**dict(registry.get(metric_id).default_params), **params.get(metric_id, {})}
                            for metric_id in ids}
    others_done = threading.Event()

    in_background = background_ids(ids, shared.workers, client, reuse)

    def run_beside(metric_id: str) -> MetricResult:
        if metric_id not in in_background:
            # A claimable metric the main thread has not come to: it gets the threads it would have had there.
            # On one thread, MIR's folds made the evaluation's last second alone where the main thread was about
            # to end (10,000 Adult rows, all 17 review metrics, 2 cores: 0.87 s against 0.48 s on two).
            return _run_metric(registry.get(metric_id), shared, shared.metric_params[metric_id], seed, strict,
                               errors)
        threads = background_workers(metric_id, shared.workers)
        return _run_metric(registry.get(metric_id), shared, shared.metric_params[metric_id], seed, strict, errors,
                           workers=threads, more_threads=lambda: shared.workers if others_done.is_set() else threads)

    with running_in_background(in_background, run_beside, lambda: _encode_for_classifiers(shared),
                               claimable_ids(ids, in_background)) as beside:
        # The background metrics' results are collected after every other metric has run: waiting for one at
        # its place in the list would leave the cores to the background meanwhile.
        in_turn = [metric_id for metric_id in ids if metric_id not in beside.futures]
        for position, metric_id in enumerate(in_turn):
            if not beside.take(metric_id):
                continue  # the background thread, done with its own metrics, runs it
            info = registry.get(metric_id)

            def report_progress(fraction: float, message: str, _pos=position, _id=metric_id) -> None:
                if progress is not None:
                    progress(min(1.0, (_pos + min(max(fraction, 0.0), 1.0)) / total), f"{_id}: {message}")

            shared.progress = report_progress
            report_progress(0.0, "starting")
            results[metric_id] = _run_metric(info, shared, shared.metric_params[metric_id], seed, strict, errors)
        others_done.set()  # a background metric may now take up the cores the others leave
        for position, (metric_id, future) in enumerate(beside.collected().items(), start=len(in_turn)):
            if progress is not None and not future.done():
                progress(min(1.0, position / total), f"{metric_id}: finishing (it ran beside the other metrics)")
            results[metric_id] = future.result()
    results = {metric_id: results[metric_id] for metric_id in ids}
    if progress is not None:
        progress(1.0, "done")
    shared.cluster = None  # a pass computed later (a figure) runs here: the cluster may be gone by then
    rows = {
        "real": len(data.real),
        "synthetic": len(data.synthetic),
        "holdout": None if data.holdout is None else len(data.holdout),
    }
    return Report(
        results=results,
        rows=rows,
        warnings=report_warnings,
        seconds=time.perf_counter() - plan.started,
        errors=errors,
        data=data,
        shared=shared,
    )


def _encode_for_classifiers(shared: SharedComputation) -> bool:
    """Encode every table in E ahead of the classifiers starting on their own thread.

    See :mod:`privcore.evaluation.background`. False where E cannot be built (the metrics then say why).
    """
    try:
        shared.space("E")
        for role in ("real", "synthetic", "holdout"):
            if role != "holdout" or shared.data.holdout is not None:
                shared.encoded("E", role)
    except Exception:  # reported by the metrics themselves when they run in turn
        return False
    return True


def with_reference(params: Mapping[str, Mapping[str, Any]] | None,
                   reference: pd.DataFrame | None) -> dict[str, dict[str, Any]]:
    """``params`` with ``reference`` as the reference table of every metric that takes one.

    Parameters
    ----------
    params : mapping or None
        Metric id → parameter overrides, as :func:`evaluate` takes them; not modified.
    reference : DataFrame or None
        The reference table; None leaves ``params`` as they are.

    Returns
    -------
    dict
        A copy of ``params`` in which each metric of :func:`privcore.metrics.registry.reference_metrics`
        without a reference of its own has ``reference``.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"a": [1, 2]})
    >>> out = with_reference({"cvp": {"threshold": 0.1}}, table)
    >>> out["cvp"], out["mia_best"]["reference"] is table
    ({'threshold': 0.1}, True)
    """
    out = {metric_id: dict(given) for metric_id, given in (params or {}).items()}
    if reference is None:
        return out
    for metric_id in registry.reference_metrics():
        out.setdefault(metric_id, {}).setdefault("reference", reference)
    return out


def validated_params(params: Mapping[str, Mapping[str, Any]] | None, schema: Schema) -> dict[str, dict[str, Any]]:
    """Check every metric parameter against its declaration (:mod:`privcore.data.params`).

    Raises
    ------
    InputError
        For an unknown metric id, an unknown parameter name or a bad value; the message is the one the
        command line and the Metrics page show.
    """
    known = registry.metric_ids()
    out = {}
    for metric_id, given in (params or {}).items():
        if metric_id not in known:
            raise InputError(f"Parameters given for unknown metric id {metric_id!r}. Valid ids: {' '.join(known)}.")
        out[metric_id] = check_params(metric_id, registry.get(metric_id).params, dict(given), schema)
    return out


def _nothing_left(role: str, table: pd.DataFrame, schema: Schema, names: Mapping[str, str]) -> TooFewRowsError:
    """The error for a real or synthetic table without rows to evaluate (every metric would need some)."""
    name = names.get(role, role)
    gaps = [c for c in schema.columns_of(NUMERICAL) if table[c].isna().any()]
    if not gaps:
        return TooFewRowsError(f"{name} has no rows to evaluate.", file=name)
    return TooFewRowsError(
        f"Every row of {name} has a missing value in a numerical column ({', '.join(repr(c) for c in gaps)}), so "
        "none is left once such rows are dropped. Choose median imputation for missing numbers, fill in the "
        "values, or leave those columns out of the analysis.",
        file=name,
        column=gaps[0],
    )


def _reuse_fingerprint(data: PreparedData, famd_components) -> str:
    """What the shareable passes depend on: the prepared real table and holdout, the schema, k of Φk."""
    digest = hashlib.sha256(json.dumps([data.schema.to_dict(), famd_components], sort_keys=True).encode())
    for frame in (data.real, data.holdout):
        if frame is not None:
            digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
        digest.update(b"|")
    return digest.hexdigest()


def _run_metric(info, shared: SharedComputation, params, seed, strict, errors, workers=None,
                more_threads=None) -> MetricResult:
    """One metric's result (:class:`privcore.evaluation.metric_run.MetricRun`)."""
    return MetricRun(info, shared, params, seed, strict, errors).result(workers, more_threads)


def tolerance_only_pairs(metric_ids: Iterable[str], has_holdout: bool) -> set[tuple[str, str, str]]:
    """The pairs of tables whose extremes the metrics of ``metric_ids`` read only for the tie tolerance.

    The pairs are :func:`privcore.engine.context.pair_key` keys; a pair is included where every metric of ``metric_ids``
    that has a pass between them reads its extremes only for the tie tolerance (``MetricInfo.tolerance_only``), with
    their §5 baselines' pairs where a holdout is given.

    Examples
    --------
    >>> sorted(tolerance_only_pairs(["idscore"], has_holdout=True))
    [('E_idscore', 'holdout', 'real'), ('E_idscore', 'real', 'synthetic')]
    >>> sorted(tolerance_only_pairs(["idscore", "dcr", "nndr"], has_holdout=False))
    [('E_idscore', 'real', 'synthetic')]
    """
    only: dict[tuple[str, str, str], bool] = {}
    for metric_id in metric_ids:
        info = registry.get(metric_id)
        variants = [(info.passes, info.tolerance_only)]
        if has_holdout and info.baseline:
            variants.append((_in_baseline(info.passes), _in_baseline(info.tolerance_only)))
        for passes, declared in variants:
            declared_pairs = {pair_key(*p) for p in declared}
            for space, query, reference in passes:
                if query != reference:
                    pair = pair_key(space, query, reference)
                    only[pair] = only.get(pair, True) and pair in declared_pairs
    return {pair for pair, tolerance_only in only.items() if tolerance_only}


def _in_baseline(passes) -> list[tuple[str, str, str]]:
    """Passes as a §5 baseline reads them: the holdout in place of the synthetic table.

    Passes that already read the holdout have no baseline counterpart.
    """
    return [tuple("holdout" if role == "synthetic" else role for role in p) for p in passes if "holdout" not in p]


def planned_passes(metric_ids: Iterable[str], has_holdout: bool) -> set[tuple[str, str, str]]:
    """The neighbour passes the metrics ``metric_ids`` declare (``MetricInfo.passes``).

    With their §5 baselines' passes (the holdout in place of the synthetic table) where a holdout is given.

    Examples
    --------
    >>> sorted(planned_passes(["auth"], has_holdout=False))
    [('E', 'real', 'real'), ('E', 'real', 'synthetic')]
    """
    planned = set()
    for metric_id in metric_ids:
        info = registry.get(metric_id)
        planned.update(info.passes)
        if has_holdout and info.baseline:
            planned.update(_in_baseline(info.passes))
    return planned
