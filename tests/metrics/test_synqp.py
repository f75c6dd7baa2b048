"""Tests of SynQP's SD-IDR(ε) and SD-MIA(ε) (privcore.metrics.synqp; metrics.md §3).

A hand-worked example with duplicated key tuples, an agreement test against a brute-force
implementation that evaluates the formula literally (every pair, Σ 1/f over rows), properties, chunking
and a speed check on Adult-sized tables.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore import evaluate
from privcore.data.schema import Schema
from privcore.demo import load_scenario
from privcore.metrics import registry
from privcore.metrics.details import EpsilonSeries
from privcore.metrics.synqp import identity_disclosure

TYPES = {"sex": "binary", "city": "categorical", "age": "numerical", "income": "numerical",
         "disease": "categorical"}
SCHEMA = Schema(dict(TYPES), sensitive="disease")  # keys: sex, city, age, income


def table(rows):
    return pd.DataFrame(rows, columns=["sex", "city", "age", "income", "disease"])


#      sex city age income          distinct tuple
REAL = table([
    ("f", "a", 30, 100, "x"),  # T1 (f_Y = 2)
    ("f", "a", 30, 100, "y"),  # T1 (the sensitive value is not a key)
    ("m", "a", 40, 200, "x"),  # T3
    ("m", "b", 50, 300, "x"),  # T4
    ("f", "b", 20, 150, "y"),  # T5
    ("m", "b", 50, 302, "x"),  # T6
])
SYN = table([
    ("f", "a", 30, 100, "x"),  # S1 (f_Z = 2): exact copy of T1
    ("f", "a", 30, 100, "x"),  # S1
    ("m", "a", 41, 200, "x"),  # S3: L1 1 from T3
    ("m", "b", 50, 301, "y"),  # S4: L1 1 from T4 and from T6
    ("f", "c", 20, 150, "y"),  # S5: city c, never matches
    ("f", "b", 22, 151, "x"),  # S6: L1 3 from T5
])
HOLD = table([
    ("f", "a", 30, 100, "x"),  # exact match with S1
    ("m", "b", 49, 301, "x"),  # L1 1 from S4
    ("m", "a", 60, 500, "x"),  # nothing
    ("f", "b", 25, 151, "x"),  # L1 3 from S6
])


def run(metric, params=None, real=REAL, syn=SYN, hold=HOLD, schema=SCHEMA):
    return evaluate(real, syn, schema, metrics=metric, holdout=hold, params=params, strict=True)[metric]


def test_sd_idr_by_hand_with_duplicates():
    # |Y| = |Z| = 6. Σ_{z matching} 1/f_Z counts matched distinct synthetic tuples (S1's two rows give ½ + ½).
    # ε = 0: S1–T1 only.            syn 1/6, real (T1: ½ + ½) 1/6            → IDR 1/6
    # ε = 1: + S3–T3, S4–T4, S4–T6.  syn S1,S3,S4 = 3/6; real T1,T3,T4,T6 = 4/6 → IDR 4/6
    # ε = 2: nothing new                                                       → 4/6
    # ε = 3: + S6–T5 (2 + 1 = 3).    syn 4/6; real 5/6                         → 5/6
    res = run("sd_idr")
    assert isinstance(res.details, EpsilonSeries)
    np.testing.assert_allclose(res.details.values, [1 / 6, 4 / 6, 4 / 6, 5 / 6])
    np.testing.assert_allclose(res.details.terms["synthetic_term"], [1 / 6, 3 / 6, 3 / 6, 4 / 6])
    np.testing.assert_allclose(res.details.terms["real_term"], [1 / 6, 4 / 6, 4 / 6, 5 / 6])
    assert res.details.label == "SD-IDR: synthetic vs training records" and res.details.shown_terms == {}
    assert res.risk == pytest.approx(4 / 6) and res.raw == pytest.approx(4 / 6)  # smallest non-zero ε = 1
    assert res.per_record.tolist() == [1, 1, 1, 1, 0, 1]
    assert res.details.threshold == 0.09 and res.details.default_epsilon == 1.0
    assert res.details.numerical_keys == ["age", "income"]
    assert res.details.above_threshold == [True, True, True, True]


def test_sd_mia_by_hand():
    # IDR(H, Z), |H| = 4, |Z| = 6:
    # ε = 0: syn S1 → 1/4; holdout H1 → 1/6                 → 1/4
    # ε = 1: syn S1, S4 → 2/4; holdout H1, H2 → 2/6          → 1/2;  same at ε = 2
    # ε = 3: syn S1, S4, S6 → 3/4; holdout H1, H2, H4 → 3/6  → 3/4
    # SD-MIA = [1/6 − 1/4, 4/6 − 1/2, 4/6 − 1/2, 5/6 − 3/4] = [−1/12, 1/6, 1/6, 1/12]
    res = run("sd_mia")
    np.testing.assert_allclose(res.details.terms["idr_holdout"], [1 / 4, 1 / 2, 1 / 2, 3 / 4])
    np.testing.assert_allclose(res.details.terms["idr_real"], [1 / 6, 4 / 6, 4 / 6, 5 / 6])
    np.testing.assert_allclose(res.details.values, [-1 / 12, 1 / 6, 1 / 6, 1 / 12])
    assert res.details.label == "SD-MIA: excess over a fresh sample"
    assert list(res.details.shown_terms.items()) == [
        ("idr_real", "IDR of the training records"), ("idr_holdout", "IDR of the holdout (fresh sample)")]
    assert res.details.above_threshold == [False, True, True, False]
    assert res.risk == pytest.approx(1 / 6) and res.raw == pytest.approx(1 / 6)
    # Only ε = 0: negative raw, risk clipped to 0.
    only_zero = run("sd_mia", params={"sd_mia": {"epsilons": [0]}})
    assert only_zero.raw == pytest.approx(-1 / 12) and only_zero.risk == 0.0
    # Other ε list, unsorted: the default is the smallest non-zero (2 here).
    res = run("sd_idr", params={"sd_idr": {"epsilons": [3, 2, 0]}})
    assert res.details.epsilons == [0.0, 2.0, 3.0] and res.raw == pytest.approx(4 / 6)


def test_idr_above_one_is_clipped():
    # Y: one row; Z: three distinct rows all matching at ε = 1 → syn term 3/1 = 3; risk 1, raw 3.
    real = pd.DataFrame({"age": [30.0]})
    syn = pd.DataFrame({"age": [29.0, 30.0, 31.0]})
    res = run("sd_idr", real=real, syn=syn, hold=None, schema=Schema({"age": "numerical"}))
    assert res.raw == pytest.approx(3.0) and res.risk == 1.0


def test_only_categorical_and_only_numerical_keys():
    # Categorical keys only: ε is irrelevant. Y = {a, a, b}, Z = {a, c}: syn term 1/3, real term 1/2 → 1/2.
    real = pd.DataFrame({"c": ["a", "a", "b"]})
    syn = pd.DataFrame({"c": ["a", "c"]})
    curve = identity_disclosure(real, syn, ["c"], [], [0, 1])
    np.testing.assert_allclose(curve.idr, [0.5, 0.5])
    # Numerical keys only, negative values: Y = {−5, 0}, Z = {−3, 2}: ε=2: −5~−3 and 0~2 → 2/2.
    real, syn = pd.DataFrame({"x": [-5.0, 0.0]}), pd.DataFrame({"x": [-3.0, 2.0]})
    np.testing.assert_allclose(identity_disclosure(real, syn, [], ["x"], [0, 1, 2]).idr, [0, 0, 1])


# ------------------------------------------------------------------------------------------------
# Brute force, straight from metrics.md
# ------------------------------------------------------------------------------------------------


def brute_idr(real, syn, cat, num, eps):
    keys = cat + num
    r, z = real[keys].to_numpy(object), syn[keys].to_numpy(object)
    f_y = [sum(all(a == b) for b in r) for a in r]
    f_z = [sum(all(a == b) for b in z) for a in z]

    def match(y, s):
        return all(y[i] == s[i] for i in range(len(cat))) and sum(
            abs(float(y[i]) - float(s[i])) for i in range(len(cat), len(keys))) <= eps

    syn_sum = sum(1 / f_z[j] for j in range(len(z)) if any(match(y, z[j]) for y in r))
    real_sum = sum(1 / f_y[i] for i in range(len(r)) if any(match(r[i], s) for s in z))
    return max(syn_sum / len(r), real_sum / len(z))


def random_keys(rng, n):
    return pd.DataFrame({
        "sex": rng.choice(["f", "m"], n),
        "city": rng.choice(list("ab"), n),
        "age": rng.integers(20, 26, n).astype(float),
        "income": rng.integers(0, 3, n).astype(float) * 0.5,
        "disease": rng.choice(list("xy"), n),
    })


@pytest.mark.parametrize("seed", range(8))
def test_agreement_with_brute_force(seed):
    rng = np.random.default_rng(seed)
    real, syn, hold = random_keys(rng, 15), random_keys(rng, 12), random_keys(rng, 9)
    eps = [0, 0.5, 1, 2.5]
    params = {m: {"epsilons": eps} for m in ("sd_idr", "sd_mia")}
    report = evaluate(real, syn, SCHEMA, metrics=["sd_idr", "sd_mia"], holdout=hold, params=params, strict=True)
    cat, num = ["sex", "city"], ["age", "income"]
    expected_real = [brute_idr(real, syn, cat, num, e) for e in eps]
    expected_hold = [brute_idr(hold, syn, cat, num, e) for e in eps]
    np.testing.assert_allclose(report["sd_idr"].details.values, expected_real, atol=1e-12)
    np.testing.assert_allclose(report["sd_mia"].details.values, np.subtract(expected_real, expected_hold),
                               atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 15), m=st.integers(1, 15),
       chunk=st.sampled_from([1, 3, 50, 2**22]))
def test_properties_and_chunking(seed, n, m, chunk):
    rng = np.random.default_rng(seed)
    real, syn = random_keys(rng, n), random_keys(rng, m)
    cat, num = ["sex", "city"], ["age", "income"]
    eps = [0, 1, 2, 3]
    curve = identity_disclosure(real, syn, cat, num, eps, chunk_elements=chunk)
    reference = identity_disclosure(real, syn, cat, num, eps)
    np.testing.assert_array_equal(curve.idr, reference.idr)
    assert np.all(np.diff(curve.idr) >= 0)  # a larger budget never matches less
    shuffled = identity_disclosure(real.sample(frac=1, random_state=seed % 1000), syn, cat, num, eps)
    np.testing.assert_allclose(shuffled.idr, curve.idr, atol=1e-15)
    res = evaluate(real, syn, SCHEMA, metrics="sd_idr", strict=True)["sd_idr"]
    assert 0.0 <= res.risk <= 1.0
    assert res.risk == evaluate(real, syn, SCHEMA, metrics="sd_idr", strict=True)["sd_idr"].risk


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 15))
def test_copy_scores_one(seed, n):
    # Z = Y (any order), without duplicate key tuples: every tuple matches itself → IDR = 1 at every ε.
    rng = np.random.default_rng(seed)
    real = random_keys(rng, n).drop_duplicates(["sex", "city", "age", "income"]).reset_index(drop=True)
    for syn in (real, real.sample(frac=1, random_state=1)):
        res = evaluate(real, syn, SCHEMA, metrics="sd_idr", strict=True)["sd_idr"]
        assert res.risk == 1.0
        np.testing.assert_allclose(res.details.values, 1.0)


@pytest.mark.parametrize("eps", [[-1, 0], [], "abc", [float("inf")]])
def test_bad_epsilons_are_input_errors(eps):
    from privcore.base.errors import InputError

    with pytest.raises(InputError):
        run("sd_idr", params={"sd_idr": {"epsilons": eps}})


def test_registry_and_not_applicable():
    assert registry.get("sd_idr").needs == frozenset() and registry.get("sd_mia").needs == frozenset({"holdout"})
    # SD-IDR is read against a fresh sample of the same size (IDR(Y, H), metrics.md §5, issue 60); SD-MIA against its
    # two groups relabelled at random (its own baseline would compare the holdout with itself).
    assert registry.get("sd_idr").baseline and registry.get("sd_idr").size_matched
    assert not registry.get("sd_mia").baseline and registry.get("sd_mia").null is not None
    report = evaluate(REAL, SYN, SCHEMA, metrics="sd_mia", strict=True)
    assert not report["sd_mia"].applicable


@pytest.mark.slow
def test_adult_sized_tables_in_a_few_seconds():
    d = load_scenario("noisy_copy", n=10_000)
    schema = Schema(types=d.types, key=d.key, sensitive=d.sensitive)
    started = time.perf_counter()
    report = evaluate(d.real, d.synthetic, schema, metrics=["sd_idr", "sd_mia"], holdout=d.holdout, strict=True)
    elapsed = time.perf_counter() - started
    assert report["sd_idr"].applicable and report["sd_mia"].applicable
    assert elapsed < 10.0, elapsed  # both metrics, 10,000 × 10,000 each; ~1 s on the 2-core machine
