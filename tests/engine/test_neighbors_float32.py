"""The CPU's float32 candidate scores (issue 12, item 1): float32 only proposes candidates, the exact float64
refinement decides, so every neighbour, distance, tie and extreme equals the float64 path's and a brute force;
values too large for float32's error bound, and chunks with too many candidates, go to float64."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from privcore.engine import candidates as C
from privcore.engine import neighbors as N
from privcore.engine import operands as O
from privcore.engine.neighbors import count_within, nearest_k, nearest_two


@pytest.fixture
def float64_only(monkeypatch):
    """Run the CPU passes with float64 scores alone (no norm is below −1 times the median)."""
    def use():
        monkeypatch.setattr(O, "FLOAT32_NORM_RATIO", -1.0)
    return use


def tables(seed, n=700, m=600, d=12):
    """One-hot-like and [0, 1] columns with exact duplicates, shared rows and near ties."""
    rng = np.random.default_rng(seed)
    numbers = rng.integers(0, 20, size=(n + m, 3)) / 19.0
    codes = rng.integers(0, 3, size=(n + m, d - 3))
    table = np.hstack([numbers, (codes == 1).astype(float)])
    query, reference = table[:n].copy(), table[n:].copy()
    query[:40] = reference[:40]  # distance 0 ties
    reference[100:130] = reference[130:160]  # duplicate reference rows: tied neighbours, lowest index wins
    # Two reference rows closer to query row 200 than float32 can tell apart (1e-9 apart in distance).
    reference[300] = query[200] + np.r_[1.0, np.zeros(d - 1)] * 0.5
    reference[301] = query[200] + np.r_[1.0 - 2e-9, np.zeros(d - 1)] * 0.5
    return query, reference


def brute_top_two(query, reference):
    """Nearest two by cdist, lowest index first among equal distances (a stable sort)."""
    d = cdist(query, reference)
    order = np.argsort(d, axis=1, kind="stable")[:, :2]
    return np.take_along_axis(d, order, axis=1), order


def assert_same_as_brute_force(got, query, reference):
    distance, index = brute_top_two(query, reference)
    np.testing.assert_allclose(got.distance, distance, rtol=0, atol=1e-12)
    # Where cdist and the exact refinement round a near tie differently the order may differ; nowhere else.
    clear = np.abs(distance[:, 1] - distance[:, 0]) > 1e-12
    np.testing.assert_array_equal(got.index[clear, 0], index[clear, 0])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_float32_candidates_give_the_float64_and_brute_force_neighbours(seed, float64_only):
    query, reference = tables(seed)
    assert O._cpu_operands(query, reference, *O._norms_and_error_scale(query, reference)[:2],
                           1e-15).fallback is not None  # the float32 path is the one tested
    fast, fast_ext = nearest_two(query, reference, with_extremes=True, workers=1, chunk_elements=50_000)
    fast_self, _ = nearest_two(query, query, exclude_self=True, workers=2, chunk_elements=70_000)
    fast_k = nearest_k(query, reference, 5, workers=1, chunk_elements=50_000)
    fast_count = count_within(query, reference, np.tile([0.3, 0.6], (len(query), 1)), chunk_elements=50_000)
    float64_only()
    slow, slow_ext = nearest_two(query, reference, with_extremes=True, workers=1, chunk_elements=50_000)
    slow_self, _ = nearest_two(query, query, exclude_self=True, workers=2, chunk_elements=70_000)
    slow_k = nearest_k(query, reference, 5, workers=1, chunk_elements=50_000)
    slow_count = count_within(query, reference, np.tile([0.3, 0.6], (len(query), 1)), chunk_elements=50_000)
    np.testing.assert_array_equal(fast.distance, slow.distance)
    np.testing.assert_array_equal(fast.index, slow.index)
    np.testing.assert_array_equal(fast_self.index, slow_self.index)
    np.testing.assert_array_equal(fast_k.index, slow_k.index)
    np.testing.assert_array_equal(fast_count, slow_count)
    assert (fast_ext.d_min, fast_ext.d_max) == (slow_ext.d_min, slow_ext.d_max)
    assert_same_as_brute_force(fast, query, reference)
    assert fast.i1[200] == 301  # the near tie float32 cannot see is resolved exactly


def test_the_group_search_reads_groups_of_columns_when_the_reference_is_wide_enough():
    # 600 reference rows = 4 full groups of 128 and a short one: the grouped path, with a short last group.
    query, reference = tables(3)
    got = C.top_two_candidates(np.ascontiguousarray(cdist(query[:50], reference) ** 2), np.arange(50), 1e-9,
                               O.CPU_GROUP, np)
    d2 = cdist(query[:50], reference) ** 2
    second = np.sort(d2, axis=1)[:, 1]
    expected = set(zip(*np.nonzero(d2 <= (second + 1e-9)[:, None])))
    assert set(zip(*(a.tolist() for a in got))) >= expected


def test_a_row_far_out_takes_the_float64_path_and_a_uniformly_scaled_space_does_not():
    query, reference = tables(0)
    scaled = O._cpu_operands(query * 100, reference * 100,
                             *O._norms_and_error_scale(query * 100, reference * 100)[:2], 1e-15)
    assert scaled.fallback is not None and scaled.query.dtype == np.float32
    reference[5, 0] = 10 * np.sqrt(O.FLOAT32_NORM_RATIO * 12)
    operands = O._cpu_operands(query, reference, *O._norms_and_error_scale(query, reference)[:2], 1e-15)
    assert operands.fallback is None and operands.query.dtype == np.float64
    got, _ = nearest_two(query, reference, workers=1)
    assert_same_as_brute_force(got, query, reference)


def test_a_chunk_with_too_many_candidates_is_recomputed_in_float64(monkeypatch, float64_only):
    query, reference = tables(4)
    calls = []
    original = N._chunk_top_two

    def watched(query_, reference_, operands, *args):
        calls.append(operands.query.dtype)
        return original(query_, reference_, operands, *args)

    monkeypatch.setattr(N, "_chunk_top_two", watched)
    monkeypatch.setattr(O, "_float32_pays", lambda *args: True)  # the pass starts in float32…
    monkeypatch.setattr(O, "REFINE_SHARE", 0.0)  # …and every chunk is "too many" for it
    forced, forced_ext = nearest_two(query, reference, with_extremes=True, workers=1, chunk_elements=100_000)
    forced_k = nearest_k(query, reference, 3, workers=1, chunk_elements=100_000)
    assert np.dtype(np.float32) in calls and np.dtype(np.float64) in calls
    float64_only()
    plain, plain_ext = nearest_two(query, reference, with_extremes=True, workers=1, chunk_elements=100_000)
    np.testing.assert_array_equal(forced.index, plain.index)
    np.testing.assert_array_equal(forced.distance, plain.distance)
    np.testing.assert_array_equal(forced_k.index, nearest_k(query, reference, 3, workers=1).index)
    assert (forced_ext.d_min, forced_ext.d_max) == (plain_ext.d_min, plain_ext.d_max)


def test_a_pass_whose_rows_differ_far_below_their_norms_is_probed_and_stays_float64():
    # Every row sits at norm 100 in one column and differs from the others by at most 0.01 in another: the
    # norms pass the ratio test, but float32's threshold (relative to the norms) would take in every row.
    rng = np.random.default_rng(5)
    query = np.c_[np.full(400, 100.0), rng.random(400) * 0.01]
    reference = np.c_[np.full(500, 100.0), rng.random(500) * 0.01]
    half, norm = O._norms_and_error_scale(query, reference)[:2]
    assert O._cpu_operands(query, reference, half, norm, 1e-15).fallback is None
    got, _ = nearest_two(query, reference, workers=1)
    assert_same_as_brute_force(got, query, reference)
    # The demo-like tables pass the probe.
    query, reference = tables(6)
    half, norm = O._norms_and_error_scale(query, reference)[:2]
    fast = O._cpu_operands(query, reference, half, norm, 1e-15)
    assert fast.fallback is not None and O._float32_pays(fast, fast.fallback, float(half.max()))
