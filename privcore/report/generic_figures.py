"""Generic figure builders: plain arrays and numbers in, an accessible :class:`~privcore.report.figure_base.Figure` out.

They know nothing of a :class:`privcore.Report`: the modules that read reports call them with the numbers.
This module imports no Streamlit.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from privcore.base import DASHES, OKABE_ITO, PALETTE, ROLE_COLOURS, SYMBOLS, format_value, percent
from privcore.report.figure_base import (
    BINS,
    MAX_POINTS,
    Figure,
    apply_layout,
    bin_shares,
    empty_figure,
    finite_values,
    wrap_category_ticks,
)

__all__ = ["distance_histogram", "per_record_distribution", "attack_intervals", "roc_curves", "epsilon_curve",
           "fold_scores", "scores_overview"]


def distance_histogram(
    groups: Mapping[str, Any],
    *,
    title: str = "Distances to the nearest record",
    x_title: str = "distance to the nearest record",
    caption: str | None = None,
    alt: str | None = None,
    markers: Mapping[str, float] | None = None,
    colours: Mapping[str, str] | None = None,
    bins: int = BINS,
) -> Figure:
    """Overlaid step histograms of several distance (or score) distributions on shared bins.

    Parameters
    ----------
    groups : mapping
        Label → 1-D array of values; non-finite values are left out.
    markers : mapping, optional
        Label → x position of a vertical reference line (thresholds, percentiles).
    colours : mapping, optional
        Label → colour (Okabe–Ito); default cycles :data:`PALETTE`.
    """
    clean = {label: finite_values(v) for label, v in groups.items()}
    clean = {label: v for label, v in clean.items() if len(v)}
    if not clean:
        return empty_figure(title, "No finite distances to show.")
    everything = np.concatenate(list(clean.values()))
    lo, hi = float(everything.min()), float(everything.max())
    if markers:
        marks = [float(m) for m in markers.values() if m is not None and math.isfinite(float(m))]
        lo, hi = min([lo, *marks]), max([hi, *marks])
    if hi <= lo:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, bins + 1)
    centres = 0.5 * (edges[:-1] + edges[1:])
    fig = go.Figure()
    medians = []
    for i, (label, values) in enumerate(clean.items()):
        colour = (colours or {}).get(label, PALETTE[i % len(PALETTE)])
        shares = bin_shares(values, edges)
        fig.add_trace(
            go.Scatter(
                x=centres, y=shares, mode="lines", name=f"{label} (n={len(values):,})",
                line={"color": colour, "dash": DASHES[i % len(DASHES)], "width": 2.5, "shape": "hvh"},
                hovertemplate="%{x:.3g}: %{y:.1%}<extra>" + label + "</extra>",
            )
        )
        medians.append(f"{label}: median {np.median(values):.3g}")
    top = max((float(tr.y.max()) for tr in fig.data if len(tr.y)), default=1.0)
    for j, (label, x) in enumerate((markers or {}).items()):
        if x is None or not math.isfinite(float(x)):
            continue
        # A vertical line drawn as a trace, so its label sits in the legend (annotations would collide).
        fig.add_trace(go.Scatter(x=[float(x), float(x)], y=[0.0, top * 1.05], mode="lines",
                                 name=f"{label}: {float(x):.3g}",
                                 line={"color": OKABE_ITO["black"], "dash": DASHES[(j + 1) % len(DASHES)],
                                       "width": 1.5},
                                 hovertemplate=f"{label}: {float(x):.3g}<extra></extra>"))
    apply_layout(fig, title, x_title, "share of records")
    fig.update_yaxes(tickformat=".0%")
    if caption is None:
        caption = "Each line shows how the distances of one group are spread; lines further left mean closer records."
    if alt is None:
        alt = f"{title}. Step histograms on a common axis from {lo:.3g} to {hi:.3g}. " + "; ".join(medians) + "."
    return Figure(fig, caption, alt, title)


def per_record_distribution(
    values: Any,
    baseline_values: Any | None = None,
    *,
    name: str = "this metric",
    unit: str = "real",
    cutoff: float | None = None,
) -> Figure:
    """Distribution of a metric's per-record risks, against the fresh-sample baseline when given.

    Indicator metrics (every value 0 or 1) are drawn as bars of the share of flagged records; other
    metrics as step histograms on [0, 1].
    """
    unit_word = "synthetic records" if unit == "synthetic" else "real people"
    title = f"{name}: risk of each record"
    v = finite_values(values)
    if len(v) == 0:
        return empty_figure(title, f"{name} has no per-record values to show.")
    b = None if baseline_values is None else finite_values(baseline_values)
    if b is not None and len(b) == 0:
        b = None
    indicator = np.all(np.isin(v, (0.0, 1.0))) and (b is None or np.all(np.isin(b, (0.0, 1.0))))
    if indicator:
        fig = go.Figure()
        labels = ["synthetic data"] + (["fresh sample (holdout)"] if b is not None else [])
        shares = [float(v.mean())] + ([float(b.mean())] if b is not None else [])
        counts = [int(v.sum())] + ([int(b.sum())] if b is not None else [])
        totals = [len(v)] + ([len(b)] if b is not None else [])
        colours = [ROLE_COLOURS["synthetic"], ROLE_COLOURS["holdout"]][: len(labels)]
        patterns = ["", "/"][: len(labels)]
        fig.add_trace(
            go.Bar(
                x=labels, y=shares, marker={"color": colours, "pattern": {"shape": patterns}},
                text=[f"{c:,} of {t:,} ({percent(s)})" for c, s, t in zip(counts, shares, totals)],
                textposition="outside", name="flagged", showlegend=False,
                hovertemplate="%{x}: %{y:.1%}<extra></extra>",
            )
        )
        apply_layout(fig, title, "", f"share of {unit_word} flagged")
        fig.update_yaxes(tickformat=".0%", range=[0, max(0.05, max(shares) * 1.25)])
        caption = (
            f"The bar shows how many {unit_word} {name} flags as at risk"
            + (", next to how many it flags when a fresh sample of other real people stands in for the synthetic "
               "data." if b is not None else ".")
        )
        alt = (
            f"Bar chart. {name} flags {counts[0]:,} of {totals[0]:,} {unit_word} ({percent(shares[0])})"
            + (f"; with the holdout in place of the synthetic data it flags {counts[1]:,} of {totals[1]:,} "
               f"({percent(shares[1])})." if b is not None else ".")
        )
        return Figure(fig, caption, alt, title)
    lo = min(0.0, float(v.min()) if b is None else float(min(v.min(), b.min())))
    hi = max(1.0, float(v.max()) if b is None else float(max(v.max(), b.max())))
    edges = np.linspace(lo, hi, 11)
    labels = [f"{edges[i]:.1f}–{edges[i + 1]:.1f}" for i in range(10)]
    fig = go.Figure()
    series = [("synthetic data", v, ROLE_COLOURS["synthetic"], "")]
    if b is not None:
        series.append(("fresh sample (holdout)", b, ROLE_COLOURS["holdout"], "/"))
    for label, values, colour, pattern in series:
        shares = bin_shares(values, edges)
        fig.add_trace(go.Bar(x=labels, y=shares, name=f"{label} (n={len(values):,})",
                             marker={"color": colour, "pattern": {"shape": pattern}},
                             hovertemplate="risk %{x}: %{y:.1%}<extra>" + label + "</extra>"))
    if cutoff is not None:
        k = int(np.clip(np.searchsorted(edges, cutoff, side="right") - 1, 0, 9))
        fig.add_annotation(x=labels[k], y=1.0, yref="paper", text=f"flag cut-off {cutoff:.2f}", showarrow=False,
                           yanchor="bottom")
    apply_layout(fig, title, f"per-record risk ({unit_word})", f"share of {unit_word}")
    fig.update_layout(barmode="group")
    fig.update_yaxes(tickformat=".0%")
    caption = (f"How {name}'s risk is spread over {unit_word}: tall bars on the right mean many records at high risk"
               + ("; compare them with the hatched bars for a fresh sample of other real people." if b is not None
                  else "."))
    alt = (f"Bar chart of {name}'s per-record risk for {len(v):,} {unit_word} in ten bins: mean {v.mean():.3f}, "
           f"90th percentile {np.quantile(v, 0.9):.3f}, maximum {v.max():.3f}"
           + (f"; fresh-sample baseline mean {b.mean():.3f}, 90th percentile {np.quantile(b, 0.9):.3f}." if b is not None
              else "."))
    return Figure(fig, caption, alt, title)


def attack_intervals(
    rates: Mapping[str, tuple[float, float, float]],
    *,
    name: str = "attack",
    risk: tuple[float, float, float] | None = None,
    title: str | None = None,
    caption: str | None = None,
    x_title: str = "success rate",
) -> Figure:
    """Success rates of the main, baseline and control attacks with their 95 % intervals.

    Parameters
    ----------
    rates : mapping
        Label (``"main"``, ``"baseline"``, ``"control"``...) → (value, low, high).
    risk : tuple, optional
        (value, low, high) of the resulting risk, drawn as a separate row.
    """
    title = title or f"{name}: attack success with 95% intervals"
    rows = dict(rates)
    if risk is not None:
        rows = {**rows, "risk (main vs control)": risk}
    rows = {k: v for k, v in rows.items() if v is not None and v[0] is not None and math.isfinite(v[0])}
    if not rows:
        return empty_figure(title, f"{name} reported no attack rates.")
    colour_of = {"main": ROLE_COLOURS["synthetic"], "baseline": OKABE_ITO["black"],
                 "control": ROLE_COLOURS["holdout"], "risk (main vs control)": OKABE_ITO["vermillion"]}
    explain = {
        "main": "main attack (uses the synthetic data against training records)",
        "baseline": "baseline (random guessing)",
        "control": "control (same attack against holdout records)",
        "risk (main vs control)": "risk = (main − control) / (1 − control)",
    }
    fig = go.Figure()
    for i, (label, (value, low, high)) in enumerate(rows.items()):
        low = value if low is None else low
        high = value if high is None else high
        fig.add_trace(
            go.Scatter(
                x=[value], y=[explain.get(label, label)], mode="markers", name=label,
                marker={"color": colour_of.get(label, PALETTE[i % len(PALETTE)]), "size": 13,
                        "symbol": SYMBOLS[i % len(SYMBOLS)]},
                error_x={"type": "data", "symmetric": False, "array": [max(0.0, high - value)],
                         "arrayminus": [max(0.0, value - low)], "thickness": 2, "width": 8,
                         "color": colour_of.get(label, PALETTE[i % len(PALETTE)])},
                hovertemplate=f"{label}: {value:.3f} [{low:.3f}, {high:.3f}]<extra></extra>",
            )
        )
    labels = [explain.get(label, label) for label in rows]
    apply_layout(fig, title, x_title, "", height=120 + 60 * len(rows))
    lines = wrap_category_ticks(fig, labels)
    fig.update_layout(height=120 + max(60, 16 * lines + 16) * len(rows))
    fig.update_xaxes(range=[-0.02, 1.02], tickformat=".0%")
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(showlegend=False)
    parts = [f"{label} {v[0]:.3f} (95% interval {(v[1] if v[1] is not None else v[0]):.3f} to "
             f"{(v[2] if v[2] is not None else v[0]):.3f})" for label, v in rows.items()]
    caption = caption or ("The attack matters only if the main attack (synthetic data against training records) "
                          "clearly beats both random guessing and the same attack against people who were not in the "
                          "training data.")
    alt = f"Dot plot with interval bars for {name}: " + "; ".join(parts) + "."
    return Figure(fig, caption, alt, title)


def roc_curves(
    curves: Mapping[str, tuple[Any, Any]],
    *,
    name: str = "membership inference",
    aucs: Mapping[str, float] | None = None,
    log_x: bool = False,
) -> Figure:
    """ROC curves (true-positive rate against false-positive rate) with the chance diagonal.

    With ``log_x`` the false-positive axis is logarithmic (from 0.1 %), which shows what the attack
    achieves while hardly ever accusing a non-member, where leaks of a few records show up.
    """
    title = f"{name}: ROC curve"
    if not curves:
        return empty_figure(title, f"{name} reported no ROC curve.")
    fig = go.Figure()
    diagonal = np.logspace(-3, 0, 50) if log_x else np.array([0.0, 1.0])
    fig.add_trace(go.Scatter(x=diagonal, y=diagonal, mode="lines", name="chance (a coin flip)",
                             line={"color": ROLE_COLOURS["chance"], "dash": "dot", "width": 1.5}))
    parts = []
    for i, (label, (fpr, tpr)) in enumerate(curves.items()):
        fpr, tpr = np.asarray(fpr, dtype=float), np.asarray(tpr, dtype=float)
        if len(fpr) > MAX_POINTS:
            keep = np.unique(np.r_[0, np.linspace(0, len(fpr) - 1, MAX_POINTS).astype(int), len(fpr) - 1])
            fpr, tpr = fpr[keep], tpr[keep]
        auc = (aucs or {}).get(label)
        if auc is None and len(fpr) > 1:
            order = np.argsort(fpr, kind="stable")
            auc = float(np.trapezoid(tpr[order], fpr[order]))
        text = f"{label} (AUC {format_value(auc)})" if auc is not None else label
        fig.add_trace(go.Scatter(x=fpr, y=tpr, mode="lines", name=text,
                                 line={"color": PALETTE[i % len(PALETTE)], "dash": DASHES[i % len(DASHES)],
                                       "width": 2.5, "shape": "hv"}))
        parts.append(text)
    apply_layout(fig, title, "false-positive rate (non-members wrongly accused)",
                 "true-positive rate (members caught)", height=420)
    if log_x:
        fig.update_xaxes(type="log", range=[-3, 0])
    else:
        fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(range=[0, 1.02])
    caption = ("A curve hugging the dotted diagonal means the attacker cannot tell who was in the training data; "
               "a curve bulging to the top left means it can.")
    alt = f"ROC curve of {name}: " + "; ".join(parts) + ". The diagonal marks chance (AUC 0.5)."
    return Figure(fig, caption, alt, title)


def epsilon_curve(
    series: Mapping[str, Mapping[float, float]],
    *,
    name: str = "SynQP",
    threshold: float | None = 0.09,
) -> Figure:
    """Value against the matching tolerance ε for one or more series, with the paper's threshold."""
    title = f"{name} by matching tolerance ε"
    series = {k: v for k, v in series.items() if v}
    if not series:
        return empty_figure(title, f"{name} reported no values per ε.")
    fig = go.Figure()
    parts = []
    for i, (label, values) in enumerate(series.items()):
        pairs = sorted((float(k), float(v)) for k, v in values.items())
        eps, ys = [p[0] for p in pairs], [p[1] for p in pairs]
        fig.add_trace(go.Scatter(x=eps, y=ys, mode="lines+markers", name=label,
                                 line={"color": PALETTE[i % len(PALETTE)], "dash": DASHES[i % len(DASHES)]},
                                 marker={"symbol": SYMBOLS[i % len(SYMBOLS)], "size": 9}))
        parts.append(f"{label}: " + ", ".join(f"ε={e:g} → {y:.3f}" for e, y in zip(eps, ys)))
    if threshold is not None:
        all_eps = [float(k) for values in series.values() for k in values]
        fig.add_trace(go.Scatter(x=[min(all_eps), max(all_eps)], y=[threshold, threshold], mode="lines",
                                 name=f"threshold {threshold:g}",
                                 line={"color": ROLE_COLOURS["threshold"], "dash": "dash", "width": 1.5}))
    fig.update_layout(showlegend=True)
    apply_layout(fig, title, "ε (summed difference allowed on numerical keys)", "disclosure rate")
    caption = ("Each point is the share of records an attacker could match when numbers may differ by up to ε; "
               "points above the dashed line exceed the threshold the SynQP authors use.")
    alt = f"Line chart of {name} against ε. " + "; ".join(parts) + (
        f". Threshold {threshold:g}." if threshold is not None else ".")
    return Figure(fig, caption, alt, title)


