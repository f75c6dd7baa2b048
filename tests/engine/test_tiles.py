"""Top-two candidates found tile by tile (privcore.engine.tiles): the same neighbours, distances and ties as the
whole-row path and a brute force, in float32 and float64, with and without the row itself, through the
float64 fallback, and within the memory bound of a chunk."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from privcore.engine import neighbors as N
from privcore.engine import neighbors_both_ways as B
from privcore.engine import operands as O
from privcore.engine import tiles
from privcore.engine.neighbors import nearest_two
from tests.engine.test_neighbors import brute_force
from tests.engine.test_neighbors_float32 import tables


@pytest.fixture
def small_tiles(monkeypatch):
    """Tiles of 256 columns and 64 rows, so that tables of a few hundred rows take the tiled path; the
    whole-row self-exclusion path instead of the sweep, so that it is the one tested."""
    monkeypatch.setattr(tiles, "TILE_COLUMNS", 256)
    monkeypatch.setattr(tiles, "TILE_ROWS", 64)
    monkeypatch.setattr(tiles, "SWEEP_TILE_ROWS", 64)
    monkeypatch.setattr(N, "sweep_pays", lambda *args: False)


def untiled(monkeypatch):
    monkeypatch.setattr(tiles, "applies", lambda *args: False)


def calls_of(monkeypatch):
    """Record every tiled chunk (rows) while passing it through."""
    seen = []
    original = tiles.top_two_candidates_tiled

    def watched(operands, start, stop, *args):
        seen.append((operands.query.dtype, stop - start))
        return original(operands, start, stop, *args)

    monkeypatch.setattr(tiles, "top_two_candidates_tiled", watched)
    return seen


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("float64", [False, True])
def test_tiled_passes_equal_the_whole_row_path_and_brute_force(seed, float64, small_tiles, monkeypatch):
    query, reference = tables(seed, n=300, m=900)
    if float64:
        monkeypatch.setattr(O, "FLOAT32_NORM_RATIO", -1.0)
    seen = calls_of(monkeypatch)
    got, got_ext = nearest_two(query, reference, with_extremes=True, workers=2, chunk_elements=50_000)
    got_self, _ = nearest_two(reference, reference, exclude_self=True, workers=1, chunk_elements=50_000)
    assert seen and all(dtype == (np.float64 if float64 else np.float32) for dtype, _ in seen)
    assert max(rows for _, rows in seen) == 64
    untiled(monkeypatch)
    plain, plain_ext = nearest_two(query, reference, with_extremes=True, workers=2, chunk_elements=50_000)
    plain_self, _ = nearest_two(reference, reference, exclude_self=True, workers=1, chunk_elements=50_000)
    for a, b in ((got, plain), (got_self, plain_self)):
        np.testing.assert_array_equal(a.distance, b.distance)
        np.testing.assert_array_equal(a.index, b.index)
    distance, index, (d_min, d_max) = brute_force(query, reference)
    np.testing.assert_array_equal(got.distance, distance)
    np.testing.assert_array_equal(got.index, index)
    assert (got_ext.d_min, got_ext.d_max) == (plain_ext.d_min, plain_ext.d_max) == (d_min, d_max)
    distance, index, _ = brute_force(reference, reference, exclude_self=True)
    np.testing.assert_array_equal(got_self.distance, distance)
    np.testing.assert_array_equal(got_self.index, index)


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(1, 40),
    m=st.integers(2, 60),
    d=st.integers(1, 4),
    levels=st.integers(1, 4),
    group=st.sampled_from([2, 3, 4]),
    groups_per_tile=st.integers(1, 3),
    rows=st.integers(1, 9),
    seed=st.integers(0, 10_000),
)
def test_random_grids_with_many_ties_in_tiny_tiles(n, m, d, levels, group, groups_per_tile, rows, seed):
    rng = np.random.default_rng(seed)
    # Values on a small grid: exact duplicates and equal distances everywhere, and tiles of a few columns with
    # a short last group and a short last tile.
    y = rng.integers(0, levels, (n, d)).astype(float) / max(levels - 1, 1)
    z = rng.integers(0, levels, (m, d)).astype(float) / max(levels - 1, 1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(O, "CPU_GROUP", group)
        patch.setattr(tiles, "TILE_COLUMNS", group * groups_per_tile)
        patch.setattr(tiles, "TILE_ROWS", rows)
        patch.setattr(tiles, "SWEEP_TILE_ROWS", rows)
        patch.setattr(N, "sweep_pays", lambda *args: False)
        top_two, top_two_extremes = nearest_two(y, z, with_extremes=True, workers=1, method="matrix")
        own = nearest_two(z, z, exclude_self=True, workers=1, method="matrix")[0]
        forward, backward, both_extremes = B.nearest_two_both_ways(y, z, with_extremes=True, workers=1)
        within = B.nearest_two_within(z, workers=1)
    for got, (q, r, exclude) in ((top_two, (y, z, False)), (own, (z, z, True)), (forward, (y, z, False)),
                                 (backward, (z, y, False)), (within, (z, z, True))):
        distance, index, _ = brute_force(q, r, exclude_self=exclude)
        np.testing.assert_array_equal(got.distance, distance)
        np.testing.assert_array_equal(got.index, index)
    d_min, d_max = brute_force(y, z)[2]
    for extremes in (top_two_extremes, both_extremes):
        assert extremes.d_min == d_min and extremes.d_max == pytest.approx(d_max, abs=1e-15)


def test_tiled_candidates_hold_every_score_within_the_tolerance_of_the_second_best(small_tiles):
    query, reference = tables(3, n=300, m=1000)
    setup = O.matrix_setup(query, reference, "cpu", 50_000, 1)
    operands = setup.operands
    assert tiles.applies(operands, len(reference), False)
    rows, cols = tiles.top_two_candidates_tiled(operands, 0, 64, None, setup.max_half_ref)
    exact = cdist(query[:64], reference) ** 2
    second = np.sort(exact, axis=1)[:, 1]
    # Every pair whose exact squared distance is at most the second-nearest's must be proposed.
    needed = set(zip(*np.nonzero(exact <= second[:, None])))
    assert set(zip(rows.tolist(), cols.tolist())) >= needed
    assert len(rows) < 10 * 64  # and few others: the running threshold prunes


def test_a_tiled_chunk_with_too_many_candidates_is_recomputed_in_float64(small_tiles, monkeypatch):
    query, reference = tables(4, n=300, m=700)
    seen = calls_of(monkeypatch)
    monkeypatch.setattr(O, "_float32_pays", lambda *args: True)
    monkeypatch.setattr(O, "REFINE_SHARE", 0.0)  # every float32 chunk is "too many"
    forced, _ = nearest_two(query, reference, workers=1, chunk_elements=50_000)
    assert {dtype for dtype, _ in seen} == {np.dtype(np.float32), np.dtype(np.float64)}
    distance, index, _ = brute_force(query, reference)
    np.testing.assert_array_equal(forced.distance, distance)
    np.testing.assert_array_equal(forced.index, index)


@pytest.mark.parametrize("query_rows, chunk_elements", [(10, 2**22), (100_000, 2**22), (100_000, 2**20),
                                                         (100_000, 5_000)])
def test_a_tile_stays_within_the_chunk_memory_bound(query_rows, chunk_elements):
    rows = tiles.tile_rows(query_rows, chunk_elements)
    assert 1 <= rows <= min(query_rows, tiles.TILE_ROWS)
    assert rows * tiles.TILE_COLUMNS <= max(chunk_elements, tiles.TILE_COLUMNS)


def test_where_tiles_apply():
    query, reference = tables(0, n=300, m=3000)
    operands = O.matrix_setup(query, reference, "cpu", 2**22, 1).operands
    assert tiles.applies(operands, 3000, False)
    assert tiles.applies(operands, 3000, True)  # with the farthest pair too (RunningFarthest)
    assert not tiles.applies(operands, tiles.TILE_COLUMNS, False)  # one tile: the whole-row path


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("float64", [False, True])
def test_tiled_sweeps_equal_the_plain_engine_and_brute_force(seed, float64, small_tiles, monkeypatch):
    query, reference = tables(seed, n=700, m=900)
    if float64:
        monkeypatch.setattr(O, "FLOAT32_NORM_RATIO", -1.0)
    seen = []
    original = B._tiled_candidates
    monkeypatch.setattr(B, "_tiled_candidates", lambda *args: seen.append(args[2]) or original(*args))
    forward, backward, extremes = B.nearest_two_both_ways(query, reference, with_extremes=True, workers=2,
                                                         chunk_elements=50_000)
    within = B.nearest_two_within(reference, workers=2, chunk_elements=50_000)
    assert seen
    assert (extremes.d_min, extremes.d_max) == brute_force(query, reference)[2]
    for got, (q, r, own) in ((forward, (query, reference, False)), (backward, (reference, query, False)),
                             (within, (reference, reference, True))):
        distance, index, _ = brute_force(q, r, exclude_self=own)
        np.testing.assert_array_equal(got.distance, distance)
        np.testing.assert_array_equal(got.index, index)


def test_the_farthest_pair_of_tiled_chunks(small_tiles, monkeypatch):
    rng = np.random.default_rng(7)
    query, reference = rng.normal(size=(300, 6)), rng.normal(size=(900, 6))
    reference[555] = 9.0  # one clear farthest pair
    seen = calls_of(monkeypatch)
    _, extremes = nearest_two(query, reference, with_extremes=True, workers=1, method="matrix",
                              chunk_elements=50_000)
    assert seen
    d_max = cdist(query, reference).max()
    assert extremes.d_max == brute_force(query, reference)[2][1]
    assert extremes.d_max == pytest.approx(d_max, rel=1e-12)
    # Beyond FAR_CANDIDATES pairs within the tolerance, the approximately farthest pair alone is refined.
    monkeypatch.setattr(tiles, "FAR_CANDIDATES", 0)
    _, fallback = nearest_two(query, reference, with_extremes=True, workers=1, method="matrix",
                              chunk_elements=50_000)
    assert fallback.d_max == extremes.d_max
    # Tied farthest pairs (a grid): every chunk's ties are refined, the largest distance is exact.
    monkeypatch.setattr(tiles, "FAR_CANDIDATES", 4096)
    grid = rng.integers(0, 2, size=(900, 5)).astype(float)
    _, tied = nearest_two(grid[:300], grid, with_extremes=True, workers=1, method="matrix", chunk_elements=50_000)
    assert tied.d_max == brute_force(grid[:300], grid)[2][1]
