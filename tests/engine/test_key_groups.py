"""Key groups (privcore.engine.key_groups): the rows they settle get exactly the engine's nearest two."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privcore.engine.key_groups as KG
from privcore.engine.candidates import exact_distances
from privcore.engine.neighbors import nearest_two


def brute_top_two(query, reference, exclude_self):
    """Every pair's exact distance (the engine's formula), the nearest two by (distance, index)."""
    n, m = len(query), len(reference)
    rows, cols = np.repeat(np.arange(n), m), np.tile(np.arange(m), n)
    exact = exact_distances(query, reference, rows, cols, 1 << 20).reshape(n, m)
    if exclude_self:
        exact[np.arange(n), np.arange(n)] = np.inf
    order = np.lexsort((np.broadcast_to(np.arange(m), (n, m)), exact), axis=1)[:, :2]
    distance = np.take_along_axis(exact, order, axis=1)
    return np.where(np.isfinite(distance), distance, np.inf), np.where(np.isfinite(distance), order, -1)


def mixed_table(rng, n, levels=(3, 4, 2), numeric=2, noise=0.05, base=None):
    """One-hot codes of a few categorical columns and a few continuous columns (a noisy copy of ``base``'s
    numbers where given), as space E encodes a mixed table."""
    codes = [rng.integers(0, k, n) for k in levels]
    onehot = np.concatenate([np.eye(k)[c] for k, c in zip(levels, codes)], axis=1)
    numbers = rng.random((n, numeric)) if base is None else base[:, -numeric:] + noise * rng.normal(size=(n, numeric))
    return np.c_[onehot, numbers]


@pytest.fixture
def groups_on(monkeypatch):
    """Key groups on small tables too, whatever share of pairs they hold; counts the rows they settle."""
    monkeypatch.setattr(KG, "MIN_PAIRS", 0)
    monkeypatch.setattr(KG, "MAX_PAIR_SHARE", 1.0)
    settled = []
    original = KG.top_two_in_key_groups

    def counted(*args):
        out = original(*args)
        settled.append(0 if out is None else len(out.resolved))
        return out

    monkeypatch.setattr(KG, "top_two_in_key_groups", counted)
    return settled


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("exclude_self", [False, True])
def test_settled_rows_get_the_engines_and_brute_forces_nearest_two(seed, exclude_self, groups_on, monkeypatch):
    rng = np.random.default_rng(seed)
    reference = mixed_table(rng, 900)
    query = reference.copy() if exclude_self else mixed_table(rng, 400, base=reference[:400])
    query[::7] = query[::14].repeat(2, axis=0)[: len(query[::7])]  # exact copies: ties at distance 0
    if exclude_self:
        reference = query
    got, _ = nearest_two(query, reference, exclude_self=exclude_self, workers=2, chunk_elements=5_000)
    assert groups_on and groups_on[-1] > len(query) // 4  # the groups settled many rows
    monkeypatch.setattr(KG, "MIN_PAIRS", float("inf"))  # the engine without key groups
    plain, _ = nearest_two(query, reference, exclude_self=exclude_self, workers=1)
    np.testing.assert_array_equal(got.index, plain.index)
    np.testing.assert_array_equal(got.distance, plain.distance)
    distance, index = brute_top_two(query, reference, exclude_self)
    np.testing.assert_array_equal(got.index, index)
    np.testing.assert_array_equal(got.distance, distance)


@pytest.fixture
def two_value_keys(monkeypatch):
    """Key groups on tiny tables, whatever share of pairs they hold, with columns of at most two values as keys."""
    monkeypatch.setattr(KG, "MIN_PAIRS", 0)
    monkeypatch.setattr(KG, "MAX_PAIR_SHARE", 1.0)
    monkeypatch.setattr(KG, "MAX_VALUES", 2)


def test_a_row_whose_second_nearest_reaches_the_gap_is_left_to_the_pass(two_value_keys):
    # Column 0 is the key (gap 1); column 1 is a number (3 values, not discrete with MAX_VALUES = 2).
    # In its group the query's second nearest is at distance 1, exactly the gap: a row of the other group at
    # the same distance and a lower index comes first, so the group must not settle the row.
    query = np.array([[0.0, 0.0]])
    reference = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.5]])
    grouped = KG.top_two_in_key_groups(query, reference, False, 100)
    assert grouped is not None and grouped.rest.tolist() == [0]
    got, _ = nearest_two(query, reference)
    assert got.index.tolist() == [[2, 0]] and got.distance.tolist() == [[0.5, 1.0]]


def test_a_row_nearer_than_the_gap_is_settled_by_its_group(two_value_keys):
    query = np.array([[0.0, 0.0]])
    reference = np.array([[1.0, 0.0], [0.0, 0.9], [0.0, 0.5]])
    grouped = KG.top_two_in_key_groups(query, reference, False, 100)
    assert grouped.resolved.tolist() == [0] and grouped.index.tolist() == [[2, 1]]
    assert grouped.distance.tolist() == [[0.5, 0.9]]


def test_minus_zero_shares_a_group_with_zero(two_value_keys):
    query = np.array([[-0.0, 0.0]])
    reference = np.array([[0.0, 0.25], [0.0, 0.5], [1.0, 0.0]])
    grouped = KG.top_two_in_key_groups(query, reference, False, 100)
    assert grouped.resolved.tolist() == [0] and grouped.index.tolist() == [[0, 1]]


def test_groups_are_skipped_where_they_do_not_pay(monkeypatch):
    rng = np.random.default_rng(0)
    table = mixed_table(rng, 300)
    assert KG.top_two_in_key_groups(table, table, True, 1000) is None  # too few pairs (MIN_PAIRS)
    monkeypatch.setattr(KG, "MIN_PAIRS", 0)
    assert KG.top_two_in_key_groups(rng.random((50, 3)), rng.random((60, 3)), False, 1000) is None  # no key
    coarse = np.c_[np.eye(2)[rng.integers(0, 2, 300)], rng.random((300, 1))]
    assert KG.top_two_in_key_groups(coarse, coarse, True, 1000) is None  # groups hold half of the pairs
    monkeypatch.setattr(KG, "MAX_PAIR_SHARE", 1.0)
    with_nan = table.copy()
    with_nan[5, -1] = np.nan
    assert KG.top_two_in_key_groups(with_nan, table, False, 1000) is None


def test_key_columns_leave_out_a_numbers_fine_steps():
    onehot = np.eye(3)[[0, 1, 2, 0]]
    steps = np.array([[0.0], [0.01], [0.02], [0.03]])  # few values, but a gap a hundredth of the codes'
    table = np.c_[onehot, steps, np.linspace(0, 1, 4)[:, None] * 0 + 7.0]
    assert KG.key_columns(table, table).tolist() == [0, 1, 2]


def test_unequally_weighted_codes_join_where_the_heaviest_alone_form_too_large_groups(monkeypatch):
    """IdScore's space weighs each categorical column's codes by 1/entropy: gaps from 0.41 to 1.81 here, beyond
    GAP_RATIO. The codes within GAP_RATIO of the heaviest (36 patterns) group about 3 % of the pairs together,
    so the finer ratio takes every code; the groups then settle most rows, with brute force's nearest two."""
    monkeypatch.setattr(KG, "MIN_PAIRS", 0)
    rng = np.random.default_rng(3)
    weights = (1.81, 1.57, 0.89, 0.41)

    def weighted(n, base=None):
        table = mixed_table(rng, n, levels=(2, 2, 9, 40), numeric=2, base=base)
        table[:, :53] *= np.repeat(weights, (2, 2, 9, 40))
        return table

    reference = weighted(3_000)
    query = weighted(1_000, base=reference[:1_000])
    query[:, :53] = reference[:1_000, :53]  # each query row shares its codes with a reference row
    assert KG.key_columns(query, reference).tolist() == list(range(13))  # GAP_RATIO leaves the 0.41 codes out
    assert len(KG.key_columns(query, reference, KG.FINER_GAP_RATIO)) == 53
    grouped = KG.top_two_in_key_groups(query, reference, False, 50_000)
    assert grouped is not None and len(grouped.resolved) > len(query) // 2
    distance, index = brute_top_two(query, reference, False)
    np.testing.assert_array_equal(grouped.index, index[grouped.resolved])
    np.testing.assert_array_equal(grouped.distance, distance[grouped.resolved])


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 40), m=st.integers(2, 40), seed=st.integers(0, 2**32 - 1), exclude_self=st.booleans(),
       step=st.sampled_from([0.0, 0.3, 1.0]), chunk=st.integers(1, 64))
def test_key_groups_equal_brute_force_on_grids_full_of_ties(n, m, seed, exclude_self, step, chunk):
    rng = np.random.default_rng(seed)
    reference = np.c_[np.eye(3)[rng.integers(0, 3, m)], step * rng.integers(0, 3, (m, 2)) + rng.random((m, 1))]
    query = reference if exclude_self else np.c_[np.eye(3)[rng.integers(0, 3, n)],
                                                  step * rng.integers(0, 3, (n, 2)) + rng.random((n, 1))]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(KG, "MIN_PAIRS", 0)
        patch.setattr(KG, "MAX_PAIR_SHARE", 1.0)
        got, _ = nearest_two(query, reference, exclude_self=exclude_self, chunk_elements=chunk)
    distance, index = brute_top_two(query, reference, exclude_self)
    np.testing.assert_array_equal(got.index, index)
    np.testing.assert_array_equal(got.distance, distance)
