"""Tests of the Φk metrics NNDR, DCR and HidR (privcore.metrics.projected; metrics.md §0, §2).

Hand-worked examples use tables whose FAMD is easy by hand:

* one numerical column: Φk is the standardised column (k = r = 1, up to sign), so a distance is
  |Δa| / std(a) with the population std of the real column, and a *ratio* of distances is |Δa|/|Δa'|;
* one numerical and one binary column with k = r = 2 = everything FAMD codes: Φk is a rotation of the
  coded space, so d² = (Δa / std)² + [b differs]·(1/p(b=u) + 1/p(b=v)), p the real proportions.

Then an agreement test against a brute-force implementation written from metrics.md (its own FAMD with
numpy, full distance matrices), hypothesis property tests, the shared-pass check and the baseline.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from privcore import evaluate
from privcore.data.schema import Schema

PROJECTED = ["nndr", "dcr", "hidr"]


def run(real, synthetic, metrics, types=None, holdout=None, pairing=None, seed=0):
    types = types or {c: "numerical" for c in real.columns}
    schema = Schema(dict(types), pairing=pairing)
    return evaluate(real, synthetic, schema, metrics=metrics, holdout=holdout, seed=seed, strict=True)


def one_column(values):
    return pd.DataFrame({"a": [float(v) for v in values]})


# ------------------------------------------------------------------------------------------------
# Hand-worked examples
# ------------------------------------------------------------------------------------------------


def test_nndr_by_hand_with_duplicates_and_ties():
    # One numerical column: ratios are ratios of |Δa|. Y = [0, 0, 2, 3] (0 duplicated).
    # z = 0:   d1 = 0 (y0), d2 = 0 (y1, the duplicate) -> d1 = 0 rule first: r = 0.
    # z = 1:   |1−0| = 1, |1−0| = 1, |1−2| = 1 -> d1 = d2 = 1 (a tie): r = 1.
    # z = 2.4: |2.4−2| = .4, |2.4−3| = .6 -> r = .4/.6 = 2/3.
    # z = 4:   |4−3| = 1, |4−2| = 2 -> r = 1/2.
    # raw = (0 + 1 + 2/3 + 1/2)/4 = 13/24; risk = mean(1 − r) = 11/24; per_record = [1, 0, 1/3, 1/2].
    report = run(one_column([0, 0, 2, 3]), one_column([0, 1, 2.4, 4]), "nndr")
    result = report["nndr"]
    assert result.raw == pytest.approx(13 / 24, rel=1e-12)
    assert result.risk == pytest.approx(11 / 24, rel=1e-12)
    np.testing.assert_allclose(result.per_record, [1, 0, 1 / 3, 1 / 2], rtol=1e-12, atol=1e-15)
    assert result.per_record_unit == "synthetic"
    assert result.details["zero_distance_rows"] == 1
    assert result.details["k"] == 1


def test_nndr_mixed_columns_by_hand():
    # Y: a = [0, 0, 2, 2] (mean 1, std 1), b = [u, v, u, v] (p = 1/2 each): k = r = 1 + 2 − 1 = 2, so
    # d² = Δa² + [b differs]·(2 + 2).
    # z0 = (0, u), a copy of y0: d1 = 0 -> r = 0.
    # z1 = (1, u): to y0 (0,u) 1; to y2 (2,u) 1; to y1 (0,v) sqrt(1 + 4) -> d1 = d2 = 1: r = 1.
    # z2 = (3, v): to y3 (2,v) 1; to y1 (0,v) 3; to y2 (2,u) sqrt(1 + 4) = sqrt(5) -> r = 1/sqrt(5).
    # risk = ((1 − 0) + (1 − 1) + (1 − 1/sqrt(5)))/3.
    real = pd.DataFrame({"a": [0.0, 0.0, 2.0, 2.0], "b": ["u", "v", "u", "v"]})
    synthetic = pd.DataFrame({"a": [0.0, 1.0, 3.0], "b": ["u", "u", "v"]})
    report = run(real, synthetic, "nndr", types={"a": "numerical", "b": "binary"})
    assert report["nndr"].details["k"] == 2
    assert report["nndr"].risk == pytest.approx((2 - 1 / math.sqrt(5)) / 3, rel=1e-12)
    np.testing.assert_allclose(report["nndr"].details["d1"], [0, 1, 1], atol=1e-12)
    np.testing.assert_allclose(report["nndr"].details["d2"], [2, 1, math.sqrt(5)], atol=1e-12)


def test_dcr_by_hand_with_duplicates():
    # Y = [0, 0, 2, 2]: mean 1, population std 1, so Φk distances are |Δa|. Z = [0, 3, 1.5].
    # d(y) to the nearest synthetic row: 0 -> 0, 0 -> 0 (duplicate), 2 -> |2 − 1.5| = .5, 2 -> .5.
    # raw = (0 + 0 + .5 + .5)/4 = .25; risk = 1/(1 + .25) = .8; per_record = 1/(1 + d) = [1, 1, 2/3, 2/3].
    result = run(one_column([0, 0, 2, 2]), one_column([0, 3, 1.5]), "dcr")["dcr"]
    assert result.raw == pytest.approx(0.25, abs=1e-12)
    assert result.risk == pytest.approx(0.8, abs=1e-12)
    np.testing.assert_allclose(result.per_record, [1, 1, 2 / 3, 2 / 3], atol=1e-12)
    assert result.details["nearest_synthetic"].tolist() == [0, 0, 2, 2]
    assert result.per_record_unit == "real"


def test_dcr_mixed_columns_by_hand():
    # Same coding as test_nndr_mixed_columns_by_hand: d² = Δa² + 4·[b differs].
    # Z = (0,u) copy of y0, (2,u) copy of y2, (1,v).
    # y0 (0,u): 0. y1 (0,v): to (1,v) 1, to (0,u) 2 -> 1. y2 (2,u): 0. y3 (2,v): to (1,v) 1 -> 1.
    # raw = (0 + 1 + 0 + 1)/4 = .5 -> risk = 1/1.5 = 2/3; per_record = [1, 1/2, 1, 1/2].
    real = pd.DataFrame({"a": [0.0, 0.0, 2.0, 2.0], "b": ["u", "v", "u", "v"]})
    synthetic = pd.DataFrame({"a": [0.0, 2.0, 1.0], "b": ["u", "u", "v"]})
    result = run(real, synthetic, "dcr", types={"a": "numerical", "b": "binary"})["dcr"]
    assert result.raw == pytest.approx(0.5, abs=1e-12)
    assert result.risk == pytest.approx(2 / 3, abs=1e-12)
    np.testing.assert_allclose(result.per_record, [1, 0.5, 1, 0.5], atol=1e-12)
    assert result.details["distance"][[0, 2]].tolist() == [0.0, 0.0]  # exact copies land exactly


def test_hidr_by_hand_with_row_pairing_and_a_tie():
    # Y = [0, 1, 2, 6], Z = [0, 1.8, 2.2, 0.5], synthetic row i generated from real row i.
    # y0 = 0: twin 0 at 0 = nearest -> hit.
    # y1 = 1: twin 1.8 at .8, but 0.5 is at .5 -> miss.
    # y2 = 2: twin 2.2 at .2, and 1.8 also at .2: a tie (equal up to rounding) -> hit.
    # y3 = 6: twin 0.5 at 5.5, but 2.2 is at 3.8 -> miss.
    # risk = 2 hits / |Z| = 4 -> .5; per_record = [1, 0, 1, 0].
    result = run(one_column([0, 1, 2, 6]), one_column([0, 1.8, 2.2, 0.5]), "hidr", pairing="row")["hidr"]
    assert result.risk == 0.5
    assert result.raw == 0.5
    assert result.per_record.tolist() == [1.0, 0.0, 1.0, 0.0]
    assert result.details["hits"] == 2


def test_hidr_by_hand_with_id_pairing_and_unpaired_rows():
    # Y = [0, 1, 2, 6] with ids 10..13; Z = [1.1, 5, 0] with ids [11, 99, 10] (99 matches nobody).
    # y0 = 0 (id 10): twin 0 at 0 = nearest -> hit.  y1 = 1 (id 11): twin 1.1 at .1 = nearest -> hit.
    # y2, y3: no twin -> 0.  risk = 2 hits / |Z| = 3 -> 2/3, with a warning about the unpaired row.
    real = pd.DataFrame({"a": [0.0, 1.0, 2.0, 6.0], "id": [10, 11, 12, 13]})
    synthetic = pd.DataFrame({"a": [1.1, 5.0, 0.0], "id": [11, 99, 10]})
    result = run(real, synthetic, "hidr", types={"a": "numerical"}, pairing="id")["hidr"]
    assert result.risk == pytest.approx(2 / 3)
    assert result.per_record.tolist() == [1.0, 1.0, 0.0, 0.0]
    assert result.details["has_twin"].tolist() == [True, True, False, False]
    assert any("no real twin" in w for w in result.warnings)


def test_hidr_twin_tied_with_an_identical_other_synthetic_row_is_a_hit():
    # Y = [0, 4]; Z = [4, 4] paired by row: y0's twin is 4 (at 4, nearest is 4 at 4: the same) -> hit;
    # y1's twin is the second 4 at 0; the first 4 is also at 0 (lower index, the engine's nearest) -> hit.
    result = run(one_column([0, 4]), one_column([4, 4]), "hidr", pairing="row")["hidr"]
    assert result.risk == 1.0


def test_not_applicable_reasons():
    report = run(one_column([0, 1, 2]), one_column([0, 1]), "hidr")
    assert not report["hidr"].applicable
    assert "pairing" in report["hidr"].reason
    constant = pd.DataFrame({"a": [1.0, 1.0, 1.0], "b": ["x", "x", "x"]})
    report = run(constant, constant, "nndr,dcr", types={"a": "numerical", "b": "categorical"})
    for mid in ("nndr", "dcr"):
        assert not report[mid].applicable
        assert "constant" in report[mid].reason


# ------------------------------------------------------------------------------------------------
# Agreement with a brute-force implementation straight from metrics.md
# ------------------------------------------------------------------------------------------------


def brute_force_phi(real, others, num, cat, k):
    """FAMD written from metrics.md §0 with numpy: code with Y's statistics, exact SVD, first k axes."""
    mean = real[num].mean().to_numpy()
    std = real[num].std(ddof=0).to_numpy()

    def code(df):
        parts = [(df[num].to_numpy(float) - mean) / std]
        for col in cat:
            for level in sorted(real[col].unique()):
                p = float((real[col] == level).mean())
                parts.append((((df[col] == level).to_numpy(float) - p) / math.sqrt(p))[:, None])
        return np.hstack(parts)

    coded = code(real)
    centre = coded.mean(axis=0)
    _, singular, vt = np.linalg.svd((coded - centre) / math.sqrt(len(real)))
    # The first k axes are only defined up to rotation when singular value k ties with k + 1.
    singular = np.r_[singular, 0.0]
    assume(k >= len(singular) - 1 or singular[k - 1] - singular[k] > 1e-6 * singular[0])
    return [(code(df) - centre) @ vt[:k].T for df in (real, *others)]


