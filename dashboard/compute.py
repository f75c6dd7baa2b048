"""Heavy computations run in worker processes, so that the server stays responsive (under load)."""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import gc
import itertools
import logging
import multiprocessing
import os
import sys
import threading
import time
import types
from collections.abc import Callable
from typing import Any

from dashboard.session import user_limits
from privcore.base import ProgressCallback
from privcore.base import usable_cores as privcore_usable_cores

LOGGER = logging.getLogger(__name__)

WORKERS_VARIABLE = "PRIVCORE_DASHBOARD_WORKERS"
WORKER_NICENESS = 19  # the lowest priority: batch work never delays a page load
_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")
_POLL_SECONDS = 0.2
_PROGRESS_INTERVAL = 0.1
_FINAL_PROGRESS_WAIT = 1.0  # seconds the server waits for a finished job's last progress message



def usable_cores() -> int:
    """Cores this process may run on: :func:`privcore.base.cores.usable_cores`.

    It counts the affinity, the cgroup quota and the thread variables, so that the pool and the computation agree on one
    answer.
    """
    return privcore_usable_cores()


def configured_workers() -> int:
    """Workers from ``PRIVCORE_DASHBOARD_WORKERS`` (0 = in the calling thread), else one per usable core."""
    text = os.environ.get(WORKERS_VARIABLE, "").strip()
    if text:
        try:
            return max(0, int(text))
        except ValueError:
            LOGGER.warning("%s=%r is not a whole number; using one worker per core", WORKERS_VARIABLE, text)
    return usable_cores()


# ----------------------------------------------------------------------------------- worker side
_progress_queue = None
_cancelled = None
#: Slots of the shared array of cancelled job ids (a job's slot is its id modulo this).
CANCEL_SLOTS = 256


class JobCancelled(Exception):
    """Raised inside a worker at the job's next progress report after the page that waited for it left."""


def _start_worker(progress_queue, cancelled) -> None:
    global _progress_queue, _cancelled
    _progress_queue, _cancelled = progress_queue, cancelled
    # Page loads and clicks of every session come first: the server process keeps its priority, the
    # batch work yields the cores to it (an evaluation takes a little longer while someone browses).
    _lower_priority()
    for name in _THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
    # The variables above come too late for the BLAS library: importing this module (to unpickle this very
    # function) already loaded numpy, and OpenBLAS started its thread pool then. Limit the loaded pools.
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)


def _lower_priority() -> None:
    """Every thread of this process at :data:`WORKER_NICENESS`, those already running included.

    On Linux a nice value belongs to one thread, and ``os.nice`` changes the calling thread's only. OpenBLAS
    starts its threads when numpy is imported, before this runs: with ``os.nice`` alone, half of a worker's
    matrix products ran at the server's priority (measured: 148 of 318 CPU ticks of a worker's products on a
    thread at nice 0), and page loads waited for them. Threads started later inherit the value.
    """
    try:
        threads = [int(name) for name in os.listdir("/proc/self/task")]
    except (OSError, ValueError):  # not Linux: a nice value belongs to the process
        threads = [0]
    for thread in threads:
        try:
            os.setpriority(os.PRIO_PROCESS, thread, WORKER_NICENESS)
        except (AttributeError, OSError):  # not POSIX, or the thread ended meanwhile
            pass


