"""Tests for the sequential-CART generator (privcore.generators.cart)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore.generators import GeneratorSettingError, SequentialCART, make_generator

TYPES = {"age": "numerical", "income": "numerical", "job": "categorical", "smoker": "binary"}


def table(n: int, seed: int = 0) -> pd.DataFrame:
    """Int and float (with missing) numbers, categories (with missing), a bool; job and smoker follow age."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n)
    income = np.round(rng.lognormal(10, 0.5, n), 2)
    income[rng.random(n) < 0.1] = np.nan
    job = np.where(age < 40, "young", np.where(rng.random(n) < 0.7, "old", None)).astype(object)
    return pd.DataFrame({"age": age, "income": income, "job": pd.Series(job, dtype=object),
                         "smoker": (age > 60) ^ (rng.random(n) < 0.1)})


def row_keys(df: pd.DataFrame) -> pd.Series:
    return pd.util.hash_pandas_object(df, index=False)


def test_leaves_of_one_row_reproduce_training_rows():
    real = table(12)
    gen = make_generator("cart", min_leaf=1).fit(real, TYPES)
    out = gen.sample(500, seed=2)
    assert row_keys(out).isin(set(row_keys(real))).all()  # every synthetic row is a training row
    assert (out.dtypes == real.dtypes).all()
    assert row_keys(out).nunique() > 6  # and many of them, not one row repeated


def test_large_leaves_draw_each_column_from_its_training_values():
    real = table(60)
    gen = make_generator("cart", min_leaf=1000).fit(real, TYPES)  # one leaf: each column its marginal
    assert all(tree.get_n_leaves() == 1 for tree in gen.trees.values())
    out = gen.sample(2000, seed=0)
    for col in real.columns:
        assert set(out[col].astype(str)) <= set(real[col].astype(str))
    # one leaf means no link to earlier columns: job no longer follows age
    assert ((out["age"] < 40) != (out["job"] == "young")).mean() > 0.2
    assert not row_keys(out).isin(set(row_keys(real))).all()


def test_default_leaves_keep_training_values_and_relations():
    real = table(400)
    out = make_generator("cart").fit(real, TYPES).sample(1000, seed=1)
    for col in real.columns:
        assert set(out[col].astype(str)) <= set(real[col].astype(str))
    assert ((out["age"] < 40) == (out["job"] == "young")).mean() > 0.9  # the tree on age finds the split


def test_same_seed_same_table():
    real = table(200)
    gen = make_generator("cart", min_leaf=3).fit(real, TYPES)
    a = gen.sample(300, seed=7)
    pd.testing.assert_frame_equal(a, gen.sample(300, seed=7))
    pd.testing.assert_frame_equal(a, make_generator("cart", min_leaf=3).fit(real, TYPES).sample(300, seed=7))
    assert not a.equals(gen.sample(300, seed=8))


def test_column_order_is_respected():
    real = table(200)
    order = ["job", "smoker", "income", "age"]
    gen = make_generator("cart", column_order=order).fit(real, TYPES)
    assert gen.order == order and set(gen.trees) == set(order[1:])
    assert [gen.trees[c].n_features_in_ for c in order[1:]] == [1, 2, 3]  # each tree sees the earlier ones
    out = gen.sample(300, seed=4)
    assert list(out.columns) == list(real.columns)  # output keeps the table's order
    # the first column of the order is drawn straight from its training values by the sample's seed
    rows = np.random.default_rng(4).integers(0, len(real), 300)
    np.testing.assert_array_equal(out["job"].to_numpy(), real["job"].to_numpy()[rows])
    default = make_generator("cart").fit(real, TYPES)
    assert default.order == list(real.columns)


@pytest.mark.parametrize("order, match", [
    (["age", "income", "job"], "lacks 'smoker'"),
    (["age", "income", "job", "smoker", "height"], "names 'height', not in the training table"),
    (["age", "age", "income", "job", "smoker"], "repeats 'age'"),
])
def test_column_order_errors_name_the_columns(order, match):
    gen = make_generator("cart", column_order=order)
    with pytest.raises(GeneratorSettingError, match=match):
        gen.fit(table(20), TYPES)


def test_bad_settings():
    with pytest.raises(GeneratorSettingError, match="at least 1"):
        make_generator("cart", min_leaf=0)
    with pytest.raises(GeneratorSettingError, match="list of column names"):
        make_generator("cart", column_order=[1, 2])
    for bad in ({"min_leaf": 0}, {"min_leaf": 2.5}, {"column_order": [3]}):
        with pytest.raises(GeneratorSettingError):
            SequentialCART(**bad)
    # one name is a list of one, made directly or by name (both check the same declaration)
    assert make_generator("cart", column_order="age").column_order == ["age"]
    assert SequentialCART(column_order="age").column_order == ["age"]


def test_bench_wrapper_calls_the_generator():
    # bench/ is a folder of scripts, not a package: its helper is imported from its path, here only
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    try:
        from _cart import sequential_cart
    finally:
        sys.path.pop(0)
    real = table(100)
    expected = make_generator("cart", min_leaf=1).fit(real, TYPES).sample(50, seed=3)
    pd.testing.assert_frame_equal(sequential_cart(real, TYPES, 50, seed=3, min_leaf=1), expected)
