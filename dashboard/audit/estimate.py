"""The Audit page's run-time estimate: the chosen generator timed on the user's table, once per choice.

The measurement is :mod:`privcore.audit.timing`, run in the worker pool like the audit
(:func:`dashboard.jobs.time_audit`). No Streamlit import.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import asdict
from typing import Any, Callable, Mapping, MutableMapping

import pandas as pd

from dashboard import compute, jobs
from privcore.audit import AuditEstimate
from privcore.base import InputError, format_duration
from privcore.data import Schema

LOGGER = logging.getLogger(__name__)

ESTIMATES = "audit_estimates"
#: Estimates kept per session (each is a few numbers; the bound only stops a long session's slow growth).
MAX_CACHED_ESTIMATES = 32


def estimate_key(design: str, content_hash: str, schema: Schema, name: str, settings: Mapping[str, Any],
                 budget: Any, whitebox: bool = False, stronger: bool = False) -> str:
    """Cache key of one estimate.

    It covers the design, the table's content hash, the schema, the generator, its settings, the budget (a dataclass of
    the design's settings) and whether the white-box and the stronger attacks run.
    """
    parts = json.dumps(["estimate", design, content_hash, schema.to_dict(), name, dict(settings), asdict(budget)]
                       + (["whitebox"] if whitebox else []) + (["stronger"] if stronger else []),
                       sort_keys=True, default=str)
    return hashlib.sha256(parts.encode()).hexdigest()[:16]


def measured(state: MutableMapping, key: str, real: pd.DataFrame, schema: Schema, name: str,
             settings: Mapping[str, Any], budget: Any, design: str,
             progress: Callable[[float, str], None] | None = None,
             whitebox: bool = False, stronger: bool = False) -> tuple[AuditEstimate | None, str | None]:
    """The estimate under ``key``, measured in the worker pool the first time; or None and the message for the user.

    Parameters
    ----------
    state : mutable mapping
        The session state (the cache is its ``audit_estimates`` entry).
    key : str
        :func:`estimate_key` of these arguments.
    real, schema, name, settings, budget, design
        As for :func:`dashboard.jobs.time_audit`.
    progress : callable, optional
        ``progress(fraction, message)`` while measuring.
    whitebox : bool
        The shared audit runs the white-box attack (its losses timed too).
    stronger : bool
        The shared audit runs the stronger black-box attacks (timed too).

    Returns
    -------
    tuple
        ``(estimate, None)``, or ``(None, message)``: the generator's own error in one line (the audit would meet
        it too), or a short sentence for an internal error (logged with its traceback) — never a traceback.

    Notes
    -----
    Session-state key used here (declared in :data:`dashboard.session.state.DEFAULTS`), in the session's
    memory only:

    - ``audit_estimates`` — estimate key (:func:`estimate_key`) → :class:`privcore.audit.timing.AuditEstimate`, or the
      message of the error the trial fit met (a generator that fails would fail the audit the same way; it is not
      timed again on every rerun of the page). The most recent :data:`MAX_CACHED_ESTIMATES` only.
    """
    estimates = state.setdefault(ESTIMATES, {})
    if key not in estimates:
        try:
            estimates[key] = compute.run_job(jobs.time_audit, real, schema, name, dict(settings), budget, design,
                                             progress=progress, whitebox=whitebox, stronger=stronger)
        except InputError as error:
            estimates[key] = str(error)
        except MemoryError:
            return None, "Timing the generator needs more memory than this machine has. Try fewer records."
        except Exception:  # noqa: BLE001 - a bug must not show a traceback to users; it goes to the server log
            LOGGER.exception("timing the audit failed")
            return None, ("The run time could not be estimated because of an internal error. Please report it with "
                          "your settings (the server log has the details).")
        while len(estimates) > MAX_CACHED_ESTIMATES:
            estimates.pop(next(iter(estimates)))
    found = estimates[key]
    return (None, found) if isinstance(found, str) else (found, None)


def estimate_text(estimate: AuditEstimate, records: int | None = None) -> str:
    """The sentence shown before an audit: the estimate, the fits it is for, and how it was measured.

    Parameters
    ----------
    estimate : AuditEstimate
        The measured estimate.
    records : int, optional
        Records a shared audit attacks (named in the sentence).

    Returns
    -------
    str

    Examples
    --------
    >>> from privcore.audit import ModelTiming
    >>> print(estimate_text(AuditEstimate("shared", 64, 1, ModelTiming(0.84, 500, (1.2, 0.8), 0.04), 12.0), 1000))
    Estimated run time: about 1 min for 64 generator fits on 1,000 records, on 1 worker (measured: one fit on 500 rows of your table took 0.8 s (with its output and features: 0.84 s a model); the attack on every record and the DCR test add about 10 s).
    """
    where = f" on {records:,} records" if records is not None else " on this table"
    workers = f"{estimate.workers} worker" + ("s" if estimate.workers > 1 else "")
    rest = ("the attack on every record and the DCR test" if estimate.design == "shared"
            else "the attack's classifiers and the DCR test")
    if getattr(estimate, "whitebox", False):  # an estimate made without the white-box attack has no such field
        rest = "the black-box and white-box attacks on every record and the DCR test"
    return (f"Estimated run time: {format_duration(estimate.seconds)} for {estimate.models:,} generator fits{where}, "
            f"on {workers} (measured: {estimate.model.describe()}; {rest} add {_overhead(estimate.overhead)}).")


def _overhead(seconds: float) -> str:
    return "under a second" if seconds < 1 else "a few seconds" if seconds < 10 else format_duration(seconds)
