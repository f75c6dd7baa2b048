"""The shared-model audit's generator fits as independent tasks, in this process or in a pool of processes."""

from __future__ import annotations

import multiprocessing
import time
import traceback
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.audit.factory import GeneratorFactory, model_for_fit
from privcore.audit.features import SharedFeatures
from privcore.audit.whitebox import loss_matrix
from privcore.base import InputError, one_blas_thread

__all__ = ["FitOutcome", "FitSetup", "GeneratorFactory", "fit_seed", "run_fits"]


@dataclass(frozen=True)
class FitOutcome:
    """One model: its features about every record (None when it failed), the error, seconds per phase."""

    index: int
    features: np.ndarray | None
    error: str | None
    seconds: dict[str, float]
    #: Shape (records, columns): the fitted model's loss on every pool record, when the audit is white-box.
    losses: np.ndarray | None = None


@dataclass(frozen=True)
class FitSetup:
    """What every fit of one audit shares; sent once to each worker process."""

    pool: pd.DataFrame
    membership: np.ndarray
    types: Mapping[str, str]
    extractor: SharedFeatures
    population: pd.DataFrame
    seed: int
    make: Callable[[pd.DataFrame], Any] | None = None
    generator: Any = None
    #: Also score every pool record with the fitted model's loss (:mod:`privcore.audit.whitebox`).
    whitebox: bool = False
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    def output(self, index: int) -> pd.DataFrame:
        """Model ``index``'s output: fitted on its training records, sampled with its own seed.

        The output has as many rows as the training set (as in the targeted audit), so that a generator that
        copies its training data returns it whole.
        """
        return self.fitted(index)[1]

    def fitted(self, index: int) -> tuple[Any, pd.DataFrame]:
        """Model ``index`` fitted, and its output (:meth:`output`)."""
        training = self.pool[self.membership[index]].reset_index(drop=True)
        seed = fit_seed(self.seed, index)
        model = model_for_fit(self.make, self.population, seed) if self.make is not None else self.generator
        try:
            model.fit(training, dict(self.types))
        except TypeError:  # an outside synthesizer with fit(table) only
            model.fit(training)
        output = model.sample(max(1, len(training)), seed=seed)
        if not isinstance(output, pd.DataFrame):
            raise InputError(f"The generator returned a {type(output).__name__}, not a table.")
        missing = [c for c in training.columns if c not in output.columns]
        if missing:
            raise InputError(f"The generator returned a table without the column(s) {', '.join(map(str, missing))}.")
        return model, output[list(training.columns)]

    def run(self, index: int) -> FitOutcome:
        """Model ``index`` as one task (one BLAS thread); a failure is returned, not raised."""
        clock = time.perf_counter
        seconds = {"fit_and_sample": 0.0, "features": 0.0}
        losses = None
        with one_blas_thread():
            try:
                began = clock()
                model, output = self.fitted(index)
                seconds["fit_and_sample"] = clock() - began
                began = clock()
                features = self.extractor.features(output)
                seconds["features"] = clock() - began
                if self.whitebox:
                    began = clock()
                    # The same noise seed for every model: a record's losses differ through the models alone.
                    losses = loss_matrix(model, self.pool, self.seed)
                    seconds["losses"] = clock() - began
            except Exception as exc:  # noqa: BLE001 - one failing model is reported, not fatal
                error = f"{type(exc).__name__}: {exc}"
                if not isinstance(exc, InputError):
                    error += "\n" + traceback.format_exc(limit=3)
                return FitOutcome(index, None, error, seconds)
        return FitOutcome(index, features, None, seconds, losses)


def fit_seed(seed: int, index: int) -> int:
    """The sampling seed of model ``index``: fixed by the audit's seed and the index alone.

    Examples
    --------
    >>> fit_seed(0, 3) == fit_seed(0, 3) != fit_seed(0, 4)
    True
    """
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0] % 2**31)


