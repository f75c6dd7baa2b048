"""The Compare-metrics page's lab runs: in a worker process, with errors in words, cached per session.

No Streamlit import; the page reaches these through :mod:`dashboard.lab.view`. The work itself is a job of
:mod:`dashboard.jobs` run by :mod:`dashboard.compute`.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, MutableMapping

import pandas as pd

from dashboard import compute, jobs
from dashboard.session.state import content_hash
from privcore.base import InputError
from privcore.data import Schema
from privcore.lab import LabResult

LOGGER = logging.getLogger(__name__)

RESULTS = "lab_results"
#: Labs kept per session.
MAX_CACHED_LABS = 3


@dataclass(frozen=True)
class StoredLab:
    """A lab run in this session, with the estimate shown before it started (to compare with its time)."""

    result: LabResult
    document: dict[str, Any]
    estimated_seconds: float | None


def lab_key(*parts: Any) -> str:
    """Cache key of one lab: the tables' content hashes, the schema and every setting."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


def cached(state: Mapping, key: str | None) -> StoredLab | None:
    """The lab stored under ``key`` in this session, if any."""
    return None if key is None else (state.get(RESULTS) or {}).get(key)


def store(state: MutableMapping, key: str, stored: StoredLab) -> None:
    """Keep ``stored`` under ``key``, dropping the oldest labs beyond :data:`MAX_CACHED_LABS`.

    Notes
    -----
    Session-state key used here (declared in :data:`dashboard.session.state.DEFAULTS`), in the session's
    memory only, never written to disk or shared between sessions:

    - ``lab_results`` — lab key (:func:`lab_key`) → :class:`StoredLab`, the most recent :data:`MAX_CACHED_LABS`.
    """
    results = state.setdefault(RESULTS, {})
    results.pop(key, None)
    results[key] = stored
    while len(results) > MAX_CACHED_LABS:
        results.pop(next(iter(results)))


def table_hash(frame: pd.DataFrame | None) -> str | None:
    """Content hash of an optional table (for cache keys)."""
    return None if frame is None else content_hash(frame)


def guarded(call: Callable[[], Any]) -> tuple[Any, str | None]:
    """Run ``call()`` as the lab runs: ``(result, None)``, or ``(None, message)`` for the user.

    Named input errors keep their message; running out of memory and any other failure (logged with its
    traceback for the server's log) become a short sentence, never a traceback.

    Parameters
    ----------
    call : callable
        The lab's work, or a measurement of it (:func:`dashboard.lab.estimate.timing`).

    Returns
    -------
    tuple
        ``(result, None)`` when ``call`` returned, else ``(None, message)``.
    """
    try:
        return call(), None
    except InputError as error:
        return None, str(error)
    except MemoryError:
        return None, "The lab needs more memory than this machine has. Try fewer levels, seeds or metrics."
    except Exception:  # noqa: BLE001 - a bug must not show a traceback to users; it goes to the server log
        LOGGER.exception("metric lab failed")
        return None, ("The lab stopped because of an internal error. Please report it with your settings (the "
                      "server log has the details).")


def run_generated(real: pd.DataFrame, holdout: pd.DataFrame | None, schema: Schema, settings: Mapping[str, Any],
                  *, params: Mapping[str, Any] | None = None, names: Mapping[str, str] | None = None,
                  progress: Callable[[float, str], None] | None = None) -> tuple[LabResult | None, str | None]:
    """:func:`privcore.lab.run` with the checked settings, in a worker process (:mod:`dashboard.compute`).

    ``progress(fraction, message)`` moves a bar. Returns ``(result, None)`` or ``(None, message)``.
    """
    return guarded(lambda: compute.run_job(
        jobs.lab_generated, real, schema, holdout=holdout, leaks=settings["leaks"], levels=settings["levels"],
        seeds=settings["seeds"], metrics=settings["metrics"], seed=settings["seed"], params=params, names=names,
        progress=progress))


def run_supplied(real: pd.DataFrame, holdout: pd.DataFrame | None, schema: Schema, settings: Mapping[str, Any],
                 tables: Mapping[str, pd.DataFrame], *, params: Mapping[str, Any] | None = None,
                 names: Mapping[str, str] | None = None,
                 progress: Callable[[float, str], None] | None = None) -> tuple[LabResult | None, str | None]:
    """:func:`privcore.lab.run_ladder` on the uploaded tables grouped by label, in a worker process."""
    ladder: dict[float, list[pd.DataFrame]] = {}
    for name, label in settings["ladder"]:
        ladder.setdefault(label, []).append(tables[name])
    return guarded(lambda: compute.run_job(
        jobs.lab_supplied, real, ladder, schema, holdout=holdout, metrics=settings["metrics"], seed=settings["seed"],
        params=params, names=names, progress=progress))


def chosen_params(params: Mapping[str, Any] | None, metrics: Iterable[str]) -> dict[str, Any]:
    """The Metrics page's parameter overrides of the chosen metrics (the lab runs them as set there)."""
    chosen = set(metrics)
    return {m: dict(p) for m, p in (params or {}).items() if m in chosen and p}
