"""The figure of the shared audit's white-box attack (:mod:`privcore.audit.whitebox`).

Per target model, the share of its training records the attacker picks out without a single false accusation (TPR at FPR
0). Same conventions as :mod:`privcore.report.audit_figures`: a :class:`~privcore.report.figure_base.Figure` with a
one-sentence caption and an alt text, Okabe–Ito colours only. This module imports no Streamlit.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from privcore.base import OKABE_ITO, ROLE_COLOURS
from privcore.report.figure_base import Figure, apply_layout, empty_figure

__all__ = ["whitebox_figure", "BAR_COLOUR"]

#: The bars' colour: one kind of mark, the palette's strongest warm colour.
BAR_COLOUR = OKABE_ITO["vermillion"]


def whitebox_figure(result: Any, name: str) -> Figure:
    """Per target model, the white-box attack's TPR at FPR 0, beside what the attack gets by chance.

    Parameters
    ----------
    result : privcore.audit.whitebox.WhiteBoxResult
        The white-box attack of a shared audit.
    name : str
        The generator in words (the report's title).

    Returns
    -------
    Figure
        A bar chart, one bar per target model in the order trained, and a dashed line at the median TPR at
        FPR 0 of the same attack with the training sets shuffled among the models (chance).
    """
    title = f"{name}: people picked out by an attacker holding the model"
    models = [m for m in result.models if m.tpr_at.get("0") is not None]
    if not models:
        return empty_figure(title, "No target model had both members and non-members to attack, so there is no "
                                   "rate to draw.")
    tprs = [m.tpr_at["0"] for m in models]
    fig = go.Figure()
    fig.add_trace(go.Bar(
        x=[f"model {m.model}" for m in models], y=tprs, name="TPR at FPR 0 (no false accusation)",
        marker={"color": BAR_COLOUR, "line": {"color": OKABE_ITO["black"], "width": 0.5}},
        customdata=[[m.members, m.non_members, m.auc if m.auc is not None else float("nan")] for m in models],
        hovertemplate="%{x}: %{y:.1%} of its %{customdata[0]} members picked out, none of its %{customdata[1]} "
                      "non-members accused<br>AUC %{customdata[2]:.2f}<extra></extra>",
    ))
    chance = (result.summary.get("chance") or {}).get("tpr_at_fpr_0", {}).get("median")
    if chance is not None:
        span = [-0.5, len(models) - 0.5]  # the bars' positions, from the first's left edge to the last's right
        fig.add_trace(go.Scatter(x=span, y=[chance, chance], mode="lines",
                                 name="chance (membership shuffled)", hoverinfo="skip", xaxis="x2",
                                 line={"color": ROLE_COLOURS["chance"], "dash": "dash", "width": 1.5}))
        # A numeric twin axis lets the chance line span the bars' categorical axis from end to end.
        fig.update_layout(xaxis2={"overlaying": "x", "visible": False, "range": span})
    apply_layout(fig, title, "target model", "TPR at FPR 0", height=380)
    fig.update_yaxes(range=[0, 1.02], tickformat=".0%")
    caption = ("Each bar is one trained model: the share of the people it was trained on whom an attacker holding "
               "the model picks out without wrongly accusing anyone who was not, and the dashed line is what the "
               "same attack reaches when it cannot know who was in, so bars far above the line mean the model gives "
               "its training data away.")
    spread = result.summary.get("tpr_at_fpr_0") or {}
    alt = (f"Bar chart of the white-box attack's true-positive rate at a false-positive rate of 0 for {len(models)} "
           f"model(s) of the generator {name}: median {spread.get('median', 0):.1%}, from {min(tprs):.1%} to "
           f"{max(tprs):.1%}"
           + (f"; with membership shuffled the median is {chance:.1%}." if chance is not None else ".")
           + " Per model: " + "; ".join(f"model {m.model} {m.tpr_at['0']:.1%}" for m in models) + ".")
    return Figure(fig, caption, alt, title)
