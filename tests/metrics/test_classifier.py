"""Tests of the classifier metrics D-MLP and MIR (privcore.metrics.classifier; metrics.md §2.2.3, §2.2.11).

A trained network's scores cannot be worked out by hand, so the hand-worked examples replace the model
by a stub whose scores are a known function of the first feature, and check everything around it: the
features (E standardised on Y ∪ Z), folds/splits, AUC and recall aggregation, standard error and
per-record mapping. The real models are then checked for the properties of issue 3.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privcore import evaluate
from privcore.data.schema import Schema
from privcore.metrics import classifier

NUM = Schema({"a": "numerical"})


class Stub:
    """Stands in for a classifier: P(real) = score(first feature); predicts real when P(real) > 0.5."""

    max_iter = 300

    def __init__(self, score):
        self.score = score
        self.n_iter_ = 7
        self.seen = []

    def fit(self, features, labels):
        return self

    def predict_proba(self, features):
        self.seen.append(features.copy())
        p = np.asarray(self.score(features[:, 0]), dtype=float) * np.ones(len(features))
        return np.column_stack([1 - p, p])

    def predict(self, features):
        return (self.predict_proba(features)[:, 1] > 0.5).astype(np.int64)


def one_column(values):
    return pd.DataFrame({"a": [float(v) for v in values]})


# Real a = 10..16, synthetic a = 0..6 (7 rows each, the minimum). E is a/6 − 10/6, an affine map, so
# E standardised on Y ∪ Z equals a standardised on Y ∪ Z: mean (21 + 91)/14 = 8; deviations ±2..±8,
# squares 2·(4 + 9 + 16 + 25 + 36 + 49 + 64) = 406, variance 406/14 = 29 -> x0 = (a − 8)/sqrt(29):
# every real row has x0 > 0 and every synthetic row x0 < 0.
REAL = one_column(range(10, 17))
SYNTHETIC = one_column(range(0, 7))


def dmlp_with(monkeypatch, score, real=REAL, synthetic=SYNTHETIC):
    stubs = []

    def make(seed):
        stubs.append(Stub(score))
        return stubs[-1]

    monkeypatch.setattr(classifier, "make_mlp", make)
    return evaluate(real, synthetic, NUM, metrics="dmlp", strict=True)["dmlp"], stubs


def test_dmlp_separable_scores_one(monkeypatch):
    # Stub P(real) = 1[x0 > 0]: in every fold each real row scores 1 and each synthetic row 0 -> AUC 1.
    result, stubs = dmlp_with(monkeypatch, lambda x: (x > 0).astype(float))
    assert len(stubs) == 5
    assert result.risk == result.raw == 1.0
    assert result.details.scores.tolist() == [1.0] * 5
    assert result.details.score_label == "ROC AUC"
    assert result.details["baseline_auc"] == 0.5
    assert result.per_record.tolist() == [1.0] * 7  # out-of-fold P(real) of each real row
    assert result.details["probability_synthetic"].tolist() == [0.0] * 7
    # the test parts of the 5 folds cover every row once, standardised on Y ∪ Z: (a − 8)/sqrt(29)
    seen = np.sort(np.concatenate([s.seen[0][:, 0] for s in stubs]))
    expected = np.sort((np.r_[np.arange(0, 7), np.arange(10, 17)] - 8) / math.sqrt(29))
    # D-MLP trains in float32 (standardised in float64, then rounded once): float32's resolution here.
    np.testing.assert_allclose(seen, expected, rtol=1e-6, atol=1e-7)


def test_dmlp_auc_below_half_is_kept(monkeypatch):
    # Stub P(real) = 1[x0 < 0]: every synthetic row ranks above every real row -> AUC 0 in each fold.
    result, _ = dmlp_with(monkeypatch, lambda x: (x < 0).astype(float))
    assert result.risk == 0.0


def test_dmlp_constant_scores_give_the_baseline(monkeypatch):
    # Stub P(real) = 0.5 for every row: all pairs tie, AUC = 1/2 in each fold.
    result, _ = dmlp_with(monkeypatch, lambda x: 0.5)
    assert result.risk == 0.5
    assert result.per_record.tolist() == [0.5] * 7


def test_dmlp_per_record_follows_the_input_order(monkeypatch):
    # Stub P(real) = x0 mapped to (0, 1) monotonically; real rows given in a scrambled order must get
    # their own out-of-fold probability back, whatever canonical order the folds were drawn in.
    score = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    real = one_column([13, 10, 16, 11, 15, 12, 14])
    result, _ = dmlp_with(monkeypatch, score, real=real)
    expected = 1 / (1 + np.exp(-(real["a"].to_numpy() - 8) / math.sqrt(29)))
    np.testing.assert_allclose(result.per_record, expected, atol=1e-12)
    assert result.risk == 1.0  # monotone in a: real above synthetic in every fold


def mir_with(monkeypatch, make, real, synthetic, seed=0):
    monkeypatch.setattr(classifier, "make_lgbm", make)
    return evaluate(real, synthetic, NUM, metrics="mir", seed=seed, strict=True)["mir"]


def test_mir_all_real_test_rows_found(monkeypatch):
    # Real a = 0..7 (E = a/7 in [0, 1]), synthetic a = 20..27 (E ≥ 20/7). Stub: P(real) = .9 if
    # x0 ≤ 1 else .1, so every real test row is predicted real: recall 1 in each of the 5 repeats,
    # standard error 0, interval [1, 1]; per_record = .9 for rows that were ever tested, NaN otherwise.
    real, synthetic = one_column(range(8)), one_column(range(20, 28))
    result = mir_with(monkeypatch, lambda seed: Stub(lambda x: np.where(x <= 1, 0.9, 0.1)), real, synthetic)
    assert result.risk == result.raw == 1.0
    assert result.details.scores.tolist() == [1.0] * 5
    assert result.details.score_label == "recall on real rows"
    assert result.details["standard_error"] == 0.0
    assert result.interval == (1.0, 1.0)
    tested = result.details["times_in_test"] > 0
    assert np.all(result.per_record[tested] == 0.9)
    assert np.all(np.isnan(result.per_record[~tested]))
    # 16 rows, 30 % test -> 5 test rows a repeat, 2 or 3 of them real (stratified)
    assert 10 <= result.details["times_in_test"].sum() <= 15


def test_mir_recall_standard_error_by_hand(monkeypatch):
    # Repeats use seeds s, s+1, ..., s+4 (s = 7). Stub: repeat with an even offset predicts every row
    # real, odd offset none. Recalls [1, 0, 1, 0, 1]: mean .6; var (ddof 1) = (3·.4² + 2·.6²)/4 = .3;
    # standard error sqrt(.3/5) = sqrt(.06); interval .6 ± 1.96·sqrt(.06) = [.1199, 1.0801] -> [.1199, 1].
    real, synthetic = one_column(range(8)), one_column(range(20, 28))
    made = []

    def make(seed):
        made.append(seed)
        return Stub(lambda x: 1.0 if (seed - 7) % 2 == 0 else 0.0)

    result = mir_with(monkeypatch, make, real, synthetic, seed=7)
    assert made == [7, 8, 9, 10, 11]
    assert result.details["seeds"] == [7, 8, 9, 10, 11]
    assert result.details.scores.tolist() == [1.0, 0.0, 1.0, 0.0, 1.0]
    assert result.risk == pytest.approx(0.6)
    assert result.details["standard_error"] == pytest.approx(math.sqrt(0.06))
    assert result.interval == pytest.approx((0.6 - 1.96 * math.sqrt(0.06), 1.0))


def test_too_few_rows_is_not_applicable():
    report = evaluate(one_column(range(6)), one_column(range(10)), NUM, metrics="dmlp,mir", strict=True)
    for mid in ("dmlp", "mir"):
        assert not report[mid].applicable
        assert "at least 7 rows" in report[mid].reason


def test_only_constant_columns_is_not_applicable():
    # Found by tests/metrics/test_pathological.py: every column constant in the real table leaves E without a
    # feature, and StandardScaler / LightGBM raised "Found array with 0 feature(s)" (an internal error).
    constant = one_column([0.0] * 7)
    report = evaluate(constant, constant.copy(), NUM, metrics="dmlp,mir", holdout=constant.copy(), strict=True)
    for mid in ("dmlp", "mir"):
        assert not report[mid].applicable
        assert "every column is constant" in report[mid].reason

# ------------------------------------------------------------------------------------------------
# The real models: properties of issue 3
# ------------------------------------------------------------------------------------------------

TYPES = {"x": "numerical", "y": "numerical", "c": "categorical", "b": "binary"}


def mixed(rng, n, shift=0.0):
    return pd.DataFrame({
        "x": rng.normal(size=n) + shift,
        "y": rng.integers(0, 50, n).astype(float),
        "c": rng.choice(list("pqr"), n),
        "b": rng.choice(["s", "t"], n),
    })


def run(real, synthetic, seed=0, holdout=None, metrics=("dmlp", "mir")):
    return evaluate(real, synthetic, Schema(dict(TYPES)), metrics=list(metrics), seed=seed, holdout=holdout,
                    strict=True)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.5, 3.0]))
def test_risk_in_unit_interval_same_seed_and_real_order_invariance(seed, shift):
    rng = np.random.default_rng(seed)
    real, synthetic = mixed(rng, 40), mixed(rng, 30, shift)
    first = run(real, synthetic, seed=seed % 100)
    second = run(real, synthetic, seed=seed % 100)
    order = rng.permutation(len(real))
    shuffled = run(real.iloc[order].reset_index(drop=True), synthetic, seed=seed % 100)
    for mid in ("dmlp", "mir"):
        assert 0.0 <= first[mid].risk <= 1.0
        assert first[mid].risk == second[mid].risk
        np.testing.assert_array_equal(first[mid].per_record, second[mid].per_record)
        # folds and splits are drawn on a content-defined order, so the result is exactly the same
        assert shuffled[mid].risk == first[mid].risk, mid
        np.testing.assert_array_equal(shuffled[mid].per_record, first[mid].per_record[order])


def test_separable_tables_score_high_and_the_baseline_is_computed():
    rng = np.random.default_rng(0)
    real, holdout = mixed(rng, 100), mixed(rng, 100)
    synthetic = mixed(rng, 100, shift=25.0)
    report = run(real, synthetic, holdout=holdout)
    assert report["dmlp"].risk > 0.9
    assert report["mir"].risk > 0.9
    for mid in ("dmlp", "mir"):
        assert report[mid].baseline is not None and 0.0 <= report[mid].baseline <= 1.0
        assert report[mid].to_dict()["baseline"] == report[mid].baseline
    assert report["mir"].interval[0] <= report["mir"].risk <= report["mir"].interval[1]


def test_mir_exact_copy_scores_low_as_its_caveat_says():
    # Each real record's identical twin is in the training part with the opposite label.
    rng = np.random.default_rng(1)
    real = mixed(rng, 150)
    assert run(real, real.copy(), metrics=["mir"])["mir"].risk < 0.6


def test_lightgbm_fits_on_one_thread_each():
    # The repeats run side by side instead (issue 12); with deterministic=True the thread count changes no
    # model, so the report must not depend on the machine either.
    model = classifier.make_lgbm(3)
    params = model.get_params()
    assert params["n_jobs"] == 1 and params["deterministic"] is True
    assert params["random_state"] == 3 and params["verbose"] == -1


def test_mir_is_the_same_when_its_repeats_run_side_by_side():
    rng = np.random.default_rng(4)
    real, synthetic = mixed(rng, 120), mixed(rng, 120)
    one = evaluate(real, synthetic, metrics="mir", seed=2, workers=1, strict=True)["mir"]
    five = evaluate(real, synthetic, metrics="mir", seed=2, workers=5, strict=True)["mir"]
    assert one.details.scores.tolist() == five.details.scores.tolist()
    np.testing.assert_array_equal(one.per_record, five.per_record)


def test_omp_wait_policy_is_set_before_lightgbm_loads():
    code = (
        "import os, sys; import privcore.metrics; privcore.metrics.load_all(); "
        "print(os.environ.get('OMP_WAIT_POLICY'), 'lightgbm' in sys.modules)"
    )
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["PASSIVE", "False"]
