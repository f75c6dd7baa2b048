"""D-MLP on a thread of its own while the other metrics run."""

from __future__ import annotations

import contextlib
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Iterable

from privcore.base import one_blas_thread
from privcore.metrics import registry

#: Threads a background metric uses where fewer than the evaluation's. D-MLP's folds train as one stack of
#: networks (privcore.metrics._mlp.fit_together): most of a step is Python-level array calls, and a second
#: stack on its own thread would contend for the interpreter with the stack and with the main thread's passes.
#: Measured at 10,000 Adult rows, all 17 review metrics on 2 cores, five interleaved runs: one stack 3.90 s
#: median against two stacks 4.49 s.
BACKGROUND_THREADS = 1


def _declared(metric_id: str):
    try:
        return registry.get(metric_id)
    except KeyError:
        return None


def _thread(metric_id: str) -> str:
    info = _declared(metric_id)
    return info.thread if info is not None else ""


def background_ids(ids: Iterable[str], workers: int, cluster, reuse) -> list[str]:
    """The metrics of ``ids`` to run on the background thread.

    None on one core, with a Dask cluster (whose workers already run the fits) or with passes shared between evaluations
    (the metric lab runs many evaluations side by side), none when nothing else would run beside them, and none when a
    chosen metric calls BLAS on several threads (one whose declaration leaves ``one_thread_blas`` False: BLAS's rounding
    depends on its thread count, so a choice that includes one runs metric after metric, and the report never depends on
    the number of workers).

    Parameters
    ----------
    ids : iterable of str
        The evaluation's metrics, in order.
    workers : int
        Threads the evaluation may use.
    cluster : object or None
        The Dask client, if any.
    reuse : dict or None
        Passes shared between evaluations.

    Returns
    -------
    list of str

    Examples
    --------
    >>> background_ids(["dcr", "dmlp", "mir"], 2, None, None)
    ['dmlp']
    >>> background_ids(["dmlp"], 2, None, None), background_ids(["dcr", "dmlp"], 1, None, None)
    ([], [])
    >>> background_ids(["dcr", "dmlp", "mia_domias"], 2, None, None)
    []
    """
    ids = list(ids)
    chosen = [m for m in ids if _thread(m) == "background"]
    if (workers < 2 or cluster is not None or reuse is not None or len(chosen) == len(ids)
            or not all((info := _declared(m)) is not None and info.one_thread_blas for m in ids)):
        return []
    return chosen


def background_workers(metric_id: str, workers: int) -> int:
    """Threads ``metric_id`` may use on the background thread (at most :data:`BACKGROUND_THREADS`).

    Parameters
    ----------
    metric_id : str
        A background metric.
    workers : int
        Threads the evaluation may use.

    Returns
    -------
    int

    Examples
    --------
    >>> background_workers("dmlp", 2), background_workers("dmlp", 1)
    (1, 1)
    """
    return min(workers, BACKGROUND_THREADS)


def claimable_ids(ids: Iterable[str], in_background: list[str]) -> list[str]:
    """The metrics of ``ids`` that the background thread may take once its own are done.

    None where nothing runs in the background (those declared with ``thread="either"``).

    Examples
    --------
    >>> claimable_ids(["dcr", "dmlp", "mir"], ["dmlp"]), claimable_ids(["dcr", "mir"], [])
    (['mir'], [])
    """
    return [m for m in ids if _thread(m) == "either" and m not in in_background] if in_background else []


