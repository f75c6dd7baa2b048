"""The Results page's "Privacy and utility" tab: every synthetic table as one point, then one table's fidelity.

Thin: the points, the best trade-off and the figures come from :mod:`privcore.evaluation.tradeoff` and
:mod:`privcore.report.tradeoff_figures`.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from dashboard import components as C
from dashboard.page_setup import METRICS_PAGE
from privcore.evaluation import NO_UTILITY, VerdictRule, tradeoff_points
from privcore.report import fidelity_figures, tradeoff_figure


def tradeoff_view(reports: Mapping[str, object], rule: VerdictRule, name: str, key: str) -> None:
    """The trade-off scatter of ``reports`` under ``rule`` and the fidelity figures of the table ``name``.

    When no utility measure ran, what to choose to get them instead of an empty plot.
    """
    points = tradeoff_points(reports, rule)
    if not any(p.utility_score is not None for p in points):
        st.info(NO_UTILITY, icon=":material/insights:")
        st.page_link(METRICS_PAGE, label="Choose metrics", icon=":material/arrow_forward:")
        return
    st.markdown("Whether a table may go out is half of the answer; whether it is worth releasing is the other. Each "
                "point is one synthetic table: further right, an attacker learns more about the people in the "
                "training data than about other real people; higher up, the table keeps more of what a fresh sample "
                "of real people keeps.")
    C.show_figure(tradeoff_figure(points), key=f"tradeoff::{key}")
    st.markdown(f"#### How closely “{name}” follows the real table")
    figures = fidelity_figures(reports[name], name)
    if not figures:
        st.info("Column shapes and column-pair trends did not run on this table, so there is no per-column or "
                "per-pair picture: choose them on the Metrics page (the quick preset includes both).",
                icon=":material/insights:")
    for i, figure in enumerate(figures):
        C.show_figure(figure, key=f"fidelity::{key}::{name}::{i}")