# ------------------------------------------------------------------------------- in a worker process

#: Per worker process: setup token → setup.
_INSTALLED: dict[str, FitSetup] = {}


def _install(setup: FitSetup) -> None:
    _INSTALLED.setdefault(setup.token, setup)


def _run_installed(token: str, index: int) -> FitOutcome:
    return _INSTALLED[token].run(index)


def _run_on_worker(setup: FitSetup, index: int) -> FitOutcome:
    # A Dask worker deserialises the scattered setup once; keeping it by token lets later tasks reuse it.
    _install(setup)
    return _run_installed(setup.token, index)


# ------------------------------------------------------------------------------------------ the caller


def run_fits(setup: FitSetup, indices: Sequence[int], *, workers: int,
             on_done: Callable[[FitOutcome], None], client: Any = None) -> None:
    """Run model ``indices`` on ``workers`` processes (1: here) or on the Dask ``client``.

    ``on_done(outcome)`` runs on this thread as each finishes, in any order.

    Inside a daemonic process (the dashboard's worker pool), which may not start children, it runs here
    (unless a client is given: the cluster's workers are not this process's children).

    Notes
    -----
    Each task is one model: fit the generator on the pool records its row of the membership matrix selects,
    draw one output with a seed fixed by the model's index, and return that output's features about every
    pool record (:class:`privcore.audit.features.SharedFeatures`) and, in a white-box audit, the fitted model's
    loss on every pool record (:func:`privcore.audit.whitebox.loss_matrix`; the model itself is not sent back).
    Nothing in a task depends on where it ran or on the tasks before it, so the audit's result is the same for
    any number of workers: every task runs with one BLAS thread, in a worker as in this process, and the
    features are computed by the same code.

    Processes are spawned (as :mod:`privcore.lab.parallel` does) and set up once with what every task shares
    (:class:`FitSetup`); the generator must then be picklable, for instance a :class:`GeneratorFactory`
    rather than a local function. On a Dask cluster (a ``distributed.Client``, see :mod:`privcore.engine.cluster`)
    the setup is scattered to every worker once and each fit is one task, the same function as in a process.
    """
    if client is not None:
        _run_on_cluster(setup, indices, client, on_done)
        return
    if workers <= 1 or multiprocessing.current_process().daemon:
        for index in indices:
            on_done(setup.run(index))
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_install,
                             initargs=(setup,)) as pool:
        # At most two tasks per worker in flight: the results (features) are small, but cancelling on an
        # error or interrupt then wastes little.
        pending = iter(indices)
        running = set()
        try:
            for index in pending:
                while len(running) >= 2 * workers:
                    done, running = wait(running, return_when=FIRST_COMPLETED)
                    for future in done:
                        on_done(future.result())
                running.add(pool.submit(_run_installed, setup.token, index))
            while running:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    on_done(future.result())
        except BaseException:
            for future in running:
                future.cancel()
            raise


def _run_on_cluster(setup: FitSetup, indices: Sequence[int], client: Any,
                    on_done: Callable[[FitOutcome], None]) -> None:
    """Each fit a task on the cluster; the setup is sent to every worker once (hash=False: a key of its own)."""
    import distributed  # optional (privcore[dask]); a client exists, so it is installed

    (scattered,) = client.scatter([setup], broadcast=True, hash=False)
    # Two tasks per worker in flight, as with processes: an error or interrupt cancels little work.
    window = 2 * max(1, len(client.scheduler_info().get("workers", {})))
    queue = distributed.as_completed()
    submitted, in_flight = [], 0
    try:
        for index in indices:
            while in_flight >= window:
                on_done(next(queue).result())
                in_flight -= 1
            future = client.submit(_run_on_worker, scattered, index, pure=False)
            submitted.append(future)
            queue.add(future)
            in_flight += 1
        for future in queue:
            on_done(future.result())
    except BaseException:
        client.cancel(submitted)  # stop what has not run yet
        raise
