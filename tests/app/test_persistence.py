"""Work survives a reload (issue 11, case 5): the session id in the URL restores tables, schema, chosen
metrics, parameters and results in a new Streamlit session; without the id nothing is visible; the data
expires and can be forgotten. (Cookies, the path of a typed URL, are checked in tests/browser.)"""

from __future__ import annotations

import time

import pytest

from dashboard.session import persistence
from dashboard.session.store import IDLE_MINUTES_VARIABLE

from .conftest import assert_no_exception, open_page, seed_session, texts

RESULTS = "pages/4_Results.py"
METRICS = "pages/3_Metrics.py"


def session_id_of(at) -> str:
    value = at.query_params[persistence.QUERY_KEY]
    return value[0] if isinstance(value, list) else value


def reload(at, page: str = RESULTS):
    """A new Streamlit session opened on ``page`` with the URL ``at`` left in the address bar."""
    again = open_page(page)
    again.query_params[persistence.QUERY_KEY] = session_id_of(at)
    return again.run()


@pytest.fixture
def evaluated():
    """A session with the demo-like tables, a non-default parameter and one finished evaluation."""
    at = open_page(RESULTS)
    seed_session(at, holdout=True)
    at.session_state["selected_metrics"] = ["cvp", "dcr"]
    at.session_state["metric_params"] = {"cvp": {"threshold": 0.3}}
    at.run()
    at.button(key="run_evaluation").click().run()
    assert_no_exception(at)
    assert at.session_state["last_run_key"] in at.session_state["results"]
    return at


def test_a_reload_restores_tables_schema_metrics_parameters_and_results(evaluated):
    again = reload(evaluated)
    assert_no_exception(again)
    before, after = evaluated.session_state, again.session_state
    assert after["tables"].fingerprint() == before["tables"].fingerprint()
    assert after["schema"] == before["schema"]
    assert after["selected_metrics"] == ["cvp", "dcr"]
    assert after["metric_params"] == {"cvp": {"threshold": 0.3}}
    assert after["last_run_key"] == before["last_run_key"]
    assert set(after["results"]) == set(before["results"])
    assert "restored" in texts(again.toast)
    assert session_id_of(again) == session_id_of(evaluated)  # the URL keeps the same id
    # The results are shown without pressing Run again.
    assert not again.button(key="run_evaluation").disabled
    assert any("CVP" in str(m.value) or "Close value" in str(m.value) for m in again.markdown)


def test_a_typed_page_url_without_the_id_shows_nothing_of_another_session(evaluated):
    stranger = open_page(RESULTS).run()
    assert_no_exception(stranger)
    assert not stranger.session_state["tables"].ready
    assert not stranger.session_state["results"]
    assert session_id_of(stranger) != session_id_of(evaluated)


@pytest.mark.slow
def test_a_wrong_or_truncated_id_restores_nothing(evaluated):
    for presented in ("not-an-id", session_id_of(evaluated)[:-1], session_id_of(evaluated) + "x"):
        guess = open_page(RESULTS)
        guess.query_params[persistence.QUERY_KEY] = presented
        guess.run()
        assert not guess.session_state["tables"].ready
        assert "No data is kept under this link" in texts(guess.sidebar.info)
        assert session_id_of(guess) != presented


def test_expired_data_is_gone_even_for_the_holder_of_the_id(monkeypatch, evaluated):
    monkeypatch.setenv(IDLE_MINUTES_VARIABLE, "0.002")  # 0.12 seconds
    time.sleep(0.3)
    again = reload(evaluated)
    assert not again.session_state["tables"].ready
    assert not again.session_state["results"]
    # The open tab lost it too: its next run starts empty and says why.
    evaluated.run()
    assert not evaluated.session_state["tables"].ready
    assert "No data is kept under this link" in texts(evaluated.sidebar.info)


def test_forget_my_data_now_deletes_it_at_once(evaluated):
    old_id = session_id_of(evaluated)
    evaluated.button(key="forget_my_data").click().run()
    assert_no_exception(evaluated)
    assert not evaluated.session_state["tables"].ready
    assert not evaluated.session_state["results"]
    assert "deleted from the server" in texts(evaluated.sidebar.success)
    assert session_id_of(evaluated) != old_id
    stale = open_page(RESULTS)
    stale.query_params[persistence.QUERY_KEY] = old_id
    stale.run()
    assert not stale.session_state["tables"].ready


def test_the_metric_choice_survives_on_the_metrics_page():
    at = open_page(METRICS)
    seed_session(at)
    at.run()
    box = at.checkbox(key="metric::dcr")
    box.check().run() if not box.value else box.uncheck().run()
    chosen = list(at.session_state["selected_metrics"])
    again = reload(at, METRICS)
    assert_no_exception(again)
    assert again.session_state["selected_metrics"] == chosen
    assert again.checkbox(key="metric::dcr").value == ("dcr" in chosen)


def test_forget_is_offered_only_when_there_is_something_to_forget():
    empty = open_page().run()
    assert not [b for b in empty.sidebar.button if b.key == "forget_my_data"]
