"""The server-memory session store (issue 11: work survives a reload, expires, can be forgotten)."""

from __future__ import annotations

import gc
import threading
import time

import pytest

from dashboard.session import store as session_store
from dashboard.session.state import persisted_keys
from dashboard.session.store import DEFAULT_IDLE_MINUTES, IDLE_MINUTES_VARIABLE, SessionStore, Sweeper


class State(dict):
    """A dict that can be weakly referenced, like Streamlit's session state."""


def work(name: str = "real.csv") -> State:
    return State(tables=f"tables of {name}", schema="schema", results={"run": "report"},
                 selected_metrics=["dcr"], unrelated_widget="kept")


def test_only_the_holder_of_the_id_gets_the_work_back(store):
    mine, other = work("mine"), work("other")
    store.attach("id-mine", mine, persisted_keys)
    store.attach("id-other", other, persisted_keys)
    restored = store.restore("id-mine")
    assert restored["tables"] == "tables of mine"
    assert restored["results"] is mine["results"]  # by reference: whatever the last run left
    assert "unrelated_widget" not in restored  # only the user's work travels
    assert store.restore("id-unknown") is None
    assert store.restore("") is None
    assert store.restore("id-mine"[:-1]) is None


def test_a_restore_sees_what_the_session_changed_after_attaching(store):
    state = work()
    store.attach("sid", state, persisted_keys)
    state["results"] = {"new run": "new report"}  # a reassignment at the end of a page run
    assert store.restore("sid")["results"] == {"new run": "new report"}


def test_expired_data_is_gone_from_the_store_and_from_the_open_tab(store, clock):
    state = work()
    store.attach("sid", state, persisted_keys)
    clock.now += 29 * 60
    assert store.touch("sid")  # used within the idle time: the clock starts again
    clock.now += 29 * 60
    assert store.restore("sid") is not None
    clock.now += 30 * 60 + 1
    assert store.sweep() == ["sid"]
    assert store.restore("sid") is None
    assert "sid" not in store and len(store) == 0
    assert "tables" not in state and "results" not in state and "schema" not in state
    assert state["unrelated_widget"] == "kept"


def test_restore_and_touch_sweep_expired_entries_first(store, clock):
    state = work()
    store.attach("sid", state, persisted_keys)
    clock.now += 31 * 60
    assert not store.touch("sid")
    assert "tables" not in state


def test_forget_empties_every_session_that_holds_the_id(store):
    first_tab, reloaded_tab = work(), State()
    store.attach("sid", first_tab, persisted_keys)
    reloaded_tab.update(store.restore("sid"))
    store.attach("sid", reloaded_tab, persisted_keys)  # the reload now owns the id
    assert store.forget("sid")
    assert "tables" not in reloaded_tab and "tables" not in first_tab
    assert store.restore("sid") is None
    assert not store.forget("sid")


def test_the_session_that_ran_last_is_what_a_reload_gets(store):
    tab_a, tab_b = work("a"), work("b")
    store.attach("sid", tab_a, persisted_keys)
    store.attach("sid", tab_b, persisted_keys)
    assert store.restore("sid")["tables"] == "tables of b"
    assert store.touch("sid", tab_a)
    assert store.restore("sid")["tables"] == "tables of a"


def test_a_closed_session_is_not_kept_alive_by_the_store(store):
    closed = work()
    store.attach("sid", closed, persisted_keys)
    store.attach("sid", State(), persisted_keys)
    before = len(store._entries["sid"].all_states())
    del closed
    gc.collect()
    assert before == 2 and len(store._entries["sid"].all_states()) == 1


def test_the_sweeper_deletes_expired_data_without_any_page_run():
    store = SessionStore(idle_after=0.05)
    state = work()
    store.attach("sid", state, persisted_keys)
    sweeper = Sweeper(store, interval=1.0)
    sweeper._interval = 0.02  # the public minimum is 1 s; a test need not wait that long
    sweeper.start()
    try:
        deadline = time.monotonic() + 5
        while "tables" in state and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        sweeper.stop()
    assert "tables" not in state and "sid" not in store


def test_ids_are_long_random_and_distinct():
    ids = {session_store.new_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) >= 43 and all(c.isalnum() or c in "-_" for c in i) for i in ids)


@pytest.mark.parametrize(("env", "configured", "minutes"), [
    (None, None, DEFAULT_IDLE_MINUTES),
    ("5", None, 5.0),
    ("5", 10, 5.0),  # the environment wins over the secrets file
    (None, 10, 10.0),
    (None, "2.5", 2.5),
    ("0", None, DEFAULT_IDLE_MINUTES),
    ("-3", "abc", DEFAULT_IDLE_MINUTES),
    ("nan", None, DEFAULT_IDLE_MINUTES),
    ("inf", 7, 7.0),
])
def test_idle_time_configuration(monkeypatch, env, configured, minutes):
    if env is None:
        monkeypatch.delenv(IDLE_MINUTES_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(IDLE_MINUTES_VARIABLE, env)
    assert session_store.idle_seconds(configured) == pytest.approx(minutes * 60)


def test_the_store_is_safe_under_concurrent_sessions(store):
    errors = []

    def session(i: int) -> None:
        try:
            state = work(str(i))
            store.attach(f"id-{i}", state, persisted_keys)
            for _ in range(200):
                assert store.touch(f"id-{i}", state)
                assert store.restore(f"id-{i}")["tables"] == f"tables of {i}"
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=session, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(store) == 8


def test_persisted_keys_are_the_users_work():
    state = {"tables": 1, "metric::dcr": True, "metric::dcr::real": "x", "fig::abc": 1, "audit_results": {}}
    keys = persisted_keys(state)
    assert {"tables", "schema", "results", "selected_metrics", "metric_params", "audit_results",
            "metric::dcr"} <= set(keys)
    assert "metric::dcr::real" not in keys and "fig::abc" not in keys
