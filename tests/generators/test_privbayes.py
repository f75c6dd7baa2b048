"""Tests for the PrivBayes generator (privcore.generators.privbayes): hand-computed networks on tiny tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privcore.generators import GeneratorSettingError, PrivBayes, make_generator
from privcore.generators import privbayes as pb
from privcore.generators.privbayes import mi_sensitivity, mutual_information

ABC_TYPES = {"A": "categorical", "B": "categorical", "C": "categorical"}


def abc_table() -> pd.DataFrame:
    """8 rows: A balanced, B = A exactly, C balanced and independent of A (and of B)."""
    a = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    return pd.DataFrame({"A": a, "B": a.copy(), "C": np.array([0, 1, 0, 1, 0, 1, 0, 1])})


def mixed_table(n: int = 400, seed: int = 0) -> pd.DataFrame:
    """Numbers (int, float with missing), categories with missing, a bool; age drives job and smoker."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n)
    income = np.round(rng.lognormal(10, 0.5, n) + 200 * age, 2)
    income[rng.random(n) < 0.1] = np.nan
    job = np.where(age < 40, "young", np.where(rng.random(n) < 0.5, "old", None)).astype(object)
    return pd.DataFrame({"age": age, "income": income, "job": pd.Series(job, dtype=object),
                         "smoker": (age > 60) ^ (rng.random(n) < 0.1)})


MIXED_TYPES = {"age": "numerical", "income": "numerical", "job": "categorical", "smoker": "binary"}


def root_seed(first: str, table: pd.DataFrame, types=ABC_TYPES, **settings_) -> int:
    """A fit seed whose random first attribute is ``first``."""
    for seed in range(100):
        if PrivBayes(k=1, seed=seed, **settings_).fit(table, types).network[0][0] == first:
            return seed
    raise AssertionError("no seed puts it first")  # pragma: no cover


# ------------------------------------------------------------------------------------------------
# hand-computed values
# ------------------------------------------------------------------------------------------------
def test_mutual_information_by_hand():
    x = np.array([0, 1, 2, 3, 0, 1, 2, 3])
    assert mutual_information(x, x) == pytest.approx(2.0)  # H(X) = log2 4
    assert mutual_information(x, x % 2) == pytest.approx(1.0)  # Π = X mod 2 keeps one bit
    assert mutual_information(x, np.zeros(8)) == 0.0
    # X = (0,0,1,1), Π = (0,1,1,1): p(x,π) = 1/4,1/4,0,1/2, p(x) = 1/2,1/2, p(π) = 1/4,3/4
    expected = 0.25 * math.log2(0.25 / (0.5 * 0.25)) + 0.25 * math.log2(0.25 / (0.5 * 0.75)) \
        + 0.5 * math.log2(0.5 / (0.5 * 0.75))
    assert mutual_information(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1])) == pytest.approx(expected)


def test_sensitivity_by_hand():
    # Lemma 4.1 of Zhang et al. 2017 with n = 4 (bits)
    assert mi_sensitivity(4, True) == pytest.approx(0.5 + 0.75 * math.log2(4 / 3))
    assert mi_sensitivity(4, False) == pytest.approx(0.5 * math.log2(2.5) + 0.75 * math.log2(5 / 3))
    assert mi_sensitivity(1, True) == 0.0


@settings(max_examples=60, deadline=None)
@given(st.integers(4, 30), st.integers(2, 4), st.data())
def test_sensitivity_bounds_one_changed_record(n, n_parents, data):
    """Changing one record's values moves I(X; Π) by at most Δ (X binary, and X, Π both general)."""
    for n_x in (2, 3):
        x = np.array(data.draw(st.lists(st.integers(0, n_x - 1), min_size=n, max_size=n)))
        p = np.array(data.draw(st.lists(st.integers(0, n_parents - 1), min_size=n, max_size=n)))
        i = data.draw(st.integers(0, n - 1))
        x2, p2 = x.copy(), p.copy()
        x2[i], p2[i] = data.draw(st.integers(0, n_x - 1)), data.draw(st.integers(0, n_parents - 1))
        change = abs(mutual_information(x, p) - mutual_information(x2, p2))
        assert change <= mi_sensitivity(n, n_x == 2 or n_parents == 2) + 1e-9


