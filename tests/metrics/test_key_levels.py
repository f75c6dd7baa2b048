"""GCAP read from one Hamming pass over the pool equals GCAP computed on each set of rows (metrics.md §1, GCAP)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore.data import Schema
from privcore.data.prepare import prepare
from privcore.engine import POOL, MetricContext, SharedComputation
from privcore.metrics import simulation
from privcore.metrics.key_levels import HammingLevels


def _gcap_by_pass(real: pd.DataFrame, scored: pd.DataFrame, schema: Schema):
    """GCAP with ``scored`` as the synthetic table and no holdout: the pass over that table alone."""
    shared = SharedComputation(prepare(real, scored, schema))
    assert shared.pool_rows("synthetic") is None
    return simulation.compute_gcap(MetricContext(shared, {}, 0))


def _same(a, b) -> None:
    assert np.array_equal(a.per_record, b.per_record)
    assert np.array_equal(a.details.pool_size, b.details.pool_size)
    assert np.array_equal(a.details.correct, b.details.correct)
    assert np.array_equal(a.details.hamming_distance, b.details.hamming_distance)


def _tables(rng: np.random.Generator, n: int, keys: int, values: int):
    def draw(rows):
        frame = {f"k{j}": rng.integers(0, values, rows).astype(str) for j in range(keys)}
        frame["num"] = rng.integers(0, 3, rows).astype(float)  # a numerical key, compared as a value
        frame["s"] = rng.choice(["a", "b", "c"], rows)
        return pd.DataFrame(frame)

    types = {**{f"k{j}": "categorical" for j in range(keys)}, "num": "numerical", "s": "categorical"}
    return draw(n), draw(n + rng.integers(0, n)), draw(n), Schema(types, sensitive="s")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(4, 60), keys=st.integers(1, 4), values=st.integers(1, 5))
def test_every_set_of_pool_rows_scores_as_a_pass_over_it(seed, n, keys, values):
    rng = np.random.default_rng(seed)
    real, synthetic, holdout, schema = _tables(rng, n, keys, values)
    shared = SharedComputation(prepare(real, synthetic, schema, holdout=holdout))
    matched = min(len(synthetic), len(holdout))
    roles = ["synthetic", "holdout", shared.subsample(POOL, matched, 0, seed), shared.subsample(POOL, 3, 1, seed),
             shared.subsample("synthetic", matched, 0, seed)]
    for role in roles:
        got = simulation.compute_gcap(MetricContext(shared, {}, 0, synthetic_role=None if role == "synthetic"
                                                    else role))
        _same(got, _gcap_by_pass(shared.data.real, shared.table(role), schema))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(4, 40), keys=st.integers(1, 3), cap=st.sampled_from([0, 1]))
def test_a_set_that_lacks_every_kept_tuple_is_recomputed_exactly(seed, n, keys, cap):
    # With the second level cut (cap 0 or 1), small subsets often hold none of a real tuple's kept pool tuples.
    rng = np.random.default_rng(seed)
    real, synthetic, holdout, schema = _tables(rng, n, keys, 3)
    data = prepare(real, synthetic, schema, holdout=holdout)
    pool = pd.concat([data.synthetic, data.holdout], ignore_index=True)
    levels = HammingLevels.build(data.real, pool, [c for c in schema.columns if c != "s"], "s",
                                 chunk_elements=64, second_level_cap=cap)
    for size in (1, 2, max(1, len(pool) // 3)):
        rows = np.sort(rng.choice(len(pool), size=size, replace=False))
        size_, correct, hamming = levels.pools(rows, chunk_elements=64)
        expected = _gcap_by_pass(data.real, pool.iloc[rows].reset_index(drop=True), schema)
        assert np.array_equal(size_, expected.details.pool_size)
        assert np.array_equal(correct, expected.details.correct)
        assert np.array_equal(hamming, expected.details.hamming_distance)


def test_hand_computed_pools_of_two_subsets():
    # Keys (k1, k2); sensitive s. Real row 0 = (a, p, x).
    real = pd.DataFrame({"k1": ["a"], "k2": ["p"], "s": ["x"]})
    synthetic = pd.DataFrame({"k1": ["a", "a", "b"], "k2": ["p", "q", "p"], "s": ["y", "x", "x"]})
    holdout = pd.DataFrame({"k1": ["b", "c", "a"], "k2": ["q", "q", "q"], "s": ["x", "x", "y"]})
    schema = Schema({"k1": "categorical", "k2": "categorical", "s": "categorical"}, sensitive="s")
    data = prepare(real, synthetic, schema, holdout=holdout)
    pool = pd.concat([data.synthetic, data.holdout], ignore_index=True)
    levels = HammingLevels.build(data.real, pool, ["k1", "k2"], "s", chunk_elements=1024)
    # The synthetic rows: (a, p) at distance 0, its one row guesses y: pool 1, correct 0.
    assert [v.tolist() for v in levels.pools(np.arange(3), chunk_elements=1024)] == [[1], [0], [0]]
    # The holdout: nothing at 0; (c, q) is at 2; (b, q)... at 2; (a, q) at 1 guesses y: pool 1, correct 0.
    assert [v.tolist() for v in levels.pools(np.arange(3, 6), chunk_elements=1024)] == [[1], [0], [1]]
    # Rows 1 and 2 of the synthetic table: (a, q) and (b, p) both at distance 1, both guess x: pool 2, correct 2.
    assert [v.tolist() for v in levels.pools(np.array([1, 2]), chunk_elements=1024)] == [[2], [2], [1]]


def _air_by_pass(real: pd.DataFrame, scored: pd.DataFrame, schema: Schema):
    """AIR with ``scored`` as the synthetic table and no holdout: its own pass and its own exact d_max."""
    return simulation.compute_air(MetricContext(SharedComputation(prepare(real, scored, schema)), {}, 0))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(4, 50), keys=st.integers(1, 3), values=st.integers(1, 4),
       near_tie=st.booleans())
def test_air_on_a_subset_with_a_bounded_tolerance_equals_its_own_pass(seed, n, keys, values, near_tie):
    # AIR on a size-matched subset takes its tie tolerance from bounds on d_max and computes d_max only where a
    # distance falls between them (see the next test for that path).
    rng = np.random.default_rng(seed)
    real, synthetic, holdout, schema = _tables(rng, n, keys, values)
    if near_tie:
        synthetic.loc[synthetic.index[::2], "num"] += 1e-13
    shared = SharedComputation(prepare(real, synthetic, schema, holdout=holdout))
    matched = min(len(synthetic), len(holdout))
    for role in (shared.subsample(POOL, matched, 0, seed), shared.subsample("synthetic", matched, 1, seed)):
        got = simulation.compute_air(MetricContext(shared, {}, 0, synthetic_role=role))
        expected = _air_by_pass(shared.data.real, shared.table(role), schema)
        assert got.risk == expected.risk
        assert np.array_equal(got.per_record, expected.per_record)
        assert np.array_equal(got.details.pool_size, expected.details.pool_size)


def test_air_on_a_subset_computes_d_max_where_a_distance_falls_between_the_bounds():
    # Twins one number apart by 1e-12 × d_max (between the bounds' tolerances): the pools then depend on the exact
    # d_max, which the subset computes; with the upper bound's tolerance alone both twins would be pooled.
    rng = np.random.default_rng(7)
    real, synthetic, holdout, schema = _tables(rng, 40, 2, 2)
    shared = SharedComputation(prepare(real, synthetic, schema, holdout=holdout))
    bounds = MetricContext(shared, {}, 0, synthetic_role=shared.subsample("synthetic", len(synthetic), 0, 0)
                           ).tie_tolerance("E_keys")
    assert bounds.low < bounds.high
    span = real["num"].max() - real["num"].min()
    exact = shared.extremes("E_keys", "real", "synthetic").d_max
    for between in (exact * 1e-12 * 1.001, bounds.high * 1e-12 * 0.999):
        twins = synthetic.copy()
        twins.loc[twins.index[::2], "num"] += between * span
        shared = SharedComputation(prepare(real, twins, schema, holdout=holdout))
        role = shared.subsample("synthetic", len(twins), 0, 0)
        got = simulation.compute_air(MetricContext(shared, {}, 0, synthetic_role=role))
        expected = _air_by_pass(shared.data.real, shared.table(role), schema)
        assert np.array_equal(got.details.pool_size, expected.details.pool_size)
        assert np.array_equal(got.per_record, expected.per_record)
