"""The figures of the metric lab (:mod:`privcore.lab`): response curves, detection and agreement heatmaps."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from privcore.base import DASHES, OKABE_ITO, PALETTE, SYMBOLS
from privcore.lab import LEAK_LABELS, REFERENCE, format_level, leak_label
from privcore.metrics import short_name
from privcore.report import frontier_figures
from privcore.report.figure_base import Figure, apply_layout, empty_figure

__all__ = ["LEAK_LABELS", "DETECTION_SCALE", "AGREEMENT_SCALE", "NOT_DETECTED_COLOUR", "NOT_RUN_COLOUR",
           "leak_label", "response_curves", "detection_heatmap", "agreement_heatmap", "frontier_figure",
           "lab_figures"]

#: Detection level → colour: dark blue for a leak noticed at a low level, pale blue for one noticed only
#: when strong (sequential, Okabe–Ito blue in the middle, readable with every common colour-vision deficiency).
DETECTION_SCALE = [[0.0, "#08306B"], [0.5, OKABE_ITO["blue"]], [1.0, "#C6DBEF"]]
#: Spearman ρ from −1 to 1: Okabe–Ito vermillion, white at 0, Okabe–Ito blue (a diverging blue–orange scale,
#: which red–green deficient readers tell apart).
AGREEMENT_SCALE = [[0.0, OKABE_ITO["vermillion"]], [0.5, "#F7F7F7"], [1.0, OKABE_ITO["blue"]]]
#: Cells of a leak the metric never noticed: pale orange, so they stand apart from every blue, and labelled.
NOT_DETECTED_COLOUR = "#F6D8A8"
#: Cells of a metric that did not run at all.
NOT_RUN_COLOUR = "#E0E0E0"
NOT_DETECTED_TEXT = "not detected"
NOT_RUN_TEXT = "did not run"


def _settings(document: Mapping[str, Any]) -> tuple[list[str], list[str], bool]:
    settings = document.get("settings", {})
    metrics = list(settings.get("metrics") or document.get("detection", {}))
    leaks = list(settings.get("leaks") or next(iter(document.get("detection", {}).values()), {}))
    return metrics, leaks, settings.get("kind") == "supplied"


def _level_text(leak: str, level: float, labels: bool) -> str:
    return format_level(leak, level, labels=labels)


def _x_title(labels: bool) -> str:
    return "label of the supplied table" if labels else "leak level s (0 = no leak, 1 = the strongest leak)"


# --------------------------------------------------------------------------------------------------
# response curves
# --------------------------------------------------------------------------------------------------
def _reference_mean(document: Mapping[str, Any], metric: str) -> float | None:
    """Mean risk of the fresh-sample reference runs (generated ladders only)."""
    values = [r["risk"] for r in document.get("runs", [])
              if r["leak"] == REFERENCE and r["metric"] == metric and r["risk"] is not None]
    return float(np.mean(values)) if values else None


def response_curves(document: Mapping[str, Any], *, value: str = "risk", metrics: Sequence[str] | None = None,
                    columns: int = 3) -> Figure:
    """Small multiples: one chart per metric, risk (or excess risk) against leak level, one line per leak type.

    Parameters
    ----------
    document : mapping
        The lab's JSON document (:meth:`privcore.lab.LabResult.to_dict`).
    value : {"risk", "excess"}
        Plot the risk, or the excess risk over the run's baseline (risk − baseline).
    metrics : sequence of str, optional
        The metrics to draw (default: every metric of the lab, in its order).
    columns : int
        Charts per row.

    Returns
    -------
    Figure
        Points are the mean over seeds, bars the range from the lowest to the highest seed; filled markers
        mark levels separated from the reference (the detection rule), open markers the others. On the risk
        scale a dotted line gives the fresh samples' mean risk (generated ladders); on the excess scale, 0.
    """
    if value not in ("risk", "excess"):
        raise ValueError(f"value must be 'risk' or 'excess'; got {value!r}")
    all_metrics, leaks, labels = _settings(document)
    metrics = [m for m in (metrics if metrics is not None else all_metrics) if m in document.get("curves", {})]
    what = "Risk" if value == "risk" else "Excess risk"
    title = f"{what} against leak level, one chart per metric"
    if not metrics or not leaks:
        return empty_figure(title, "The lab has no response curve to draw.")
    columns = max(1, min(columns, len(metrics)))
    rows = math.ceil(len(metrics) / columns)
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=[short_name(m) for m in metrics],
                        shared_xaxes=True, horizontal_spacing=0.07, vertical_spacing=min(0.5 / rows, 0.12))
    alt_parts = []
    for index, metric in enumerate(metrics):
        row, col = divmod(index, columns)
        reference = _reference_mean(document, metric) if value == "risk" else 0.0
        biggest: tuple[float, str] | None = None
        for i, leak in enumerate(leaks):
            points = [p for p in document["curves"][metric].get(leak, []) if p[f"{value}_mean"] is not None]
            if not points:
                continue
            x = [p["level"] for p in points]
            mean = [p[f"{value}_mean"] for p in points]
            low = [p[f"{value}_min"] for p in points]
            high = [p[f"{value}_max"] for p in points]
            symbol = SYMBOLS[i % len(SYMBOLS)]
            fig.add_trace(go.Scatter(
                x=x, y=mean, mode="lines+markers", name=leak_label(leak), legendgroup=leak, showlegend=index == 0,
                line={"color": PALETTE[i % len(PALETTE)], "dash": DASHES[i % len(DASHES)], "width": 2},
                marker={"symbol": [symbol if p["separated"] else f"{symbol}-open" for p in points], "size": 8,
                        "color": PALETTE[i % len(PALETTE)]},
                error_y={"type": "data", "symmetric": False, "array": [h - m for h, m in zip(high, mean)],
                         "arrayminus": [m - lo for m, lo in zip(mean, low)], "thickness": 1.2, "width": 3},
                customdata=[[_level_text(leak, p["level"], labels), p["runs"], "yes" if p["separated"] else "no"]
                            for p in points],
                hovertemplate=(f"{short_name(metric)} · {leak_label(leak)}<br>%{{customdata[0]}}: mean "
                               f"{value} %{{y:.3f}} over %{{customdata[1]}} seed(s)<br>separated from the "
                               "reference: %{customdata[2]}<extra></extra>"),
            ), row=row + 1, col=col + 1)
            rise = mean[-1] - mean[0]
            if biggest is None or rise > biggest[0]:
                biggest = (rise, f"{leak_label(leak)} ({mean[0]:.3f} at {_level_text(leak, x[0], labels)} to "
                                 f"{mean[-1]:.3f} at {_level_text(leak, x[-1], labels)})")
        if reference is not None:
            fig.add_hline(y=reference, line={"color": OKABE_ITO["black"], "dash": "dot", "width": 1},
                          row=row + 1, col=col + 1)
        if biggest is None:
            fig.add_annotation(text="did not run", showarrow=False, xref="x domain", yref="y domain", x=0.5, y=0.5,
                               row=row + 1, col=col + 1)
            alt_parts.append(f"{short_name(metric)} did not run")
        else:
            alt_parts.append(f"{short_name(metric)} rises most with {biggest[1]}")
    apply_layout(fig, title, "", "", height=120 + 220 * rows)
    # The subplots' own titles sit on top of the grid: the figure's title stays at the top of the figure (as
    # Plotly places it by default) rather than just above the grid, and the legend goes between the two.
    fig.layout.title = {"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 15}}
    fig.update_layout(margin={"l": 60, "r": 20, "t": 110, "b": 60},
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.0 + 40 / (120 + 220 * rows),
                              "yref": "paper", "xanchor": "left", "x": 0.0})
    for col in range(1, columns + 1):
        fig.update_xaxes(title_text=_x_title(labels) if col == 1 + (columns - 1) // 2 else "", row=rows, col=col)
    reference_words = ("the dotted line is the fresh real samples' mean risk" if value == "risk" and not labels
                       else "the dotted line is zero excess" if value == "excess" else "")
    caption = (f"One chart per metric: each line is a kind of leak made stronger from left to right, the point is the "
               f"average {'risk' if value == 'risk' else 'excess risk'} over the seeds and the bar the spread between "
               f"seeds; a line that climbs means the metric notices that leak, and filled points mark the levels it "
               f"tells apart from {'the smallest label' if labels else 'fresh real data'} on every seed"
               + (f" ({reference_words})." if reference_words else "."))
    alt = (f"Small multiples of {what.lower()} against {'label' if labels else 'leak level'} for {len(metrics)} "
           f"metric(s) and {len(leaks)} leak type(s) ({', '.join(leak_label(k) for k in leaks)}), mean over seeds "
           f"with the seed range. " + "; ".join(alt_parts) + ".")
    return Figure(fig, caption, alt, title)


# --------------------------------------------------------------------------------------------------
# detection heatmap
# --------------------------------------------------------------------------------------------------
def detection_heatmap(document: Mapping[str, Any]) -> Figure:
    """Metric × leak type: the smallest level from which the metric notices the leak, written in each cell.

    Parameters
    ----------
    document : mapping
        The lab's JSON document.

    Returns
    -------
    Figure
        Detected cells are blue (darker = noticed at a lower level) with the level as text; cells of a leak
        the metric never noticed are pale orange and say "not detected"; a metric that did not run is grey
        and says "did not run".
    """
    metrics, leaks, labels = _settings(document)
    title = "Which metric notices which leak, and from which level"
    if not metrics or not leaks:
        return empty_figure(title, "The lab has no detection result to draw.")
    detection, not_run = document.get("detection", {}), document.get("not_applicable", {})
    names = [short_name(m) for m in metrics]
    columns = [leak_label(k) for k in leaks]
    values = np.full((len(metrics), len(leaks)), np.nan)
    special = np.full((len(metrics), len(leaks)), np.nan)
    text = [["" for _ in leaks] for _ in metrics]
    for i, metric in enumerate(metrics):
        for j, leak in enumerate(leaks):
            level = detection.get(metric, {}).get(leak)
            if metric in not_run:
                special[i, j], text[i][j] = 1.0, NOT_RUN_TEXT
            elif level is None:
                special[i, j], text[i][j] = 0.0, NOT_DETECTED_TEXT
            else:
                values[i, j], text[i][j] = level, _level_text(leak, level, labels)
    levels = document.get("settings", {}).get("levels") or [0.0, 1.0]
    low, high = min(levels), max(levels)
    fig = go.Figure()
    # Each trace carries the text of its own cells only: text on a cell another trace colours would be drawn
    # over it in the wrong colour (the detected cells' text is coloured for contrast by Plotly itself).
    detected_text = [[t if not np.isnan(v) else "" for t, v in zip(line, row)] for line, row in zip(text, values)]
    special_text = [[t if not np.isnan(v) else "" for t, v in zip(line, row)] for line, row in zip(text, special)]
    fig.add_trace(go.Heatmap(
        z=values, x=columns, y=names, text=detected_text, texttemplate="%{text}", zmin=low, zmax=high if high > low else low + 1,
        colorscale=DETECTION_SCALE, xgap=2, ygap=2, name="detected",
        colorbar={"title": {"text": "label" if labels else "detected from level"}},
        hovertemplate="%{y} notices %{x} from %{text}<extra></extra>",
    ))
    fig.add_trace(go.Heatmap(
        z=special, x=columns, y=names, text=special_text, texttemplate="%{text}", zmin=0, zmax=1, showscale=False,
        colorscale=[[0.0, NOT_DETECTED_COLOUR], [0.5, NOT_DETECTED_COLOUR], [0.5, NOT_RUN_COLOUR],
                    [1.0, NOT_RUN_COLOUR]], xgap=2, ygap=2, name="not detected or not run",
        textfont={"color": OKABE_ITO["black"]}, hovertemplate="%{y}, %{x}: %{text}<extra></extra>",
    ))
    apply_layout(fig, title, "leak type" if not labels else "supplied ladder", "", height=max(300, 150 + 34 * len(metrics)))
    fig.update_yaxes(autorange="reversed", showgrid=False)
    fig.update_xaxes(showgrid=False, side="top", title_text="")
    fig.update_layout(margin={"l": 60, "r": 20, "t": 100, "b": 30})
    caption = ("Each cell gives the weakest leak the row's metric told apart from "
               f"{'the smallest label' if labels else 'fresh real data'} on every seed: darker cells notice a "
               "leak earlier, and orange cells marked “not detected” are leaks the metric never noticed.")
    alt = _detection_alt(metrics, leaks, detection, not_run, labels)
    return Figure(fig, caption, alt, title)


def _detection_alt(metrics, leaks, detection, not_run, labels) -> str:
    parts = []
    for leak in leaks:
        found = [(detection.get(m, {}).get(leak), m) for m in metrics if m not in not_run]
        seen = sorted((level, m) for level, m in found if level is not None)
        missed = [short_name(m) for level, m in found if level is None]
        if seen:
            first = seen[0][0]
            earliest = [short_name(m) for level, m in seen if level == first]
            words = (f"{leak_label(leak)}: noticed by {len(seen)} of {len(found)} metrics, earliest "
                     f"({_level_text(leak, first, labels)}) by {', '.join(earliest)}")
        else:
            words = f"{leak_label(leak)}: noticed by none of {len(found)} metrics"
        if missed and seen:
            words += f"; not detected by {', '.join(missed)}"
        parts.append(words)
    not_ran = f" Did not run: {', '.join(short_name(m) for m in not_run)}." if not_run else ""
    return (f"Heatmap of {len(metrics)} metrics by {len(leaks)} leak type(s), each cell the smallest level from "
            f"which the metric notices the leak. " + ". ".join(parts) + "." + not_ran)


# --------------------------------------------------------------------------------------------------
# agreement heatmap
# --------------------------------------------------------------------------------------------------
def agreement_heatmap(document: Mapping[str, Any]) -> Figure:
    """Metric × metric: Spearman's ρ of their risks over every run of the lab, written in each cell.

    Parameters
    ----------
    document : mapping
        The lab's JSON document.

    Returns
    -------
    Figure
        A diverging blue (ρ = 1, the metrics rank the tables alike) to vermillion (ρ = −1, in opposite
        order) heatmap, white at 0; "n/a" where ρ is undefined (a metric constant over the runs).
    """
    metrics, _, _ = _settings(document)
    agreement = document.get("agreement", {})
    metrics = [m for m in metrics if m in agreement]
    title = "How far the metrics agree: rank correlation of their risks over all runs"
    if len(metrics) < 2:
        return empty_figure(title, "At least two metrics are needed to compare them.")
    names = [short_name(m) for m in metrics]
    rho = np.array([[np.nan if agreement[a].get(b) is None else agreement[a][b] for b in metrics] for a in metrics])
    text = [["n/a" if np.isnan(v) else f"{v:+.2f}" for v in line] for line in rho]
    fig = go.Figure(go.Heatmap(
        z=rho, x=names, y=names, text=text, texttemplate="%{text}", zmin=-1, zmax=1, zmid=0,
        colorscale=AGREEMENT_SCALE, xgap=1, ygap=1, colorbar={"title": {"text": "Spearman ρ"}},
        hovertemplate="%{y} and %{x}: ρ = %{text}<extra></extra>",
    ))
    apply_layout(fig, title, "", "", height=max(360, 180 + 32 * len(metrics)))
    fig.update_yaxes(autorange="reversed", showgrid=False)
    fig.update_xaxes(showgrid=False, tickangle=-45)
    caption = ("Each cell says how alike two metrics rank the lab's synthetic tables: +1 (blue) means they always "
               "agree which table is riskier, 0 (white) that they are unrelated, −1 (orange) that they disagree.")
    alt = _agreement_alt(metrics, rho)
    return Figure(fig, caption, alt, title)


def _agreement_alt(metrics: Sequence[str], rho: np.ndarray) -> str:
    pairs = [(rho[i, j], metrics[i], metrics[j]) for i in range(len(metrics)) for j in range(i + 1, len(metrics))
             if not np.isnan(rho[i, j])]
    head = f"Heatmap of Spearman rank correlations between {len(metrics)} metrics over all runs"
    if not pairs:
        return head + "; no pair has a defined correlation."
    pairs.sort()
    low, high = pairs[0], pairs[-1]
    undefined = len(metrics) * (len(metrics) - 1) // 2 - len(pairs)
    return (f"{head}. Strongest agreement: {short_name(high[1])} and {short_name(high[2])}, ρ = {high[0]:+.2f}; "
            f"weakest: {short_name(low[1])} and {short_name(low[2])}, ρ = {low[0]:+.2f}; median over "
            f"{len(pairs)} pairs {float(np.median([p[0] for p in pairs])):+.2f}"
            + (f"; {undefined} pair(s) undefined." if undefined else "."))


def lab_figures(document: Mapping[str, Any]) -> list[Figure]:
    """The lab's figures in reading order.

    Detection heatmap, response curves (risk, then excess), agreement, and the privacy–utility frontier when the lab ran
    utility measures.

    Notes
    -----
    Every builder reads the lab's JSON document (:meth:`privcore.lab.LabResult.to_dict`, or the file written
    by ``python -m privcore lab --json``), so the Compare-metrics page, the exported HTML page and the command
    line draw the same pictures from the same numbers. Conventions of :mod:`privcore.report.figures`: each builder
    returns a :class:`~privcore.report.figure_base.Figure` with a one-sentence caption for a non-expert and an alt text
    that carries the figure's key numbers; colours come from the Okabe–Ito palette or from scales built on it;
    nothing is told apart by colour alone (lines differ in dash and marker, every heatmap cell carries its
    value as text). This module imports no Streamlit.
    """
    figures = [detection_heatmap(document), response_curves(document, value="risk"),
               response_curves(document, value="excess"), agreement_heatmap(document)]
    if document.get("frontier"):
        figures.append(frontier_figure(document))
    return figures


def frontier_figure(document: Mapping[str, Any]) -> Figure:
    """The privacy–utility frontier across the levels (:func:`privcore.report.frontier_figures.frontier_figure`)."""
    return frontier_figures.frontier_figure(document)