def brute_force(real, synthetic, num, cat, pairs):
    # metrics.md §0: columns constant in Y leave the distance spaces.
    num = [c for c in num if real[c].nunique() > 1]
    cat = [c for c in cat if real[c].nunique() > 1]
    k = min(5, len(num) + sum(real[c].nunique() for c in cat) - len(cat), len(real) - 1)
    y, z = brute_force_phi(real, [synthetic], num, cat, k)
    d = cdist(y, z)  # |Y| × |Z|
    tol = 1e-12 * d.max()
    # NNDR: per synthetic row, sorted distances to real rows.
    to_real = np.sort(d.T, axis=1)
    r = np.where(to_real[:, 0] <= tol, 0.0, to_real[:, 0] / np.where(to_real[:, 1] > 0, to_real[:, 1], 1.0))
    nndr = float(np.mean(1 - r))
    dcr = 1.0 / (1.0 + float(d.min(axis=1).mean()))
    # HidR counts real records (metrics.md: "number of real y whose own twin is among its nearest"), so
    # a real row with several twins is one hit when any of them is nearest.
    hits = sum(any(d[j, i] <= d[j].min() + tol for i in np.flatnonzero(pairs == j)) for j in range(len(y)))
    return {"nndr": nndr, "dcr": dcr, "hidr": hits / len(z)}