def fold_scores(
    scores: Sequence[float],
    *,
    name: str = "classifier",
    label: str = "ROC AUC",
    chance: float | None = 0.5,
) -> Figure:
    """One bar per cross-validation fold (or repeat) with the chance level."""
    title = f"{name}: {label} per fold"
    s = finite_values(scores)
    if len(s) == 0:
        return empty_figure(title, f"{name} reported no per-fold scores.")
    fig = go.Figure(go.Bar(x=[f"fold {i + 1}" for i in range(len(s))], y=s, marker={"color": ROLE_COLOURS["synthetic"]},
                           text=[f"{x:.3f}" for x in s], textposition="outside", name=label))
    if chance is not None:
        fig.add_trace(go.Scatter(x=["fold 1", f"fold {len(s)}"], y=[chance, chance], mode="lines",
                                 name=f"chance {chance:g}",
                                 line={"color": ROLE_COLOURS["chance"], "dash": "dash", "width": 1.5}))
    fig.update_layout(showlegend=True)
    apply_layout(fig, title, "", label)
    fig.update_yaxes(range=[0, 1.05])
    caption = (f"Each bar is the classifier's {label} on data it did not train on; bars near the dashed chance line "
               "mean it cannot tell real from synthetic records.")
    alt = f"Bar chart of {name} {label} per fold: " + ", ".join(f"{x:.3f}" for x in s) + (
        f"; chance level {chance:g}." if chance is not None else ".")
    return Figure(fig, caption, alt, title)


