"""The lab's privacy–utility frontier figure: utility against privacy evidence across the levels of a ladder."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go

from privcore.base import DASHES, OKABE_ITO, PALETTE, SYMBOLS
from privcore.lab import REFERENCE, format_level, leak_label
from privcore.report.figure_base import Figure, apply_layout, empty_figure, wrapped
from privcore.report.tradeoff_figures import AXIS_CHARACTERS, PRIVACY_AXIS, SCORE_AXIS, UTILITY_AXIS

__all__ = ["frontier_figure", "point_label"]

TITLE = "Privacy and utility across the levels"


def point_label(level: float, epsilon: Any) -> str:
    """A point's short label: its ε for DP marginals, else its level (or a supplied ladder's label).

    Examples
    --------
    >>> point_label(0.0, 0.1), point_label(1.0, "inf"), point_label(3.0, None)
    ('ε = 0.1', 'ε = ∞', '3')
    """
    if epsilon is not None:
        return "ε = ∞" if epsilon == "inf" else f"ε = {float(epsilon):.3g}"
    return f"{level:g}"


def frontier_figure(document: Mapping[str, Any]) -> Figure:
    """Utility kept against the strongest privacy evidence, one point per level, one line per leak type in level order.

    Each point is the mean over seeds, with bars from the lowest to the highest seed; the lines run in level order. The
    fresh-sample reference and the ideal corner are marked.

    Parameters
    ----------
    document : mapping
        The lab's JSON document (:meth:`privcore.lab.LabResult.to_dict`).

    Returns
    -------
    Figure
        An empty figure that says why when the lab ran no utility measure.

    Notes
    -----
    Reads the ``"frontier"`` entry of the lab's JSON document (:mod:`privcore.lab.frontier`), so the Compare-metrics
    page, the lab's HTML page and the command line draw the same picture. Conventions of
    :mod:`privcore.report.figure_base`: one line per leak type (or the supplied ladder) told apart by colour, dash and
    marker; every point labelled with its level; the ideal corner marked. This module imports no Streamlit.
    """
    frontier = document.get("frontier")
    if not frontier or not any(p["utility_mean"] is not None and p["privacy_mean"] is not None
                               for points in frontier["curve"].values() for p in points):
        return empty_figure(TITLE, "The lab ran no utility measure beside the privacy metrics, so there is no "
                                   "frontier to draw (it runs column shapes and column-pair trends unless told not "
                                   "to: leave out --no-utility).")
    labels = document.get("settings", {}).get("kind") == "supplied"
    relative = all(p["utility_kind"] == "relative" for points in frontier["curve"].values() for p in points)
    fig = go.Figure()
    alt = []
    lines = [leak for leak in frontier["curve"] if leak != REFERENCE]
    for i, leak in enumerate(lines):
        points = [p for p in frontier["curve"][leak] if p["utility_mean"] is not None and p["privacy_mean"] is not None]
        if not points:
            continue
        colour, symbol = PALETTE[i % len(PALETTE)], SYMBOLS[i % len(SYMBOLS)]
        text = [point_label(p["level"], p.get("epsilon")) for p in points]
        fig.add_trace(go.Scatter(
            x=[p["privacy_mean"] for p in points], y=[p["utility_mean"] for p in points], mode="lines+markers+text",
            name=leak_label(leak), text=text, textposition="top center", cliponaxis=False,
            line={"color": colour, "dash": DASHES[i % len(DASHES)], "width": 2},
            marker={"symbol": symbol, "size": 9, "color": colour},
            error_x={"type": "data", "symmetric": False, "thickness": 1, "width": 2, "color": colour,
                     "array": [p["privacy_max"] - p["privacy_mean"] for p in points],
                     "arrayminus": [p["privacy_mean"] - p["privacy_min"] for p in points]},
            error_y={"type": "data", "symmetric": False, "thickness": 1, "width": 2, "color": colour,
                     "array": [p["utility_max"] - p["utility_mean"] for p in points],
                     "arrayminus": [p["utility_mean"] - p["utility_min"] for p in points]},
            customdata=[[format_level(leak, p["level"], labels=labels), p["runs"],
                         ", ".join(f"{n} × {v}" for v, n in p["verdicts"].items())] for p in points],
            hovertemplate=(f"{leak_label(leak)}, %{{customdata[0]}}<br>privacy evidence %{{x:+.3f}}, utility "
                           "%{y:.2f}<br>over %{customdata[1]} seed(s); verdicts: %{customdata[2]}<extra></extra>")))
        alt.append(f"{leak_label(leak)}: " + "; ".join(
            f"{format_level(leak, p['level'], labels=labels)}: privacy evidence {p['privacy_mean']:+.3f}, utility "
            f"{p['utility_mean']:.2f}" for p in points))
    reference = [p for p in frontier["curve"].get(REFERENCE, []) if p["utility_mean"] is not None]
    if reference:
        p = reference[0]
        fig.add_trace(go.Scatter(
            x=[p["privacy_mean"]], y=[p["utility_mean"]], mode="markers", name="fresh sample (reference)",
            marker={"symbol": "square", "size": 10, "color": OKABE_ITO["black"]},
            hovertemplate="fresh samples of real people: privacy evidence %{x:+.3f}, utility %{y:.2f}<extra></extra>"))
        alt.append(f"fresh samples: privacy evidence {p['privacy_mean']:+.3f}, utility {p['utility_mean']:.2f}")
    fig.add_trace(go.Scatter(x=[0.0], y=[1.0], mode="markers", name="ideal: leaks nothing, keeps all",
                             marker={"symbol": "star", "size": 15, "color": "rgba(0,0,0,0)",
                                     "line": {"color": OKABE_ITO["black"], "width": 1.5}},
                             hovertemplate="ideal corner: no advantage for an attacker, all utility kept"
                                           "<extra></extra>"))
    apply_layout(fig, TITLE, wrapped(PRIVACY_AXIS, AXIS_CHARACTERS),
                 wrapped(UTILITY_AXIS if relative else SCORE_AXIS, 2 * AXIS_CHARACTERS), height=460)
    fig.update_xaxes(zeroline=True, zerolinecolor="#bbbbbb")
    values = [p[key] for points in frontier["curve"].values() for p in points
              for key in ("utility_min", "utility_max") if p[key] is not None]
    fig.update_yaxes(range=[min(0.0, *values) - 0.05, max(1.0, *values) + 0.1])  # room for the labels on top
    caption = ("Each point is one level of the ladder (the mean over its tables, bars from the lowest to the highest): "
               "further right an attacker gains more, higher up the table keeps more of what a fresh sample of real "
               "people keeps, so the levels worth choosing sit towards the top left.")
    measures = ", ".join(frontier.get("measures", []))
    return Figure(fig, caption, f"Privacy–utility frontier ({measures}): " + " | ".join(alt) + ".", TITLE)