def _run_in_worker(job_id: int, environment: dict[str, str], function: Callable, args: tuple,
                   kwargs: dict) -> Any:
    """Apply the job's settings, run it with a throttled progress callback, restore the settings."""
    previous = {name: os.environ.get(name) for name in set(environment) | _privcore_variables()}
    for name in _privcore_variables() - set(environment):
        os.environ.pop(name, None)
    os.environ.update(environment)
    last = [0.0]

    def progress(fraction: float, message: str) -> None:
        now = time.monotonic()
        if now - last[0] >= _PROGRESS_INTERVAL or fraction >= 1.0:
            last[0] = now
            # Cooperative cancellation: a job stops at a progress report (every neighbour chunk and metric),
            # so a worker is free again soon after the user leaves, not when the job would have ended.
            if _cancelled is not None and _cancelled[job_id % CANCEL_SLOTS] == job_id:
                raise JobCancelled(f"job {job_id} was cancelled")
            _progress_queue.put((job_id, float(fraction), str(message)))

    try:
        return function(*args, progress=progress, **kwargs)
    finally:
        # Sent ahead of the result: the server waits for it, so the last progress message is never lost.
        _progress_queue.put((job_id, None, None))
        _release_memory()
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _release_memory() -> None:
    """Give the memory of a finished job back to the system.

    Otherwise glibc keeps freed blocks, and a worker would stay at the size of its largest job.
    """
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _privcore_variables() -> set[str]:
    return {name for name in os.environ if name.startswith("PRIVCORE_")}


# ----------------------------------------------------------------------------------- server side
_MAIN_LOCK = threading.Lock()


@contextlib.contextmanager
def _no_page_as_main():
    """While worker processes may start: a ``__main__`` module without a file for them to run again.

    Streamlit runs each page as the module ``__main__`` with the page's ``__file__``; a spawned worker runs
    the parent's main file again as ``__mp_main__``, so without this it would run a whole page outside any
    session (hundreds of "missing ScriptRunContext" warnings in the server log, and seconds lost per worker).
    The page's module is put back unless Streamlit has meanwhile started another script run.
    """
    with _MAIN_LOCK:
        page = sys.modules.get("__main__")
        stand_in = types.ModuleType("__main__")  # no __file__, no __spec__: the worker imports nothing for it
        sys.modules["__main__"] = stand_in
        try:
            yield
        finally:
            if sys.modules.get("__main__") is stand_in and page is not None:
                sys.modules["__main__"] = page