def test_hand_network_b_copies_a():
    real = abc_table()
    gen = PrivBayes(k=1, seed=root_seed("A", real)).fit(real, ABC_TYPES)
    # A first; B's best parent is A (1 bit); C is independent of both (0 bits), first candidate A wins
    assert gen.network == [("A", ()), ("B", ("A",)), ("C", ("A",))]
    assert gen.mi == {("B", ("A",)): pytest.approx(1.0), ("C", ("A",)): pytest.approx(0.0)}
    np.testing.assert_allclose(gen.conditionals["A"], [[0.5, 0.5]])
    np.testing.assert_allclose(gen.conditionals["B"], np.eye(2))  # P(B | A) is the identity
    np.testing.assert_allclose(gen.conditionals["C"], [[0.5, 0.5], [0.5, 0.5]])
    out = gen.sample(2000, seed=3)
    assert (out["B"] == out["A"]).all()
    assert 0.4 < out["A"].mean() < 0.6 and 0.4 < (out["C"] == out["A"]).mean() < 0.6
    # whatever comes first, A and B end up linked (one is the other's parent) and copied
    for seed in range(5):
        other = PrivBayes(k=1, seed=seed).fit(real, ABC_TYPES)
        parents = dict(other.network)
        assert parents["B"] == ("A",) or parents["A"] == ("B",)
        assert (other.sample(300, 0).eval("A == B")).all()


def test_first_k_conditionals_come_from_the_joint():
    real = mixed_table()
    gen = PrivBayes(k=2).fit(real, MIXED_TYPES)
    (first, _), (second, parents) = gen.network[:2]
    assert parents == (first,) and gen.network[2][1] == (first, second)
    codes = dict(zip(real.columns, gen._codes.T))
    sizes = {a.column: a.size for a in gen.attributes}
    counts = np.zeros((sizes[first], sizes[second]))
    np.add.at(counts, (codes[first], codes[second]), 1)
    np.testing.assert_allclose(gen.conditionals[first][0], counts.sum(axis=1) / len(real))
    seen = counts.sum(axis=1) > 0
    np.testing.assert_allclose(gen.conditionals[second][seen], (counts / counts.sum(axis=1, keepdims=True))[seen])


def test_k_zero_is_independent_marginals():
    real = abc_table()
    gen = make_generator("privbayes", k=0).fit(real, ABC_TYPES)
    assert gen.network == [("A", ()), ("B", ()), ("C", ())] and gen.mi == {}
    for col in "ABC":
        np.testing.assert_allclose(gen.conditionals[col], [[0.5, 0.5]])
    out = gen.sample(4000, 0)
    assert 0.45 < (out["A"] == out["B"]).mean() < 0.55  # the copy is lost


def test_unseen_parent_configuration_falls_back_to_the_marginal():
    # X (4 distinct values) in 3 equal-width bins [0, 3.3), [3.3, 6.7), [6.7, 10]: the middle one is empty
    real = pd.DataFrame({"X": [0.0, 1.0, 2.0, 10.0], "Y": ["u", "u", "u", "v"]})
    types = {"X": "numerical", "Y": "categorical"}
    gen = PrivBayes(k=1, bins=3, seed=root_seed("X", real, types, bins=3)).fit(real, types)
    assert gen.network == [("X", ()), ("Y", ("X",))]
    np.testing.assert_allclose(gen.conditionals["X"], [[0.75, 0, 0.25]])
    np.testing.assert_allclose(gen.conditionals["Y"], [[1, 0], [0.75, 0.25], [0, 1]])


def test_table_size_limit_shrinks_parent_sets(monkeypatch):
    monkeypatch.setattr(pb, "MAX_TABLE_CELLS", 10)
    real = pd.DataFrame({c: np.arange(12) % 4 for c in "XYZ"})
    gen = PrivBayes(k=2).fit(real, {})
    assert all(parents == () for _, parents in gen.network)  # 4 × 4 cells > 10: no parents fit
    np.testing.assert_allclose(gen.conditionals["X"], [[0.25] * 4])


# ------------------------------------------------------------------------------------------------
# differential privacy
# ------------------------------------------------------------------------------------------------
def check_valid(gen: PrivBayes, k: int) -> None:
    placed = []
    for col, parents in gen.network:
        assert len(parents) <= k and set(parents) <= set(placed)
        placed.append(col)
        table = gen.conditionals[col]
        assert (table >= 0).all() and np.allclose(table.sum(axis=1), 1.0)
        assert table.shape == (math.prod(a.size for a in gen.attributes if a.column in parents),
                               next(a.size for a in gen.attributes if a.column == col))
    assert sorted(placed) == sorted(gen.table.columns)


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_small_epsilon_gives_valid_noisy_distributions(k):
    real = mixed_table()
    exact = PrivBayes(k=k).fit(real, MIXED_TYPES)
    noisy = PrivBayes(k=k, epsilon=0.05).fit(real, MIXED_TYPES)
    check_valid(noisy, k)
    check_valid(exact, k)
    assert any(not np.allclose(noisy.conditionals[c], exact.conditionals[c]) for c in real.columns)
    out = noisy.sample(500, 0)
    assert (out.dtypes == real.dtypes).all() and set(out["job"].dropna()) <= {"young", "old"}


