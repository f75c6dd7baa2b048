"""Per-user limits of a shared server with sign-in: running computations and memory held.

No Streamlit import, so that the limits are testable in plain Python.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass

from dashboard.session import store as session_store
from privcore.base import InputError, format_bytes
from privcore.data import machine_memory, parse_size

LOGGER = logging.getLogger(__name__)

JOBS_VARIABLE = "PRIVCORE_USER_JOBS"
MEMORY_VARIABLE = "PRIVCORE_USER_MEMORY"
DEFAULT_JOBS = 2
#: Without a known machine size (not POSIX): 4 GiB per user.
FALLBACK_MEMORY = 4 * 1024**3
#: Keys of a session's state whose tables count as memory held (:mod:`dashboard.session.state`).
_TABLE_KEYS = ("tables", "reference", "audit_tables")


class UserLimitReached(InputError):
    """A signed-in user asked for more than their share of the server (the message says which and why)."""


def max_jobs(configured: object = None) -> int:
    """Computations one signed-in user may have running at once.

    Parameters
    ----------
    configured : object, optional
        ``user_jobs`` from the app's secrets; the environment variable :data:`JOBS_VARIABLE` takes
        precedence. Invalid or non-positive values are logged and fall back to :data:`DEFAULT_JOBS`.
    """
    for source, candidate in ((JOBS_VARIABLE, os.environ.get(JOBS_VARIABLE)), ("user_jobs", configured)):
        if candidate is None or str(candidate).strip() == "":
            continue
        try:
            value = int(str(candidate).strip())
        except ValueError:
            value = 0
        if value >= 1:
            return value
        LOGGER.warning("%s=%r is not a whole number of at least 1; using %d", source, candidate, DEFAULT_JOBS)
    return DEFAULT_JOBS


def default_memory() -> int:
    """A quarter of the machine's memory (the server's budget for one evaluation is half of it)."""
    total = machine_memory()
    return FALLBACK_MEMORY if total is None else total // 4


def max_memory(configured: object = None) -> int:
    """Bytes of tables one signed-in user may hold in the server's memory.

    Parameters
    ----------
    configured : object, optional
        ``user_memory`` from the app's secrets (``"2GB"``, ``"512 MiB"``, or bytes); the environment
        variable :data:`MEMORY_VARIABLE` takes precedence. Invalid values are logged and fall back to
        :func:`default_memory`.
    """
    for source, candidate in ((MEMORY_VARIABLE, os.environ.get(MEMORY_VARIABLE)), ("user_memory", configured)):
        if candidate is None or str(candidate).strip() == "":
            continue
        try:
            return parse_size(str(candidate))
        except InputError:
            LOGGER.warning("%s=%r is not a size such as 2GB; using a quarter of the machine's memory",
                           source, candidate)
    return default_memory()


# ------------------------------------------------------------------------------------ who is asking
@dataclass(frozen=True)
class User:
    """The signed-in user of the running page and the limits that apply to them."""

    owner: str
    jobs: int = DEFAULT_JOBS
    memory: int = FALLBACK_MEMORY


_CURRENT = threading.local()


def set_current_user(user: User | None) -> None:
    """Say who the page run in this thread is for (None: sign-in is off, no per-user limits).

    Notes
    -----
    The page run says who is asking (a thread-local: Streamlit runs each session's script in its own thread,
    and :func:`dashboard.compute.run_job` is called from that thread).
    """
    _CURRENT.user = user


def current_user() -> User | None:
    """The user set by :func:`set_current_user` in this thread, if any."""
    return getattr(_CURRENT, "user", None)


# --------------------------------------------------------------------------------------- jobs
_RUNNING: dict[str, int] = {}
_RUNNING_LOCK = threading.Lock()


def running_jobs(owner: str) -> int:
    """Computations of ``owner`` running now."""
    with _RUNNING_LOCK:
        return _RUNNING.get(owner, 0)


@contextlib.contextmanager
def job_slot(user: User | None = None) -> Iterator[None]:
    """Hold one of the user's computation slots while the body runs.

    Parameters
    ----------
    user : User, optional
        Defaults to :func:`current_user`; without a user (sign-in off) the body runs unlimited.

    Raises
    ------
    UserLimitReached
        When the user already has ``user.jobs`` computations running; nothing is started.

    Notes
    -----
    With sign-in on (:mod:`dashboard.session.sign_in`), several people share one server's worker pool and memory. So
    that one of them cannot take it all, each signed-in user may have at most

    - :func:`max_jobs` computations running at once (evaluations, lab runs, audits, timing estimates), over
      all of their tabs: ``PRIVCORE_USER_JOBS`` or ``user_jobs`` in ``.streamlit/secrets.toml``, default 2;
    - :func:`max_memory` bytes of tables held in the server's memory over all of their sessions:
      ``PRIVCORE_USER_MEMORY`` or ``user_memory`` (a size such as ``"2GB"``), default a quarter of the
      machine's memory.

    A request beyond a limit is refused with :class:`UserLimitReached` (an :class:`InputError`, so that the
    pages show its message as they show other input problems) before anything is started or stored, so
    nothing of the user's, and nothing of anyone else's, is lost. Without sign-in there are no users to tell
    apart and no limit applies (the server's memory budget, :mod:`privcore.data.memory`, and the upload cap
    still do).
    """
    user = user if user is not None else current_user()
    if user is None:
        yield
        return
    with _RUNNING_LOCK:
        running = _RUNNING.get(user.owner, 0)
        if running >= user.jobs:
            raise UserLimitReached(
                f"You already have {running} computation{'s' if running != 1 else ''} running on this server, "
                f"the most one user may have at once ({user.jobs}). Wait for one to finish (in this tab or "
                "another of yours), then start this one again. Nothing was lost.")
        _RUNNING[user.owner] = running + 1
    try:
        yield
    finally:
        with _RUNNING_LOCK:
            left = _RUNNING.get(user.owner, 1) - 1
            if left > 0:
                _RUNNING[user.owner] = left
            else:
                _RUNNING.pop(user.owner, None)


# ------------------------------------------------------------------------------------- memory
#: Deep size of a table by content hash: measuring object columns walks every string, once is enough.
_SIZES: dict[str, int] = {}
_SIZES_KEPT = 512


def table_bytes(table) -> int:
    """Bytes of a loaded table (:class:`dashboard.session.state.LoadedTable`) or a DataFrame, strings included."""
    frame = getattr(table, "frame", table)
    key = getattr(table, "content_hash", None)
    if key is not None and key in _SIZES:
        return _SIZES[key]
    try:
        size = int(frame.memory_usage(deep=True, index=True).sum())
    except Exception:  # not a table: counts nothing
        return 0
    if key is not None:
        if len(_SIZES) >= _SIZES_KEPT:
            _SIZES.pop(next(iter(_SIZES)))
        _SIZES[key] = size
    return size


def _tables_in(value) -> list:
    """The tables a session-state value holds: a Tables bundle, a table, or a mapping/list of them."""
    if value is None:
        return []
    if hasattr(value, "synthetic") and hasattr(value, "real"):  # dashboard.session.state.Tables
        return [t for t in (value.real, *value.synthetic.values(), value.holdout) if t is not None]
    if hasattr(value, "memory_usage") or hasattr(value, "frame"):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tables_in(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tables_in(v)]
    return []


def state_bytes(state: MutableMapping) -> int:
    """Bytes of the tables one session's state holds (each table counted once)."""
    seen, total = set(), 0
    for key in _TABLE_KEYS:
        try:
            value = state.get(key)
        except Exception:  # the state of a closed session may refuse
            continue
        for table in _tables_in(value):
            if id(table) not in seen:
                seen.add(id(table))
                total += table_bytes(table)
    return total


