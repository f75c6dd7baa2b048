"""The Compare-metrics page's run-time estimate: two evaluations timed on the user's table, once per session.

No Streamlit import; the page reaches these through :mod:`dashboard.lab.view`.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, MutableMapping, Sequence

import pandas as pd
from threadpoolctl import threadpool_limits

from dashboard.lab.runs import guarded
from privcore import evaluate
from privcore.base import format_duration
from privcore.data import Schema
from privcore.lab import evaluations_needed, split_tables

TIMINGS = "lab_timings"


@dataclass(frozen=True)
class Timing:
    """Seconds of the first evaluation on this table and of a second one.

    The first also computes the passes every run shares; the second is what each further synthetic table costs.
    """

    first: float
    next: float

    def seconds(self, evaluations: int) -> float:
        """Estimated seconds of ``evaluations`` evaluations."""
        return self.first + max(evaluations - 1, 0) * self.next


def timing_key(*parts: Any) -> str:
    """Cache key of a timing: the tables' hashes, the schema, the metrics and the seed."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


def time_evaluations(training: pd.DataFrame, holdout: pd.DataFrame | None, synthetic: Sequence[pd.DataFrame],
                     schema: Schema, metrics: Sequence[str], seed: int,
                     params: Mapping[str, Any] | None = None) -> Timing:
    """Time two evaluations as the lab runs them (same tables' sizes, shared passes, one BLAS thread).

    ``synthetic`` holds two tables like the lab's (fresh real rows of the holdout's size, or two supplied
    tables). The first evaluation computes the passes every run shares; the second costs what each further
    table costs. Errors of a metric do not stop the timing; bad input raises as in the lab.
    """
    reuse: dict = {}
    seconds = []
    with threadpool_limits(limits=1, user_api="blas"):
        for i, table in enumerate(synthetic[:2]):
            started = time.perf_counter()
            evaluate(training, table, schema, metrics=list(metrics), holdout=holdout, seed=seed + i,
                     params=params, reuse=reuse)
            seconds.append(time.perf_counter() - started)
    return Timing(seconds[0], seconds[-1])


def generated_probe_tables(real: pd.DataFrame, holdout: pd.DataFrame | None, schema: Schema,
                           seed: int) -> tuple[pd.DataFrame, pd.DataFrame, list[pd.DataFrame]]:
    """Training table, holdout and two fresh samples, split exactly as :func:`privcore.lab.run` splits."""
    given = [t[schema.columns] for t in (real, holdout) if t is not None]
    training, evaluation, population = split_tables(given[0], given[1] if holdout is not None else None, seed)
    fresh = [population.sample(len(evaluation), random_state=seed + i).reset_index(drop=True) for i in range(2)]
    return training, evaluation, fresh


def timing(state: MutableMapping, key: str, measure: Callable[[], Timing]) -> tuple[Timing | None, str | None]:
    """The timing under ``key``, measured once per session; or None and the message of an input error.

    The message is that of the input error the measurement ran into (the lab would run into it too, e.g. a supplied
    table whose columns differ).

    Notes
    -----
    Session-state key used here (declared in :data:`dashboard.session.state.DEFAULTS`), in the session's
    memory only:

    - ``lab_timings`` — timing key → :class:`Timing` of one evaluation on this table with these metrics.
    """
    timings = state.setdefault(TIMINGS, {})
    if key not in timings:
        measured, error = guarded(measure)
        if measured is None:
            return None, error
        timings[key] = measured
    return timings[key], None


def estimate_text(seconds: float, evaluations: int, measured: Timing) -> str:
    """The sentence shown before a run: an estimate, and what it rests on.

    >>> estimate_text(42.0, 30, Timing(2.0, 1.38))
    'Estimated run time: about 40 s for 30 evaluations (an estimate from timing two evaluations of the chosen metrics on this table: 2.0 s for the first, 1.4 s for each further one; leaked tables can take somewhat more or less).'
    """
    return (f"Estimated run time: {format_duration(seconds)} for {evaluations:,} evaluations (an estimate from "
            f"timing two evaluations of the chosen metrics on this table: {measured.first:.1f} s for the first, "
            f"{measured.next:.1f} s for each further one; leaked tables can take somewhat more or less).")


def generated_evaluations(settings: Mapping[str, Any]) -> int:
    """Synthetic tables a generated lab evaluates (:func:`privcore.lab.evaluations_needed`)."""
    return evaluations_needed(settings["leaks"], settings["levels"], settings["seeds"])