def scores_overview(rows: Iterable[Mapping[str, Any]], *, title: str = "Risk by metric and synthetic table") -> Figure:
    """Grouped bars of every metric's risk for every synthetic table.

    Parameters
    ----------
    rows : iterable of mapping
        Each with ``table``, ``metric`` (display name), ``risk``; optional ``low``, ``high`` (interval)
        and ``baseline`` (fresh-sample risk).
    """
    rows = [r for r in rows if r.get("risk") is not None and math.isfinite(float(r["risk"]))]
    if not rows:
        return empty_figure(title, "No metric produced a score.")
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    tables = list(dict.fromkeys(r["table"] for r in rows))
    fig = go.Figure()
    for i, table in enumerate(tables):
        mine = {r["metric"]: r for r in rows if r["table"] == table}
        ys = [m for m in metrics if m in mine]
        xs = [float(mine[m]["risk"]) for m in ys]
        plus = [max(0.0, float(mine[m]["high"]) - float(mine[m]["risk"])) if mine[m].get("high") is not None else 0.0
                for m in ys]
        minus = [max(0.0, float(mine[m]["risk"]) - float(mine[m]["low"])) if mine[m].get("low") is not None else 0.0
                 for m in ys]
        fig.add_trace(go.Bar(
            y=ys, x=xs, orientation="h", name=table, marker={"color": PALETTE[i % len(PALETTE)],
                                                             "pattern": {"shape": ["", "/", ".", "x", "-", "+"][i % 6]}},
            error_x={"type": "data", "array": plus, "arrayminus": minus, "symmetric": False,
                     "color": OKABE_ITO["black"], "thickness": 1.2},
            hovertemplate="%{y}: %{x:.3f}<extra>" + table + "</extra>",
        ))
    base = [r for r in rows if r.get("baseline") is not None and math.isfinite(float(r["baseline"]))]
    if base:
        seen: dict[str, float] = {}
        for r in base:
            seen.setdefault(r["metric"], float(r["baseline"]))
        fig.add_trace(go.Scatter(y=list(seen), x=list(seen.values()), mode="markers", name="fresh-sample baseline",
                                 marker={"symbol": "line-ns-open", "size": 22, "color": OKABE_ITO["black"],
                                         "line": {"width": 3}}))
    apply_layout(fig, title, "risk (0 = private, 1 = no privacy)", "",
                 height=max(300, 110 + 26 * len(metrics) * max(1, len(tables))))
    # Metric names on up to three lines, so that they fit a phone; each metric gets the height its label needs.
    lines = wrap_category_ticks(fig, metrics)
    fig.update_layout(height=max(300, 130 + max(26 * max(1, len(tables)), 16 * lines + 12) * len(metrics)))
    fig.update_layout(barmode="group")
    fig.update_xaxes(range=[0, 1.02])
    fig.update_yaxes(autorange="reversed")
    caption = ("Longer bars mean higher privacy risk; the black tick marks what a fresh sample of other real people "
               "scores, so a bar that does not reach past it says nothing against the generator.")
    parts = []
    for table in tables:
        mine = [r for r in rows if r["table"] == table]
        parts.append(f"{table}: " + ", ".join(f"{r['metric']} {float(r['risk']):.3f}" for r in mine))
    alt = f"Horizontal grouped bar chart of risk for {len(metrics)} metrics and {len(tables)} synthetic table(s). " + \
        "; ".join(parts) + "."
    return Figure(fig, caption, alt, title)