@st.composite
def table_pairs(draw, distinct=False):
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(4, 12))
    m = n if distinct else draw(st.integers(2, 12))
    rng = np.random.default_rng(seed)
    grid = draw(st.sampled_from([None, 3]))  # None: continuous; 3: few values, so ties and duplicates

    def numbers(size):
        return rng.normal(size=size) if grid is None else rng.integers(0, grid, size).astype(float)

    real = pd.DataFrame({"x": numbers(n), "y": numbers(n) * 10, "c": rng.choice(list("pqr"), n),
                         "b": rng.choice(["s", "t"], n)})
    real.loc[0, ["x", "c", "b"]] = [0.0, "p", "s"]
    real.loc[1, ["x", "c", "b"]] = [1.0, "q", "t"]  # no column constant
    if distinct:
        real["y"] = np.arange(n, dtype=float) * 1.5  # no duplicate rows
    synthetic = pd.DataFrame({"x": numbers(m), "y": numbers(m) * 10, "c": rng.choice(list("pqr"), m),
                              "b": rng.choice(["s", "t"], m)})
    copies = rng.integers(0, n, size=m // 2)
    synthetic.iloc[: m // 2] = real.iloc[copies].to_numpy()
    synthetic = synthetic.astype({"x": float, "y": float})
    return real, synthetic, seed


TYPES = {"x": "numerical", "y": "numerical", "c": "categorical", "b": "binary"}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table_pairs())
def test_agreement_with_brute_force(tables):
    real, synthetic, seed = tables
    pairs = np.random.default_rng(seed).integers(0, len(real), size=len(synthetic))
    real_ids = real.assign(id=np.arange(len(real)))
    synthetic_ids = synthetic.assign(id=pairs)
    report = run(real_ids, synthetic_ids, PROJECTED, types=TYPES, pairing="id")
    expected = brute_force(real, synthetic, ["x", "y"], ["c", "b"], pairs)
    for mid in PROJECTED:
        assert report[mid].risk == pytest.approx(expected[mid], abs=1e-9), mid


# ------------------------------------------------------------------------------------------------
# Properties (issue 3)
# ------------------------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table_pairs(distinct=True), st.integers(0, 2**32 - 1))
def test_synthetic_equal_to_real_scores_one(tables, seed):
    real, _, _ = tables
    # same order, pairing by row
    report = run(real, real.copy(), PROJECTED, types=TYPES, pairing="row")
    for mid in PROJECTED:
        assert report[mid].risk == 1.0, mid
    # shuffled, pairing by an id column
    order = np.random.default_rng(seed).permutation(len(real))
    real_ids = real.assign(id=np.arange(len(real)))
    shuffled = real_ids.iloc[order].reset_index(drop=True)
    report = run(real_ids, shuffled, PROJECTED, types=TYPES, pairing="id")
    for mid in PROJECTED:
        assert report[mid].risk == 1.0, mid


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table_pairs(), st.integers(0, 2**32 - 1))
def test_risk_in_unit_interval_and_real_order_invariance(tables, seed):
    real, synthetic, _ = tables
    report = run(real, synthetic, ["nndr", "dcr"], types=TYPES)
    shuffled_real = real.sample(frac=1.0, random_state=seed % 2**31).reset_index(drop=True)
    again = run(shuffled_real, synthetic, ["nndr", "dcr"], types=TYPES)
    for mid in ("nndr", "dcr"):
        assert 0.0 <= report[mid].risk <= 1.0
        # FAMD of a row-permuted table differs only by rounding
        assert again[mid].risk == pytest.approx(report[mid].risk, abs=1e-9), mid
    paired = run(real.iloc[: min(len(real), len(synthetic))], synthetic.iloc[: len(real)], "hidr",
                 types=TYPES, pairing="row")
    assert 0.0 <= paired["hidr"].risk <= 1.0


