"""Figures of related tables evaluated per person: the strongest attack per way of reading the tables."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from privcore.base import OKABE_ITO
from privcore.report.figure_base import Figure, apply_layout


def people_or_rows_figure(labels: Sequence[str], excess: Sequence[float | None], answers: Sequence[str]) -> Figure:
    """The strongest membership attack's excess over a coin flip in each evaluation, coloured by its answer.

    Parameters
    ----------
    labels : sequence of str
        Each evaluation (a table read per person or joined row by row).
    excess : sequence of float or None
        The strongest attack's excess (None: no attack ran; drawn at 0).
    answers : sequence of str
        Each evaluation's answer ("release", "release with caution", "do not release").

    Returns
    -------
    Figure
    """
    values = [0.0 if v is None else float(v) for v in excess]
    colours = [OKABE_ITO["bluish_green"] if a == "release" else OKABE_ITO["vermillion"] for a in answers]
    fig = go.Figure(go.Bar(x=list(labels), y=values, marker_color=colours,
                           text=[f"{v:.2f}: {a}" for v, a in zip(values, answers)], textposition="outside",
                           cliponaxis=False))
    apply_layout(fig, "People, not rows: the strongest membership attack", "evaluation",
                 "strongest attack above a coin flip", height=360)
    fig.update_yaxes(range=[0, max(0.8, max(values, default=0.0) * 1.25)])
    alt = "; ".join(f"{label}: strongest attack {v:.2f} above a coin flip, answer {a}"
                    for label, v, a in zip(labels, values, answers)) + "."
    return Figure(fig, "Look at the right bar: joined row by row, a league of other real players looks as leaky as a "
                  "copied one, while per person it passes and the copied careers are caught.", alt, "People, not rows")
