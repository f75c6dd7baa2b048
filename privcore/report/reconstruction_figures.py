"""The figure of a reconstruction attack (:class:`privcore.metrics.reconstruction._base.Reconstruction`): how well
each secret column is filled in for the training members, for non-members and from the population, and the
members' advantage with its interval.

:func:`column_advantage_figure` draws one row per secret column in two panels that share the rows:

- left, the scores (1 = every value right): members (the training people), non-members (the holdout) and the
  population reference (the same attack on the members with the holdout released instead of the synthetic table:
  what data about other real people alone lets anyone infer);
- right, the advantage members − non-members with its bootstrap interval, the 0 line marked: a row whose interval
  lies right of 0 is a column the synthetic table leaks about the people it was trained on.

:func:`reconstruction_figures` is its entry in :data:`privcore.report.detail_figures.DETAIL_FIGURES`, so the score
card, the metric detail and the HTML report draw it. Conventions of :mod:`privcore.report.figure_base` (Okabe–Ito
colours, every group told apart by marker symbol as well). This module imports no Streamlit.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from privcore.base.palette import OKABE_ITO, ROLE_COLOURS
from privcore.metrics.reconstruction._base import Reconstruction
from privcore.report.figure_base import TICK_CHARACTERS, Figure, apply_layout, empty_figure, format_value, wrapped

__all__ = ["column_advantage_figure", "reconstruction_figures", "ordered_columns", "SCORE_AXIS", "ADVANTAGE_AXIS"]

#: The left panel's axis: the attack's score per column.
SCORE_AXIS = "how well the attacker fills it in (1 = every value right)"
#: The right panel's axis: the advantage.
ADVANTAGE_AXIS = "advantage: members − non-members (0 = no leak)"
#: Characters per line of the panels' axis titles (11 px: half a 390-pixel screen).
AXIS_CHARACTERS = 24

#: The traces: label, colour and marker symbol (never colour alone).
_MEMBERS = ("members (training people)", ROLE_COLOURS["real"], "circle")
_NONMEMBERS = ("non-members (holdout)", ROLE_COLOURS["holdout"], "diamond-open")
_POPULATION = ("population reference", OKABE_ITO["black"], "line-ns-open")
_ADVANTAGE = ("advantage, 95 % interval", OKABE_ITO["vermillion"], "square")


def ordered_columns(details: Reconstruction) -> list:
    """The secret columns' results, largest advantage first (columns without a finite advantage last)."""
    return sorted(details.columns, key=lambda c: -c.advantage if math.isfinite(c.advantage) else math.inf)


def _interval_words(column) -> str:
    interval = column.advantage_interval
    if interval is None:
        return ""
    return f" [{format_value(interval[0])}, {format_value(interval[1])}]"


def column_advantage_figure(details: Reconstruction, *, name: str = "Reconstruction") -> Figure:
    """Per secret column: the scores on members, non-members and the population reference, and the advantage.

    Parameters
    ----------
    details : Reconstruction
        A reconstruction metric's details.
    name : str
        The metric's display name, for the title and the alt text.

    Returns
    -------
    Figure
        Two panels sharing one row per secret column (largest advantage first); an empty figure when the attack
        scored no column.
    """
    title = f"{name}: which columns the attacker fills in"
    columns = ordered_columns(details)
    if not columns:
        return empty_figure(title, f"{name} had no secret column to reconstruct.")
    labels = [c.column for c in columns]
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.08)
    for (label, colour, symbol), values in ((_MEMBERS, [c.members for c in columns]),
                                            (_NONMEMBERS, [c.nonmembers for c in columns]),
                                            (_POPULATION, [c.population for c in columns])):
        fig.add_trace(go.Scatter(
            x=values, y=labels, mode="markers", name=label,
            marker={"color": colour, "symbol": symbol, "size": 11 if symbol != "line-ns-open" else 16,
                    "line": {"width": 2, "color": colour}},
            hovertemplate=f"%{{y}}: {label} %{{x:.3f}}<extra></extra>"), row=1, col=1)
    advantage = [c.advantage for c in columns]
    has_interval = [c.advantage_interval is not None for c in columns]
    label, colour, symbol = _ADVANTAGE
    fig.add_trace(go.Scatter(
        x=advantage, y=labels, mode="markers", name=label if any(has_interval) else "advantage",
        marker={"color": colour, "symbol": symbol, "size": 11},
        error_x={"type": "data", "symmetric": False, "thickness": 2, "width": 6, "color": colour,
                 "array": [max(0.0, c.advantage_interval[1] - c.advantage) if c.advantage_interval else 0.0
                           for c in columns],
                 "arrayminus": [max(0.0, c.advantage - c.advantage_interval[0]) if c.advantage_interval else 0.0
                                for c in columns]},
        hovertemplate="%{y}: advantage %{x:+.3f}<extra></extra>"), row=1, col=2)
    fig.add_vline(x=0, line={"color": ROLE_COLOURS["chance"], "dash": "dash", "width": 1.5}, row=1, col=2)

    apply_layout(fig, title, "", "", height=220)
    lines = max((wrapped(c, TICK_CHARACTERS).count("<br>") + 1 for c in labels), default=1)
    fig.update_yaxes(tickmode="array", tickvals=labels, ticktext=[wrapped(c, TICK_CHARACTERS) for c in labels],
                     autorange="reversed", title_text="", row=1, col=1)
    fig.update_layout(height=190 + max(34, 16 * lines + 12) * len(labels))
    fig.update_xaxes(title_text=wrapped(SCORE_AXIS, AXIS_CHARACTERS), range=[-0.03, 1.03], row=1, col=1)
    ends = [abs(v) for c in columns for v in (c.advantage, *(c.advantage_interval or ())) if math.isfinite(v)]
    reach = max([0.05, *ends]) * 1.15
    fig.update_xaxes(title_text=wrapped(ADVANTAGE_AXIS, AXIS_CHARACTERS), range=[-reach, reach], zeroline=False,
                     row=1, col=2)

    caption = ("Each row is a column the attacker did not know: on the left, how well it fills that column in for "
               "the people the synthetic table was made from, for other people, and from other real people's data "
               "alone (the population reference); on the right, the difference with its 95 % range, where a range "
               "wholly right of the dashed 0 line means the table gives away that column about the people in it.")
    parts = [f"{c.column}: members {format_value(c.members)}, non-members {format_value(c.nonmembers)}, population "
             f"{format_value(c.population)}, advantage {c.advantage:+.3f}{_interval_words(c)}" for c in columns]
    alt = (f"{name}: knowing {', '.join(details.key)}, the attacker reconstructs {len(columns)} column(s), largest "
           f"advantage first. " + "; ".join(parts) + f". Over all columns: advantage {details.advantage:+.3f}"
           + (f" [{format_value(details.advantage_interval[0])}, {format_value(details.advantage_interval[1])}]"
              if details.advantage_interval is not None else "") + ".")
    return Figure(fig, caption, alt, title)


def reconstruction_figures(report, result, name: str) -> list[Figure]:
    """The figures of a reconstruction metric for :data:`privcore.report.detail_figures.DETAIL_FIGURES`."""
    return [column_advantage_figure(result.details, name=name)]