class ComputePool:
    """A process pool with progress reporting (one per server process, see :func:`shared_pool`).

    Notes
    -----
    Streamlit runs every session's script in a thread of one Python process. An evaluation holds Python's
    global interpreter lock for much of its time (pandas, scikit-learn and the metrics' own Python), so with
    a few evaluations running in threads a page load of anyone else waits seconds for its turn. Here the
    work goes to a pool of worker processes (one per usable core by default), and the script thread only
    waits, which releases the lock.

    - :func:`run_job` submits a picklable function with its arguments and waits, passing progress to a
      callback; an exception raised in the worker (an ``InputError`` with its message) is raised again here.
    - Progress travels through one queue shared by all workers; a dispatcher thread keeps each job's
      latest ``(fraction, message)``.
    - Workers use one BLAS/OpenMP thread each: the pool already uses every core, more threads per worker
      would only compete.
    - ``PRIVCORE_DASHBOARD_WORKERS``: number of workers; ``0`` runs jobs in the calling thread (for tests
      that patch privcore in-process). Settings the computation reads from the environment
      (``PRIVCORE_*``) are sent with each job, so a worker started earlier applies the current ones.
    - Nothing is written to disk: arguments and results travel through pipes between processes.
    """

    def __init__(self, workers: int) -> None:
        context = multiprocessing.get_context("spawn")  # never fork a multi-threaded server
        self.workers = workers
        self._queue = context.Queue()
        self._cancelled = context.Array("q", CANCEL_SLOTS)
        self._executor = concurrent.futures.ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_start_worker,
            initargs=(self._queue, self._cancelled))
        self._ids = itertools.count(1)
        self._latest: dict[int, tuple[float, str]] = {}
        self._finished: dict[int, threading.Event] = {}
        self._lock = threading.Lock()
        threading.Thread(target=self._dispatch, name="privcore-progress", daemon=True).start()

    def _dispatch(self) -> None:
        while True:
            try:
                job_id, fraction, message = self._queue.get()
            except (EOFError, OSError, ValueError):  # the queue was closed at shutdown
                return
            with self._lock:
                if fraction is None:
                    done = self._finished.get(job_id)
                    if done is not None:
                        done.set()
                elif job_id in self._latest:
                    self._latest[job_id] = (fraction, message)

    def run(self, function: Callable, *args: Any, progress: ProgressCallback | None = None,
            **kwargs: Any) -> Any:
        """Run ``function(*args, progress=..., **kwargs)`` in a worker and return its result.

        Waits in short steps, passing the latest progress to ``progress``; if the waiting thread is
        interrupted (the user left the page or pressed Stop), a job that has not started is dropped and a
        running one stops at its next progress report (:class:`JobCancelled`), which frees its worker.
        """
        job_id = next(self._ids)
        finished = threading.Event()
        with self._lock:
            self._latest[job_id] = (0.0, "waiting for a free worker…")
            self._finished[job_id] = finished
        environment = {name: os.environ[name] for name in _privcore_variables()}
        with _no_page_as_main():  # a submit may start a worker process
            future = self._executor.submit(_run_in_worker, job_id, environment, function, args, kwargs)
        shown = None

        def show_latest() -> None:
            nonlocal shown
            with self._lock:
                latest = self._latest.get(job_id)
            if progress is not None and latest is not None and latest != shown:
                shown = latest
                progress(*latest)

        try:
            while True:
                try:
                    result = future.result(timeout=_POLL_SECONDS)
                except concurrent.futures.TimeoutError:
                    show_latest()
                    continue
                finished.wait(_FINAL_PROGRESS_WAIT)
                show_latest()
                return result
        except BaseException:
            # The waiting page went away (Streamlit stops a script run by raising in it): drop a job that has
            # not started, and tell a running one to stop at its next progress report.
            if not future.cancel():
                self._cancelled[job_id % CANCEL_SLOTS] = job_id
            raise
        finally:
            with self._lock:
                self._latest.pop(job_id, None)
                self._finished.pop(job_id, None)

    def shutdown(self) -> None:
        """Stop the pool without waiting: queued jobs are cancelled, running ones finish on their own."""
        self._executor.shutdown(wait=False, cancel_futures=True)


_POOL: ComputePool | None = None
_POOL_LOCK = threading.Lock()


def shared_pool() -> ComputePool | None:
    """The server's pool (started on first use), or None when jobs run in the calling thread."""
    global _POOL
    workers = configured_workers()
    if workers == 0:
        return None
    with _POOL_LOCK:
        if _POOL is None or _POOL.workers != workers:
            if _POOL is not None:
                _POOL.shutdown()
            _POOL = ComputePool(workers)
        return _POOL


def run_job(function: Callable, *args: Any, progress: ProgressCallback | None = None, **kwargs: Any) -> Any:
    """Run ``function(*args, progress=progress, **kwargs)`` in the server's worker pool and return the result.

    It runs in this thread when the server has no pool. ``function`` and its arguments must be picklable (a module-level
    function).

    With sign-in on, the job takes one of the signed-in user's slots (:func:`dashboard.session.user_limits.job_slot`)
    while it runs; a user at the limit gets :class:`dashboard.session.user_limits.UserLimitReached` (an
    ``InputError``: the pages show its message) and nothing is started.
    """
    with user_limits.job_slot():
        return _run_job(function, *args, progress=progress, **kwargs)


def _run_job(function: Callable, *args: Any, progress: ProgressCallback | None = None, **kwargs: Any) -> Any:
    pool = shared_pool()
    if pool is None:
        return function(*args, progress=progress or (lambda fraction, message: None), **kwargs)
    try:
        return pool.run(function, *args, progress=progress, **kwargs)
    except concurrent.futures.process.BrokenProcessPool:
        # A worker died (e.g. killed by the system for memory): start a fresh pool for the next job.
        global _POOL
        with _POOL_LOCK:
            _POOL = None
        raise MemoryError("a worker process stopped unexpectedly (the system may have run out of memory)")
