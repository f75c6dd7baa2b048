"""The figure of a reconstruction attack (:class:`privcore.metrics.reconstruction._base.Reconstruction`).

How well each secret column is filled in for the training members, for non-members and from the population, and the
members' advantage with its interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from privcore.base import OKABE_ITO, ROLE_COLOURS, format_value
from privcore.metrics import Reconstruction
from privcore.report.figure_base import TICK_CHARACTERS, Figure, apply_layout, empty_figure, wrapped

__all__ = ["column_advantage_figure", "tables_figure", "reconstruction_figures", "ordered_columns", "SCORE_AXIS",
           "ADVANTAGE_AXIS"]

#: The left panel's axis: the attack's score per column.
SCORE_AXIS = "values filled in right (1 = all)"
#: The right panel's axis: the advantage.
ADVANTAGE_AXIS = "members − holdout (0 = no leak)"
#: Characters per line of the panels' axis titles (11 px: half a 390-pixel screen, the two titles side by side).
AXIS_CHARACTERS = 18
#: The least height of the figure: with one secret column, title, two-line axis titles and the legend need it
#: (220 px left the plot a sliver between titles wrapped onto three lines).
MIN_HEIGHT = 340

#: The traces: label, colour and marker symbol (never colour alone).
_MEMBERS = ("members (training people)", ROLE_COLOURS["real"], "circle")
_NONMEMBERS = ("non-members (holdout)", ROLE_COLOURS["holdout"], "diamond-open")
_POPULATION = ("population reference", OKABE_ITO["black"], "line-ns-open")
_ADVANTAGE = ("advantage, 95 % interval", OKABE_ITO["vermillion"], "square")


def ordered_columns(details: Reconstruction) -> list:
    """The secret columns' results, largest advantage first (columns without a finite advantage last)."""
    return sorted(details.columns, key=lambda c: -c.advantage if math.isfinite(c.advantage) else math.inf)


def _two_panels(labels: list[str], rows: list, title: str) -> go.Figure:
    """The two panels of a reconstruction figure, one row per label.

    Per row (label), the scores of members, non-members and the population reference on the left, the advantage with its
    interval and the 0 line on the right. ``rows`` carry ``members``, ``nonmembers``, ``population``, ``advantage`` and
    ``advantage_interval`` (a column's or a whole table's).
    """
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.08)
    for (label, colour, symbol), values in ((_MEMBERS, [r.members for r in rows]),
                                            (_NONMEMBERS, [r.nonmembers for r in rows]),
                                            (_POPULATION, [r.population for r in rows])):
        fig.add_trace(go.Scatter(
            x=values, y=labels, mode="markers", name=label,
            marker={"color": colour, "symbol": symbol, "size": 11 if symbol != "line-ns-open" else 16,
                    "line": {"width": 2, "color": colour}},
            hovertemplate=f"%{{y}}: {label} %{{x:.3f}}<extra></extra>"), row=1, col=1)
    label, colour, symbol = _ADVANTAGE
    fig.add_trace(go.Scatter(
        x=[r.advantage for r in rows], y=labels, mode="markers",
        name=label if any(r.advantage_interval is not None for r in rows) else "advantage",
        marker={"color": colour, "symbol": symbol, "size": 11},
        error_x={"type": "data", "symmetric": False, "thickness": 2, "width": 6, "color": colour,
                 "array": [max(0.0, r.advantage_interval[1] - r.advantage) if r.advantage_interval else 0.0
                           for r in rows],
                 "arrayminus": [max(0.0, r.advantage - r.advantage_interval[0]) if r.advantage_interval else 0.0
                                for r in rows]},
        hovertemplate="%{y}: advantage %{x:+.3f}<extra></extra>"), row=1, col=2)
    fig.add_vline(x=0, line={"color": ROLE_COLOURS["chance"], "dash": "dash", "width": 1.5}, row=1, col=2)

    apply_layout(fig, title, "", "", height=220)
    lines = max((wrapped(c, TICK_CHARACTERS).count("<br>") + 1 for c in labels), default=1)
    fig.update_yaxes(tickmode="array", tickvals=labels, ticktext=[wrapped(c, TICK_CHARACTERS) for c in labels],
                     autorange="reversed", title_text="", row=1, col=1)
    fig.update_layout(height=max(MIN_HEIGHT, 250 + max(40, 16 * lines + 14) * len(labels)))
    fig.update_xaxes(title_text=wrapped(SCORE_AXIS, AXIS_CHARACTERS), range=[-0.03, 1.03], row=1, col=1)
    ends = [abs(v) for r in rows for v in (r.advantage, *(r.advantage_interval or ())) if math.isfinite(v)]
    reach = max([0.05, *ends]) * 1.15
    fig.update_xaxes(title_text=wrapped(ADVANTAGE_AXIS, AXIS_CHARACTERS), range=[-reach, reach], zeroline=False,
                     row=1, col=2)
    return fig


