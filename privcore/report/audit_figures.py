"""The figures of the generator audit, in the conventions of :mod:`privcore.report.figure_base`.

Each target's attack AUC with its interval (:mod:`privcore.audit.targeted`), and for the shared design
(:mod:`privcore.audit.shared`) each record's AUC against its distance to the nearest other real record (the "DCR
delusion" picture). The two kinds of target differ by marker as well as colour.
"""

from __future__ import annotations

import math
from typing import Any

import plotly.graph_objects as go

from privcore.base import OKABE_ITO, ROLE_COLOURS
from privcore.report.figure_base import MAX_POINTS, Figure, apply_layout, empty_figure, sample_indices

__all__ = ["audit_figure", "shared_audit_figure", "TARGET_STYLES", "RECORD_STYLES", "THRESHOLD"]

#: How each kind of target is drawn: legend label, colour and marker symbol.
TARGET_STYLES: dict[str, dict[str, str]] = {
    "vulnerable": {"label": "most vulnerable targets", "color": OKABE_ITO["vermillion"], "symbol": "diamond"},
    "random": {"label": "random targets", "color": OKABE_ITO["blue"], "symbol": "circle"},
}
#: The AUC above which the audit's summary counts a target as exposed.
THRESHOLD = 0.6


def _name(report: Any) -> str:
    """The generator in words (the report's label), or its name for a report without one."""
    return getattr(report, "label", None) or report.generator


def audit_figure(report: Any) -> Figure:
    """Per-target AUC of the shadow-model attack with 95 % bootstrap intervals.

    Parameters
    ----------
    report : privcore.audit.targeted.AuditReport
        The audit; targets without an AUC (too few working models) are left out and named in the alt text.

    Returns
    -------
    Figure
        A horizontal dot plot, one row per target (the most vulnerable first), with the chance level (0.5)
        and the 0.6 threshold of the summary as vertical lines.
    """

    def _label(target: Any) -> str:
        return f"row {target.row} ({target.chosen})"  # the row in the real table as given

    title = f"{_name(report)}: how well the attack tells each person's membership"
    scored = [t for t in report.targets if t.auc is not None]
    missing = [t for t in report.targets if t.auc is None]
    if not scored:
        return empty_figure(title, "The audit trained no attack that could be evaluated, so there is no AUC to draw.")
    labels = [_label(t) for t in scored]
    fig = go.Figure()
    for chosen, style in TARGET_STYLES.items():
        # Rows at numeric positions (labelled by ticks), so the reference lines can span the whole plot.
        positions = [i for i, t in enumerate(scored) if t.chosen == chosen]
        group = [scored[i] for i in positions]
        if not group:
            continue
        intervals = [t.auc_interval or (t.auc, t.auc) for t in group]
        fig.add_trace(go.Scatter(
            x=[t.auc for t in group], y=positions, mode="markers", name=style["label"],
            marker={"color": style["color"], "symbol": style["symbol"], "size": 13,
                    "line": {"color": OKABE_ITO["black"], "width": 1}},
            error_x={"type": "data", "symmetric": False, "array": [hi - t.auc for t, (_, hi) in zip(group, intervals)],
                     "arrayminus": [t.auc - lo for t, (lo, _) in zip(group, intervals)], "thickness": 2, "width": 6,
                     "color": style["color"]},
            customdata=[[_label(t), t.vulnerability, lo, hi] for t, (lo, hi) in zip(group, intervals)],
            hovertemplate="%{customdata[0]}: AUC %{x:.2f} [%{customdata[2]:.2f}, %{customdata[3]:.2f}]"
                          "<br>vulnerability score %{customdata[1]:.3f}<extra></extra>",
        ))
    span = [-0.5, len(scored) - 0.5]
    for x, name, dash in ((0.5, "chance (AUC 0.5)", "dot"), (THRESHOLD, f"AUC {THRESHOLD:g} threshold", "dash")):
        fig.add_trace(go.Scatter(x=[x, x], y=span, mode="lines", name=name, hoverinfo="skip",
                                 line={"color": ROLE_COLOURS["chance"], "dash": dash, "width": 1.5}))
    apply_layout(fig, title, "attack AUC (0.5 = cannot tell, 1 = always tells)", "", height=170 + 34 * len(scored))
    fig.update_xaxes(range=[-0.02, 1.02])
    fig.update_yaxes(range=[span[1], span[0]], tickvals=list(range(len(scored))), ticktext=labels, showgrid=False,
                     zeroline=False)
    caption = ("Each mark is one real person: near the dotted line at 0.5 the attack cannot tell whether they were "
               "in the training data, towards 1 it tells every time, and the bar is the 95% interval.")
    parts = [f"{_label(t)} {t.auc:.2f} (95% interval {t.auc_interval[0]:.2f} to {t.auc_interval[1]:.2f})"
             if t.auc_interval else f"{_label(t)} {t.auc:.2f}" for t in scored]
    alt = (f"Dot plot of the shadow-model attack's AUC for {len(scored)} target(s) of the generator "
           f"{_name(report)}: " + "; ".join(parts) + f". Chance is 0.5; the summary counts targets above "
           f"{THRESHOLD:g}."
           + (f" {len(missing)} target(s) have no AUC (too few working models): "
              + ", ".join(_label(t) for t in missing) + "." if missing else ""))
    return Figure(fig, caption, alt, title)


