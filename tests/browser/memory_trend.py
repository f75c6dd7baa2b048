"""The load test's leak measure: how much memory grows over a run of evaluations, robust to single readings."""

from __future__ import annotations

import itertools
import statistics


def memory_growth(trace: list[float], period: int, runs: int) -> float:
    """Growth of ``trace`` over ``runs`` evaluations, as a share of its median level.

    ``trace`` is the memory read after each evaluation, the demo scenarios loaded in a cycle of ``period``. A leak
    adds memory with every run; the readings also move by a few per cent from one run to the next (which scenario
    ran last, when the collector ran). Two single readings, before and after, then differ by up to 10 % with no leak
    at all (−10.06 % in one fresh-clone run whose readings trended up by 0.25 %). So the growth is the median of the
    slopes between every two readings after the same scenario (Theil–Sen: up to 29 % of the readings can be off
    without moving it), times ``runs``: an estimate of the leak per ``runs`` evaluations, not of one reading's noise.
    Falling memory is no leak, and reads as growth below zero.

    Examples
    --------
    >>> round(memory_growth([100, 90, 102, 92, 104, 94], period=2, runs=6), 3)  # +2 per run after each scenario
    0.062
    >>> memory_growth([100, 130, 100, 130, 100, 130], period=2, runs=6)  # scenario-to-scenario swings: no growth
    0.0
    """
    pairs = [(i, j) for i, j in itertools.combinations(range(len(trace)), 2) if (j - i) % period == 0]
    if not pairs:
        raise ValueError(f"need two readings after the same scenario: {len(trace)} readings, cycle of {period}")
    slope = statistics.median((trace[j] - trace[i]) / (j - i) for i, j in pairs)
    return slope * runs / statistics.median(trace)