def _row_words(label: str, row) -> str:
    interval = row.advantage_interval
    shown = "" if interval is None else f" [{format_value(interval[0])}, {format_value(interval[1])}]"
    return (f"{label}: members {format_value(row.members)}, non-members {format_value(row.nonmembers)}, population "
            f"{format_value(row.population)}, advantage {row.advantage:+.3f}{shown}")


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

    Notes
    -----
    :func:`column_advantage_figure` draws one row per secret column in two panels that share the rows:

    - left, the scores (1 = every value right): members (the training people), non-members (the holdout) and the
      population reference (the same attack on the members with the holdout released instead of the synthetic table:
      what data about other real people alone lets anyone infer);
    - right, the advantage members − non-members with its bootstrap interval, the 0 line marked: a row whose interval
      lies right of 0 is a column the synthetic table leaks about the people it was trained on.

    :func:`reconstruction_figures` is :func:`column_advantage_figure`'s entry in
    :data:`privcore.report.detail_figures.DETAIL_FIGURES`, so the score card, the metric detail and the HTML report draw
    it. Conventions of :mod:`privcore.report.figure_base` (Okabe–Ito colours, every group told apart by marker symbol
    as well). This module imports no Streamlit.
    """
    title = f"{name}: which columns the attacker fills in"
    columns = ordered_columns(details)
    if not columns:
        return empty_figure(title, f"{name} had no secret column to reconstruct.")
    fig = _two_panels([c.column for c in columns], columns, title)
    caption = ("Each row is a column the attacker did not know: on the left, how well it fills that column in for "
               "the people the synthetic table was made from, for other people, and from other real people's data "
               "alone (the population reference); on the right, the difference with its 95 % range, where a range "
               "wholly right of the dashed 0 line means the table gives away that column about the people in it.")
    alt = (f"{name}: knowing {', '.join(details.key)}, the attacker reconstructs {len(columns)} column(s), largest "
           f"advantage first. " + "; ".join(_row_words(c.column, c) for c in columns)
           + f". Over all columns: {_row_words('', details).removeprefix(': ')}.")
    return Figure(fig, caption, alt, title)


def tables_figure(details: Mapping[str, Reconstruction], *,
                  title: str = "Reconstruction: members against other people") -> Figure:
    """One row per synthetic table (name → a reconstruction metric's details), the Learn page's lesson.

    Each row has the whole record's scores on members, non-members and the population reference, and the advantage with
    its interval.

    Parameters
    ----------
    details : mapping
        Table name → :class:`Reconstruction`, in the order of the rows.
    title : str
        The figure's title.

    Returns
    -------
    Figure

    Notes
    -----
    :func:`tables_figure` draws the same two panels with one row per synthetic table (the whole record's scores), for
    the Learn page's lesson on reconstruction and inference from the population.
    """
    if not details:
        return empty_figure(title, "No reconstruction attack ran.")
    labels, rows = list(details), list(details.values())
    fig = _two_panels(labels, rows, title)
    caption = ("Each row is one synthetic table: on the left, how well an attacker who knows a few facts fills in "
               "the rest of the record for the people the table was made from, for other people, and from other "
               "real people's data alone; on the right, the difference with its 95 % range, where a range wholly "
               "right of the dashed 0 line is a leak and a range across it is what anyone infers from the "
               "population.")
    alt = f"{title}. " + "; ".join(_row_words(label, row) for label, row in details.items()) + "."
    return Figure(fig, caption, alt, title)


def reconstruction_figures(report, result, name: str) -> list[Figure]:
    """The figures of a reconstruction metric for :data:`privcore.report.detail_figures.DETAIL_FIGURES`."""
    return [column_advantage_figure(result.details, name=name)]
