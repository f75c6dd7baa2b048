"""The shared neighbour engine against brute force (full distance matrices on small tables)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore.data.schema import Schema
from privcore.engine import candidates
from privcore.engine.encoding import EuclideanSpace
from privcore.engine.neighbors import all_within, count_within, nearest_k, nearest_two

CHUNK_SIZES = [1, 7, 64, 10_000, 2**22]
METHODS = ["matrix", "tree"]


def brute_force(query, reference, exclude_self=False):
    """Reference answer: full matrix, stable sort so the lowest index wins among exact ties."""
    diff = query[:, None, :] - reference[None, :, :]
    dist = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
    extremes = (dist.min(), dist.max())
    if exclude_self:
        np.fill_diagonal(dist, np.inf)
    order = np.argsort(dist, axis=1, kind="stable")[:, :2]
    nearest = np.take_along_axis(dist, order, axis=1)
    order = np.where(np.isinf(nearest), -1, order)  # no (other) row there: the engine says -1
    if order.shape[1] < 2:
        nearest = np.hstack([nearest, np.full((len(nearest), 1), np.inf)])
        order = np.hstack([order, np.full((len(order), 1), -1)])
    return nearest, order, extremes


def mixed_table(rng, n, with_duplicates=True):
    """Mixed-type table with duplicates, tied distances and a constant column."""
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 30, n).astype(float),  # few values: many ties
            "income": np.round(rng.normal(50, 10, n), 1),
            "city": rng.choice(["a", "b", "c"], n),
            "smoker": rng.choice(["yes", "no"], n),
            "constant": np.full(n, 5.0),
        }
    )
    if with_duplicates and n > 4:
        df.iloc[n // 2 : n // 2 + 3] = df.iloc[0]  # three exact copies of row 0
    return df


SCHEMA = Schema({"age": "numerical", "income": "numerical", "city": "categorical", "smoker": "binary",
                 "constant": "numerical"})


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("chunk", CHUNK_SIZES)
def test_real_to_synthetic_matches_brute_force(chunk, method):
    rng = np.random.default_rng(1)
    real, synth = mixed_table(rng, 60), mixed_table(rng, 45)
    synth.iloc[:5] = real.iloc[:5].to_numpy()  # exact copies across tables
    space = EuclideanSpace(real, [synth], SCHEMA)
    assert "constant" in space.dropped_constant
    y, z = space.transform(real), space.transform(synth)
    nb, ext = nearest_two(y, z, with_extremes=True, chunk_elements=chunk, method=method)
    dist, idx, (dmin, dmax) = brute_force(y, z)
    np.testing.assert_array_equal(nb.distance, dist)
    np.testing.assert_array_equal(nb.index, idx)
    assert ext.d_min == dmin == 0.0
    assert ext.d_max == pytest.approx(dmax, rel=1e-14)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("chunk", CHUNK_SIZES)
def test_self_exclusion_is_by_position_not_value(chunk, method):
    rng = np.random.default_rng(2)
    real = mixed_table(rng, 50)
    space = EuclideanSpace(real, [], SCHEMA)
    y = space.transform(real)
    nb, _ = nearest_two(y, y, exclude_self=True, chunk_elements=chunk, method=method)
    dist, idx, _ = brute_force(y, y, exclude_self=True)
    np.testing.assert_array_equal(nb.distance, dist)
    np.testing.assert_array_equal(nb.index, idx)
    # Row 0 has identical duplicates at other positions: they are neighbours at distance 0.
    assert nb.d1[0] == 0.0 and nb.i1[0] == 25
    assert (nb.index != np.arange(len(y))[:, None]).all()


def test_same_order_copy_scores_as_copy():
    rng = np.random.default_rng(3)
    y = rng.random((40, 4))
    nb, ext = nearest_two(y, y.copy(), with_extremes=True, chunk_elements=16)
    assert (nb.d1 == 0).all() and (nb.i1 == np.arange(40)).all()
    assert ext.d_min == 0.0


def test_exact_zero_for_identical_rows_with_large_values():
    # The matrix-product shortcut alone would return ~1e-5 here instead of 0.
    y = np.array([[1e6 + 0.1, 3e5], [2.0, 1.0], [1e6, 3e5 + 0.5]])
    nb, _ = nearest_two(y, y[[2, 0]].copy())
    assert nb.d1[0] == 0.0 and nb.i1[0] == 1
    assert nb.d1[2] == 0.0 and nb.i1[2] == 0


def test_single_reference_row_has_no_second_neighbour():
    nb, ext = nearest_two(np.array([[0.0], [2.0]]), np.array([[1.0]]), with_extremes=True)
    assert nb.d1.tolist() == [1.0, 1.0] and np.isinf(nb.d2).all() and (nb.index[:, 1] == -1).all()
    assert (ext.d_min, ext.d_max) == (1.0, 1.0)


def test_progress_reaches_one():
    seen = []
    rng = np.random.default_rng(4)
    nearest_two(rng.random((100, 3)), rng.random((50, 3)), chunk_elements=500, progress=lambda f, m: seen.append(f))
    assert seen and max(seen) == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 25),
    m=st.integers(2, 25),
    d=st.integers(1, 4),
    levels=st.integers(1, 4),
    chunk=st.sampled_from([1, 3, 50, 4096]),
    seed=st.integers(0, 10_000),
    method=st.sampled_from(METHODS),
)
def test_random_grids_with_many_ties(n, m, d, levels, chunk, seed, method):
    rng = np.random.default_rng(seed)
    # Values on a small grid: exact duplicates and equal distances are the norm, not the exception.
    y = rng.integers(0, levels, (n, d)).astype(float) / max(levels - 1, 1)
    z = rng.integers(0, levels, (m, d)).astype(float) / max(levels - 1, 1)
    nb, ext = nearest_two(y, z, with_extremes=True, chunk_elements=chunk, method=method)
    dist, idx, (dmin, dmax) = brute_force(y, z)
    np.testing.assert_array_equal(nb.distance, dist)
    np.testing.assert_array_equal(nb.index, idx)
    assert ext.d_min == dmin and ext.d_max == pytest.approx(dmax, abs=1e-15)
    if n >= 2:
        nb, _ = nearest_two(y, y, exclude_self=True, chunk_elements=chunk, method=method)
        dist, idx, _ = brute_force(y, y, exclude_self=True)
        np.testing.assert_array_equal(nb.distance, dist)
        np.testing.assert_array_equal(nb.index, idx)


def brute_within(query, reference, radius):
    diff = query[:, None, :] - reference[None, :, :]
    dist = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
    return [np.flatnonzero(dist[i] <= radius[i]) for i in range(len(query))], dist


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 25),
    m=st.integers(1, 25),
    d=st.integers(0, 4),
    levels=st.integers(1, 4),
    chunk=st.sampled_from([1, 3, 50, 4096]),
    seed=st.integers(0, 10_000),
)
def test_all_within_matches_brute_force_on_grids(n, m, d, levels, chunk, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, levels, (n, d)).astype(float) / max(levels - 1, 1)
    z = rng.integers(0, levels, (m, d)).astype(float) / max(levels - 1, 1)
    nb, ext = nearest_two(y, z, with_extremes=True)
    # AIR's use: every row tied with the nearest (within 1e-12·d_max), here on grids full of exact ties.
    radius = nb.d1 + 1e-12 * ext.d_max
    pairs = all_within(y, z, radius, chunk_elements=chunk)
    expected, dist = brute_within(y, z, radius)
    assert pairs.indptr.tolist() == np.cumsum([0] + [len(e) for e in expected]).tolist()
    np.testing.assert_array_equal(pairs.indices, np.concatenate(expected))
    np.testing.assert_allclose(pairs.distance, dist[pairs.rows(), pairs.indices], rtol=1e-14, atol=0)
    # A wider radius for some rows, none for others.
    radius = rng.choice([-1.0, 0.0, 0.5, 1.0, np.inf], n)
    pairs = all_within(y, z, radius, chunk_elements=chunk)
    expected, _ = brute_within(y, z, radius)
    np.testing.assert_array_equal(pairs.indices, np.concatenate(expected))
    assert pairs.counts.tolist() == [len(e) for e in expected]


def test_all_within_is_exact_for_identical_rows_with_large_values():
    # The matrix product alone is off by ~1e-5 here; the exact refinement finds the copy at distance 0.
    y = np.array([[1e6 + 0.1, 3e5], [2.0, 1.0]])
    z = np.array([[1e6 + 0.1, 3e5], [1e6 + 0.1, 3e5 + 1e-9], [2.0, 1.0]])
    pairs = all_within(y, z, np.array([0.0, 0.0]))
    assert pairs.indices.tolist() == [0, 2] and pairs.distance.tolist() == [0.0, 0.0]


def test_all_within_with_empty_tables():
    pairs = all_within(np.zeros((3, 2)), np.zeros((0, 2)), 1.0)
    assert pairs.indptr.tolist() == [0, 0, 0, 0] and len(pairs.indices) == 0
    pairs = all_within(np.zeros((0, 2)), np.zeros((4, 2)), 1.0)
    assert pairs.indptr.tolist() == [0]


@pytest.mark.parametrize("dims", [2, 5])
def test_tree_and_matrix_agree_on_continuous_data_with_copies(dims):
    rng = np.random.default_rng(dims)
    y = rng.normal(size=(3000, dims))
    z = np.vstack([y[:300], rng.normal(size=(2000, dims))])
    for exclude, (q, r) in ((False, (y, z)), (True, (y, y))):
        a, ea = nearest_two(q, r, exclude_self=exclude, with_extremes=not exclude, method="matrix")
        b, eb = nearest_two(q, r, exclude_self=exclude, with_extremes=not exclude, method="tree")
        np.testing.assert_array_equal(a.distance, b.distance)
        np.testing.assert_array_equal(a.index, b.index)
        if not exclude:
            assert ea.d_min == eb.d_min and eb.d_max == pytest.approx(ea.d_max, rel=1e-14)


def test_progress_is_reported_from_the_calling_thread_only():
    import threading

    caller = threading.get_ident()
    threads = set()
    rng = np.random.default_rng(5)
    for method in METHODS:
        nearest_two(rng.random((400, 3)), rng.random((300, 3)), chunk_elements=3000, workers=2, method=method,
                    progress=lambda f, m: threads.add(threading.get_ident()))
    assert threads == {caller}


@pytest.mark.parametrize("n", [5, 300])
def test_zero_columns_put_every_row_at_distance_zero(n):
    # A space without coordinates (every analysed column constant in the real table) is not a k-d
    # tree's business, however many rows there are.
    empty = np.zeros((n, 0))
    nb, extremes = nearest_two(empty, empty, with_extremes=True)
    assert (nb.distance == 0).all() and nb.index[:, 0].tolist() == [0] * n
    assert (extremes.d_min, extremes.d_max) == (0.0, 0.0)
    assert (nearest_two(empty, empty, exclude_self=True)[0].distance == 0).all()


def brute_k(query, reference, k):
    """k nearest by full matrix, stable sort: the lowest index first among exact ties."""
    diff = query[:, None, :] - reference[None, :, :]
    dist = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
    order = np.argsort(dist, axis=1, kind="stable")[:, :k]
    nearest = np.take_along_axis(dist, order, axis=1)
    missing = k - order.shape[1]
    if missing > 0:
        nearest = np.hstack([nearest, np.full((len(query), missing), np.inf)])
        order = np.hstack([order, np.full((len(query), missing), -1)])
    return nearest, order


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 25),
    m=st.integers(1, 300),
    d=st.integers(1, 4),
    levels=st.integers(1, 4),
    k=st.integers(1, 30),
    chunk=st.sampled_from([1, 3, 50, 4096]),
    seed=st.integers(0, 10_000),
    method=st.sampled_from(METHODS),
)
def test_nearest_k_matches_brute_force_on_grids(n, m, d, levels, k, chunk, seed, method):
    # The battery's k-neighbour pass (Gen-LRA, DPI): exact distances, lowest index among exact ties, inf/−1
    # where the reference has fewer than k rows, on grids where ties are the rule.
    rng = np.random.default_rng(seed)
    y = rng.integers(0, levels, (n, d)).astype(float) / max(levels - 1, 1)
    z = rng.integers(0, levels, (m, d)).astype(float) / max(levels - 1, 1)
    got = nearest_k(y, z, k, chunk_elements=chunk, method=method)
    dist, idx = brute_k(y, z, k)
    np.testing.assert_array_equal(got.distance, dist)
    np.testing.assert_array_equal(got.index, idx)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 12),
    width=st.integers(2, 200),
    levels=st.sampled_from([1, 2, 3, 6, 40, 1000]),
    kept=st.integers(1, 12),
    sample=st.integers(1, 16),
    seed=st.integers(0, 10_000),
)
def test_k_candidates_from_a_sampled_bound_are_the_partitions_pairs(rows, width, levels, kept, sample, seed):
    # The bound from sampled columns must give exactly the pairs the partition of whole rows gives, in the same
    # row-major order, on blocks full of ties (few levels) and with tolerances that straddle levels.
    rng = np.random.default_rng(seed)
    kept = min(kept, width - 1) or 1
    block = rng.integers(0, levels, (rows, width)).astype(float) / 4
    tolerance = rng.choice([0.0, 0.0, 0.1, 0.25, 1.0], rows)
    kth = np.partition(block, kept - 1, axis=1)[:, kept - 1]
    expected = np.nonzero(block <= (kth + tolerance)[:, None])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(candidates, "K_SAMPLE_COLUMNS", sample)
        patch.setattr(candidates, "K_SAMPLE_PER_NEIGHBOUR", 1)
        got = candidates.k_candidates(block, kept, tolerance, np)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 25), m=st.integers(40, 300), levels=st.integers(1, 4), k=st.integers(1, 9),
       seed=st.integers(0, 10_000))
def test_nearest_k_with_sampled_bounds_matches_brute_force(n, m, levels, k, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, levels, (n, 3)).astype(float) / max(levels - 1, 1)
    z = rng.integers(0, levels, (m, 3)).astype(float) / max(levels - 1, 1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(candidates, "K_SAMPLE_COLUMNS", 1)  # every block wider than 4·k takes the sampled bound
        patch.setattr(candidates, "K_SAMPLE_PER_NEIGHBOUR", 1)
        got = nearest_k(y, z, k, method="matrix")
    dist, idx = brute_k(y, z, k)
    np.testing.assert_array_equal(got.distance, dist)
    np.testing.assert_array_equal(got.index, idx)


def test_nearest_k_agrees_with_nearest_two_on_continuous_data():
    rng = np.random.default_rng(5)
    y, z = rng.normal(size=(300, 6)), rng.normal(size=(400, 6))
    z[:10] = y[:10]
    two, _ = nearest_two(y, z)
    for method in METHODS:
        got = nearest_k(y, z, 2, method=method, chunk_elements=1000)
        np.testing.assert_array_equal(got.distance, two.distance)
        np.testing.assert_array_equal(got.index, two.index)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 25),
    m=st.integers(1, 25),
    d=st.integers(0, 4),
    levels=st.integers(1, 4),
    chunk=st.sampled_from([1, 3, 50, 4096]),
    seed=st.integers(0, 10_000),
)
def test_count_within_matches_brute_force_on_grids(n, m, d, levels, chunk, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, levels, (n, d)).astype(float) / max(levels - 1, 1)
    z = rng.integers(0, levels, (m, d)).astype(float) / max(levels - 1, 1)
    labels = rng.integers(0, 3, m)
    radii = rng.choice([-1.0, 0.0, 0.5, 1.0, np.inf], (n, 2))
    counts = count_within(y, z, radii, labels=labels, chunk_elements=chunk)
    diff = y[:, None, :] - z[None, :, :]
    dist = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
    n_labels = labels.max() + 1
    assert counts.shape == (n, 2, n_labels)
    for j in range(2):
        for label in range(n_labels):
            expected = ((dist <= radii[:, j : j + 1]) & (labels == label)[None, :]).sum(axis=1)
            np.testing.assert_array_equal(counts[:, j, label], expected)
    # A scalar radius counts the same for every row, in one group.
    np.testing.assert_array_equal(count_within(y, z, 0.5, chunk_elements=chunk)[:, 0, 0], (dist <= 0.5).sum(axis=1))
