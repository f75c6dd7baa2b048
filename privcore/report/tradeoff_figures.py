"""The figures of the Privacy and utility view: the trade-off scatter and the fidelity of one table.

Conventions of :mod:`privcore.report.figure_base`. This module imports no Streamlit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from privcore.base import OKABE_ITO, ROLE_COLOURS
from privcore.evaluation import (
    CAUTION,
    DO_NOT_RELEASE,
    NO_UTILITY,
    RELEASE,
    VERDICT_STYLE,
    TradeoffPoint,
    best_tradeoff,
    tradeoff_sentence,
)
from privcore.metrics import ColumnShapes, PairTrends, bin_column, column_kinds, shares
from privcore.report.figure_base import Figure, apply_layout, empty_figure, wrapped
from privcore.report.utility_figures import pair_trends_figure

__all__ = ["AUC_AXIS", "PRIVACY_AXIS", "PROXY_AXIS", "UTILITY_AXIS", "VERDICT_SYMBOLS", "tradeoff_figure", "worst_columns_figure",
           "fidelity_figures"]

#: The x axis where every table's strongest evidence is a membership attack: its AUC, the number the answer and the
#: attack's card quote (one number per finding).
AUC_AXIS = "strongest attack's AUC: 0.5 = a coin flip (no leak), 1 = it tells every member"
#: The x axis where some table's strongest evidence is another attack (reconstruction, Anonymeter's): its excess.
PRIVACY_AXIS = "strongest privacy evidence: the attacker's advantage over a fresh sample (0 = no leak)"
#: The x axis when no attack ran (no holdout, or none chosen): a similarity proxy against other real people, the
#: holdout or, without one, half of the real table against the other half; never "an attacker's advantage".
PROXY_AXIS = ("strongest privacy evidence: how much closer the synthetic rows come to the real people than other real "
              "people do (a proxy: no attack ran; 0 = no closer)")
#: The y axis: what the utility is.
UTILITY_AXIS = "utility kept: share of what a fresh sample keeps (1 = all)"
#: The y axis without a holdout: the raw scores.
SCORE_AXIS = "utility score (1 = as the real table; no holdout, so no fresh sample to compare with)"
#: A marker shape per verdict, so that the verdict never rests on colour alone.
VERDICT_SYMBOLS = {RELEASE: "circle", CAUTION: "diamond", DO_NOT_RELEASE: "x"}
#: Characters per line of an axis title (11 px: one line fits a 390-pixel screen).
AXIS_CHARACTERS = 50
#: Columns drawn by :func:`worst_columns_figure`.
WORST_COLUMNS = 3


def _label(point: TradeoffPoint) -> str:
    return point.name if len(point.name) <= 18 else point.name[:17] + "…"


def tradeoff_figure(points: Sequence[TradeoffPoint], title: str = "Privacy and utility of each synthetic table") \
        -> Figure:
    """Every synthetic table as one point: privacy evidence across, utility kept up.

    Parameters
    ----------
    points : sequence of TradeoffPoint
        One per synthetic table (:func:`privcore.evaluation.tradeoff.tradeoff_points`).
    title : str
        The figure's title.

    Returns
    -------
    Figure
        Its caption names the best trade-off (:func:`privcore.evaluation.tradeoff.tradeoff_sentence`); an empty
        figure that says how to get utility measures when none ran, or which privacy metrics to run when none did.
    """
    if not any(p.utility_score is not None for p in points):
        return empty_figure(title, NO_UTILITY)
    drawn = [p for p in points if p.privacy is not None and p.utility_score is not None]
    if not drawn:
        return empty_figure(title, "No privacy metric ran, so there is nothing to set against the utility: choose "
                                   "the attacks (the quick preset includes them) and run the evaluation again.")
    relative = all(p.utility is not None for p in drawn)
    value = (lambda p: p.utility) if relative else (lambda p: p.utility_score)
    # Attacks are placed by their AUC, as the answer and the cards quote them, when every table has one.
    on_auc = all(p.auc is not None for p in drawn)
    if on_auc:
        x, low, high, chance = (lambda p: p.auc), (lambda p: p.auc_low), (lambda p: p.auc_high), 0.5
    else:
        x, low, high, chance = (lambda p: p.privacy), (lambda p: p.privacy_low), (lambda p: p.privacy_high), 0.0
    lows = [low(p) if low(p) is not None else x(p) for p in drawn]
    highs = [high(p) if high(p) is not None else x(p) for p in drawn]
    left, right = min(chance, *lows), max(chance + 0.1, *highs)
    middle = (left + right) / 2
    fig = go.Figure()
    for level in (RELEASE, CAUTION, DO_NOT_RELEASE):
        group = [p for p in drawn if p.level == level]
        if not group:
            continue
        word, icon, colour, _ = VERDICT_STYLE[level]
        hover = [f"<b>{p.name}</b><br>verdict: {icon} {word}<br>{p.privacy_name}: " + _evidence_text(p, on_auc)
                 + f"<br>utility kept {value(p):.2f}" + (" · private because it keeps little" if p.keeps_little else "")
                 for p in group]
        error = None
        if any(low(p) is not None for p in group):
            error = {"type": "data", "symmetric": False, "color": colour, "thickness": 1.5,
                     "array": [0.0 if high(p) is None else max(0.0, high(p) - x(p)) for p in group],
                     "arrayminus": [0.0 if low(p) is None else max(0.0, x(p) - low(p)) for p in group]}
        fig.add_trace(go.Scatter(
            x=[x(p) for p in group], y=[value(p) for p in group], mode="markers+text", name=f"{icon} {word}",
            # Labels lean inwards, so that a name near either edge stays inside the figure on a phone.
            text=[_label(p) for p in group], customdata=[p.name for p in group], cliponaxis=False, error_x=error,
            textposition=["top left" if x(p) > middle else "top right" for p in group],
            marker={"color": colour, "symbol": VERDICT_SYMBOLS[level], "size": 13,
                    "line": {"color": OKABE_ITO["black"], "width": 1}},
            hovertext=hover, hovertemplate="%{hovertext}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[chance], y=[1.0], mode="markers", name="ideal: leaks nothing, keeps all",
                             marker={"symbol": "star", "size": 16, "color": "rgba(0,0,0,0)",
                                     "line": {"color": OKABE_ITO["black"], "width": 1.5}},
                             hovertemplate="ideal corner: no advantage for an attacker, all utility kept"
                                           "<extra></extra>"))
    # Axis titles wrapped so that they fit a 390-pixel phone screen.
    attacked = any(p.decisive for p in drawn)
    axis = AUC_AXIS if on_auc else PRIVACY_AXIS if attacked else PROXY_AXIS
    apply_layout(fig, title, wrapped(axis, AXIS_CHARACTERS),
                 wrapped(UTILITY_AXIS if relative else SCORE_AXIS, 2 * AXIS_CHARACTERS), height=440)
    pad = 0.08 * (right - left)
    fig.update_xaxes(range=[left - pad, right + pad], zeroline=not on_auc, zerolinecolor="#bbbbbb")
    if on_auc:
        fig.add_vline(x=0.5, line={"color": "#bbbbbb", "width": 1})
    top = max(1.0, *(value(p) for p in drawn))
    fig.update_yaxes(range=[min(0.0, *(value(p) for p in drawn)) - 0.05, top + 0.12])
    missing = [p.name for p in points if p not in drawn]
    best = best_tradeoff(points)
    alt = ("Scatter of " + "; ".join(f"{p.name}: {p.word}, privacy evidence "
                                      + (f"AUC {p.auc:.2f}" if on_auc else f"{p.privacy:+.3f}")
                                      + f", utility {value(p):.2f}" for p in drawn)
           + (f"; not drawn (no privacy or utility measure): {', '.join(missing)}" if missing else "")
           + (f". Best trade-off: {best.name}." if best is not None else ". No table may go out."))
    return Figure(fig, tradeoff_sentence(points), alt, title)


def _evidence_text(point: TradeoffPoint, on_auc: bool) -> str:
    """The hover's privacy line: the attack's AUC with its interval, or the evidence's excess."""
    if on_auc:
        text = f"AUC {point.auc:.2f} (0.5 = a coin flip)"
        if point.auc_low is not None and point.auc_high is not None:
            text += f", 95 % interval {point.auc_low:.2f} to {point.auc_high:.2f}"
        return text
    text = f"{'advantage' if point.decisive else 'excess'} {point.privacy:+.3f}"
    if point.privacy_low is not None:
        text += (f" (95 % interval {point.privacy_low:+.3f} to "
                 + ("…" if point.privacy_high is None else f"{point.privacy_high:+.3f}") + ")")
    return text + ("" if point.decisive else " (a proxy: no attack ran)")


