"""Server-memory store that lets a browser session's work survive a reload.

No Streamlit import, so that the expiry and isolation rules are testable in plain Python;
:mod:`dashboard.session.persistence` connects it to the pages.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import dataclass, field

#: Environment variable that sets the idle time in minutes (also ``session_idle_minutes`` in
#: ``.streamlit/secrets.toml``, read by :mod:`dashboard.session.persistence`).
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


#: Key of :func:`owner_token`: random per server process and never written anywhere, so that an owner token
#: means nothing outside this process and a restart unbinds nothing that outlives it (the entries go too).
_OWNER_KEY = secrets.token_bytes(32)


def owner_token(issuer: str, subject: str) -> str:
    """The in-memory mark of a signed-in user that entries are bound to.

    Parameters
    ----------
    issuer : str
        The identity provider's issuer (``iss`` claim), so that equal subjects of two providers differ.
    subject : str
        The provider's stable id of the user (``sub`` claim), unlike an e-mail address never reassigned.

    Returns
    -------
    str
        Hex HMAC-SHA256 of both under a per-process random key: equal for the same user during this
        process's life, unrelated to the identity outside it.
    """
    message = f"{issuer}\x00{subject}".encode()
    return hmac.new(_OWNER_KEY, message, hashlib.sha256).hexdigest()


def new_id() -> str:
    """An unguessable session id (URL-safe text, 256 random bits)."""
    return secrets.token_urlsafe(_ID_BYTES)


@dataclass
class _Entry:
    state: MutableMapping
    keys: Callable[[MutableMapping], Iterable[str]]
    last_used: float
    # owner_token() of the signed-in user who created the entry; None when sign-in is off.
    owner: str | None = None
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

    Notes
    -----
    A reload, or a page URL typed into the address bar, opens a new Streamlit session with an empty
    ``st.session_state``. This store keeps, per browser session, a reference to the state the session
    works in, under an unguessable id that the browser carries in the URL's query string
    (``?session=ID``) and in a cookie. A new session that presents a live id gets the work back.

    Nothing here touches the disk: entries live in this process's memory only. An entry expires after
    an idle time (:func:`idle_seconds`, default 30 minutes) and is deleted, together with the data it
    points to, by whichever comes first of a sweep (every page run, and a background sweeper thread) and
    the user's "Forget my data now" button. An id is 32 random bytes from :mod:`secrets` (256 bits);
    without it no other session can reach the entry.

    With sign-in on (:mod:`dashboard.session.sign_in`), an entry is also bound to its owner: the user who created
    it, kept as :func:`owner_token` (an HMAC of the provider's issuer and subject under a key made at start-up
    and held in this process's memory only). A restore, touch or forget presented by anyone else, or by
    nobody, gets nothing, so a copied or guessed link alone does not open the data.
    """

    def __init__(self, idle_after: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.idle_after = float(idle_after)
        self._clock = clock
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.RLock()

    # -------------------------------------------------------------------------------------- writes
    def attach(self, session_id: str, state: MutableMapping,
               keys: Callable[[MutableMapping], Iterable[str]], owner: str | None = None) -> bool:
        """Make ``state`` the live state behind ``session_id``.

        Either a new entry bound to ``owner``, or (for a session that restored the id) the entry's current state, the
        earlier one kept weakly.

        Returns False, changing nothing, when the entry belongs to another owner.
        """
        now = self._clock()
        with self._lock:
            entry = self._entries.get(session_id)
            if entry is None:
                self._entries[session_id] = _Entry(state=state, keys=keys, last_used=now, owner=owner)
                return True
            if entry.owner != owner:
                return False
            entry.point_to(state)
            entry.last_used = now
            return True

    def touch(self, session_id: str, state: MutableMapping | None = None, owner: str | None = None) -> bool:
        """Mark the entry as used now, by ``state`` if given.

        The session that ran last is the one a reload gets back. False when there is no entry (never created, expired or
        forgotten) or it belongs to another owner than ``owner``.
        """
        self.sweep()
        with self._lock:
            entry = self._entries.get(session_id)
            if entry is None or entry.owner != owner:
                return False
            if state is not None:
                entry.point_to(state)
            entry.last_used = self._clock()
            return True

    def forget(self, session_id: str, owner: str | None = None) -> bool:
        """Delete the entry and the user's work in the state it points to; True when there was one.

        An entry of another owner is left alone (False): a link must not let anyone delete others' work.
        """
        with self._lock:
            entry = self._entries.get(session_id)
            if entry is None or entry.owner != owner:
                return False
            del self._entries[session_id]
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
    def restore(self, session_id: str, owner: str | None = None) -> dict[str, object] | None:
        """The user's work kept under ``session_id`` (key → value), or None.

        None if there is no live entry or it belongs to another owner than ``owner``.

        Only the holder of the id (and, with sign-in on, only its owner) gets anything: there is no
        listing and no lookup by anything else.
        """
        self.sweep()
        with self._lock:
            entry = self._entries.get(session_id)
            if entry is None or entry.owner != owner:
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

    def belongs_to_other(self, session_id: str | None, owner: str | None) -> bool:
        """True when ``session_id`` is a live entry of someone other than ``owner``.

        The page then says so instead of calling the link expired. Tells nothing else about the entry.
        """
        if not session_id:
            return False
        self.sweep()
        with self._lock:
            entry = self._entries.get(session_id)
            return entry is not None and entry.owner != owner

    def forget_owner(self, owner: str) -> int:
        """Delete every entry of ``owner`` with its data (signing out); returns how many there were."""
        with self._lock:
            ids = [sid for sid, e in self._entries.items() if e.owner == owner]
            entries = [self._entries.pop(sid) for sid in ids]
        for entry in entries:
            _clear(entry)
        return len(entries)

    def owned_states(self, owner: str) -> list[MutableMapping]:
        """The live states of every entry of ``owner`` (for the per-user memory limit), each once."""
        with self._lock:
            entries = [e for e in self._entries.values() if e.owner == owner]
        seen, states = set(), []
        for entry in entries:
            for state in entry.all_states():
                if id(state) not in seen:
                    seen.add(id(state))
                    states.append(state)
        return states

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
    """A daemon thread that sweeps a store at a fixed interval.

    Expired data is thus deleted even when nobody uses the app (a page run sweeps too).
    """

    def __init__(self, store: SessionStore, interval: float) -> None:
        self._store = store
        self._interval = max(1.0, float(interval))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="privcore-session-sweeper", daemon=True)

    def start(self) -> "Sweeper":
        """Start the sweeping thread; returns the sweeper."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Ask the sweeping thread to stop (it ends at its next wake-up)."""
        self._stop.set()

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self._store.sweep()


_STORE: SessionStore | None = None
_STORE_LOCK = threading.Lock()


def current_store() -> SessionStore | None:
    """The process's store if a page has created it, else None (nothing held yet)."""
    return _STORE


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
