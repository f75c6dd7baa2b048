"""The Audit page's results for the shared design (Streamlit).

It shows the summary, the attacks side by side, the figure, the evidence for the most exposed people, the per-model and
white-box readings, the per-record table and the JSON. The logic (sentences, table, order) is
:mod:`dashboard.audit.shared_view`; the figure is :func:`privcore.report.audit_figures.shared_audit_figure`.
"""

from __future__ import annotations

import streamlit as st

from dashboard import components as C
from dashboard.audit import shared_view as SV
from dashboard.audit.view import verdict_level
from dashboard.audit.whitebox_panel import show_whitebox_results
from privcore.audit import SharedAuditReport
from privcore.report import attacks_per_model, per_model_figure, shared_audit_figure

_ICONS = {"error": ":material/gpp_bad:", "warning": ":material/warning:", "success": ":material/verified_user:"}


def show_shared_results(report: SharedAuditReport, key: str) -> None:
    """Show a shared audit's results.

    Parameters
    ----------
    report : SharedAuditReport
        The audit to show.
    key : str
        Its cache key (:func:`dashboard.audit.shared_view.audit_key`): keeps the widgets of two audits apart.
    """
    summary, splits = report.summary, report.splits
    level = verdict_level(summary)  # the same rule as the targeted design (privcore.evaluation.verdict)
    getattr(st, level)(summary["verdict"], icon=_ICONS[level])
    st.caption(f"Audited in {report.seconds:.1f} s: {splits['records']:,} of {splits['rows']:,} rows attacked at "
               f"once with {splits['models']:,} models ({splits['failed_models']:,} failed), each trained on about "
               f"{round(splits['training_rows_mean']):,} of them.")
    st.markdown("\n".join(f"- {line}" for line in SV.summary_lines(summary) + SV.stronger_lines(report)))
    dcr, attack = SV.dcr_and_attack(summary)
    stronger = SV.stronger_sentence(report)
    sides = st.columns(2 if stronger is None else 3)
    with sides[0].container(border=True):
        st.markdown(f"**The DCR test says** (distances, one synthetic output)  \n{dcr}")
    with sides[1].container(border=True):
        st.markdown(f"**The attack says** (shared models, every record)  \n{attack}")
    if stronger is not None:
        with sides[2].container(border=True):
            # Beside, not instead: the verdict stays the first attack's (why: privcore.audit.stronger).
            st.markdown(f"**A stronger attack says** (the same models; RMIA and boosted trees)  \n{stronger}")
    for warning in report.warnings:
        st.warning(warning, icon=":material/warning:")

    C.show_figure(shared_audit_figure(report), key=f"shared-audit-figure::{key}")
    why = SV.most_exposed_why(report)
    if why:
        st.subheader("Why the most exposed people are exposed")
        st.markdown("\n".join(f"- {line}" for line in why))
    if attacks_per_model(report):  # a report made without the per-model reading has none
        st.subheader("Per trained model")
        C.show_figure(per_model_figure(report), key=f"per-model-figure::{key}")
    show_whitebox_results(report, key)
    st.subheader("Records")
    st.dataframe(SV.records_frame(report), hide_index=True, width="stretch")
    st.caption("Sorted by the lower end of the AUC interval, the most exposed first. ε lower bound: no generator "
               "that is ε-differentially private for this person with a smaller ε could let the attack do this well "
               "(95% confidence). Nearest synthetic distance: median over the models trained with the person.")
    st.download_button("Download the audit (JSON)", data=SV.report_json(report),
                       file_name=f"audit-shared-{report.generator}.json", mime="application/json",
                       icon=":material/download:", on_click="ignore", key=f"shared-audit-json::{key}")