def held_bytes(owner: str, store: session_store.SessionStore | None = None) -> int:
    """Bytes of tables that all live sessions of ``owner`` hold in this server's memory."""
    store = store if store is not None else session_store.current_store()
    if store is None:
        return 0
    return sum(state_bytes(state) for state in store.owned_states(owner))


def check_memory(new_bytes: int, what: str, user: User | None = None,
                 store: session_store.SessionStore | None = None) -> None:
    """Refuse a table that would take the user past their memory limit.

    Parameters
    ----------
    new_bytes : int
        Size of what is about to be stored.
    what : str
        Its name for the message (the file's name).
    user : User, optional
        Defaults to :func:`current_user`; without a user nothing is checked.
    store : SessionStore, optional
        Defaults to the process's store.

    Raises
    ------
    UserLimitReached
        With the bytes held, the table's size, the limit and what to do; nothing is stored.
    """
    user = user if user is not None else current_user()
    if user is None:
        return
    held = held_bytes(user.owner, store)
    if held + new_bytes > user.memory:
        raise UserLimitReached(
            f"{what} ({format_bytes(new_bytes)} in memory) was not loaded: with the {format_bytes(held)} of "
            f"tables you already hold on this server it would pass the limit of {format_bytes(user.memory)} per "
            "user. Remove tables you no longer need, or use \"Forget my data now\" in a tab you are done with, "
            f"then upload it again (the server's administrator sets the limit: {MEMORY_VARIABLE}).")
