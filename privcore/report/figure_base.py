"""What every figure module of :mod:`privcore.report` builds on: the :class:`Figure` and its shared helpers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from privcore.base import OKABE_ITO, PALETTE

__all__ = ["Figure", "MAX_POINTS", "MAX_LINKS", "BINS", "BIN_DECIMALS", "apply_layout", "wrapped",
           "wrap_category_ticks", "finite_values", "sample_indices", "empty_figure", "bin_shares"]

#: Most points a scatter plot draws (larger tables are sampled).
MAX_POINTS = 2000
#: Most neighbour links a map draws.
MAX_LINKS = 200
#: Bins of the distance histograms.
BINS = 40
#: Decimals that values and bin edges are rounded to before binning.
BIN_DECIMALS = 12


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

    Notes
    -----
    A :class:`Figure` is a Plotly figure with a one-sentence caption for a non-expert and an alt text for
    screen readers. The helpers give every figure the same look (:func:`apply_layout`: Okabe–Ito colours, system
    sans-serif font, legend on top), the same empty state (:func:`empty_figure`), the same number formats and the
    same binning (:func:`bin_shares`, identical on every CPU). The figure modules (generic builders, distances,
    details, membership, lab, audit) all import from here and never from each other's private names.
    This module imports no Streamlit.
    """

    fig: go.Figure
    caption: str
    alt: str
    title: str = ""


def apply_layout(fig: go.Figure, title: str, x_title: str, y_title: str, *, height: int = 380) -> go.Figure:
    """Give ``fig`` the common look: white template, left-aligned title, legend on top, Okabe–Ito colours.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure, changed in place.
    title, x_title, y_title : str
        The figure's and the axes' titles.
    height : int
        Height in pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig`` itself.
    """
    fig.update_layout(
        template="simple_white",
        # The title gets its own room at the top (wrapped to fit a phone), the legend its own at the bottom,
        # below the x-axis title: neither can print over the other however many rows the legend needs.
        title={"text": wrapped(title, TITLE_CHARACTERS), "x": 0.0, "xanchor": "left", "xref": "container",
               "y": 1.0, "yanchor": "bottom", "yref": "paper", "pad": {"b": 12, "l": 10},
               "automargin": True, "font": {"size": 15}},
        height=height,
        margin={"l": 50, "r": 10, "t": 40, "b": 50},
        legend={"orientation": "h", "yanchor": "bottom", "y": 0.0, "yref": "container", "xanchor": "left", "x": 0.0},
        font={"family": "sans-serif", "size": 13, "color": OKABE_ITO["black"]},
        colorway=list(PALETTE),
        hoverlabel={"font": {"family": "sans-serif"}},
    )
    # Axis titles at 11 px: the longest ("false-positive rate (non-members wrongly accused)") fits a phone.
    fig.update_xaxes(title_text=x_title, title_font={"size": 11}, showgrid=True, gridcolor="#e8e8e8",
                     automargin=True)
    fig.update_yaxes(title_text=y_title, title_font={"size": 11}, showgrid=True, gridcolor="#e8e8e8",
                     automargin=True)
    return fig


#: Characters per line of a figure title: one line fits a 390-pixel phone screen at 15 px.
TITLE_CHARACTERS = 40
#: Characters per line of a category label on an axis (metric names, attack roles).
TICK_CHARACTERS = 22


def wrap_category_ticks(fig: go.Figure, categories: list[str], axis: str = "y",
                        width: int = TICK_CHARACTERS) -> int:
    """Show long category labels of ``axis`` on several lines (layout only: the traces keep the full labels).

    Returns the largest number of lines, so that the caller can give each category the height it needs.
    """
    text = [wrapped(c, width) for c in categories]
    update = fig.update_yaxes if axis == "y" else fig.update_xaxes
    update(tickmode="array", tickvals=list(categories), ticktext=text)
    return max((t.count("<br>") + 1 for t in text), default=1)


def wrapped(text: str, width: int) -> str:
    """``text`` broken into lines of at most ``width`` characters at spaces, joined by ``<br>`` (Plotly's line break).

    A word longer than ``width`` keeps a line of its own.

    Examples
    --------
    >>> wrapped("Distance to Closest Record (DCR): distances", 20)
    'Distance to Closest<br>Record (DCR):<br>distances'
    """
    lines: list[str] = []
    for word in str(text).split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines)


def finite_values(values: Any) -> np.ndarray:
    """``values`` as a flat float array without NaN and infinities.

    Examples
    --------
    >>> finite_values([[1, float("nan")], [float("inf"), 2]]).tolist()
    [1.0, 2.0]
    """
    arr = np.asarray(values, dtype=np.float64).ravel()
    return arr[np.isfinite(arr)]


def sample_indices(n: int, k: int, seed: int = 0) -> np.ndarray:
    """Sorted indices of at most ``k`` of ``n`` rows, drawn with ``seed`` (all rows when ``n <= k``)."""
    if n <= k:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=k, replace=False))


def empty_figure(title: str, message: str) -> Figure:
    """A small figure that says in words why there is nothing to draw.

    Parameters
    ----------
    title : str
        The figure's title.
    message : str
        Why it is empty; also its caption and, prefixed with "Empty figure:", its alt text.
    """
    fig = go.Figure()
    fig.add_annotation(text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    apply_layout(fig, title, "", "", height=200)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return Figure(fig, message, f"Empty figure: {message}", title)


def bin_shares(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Share of ``values`` in each bin between ``edges`` (values outside count in the first or last bin).

    Parameters
    ----------
    values : numpy.ndarray
        Finite values.
    edges : numpy.ndarray
        Increasing bin edges.

    Returns
    -------
    numpy.ndarray
        One share per bin; they sum to 1 (0 for no values).
    """
    # Values and edges are rounded first: a risk of exactly 0.3 (e.g. 1 - 0.7) comes out a few ulps either
    # side of the edge 0.30000000000000004 depending on the CPU's BLAS kernel, and must land in one bin on
    # every machine. 1e-12 is far below any bin width and far above the last bits of a float in [0, 100].
    values, edges = np.round(values, BIN_DECIMALS), np.round(edges, BIN_DECIMALS)
    counts, _ = np.histogram(np.clip(values, edges[0], edges[-1]), bins=edges)
    return counts / max(1, len(values))
