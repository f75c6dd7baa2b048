"""The Results page's "Reconstruction" tab.

How much of the training people's records an attacker who knows their key columns fills in, beyond what it fills in for
other real people. Thin: the metric that speaks, the words and the table come from
:mod:`privcore.report.reconstruction_text`, the figure from :mod:`privcore.report.reconstruction_figures`.
"""

from __future__ import annotations

import streamlit as st

from dashboard import components as C
from dashboard.metric_choice import add_and_run
from dashboard.page_setup import METRICS_PAGE
from privcore.evaluation import duration_words, estimate_seconds
from privcore.metrics import metric_name
from privcore.report import (
    NO_RECONSTRUCTION,
    column_advantage_figure,
    exposed_table,
    reconstruction_result,
    reconstruction_summary,
)

__all__ = ["reconstruction_view"]

#: The metric the tab offers to run: both attacks, the honest best of them speaking.
OFFERED = "recon_best"
#: What the tab says while the attack has not run.
OFFER_TEXT = ("This tab shows how much of a training person's record an attacker who knows their key columns fills in "
              "from the synthetic table, beyond what the same attack fills in for real people outside the training "
              "data. The reconstruction attack is not among the metrics that ran.")

#: What the exposed-records table shows, for a non-expert.
EXPOSED_CAPTION = ("Each line is one column of one training person that the attacker filled in better than it fills "
                   "in the same value for people outside the training data; \"people with this value\" is how many "
                   "training people share the true value, rarest first, since guessing a rare value right gives "
                   "away most.")


def _offer_reconstruction(report, key: str) -> None:
    """The tab after a run without a reconstruction metric: what it would show, and one click to run it."""
    state = st.session_state
    chosen = [*state.get("selected_metrics", []), OFFERED]
    rows = report.rows
    synthetic_rows = [len(t.frame) for t in state["tables"].synthetic.values()] or [rows["synthetic"]]
    seconds = estimate_seconds(chosen, rows["real"], synthetic_rows, rows["holdout"])
    st.info(OFFER_TEXT, icon=":material/person_search:")
    st.button(f"Add the reconstruction attack and run again ({duration_words(seconds)})", icon=":material/play_arrow:",
              key=f"offer-reconstruction::{key}", on_click=add_and_run, args=(state, OFFERED),
              help="Adds \"Reconstruction: the strongest attack\" to the chosen metrics (the Metrics page shows it "
                   "ticked) and runs every chosen metric again.")


def reconstruction_view(report, key: str) -> None:
    """Render the reconstruction view of one report; when no reconstruction metric ran, say how to get it."""
    st.markdown("#### Reconstruction: filling in the rest of a person's record")
    found = reconstruction_result(report)
    if found is None:
        if report.rows.get("holdout") is None:  # the attacks need other real people: no offer to run them
            st.info(NO_RECONSTRUCTION, icon=":material/person_search:")
            st.page_link(METRICS_PAGE, label="Choose metrics", icon=":material/arrow_forward:")
            return
        _offer_reconstruction(report, key)
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
