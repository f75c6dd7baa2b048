"""Wide tables mostly of zeros (a code of many values): products split into dense and sparse parts, same neighbours."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import privcore.engine.sparse_split as S
from privcore import evaluate
from privcore.data import infer_schema
from privcore.engine import all_within, count_within, nearest_k, nearest_two, nearest_two_both_ways
from privcore.engine.operands import matrix_setup


def _coded(rows: int, codes: int, seed: int, weight: float = 1.0) -> np.ndarray:
    """Two numbers, a small one-hot block and a wide one, as E encodes them (weighted like IdScore's space)."""
    rng = np.random.default_rng(seed)
    numbers = rng.integers(0, 20, (rows, 2)) / 19.0
    small = np.eye(3)[rng.integers(0, 3, rows)]
    wide = np.eye(codes)[rng.integers(0, codes, rows)] * weight
    return np.ascontiguousarray(np.hstack([numbers, small, wide]))


@pytest.fixture
def dense_only(monkeypatch):
    """Every pass as one dense product, as before the split."""
    monkeypatch.setattr(S, "MIN_COLUMNS", 10**9)


def _passes(query, reference):
    two, extremes = nearest_two(query, reference, with_extremes=True)
    within, _ = nearest_two(query, query, exclude_self=True)
    k = nearest_k(query, reference, 7)
    forward, backward, _ = nearest_two_both_ways(query, reference)
    radius = two.d2 + 1e-9
    counts = count_within(query, reference, radius)
    pairs = all_within(query, reference, radius)
    return [two.distance, two.index, extremes.d_min, extremes.d_max, within.distance, within.index, k.distance,
            k.index, forward.index, backward.index, forward.distance, counts, pairs.indices, pairs.rows()]


@pytest.mark.parametrize("weight", [1.0, 0.37])
def test_a_wide_code_gives_the_same_neighbours_split_or_dense(weight, monkeypatch):
    query, reference = _coded(700, 400, 1, weight), _coded(2600, 400, 2, weight)
    assert S.split(query, reference) is not None  # the split is used ...
    split = _passes(query, reference)
    monkeypatch.setattr(S, "MIN_COLUMNS", 10**9)
    assert S.split(query, reference) is None  # ... and here it is not
    dense = _passes(query, reference)
    for a, b in zip(split, dense):
        np.testing.assert_array_equal(a, b)


def test_the_split_is_chosen_only_for_wide_mostly_zero_tables():
    assert S.split(_coded(100, 40, 1), _coded(100, 40, 2)) is None  # 45 columns: one product
    rng = np.random.default_rng(0)
    assert S.split(rng.random((50, 300)), rng.random((60, 300))) is None  # wide but dense
    parts = S.split(_coded(100, 400, 1), _coded(120, 400, 2))
    assert parts.query_dense.shape == (100, 5) and parts.reference_sparse.shape == (120, 400)
    setup = matrix_setup(_coded(100, 400, 1), _coded(120, 400, 2), "cpu", 10**6, 1)
    assert setup.operands.split is not None and setup.operands.fallback is None  # float64: exact candidates


def test_products_equal_the_dense_product_within_rounding():
    query, reference = _coded(90, 500, 3, 0.5), _coded(130, 500, 4, 0.5)
    parts = S.split(query, reference)
    np.testing.assert_allclose(parts.products(slice(10, 50), 20, 100), query[10:50] @ reference[20:100].T,
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(parts.scores_t(5, 60, 0, 90), reference[5:60] @ query.T, rtol=0, atol=1e-12)


@pytest.mark.slow
def test_an_evaluation_with_a_5000_value_code_is_the_same_split_or_dense(monkeypatch):
    def table(seed):
        rng = np.random.default_rng(seed)
        return pd.DataFrame({"age": rng.integers(18, 90, 600), "region": rng.choice(list("abcd"), 600),
                             "income": rng.normal(50, 10, 600).round(1),
                             "diagnosis": [f"D{c:04d}" for c in rng.integers(0, 5000, 600)]})

    real, synthetic, holdout = table(1), table(2), table(3)
    schema = infer_schema(real, sensitive="income")
    split = evaluate(real, synthetic, schema, metrics="quick", holdout=holdout, seed=0)
    monkeypatch.setattr(S, "MIN_COLUMNS", 10**9)
    dense = evaluate(real, synthetic, schema, metrics="quick", holdout=holdout, seed=0)
    for metric, result in dense.items():
        other = split[metric]
        assert not result.failed and not other.failed, metric
        assert result.risk == other.risk or (result.risk != result.risk and other.risk != other.risk), metric
        assert result.size_match == other.size_match, metric


def test_a_table_is_converted_once_and_again_after_it_is_written_to():
    rng = np.random.default_rng(3)
    table = np.hstack([rng.random((50, 1)), np.eye(300)[rng.integers(0, 300, 50)]])
    other = np.hstack([rng.random((40, 1)), np.eye(300)[rng.integers(0, 300, 40)]])
    first, again = S.split(table, other), S.split(table, other)
    assert first is not None and again is not None
    np.testing.assert_allclose(again.products(slice(0, 50)), table @ other.T)
    assert S._csr(table) is S._csr(table)  # kept while the array lives and is unchanged
    table[:, 1:] = np.eye(300)[rng.integers(0, 300, 50)]  # written to in place: converted again
    np.testing.assert_allclose(S.split(table, other).products(slice(0, 50)), table @ other.T)
