"""The lab's evaluations on several cores or on a Dask cluster (the lab runs as tasks)."""

from __future__ import annotations

import multiprocessing
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from privcore.base import one_blas_thread
from privcore.data import Schema
from privcore.evaluation import Dataset, EvaluationOptions, evaluate_dataset
from privcore.lab.frontier import TablePoint, table_point

#: Scores of one evaluation: metric id → (risk, baseline).
Scores = dict[str, tuple[float | None, float | None]]


@dataclass(frozen=True)
class Outcome:
    """One evaluation's scores, with the errors and not-applicable reasons it reported."""

    scores: Scores
    errors: tuple[str, ...] = ()
    reasons: tuple[tuple[str, str], ...] = ()
    #: The table as a point of the privacy–utility frontier (:mod:`privcore.lab.frontier`); None without one.
    point: TablePoint | None = None


@dataclass(frozen=True)
class EvaluationSetup:
    """What every evaluation of one lab shares; sent once to each process or cluster worker."""

    training: pd.DataFrame
    holdout: pd.DataFrame | None
    schema: Schema
    metrics: tuple[str, ...]
    params: Any
    names: dict
    share_passes: bool = True
    #: Utility measures evaluated beside ``metrics`` for the frontier (:mod:`privcore.lab.frontier`).
    utility: tuple[str, ...] = ()
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    def evaluate(self, reuse: dict | None, table: pd.DataFrame, seed: int, label: str, *,
                 workers: int | None = None) -> Outcome:
        """Evaluate one synthetic table (``reuse``: the passes shared with earlier evaluations, or None)."""
        dataset = Dataset(self.training, table, self.holdout, schema=self.schema,
                          names={**self.names, "synthetic": label})
        report = evaluate_dataset(dataset, [*self.metrics, *self.utility],
                                  EvaluationOptions(seed=seed, params=self.params, reuse=reuse, workers=workers))
        reasons = tuple((m, report[m].reason) for m in self.metrics
                        if report[m].risk is None and report[m].reason)
        return Outcome({m: (report[m].risk, report[m].baseline) for m in self.metrics},
                       tuple(f"{label}: {error}" for error in report.errors), reasons,
                       table_point(report) if self.utility else None)


# ------------------------------------------------------------------------------- in a worker process

#: Per worker process (or Dask worker): setup token → (setup, its reuse dict).
_INSTALLED: dict[str, tuple[EvaluationSetup, dict | None]] = {}


def _install(setup: EvaluationSetup) -> None:
    _INSTALLED.setdefault(setup.token, (setup, {} if setup.share_passes else None))


def _evaluate_installed(token: str, table: pd.DataFrame, seed: int, label: str) -> Outcome:
    setup, reuse = _INSTALLED[token]
    with one_blas_thread():
        return setup.evaluate(reuse, table, seed, label, workers=1)


def _evaluate_on_cluster(setup: EvaluationSetup, table: pd.DataFrame, seed: int, label: str) -> Outcome:
    _install(setup)
    return _evaluate_installed(setup.token, table, seed, label)


# ------------------------------------------------------------------------------------------ the caller

#: A task: (position, table, seed, label).
Task = tuple[int, pd.DataFrame, int, str]


def in_daemon_process() -> bool:
    """True inside a daemonic process (such as the dashboard's worker pool), which may not start children."""
    return bool(multiprocessing.current_process().daemon)


def run_tasks(setup: EvaluationSetup, tasks: Iterator[Task], *, workers: int, client: Any = None,
              on_done: Callable[[int, Outcome], None]) -> None:
    """Evaluate every task on ``workers`` processes or on the Dask ``client``.

    ``on_done(position, outcome)`` is called on the calling thread as each finishes (in any order).

    At most two tasks per worker are in flight, so only that many synthetic tables are held at once.

    Notes
    -----
    A lab is many independent evaluations of one training table and holdout against different synthetic
    tables. The synthetic tables are drawn on the caller (drawing is cheap and keeps the seeds where they
    were); each evaluation is one task:

    - ``workers > 1``: a pool of that many spawned processes, each set up once with what every evaluation
      shares (:class:`EvaluationSetup`) and keeping its own ``reuse`` dict, so the passes that do not involve
      the synthetic table are computed once per process instead of once per lab;
    - ``cluster``: a ``dask.distributed`` cluster (:mod:`privcore.engine.cluster`: an address, ``"local:N"`` or a
      Client); the setup is sent to every worker once and each worker keeps its own ``reuse`` dict.

    Each evaluation uses one thread inside its task (the tasks are the parallelism). Scores do not depend on
    where an evaluation ran or on what it reused, so the lab's result is identical to the sequential run; only
    the count of evaluations that reused passes differs, which the result does not report.
    """
    if client is not None:
        _run_on_cluster(setup, tasks, client, on_done)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_install,
                             initargs=(setup,)) as pool:
        _drain(lambda task: pool.submit(_evaluate_installed, setup.token, *task[1:]), tasks, 2 * workers,
               on_done)


def _drain(submit: Callable[[Task], Future], tasks: Iterator[Task], window: int,
           on_done: Callable[[int, Outcome], None]) -> None:
    running: dict[Future, int] = {}
    try:
        for task in tasks:
            while len(running) >= window:
                _collect(running, on_done)
            running[submit(task)] = task[0]
        while running:
            _collect(running, on_done)
    except BaseException:
        for future in running:
            future.cancel()
        raise


def _collect(running: dict[Future, int], on_done: Callable[[int, Outcome], None]) -> None:
    done, _ = wait(list(running), return_when=FIRST_COMPLETED)
    for future in done:
        on_done(running.pop(future), future.result())


def _run_on_cluster(setup: EvaluationSetup, tasks: Iterator[Task], client: Any,
                    on_done: Callable[[int, Outcome], None]) -> None:
    import distributed  # lazy: optional extra privcore[dask]

    (scattered,) = client.scatter([setup], broadcast=True, hash=False)
    window = 2 * max(1, len(client.scheduler_info().get("workers", {})))
    queue = distributed.as_completed()
    positions: dict[str, int] = {}
    submitted = []
    try:
        for position, table, seed, label in tasks:
            while len(positions) >= window:
                future = next(queue)
                on_done(positions.pop(future.key), future.result())
            future = client.submit(_evaluate_on_cluster, scattered, table, seed, label, pure=False)
            positions[future.key] = position
            submitted.append(future)
            queue.add(future)
        for future in queue:
            on_done(positions.pop(future.key), future.result())
    except BaseException:
        client.cancel(submitted)  # stop what has not run yet
        raise
