"""One evaluation from tables to an answer: ``evaluate`` (runs the chosen metrics on the shared engine),
``outcome`` (the :class:`Report` of all results), ``interpret`` (levels, the three questions, record flags)
and ``verdict`` (one release decision). Interpretation only: nothing here draws or imports Plotly.
"""
