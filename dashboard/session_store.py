"""Server-memory store that lets a browser session's work survive a reload (issue 11).

A reload, or a page URL typed into the address bar, opens a new Streamlit session with an empty
``st.session_state``. This store keeps, per browser session, a reference to the state the session
works in, under an unguessable id that the browser carries in the URL's query string
(``?session=ID``) and in a cookie. A new session that presents a live id gets the work back.

Nothing here touches the disk: entries live in this process's memory only. An entry expires after
an idle time (:func:`idle_seconds`, default 30 minutes) and is deleted, together with the data it
points to, by whichever comes first of a sweep (every page run, and a background sweeper thread) and
the user's "Forget my data now" button. An id is 32 random bytes from :mod:`secrets` (256 bits);
without it no other session can reach the entry.

This module has no Streamlit import so that the expiry and isolation rules are testable in plain
Python; :mod:`dashboard.persistence` connects it to the pages.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import dataclass, field

#: Environment variable that sets the idle time in minutes (also ``session_idle_minutes`` in
#: ``.streamlit/secrets.toml``, read by :mod:`dashboard.persistence`).
IDLE_MINUTES_VARIABLE = "PRIVCORE_SESSION_IDLE_MINUTES"
DEFAULT_IDLE_MINUTES = 30.0

_ID_BYTES = 32


def idle_seconds(configured: object = None) -> float:
    """The idle time after which a session's data is deleted, in seconds.

    Parameters
    ----------
    configured : object, optional
        A value in minutes from the app's configuration (secrets); the environment variable
        :data:`IDLE_MINUTES_VARIABLE` takes precedence. Invalid or non-positive values fall back to
        :data:`DEFAULT_IDLE_MINUTES`.
    """
    for candidate in (os.environ.get(IDLE_MINUTES_VARIABLE), configured):
        if candidate is None or candidate == "":
            continue
        try:
            minutes = float(candidate)
        except (TypeError, ValueError):
            continue
        if minutes > 0 and minutes == minutes and minutes != float("inf"):
            return minutes * 60.0
    return DEFAULT_IDLE_MINUTES * 60.0


def new_id() -> str:
    """An unguessable session id (URL-safe text, 256 random bits)."""
    return secrets.token_urlsafe(_ID_BYTES)


@dataclass
class _Entry:
    state: MutableMapping
    keys: Callable[[MutableMapping], Iterable[str]]
    last_used: float
    # States of other sessions that held the id (an earlier tab, a session before a reload). Weak, so
    # that Streamlit can free a closed session; kept so that "forget" and expiry also empty a tab that
    # is still open.
    earlier: list = field(default_factory=list)

    def point_to(self, state: MutableMapping) -> None:
        if state is self.state:
            return
        try:
            self.earlier.append(weakref.ref(self.state))
        except TypeError:  # a plain dict cannot be weakly referenced; tests use those
            pass
        self.state = state
        self.earlier = [ref for ref in self.earlier if ref() is not None and ref() is not state]

    def all_states(self) -> list[MutableMapping]:
        alive = [ref() for ref in self.earlier]
        return [self.state] + [s for s in alive if s is not None and s is not self.state]


class SessionStore:
    """Per-process map from session id to the state a browser session works in.

    The store holds a *reference* to the session's state mapping (not a copy), so that whatever a page
    run changed last, however it ended, is what a reload gets back. ``keys`` says which entries of the
    mapping are the user's work (tables, schema, choices, results) and are handed over or deleted.

    Parameters
    ----------
    idle_after : float
        Seconds without use after which an entry expires.
    clock : callable, optional
        Monotonic clock in seconds (tests pass a fake one).
    """

    def __init__(self, idle_after: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.idle_after = float(idle_after)
        self._clock = clock
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.RLock()

    # -------------------------------------------------------------------------------------- writes
    def attach(self, session_id: str, state: MutableMapping,
               keys: Callable[[MutableMapping], Iterable[str]]) -> None:
        """Make ``state`` the live state behind ``session_id``: a new entry, or (for a session that
        restored the id) the entry's current state, the earlier one kept weakly."""
        now = self._clock()
        with self._lock:
            entry = self._entries.get(session_id)
            if entry is None:
                self._entries[session_id] = _Entry(state=state, keys=keys, last_used=now)
            else:
                entry.point_to(state)
                entry.last_used = now

    def touch(self, session_id: str, state: MutableMapping | None = None) -> bool:
        """Mark the entry as used now, by ``state`` if given (the session that ran last is the one a
        reload gets back); False when there is no entry (never created, expired or forgotten)."""
        self.sweep()
        with self._lock:
            entry = self._entries.get(session_id)
            if entry is None:
                return False
            if state is not None:
                entry.point_to(state)
            entry.last_used = self._clock()
            return True

    def forget(self, session_id: str) -> bool:
        """Delete the entry and the user's work in the state it points to; True when there was one."""
        with self._lock:
            entry = self._entries.pop(session_id, None)
        if entry is None:
            return False
        _clear(entry)
        return True

    def sweep(self) -> list[str]:
        """Delete every expired entry with the data it points to; returns the ids deleted."""
        now = self._clock()
        with self._lock:
            expired = [sid for sid, e in self._entries.items() if now - e.last_used > self.idle_after]
            entries = [self._entries.pop(sid) for sid in expired]
        for entry in entries:
            _clear(entry)
        return expired

    # --------------------------------------------------------------------------------------- reads
    def restore(self, session_id: str) -> dict[str, object] | None:
        """The user's work kept under ``session_id`` (key → value), or None if there is no live entry.

        Only the holder of the id gets anything: there is no listing and no lookup by anything else.
        """
        self.sweep()
        with self._lock:
            entry = self._entries.get(session_id)
            if entry is None:
                return None
            entry.last_used = self._clock()
            state = entry.state
            keys = _keys_of(entry, state)
        restored = {}
        for key in keys:
            try:
                if key in state:
                    restored[key] = state[key]
            except Exception:  # a mapping of a closed session may refuse; the rest is still restorable
                continue
        return restored

    def __contains__(self, session_id: object) -> bool:
        with self._lock:
            return session_id in self._entries

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def idle_for(self, session_id: str) -> float | None:
        """Seconds since the entry was last used, or None without an entry."""
        with self._lock:
            entry = self._entries.get(session_id)
            return None if entry is None else self._clock() - entry.last_used