def test_hidr_depends_on_the_real_row_order():
    # Y = [0, 10], Z = [0, 10] by row: 2 hits; reversing Y swaps the twins: y = 10's twin is 0 -> 0 hits.
    assert run(one_column([0, 10]), one_column([0, 10]), "hidr", pairing="row")["hidr"].risk == 1.0
    assert run(one_column([10, 0]), one_column([0, 10]), "hidr", pairing="row")["hidr"].risk == 0.0


def test_same_seed_same_result():
    rng = np.random.default_rng(5)
    real = pd.DataFrame({"x": rng.normal(size=20), "c": rng.choice(list("pq"), 20)})
    synthetic = pd.DataFrame({"x": rng.normal(size=15), "c": rng.choice(list("pq"), 15)})
    types = {"x": "numerical", "c": "binary"}
    first = run(real, synthetic, ["nndr", "dcr"], types=types, seed=3)
    second = run(real, synthetic, ["nndr", "dcr"], types=types, seed=3)
    for mid in ("nndr", "dcr"):
        assert first[mid].risk == second[mid].risk
        np.testing.assert_array_equal(first[mid].per_record, second[mid].per_record)


# ------------------------------------------------------------------------------------------------
# Shared passes and the §5 baseline
# ------------------------------------------------------------------------------------------------


