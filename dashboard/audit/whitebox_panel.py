"""The Audit page's section for the white-box attack of a shared audit (Streamlit).

It shows the threat model, the results in words, the per-model figure and table. Logic in
:mod:`dashboard.audit.whitebox_view`; the figure is :func:`privcore.report.whitebox_figures.whitebox_figure`.
"""

from __future__ import annotations

import streamlit as st

from dashboard import components as C
from dashboard.audit import whitebox_view as WV
from privcore.audit import THREAT_MODEL, SharedAuditReport
from privcore.report import whitebox_figure


def show_whitebox_results(report: SharedAuditReport, key: str) -> None:
    """Show the white-box attack of a shared audit, when it ran.

    Parameters
    ----------
    report : SharedAuditReport
        The audit; nothing is shown when its ``whitebox`` is None.
    key : str
        Its cache key: keeps the widgets of two audits apart.
    """
    result = getattr(report, "whitebox", None)
    if result is None:
        return
    st.subheader("White-box attack: the model's loss")
    st.info(f"**Threat model.** {THREAT_MODEL}", icon=":material/key:")
    st.markdown("\n".join(f"- {line}" for line in WV.summary_lines(result)))
    C.show_figure(whitebox_figure(result, report.title), key=f"whitebox-figure::{key}")
    st.dataframe(WV.models_frame(result), hide_index=True, width="stretch")
    st.caption("Per trained model, its audited records that trained it (members) against those that did not. "
               "TPR at FPR x: the share of members the attack flags while flagging at most a share x of the "
               "non-members; a rate is left empty when there are too few non-members to measure it.")
