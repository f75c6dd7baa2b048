"""Tests of the distance-based metrics in E (privcore.metrics.distance; metrics.md §2).

Hand-worked examples (arithmetic in the comments; E coordinates are x / range for a numerical column
whose real minimum is 0), an agreement test against a brute-force implementation written straight from
metrics.md with full distance matrices, hypothesis property tests, the shared-pass check and a speed
check of HitR.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from privcore import evaluate
from privcore.base.errors import InputError
from privcore.data.schema import Schema
from privcore.metrics.distance import attribute_entropy, hit_counts, hitr

IDS = ["cvp", "dvp", "auth", "idscore", "nsnd", "mdcr", "nnaa", "hitr"]
COPY_IDS = ["cvp", "dvp", "auth", "idscore", "nsnd", "mdcr", "nnaa", "hitr"]


def run(real, synthetic, metrics, types=None, holdout=None, seed=0, params=None):
    types = types or {c: "numerical" for c in real.columns}
    return evaluate(real, synthetic, Schema(dict(types)), metrics=metrics, holdout=holdout, seed=seed,
                    params=params, strict=True)


def one_column(values):
    return pd.DataFrame({"x": [float(v) for v in values]})


# ------------------------------------------------------------------------------------------------
# Hand-worked examples
# ------------------------------------------------------------------------------------------------


def test_cvp_dvp_nsnd_by_hand():
    # E: Y = [0, .1, 1], Z = [0, .1]. d_YZ = [0, 0, .9]; all pairs: d_min = 0, d_max = 1 (y=1, z=0).
    # n = [0, 0, .9]. CVP: n ≤ .2 for 2 of 3. DVP raw: n ≥ .8 for 1 of 3 → risk 2/3.
    # NSND raw = (0 + 0 + .9)/3 = .3 → risk .7; per_record = 1 − n = [1, 1, .1].
    report = run(one_column([0, 1, 10]), one_column([0, 1]), "cvp,dvp,nsnd")
    assert report["cvp"].risk == pytest.approx(2 / 3)
    assert report["cvp"].per_record.tolist() == [1.0, 1.0, 0.0]
    assert report["dvp"].raw == pytest.approx(1 / 3)
    assert report["dvp"].risk == pytest.approx(2 / 3)
    assert report["dvp"].per_record.tolist() == [1.0, 1.0, 0.0]
    assert report["nsnd"].raw == pytest.approx(0.3)
    assert report["nsnd"].risk == pytest.approx(0.7)
    np.testing.assert_allclose(report["nsnd"].per_record, [1.0, 1.0, 0.1])
    assert report["cvp"].details["d_max"] == pytest.approx(1.0)
    assert report["cvp"].details["d_min"] == 0.0


def test_cvp_dvp_ties_at_the_threshold():
    # E: Y = [0, .2, 1], Z = [0, .2]: d_YZ = [0, 0, .8], d_min = 0, d_max = 1 → n = [0, 0, .8].
    # DVP: n = .8 is "≥ 0.8" → raw 1/3, risk 2/3. CVP(θ = .8): .8 ≤ .8 → risk 1; CVP(θ = .79): 2/3.
    real, synthetic = one_column([0, 2, 10]), one_column([0, 2])
    assert run(real, synthetic, "dvp")["dvp"].risk == pytest.approx(2 / 3)
    assert run(real, synthetic, "cvp", params={"cvp": {"threshold": 0.8}})["cvp"].risk == 1.0
    assert run(real, synthetic, "cvp", params={"cvp": {"threshold": 0.79}})["cvp"].risk == pytest.approx(2 / 3)
    # E: Y = [0, .1, 1], Z = [0, .7]: d_YZ(1) = 1 − .7 = 0.30000000000000004 in floating point, exactly
    # .3 in E; d_max = 1. n = .3 is a tie with θ = .3 and counts as close: CVP = 3/3.
    report = run(one_column([0, 1, 10]), one_column([0, 7]), "cvp", params={"cvp": {"threshold": 0.3}})
    assert report["cvp"].risk == 1.0


def test_cvp_all_pairs_equally_far():
    # One real and one synthetic row: d_max = d_min, so n(y) = 0 by definition → CVP 1, DVP raw 0.
    real = pd.DataFrame({"x": [0.0, 1.0], "c": ["a", "b"]})
    synthetic = pd.DataFrame({"x": [0.5], "c": ["c"]})
    report = run(real, synthetic, "cvp,dvp,nsnd", types={"x": "numerical", "c": "categorical"})
    # d((0,a),(0.5,c)) = sqrt(.25 + 2) = d((1,b),(0.5,c)): every pair is equally far.
    assert report["cvp"].risk == 1.0 and report["dvp"].risk == 1.0 and report["nsnd"].risk == 1.0


def test_auth_by_hand_with_duplicates_and_a_tie():
    # E: Y = [0, 0, .4, 1], Z = [.1, 1.6].
    # d_YY (nearest other real, by position): [0 (duplicate), 0, .4, .6].
    # d_YZ: [.1, .1, .3, 1.6 − 1 = 0.6000000000000001].
    # Authentic (d_YY < d_YZ, strictly): yes, yes, .4 < .3 no, .6 < .6 tie within 1e-12·d_max → no.
    # raw = 2/4, risk = .5, per_record = [0, 0, 1, 1].
    report = run(one_column([0, 0, 4, 10]), one_column([1, 16]), "auth")
    assert report["auth"].raw == 0.5
    assert report["auth"].risk == 0.5
    assert report["auth"].per_record.tolist() == [0.0, 0.0, 1.0, 1.0]


def test_mdcr_by_hand():
    # Same tables: median d_YZ = median[.1, .1, .3, .6] = (.1 + .3)/2 = .2;
    # median d_YY = median[0, 0, .4, .6] = (0 + .4)/2 = .2 → raw 1, risk 1/(1 + 1) = .5.
    # per_record = 1/(1 + d_YZ/.2) = 1/(1 + [.5, .5, 1.5, 3]) = [2/3, 2/3, .4, .25].
    report = run(one_column([0, 0, 4, 10]), one_column([1, 16]), "mdcr")
    assert report["mdcr"].raw == pytest.approx(1.0)
    assert report["mdcr"].risk == pytest.approx(0.5)
    np.testing.assert_allclose(report["mdcr"].per_record, [2 / 3, 2 / 3, 0.4, 0.25])


def test_mdcr_zero_medians():
    # Both medians 0: Y = [0, 0, 1, 1] (pairs of duplicates), Z = [0, 1, 5] contains copies.
    # d_YZ = [0, 0, 0, 0], d_YY = [0, 0, 0, 0] → raw 1, risk .5; per_record 0/0 = 1 → 1/2.
    report = run(one_column([0, 0, 1, 1]), one_column([0, 1, 5]), "mdcr")
    assert report["mdcr"].raw == 1.0 and report["mdcr"].risk == 0.5
    assert report["mdcr"].per_record.tolist() == [0.5] * 4
    assert report["mdcr"].warnings
    # Only the denominator 0: Y = [0, 0, 10, 10] → E [0, 0, 1, 1], Z = [.3, .7]: d_YZ = .3 each, d_YY = 0.
    # raw = .3/0 = ∞ → risk 1/(1 + ∞) = 0; per_record .3/0 = ∞ → 0. JSON shows raw as null.
    report = run(one_column([0, 0, 10, 10]), one_column([3, 7]), "mdcr")
    assert math.isinf(report["mdcr"].raw) and report["mdcr"].risk == 0.0
    assert report["mdcr"].per_record.tolist() == [0.0] * 4
    assert report.to_dict()["metrics"]["mdcr"]["raw"] is None


def test_idscore_by_hand_multiplies_by_the_weight():
    # x = [0, 0, 0, 10]: 2 distinct values → own values; p = (.75, .25),
    #   H(x) = −(.75 ln .75 + .25 ln .25) = 0.562335 → w(x) = 1.778299.
    # c = A, B, C, D: H(c) = ln 4 = 1.386294 → w(c) = 0.721348.
    # Weighted distances: a different c moves two one-hot coordinates → sqrt(2)·w(c) = 1.020139;
    # a different x (0 vs 10 → 0 vs 1) → w(x) = 1.778299; both → sqrt(w(x)² + 2 w(c)²) = 2.050130.
    # Real rows y0=(0,A), y1=(0,B), y2=(0,C), y3=(10,D); synthetic z0=(10,A), z1=(0,D).
    # d̂_YY = [1.020139, 1.020139, 1.020139, 2.050130];
    # d̂_YZ: y0 min(1.778299, 1.020139), y1 min(2.050130, 1.020139), y2 same, y3 min(1.020139, 1.778299)
    #      = [1.020139, 1.020139, 1.020139, 1.020139].
    # Strictly closer: y0–y2 tie (not counted), y3 1.020 < 2.050 → risk 1/4, per_record [0, 0, 0, 1].
    # (Dividing by the weight, as eq. 19 prints, gives y0 d̂_YZ = 0.562 < d̂_YY = 1.96: risk ≥ 1/2.)
    types = {"x": "numerical", "c": "categorical"}
    real = pd.DataFrame({"x": [0.0, 0.0, 0.0, 10.0], "c": list("ABCD")})
    synthetic = pd.DataFrame({"x": [10.0, 0.0], "c": list("AD")})
    report = run(real, synthetic, "idscore,auth", types=types)
    result = report["idscore"]
    assert result.risk == 0.25
    assert result.per_record.tolist() == [0.0, 0.0, 0.0, 1.0]
    assert result.details["weight"]["x"] == pytest.approx(1.778299, abs=1e-6)
    assert result.details["weight"]["c"] == pytest.approx(0.721348, abs=1e-6)
    np.testing.assert_allclose(result.details.d_yy, [1.020139, 1.020139, 1.020139, 2.050130], atol=1e-6)
    # Unweighted, y0's nearest synthetic (10, A) is at 1 < sqrt 2 = its nearest real: Auth flags all four
    # (y1, y2: 1.414 vs 1.414 tie; y3: 1.414 < 1.732).
    assert report["auth"].risk == 1.0


def test_attribute_entropy_values_and_bins():
    # 10 distinct values (≤ 10): their own values, uniform → ln 10.
    assert attribute_entropy(pd.Series(np.arange(10.0)), "numerical") == pytest.approx(math.log(10))
    # 11 distinct values 0..10: 10 equal-width bins [0,1), ..., [8,9), [9,10] → counts 1 ×9 and 2.
    # H = 9·(1/11)·ln 11 + (2/11)·ln(11/2).
    expected = 9 / 11 * math.log(11) + 2 / 11 * math.log(11 / 2)
    assert attribute_entropy(pd.Series(np.arange(11.0)), "numerical") == pytest.approx(expected)
    # Heavily tied (Adult's capital-gain): 90 zeros and 10, 20, ..., 100 (11 distinct values):
    # bins of width 10 → [0, 10) holds the 90 zeros, [10, 20) ... [80, 90) one value each, and the last
    # bin [90, 100] (closed) holds 90 and 100. p = (.9, .01 ×8, .02).
    values = pd.Series([0.0] * 90 + [float(v) for v in range(10, 101, 10)])
    expected = -(0.9 * math.log(0.9) + 8 * 0.01 * math.log(0.01) + 0.02 * math.log(0.02))
    assert attribute_entropy(values, "numerical") == pytest.approx(expected)
    # A categorical column keeps its values, including the missing category.
    assert attribute_entropy(pd.Series(["a", "(missing)"]), "categorical") == pytest.approx(math.log(2))


def test_nnaa_equal_sizes_by_hand():
    # E: Y = [0, .1, .9, 1], Z = [0, .4, 2, 2.1].
    # d_YZ = [0, .1, .5, .6], d_YY = [.1, .1, .1, .1]: d_YZ > d_YY for y2, y3 (y1: .1 vs .1 tie → no) → 1/2.
    # d_ZY = [0, .3, 1, 1.1], d_ZZ = [.4, .4, .1, .1]: d_ZY > d_ZZ for z2, z3 → 1/2.
    # NNAA = ½(½ + ½) = .5 → risk .5; per_record = 1 − [0, 0, 1, 1] = [1, 1, 0, 0].
    report = run(one_column([0, 1, 9, 10]), one_column([0, 4, 20, 21]), "nnaa")
    result = report["nnaa"]
    assert result.raw == 0.5 and result.risk == 0.5
    assert result.per_record.tolist() == [1.0, 1.0, 0.0, 0.0]
    assert result.details["real_term"] == 0.5 and result.details["synthetic_term"] == 0.5


def test_nnaa_unequal_sizes_by_hand():
    # Y = [10, 0, 1] → E [1, 0, .1]; Z = [5, 12] → E [.5, 1.2]. Subsets of Y of size 2:
    # {y1, y2} = {0, .1}: d_YZ = [.5, .4] > d_YY = [.1, .1] → 1; d_ZY = [.4, 1.1] vs d_ZZ = [.7, .7] → 1/2;
    #                     NNAA = .75.
    # {y0, y1} = {1, 0}:  d_YZ = [.2, .5] vs d_YY = [1, 1] → 0; d_ZY = [.5, .2] vs .7 → 0; NNAA = 0.
    # {y0, y2} = {1, .1}: d_YZ = [.2, .4] vs d_YY = [.9, .9] → 0; d_ZY = [.4, .2] vs .7 → 0; NNAA = 0.
    # NNAA = .75 × (share of the 10 draws that pick {1, 2}); risk = 1 − NNAA.
    rng = np.random.default_rng(0)
    draws = [frozenset(rng.choice(3, size=2, replace=False).tolist()) for _ in range(10)]
    expected = 0.75 * sum(d == {1, 2} for d in draws) / 10
    report = run(one_column([10, 0, 1]), one_column([5, 12]), "nnaa", seed=0)
    assert report["nnaa"].raw == pytest.approx(expected)
    assert report["nnaa"].risk == pytest.approx(1 - expected)
    # per_record on the full tables: d_YZ = [.2, .5, .4], d_YY = [.9, .1, .1];
    # 1(d_YZ > d_YY) = [0, 1, 1] → per_record = 1 − that = [1, 0, 0].
    assert report["nnaa"].per_record.tolist() == [1.0, 0.0, 0.0]
    assert report["nnaa"].warnings


def test_hitr_by_hand():
    # h(x) = (30 − 0)/30 = 1; w is constant 5 in Y → h(w) = 0 (equality required); c categorical.
    # z0 (1, 5, A)   hits y0 (0, 5, A): |1 − 0| = 1 ≤ 1 (a tie on the bound hits).
    # z1 (10, 6, A)  misses y1 (10, 5, A): |6 − 5| > 0.
    # z2 (20.5, 5, A) misses y2 (20, 5, B): c differs; y1: |20.5 − 10| > 1.
    # z3 (29, 5, B)  hits y3 (30, 5, B).  z4 = z0 again (a duplicate) hits y0 a second time.
    # risk = 2/4 = .5, hits per real row [2, 0, 0, 1].
    types = {"x": "numerical", "w": "numerical", "c": "categorical"}
    real = pd.DataFrame({"x": [0.0, 10, 20, 30], "w": [5.0] * 4, "c": list("AABB")})
    synthetic = pd.DataFrame({"x": [1.0, 10, 20.5, 29, 1], "w": [5.0, 6, 5, 5, 5], "c": list("AAABA")})
    result = run(real, synthetic, "hitr", types=types)["hitr"]
    assert result.risk == 0.5
    assert result.per_record.tolist() == [1.0, 0.0, 0.0, 1.0]
    assert result.details["hits_per_real"].tolist() == [2, 0, 0, 1]
    assert result.details["h"] == {"x": 1.0, "w": 0.0}


def test_hitr_categorical_only_and_binary():
    # No numerical column: a hit is an exact match of every value. Y = (a,x), (a,y), (b,x); Z = (a,y), (a,y).
    types = {"c": "categorical", "b": "binary"}
    real = pd.DataFrame({"c": list("aab"), "b": list("xyx")})
    synthetic = pd.DataFrame({"c": list("aa"), "b": list("yy")})
    result = run(real, synthetic, "hitr", types=types)["hitr"]
    assert result.per_record.tolist() == [0.0, 1.0, 0.0]
    assert result.details["hits_per_real"].tolist() == [0, 2, 0]


def test_not_applicable_reasons_and_bad_params():
    report = run(one_column([0]), one_column([0, 1]), "auth,mdcr,idscore,nnaa,cvp")
    for metric in ("auth", "mdcr", "idscore", "nnaa"):
        assert not report[metric].applicable and "2" in report[metric].reason
    # With one real row every column is constant in Y, so E is empty.
    assert not report["cvp"].applicable and "constant" in report["cvp"].reason
    constant = pd.DataFrame({"x": [1.0, 1.0, 1.0]})
    report = run(constant, constant, "cvp,hitr")
    assert not report["cvp"].applicable and "constant" in report["cvp"].reason
    assert report["hitr"].risk == 1.0  # exact-match metrics keep constant columns
    with pytest.raises(InputError):
        run(one_column([0, 1]), one_column([0, 1]), "cvp", params={"cvp": {"threshold": 2}})
    with pytest.raises(InputError):
        run(one_column([0, 1]), one_column([0, 1]), "nnaa", params={"nnaa": {"repeats": 0}})


# ------------------------------------------------------------------------------------------------
# Agreement with a brute-force implementation written from metrics.md
# ------------------------------------------------------------------------------------------------

TYPES = {"n1": "numerical", "n2": "numerical", "f": "numerical", "c": "categorical", "b": "binary"}


def random_table(rng, n):
    return pd.DataFrame({
        "n1": rng.integers(0, 6, n).astype(float),  # few values: ties and duplicates
        "n2": rng.integers(0, 40, n).astype(float),  # more than 10 values: IdScore bins
        "f": np.round(rng.normal(size=n), 1),
        "c": rng.choice(list("pqr"), n),
        "b": rng.choice(list("st"), n),
    })


def encode(real, others, types):
    """E from metrics.md §0, written independently: min–max on Y, one-hot, binary as one 0/1 column."""
    tables = [real, *others]
    parts = [[] for _ in tables]
    owners = []
    for col, kind in types.items():
        if real[col].nunique() <= 1:
            continue
        if kind == "numerical":
            lo, hi = real[col].min(), real[col].max()
            for part, df in zip(parts, tables):
                part.append(((df[col] - lo) / (hi - lo)).to_numpy()[:, None])
            owners.append(col)
        elif kind == "binary":
            top = sorted(set(real[col]).union(*(set(df[col]) for df in others)))[-1]
            for part, df in zip(parts, tables):
                part.append((df[col] == top).to_numpy(dtype=float)[:, None])
            owners.append(col)
        else:
            levels = sorted(set(real[col]).union(*(set(df[col]) for df in others)))
            for part, df in zip(parts, tables):
                part.append(np.stack([(df[col] == v).to_numpy(dtype=float) for v in levels], axis=1))
            owners.extend([col] * len(levels))
    return [np.hstack(p) for p in parts], owners


def nearest(a, b, same=False):
    d = cdist(a, b)
    if same:
        np.fill_diagonal(d, np.inf)
    return d.min(axis=1)


def brute_entropy(values, kind):
    if kind == "numerical" and values.nunique() > 10:
        lo, hi = values.min(), values.max()
        bins = np.minimum(np.floor((values.to_numpy() - lo) / (hi - lo) * 10), 9)
        counts = pd.Series(bins).value_counts().to_numpy()
    else:
        counts = values.value_counts().to_numpy()
    p = counts / counts.sum()
    return -(p * np.log(p)).sum()


def brute_force(real, synthetic, types, seed=0, repeats=10):
    (y, z), owners = encode(real, [synthetic], types)
    pairs = cdist(y, z)
    d_min, d_max = pairs.min(), pairs.max()
    tol = 1e-12 * d_max
    d_yz, d_yy = pairs.min(axis=1), nearest(y, y, True)
    span = d_max - d_min
    n = np.zeros(len(y)) if span <= tol else (d_yz - d_min) / span
    out = {}
    out["cvp"] = np.mean(n <= 0.2 + tol / max(span, 1e-300)) if span > tol else 1.0
    out["dvp"] = 1 - (np.mean(n >= 0.8 - tol / span) if span > tol else 0.0)
    out["nsnd"] = 1 - np.mean(n)
    out["auth"] = 1 - np.mean(d_yy < d_yz - tol)
    med_yz, med_yy = np.median(d_yz), np.median(d_yy)
    mdcr = (1.0 if med_yz == 0 else np.inf) if med_yy == 0 else med_yz / med_yy
    out["mdcr"] = 1 / (1 + mdcr)
    # IdScore: multiply each attribute's coordinates by 1/(H + 1e-8).
    weight = np.array([1 / (brute_entropy(real[col], types[col]) + 1e-8) for col in owners])
    yw, zw = y * weight, z * weight
    tol_w = 1e-12 * cdist(yw, zw).max()
    out["idscore"] = np.mean(nearest(yw, zw) < nearest(yw, yw, True) - tol_w)

    def nnaa(a, b):
        return 0.5 * (np.mean(nearest(a, b) > nearest(a, a, True) + tol)
                      + np.mean(nearest(b, a) > nearest(b, b, True) + tol))

    if len(y) == len(z):
        out["nnaa"] = 1 - nnaa(y, z)
    else:
        rng = np.random.default_rng(seed)
        values = []
        for _ in range(repeats):
            if len(y) > len(z):
                values.append(nnaa(y[rng.choice(len(y), size=len(z), replace=False)], z))
            else:
                values.append(nnaa(y, z[rng.choice(len(z), size=len(y), replace=False)]))
        out["nnaa"] = 1 - np.mean(values)
    # HitR: every pair, every column (constant ones included).
    hit = np.ones((len(real), len(synthetic)), dtype=bool)
    for col, kind in types.items():
        a, b = real[col].to_numpy(), synthetic[col].to_numpy()
        if kind == "numerical":
            h = (a.max() - a.min()) / 30
            hit &= np.abs(a[:, None] - b[None, :]) <= h
        else:
            hit &= a[:, None] == b[None, :]
    out["hitr"] = np.mean(hit.any(axis=1))
    return out


@pytest.mark.parametrize("seed", range(15))
def test_agrees_with_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_real = int(rng.integers(4, 40))
    # Equal sizes, slightly and much larger or smaller synthetic tables (NNAA's subsets: a small subset
    # rarely holds a row's two nearest neighbours of the full table, so most are recomputed).
    n_synthetic = [n_real, n_real + int(rng.integers(1, 9)), max(2, n_real - int(rng.integers(1, 4))),
                   5 * n_real, max(2, n_real // 5)][seed % 5]
    real, synthetic = random_table(rng, n_real), random_table(rng, n_synthetic)
    if seed % 4 == 0:  # some exact copies of real rows
        half = min(n_real, n_synthetic) // 2
        synthetic.iloc[:half] = real.iloc[:half].to_numpy()
    report = run(real, synthetic, IDS, types=TYPES, seed=seed)
    expected = brute_force(real, synthetic, TYPES, seed=seed)
    for metric in IDS:
        assert report[metric].risk == pytest.approx(expected[metric], abs=1e-9), metric


# ------------------------------------------------------------------------------------------------
# Properties (hypothesis)
# ------------------------------------------------------------------------------------------------

ROW = st.tuples(st.integers(0, 20), st.integers(0, 4), st.sampled_from("abc"), st.sampled_from("xy"))
PROP_TYPES = {"u": "numerical", "v": "numerical", "c": "categorical", "b": "binary"}


def to_frame(rows):
    return pd.DataFrame(rows, columns=list(PROP_TYPES)).astype({"u": float, "v": float})


@settings(max_examples=25, deadline=None)
@given(rows=st.lists(ROW, min_size=3, max_size=12, unique=True), data=st.data())
def test_a_copy_scores_one(rows, data):
    real = to_frame(rows)
    order = data.draw(st.permutations(range(len(rows))))
    for synthetic in (real.copy(), real.iloc[list(order)].reset_index(drop=True)):
        report = run(real, synthetic, COPY_IDS, types=PROP_TYPES)
        for metric in COPY_IDS:
            assert report[metric].risk == pytest.approx(1.0, abs=1e-12), metric


@settings(max_examples=25, deadline=None)
@given(
    real_rows=st.lists(ROW, min_size=2, max_size=12),
    synthetic_rows=st.lists(ROW, min_size=2, max_size=12),
    seed=st.integers(0, 2**16),
)
def test_risk_in_range_and_seed_determinism(real_rows, synthetic_rows, seed):
    real, synthetic = to_frame(real_rows), to_frame(synthetic_rows)
    first = run(real, synthetic, IDS, types=PROP_TYPES, seed=seed)
    second = run(real, synthetic, IDS, types=PROP_TYPES, seed=seed)
    for metric in IDS:
        if not first[metric].applicable:
            continue
        assert 0.0 <= first[metric].risk <= 1.0
        assert first[metric].risk == second[metric].risk
        np.testing.assert_array_equal(first[metric].per_record, second[metric].per_record)


@settings(max_examples=25, deadline=None)
@given(
    real_rows=st.lists(ROW, min_size=2, max_size=12),
    synthetic_rows=st.lists(ROW, min_size=2, max_size=12),
    data=st.data(),
)
def test_real_row_order_does_not_matter(real_rows, synthetic_rows, data):
    real, synthetic = to_frame(real_rows), to_frame(synthetic_rows)
    order = list(data.draw(st.permutations(range(len(real)))))
    shuffled = real.iloc[order].reset_index(drop=True)
    # NNAA subsamples the real table by position when it is the larger one, so only |Y| ≤ |Z| is invariant.
    ids = IDS if len(real) <= len(synthetic) else [m for m in IDS if m != "nnaa"]
    before = run(real, synthetic, ids, types=PROP_TYPES)
    after = run(shuffled, synthetic, ids, types=PROP_TYPES)
    for metric in ids:
        assert before[metric].applicable == after[metric].applicable
        if before[metric].applicable:
            assert after[metric].risk == pytest.approx(before[metric].risk, abs=1e-12), metric
            np.testing.assert_allclose(after[metric].per_record, before[metric].per_record[order], atol=1e-12)


# ------------------------------------------------------------------------------------------------
# Shared passes, baseline, speed
# ------------------------------------------------------------------------------------------------


def test_one_evaluation_never_repeats_a_neighbour_pass():
    rng = np.random.default_rng(3)
    real, synthetic, holdout = random_table(rng, 30), random_table(rng, 30), random_table(rng, 30)
    report = run(real, synthetic, IDS, types=TYPES, holdout=holdout)
    passes = report.shared.passes
    assert len(passes) == len(set(passes))
    # The size-matched comparison's subsets ("pool@30#k…": synthetic and holdout rows pooled) are read from passes
    # over the pool's parts (each row's nearest rows of each part, each part's rows' farthest real one), never
    # searched each, and the pool is never stacked.
    assert not [p for p in passes if any("@" in role or role == "pool" for role in p[1:])]
    subsets = [p for p in passes if p[2].endswith(("nearest)", "farthest)"))]
    assert set(subsets) == {(space, "real", f"{part} (12 nearest)") for space in ("E", "E_idscore")
                            for part in ("synthetic", "holdout")} | {
        ("E", query, f"{part} (13 nearest)") for query in ("synthetic", "holdout") for part in ("synthetic", "holdout")
    } | {("E", part, "real (farthest)") for part in ("synthetic", "holdout")}
    assert set(passes) - set(subsets) == {
        ("E", q, r) for q, r in [("real", "synthetic"), ("real", "real"), ("synthetic", "real"),
                                 ("synthetic", "synthetic"), ("real", "holdout"), ("holdout", "real"),
                                 ("holdout", "holdout")]
    } | {("E_idscore", "real", r) for r in ("synthetic", "real", "holdout")}
    # §5: the baseline is the metric computed with the holdout in place of the synthetic table.
    fresh = run(real, holdout, IDS, types=TYPES)
    for metric in IDS:
        assert report[metric].baseline == pytest.approx(fresh[metric].risk, abs=1e-12), metric
        assert report.to_dict()["metrics"][metric]["baseline"] is not None


NUMBER = st.one_of(st.integers(0, 3), st.integers(-40, 70), st.floats(-5, 35, allow_nan=False))


@settings(max_examples=40, deadline=None)
@given(
    real_rows=st.lists(st.tuples(NUMBER, NUMBER, st.sampled_from("ab")), min_size=2, max_size=40),
    synthetic_rows=st.lists(st.tuples(NUMBER, NUMBER, st.sampled_from("ab")), min_size=1, max_size=40),
    chunk=st.sampled_from([1, 7, 2**22]),
)
def test_hit_counts_match_all_pairs(real_rows, synthetic_rows, chunk):
    # Mostly tiny values with a few wide ones: many candidates per row, so the grid path and the
    # chunking (1 and 7 pairs per chunk) are exercised, as are synthetic values far outside Y's range.
    real = pd.DataFrame(real_rows, columns=["x", "w", "c"]).astype({"x": float, "w": float})
    synthetic = pd.DataFrame(synthetic_rows, columns=["x", "w", "c"]).astype({"x": float, "w": float})
    h = np.array([(real[c].max() - real[c].min()) / 30 for c in ("x", "w")])
    hit = np.ones((len(real), len(synthetic)), dtype=bool)
    for j, col in enumerate(("x", "w")):
        hit &= np.abs(real[col].to_numpy()[:, None] - synthetic[col].to_numpy()[None, :]) <= h[j]
    for categorical, grid_after in ((["c"], 2), ([], 2), (["c"], 0), ([], 0)):
        expected = hit if categorical == [] else hit & (real["c"].to_numpy()[:, None] == synthetic["c"].to_numpy())
        # grid_after = 0 always plans the grid on a second column (it is taken when it prunes more).
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(hitr, "HITR_GRID_AFTER", grid_after)
            got = hit_counts(real, synthetic, categorical, ["x", "w"], h, pairs_per_chunk=chunk)
        np.testing.assert_array_equal(got, expected.sum(axis=1))


@pytest.mark.slow
def test_hitr_is_fast_and_exact_on_adult_sized_data():
    demo = pytest.importorskip("privcore.demo")
    data = demo.load_scenario("noisy_copy", n=10_000)
    types = dict(data.types)
    numerical = [c for c in types if types[c] == "numerical"]
    categorical = [c for c in types if types[c] != "numerical"]
    # As prepared by evaluate(): a missing category is the category "(missing)".
    real, synthetic = data.real.fillna({c: "(missing)" for c in categorical}), data.synthetic.fillna(
        {c: "(missing)" for c in categorical})
    h = np.array([(real[c].max() - real[c].min()) / 30 for c in numerical])
    started = time.perf_counter()
    counts = hit_counts(real, synthetic, categorical, numerical, h)
    seconds = time.perf_counter() - started
    assert seconds < 2.0, seconds
    # Numerical columns only (one big group, the worst case for grouping): still well under a second or two.
    started = time.perf_counter()
    numeric_counts = hit_counts(real, synthetic, [], numerical, h)
    assert time.perf_counter() - started < 2.0
    # Exactness against all pairs on a slice of 1,500 real rows.
    rows = slice(0, 1500)
    for cat_cols, got in ((categorical, counts), ([], numeric_counts)):
        hit = np.ones((1500, len(synthetic)), dtype=bool)
        for j, col in enumerate(numerical):
            hit &= np.abs(real[col].to_numpy()[rows, None] - synthetic[col].to_numpy()[None, :]) <= h[j]
        for col in cat_cols:
            hit &= real[col].to_numpy()[rows, None] == synthetic[col].to_numpy()[None, :]
        np.testing.assert_array_equal(got[rows], hit.sum(axis=1))
