"""Embedding :class:`~privcore.report.figure_base.Figure` objects in a self-contained HTML page.

Shared by the Results report (:mod:`privcore.report.html`) and the metric lab page
(:mod:`privcore.report.lab_html`). This module does not import Plotly itself (it calls the figure's own
``to_html``), so a page without figures never loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from markupsafe import Markup

from privcore.report.rendering import render

if TYPE_CHECKING:
    from privcore.report.figure_base import Figure

__all__ = ["FigureWriter"]


class FigureWriter:
    """Embeds Plotly figures in one page; plotly.js goes inline exactly once (with the first figure).

    Call it on each figure in the order they appear in the page: the first call carries the plotly.js
    bundle (inline, never fetched from a CDN), the later ones only their data.

    Examples
    --------
    >>> write = FigureWriter()
    >>> write.first
    True
    """

    def __init__(self):
        self.first = True

    def __call__(self, figure: Figure) -> Markup:
        """The ``<figure>`` element of ``figure``: the plot, its caption and its text description.

        Parameters
        ----------
        figure : Figure
            The figure to embed.

        Returns
        -------
        markupsafe.Markup
            Markup ready to be placed in a page (the caption and alt text escaped).
        """
        plot = figure.fig.to_html(full_html=False, include_plotlyjs=self.first, include_mathjax=False,
                                  config={"displaylogo": False, "responsive": True})
        self.first = False
        # Plotly's own <div> and <script>: its data is JSON that Plotly escapes for a <script> element.
        return Markup(render("figure.html.j2", figure=figure, plot=Markup(plot)))