def test_neighbour_passes_are_shared():
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"x": rng.normal(size=30), "c": rng.choice(list("pqr"), 30)})
    synthetic = pd.DataFrame({"x": rng.normal(size=30), "c": rng.choice(list("pqr"), 30)})
    holdout = pd.DataFrame({"x": rng.normal(size=30), "c": rng.choice(list("pqr"), 30)})
    schema = Schema({"x": "numerical", "c": "categorical"}, pairing="row")
    report = evaluate(real, synthetic, schema, metrics=PROJECTED, holdout=holdout, strict=True)
    passes = report.shared.passes
    assert len(passes) == len(set(passes))
    # DCR's size-matched comparison reads its pooled subsets ("pool@30#k…") from each real row's nearest rows of
    # the synthetic table and of the holdout.
    assert set(passes) == {
        ("phi", "synthetic", "real"), ("phi", "real", "synthetic"),
        ("phi", "holdout", "real"), ("phi", "real", "holdout"), ("phi", "real", "synthetic (12 nearest)"),
        ("phi", "real", "holdout (12 nearest)"),
    }


def test_baseline_is_the_metric_with_the_holdout_as_synthetic():
    rng = np.random.default_rng(1)
    real = pd.DataFrame({"x": rng.normal(size=25), "c": rng.choice(list("pqr"), 25)})
    synthetic = real.iloc[:20].copy()
    holdout = pd.DataFrame({"x": rng.normal(size=25), "c": rng.choice(list("pqr"), 25)})
    types = {"x": "numerical", "c": "categorical"}
    with_holdout = run(real, synthetic, ["nndr", "dcr", "hidr"], types=types, holdout=holdout)
    direct = run(real, holdout, ["nndr", "dcr"], types=types)
    for mid in ("nndr", "dcr"):
        assert with_holdout[mid].baseline == pytest.approx(direct[mid].risk, abs=1e-12)
        assert with_holdout[mid].to_dict()["baseline"] is not None
    assert with_holdout["hidr"].baseline is None  # no pairing for the holdout
