"""The figure of a shadow-model audit (:mod:`privcore.audit.shadow`): each target's attack AUC with its interval.

Same conventions as :mod:`privcore.report.figures`: a :class:`~privcore.report.figure_base.Figure` with a one-sentence
caption and an alt text, Okabe–Ito colours only, and the two kinds of target told apart by marker
symbol as well as colour. This module imports no Streamlit.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from privcore.base.palette import OKABE_ITO, ROLE_COLOURS
from privcore.report.figure_base import Figure, apply_layout, empty_figure

__all__ = ["audit_figure", "TARGET_STYLES", "THRESHOLD"]

#: How each kind of target is drawn: legend label, colour and marker symbol.
TARGET_STYLES: dict[str, dict[str, str]] = {
    "vulnerable": {"label": "most vulnerable targets", "color": OKABE_ITO["vermillion"], "symbol": "diamond"},
    "random": {"label": "random targets", "color": OKABE_ITO["blue"], "symbol": "circle"},
}
#: The AUC above which the audit's summary counts a target as exposed.
THRESHOLD = 0.6


def audit_figure(report: Any) -> Figure:
    """Per-target AUC of the shadow-model attack with 95 % bootstrap intervals.

    Parameters
    ----------
    report : privcore.audit.shadow.AuditReport
        The audit; targets without an AUC (too few working models) are left out and named in the alt text.

    Returns
    -------
    Figure
        A horizontal dot plot, one row per target (the most vulnerable first), with the chance level (0.5)
        and the 0.6 threshold of the summary as vertical lines.
    """

    def _label(target: Any) -> str:
        return f"row {target.row} ({target.chosen})"  # the row in the real table as given

    title = f"{report.generator}: how well the attack tells each person's membership"
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
           f"{report.generator}: " + "; ".join(parts) + f". Chance is 0.5; the summary counts targets above "
           f"{THRESHOLD:g}."
           + (f" {len(missing)} target(s) have no AUC (too few working models): "
              + ", ".join(_label(t) for t in missing) + "." if missing else ""))
    return Figure(fig, caption, alt, title)
