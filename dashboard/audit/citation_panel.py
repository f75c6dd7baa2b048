"""The Results page's citation of this session's audits under each table's answer (Streamlit)."""

from __future__ import annotations

import streamlit as st

from dashboard.audit.citation import citations
from dashboard.page_setup import AUDIT_PAGE

_ICONS = {"exposed": ":material/gpp_bad:", "suspect": ":material/warning:", "unknown": ":material/help:",
          "none": ":material/verified_user:"}


def audit_citations(state, table: str, real_hash: str) -> None:
    """The audits of a generator cited under a table's verdict; nothing when no audit ran.

    Each audit run in this session of a generator on this real table is listed under the verdict, the one that made the
    table first.
    """
    found = sorted(citations(state, real_hash), key=lambda c: not c.same_generator)
    for citation in found:
        show = st.error if citation.severity == "exposed" and citation.same_generator else st.info
        show(citation.sentence(table), icon=_ICONS[citation.severity])
    if found:
        st.page_link(AUDIT_PAGE, label="See the audit: who is exposed, and why", icon=":material/policy:")
