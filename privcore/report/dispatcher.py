"""Which figures explain one metric's score (:func:`metric_figures`), and the chart of all scores (:func:`scores_chart`)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import plotly.graph_objects as go

from privcore.base import OKABE_ITO, PALETTE
from privcore.metrics import metric_name, registry
from privcore.report.detail_figures import figures_of_details
from privcore.report.distance_figures import distance_comparison, famd_map, normalised_distance_histogram
from privcore.report.figure_base import Figure, apply_layout, empty_figure
from privcore.report.generic_figures import per_record_distribution, scores_overview

__all__ = ["metric_figures", "scores_chart"]


def metric_figures(report, metric_id: str) -> list[Figure]:
    """The explanatory figures of one metric, most telling first.

    Chosen by declaration, never by guessing: first the figures of the metric's details type
    (:data:`DETAIL_FIGURES`: attack rates, ROC curves, per-ε curves, fold scores...), then the figures the
    metric declares in the registry from the report's shared neighbour passes (``MetricInfo.figures``:
    distances in its ``space``, the normalised distance, computed on first use when the metric itself
    did not need them), the distribution of its per-record risks (unless its details type shows them
    itself), and the FAMD map last.

    Notes
    -----
    Chosen by declaration, never by guessing: the figures of the metric's details type
    (:data:`privcore.report.detail_figures.DETAIL_FIGURES`), then those the metric declares in the registry
    (``MetricInfo.figures``) from the report's shared neighbour passes, the distribution of its per-record risks
    and the FAMD map. Conventions of :mod:`privcore.report.figure_base`. This module imports no Streamlit.
    """
    result = report[metric_id]
    declared = registry.get(metric_id).figures if metric_id in registry.metric_ids() else ()
    name = metric_name(metric_id)
    if not result.applicable:
        return [empty_figure(name, f"{name} is not applicable: {result.reason or 'no reason given'}")]
    figs: list[Figure] = figures_of_details(report, result, name) if result.details is not None else []
    has_shared = getattr(report, "shared", None) is not None and report.data is not None
    if has_shared and "normalised_distances" in declared:
        figs.append(normalised_distance_histogram(report, name=name, thresholds=_thresholds(report)))
    if has_shared and "distances" in declared:
        figs.append(distance_comparison(report, registry.get(metric_id).space, name=name))
    draws_per_record = getattr(type(result.details), "per_record_figure", True)
    if result.per_record is not None and len(result.per_record) and draws_per_record:
        base_pr = getattr(result.baseline_output, "per_record", None)
        figs.append(per_record_distribution(result.per_record, base_pr, name=name, unit=result.per_record_unit))
    if has_shared and "famd_map" in declared:
        figs.append(famd_map(report))
    if not figs:
        if result.risk is not None:
            figs.append(_single_score(name, result))
        else:
            figs.append(empty_figure(name, f"{name} produced no data to draw."))
    return figs


def _thresholds(report) -> dict[str, float]:
    """CVP's and DVP's thresholds as this report ran them (their defaults when they did not run)."""
    marks = {}
    for metric_id, label in (("cvp", "CVP"), ("dvp", "DVP")):
        ran = report[metric_id].params.get("threshold") if metric_id in report else None
        t = ran or registry.get(metric_id).default_params["threshold"]
        marks[f"{label} threshold {float(t):g}"] = float(t)
    return marks


def _single_score(name: str, result) -> Figure:
    rows = {"risk": (result.risk, *(result.interval or (None, None)))}
    if result.baseline is not None:
        rows["fresh-sample baseline"] = (result.baseline, None, None)
    fig = go.Figure()
    for i, (label, (v, lo, hi)) in enumerate(rows.items()):
        fig.add_trace(go.Bar(y=[label], x=[v], orientation="h", marker={"color": PALETTE[i]}, name=label,
                             error_x=None if lo is None else {"type": "data", "symmetric": False,
                                                              "array": [hi - v], "arrayminus": [v - lo],
                                                              "color": OKABE_ITO["black"]}))
    apply_layout(fig, f"{name}: score", "risk", "", height=220)
    fig.update_xaxes(range=[0, 1.02])
    fig.update_layout(showlegend=False)
    return Figure(fig, f"{name} reports one number for the whole table; the bar shows it on the 0–1 risk scale.",
                  f"Horizontal bar chart on the 0 to 1 risk scale: {name} risk {result.risk:.3f}" + (
                      f", fresh-sample baseline {result.baseline:.3f}." if result.baseline is not None else "."),
                  f"{name}: score")


def scores_chart(reports: Mapping[str, Any], metric_ids: Sequence[str] | None = None) -> Figure:
    """:func:`scores_overview` of several reports (synthetic table name → Report)."""
    rows = []
    for table, report in reports.items():
        ids = metric_ids if metric_ids is not None else list(report)
        for mid in ids:
            if mid not in report:
                continue
            res = report[mid]
            if not res.applicable or res.risk is None:
                continue
            rows.append({
                "table": table, "metric": metric_name(mid), "risk": res.risk, "baseline": res.baseline,
                "low": res.interval[0] if res.interval else None, "high": res.interval[1] if res.interval else None,
            })
    return scores_overview(rows)
