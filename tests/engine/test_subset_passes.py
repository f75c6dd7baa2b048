"""Subsamples' passes read from whole tables' (privcore.engine.subset_passes) equal passes of their own, exactly."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore.data.prepare import prepare
from privcore.data.schema import infer_schema
from privcore.engine.context import POOL, SharedComputation
from privcore.engine.farthest import farthest_each
from privcore.engine.neighbors import nearest_k, nearest_two
from privcore.engine.results import Neighbours
from privcore.engine.subset_passes import nearest_two_in_subset


def _table(rng: np.random.Generator, rows: int, coarse: bool) -> pd.DataFrame:
    # Coarse values repeat rows and tie distances: the cases where the lowest-index rule decides.
    age = rng.integers(20, 26 if coarse else 80, rows)
    return pd.DataFrame({"age": age, "sex": rng.choice(["F", "M"], rows),
                         "town": rng.choice([f"t{i}" for i in range(3 if coarse else 40)], rows),
                         "income": rng.normal(50, 10, rows).round(0 if coarse else 2)})


def _shared(seed: int, sizes: tuple[int, int, int], coarse: bool) -> SharedComputation:
    rng = np.random.default_rng(seed)
    real, synthetic, holdout = (_table(rng, n, coarse) for n in sizes)
    schema = infer_schema(real, sensitive="income")
    return SharedComputation(prepare(real, synthetic, schema, holdout), workers=1)


def _direct(shared: SharedComputation, space: str, query: str, reference: str):
    a, b = shared.encoded(space, query), shared.encoded(space, reference)
    return nearest_two(a, b, exclude_self=query == reference, with_extremes=True)


def _same(found: Neighbours, direct: Neighbours) -> None:
    np.testing.assert_array_equal(found.index, direct.index)
    np.testing.assert_array_equal(found.distance, direct.distance)


@pytest.mark.parametrize("coarse", [False, True])
@pytest.mark.parametrize("sizes", [(300, 300, 300), (250, 420, 260), (200, 330, 150)])
def test_pool_subsamples_read_from_whole_tables_equal_their_own_passes(sizes, coarse):
    shared = _shared(7, sizes, coarse)
    matched = min(sizes[1], sizes[2])
    for repeat in range(3):
        pooled = shared.subsample(POOL, matched, repeat, seed=0)
        for space in ("E", "E_keys"):
            for query, reference in (("real", pooled), (pooled, "real"), (pooled, pooled)):
                direct, extremes = _direct(shared, space, query, reference)
                _same(shared.neighbours(space, query, reference), direct)
                if query != reference:
                    assert shared.extremes(space, query, reference) == extremes
    # Whole tables' candidates and farthest rows, not one pass per subsample.
    per_subsample = [p for p in shared.passes if "@" in p[1] or "@" in p[2]]
    assert per_subsample == [], per_subsample


@pytest.mark.parametrize("coarse", [False, True])
def test_synthetic_subsamples_read_from_whole_tables_equal_their_own_passes(coarse):
    shared = _shared(11, (240, 400, 200), coarse)
    for repeat in range(3):
        cut = shared.subsample("synthetic", 200, repeat, seed=0)
        for query, reference in (("real", cut), (cut, "real"), ("holdout", cut), (cut, "holdout")):
            direct, extremes = _direct(shared, "E", query, reference)
            _same(shared.neighbours("E", query, reference), direct)
            assert shared.extremes("E", query, reference) == extremes


def test_small_subsets_take_passes_of_their_own():
    shared = _shared(3, (200, 1000, 100), coarse=False)
    cut = shared.subsample("synthetic", 100, 0, seed=0)
    direct, _ = _direct(shared, "E", "real", cut)
    _same(shared.neighbours("E", "real", cut), direct)
    assert ("E", "real", cut) in shared.passes


def test_the_pool_against_a_whole_table_stacks_its_parts():
    shared = _shared(5, (150, 180, 120), coarse=True)
    direct, extremes = _direct(shared, "E", POOL, "real")
    _same(shared.neighbours("E", POOL, "real"), direct)
    assert shared.extremes("E", "real", POOL) == extremes
    assert ("E", POOL, "real") not in shared.passes


def _brute(query, reference, own=None):
    d = np.sqrt(((query[:, None, :] - reference[None, :, :]) ** 2).sum(axis=2))
    d = np.hstack([d, np.full((len(query), 2), np.inf)])  # "no second row" as the engine says it: inf, −1
    if own is not None:
        d[np.arange(len(query)), own] = np.inf
    order = np.lexsort((np.broadcast_to(np.arange(d.shape[1]), d.shape), d), axis=1)[:, :2]
    dist = np.take_along_axis(d, order, axis=1)
    return np.where(np.isinf(dist), -1, order), dist


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 40), st.integers(1, 40), st.integers(1, 6), st.booleans())
def test_nearest_two_in_a_subset_is_the_subset_s_nearest_two(seed, rows, queries, k, within):
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 3, (rows, 2)).astype(float)  # many exact ties
    query = table if within else rng.integers(0, 3, (queries, 2)).astype(float)
    subset = np.sort(rng.choice(rows, size=int(rng.integers(1, rows + 1)), replace=False))
    near = nearest_k(query, table, k + int(within))
    own = np.arange(rows) if within else None
    if within:  # the subset's own rows as the queries, as SubsetPasses reads them
        near = Neighbours(near.distance[subset], near.index[subset])
        own = subset
    found, unsettled = nearest_two_in_subset(near, subset, rows, own=own)
    queried = table[subset] if within else query
    want_index, want_distance = _brute(queried, table[subset], own=np.arange(len(subset)) if within else None)
    if k + int(within) >= rows:  # the candidates hold the whole table: every answer is settled
        assert len(unsettled) == 0
    settled = np.setdiff1d(np.arange(len(queried)), unsettled)
    np.testing.assert_array_equal(found.index[settled], want_index[settled])
    np.testing.assert_array_equal(found.distance[settled], want_distance[settled])


def test_farthest_each_is_the_largest_exact_distance():
    rng = np.random.default_rng(0)
    query, reference = rng.integers(0, 4, (60, 5)).astype(float), rng.normal(size=(90, 5))
    want = np.sqrt(((query[:, None] - reference[None]) ** 2).sum(axis=2)).max(axis=1)
    np.testing.assert_allclose(farthest_each(query, reference, chunk_elements=500), want, rtol=0, atol=1e-12)
    assert np.isnan(farthest_each(query, reference[:0])).all()
