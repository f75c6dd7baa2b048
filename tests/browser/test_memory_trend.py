"""The load test's leak measure (:func:`memory_trend.memory_growth`) on made-up memory traces."""

from __future__ import annotations

import numpy as np
import pytest
from memory_trend import memory_growth


@pytest.mark.parametrize("seed", range(20))
def test_a_leak_is_found_through_noise_that_moves_single_readings_by_ten_per_cent(seed):
    rng = np.random.default_rng(seed)
    runs, period, level = 20, 6, 2200.0
    swings = rng.normal(0, 60, size=period)  # each scenario leaves its own level
    noise = lambda: rng.normal(0, 60, size=runs)  # noqa: E731  (collector timing: about 3 % per reading)
    flat = [level + swings[i % period] + e for i, e in enumerate(noise())]
    leaking = [level + 25.0 * i + swings[i % period] + e for i, e in enumerate(noise())]  # 500 MB over 20 runs
    # The estimate's spread with this noise: a standard deviation of about 2.3 % (2,000 simulated traces).
    assert abs(memory_growth(flat, period, runs)) < 0.10
    assert memory_growth(leaking, period, runs) == pytest.approx(500 / np.median(leaking), abs=0.08)
    assert memory_growth(leaking, period, runs) > 0.10


def test_the_fresh_clone_run_that_failed_on_two_readings_shows_no_growth():
    # A fresh-clone run's 20 readings after the warm-up (MB): first 2283.2, last 2053.5, a change of −10.06 %.
    trace = [2283.2, 2226.5, 2184.0, 2218.0, 2226.3, 2154.2, 2296.6, 2240.9, 2184.9, 2109.8, 2228.3, 2254.6,
             2286.6, 2219.7, 2187.3, 2224.7, 2233.4, 2258.6, 2174.1, 2240.4, 2053.5]
    assert trace[-1] / trace[0] - 1 < -0.10
    assert abs(memory_growth(trace, 6, 20)) < 0.02


def test_one_reading_cannot_be_compared_with_itself():
    with pytest.raises(ValueError, match="two readings after the same scenario"):
        memory_growth([1.0, 2.0], period=6, runs=20)