#: How the shared audit's records are drawn: those whose interval lies above 0.5 and the others.
RECORD_STYLES: dict[str, dict[str, str]] = {
    "exposed": {"label": "exposed beyond chance (interval above 0.5)", "color": OKABE_ITO["vermillion"],
                "symbol": "diamond"},
    "other": {"label": "other records", "color": OKABE_ITO["blue"], "symbol": "circle"},
}


def shared_audit_figure(report: Any) -> Figure:
    """Each record's attack AUC (with its 95 % interval) against its distance to the nearest other real record.

    A distance proxy (DCR) only worries about records close to a synthetic row; this picture shows where the
    people the attack exposes sit: often not at the extremes a distance check looks at (Yao et al. 2025).

    Parameters
    ----------
    report : privcore.audit.shared.SharedAuditReport
        The shared-model audit; records without an AUC, or alone in the table (no finite distance), are left
        out and counted in the alt text. Beyond :data:`~privcore.report.figure_base.MAX_POINTS` records a
        seeded sample is drawn.

    Returns
    -------
    Figure
        A scatter plot: one marker trace per kind of record (:data:`RECORD_STYLES`, told apart by colour and
        symbol) with vertical error bars, and a dashed line at AUC 0.5 (chance).
    """
    title = f"{_name(report)}: who is exposed, and how unusual their record is"
    drawable = [r for r in report.records if r.auc is not None and math.isfinite(r.nearest_real_distance)]
    left_out = len(report.records) - len(drawable)
    if not drawable:
        return empty_figure(title, "The audit trained no attack that could be evaluated, so there is no AUC to draw.")
    shown = [drawable[i] for i in sample_indices(len(drawable), MAX_POINTS, seed=0)]
    is_exposed = [r.auc_interval is not None and r.auc_interval[0] > 0.5 for r in shown]
    exposed = [r for r, flag in zip(shown, is_exposed) if flag]
    others = [r for r, flag in zip(shown, is_exposed) if not flag]
    fig = go.Figure()
    for kind, group in (("exposed", exposed), ("other", others)):
        if not group:
            continue
        style = RECORD_STYLES[kind]
        intervals = [r.auc_interval or (r.auc, r.auc) for r in group]
        fig.add_trace(go.Scatter(
            x=[r.nearest_real_distance for r in group], y=[r.auc for r in group], mode="markers",
            name=style["label"],
            marker={"color": style["color"], "symbol": style["symbol"], "size": 8, "opacity": 0.8,
                    "line": {"color": OKABE_ITO["black"], "width": 0.5}},
            error_y={"type": "data", "symmetric": False, "array": [hi - r.auc for r, (_, hi) in zip(group, intervals)],
                     "arrayminus": [r.auc - lo for r, (lo, _) in zip(group, intervals)], "thickness": 1, "width": 0,
                     "color": style["color"]},
            customdata=[[r.row, lo, hi] for r, (lo, hi) in zip(group, intervals)],
            hovertemplate="row %{customdata[0]}: AUC %{y:.2f} [%{customdata[1]:.2f}, %{customdata[2]:.2f}]"
                          "<br>distance to the nearest other real record %{x:.3g}<extra></extra>",
        ))
    distances = [r.nearest_real_distance for r in shown]
    span = [min(distances), max(distances)]
    fig.add_trace(go.Scatter(x=span, y=[0.5, 0.5], mode="lines", name="chance (AUC 0.5)", hoverinfo="skip",
                             line={"color": ROLE_COLOURS["chance"], "dash": "dash", "width": 1.5}))
    apply_layout(fig, title, "distance to the nearest other real record (larger = more unusual)",
                 "attack AUC (0.5 = cannot tell, 1 = always tells)", height=460)
    fig.update_yaxes(range=[-0.02, 1.02])
    caption = ("Each dot is one real person: the higher it sits above the dashed line, the better an attacker tells "
               "whether they were in the training data, and the further right, the more unusual their record, so "
               "exposed people far from the right edge are ones a distance check would not flag.")
    alt = (f"Scatter plot of the shared-model attack's AUC for {len(shown)} record(s) of the generator "
           f"{_name(report)} against each record's distance to its nearest other real record "
           f"(from {span[0]:.3g} to {span[1]:.3g}): {len(exposed)} have a 95% interval above 0.5 (mean AUC "
           f"{sum(r.auc for r in shown) / len(shown):.2f}). Chance is 0.5."
           + (f" {len(drawable) - len(shown)} record(s) are not drawn (a sample of {MAX_POINTS})."
              if len(shown) < len(drawable) else "")
           + (f" {left_out} record(s) have no AUC or no other real record and are not drawn." if left_out else ""))
    return Figure(fig, caption, alt, title)