def worst_columns_figure(report, name: str, columns: int = WORST_COLUMNS) -> Figure | None:
    """The distributions of the columns whose shape moved most, real against synthetic (and the fresh sample).

    Parameters
    ----------
    report : privcore.evaluation.outcome.Report
        An evaluation in which ``utility_shapes`` ran, with its prepared tables (``report.data``).
    name : str
        The synthetic table's name.
    columns : int
        How many of the worst columns to draw.

    Returns
    -------
    Figure or None
        None when column shapes did not run or the tables are not kept.
    """
    result = report.get("utility_shapes") if hasattr(report, "get") else None
    data = getattr(report, "data", None)
    if result is None or not result.applicable or not isinstance(result.details, ColumnShapes) or data is None:
        return None
    d: ColumnShapes = result.details
    order = [int(i) for i in np.argsort(d.tvd)[::-1][:columns]]
    kinds = column_kinds(data.schema)
    worst = [d.columns[i] for i in order if d.columns[i] in kinds]
    if not worst:
        return None
    title = f"{name}: the columns whose shape moved most"
    fig = make_subplots(rows=len(worst), cols=1, vertical_spacing=0.16,
                        subplot_titles=[f"{c} (total variation distance {d.tvd[d.columns.index(c)]:.2f})"
                                        for c in worst])
    roles = [("real", data.real, ROLE_COLOURS["real"], ""),
             ("synthetic", data.synthetic, ROLE_COLOURS["synthetic"], "/")]
    if data.holdout is not None:
        roles.append(("fresh sample (holdout)", data.holdout, ROLE_COLOURS["holdout"], "."))
    for row, column in enumerate(worst, start=1):
        binned = {label: bin_column(data.real[column], table[column], kinds[column]) for label, table, _, _ in roles}
        reference = binned["real"]
        keep = np.flatnonzero(np.sum([shares(b.other, b.n_bins) + shares(b.real, b.n_bins)
                                      for b in binned.values()], axis=0) > 0)
        labels = [wrapped(reference.labels[k], 14) for k in keep]
        for label, _, colour, pattern in roles:
            b = binned[label]
            fig.add_trace(go.Bar(x=labels, y=shares(b.other, b.n_bins)[keep], name=label, legendgroup=label,
                                 showlegend=row == 1, marker={"color": colour, "pattern": {"shape": pattern}},
                                 hovertemplate=f"{column} %{{x}}: %{{y:.1%}} of the {label} rows<extra></extra>"),
                          row=row, col=1)
    apply_layout(fig, title, "", "share of rows", height=110 + 260 * len(worst))
    fig.update_layout(barmode="group")
    fig.update_annotations(font={"size": 12})
    fig.update_xaxes(title_text="")
    fig.update_yaxes(title_text="share of rows", tickformat=".0%")
    caption = ("Each panel compares how often each value (or range of values) of one column occurs in the real table, "
               "the synthetic table and a fresh sample of real people; the columns shown are the ones the synthetic "
               "table reproduces worst.")
    alt = (f"Grouped bars of the binned shares of {', '.join(worst)} in the real and the synthetic table"
           + (" and the holdout" if data.holdout is not None else "") + "; total variation distances "
           + ", ".join(f"{c} {d.tvd[d.columns.index(c)]:.3f}" for c in worst) + ".")
    return Figure(fig, caption, alt, title)


def fidelity_figures(report, name: str) -> list[Figure]:
    """The per-column and per-pair fidelity of one synthetic table.

    The worst columns' distributions and the association-difference heatmap, those of the two whose measures ran (empty
    when neither did).

    Notes
    -----
    - :func:`tradeoff_figure`: every synthetic table as one point, the strongest privacy evidence across
      (:mod:`privcore.evaluation.tradeoff`) against the utility kept relative to a fresh sample, coloured and shaped by
      the verdict (word in the legend and the hover, never colour alone), with the ideal corner marked;
    - :func:`worst_columns_figure`: the real, synthetic and fresh-sample distributions of the columns whose shape moved
      most, on the bins the column-shapes measure uses (:mod:`privcore.metrics.utility._base`);
    - :func:`fidelity_figures`: those and the association-difference heatmap of
      :func:`privcore.report.utility_figures.pair_trends_figure`.
    """
    figures = []
    columns = worst_columns_figure(report, name)
    if columns is not None:
        figures.append(columns)
    pairs = report.get("utility_pairs") if hasattr(report, "get") else None
    if pairs is not None and pairs.applicable and isinstance(pairs.details, PairTrends):
        figures += pair_trends_figure(report, pairs, name)
    return figures
