"""The Results page's "Reconstruction" tab.

How much of the training people's records an attacker who knows their key columns fills in, beyond what it fills in for
other real people. Thin: the metric that speaks, the words and the table come from
:mod:`privcore.report.reconstruction_text`, the figure from :mod:`privcore.report.reconstruction_figures`.
"""

from __future__ import annotations

import streamlit as st

from dashboard import components as C
from dashboard.page_setup import METRICS_PAGE
from privcore.metrics import metric_name
from privcore.report import (
    NO_RECONSTRUCTION,
    column_advantage_figure,
    exposed_table,
    reconstruction_result,
    reconstruction_summary,
)

__all__ = ["reconstruction_view"]

#: What the exposed-records table shows, for a non-expert.
EXPOSED_CAPTION = ("Each line is one column of one training person that the attacker filled in better than it fills "
                   "in the same value for people outside the training data; \"people with this value\" is how many "
                   "training people share the true value, rarest first, since guessing a rare value right gives "
                   "away most.")


def reconstruction_view(report, key: str) -> None:
    """Render the reconstruction view of one report; when no reconstruction metric ran, say how to get it."""
    st.markdown("#### Reconstruction: filling in the rest of a person's record")
    found = reconstruction_result(report)
    if found is None:
        st.info(NO_RECONSTRUCTION, icon=":material/person_search:")
        st.page_link(METRICS_PAGE, label="Choose metrics", icon=":material/arrow_forward:")
        return
    metric_id, details = found
    st.markdown(reconstruction_summary(details, metric_id))
    C.show_figure(column_advantage_figure(details, name=metric_name(metric_id)), key=f"{key}-columns")
    st.markdown("**The most exposed training people: true and reconstructed values side by side**")
    table = exposed_table(details)
    if table.empty:
        st.caption("No training person has a column filled in better than the same value for people outside the "
                   "training data.")
        return
    st.dataframe(table, hide_index=True, width="stretch")
    st.caption(EXPOSED_CAPTION)
