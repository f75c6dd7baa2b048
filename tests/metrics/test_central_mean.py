"""The central mean that MDCR's size-matched comparison reads in place of a median (privcore.metrics.distance.closest)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore.metrics.distance.closest import CENTRAL_SHARE, central_mean

values = st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=120)


@settings(max_examples=300, deadline=None)
@given(values, st.randoms())
def test_it_lies_between_the_middle_ranks_ignores_order_and_never_falls_when_a_value_rises(drawn, rnd):
    data = np.array(drawn, dtype=float)
    got = central_mean(data)
    ordered = np.sort(data)
    n = len(data)
    low, high = int(np.floor(n * (1 - CENTRAL_SHARE) / 2 + 1e-9)), int(np.ceil(n * (1 + CENTRAL_SHARE) / 2 - 1e-9))
    assert ordered[min(low, n - 1)] - 1e-12 <= got <= ordered[max(high - 1, 0)] + 1e-12
    shuffled = data.copy()
    rnd.shuffle(shuffled)
    assert central_mean(shuffled) == got
    raised = data.copy()
    raised[rnd.randrange(n)] += rnd.choice([0.5, 1.0, 3.0])
    assert central_mean(raised) >= got - 1e-12  # a closer synthetic table can never read as farther


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=1e3, allow_nan=False), min_size=1, max_size=10))
def test_with_few_values_it_is_the_ordinary_median(drawn):
    assert central_mean(np.array(drawn)) == np.median(drawn)


def test_it_moves_with_the_shares_where_the_median_jumps():
    below, above = np.array([1.0] * 49 + [2.0] * 51), np.array([1.0] * 51 + [2.0] * 49)
    assert np.median(below) - np.median(above) == 1.0  # the ordinary median jumps a whole value
    assert round(central_mean(below) - central_mean(above), 12) == 0.2  # this one by the 2 of 10 middle rows that moved
    assert central_mean(np.full(500, 3.0)) == 3.0
