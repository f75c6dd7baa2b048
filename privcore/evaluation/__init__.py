"""One evaluation from tables to an answer.

``evaluate`` runs the chosen metrics on the shared engine, ``outcome`` is the :class:`Report` of all results,
``interpret`` gives levels, the three questions and record flags, and ``verdict`` one release decision. Interpretation
only: nothing here draws or imports Plotly.
"""
