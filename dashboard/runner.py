"""Run the chosen metrics on every loaded synthetic table, with a progress bar, cached per session."""

from __future__ import annotations

import logging
import threading
from typing import MutableMapping

import streamlit as st

from dashboard import compute, jobs
from dashboard.session import persistence
from dashboard.session.state import Tables, run_key
from privcore.base import InputError, ProgressCallback
from privcore.evaluation import Report

LOGGER = logging.getLogger(__name__)

#: Runs kept per session (each holds its prepared tables and neighbour caches).
MAX_CACHED_RUNS = 3



def current_run_key(state: MutableMapping) -> str | None:
    """The run key of the current data and settings, or None when something is missing."""
    tables: Tables = state["tables"]
    schema = state.get("schema")
    metric_ids = list(state.get("selected_metrics") or [])
    if not tables.ready or schema is None or not metric_ids:
        return None
    settings = {**schema.to_dict(), "famd_components": state.get("famd_components")}
    return run_key(tables, settings, metric_ids, dict(state.get("metric_params") or {}))


def cached_results(state: MutableMapping) -> dict[str, Report] | None:
    """Results for the current data and settings when they were computed in this session."""
    key = current_run_key(state)
    if key is None:
        return None
    return state["results"].get(key)


def evaluate_all(state: MutableMapping, progress: ProgressCallback | None = None) -> dict[str, Report]:
    """Evaluate every synthetic table against the real one (and the holdout); no caching.

    ``progress(fraction, message)`` receives the overall fraction over all synthetic tables.

    Raises
    ------
    privcore.base.errors.InputError
        When the tables or the settings are unusable (the message says which file and column).
    """
    tables: Tables = state["tables"]
    names = {"real": tables.real.name}
    if tables.holdout is not None:
        names["holdout"] = tables.holdout.name
    # In a worker process (dashboard.compute): the server keeps answering other sessions meanwhile.
    return compute.run_job(
        jobs.evaluate_tables,
        tables.real.frame,
        {name: table.frame for name, table in tables.synthetic.items()},
        state["schema"],
        list(state["selected_metrics"]),
        holdout=tables.holdout.frame if tables.holdout is not None else None,
        params=dict(state.get("metric_params") or {}),
        famd_components=state.get("famd_components"),
        names=names,
        progress=progress,
    )


def store(state: MutableMapping, key: str, reports: dict[str, Report]) -> None:
    """Keep ``reports`` under ``key`` (dropping the oldest runs beyond :data:`MAX_CACHED_RUNS`).

    Notes
    -----
    Results live in ``st.session_state["results"][run_key]`` (see :mod:`dashboard.session.state`): the key is made
    of the tables' content hashes and every setting, so nothing is recomputed while nothing changed, and a
    change anywhere (a table, a column type, a metric, a parameter) gives a new key. Results stay in the
    session's memory only: never written to disk, never shared with another session. Only the most recent
    :data:`MAX_CACHED_RUNS` runs are kept, because a report holds its prepared tables and neighbour caches.
    """
    results = state["results"]
    results.pop(key, None)
    results[key] = reports
    while len(results) > MAX_CACHED_RUNS:
        results.pop(next(iter(results)))
    state["last_run_key"] = key


def run(state: MutableMapping) -> dict[str, Report] | None:
    """Run the evaluation behind the Results page's button.

    Reuse cached results, else compute with an ``st.progress`` bar. Input problems are shown as a friendly message
    (never a traceback).
    """
    key = current_run_key(state)
    if key is None:
        return None
    if key in state["results"]:
        state["last_run_key"] = key
        return state["results"][key]
    bar = st.progress(0.0, text="Starting…")
    script_thread = threading.current_thread()

    def update(fraction: float, message: str) -> None:
        # Only the script's own thread has a Streamlit session. privcore reports progress from the calling
        # thread, so this is a guard against a future callback from a worker thread, not a filter.
        if threading.current_thread() is script_thread:
            bar.progress(min(1.0, max(0.0, float(fraction))), text=message)
            persistence.keep_alive(state)

    try:
        reports = evaluate_all(state, update)
    except InputError as exc:
        bar.empty()
        st.error(str(exc), icon=":material/error:")
        return None
    except MemoryError:
        bar.empty()
        st.error("The tables are too large for this machine's memory. Try a sample of the rows, or fewer "
                 "metrics.", icon=":material/error:")
        return None
    except Exception:  # a bug must not show a traceback to users; it goes to the server log
        LOGGER.exception("evaluation failed")
        bar.empty()
        st.error("The evaluation stopped because of an internal error. Please report it with your settings "
                 "(the server log has the details).", icon=":material/error:")
        return None
    bar.empty()
    store(state, key, reports)
    return reports
