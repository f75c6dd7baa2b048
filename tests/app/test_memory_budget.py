"""The Results page explains a refusal by the memory budget (issue 11) instead of running out of memory."""

from __future__ import annotations

from privcore.data.memory import BUDGET_VARIABLE

from .conftest import assert_no_exception, open_page, seed_session, texts


def test_tables_over_the_memory_budget_are_refused_with_the_estimate(monkeypatch):
    monkeypatch.setenv(BUDGET_VARIABLE, "1KB")
    at = open_page("pages/4_Results.py")
    seed_session(at)
    at.session_state["selected_metrics"] = ["dcr"]
    at.run()
    at.button(key="run_evaluation").click().run()
    assert_no_exception(at)
    message = texts(at.error)
    assert "more than the memory budget of 1,000 bytes" in message or "memory budget of 1,000" in message, message
    assert "encoded columns" in message and BUDGET_VARIABLE in message
    assert not at.session_state["results"]