def test_huge_epsilon_matches_the_non_private_model():
    real = mixed_table()
    exact = PrivBayes(k=2).fit(real, MIXED_TYPES)
    nearly = PrivBayes(k=2, epsilon=1e7).fit(real, MIXED_TYPES)
    assert nearly.network == exact.network
    for col in real.columns:
        # configurations never seen keep a sliver of noise, which then decides their row
        seen = exact.counts[col].sum(axis=1) > 0
        np.testing.assert_allclose(nearly.counts[col], exact.counts[col], atol=1e-3)
        np.testing.assert_allclose(nearly.conditionals[col][seen], exact.conditionals[col][seen], atol=1e-4)


def test_noise_comes_from_the_seed_setting():
    real = mixed_table()
    a, b, c = (PrivBayes(k=2, epsilon=0.5, seed=s).fit(real, MIXED_TYPES) for s in (1, 1, 2))
    for col in real.columns:
        np.testing.assert_array_equal(a.conditionals[col], b.conditionals[col])
    assert any(a.conditionals[col].shape != c.conditionals[col].shape
               or not np.array_equal(a.conditionals[col], c.conditionals[col]) for col in real.columns)


# ------------------------------------------------------------------------------------------------
# numbers, determinism, settings
# ------------------------------------------------------------------------------------------------
def test_numerical_binning_stays_in_the_training_range():
    real = mixed_table()
    gen = make_generator("privbayes", bins=7).fit(real, MIXED_TYPES)
    age = next(a for a in gen.attributes if a.column == "age")
    assert age.edges is not None and age.size == 7 and age.integral and not age.missing
    income = next(a for a in gen.attributes if a.column == "income")
    assert income.missing and income.size == 8 and not income.integral
    out = gen.sample(3000, 1)
    assert out["age"].dtype == real["age"].dtype and out["age"].between(real["age"].min(), real["age"].max()).all()
    inc = out["income"].dropna()
    assert inc.between(real["income"].min(), real["income"].max()).all()
    assert 0.03 < out["income"].isna().mean() < 0.2  # the missing bin keeps its share (~10 %)
    assert not set(inc) <= set(real["income"])  # values drawn within bins, not copied
    # a column with few distinct numbers keeps its values
    few = make_generator("privbayes").fit(real.assign(age=real["age"] % 5), MIXED_TYPES).sample(500, 0)
    assert set(few["age"]) <= set(real["age"] % 5)


def test_same_seed_same_table():
    real = mixed_table()
    for eps in (None, 1.0):
        gen = make_generator("privbayes", epsilon=eps)
        a = gen.fit(real, MIXED_TYPES).sample(700, seed=5)
        pd.testing.assert_frame_equal(a, gen.fit(real, MIXED_TYPES).sample(700, seed=5))
        pd.testing.assert_frame_equal(a, make_generator("privbayes", epsilon=eps).fit(real, MIXED_TYPES)
                                      .sample(700, seed=5))
        assert not a.equals(gen.sample(700, seed=6))


@pytest.mark.parametrize("settings_, match", [
    ({"k": -1}, "between 0 and 10"), ({"epsilon": 0}, "at least 1e-06"),
    ({"beta": 1.0}, "between 0.01 and 0.99"),
    ({"bins": 1}, "between 2 and 1000"), ({"seed": -3}, "between 0 and 2147483647"), ({"depth": 2}, "no setting 'depth'"),
])
def test_bad_settings(settings_, match):
    with pytest.raises(GeneratorSettingError, match=match):
        make_generator("privbayes", **settings_)


@pytest.mark.parametrize("bad", [{"k": -1}, {"k": 1.5}, {"epsilon": 0}, {"epsilon": "1"}, {"beta": 0.0},
                                 {"bins": 0}])
def test_constructor_checks(bad):
    with pytest.raises(GeneratorSettingError):
        PrivBayes(**bad)


def test_epsilon_none_and_infinity_are_non_private():
    assert PrivBayes(epsilon=math.inf).epsilon is None
    assert make_generator("privbayes").settings()["epsilon"] is None


# ------------------------------------------------------------------------------------------------
# property: random small categorical tables
# ------------------------------------------------------------------------------------------------
@st.composite
def categorical_tables(draw):
    n_cols = draw(st.integers(1, 4))
    n_rows = draw(st.integers(1, 25))
    alphabet = st.sampled_from(["a", "b", "c", "d", None])
    return pd.DataFrame({f"c{j}": pd.Series(draw(st.lists(alphabet, min_size=n_rows, max_size=n_rows)),
                                            dtype=object) for j in range(n_cols)})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(categorical_tables(), st.integers(0, 3), st.sampled_from([None, 0.5]), st.integers(0, 10),
       st.integers(1, 60))
def test_property_categorical_tables(real, k, epsilon, seed, n):
    gen = PrivBayes(k=k, epsilon=epsilon, seed=seed).fit(real, {})
    check_valid(gen, k)
    out = gen.sample(n, seed)
    assert list(out.columns) == list(real.columns) and (out.dtypes == real.dtypes).all() and len(out) == n
    for col in real.columns:
        assert set(out[col].fillna("<na>")) <= set(real[col].fillna("<na>"))
