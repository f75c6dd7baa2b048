"""Plotly figures that show *why* a metric scored what it did, for the dashboard and the HTML report.

Every builder returns a :class:`Figure`: the Plotly figure, a one-sentence caption a non-expert can read
and an alt text for screen readers. Colours come only from the Okabe–Ito palette (distinguishable with
the common colour-vision deficiencies), and no group is told apart by colour alone: lines also differ in
dash pattern, points in marker symbol. Large tables are sampled for plotting (at most
:data:`MAX_POINTS` points and :data:`MAX_LINKS` neighbour links); histograms are binned here, so a figure
carries a few hundred numbers, not the data.

:func:`metric_figures` picks the explanatory figures of one metric from a :class:`privcore.Report`;
everything it draws comes from the same computation as the score (the report's shared neighbour caches,
the metric's ``per_record`` values and ``details``). For a metric whose ``details`` it does not know it
falls back to the distribution of its per-record risks.

This module imports no Streamlit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from privcore.metrics.details import (AttackRates, ClassifierScores, EpsilonSeries, IdenticalShares, MembershipBattery,
                              MembershipScores, ProxyTest)
from privcore.base.palette import DASHES, OKABE_ITO, PALETTE, ROLE_COLOURS, SYMBOLS  # noqa: F401  (re-exported)
from privcore.metrics import registry
from privcore.metrics.names import SHORT_NAMES, metric_name, short_name  # noqa: F401  (re-exported)
from privcore.metrics.results import NotApplicable

__all__ = [
    "OKABE_ITO",
    "PALETTE",
    "ROLE_COLOURS",
    "Figure",
    "MAX_POINTS",
    "MAX_LINKS",
    "distance_histogram",
    "distance_comparison",
    "normalised_distance_histogram",
    "famd_map",
    "per_record_distribution",
    "attack_intervals",
    "roc_curves",
    "epsilon_curve",
    "fold_scores",
    "scores_overview",
    "scores_chart",
    "narrowing",
    "narrowing_steps",
    "rare_values",
    "rare_values_copied",
    "flag_counts",
    "flag_overlap",
    "metric_figures",
    "metric_name",
    "attack_rates",
    "DETAIL_FIGURES",
]


MAX_POINTS = 2000
MAX_LINKS = 200
BINS = 40

@dataclass(frozen=True)
class Figure:
    """A Plotly figure with the words that make it accessible.

    Attributes
    ----------
    fig : plotly.graph_objects.Figure
    caption : str
        One sentence for a non-expert: what the picture shows and how to read it.
    alt : str
        Text alternative for screen readers: the figure's content in words, with its key numbers.
    title : str
        Short title (also used as a tab label).
    """

    fig: go.Figure
    caption: str
    alt: str
    title: str = ""


# --------------------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------------------
def _layout(fig: go.Figure, title: str, x_title: str, y_title: str, *, height: int = 380) -> go.Figure:
    fig.update_layout(
        template="simple_white",
        title={"text": title, "x": 0.0, "xanchor": "left"},
        height=height,
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0},
        font={"family": "sans-serif", "size": 13, "color": OKABE_ITO["black"]},
        colorway=list(PALETTE),
        hoverlabel={"font": {"family": "sans-serif"}},
    )
    fig.update_xaxes(title_text=x_title, showgrid=True, gridcolor="#e8e8e8")
    fig.update_yaxes(title_text=y_title, showgrid=True, gridcolor="#e8e8e8")
    return fig


def _finite(values: Any) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64).ravel()
    return arr[np.isfinite(arr)]


def _fmt(x: float | None, digits: int = 3) -> str:
    if x is None or not math.isfinite(float(x)):
        return "n/a"
    return f"{float(x):.{digits}f}"


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%" if x >= 0.01 or x == 0 else f"{100 * x:.1f}%"


def _sample(n: int, k: int, seed: int = 0) -> np.ndarray:
    if n <= k:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=k, replace=False))


def _empty(title: str, message: str) -> Figure:
    fig = go.Figure()
    fig.add_annotation(text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    _layout(fig, title, "", "", height=200)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return Figure(fig, message, f"Empty figure: {message}", title)


#: Decimals that values and bin edges are rounded to before binning.
BIN_DECIMALS = 12


def _shares(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    # Values and edges are rounded first: a risk of exactly 0.3 (e.g. 1 - 0.7) comes out a few ulps either
    # side of the edge 0.30000000000000004 depending on the CPU's BLAS kernel, and must land in one bin on
    # every machine. 1e-12 is far below any bin width and far above the last bits of a float in [0, 100].
    values, edges = np.round(values, BIN_DECIMALS), np.round(edges, BIN_DECIMALS)
    counts, _ = np.histogram(np.clip(values, edges[0], edges[-1]), bins=edges)
    return counts / max(1, len(values))


# --------------------------------------------------------------------------------------------------
# generic builders (plain arrays in, Figure out)
# --------------------------------------------------------------------------------------------------
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
    clean = {label: _finite(v) for label, v in groups.items()}
    clean = {label: v for label, v in clean.items() if len(v)}
    if not clean:
        return _empty(title, "No finite distances to show.")
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
        shares = _shares(values, edges)
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
    _layout(fig, title, x_title, "share of records")
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
    v = _finite(values)
    if len(v) == 0:
        return _empty(title, f"{name} has no per-record values to show.")
    b = None if baseline_values is None else _finite(baseline_values)
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
                text=[f"{c:,} of {t:,} ({_pct(s)})" for c, s, t in zip(counts, shares, totals)],
                textposition="outside", name="flagged", showlegend=False,
                hovertemplate="%{x}: %{y:.1%}<extra></extra>",
            )
        )
        _layout(fig, title, "", f"share of {unit_word} flagged")
        fig.update_yaxes(tickformat=".0%", range=[0, max(0.05, max(shares) * 1.25)])
        caption = (
            f"The bar shows how many {unit_word} {name} flags as at risk"
            + (", next to how many it flags when a fresh sample of other real people stands in for the synthetic "
               "data." if b is not None else ".")
        )
        alt = (
            f"Bar chart. {name} flags {counts[0]:,} of {totals[0]:,} {unit_word} ({_pct(shares[0])})"
            + (f"; with the holdout in place of the synthetic data it flags {counts[1]:,} of {totals[1]:,} "
               f"({_pct(shares[1])})." if b is not None else ".")
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
        shares = _shares(values, edges)
        fig.add_trace(go.Bar(x=labels, y=shares, name=f"{label} (n={len(values):,})",
                             marker={"color": colour, "pattern": {"shape": pattern}},
                             hovertemplate="risk %{x}: %{y:.1%}<extra>" + label + "</extra>"))
    if cutoff is not None:
        k = int(np.clip(np.searchsorted(edges, cutoff, side="right") - 1, 0, 9))
        fig.add_annotation(x=labels[k], y=1.0, yref="paper", text=f"flag cut-off {cutoff:.2f}", showarrow=False,
                           yanchor="bottom")
    _layout(fig, title, f"per-record risk ({unit_word})", f"share of {unit_word}")
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
        return _empty(title, f"{name} reported no attack rates.")
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
    _layout(fig, title, x_title, "", height=120 + 60 * len(rows))
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
        return _empty(title, f"{name} reported no ROC curve.")
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
        text = f"{label} (AUC {_fmt(auc)})" if auc is not None else label
        fig.add_trace(go.Scatter(x=fpr, y=tpr, mode="lines", name=text,
                                 line={"color": PALETTE[i % len(PALETTE)], "dash": DASHES[i % len(DASHES)],
                                       "width": 2.5, "shape": "hv"}))
        parts.append(text)
    _layout(fig, title, "false-positive rate (non-members wrongly accused)",
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
        return _empty(title, f"{name} reported no values per ε.")
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
    _layout(fig, title, "ε (summed difference allowed on numerical keys)", "disclosure rate")
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
    s = _finite(scores)
    if len(s) == 0:
        return _empty(title, f"{name} reported no per-fold scores.")
    fig = go.Figure(go.Bar(x=[f"fold {i + 1}" for i in range(len(s))], y=s, marker={"color": ROLE_COLOURS["synthetic"]},
                           text=[f"{x:.3f}" for x in s], textposition="outside", name=label))
    if chance is not None:
        fig.add_trace(go.Scatter(x=["fold 1", f"fold {len(s)}"], y=[chance, chance], mode="lines",
                                 name=f"chance {chance:g}",
                                 line={"color": ROLE_COLOURS["chance"], "dash": "dash", "width": 1.5}))
    fig.update_layout(showlegend=True)
    _layout(fig, title, "", label)
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
        return _empty(title, "No metric produced a score.")
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
    _layout(fig, title, "risk (0 = private, 1 = no privacy)", "", height=max(300, 110 + 26 * len(metrics) * max(1, len(tables))))
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


def narrowing(steps: Sequence[tuple[str, int]], *, title: str = "How knowing more narrows the crowd") -> Figure:
    """Number of real records still matching after each extra attribute an attacker learns."""
    if not steps:
        return _empty(title, "No steps to show.")
    labels = [s[0] for s in steps]
    counts = [int(s[1]) for s in steps]
    colours = [OKABE_ITO["vermillion"] if c <= 1 else ROLE_COLOURS["real"] for c in counts]
    fig = go.Figure(go.Bar(x=labels, y=counts, marker={"color": colours}, text=[f"{c:,}" for c in counts],
                           textposition="outside"))
    _layout(fig, title, "what the attacker knows (cumulative)", "real people matching", height=400)
    fig.update_yaxes(type="log")
    caption = ("Each bar counts the real people who match everything the attacker knows so far; when it reaches one, "
               "that person is singled out.")
    alt = "Bar chart, log scale: " + "; ".join(f"{l}: {c:,} people" for l, c in zip(labels, counts)) + "."
    return Figure(fig, caption, alt, title)


def narrowing_steps(real, columns: Sequence[str], row: int | None = None) -> tuple[int, list[tuple[str, int]]]:
    """How many real records match a person as an attacker learns ``columns`` one after the other.

    When ``row`` is None, picks the first record that becomes unique at the latest possible step (so the
    example needs several ordinary facts, not one exotic value). Returns the row and the steps
    (label, number of matching real records), starting with everyone.
    """
    import pandas as pd  # local: figures otherwise needs only numpy and plotly

    frame = real[list(columns)].astype(str)
    codes = np.zeros(len(frame), dtype=np.int64)
    counts_per_step = []
    for col in columns:
        codes = pd.factorize(pd.Series(codes).astype(str) + "|" + frame[col].to_numpy())[0]
        counts_per_step.append(np.bincount(codes)[codes])
    if row is None:
        unique_at = np.full(len(frame), len(columns) + 1)
        for step, counts in reversed(list(enumerate(counts_per_step))):
            unique_at[counts == 1] = step
        finite = unique_at[unique_at <= len(columns) - 1]
        target = int(finite.max()) if len(finite) else len(columns) - 1
        candidates = np.flatnonzero(unique_at == target)
        row = int(candidates[0]) if len(candidates) else 0
    steps = [("nothing (everyone)", len(frame))]
    for col, counts in zip(columns, counts_per_step):
        steps.append((f"+ {col} = {real[col].iloc[row]}", int(counts[row])))
    return row, steps


def rare_values_copied(real, synthetic, columns: Sequence[str], max_count: int = 1):
    """Values held by at most ``max_count`` real people, per column, and whether the synthetic table has them.

    Returns a DataFrame with ``column``, ``value``, ``real people``, ``synthetic rows``, ``real row``
    (the first real record holding the value).
    """
    import pandas as pd

    rows = []
    for col in columns:
        counts = real[col].value_counts(dropna=False)
        rare = counts[counts <= max_count]
        if rare.empty:
            continue
        syn_counts = synthetic[col].value_counts(dropna=False)
        for value, n in rare.items():
            where = np.flatnonzero((real[col] == value).to_numpy())
            rows.append({"column": col, "value": value, "real people": int(n),
                         "synthetic rows": int(syn_counts.get(value, 0)),
                         "real row": int(where[0]) if len(where) else -1})
    return pd.DataFrame(rows, columns=["column", "value", "real people", "synthetic rows", "real row"])


def rare_values(
    rows: Sequence[Mapping[str, Any]],
    *,
    title: str = "Rare real values that reappear in the synthetic data",
) -> Figure:
    """Per column: values rare in the real table, and how many of those the synthetic table copies.

    Parameters
    ----------
    rows : sequence of mapping
        Each with ``column``, ``rare`` (number of values held by very few real people) and ``copied``
        (how many of those appear in the synthetic table).
    """
    rows = [r for r in rows if r.get("rare", 0) > 0]
    if not rows:
        return _empty(title, "No rare values in the real table.")
    cols = [r["column"] for r in rows]
    fig = go.Figure()
    fig.add_trace(go.Bar(x=cols, y=[r["rare"] for r in rows], name="rare in the real data",
                         marker={"color": ROLE_COLOURS["real"]}))
    fig.add_trace(go.Bar(x=cols, y=[r["copied"] for r in rows], name="…and present in the synthetic data",
                         marker={"color": ROLE_COLOURS["synthetic"], "pattern": {"shape": "/"}}))
    _layout(fig, title, "column", "number of distinct values")
    fig.update_layout(barmode="group")
    caption = ("Values that very few real people have are fingerprints: each orange bar counts such fingerprints "
               "that the synthetic table hands to an attacker.")
    alt = "Grouped bar chart. " + "; ".join(
        f"{r['column']}: {r['rare']} rare values, {r['copied']} copied" for r in rows) + "."
    return Figure(fig, caption, alt, title)


def flag_counts(flags) -> Figure:
    """How many metrics flag each real record (``flags``: DataFrame, records × metrics, booleans)."""
    title = "How many metrics flag each real person"
    if flags is None or flags.shape[1] == 0 or len(flags) == 0:
        return _empty(title, "No metric gives per-person flags.")
    per_record = flags.sum(axis=1).to_numpy()
    m = flags.shape[1]
    counts = np.bincount(per_record, minlength=m + 1)
    colours = [ROLE_COLOURS["real"] if k == 0 else OKABE_ITO["vermillion"] if k == m else OKABE_ITO["orange"]
               for k in range(m + 1)]
    fig = go.Figure(go.Bar(x=list(range(m + 1)), y=counts, marker={"color": colours},
                           text=[f"{c:,}" for c in counts], textposition="outside",
                           hovertemplate="flagged by %{x} metric(s): %{y:,} people<extra></extra>"))
    _layout(fig, title, f"number of metrics (of {m}) that flag the person", "real people")
    some = int(np.sum((per_record > 0) & (per_record < m)))
    caption = ("People in the middle bars are flagged by some metrics and not by others: the metrics disagree about "
               "them, so one score alone would give a partial picture.")
    alt = (f"Bar chart over {len(flags):,} real people: {counts[0]:,} flagged by no metric, {counts[m]:,} by all {m}, "
           f"{some:,} by some but not all.")
    return Figure(fig, caption, alt, title)


def flag_overlap(flags) -> Figure:
    """Heatmap: records flagged by the row metric but not by the column metric."""
    title = "Where metrics disagree: flagged by one, not by the other"
    if flags is None or flags.shape[1] < 2:
        return _empty(title, "At least two metrics with per-person flags are needed.")
    f = flags.to_numpy(dtype=bool)
    names = [str(c) for c in flags.columns]
    short = names
    matrix = (f[:, :, None] & ~f[:, None, :]).sum(axis=0)
    fig = go.Figure(go.Heatmap(
        z=matrix, x=short, y=short, text=matrix, texttemplate="%{text}",
        colorscale=[[0.0, "#FFFFFF"], [1.0, OKABE_ITO["blue"]]], showscale=True,
        hovertemplate="flagged by %{y}, not by %{x}: %{z:,} people<extra></extra>",
        colorbar={"title": {"text": "people"}},
    ))
    _layout(fig, title, "…but not flagged by this metric", "flagged by this metric…",
            height=max(380, 200 + 36 * len(names)))
    fig.update_yaxes(autorange="reversed", showgrid=False)
    fig.update_xaxes(showgrid=False, tickangle=-45)
    off = matrix + matrix.T
    np.fill_diagonal(off, -1)
    i, j = np.unravel_index(int(np.argmax(off)), off.shape)
    caption = ("Each cell counts real people the row's metric flags while the column's metric does not; dark cells "
               "mark pairs of metrics that see different risks.")
    alt = (f"Heatmap of {len(names)} metrics. The largest disagreement is between {names[i]} and {names[j]}: "
           f"{matrix[i, j]:,} people flagged only by the first and {matrix[j, i]:,} only by the second.")
    return Figure(fig, caption, alt, title)


# --------------------------------------------------------------------------------------------------
# builders that read a Report
# --------------------------------------------------------------------------------------------------
def _has_pass(report, space: str, query: str, reference: str) -> bool:
    shared = getattr(report, "shared", None)
    return shared is not None and (space, query, reference) in getattr(shared, "passes", [])


def _neighbours(report, space: str, query: str, reference: str):
    """The shared neighbour pass (computed on first use, then cached for every later figure)."""
    return report.shared.neighbours(space, query, reference)


def distance_comparison(report, space: str = "E", *, name: str | None = None) -> Figure:
    """Distances from each real record to its nearest synthetic record, against its nearest other real
    record (and its nearest holdout record), from the report's shared neighbour passes."""
    space_word = {"phi": "the FAMD projection", "E_idscore": "IdScore's entropy-weighted space"}.get(
        space, "the encoded space E")
    title = f"{name + ': ' if name else ''}how close synthetic records come to real people"
    if report is None or getattr(report, "shared", None) is None:
        return _empty(title, "This report carries no neighbour data.")
    groups = {
        "real → nearest synthetic": _neighbours(report, space, "real", "synthetic").d1,
        "real → nearest other real": _neighbours(report, space, "real", "real").d1,
    }
    colours = {"real → nearest synthetic": ROLE_COLOURS["synthetic"],
               "real → nearest other real": ROLE_COLOURS["real→real"]}
    if report.data is not None and report.data.holdout is not None:
        groups["real → nearest holdout"] = _neighbours(report, space, "real", "holdout").d1
        colours["real → nearest holdout"] = ROLE_COLOURS["holdout"]
    syn = _finite(groups["real → nearest synthetic"])
    rr = _finite(groups["real → nearest other real"])
    zero = int(np.sum(syn == 0))
    caption = ("If the synthetic line sits left of the other lines, synthetic records are closer to real people than "
               "real people are to each other: a sign of copying.")
    alt = (f"Step histograms of distances in {space_word}. Median distance from a real record to its nearest synthetic "
           f"record {np.median(syn):.3g}, to its nearest other real record {np.median(rr):.3g}"
           + (f", to its nearest holdout record {np.median(_finite(groups['real → nearest holdout'])):.3g}"
              if "real → nearest holdout" in groups else "")
           + f"; {zero:,} of {len(syn):,} real records have a synthetic record at distance 0.")
    return distance_histogram(groups, title=title, x_title=f"distance in {space_word}", caption=caption, alt=alt,
                              colours=colours)


