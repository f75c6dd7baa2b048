"""Test-only timing of the server's script runs: when each run was asked for and when it ended, per session.

Off unless the server starts with ``PRIVCORE_RUN_TIMING=<file>``; the load test reads the file.
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from pathlib import Path

#: The environment variable naming the file the timings are appended to (JSON lines).
ENV = "PRIVCORE_RUN_TIMING"

_LOCK = threading.Lock()
_INSTALLED: list[str] = []


def install_from_environment() -> bool:
    """Install the timing hook when :data:`ENV` names a file; return whether it is installed."""
    path = os.environ.get(ENV)
    return install(path) if path else False


def install(path: str | os.PathLike) -> bool:
    """Record every script run of every session from now on in ``path``.

    One JSON line when the browser's request for a run reaches the server (``request``) and one when the run ends
    (``end``), with the wall-clock time, the session's id and its signed-in user's e-mail.

    Notes
    -----
    Both events are taken on the server's event loop, where Streamlit handles them: a loop kept busy (a figure
    serialised, a table converted) delays both, which is what a visitor waits for. Idempotent: each page calls
    it, the first call patches :class:`streamlit.runtime.app_session.AppSession` once for the process.
    """
    from streamlit.runtime.app_session import AppSession  # test-only: the dashboard never needs it otherwise
    from streamlit.runtime.scriptrunner import ScriptRunnerEvent  # lazy: as the line above

    with _LOCK:
        if _INSTALLED:
            return True
        target = Path(path)
        stopped = {ScriptRunnerEvent.SCRIPT_STOPPED_WITH_SUCCESS, ScriptRunnerEvent.SCRIPT_STOPPED_WITH_COMPILE_ERROR,
                   ScriptRunnerEvent.SCRIPT_STOPPED_FOR_RERUN}
        handle_backmsg = AppSession.handle_backmsg
        on_event = AppSession._handle_scriptrunner_event_on_event_loop

        def timed_backmsg(self, msg):
            if msg.WhichOneof("type") == "rerun_script":
                _write(target, self, "request")
            return handle_backmsg(self, msg)

        def timed_event(self, sender, event, *args, **kwargs):
            if event in stopped:
                _write(target, self, "end", event.name)
            return on_event(self, sender, event, *args, **kwargs)

        AppSession.handle_backmsg = timed_backmsg
        AppSession._handle_scriptrunner_event_on_event_loop = timed_event
        _INSTALLED.append(str(target))
        return True


def _write(target: Path, session, kind: str, how: str = "") -> None:
    user = getattr(session, "_user_info", None) or {}
    who = user.get("email") or user.get("sub")  # the sign-in provider's e-mail claim, else its subject
    line = {"t": time.time(), "kind": kind, "session": session.id, "user": who, "how": how}
    with _LOCK, target.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def server_shares(lines: list[dict], user: str, windows: list[tuple[float, float]],
                  sent: list[float] = ()) -> list[float | None]:
    """Per window, seconds from the first request of ``user``'s runs in it to the last end.

    A window is a page load's start and end, wall clock; None where no request reached the server.

    A request counts from the earlier of its arrival on the server's event loop and ``sent``, the times the
    browser sent a message (so a loop too busy to read the request at once is counted too).

    Examples
    --------
    >>> lines = [{"t": 10.0, "kind": "request", "user": "p"}, {"t": 10.4, "kind": "end", "user": "p"},
    ...          {"t": 10.1, "kind": "request", "user": "u"}, {"t": 12.0, "kind": "end", "user": "u"},
    ...          {"t": 10.5, "kind": "request", "user": "p"}, {"t": 10.9, "kind": "end", "user": "p"}]
    >>> [round(s, 3) for s in server_shares(lines, "p", [(9.9, 11.0)])], server_shares(lines, "p", [(20, 21)])
    ([0.9], [None])
    >>> [round(s, 3) for s in server_shares(lines, "p", [(9.9, 11.0)], sent=[9.95])]
    [0.95]
    """
    out = []
    for start, stop in windows:
        mine = [line for line in lines if line.get("user") == user and start <= line["t"] <= stop]
        requests = [line["t"] for line in mine if line["kind"] == "request"]
        requests += [t for t in sent if start <= t <= stop] if requests else []
        ends = [line["t"] for line in mine if line["kind"] == "end"]
        out.append(max(ends) - min(requests) if requests and ends and max(ends) >= min(requests) else None)
    return out


def spread(values: list[float]) -> dict[str, float | None]:
    """Median, 95th percentile (nearest rank), maximum and count of ``values``, rounded to the millisecond.

    Examples
    --------
    >>> spread([0.1, 0.2, 0.3, 0.4]), spread([])
    ({'median': 0.3, 'p95': 0.4, 'max': 0.4, 'n': 4}, {'median': None, 'p95': None, 'max': None, 'n': 0})
    """
    ordered = sorted(values)
    if not ordered:
        return {"median": None, "p95": None, "max": None, "n": 0}
    rank = max(math.ceil(0.95 * len(ordered)) - 1, 0)
    return {"median": round(ordered[len(ordered) // 2], 3), "p95": round(ordered[rank], 3),
            "max": round(ordered[-1], 3), "n": len(ordered)}