@dataclass
class Beside:
    """The metrics of an evaluation that run on the background thread, and the claims on the claimable ones.

    Attributes
    ----------
    futures : dict of str to concurrent.futures.Future
        The background's own metrics.
    claimed : dict of str to concurrent.futures.Future
        Each claimable metric's result where the background thread takes it.

    Notes
    -----
    D-MLP is the longest single task of the review metrics (at 100,000 + 100,000 rows, 80–150 epochs of five
    networks: about as long as the 16 others together on 2 cores). Started on a background thread ahead of the other
    metrics, it trains its five folds as one stack on one thread while the others take the remaining cores, and
    fills their single-threaded stretches (preparing the tables, the FAMD fit, sorting and grouping in GCAP and AIR).
    The evaluation collects its result after every other metric has run: waiting for it at its place in the list
    would leave the cores to the background meanwhile. Once the others are done, D-MLP's stack is dealt to every
    core (``MetricContext.more_threads``). MIR goes to whichever thread is free first (declared with ``thread="either"``):
    the main thread at its place in the list, unless the background thread, done with D-MLP, has taken it. Always
    behind D-MLP it made the evaluation's last seconds where D-MLP is the longest task (100,000 distinct Adult
    rows, all 17: 155.2 s with MIR behind D-MLP, 149.0 s with MIR in turn); always in turn it did where D-MLP ends
    first (10,000 Adult rows on a 2-core AMD EPYC: the main thread still had NNAA and MIR to run when D-MLP ended).

    The results do not change: D-MLP reads only the encoded tables, which are computed ahead of the thread's start,
    and each network depends on its seed and split only, not on the thread it ran on or the networks beside it.
    BLAS is held at one thread for the whole evaluation while the background runs, because its thread limit is
    one setting for the whole process: passes that set and restore it on two threads at once would otherwise
    leave one of them with spinning BLAS threads (every pass and fit already runs its BLAS on one thread).
    """

    futures: dict[str, Future] = field(default_factory=dict)
    claimed: dict[str, Future] = field(default_factory=dict)
    #: Who took each claimable metric: "here" (the main thread), "background", or "nobody" (closed).
    _owner: dict[str, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, metric_id: str, by: str = "here") -> bool:
        """Claim ``metric_id`` for the calling thread (``by``: "here" or "background"): False where it is taken already.

        A metric that is not claimable always runs where it is asked.
        """
        if metric_id not in self.claimed:
            return True
        with self._lock:
            if metric_id in self._owner:
                return False
            self._owner[metric_id] = by
            return True

    def close(self) -> None:
        """Give every claimable metric not taken yet to nobody: the background thread takes none after this."""
        with self._lock:
            for metric_id in self.claimed:
                self._owner.setdefault(metric_id, "nobody")

    def run_claimable(self, run: Callable[[str], object]) -> None:
        """On the background thread, after its own metrics: run each claimable metric the main thread has not taken.

        They run in the order asked for, each setting its future.
        """
        for metric_id, future in self.claimed.items():
            if not self.take(metric_id, "background") or not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(run(metric_id))
            except BaseException as error:  # re-raised where the result is collected, as a future's would be
                future.set_exception(error)

    def collected(self) -> dict[str, Future]:
        """The results the background thread gives, once the main thread has come to the end of the list.

        Its own metrics come first, then the claimable metrics it took.
        """
        self.close()
        with self._lock:
            theirs = [m for m in self.claimed if self._owner[m] == "background"]
        return {**self.futures, **{m: self.claimed[m] for m in theirs}}


@contextlib.contextmanager
def running_in_background(ids: list[str], run: Callable[[str], object], prepare: Callable[[], bool],
                          claimable: list[str] | None = None):
    """Start ``run(metric_id)`` for each of ``ids`` in turn on one background thread; yield the :class:`Beside`.

    After ``ids``, the thread runs each of ``claimable`` that the calling thread has not taken (:meth:`Beside.take`).

    ``prepare()`` runs first, on the calling thread: it computes what the background metrics share with
    the others (the encoded tables), so that no cache is filled from two threads at once; where it returns
    False (the tables cannot be encoded: the metrics will say why when they run), nothing starts and the
    metrics run in turn as usual. On leaving, the thread is waited for, and BLAS's thread limit is restored.

    Parameters
    ----------
    ids : list of str
        Metrics to run in the background (may be empty: then nothing starts).
    run : callable
        Computes one metric's result.
    prepare : callable
        Fills the shared caches the background metrics read; True when it could.
    claimable : list of str, optional
        Metrics that either thread may run (:func:`claimable_ids`).

    Yields
    ------
    Beside
        With no futures and no claims when nothing was started.
    """
    if not ids or not prepare():
        yield Beside()
        return
    beside = Beside(claimed={metric_id: Future() for metric_id in claimable or ()})
    with one_blas_thread(), ThreadPoolExecutor(max_workers=1) as pool:
        beside.futures = {metric_id: pool.submit(run, metric_id) for metric_id in ids}
        if beside.claimed:
            pool.submit(beside.run_claimable, run)
        try:
            yield beside
        finally:
            beside.close()
            for future in beside.futures.values():
                future.cancel()  # only those not started yet; a running one is waited for by the pool