def normalised_distance_histogram(report, *, thresholds: Mapping[str, float] | None = None,
                                  name: str | None = None) -> Figure:
    """The review's normalised distance n(y) = (d_YZ − d_min)/(d_max − d_min) with CVP/DVP thresholds."""
    title = f"{name + ': ' if name else ''}normalised distance of each real record to the synthetic data"
    if report is None or getattr(report, "shared", None) is None:
        return _empty(title, "This report carries no neighbour data.")
    # The same n(y) as CVP, DVP and NSND (PairExtremes.normalise), not a second rule for the figure.
    n_y = report.shared.extremes("E", "real", "synthetic").normalise(_neighbours(report, "E", "real", "synthetic").d1)
    groups = {"real → synthetic": n_y}
    colours = {"real → synthetic": ROLE_COLOURS["synthetic"]}
    if report.data is not None and report.data.holdout is not None:
        to_holdout = _neighbours(report, "E", "real", "holdout").d1
        groups["real → holdout (fresh sample)"] = report.shared.extremes("E", "real", "holdout").normalise(to_holdout)
        colours["real → holdout (fresh sample)"] = ROLE_COLOURS["holdout"]
    thresholds = dict(thresholds or {"CVP threshold 0.2": 0.2, "DVP threshold 0.8": 0.8})
    v = _finite(n_y)
    caption = ("Records left of the 0.2 line have a synthetic look-alike unusually close (CVP counts them); records "
               "right of the 0.8 line have none nearby (DVP counts them).")
    alt = (f"Histogram of normalised distances for {len(v):,} real records: {np.mean(v <= 0.2):.1%} at or below 0.2, "
           f"{np.mean(v >= 0.8):.1%} at or above 0.8, median {np.median(v):.3f}.")
    fig = distance_histogram(groups, title=title, x_title="normalised distance n(y) (0 = closest pair, 1 = farthest)",
                             caption=caption, alt=alt, markers=thresholds, colours=colours)
    return fig


