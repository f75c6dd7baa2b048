"""The Compare-metrics page's logic: lab settings and their checks, the run-time estimate, the cached run,
the supplied ladder's uploads, and the downloads.

Every function takes plain values or the session state as a mapping and never imports Streamlit, so the
page (``pages/7_Compare_metrics.py``) stays short and this logic is tested on its own. The lab itself is
:func:`privcore.lab.run` (a generated leak ladder) or :func:`privcore.lab.run_ladder` (synthetic tables the
user uploads, each with a numeric label); its figures are :mod:`privcore.report.lab_figures`, its HTML page
:func:`privcore.report.lab_html.lab_html`.

Session-state keys used here (declared in :data:`dashboard.state.DEFAULTS`), all in the session's memory
only, never written to disk or shared between sessions:

- ``lab_results`` — lab key (:func:`lab_key`) → :class:`StoredLab`, the most recent :data:`MAX_CACHED_LABS`.
- ``lab_timings`` — timing key → :class:`Timing` of one evaluation on this table with these metrics.
- ``lab_ladder`` — the supplied ladder: a list of :class:`LadderTable` (uploads vanish on a page change,
  so the parsed tables are kept here).
- ``lab_ladder_log`` — uploaded file id → file name, so a file still in the uploader is parsed once and a
  table the user removed is not added back on the next rerun.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Callable, Iterable, Mapping, MutableMapping, Sequence

import pandas as pd
from threadpoolctl import threadpool_limits

from dashboard import compute, jobs
from dashboard.formatting import format_duration
from dashboard.progress import progress_update  # noqa: F401 - for the tests, where it was defined
from dashboard.state import LoadedTable, content_hash
from dashboard.uploads import UPLOAD_TYPES, default_table_name, parse_upload, unique_name  # noqa: F401 - UPLOAD_TYPES: for the page
from privcore import evaluate
from privcore.metrics import registry
from privcore.base.errors import InputError
from privcore.generators import LADDER, get_generator_spec
from privcore.lab import DEFAULT_LEVELS, DEFAULT_METRICS, DEFAULT_SEEDS, LabResult, evaluations_needed, split_tables
from privcore.lab.settings import check_label, check_leaks, check_levels, check_metrics, check_seeds, run_seeds
from privcore.data.schema import Schema

LOGGER = logging.getLogger(__name__)

#: The page's script (for ``st.page_link`` from other pages).
COMPARE_PAGE = "pages/7_Compare_metrics.py"
RESULTS, TIMINGS, LADDER_TABLES, LADDER_LOG = "lab_results", "lab_timings", "lab_ladder", "lab_ladder_log"
#: Labs kept per session.
MAX_CACHED_LABS = 3
GENERATED, SUPPLIED = "generated", "supplied"
MODES = {GENERATED: "Leaks made from my real table (the leak ladder)",
         SUPPLIED: "My own synthetic tables, each with a numeric label (e.g. one generator at several ε)"}


@dataclass(frozen=True)
class LabChoice:
    """A starting set of lab settings (the page's two presets)."""

    leaks: tuple[str, ...]
    levels: tuple[float, ...]
    seeds: int
    metrics: tuple[str, ...]


#: Small enough for a browser session: two leak types, three levels, two seeds, five fast metrics
#: (about 10 evaluations; under 10 s on the 3,000-row demo).
QUICK = LabChoice(leaks=("partial_copy", "rare_records"), levels=(0.0, 0.5, 1.0), seeds=2,
                  metrics=("crp", "dcr", "dcr_test", "mia_distance", "singling_out_univariate"))
#: The command line's default: every leak type × 5 levels × 3 seeds, the 19 default metrics.
FULL = LabChoice(leaks=LADDER, levels=DEFAULT_LEVELS, seeds=DEFAULT_SEEDS, metrics=DEFAULT_METRICS)
PRESETS = {"quick": QUICK, "full": FULL}


# ------------------------------------------------------------------------------------------ widgets


def widget_key(*parts: str) -> str:
    """The session-state key of a Compare-metrics page widget."""
    return "lab::" + "::".join(parts)


def levels_text(levels: Iterable[float]) -> str:
    """Levels as the text box shows them.

    >>> levels_text((0.0, 0.25, 1.0))
    '0, 0.25, 1'
    """
    return ", ".join(f"{level:g}" for level in levels)


def leak_choices(schema: Schema) -> tuple[list[str], dict[str, str]]:
    """The leak types that can run on this schema, and for the others why not (``attribute_leak`` needs a
    sensitive column)."""
    available, unavailable = [], {}
    for leak in LADDER:
        if leak == "attribute_leak" and schema.sensitive is None:
            unavailable[leak] = "needs a sensitive column: choose one on the Configure page."
        else:
            available.append(leak)
    return available, unavailable


def leak_description(leak: str) -> str:
    """One line on what a leak type does (its generator's description, without the "Ladder:" prefix)."""
    return re.sub(r"^Ladder( \(negative control\))?: ", "", get_generator_spec(leak).description)


def metric_options() -> list[str]:
    """Every registered metric id, in the registry's display order."""
    return registry.metric_ids()


def preset_values(name: str, available_leaks: Sequence[str], seed: int) -> dict[str, Any]:
    """Widget key → value for a preset (leak types the data cannot run left out)."""
    choice = PRESETS[name]
    return {widget_key("leaks"): [leak for leak in choice.leaks if leak in available_leaks],
            widget_key("levels"): levels_text(choice.levels), widget_key("seeds"): choice.seeds,
            widget_key("metrics"): list(choice.metrics), widget_key("seed"): seed}


def start_with_preset(state: MutableMapping, name: str, available_leaks: Sequence[str], seed: int) -> None:
    """Give the page's widgets a preset's values where they have none yet (the first visit of the session)."""
    for key, value in preset_values(name, available_leaks, seed).items():
        state.setdefault(key, value)


def apply_preset(state: MutableMapping, name: str, available_leaks: Sequence[str], seed: int) -> None:
    """Set the page's widgets to a preset (called as a button's ``on_click``, before the widgets are drawn)."""
    state.update(preset_values(name, available_leaks, seed))


# ----------------------------------------------------------------------------------------- settings


def check_generated(leaks: Iterable[str], levels: str, seeds: Any, metrics: Iterable[str],
                    seed: Any) -> tuple[dict[str, Any] | None, str | None]:
    """The settings of a generated lab, checked by :mod:`privcore.lab.settings`; or None and the named error.

    >>> check_generated(["partial_copy"], "0, 1.5", 2, ["crp"], 0)[1]
    'Leak levels must be numbers from 0 (no leak) to 1 (the strongest leak); got 1.5.'
    """
    try:
        settings = {"leaks": check_leaks(list(leaks)), "levels": check_levels(levels), "seeds": check_seeds(seeds),
                    "metrics": _check_metric_list(metrics), "seed": run_seeds(seed, 1)[0]}
    except InputError as error:
        return None, str(error)
    return settings, None


def check_supplied(entries: Sequence["LadderTable"], metrics: Iterable[str],
                   seed: Any) -> tuple[dict[str, Any] | None, str | None]:
    """The settings of a supplied ladder; or None and the named error (too few labels, a bad label...)."""
    try:
        ids, first = _check_metric_list(metrics), run_seeds(seed, 1)[0]
        labels = [check_label(entry.label, f"The label of {entry.name}") for entry in entries]
    except InputError as error:
        return None, str(error)
    if len(set(labels)) < 2:
        return None, ("A supplied ladder needs tables at two or more different labels (the smallest is the "
                      f"reference); {'upload synthetic tables below' if not entries else 'give them different labels'}.")
    return {"metrics": ids, "seed": first, "ladder": [(entry.name, label) for entry, label in zip(entries, labels)]}, \
        None


def _check_metric_list(metrics: Iterable[str]) -> list[str]:
    chosen = list(metrics)
    if not chosen:
        from privcore.lab import UnknownLabMetricError

        raise UnknownLabMetricError("No metric chosen: pick at least one metric to compare.")
    return check_metrics(chosen)


def split_problem(real: pd.DataFrame, holdout: pd.DataFrame | None, schema: Schema, seed: int,
                  names: Mapping[str, str]) -> str | None:
    """The lab's named error when the tables are too small to split (checked before any run), else None."""
    try:
        split_tables(real[schema.columns], None if holdout is None else holdout[schema.columns], seed, names=names)
    except InputError as error:
        return str(error)
    return None


# ----------------------------------------------------------------------------------------- estimate


@dataclass(frozen=True)
class Timing:
    """Seconds of the first evaluation on this table (it also computes the passes every run shares) and of
    a second one (what each further synthetic table costs)."""

    first: float
    next: float

    def seconds(self, evaluations: int) -> float:
        """Estimated seconds of ``evaluations`` evaluations."""
        return self.first + max(evaluations - 1, 0) * self.next


def timing_key(*parts: Any) -> str:
    """Cache key of a timing: the tables' hashes, the schema, the metrics and the seed."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


def time_evaluations(training: pd.DataFrame, holdout: pd.DataFrame | None, synthetic: Sequence[pd.DataFrame],
                     schema: Schema, metrics: Sequence[str], seed: int,
                     params: Mapping[str, Any] | None = None) -> Timing:
    """Time two evaluations as the lab runs them (same tables' sizes, shared passes, one BLAS thread).

    ``synthetic`` holds two tables like the lab's (fresh real rows of the holdout's size, or two supplied
    tables). The first evaluation computes the passes every run shares; the second costs what each further
    table costs. Errors of a metric do not stop the timing; bad input raises as in the lab.
    """
    reuse: dict = {}
    seconds = []
    with threadpool_limits(limits=1, user_api="blas"):
        for i, table in enumerate(synthetic[:2]):
            started = time.perf_counter()
            evaluate(training, table, schema, metrics=list(metrics), holdout=holdout, seed=seed + i,
                     params=params, reuse=reuse)
            seconds.append(time.perf_counter() - started)
    return Timing(seconds[0], seconds[-1])


def generated_probe_tables(real: pd.DataFrame, holdout: pd.DataFrame | None, schema: Schema,
                           seed: int) -> tuple[pd.DataFrame, pd.DataFrame, list[pd.DataFrame]]:
    """Training table, holdout and two fresh samples, split exactly as :func:`privcore.lab.run` splits."""
    given = [t[schema.columns] for t in (real, holdout) if t is not None]
    training, evaluation, population = split_tables(given[0], given[1] if holdout is not None else None, seed)
    fresh = [population.sample(len(evaluation), random_state=seed + i).reset_index(drop=True) for i in range(2)]
    return training, evaluation, fresh


def timing(state: MutableMapping, key: str, measure: Callable[[], Timing]) -> tuple[Timing | None, str | None]:
    """The timing under ``key``, measured once per session; or None and the message of the input error the
    measurement ran into (the lab would run into it too, e.g. a supplied table whose columns differ)."""
    timings = state.setdefault(TIMINGS, {})
    if key not in timings:
        measured, error = _guarded(measure)
        if measured is None:
            return None, error
        timings[key] = measured
    return timings[key], None


def estimate_text(seconds: float, evaluations: int, measured: Timing) -> str:
    """The sentence shown before a run: an estimate, and what it rests on.

    >>> estimate_text(42.0, 30, Timing(2.0, 1.38))
    'Estimated run time: about 40 s for 30 evaluations (an estimate from timing two evaluations of the chosen metrics on this table: 2.0 s for the first, 1.4 s for each further one; leaked tables can take somewhat more or less).'
    """
    return (f"Estimated run time: {format_duration(seconds)} for {evaluations:,} evaluations (an estimate from "
            f"timing two evaluations of the chosen metrics on this table: {measured.first:.1f} s for the first, "
            f"{measured.next:.1f} s for each further one; leaked tables can take somewhat more or less).")


def generated_evaluations(settings: Mapping[str, Any]) -> int:
    """Synthetic tables a generated lab evaluates (:func:`privcore.lab.evaluations_needed`)."""
    return evaluations_needed(settings["leaks"], settings["levels"], settings["seeds"])


# --------------------------------------------------------------------------------------------- runs


@dataclass(frozen=True)
class StoredLab:
    """A lab run in this session, with the estimate shown before it started (to compare with its time)."""

    result: LabResult
    document: dict[str, Any]
    estimated_seconds: float | None


def lab_key(*parts: Any) -> str:
    """Cache key of one lab: the tables' content hashes, the schema and every setting."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


def cached(state: Mapping, key: str | None) -> StoredLab | None:
    """The lab stored under ``key`` in this session, if any."""
    return None if key is None else (state.get(RESULTS) or {}).get(key)


def store(state: MutableMapping, key: str, stored: StoredLab) -> None:
    """Keep ``stored`` under ``key``, dropping the oldest labs beyond :data:`MAX_CACHED_LABS`."""
    results = state.setdefault(RESULTS, {})
    results.pop(key, None)
    results[key] = stored
    while len(results) > MAX_CACHED_LABS:
        results.pop(next(iter(results)))


def _guarded(call: Callable[[], Any]) -> tuple[Any, str | None]:
    """``(result, None)`` or ``(None, message)``: named errors keep their message, anything else is logged."""
    try:
        return call(), None
    except InputError as error:
        return None, str(error)
    except MemoryError:
        return None, "The lab needs more memory than this machine has. Try fewer levels, seeds or metrics."
    except Exception:  # noqa: BLE001 - a bug must not show a traceback to users; it goes to the server log
        LOGGER.exception("metric lab failed")
        return None, ("The lab stopped because of an internal error. Please report it with your settings (the "
                      "server log has the details).")


def run_generated(real: pd.DataFrame, holdout: pd.DataFrame | None, schema: Schema, settings: Mapping[str, Any],
                  *, params: Mapping[str, Any] | None = None, names: Mapping[str, str] | None = None,
                  progress: Callable[[float, str], None] | None = None) -> tuple[LabResult | None, str | None]:
    """:func:`privcore.lab.run` with the checked settings, in a worker process (:mod:`dashboard.compute`);
    ``progress(fraction, message)`` moves a bar. ``(result, None)`` or ``(None, message)``."""
    return _guarded(lambda: compute.run_job(
        jobs.lab_generated, real, schema, holdout=holdout, leaks=settings["leaks"], levels=settings["levels"],
        seeds=settings["seeds"], metrics=settings["metrics"], seed=settings["seed"], params=params, names=names,
        progress=progress))


def run_supplied(real: pd.DataFrame, holdout: pd.DataFrame | None, schema: Schema, settings: Mapping[str, Any],
                 tables: Mapping[str, pd.DataFrame], *, params: Mapping[str, Any] | None = None,
                 names: Mapping[str, str] | None = None,
                 progress: Callable[[float, str], None] | None = None) -> tuple[LabResult | None, str | None]:
    """:func:`privcore.lab.run_ladder` on the uploaded tables grouped by label, in a worker process."""
    ladder: dict[float, list[pd.DataFrame]] = {}
    for name, label in settings["ladder"]:
        ladder.setdefault(label, []).append(tables[name])
    return _guarded(lambda: compute.run_job(
        jobs.lab_supplied, real, ladder, schema, holdout=holdout, metrics=settings["metrics"], seed=settings["seed"],
        params=params, names=names, progress=progress))


def chosen_params(params: Mapping[str, Any] | None, metrics: Iterable[str]) -> dict[str, Any]:
    """The Metrics page's parameter overrides of the chosen metrics (the lab runs them as set there)."""
    chosen = set(metrics)
    return {m: dict(p) for m, p in (params or {}).items() if m in chosen and p}


def lab_document(result: LabResult, names: Mapping[str, str | None]) -> dict[str, Any]:
    """The JSON document of a lab, with the tables' names in its settings (as the command line writes it)."""
    document = result.to_dict()
    document["settings"] = {**document["settings"], "real": names.get("real"), "holdout": names.get("holdout")}
    return document


def report_json(document: Mapping[str, Any]) -> str:
    """The JSON download (valid against ``$defs/lab_report`` of ``python -m privcore schema``)."""
    return json.dumps(document, indent=2, allow_nan=False, ensure_ascii=False)


def report_html(document: Mapping[str, Any]) -> bytes:
    """The self-contained HTML download (:func:`privcore.report.lab_html.lab_html`)."""
    from privcore.report.lab_html import lab_html

    return lab_html(document).encode("utf-8")


def run_caption(stored: StoredLab) -> str:
    """What ran, how long it took and how that compares with the estimate."""
    settings = stored.document["settings"]
    text = (f"{settings['evaluations']:,} synthetic table(s) evaluated with {len(settings['metrics'])} metric(s) in "
            f"{stored.result.seconds:.1f} s")
    if stored.estimated_seconds is not None:
        text += f" (estimated beforehand: {format_duration(stored.estimated_seconds)})"
    return text + (f"; {settings['seeds']} seed(s) per level, so a level without any effect passes the detection "
                   f"rule by chance with probability at most {settings['false_alarm_bound']:.2g}.")


def summary_lines(result: LabResult) -> list[str]:
    """The per-metric sentences, in the lab's metric order."""
    return [result.summary[m] for m in result.settings["metrics"] if m in result.summary]


def monotonicity_frame(result: LabResult) -> pd.DataFrame:
    """Metric × leak type: Spearman's ρ of risk against level (None where undefined)."""
    from privcore.report.figures import short_name
    from privcore.report.lab_figures import leak_label

    return pd.DataFrame({leak_label(leak): [result.monotonicity[m].get(leak) for m in result.settings["metrics"]]
                         for leak in result.settings["leaks"]},
                        index=[short_name(m) for m in result.settings["metrics"]])


# ------------------------------------------------------------------------------------- supplied ladder


@dataclass
class LadderTable:
    """An uploaded synthetic table of the supplied ladder, with its numeric label."""

    name: str
    table: LoadedTable
    label: float


def guess_label(filename: str) -> float | None:
    """The last number in a file's name, as a first guess at its label (``ctgan_eps0.5.csv`` → 0.5).

    >>> guess_label("ctgan_eps0.5.csv"), guess_label("dp-eps10.parquet"), guess_label("ctgan.csv")
    (0.5, 10.0, None)
    """
    numbers = re.findall(r"\d+(?:\.\d+)?", default_table_name(PurePath(filename).name))
    return float(numbers[-1]) if numbers else None


def add_ladder_files(state: MutableMapping, files: Iterable[Any]) -> list[tuple[str, str]]:
    """Parse the uploaded files not seen before into the supplied ladder; ``(file name, message)`` per bad file.

    A table's label is guessed from its file name (:func:`guess_label`), else its position in the ladder.
    """
    log: dict[str, str] = state.setdefault(LADDER_LOG, {})
    entries: list[LadderTable] = state.setdefault(LADDER_TABLES, [])
    errors = []
    for file in files or []:
        if file is None:
            continue
        file_id = getattr(file, "file_id", None) or f"{file.name}:{getattr(file, 'size', '')}"
        if file_id in log:
            continue
        log[file_id] = file.name
        frame, error = parse_upload(file)
        if frame is None:
            errors.append((file.name, error))
            continue
        name = unique_name(default_table_name(file.name), [e.name for e in entries])
        label = guess_label(file.name)
        entries.append(LadderTable(name, LoadedTable.from_frame(name, frame),
                                   float(len(entries)) if label is None else label))
    return errors


def remove_ladder_table(state: MutableMapping, name: str) -> None:
    """Drop one table from the supplied ladder (a button's ``on_click``)."""
    state[LADDER_TABLES] = [e for e in state.get(LADDER_TABLES, []) if e.name != name]


def set_ladder_label(state: MutableMapping, name: str, label: float) -> None:
    """Give one table of the supplied ladder a new label."""
    for entry in state.get(LADDER_TABLES, []):
        if entry.name == name:
            entry.label = float(label)


def ladder_fingerprint(entries: Sequence[LadderTable]) -> list[tuple[str, str, float]]:
    """The supplied ladder as (name, content hash, label), for cache keys."""
    return [(e.name, e.table.content_hash, float(e.label)) for e in entries]


def supplied_probe_tables(entries: Sequence[LadderTable]) -> list[pd.DataFrame]:
    """Two supplied tables to time (the first twice when there is one)."""
    tables = [e.table.frame for e in entries[:2]]
    return tables if len(tables) == 2 else tables * 2


def table_hash(frame: pd.DataFrame | None) -> str | None:
    """Content hash of an optional table."""
    return None if frame is None else content_hash(frame)
