"""The Compare-metrics page's logic: lab settings and their checks, the results' text and the downloads.

No Streamlit import, so the page (``pages/7_Compare_metrics.py``) stays short. The run-time estimate, the runs
and the supplied ladder are :mod:`dashboard.lab.estimate`, :mod:`dashboard.lab.runs` and :mod:`dashboard.lab.ladder`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, MutableMapping, Sequence

import pandas as pd

from dashboard.lab.ladder import LadderTable
from dashboard.lab.runs import StoredLab
from privcore.base import InputError, format_duration
from privcore.data import Schema
from privcore.generators import LADDER, get_generator_spec
from privcore.lab import (
    DEFAULT_LEVELS,
    DEFAULT_METRICS,
    DEFAULT_SEEDS,
    LabResult,
    UnknownLabMetricError,
    check_label,
    check_leaks,
    check_levels,
    check_metrics,
    check_seeds,
    run_seeds,
    split_tables,
)
from privcore.metrics import metric_name, registry
from privcore.report import leak_label, short_name
from privcore.report.lab_html import lab_html

#: The page's script (for ``st.page_link`` from other pages).
COMPARE_PAGE = "pages/7_Compare_metrics.py"
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
    """The leak types that can run on this schema, and for the others why not.

    For example ``attribute_leak`` needs a sensitive column.
    """
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
    """Every registered privacy metric id, in the registry's display order.

    The lab measures which metric notices which leak by its risk; utility measures have none.
    """
    return [m for m in registry.metric_ids() if not registry.is_utility(registry.get(m))]


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
    """Set the page's widgets to a preset (called as a button's ``on_click``, ahead of the widgets being drawn)."""
    state.update(preset_values(name, available_leaks, seed))


# ----------------------------------------------------------------------------------------- settings


def check_generated(leaks: Iterable[str], levels: str, seeds: Any, metrics: Iterable[str],
                    seed: Any) -> tuple[dict[str, Any] | None, str | None]:
    """The settings of a generated lab, checked by :mod:`privcore.lab.settings`; or None and the named error.

    >>> check_generated(["partial_copy"], "0, 1.5", 2, ["crp"], 0)[1]
    "Leak levels (lab.levels): every value must be a number from 0 to 1, separated by commas (e.g. 0, 0.25, 0.5, 0.75, 1); '1.5' is not."
    """
    try:
        settings = {"leaks": check_leaks(list(leaks)), "levels": check_levels(levels), "seeds": check_seeds(seeds),
                    "metrics": _check_metric_list(metrics), "seed": run_seeds(seed, 1)[0]}
    except InputError as error:
        return None, str(error)
    return settings, None


def check_supplied(entries: Sequence[LadderTable], metrics: Iterable[str],
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


# ------------------------------------------------------------------------------------------ results


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


def frontier_text(document: Mapping[str, Any]) -> str:
    """What the frontier shows and which utility measures it rests on, in two plain sentences."""
    measures = " and ".join(metric_name(m) for m in document["frontier"]["measures"])
    return (f"Beside the privacy metrics, the lab measured {measures} on every table, read against a fresh sample of "
            "real people. A level that leaks less and keeps more is the better trade: the figure shows where each "
            "level sits, from the verdict's strongest privacy evidence and the share of utility kept.")


def summary_lines(result: LabResult) -> list[str]:
    """The per-metric sentences, in the lab's metric order."""
    return [result.summary[m] for m in result.settings["metrics"] if m in result.summary]


def monotonicity_frame(result: LabResult) -> pd.DataFrame:
    """Metric × leak type: Spearman's ρ of risk against level (None where undefined)."""
    return pd.DataFrame({leak_label(leak): [result.monotonicity[m].get(leak) for m in result.settings["metrics"]]
                         for leak in result.settings["leaks"]},
                        index=[short_name(m) for m in result.settings["metrics"]])