def _keys_of(entry: _Entry, state: MutableMapping) -> list[str]:
    try:
        return list(entry.keys(state))
    except Exception:  # the state of a closed session may refuse to list its keys
        return []


def _clear(entry: _Entry) -> None:
    """Delete the user's work from every state the entry reaches (so an open, idle tab loses it too)."""
    for state in entry.all_states():
        for key in _keys_of(entry, state):
            try:
                if key in state:
                    del state[key]
            except Exception:  # a key that cannot be deleted goes with the entry's reference anyway
                continue


class Sweeper:
    """A daemon thread that sweeps a store at a fixed interval, so that expired data is deleted even
    when nobody uses the app (a page run sweeps too)."""

    def __init__(self, store: SessionStore, interval: float) -> None:
        self._store = store
        self._interval = max(1.0, float(interval))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="privcore-session-sweeper", daemon=True)

    def start(self) -> "Sweeper":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self._store.sweep()


_STORE: SessionStore | None = None
_STORE_LOCK = threading.Lock()


def process_store(idle_after: float) -> SessionStore:
    """The one store of this server process (created on first use, with its sweeper thread)."""
    global _STORE
    with _STORE_LOCK:
        if _STORE is None:
            _STORE = SessionStore(idle_after)
            Sweeper(_STORE, interval=min(60.0, idle_after / 4)).start()
        else:
            _STORE.idle_after = float(idle_after)
        return _STORE