def famd_map(report, *, max_points: int = MAX_POINTS, max_links: int = MAX_LINKS, seed: int = 0) -> Figure:
    """Real and synthetic records on the first two FAMD axes, with links from a sample of real records to
    their nearest synthetic record (nearest in the full projection Φk, as DCR and NNDR see it)."""
    title = "Map of real and synthetic records (first two FAMD axes)"
    if report is None or getattr(report, "shared", None) is None or report.data is None:
        return _empty(title, "This report carries no prepared data.")
    try:
        phi = report.shared.space("phi")
    except NotApplicable as exc:  # CRP, HitR and the attacks run without it; the map cannot
        return _empty(title, f"No FAMD map: {exc}")
    if phi.components.shape[1] == 0:
        return _empty(title, "No FAMD map: every analysed column is constant in the real table, so there is no "
                             "axis to draw.")
    real = report.shared.encoded("phi", "real")
    syn = report.shared.encoded("phi", "synthetic")
    if _has_pass(report, "phi", "real", "synthetic"):
        nb = report.shared.neighbours("phi", "real", "synthetic")
        link_rows = _sample(len(real), max_links, seed + 1)
        link_to = nb.i1[link_rows]
        link_d = nb.d1[link_rows]
    else:
        from privcore.engine.neighbors import nearest_two

        link_rows = _sample(len(real), max_links, seed + 1)
        nb, _ = nearest_two(real[link_rows], syn)
        link_to, link_d = nb.i1, nb.d1

    def xy(coords: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = coords[:, 0]
        y = coords[:, 1] if coords.shape[1] > 1 else np.zeros(len(coords))
        return x, y

    total = float(phi.eigenvalues.sum() / max(phi.explained_inertia, 1e-300))
    share = [float(e / total) if total > 0 else 0.0 for e in phi.eigenvalues[:2]]
    fig = go.Figure()
    ok = link_to >= 0
    lx, ly = [], []
    rx, ry = xy(real)
    sx, sy = xy(syn)
    for r, s in zip(link_rows[ok], link_to[ok]):
        lx += [rx[r], sx[s], None]
        ly += [ry[r], sy[s], None]
    fig.add_trace(go.Scatter(x=lx, y=ly, mode="lines", name=f"link to nearest synthetic ({int(ok.sum())} sampled)",
                             line={"color": ROLE_COLOURS["link"], "width": 1}, opacity=0.35, hoverinfo="skip"))
    ri = _sample(len(real), max_points // 2, seed)
    si = _sample(len(syn), max_points // 2, seed + 2)
    fig.add_trace(go.Scattergl(x=rx[ri], y=ry[ri], mode="markers", name=f"real ({len(ri):,} of {len(real):,})",
                               marker={"color": ROLE_COLOURS["real"], "symbol": "circle", "size": 6, "opacity": 0.6},
                               customdata=ri, hovertemplate="real row %{customdata}<extra></extra>"))
    fig.add_trace(go.Scattergl(x=sx[si], y=sy[si], mode="markers",
                               name=f"synthetic ({len(si):,} of {len(syn):,})",
                               marker={"color": ROLE_COLOURS["synthetic"], "symbol": "x", "size": 6, "opacity": 0.7},
                               customdata=si, hovertemplate="synthetic row %{customdata}<extra></extra>"))
    _layout(fig, title, f"FAMD axis 1 ({share[0]:.0%} of variation)" if share else "FAMD axis 1",
            f"FAMD axis 2 ({share[1]:.0%} of variation)" if len(share) > 1 else "(one axis only)", height=480)
    d = _finite(link_d)
    caption = ("Each dot is a person (blue circles real, orange crosses synthetic) placed so that similar records sit "
               "close together; short black links mean a synthetic record almost duplicates a real one.")
    alt = (f"Scatter plot of {len(ri):,} real and {len(si):,} synthetic records on the first two FAMD axes "
           f"(together {sum(share):.0%} of the variation). {int(ok.sum())} sampled real records are linked to their "
           f"nearest synthetic record; median link length {np.median(d) if len(d) else float('nan'):.3g}, "
           f"{int(np.sum(d == 0))} links of length 0 (exact copies in the projection).")
    return Figure(fig, caption, alt, title)


# --------------------------------------------------------------------------------------------------
# figures of each kind of evidence
# --------------------------------------------------------------------------------------------------
def attack_rates(details: AttackRates) -> dict[str, tuple[float, float, float]]:
    """Main, baseline and control success rates of an attack as (value, low, high)."""
    out = {}
    for label in ("main", "baseline", "control"):
        rate = getattr(details, label)
        if rate is not None and math.isfinite(rate.value):
            out[label] = (rate.value, *rate.interval)
    return out


def _attack_figures(report, result, name: str) -> list[Figure]:
    risk = None
    if result.risk is not None and result.interval is not None:
        risk = (result.risk, result.interval[0], result.interval[1])
    return [attack_intervals(attack_rates(result.details), name=name, risk=risk)]


#: Rows of the membership statistics figure: label and the statistic's value and interval.
_MEMBERSHIP_STATS = (
    ("ROC AUC (0.5 = chance)", lambda d: (d.auc, d.auc_interval)),
    ("advantage max(TPR − FPR)", lambda d: (d.advantage, d.advantage_interval)),
    ("TPR at FPR 1%", lambda d: (d.tpr_at.get("0.01"), d.tpr_at_interval.get("0.01"))),
    ("TPR at FPR 10%", lambda d: (d.tpr_at.get("0.1"), d.tpr_at_interval.get("0.1"))),
)


def _membership_figures(report, result, name: str) -> list[Figure]:
    details: MembershipScores = result.details
    figs = [roc_curves({"attack": (np.asarray(details.roc_fpr, dtype=float), np.asarray(details.roc_tpr, dtype=float))},
                       name=name, aucs={"attack": float(details.auc)}),
            _membership_scores(details, name)]
    if details.auc_interval is not None or details.advantage_interval is not None:
        rows = {}
        for label, read in _MEMBERSHIP_STATS:
            value, interval = read(details)
            if value is not None:
                rows[label] = (float(value), *(interval if interval is not None else (None, None)))
        figs.append(attack_intervals(
            rows, name=name, title=f"{name}: attack statistics with 95% bootstrap intervals", x_title="value",
            caption="An AUC near 0.5 and an advantage near 0 mean the attacker does no better than a coin flip; "
                    "TPR at FPR 1% is the share of training members caught while wrongly accusing only 1 in 100 "
                    "non-members."))
    return figs


def _epsilon_figures(report, result, name: str) -> list[Figure]:
    details: EpsilonSeries = result.details
    series = {details.label: {float(e): float(v) for e, v in zip(details.epsilons, details.values)}}
    for term, label in details.shown_terms.items():
        series[label] = {float(e): float(v) for e, v in zip(details.epsilons, details.terms[term])}
    return [epsilon_curve(series, name=name, threshold=float(details.threshold))]


def _classifier_figures(report, result, name: str) -> list[Figure]:
    details: ClassifierScores = result.details
    return [fold_scores([float(x) for x in details.scores], name=name, label=details.score_label, chance=0.5)]


def _proxy_figures(report, result, name: str) -> list[Figure]:
    return [_proxy_histogram(result.details, result.id, name)]


def _ims_figures(report, result, name: str) -> list[Figure]:
    return [_ims_bars(result.details, name)]


def _battery_figures(report, result, name: str) -> list[Figure]:
    from privcore.report.membership_figures import battery_figures  # it builds on this module

    return battery_figures(report, result, name)


#: The figures of each kind of evidence (looked up along the details type's MRO).
DETAIL_FIGURES = {
    AttackRates: _attack_figures,
    MembershipScores: _membership_figures,
    MembershipBattery: _battery_figures,
    EpsilonSeries: _epsilon_figures,
    ClassifierScores: _classifier_figures,
    ProxyTest: _proxy_figures,
    IdenticalShares: _ims_figures,
}


def _detail_figures(report, result, name: str) -> list[Figure]:
    for kind in type(result.details).__mro__:
        if kind in DETAIL_FIGURES:
            return DETAIL_FIGURES[kind](report, result, name)
    return []


def _thresholds(report) -> dict[str, float]:
    """CVP's and DVP's thresholds as this report ran them (their defaults when they did not run)."""
    marks = {}
    for metric_id, label in (("cvp", "CVP"), ("dvp", "DVP")):
        ran = report[metric_id].params.get("threshold") if metric_id in report else None
        t = ran or registry.get(metric_id).default_params["threshold"]
        marks[f"{label} threshold {float(t):g}"] = float(t)
    return marks


# --------------------------------------------------------------------------------------------------
# the dispatcher
# --------------------------------------------------------------------------------------------------
def metric_figures(report, metric_id: str) -> list[Figure]:
    """The explanatory figures of one metric, most telling first.

    Chosen by declaration, never by guessing: first the figures of the metric's details type
    (:data:`DETAIL_FIGURES`: attack rates, ROC curves, per-ε curves, fold scores...), then the figures the
    metric declares in the registry from the report's shared neighbour passes (``MetricInfo.figures``:
    distances in its ``space``, the normalised distance, computed on first use when the metric itself
    did not need them), the distribution of its per-record risks (unless its details type shows them
    itself), and the FAMD map last.
    """
    result = report[metric_id]
    declared = registry.get(metric_id).figures if metric_id in registry.metric_ids() else ()
    name = metric_name(metric_id)
    if not result.applicable:
        return [_empty(name, f"{name} is not applicable: {result.reason or 'no reason given'}")]
    figs: list[Figure] = _detail_figures(report, result, name) if result.details is not None else []
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
            figs.append(_empty(name, f"{name} produced no data to draw."))
    return figs


def _membership_scores(details: MembershipScores, name: str) -> Figure:
    members = _finite(details.member_scores)
    non = _finite(details.nonmember_scores)
    groups = {"members (training records)": members, "non-members (holdout)": non}
    q99 = float(np.quantile(non, 0.99)) if len(non) else None
    caption = ("The attacker scores each person; if training records (members) score higher than people who were "
               "not in the training data, the attacker can tell who was in it.")
    alt = (f"Histograms of {name} attack scores: {len(members):,} members (median {np.median(members):.3g}) and "
           f"{len(non):,} non-members (median {np.median(non):.3g})"
           + (f"; {np.mean(members > q99):.1%} of members score above the level only 1% of non-members exceed."
              if q99 is not None else "."))
    return distance_histogram(groups, title=f"{name}: attack scores of members and non-members",
                              x_title="attack score (higher = judged more likely a member)", caption=caption, alt=alt,
                              markers={"1% of non-members above": q99} if q99 is not None else None,
                              colours={"members (training records)": ROLE_COLOURS["real"],
                                       "non-members (holdout)": ROLE_COLOURS["holdout"]})


def _ims_bars(details: IdenticalShares, name: str) -> Figure:
    title = f"{name}: identical copies of real records"
    syn, hold = details.ims_synthetic, details.ims_holdout
    fig = go.Figure(go.Bar(x=["synthetic rows", "holdout rows (fresh real people)"], y=[syn, hold],
                           marker={"color": [ROLE_COLOURS["synthetic"], ROLE_COLOURS["holdout"]],
                                   "pattern": {"shape": ["", "/"]}},
                           text=[_pct(float(syn)), _pct(float(hold))], textposition="outside"))
    _layout(fig, title, "", "share identical to a real training record")
    fig.update_yaxes(tickformat=".0%", range=[0, max(0.05, 1.25 * max(float(syn), float(hold)))])
    caption = ("Some fresh real people match a training record exactly by coincidence; synthetic rows should not "
               "match more often than that.")
    alt = (f"Bar chart: {float(syn):.1%} of synthetic rows and {float(hold):.1%} of holdout rows are identical to a "
           "real training record.")
    return Figure(fig, caption, alt, title)


def _proxy_histogram(details: ProxyTest, metric_id: str, name: str) -> Figure:
    """DCR/NNDR holdout tests: synthetic→real against holdout→real, with both percentiles."""
    q = float(details.percentile)
    groups = {"synthetic → real": details.synthetic_values, "holdout → real": details.holdout_values}
    x_title = ("nearest / second-nearest distance ratio" if metric_id == "nndr_test"
               else "distance to the closest real record (E)")
    marks = {f"{q:g}th percentile, synthetic": details.p_synthetic,
             f"{q:g}th percentile, holdout": details.p_holdout}
    caption = ("The test passes when synthetic records are not markedly closer to real ones than fresh real people "
               "are; passing does not prove privacy (a copied rare value can hide in the tail).")
    alt = (f"Histograms of {x_title} for synthetic→real and holdout→real rows; {q:g}th percentiles "
           + ", ".join(f"{k.split(', ')[1]} {_fmt(v)}" for k, v in marks.items())
           + f"; the test {'passes' if details.passes else 'fails'}."
           + (f" {details.closer_to_real_share:.1%} of synthetic rows are closer to the training table than to "
              f"the holdout (about {details.closer_to_real_expected:.0%} expected for a fresh sample)."
              if details.closer_to_real_share is not None and details.closer_to_real_expected is not None else ""))
    return distance_histogram(groups, title=f"{name}: synthetic versus fresh real records", x_title=x_title,
                              caption=caption, alt=alt, markers=marks,
                              colours={"synthetic → real": ROLE_COLOURS["synthetic"],
                                       "holdout → real": ROLE_COLOURS["holdout"]})


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
    _layout(fig, f"{name}: score", "risk", "", height=220)
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
