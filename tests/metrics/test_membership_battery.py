"""The membership attack battery and the strongest attack (issue 14; metrics.md §3, "Membership attack battery").

Hand-computed scores on tiny tables for every new attack (a user reference table keeps members, non-members
and R fixed, so no seeded split is involved), Gen-LRA against its formula written out with scipy, the
classifier's cross-fitting redone by hand, the honest split, Holm and the ε bound by hand, hypothesis
properties, robustness on awkward tables, reuse of scores within one evaluation, and the issue's demo
assertions (exact copy caught with ε ≥ 2, fresh sample at chance with ε ≤ 0.3 over several seeds).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import norm
from sklearn.metrics import roc_auc_score

from privcore import evaluate
from privcore.base.stats import clopper_pearson_lower, clopper_pearson_upper, epsilon_lower_bound, holm_adjust
from privcore.data.schema import Schema
from privcore.demo import load_scenario
from privcore.metrics import registry
from privcore.metrics.details import BatteryAttack, MembershipBattery, MembershipScores
from privcore.metrics.membership import _base
from privcore.metrics.membership.battery import CLASSIFIER_SETTINGS, dpi_counts, synthetic_probability
from privcore.metrics.membership.best import best_threshold, honest_splits, tpr_at_fprs
from privcore.metrics.registry import all_metrics

NEW = ["mia_gen_lra", "mia_classifier", "mia_density_count", "mia_dpi"]
BATTERY = registry.battery_ids()
ALL = [*BATTERY, "mia_best"]


def col(values):
    return pd.DataFrame({"x": [float(v) for v in values]})


# E coordinates are x / 10 (the real values span 0..10). With a user reference table the members are all
# of Y and the non-members all of H (equal sizes), so every score below is fixed by hand.
REAL, SYN, HOLD, REF = col([0, 4, 8, 10]), col([0.5, 4, 9, 9.5]), col([2, 6, 7, 10]), col([1, 3, 5, 9.2])


def run(metrics, params=None, real=REAL, synthetic=SYN, holdout=HOLD, reference=REF, seed=0, types=None):
    types = types or {c: "numerical" for c in real.columns}
    ids = [metrics] if isinstance(metrics, str) else list(metrics)
    merged = {mid: {"n_boot": 50, **({"reference": reference} if reference is not None else {})} for mid in ids}
    for mid, p in (params or {}).items():
        merged[mid].update(p)
    return evaluate(real, synthetic, Schema(dict(types)), metrics=ids, holdout=holdout, seed=seed, params=merged,
                    strict=True)


# ------------------------------------------------------------------------------------------------
# Hand-worked scores
# ------------------------------------------------------------------------------------------------


def test_density_count_by_hand():
    # d(R, Z) in E: 1→.5: .05, 3→4: .1, 5→4: .1, 9.2→9: .02; median r = (.05 + .1)/2 = .075 (0.75 in x).
    # Synthetic rows within 0.75 of x: members 0: {0.5}, 4: {4}, 8: {}, 10: {9.5} → [1, 1, 0, 1];
    # non-members 2: {}, 6: {}, 7: {}, 10: {9.5} → [0, 0, 0, 1].
    # AUC over 16 pairs: three 1s beat three 0s (9) and tie the 1 (1.5); the 0 ties three 0s (1.5) → 12/16.
    res = run("mia_density_count")["mia_density_count"]
    np.testing.assert_array_equal(res.per_record, [1, 1, 0, 1])
    np.testing.assert_array_equal(res.details.nonmember_scores, [0, 0, 0, 1])
    assert res.params["radius"] == pytest.approx(0.075)
    assert res.raw == pytest.approx(12 / 16)
    assert isinstance(res.details, MembershipScores)
    # A larger radius (the largest R→Z distance, 0.1 = 1.0 in x) also takes in 9 for member 8 (at 1.0, on the
    # boundary: within) and for members and non-members at 10 (9 and 9.5).
    wide = run("mia_density_count", {"mia_density_count": {"radius_quantile": 1.0}})["mia_density_count"]
    np.testing.assert_array_equal(wide.per_record, [1, 1, 1, 2])
    np.testing.assert_array_equal(wide.details.nonmember_scores, [0, 0, 0, 2])


def test_dpi_by_hand():
    # Z ∪ R in x: Z = {0.5, 4, 9, 9.5}, R = {1, 3, 5, 9.2}; k = 2.
    #   member 0: 0.5 (Z), 1 (R)          → (1+1)/(1+1) = 1
    #   member 4: 4 (Z), then 3 and 5 (R) tie at 1 for the last place: ½ each → k_R = 1 → (1+1)/(1+1) = 1
    #   member 8: 9 (Z) at 1, 9.2 (R) at 1.2 → 1
    #   member 10: 9.5 (Z), 9.2 (R) → 1 ... every member has one of each, except:
    #   non-member 6: 5 (R) at 1, then 4 (Z) and 7? no: 4 at 2, 9 at 3 → 5 (R), 4 (Z) → 1
    #   non-member 2: 1 and 3 (R) at 1 → k_Z = 0, k_R = 2 → 1/3
    #   non-member 7: 5 (R) at 2, 9 (Z) at 2: both → 1
    # With k = 1: member 0 → 0.5 (Z) → 2; member 4 → 4 (Z) → 2; member 8 → 9 (Z) → 2; member 10 → 9.5 → 2;
    #   non-member 2: 1 and 3 (R) tie at 1 → k_R = 1 → 1/2; 6: 5 (R) → 1/2; 7: 5 (R) and 9 (Z) tie at 2 →
    #   ½ each → 1.5/1.5 = 1; 10: 9.5 (Z) → 2.
    res = run("mia_dpi", {"mia_dpi": {"k": 1}})["mia_dpi"]
    np.testing.assert_allclose(res.per_record, [2, 2, 2, 2])
    np.testing.assert_allclose(res.details.nonmember_scores, [0.5, 0.5, 1.0, 2.0])
    assert res.raw == pytest.approx((4 * 3 + 4 * 0.5) / 16)  # each member beats three, ties non-member 10
    res2 = run("mia_dpi", {"mia_dpi": {"k": 2}})["mia_dpi"]
    np.testing.assert_allclose(res2.details.nonmember_scores[:3], [1 / 3, 1.0, 1.0])
    np.testing.assert_allclose(res2.per_record[:2], [1.0, 1.0])


def test_dpi_ties_are_shared_whichever_table_comes_first():
    z, r = np.array([[1.0], [3.0]]), np.array([[1.0], [2.0]])
    kz, kr = dpi_counts(np.array([[0.0], [2.0]]), z, r, 1, 0.0)
    # Query 0: Z's 1 and R's 1 tie at distance 1 → ½ each. Query 2: R's 2 at 0 → all R.
    assert kz.tolist() == [0.5, 0.0] and kr.tolist() == [0.5, 1.0]
    kr2, kz2 = dpi_counts(np.array([[0.0], [2.0]]), r, z, 1, 0.0)
    assert kz2.tolist() == kz.tolist() and kr2.tolist() == kr.tolist()


def test_gen_lra_agrees_with_its_formula_written_out():
    # One numerical column: Gen-LRA's space is E with numbers standardised, so distances are |Δx|/σ_Y.
    rng = np.random.default_rng(3)
    real, holdout = col(rng.normal(0, 1, 40).round(3)), col(rng.normal(0, 1, 40).round(3))
    synthetic = pd.concat([real.iloc[:20], col(rng.normal(0, 1, 20).round(3))], ignore_index=True)
    reference = col(rng.normal(0, 1, 30).round(3))
    res = run("mia_gen_lra", {"mia_gen_lra": {"k": 3}}, real, synthetic, holdout, reference)["mia_gen_lra"]
    h = res.details.bandwidths["reference"]
    sigma = real["x"].std(ddof=0)
    z, r = synthetic["x"].to_numpy() / sigma, reference["x"].to_numpy() / sigma

    def p_r(v):
        return norm.pdf(v, loc=r[:, None], scale=h).mean(axis=0)

    def score(x):
        x = x / sigma
        near = z[np.argsort(np.abs(z - x), kind="stable")[:3]]
        n = len(r)
        return float(np.sum(np.log((n * p_r(near) + norm.pdf(near, loc=x, scale=h)) / (n + 1)) - np.log(p_r(near))))

    expected_members = [score(x) for x in real["x"]]
    expected_non = [score(x) for x in holdout["x"]]
    np.testing.assert_allclose(res.per_record, expected_members, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res.details.nonmember_scores, expected_non, rtol=1e-9, atol=1e-12)
    # The copied half of the members has its own copy among its nearest synthetic rows.
    assert np.mean(res.per_record[:20]) > np.mean(res.details.nonmember_scores)


def test_gen_lra_measures_numbers_in_standard_deviations_and_categories_one_hot():
    # A number and a category: Gen-LRA's space is x / σ_Y (σ_Y the population standard deviation on the real
    # table) beside one 0/1 coordinate per category, so a changed category costs √2 whatever the number's range.
    rng = np.random.default_rng(5)

    def table(n):
        return pd.DataFrame({"x": rng.normal(0, 10, n).round(2), "c": rng.choice(list("abc"), n)})

    real, holdout, reference = table(30), table(30), table(40)
    synthetic = pd.concat([real.iloc[:15], table(15)], ignore_index=True)
    types = {"x": "numerical", "c": "categorical"}
    res = run("mia_gen_lra", {"mia_gen_lra": {"k": 2}}, real, synthetic, holdout, reference, types=types)["mia_gen_lra"]
    h = res.details.bandwidths["reference"]
    sigma = real["x"].std(ddof=0)

    def encode(df):
        return np.c_[df["x"].to_numpy() / sigma, (df["c"].to_numpy()[:, None] == np.array(list("abc"))).astype(float)]

    z, r = encode(synthetic), encode(reference)

    def log_kernel(a, b):  # log N(a; b, h²I) for every pair, shape (len(a), len(b))
        d2 = ((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2)
        return -d2 / (2 * h * h) - a.shape[1] / 2 * np.log(2 * np.pi * h * h)

    def score(x):
        d = np.sqrt(((z - x) ** 2).sum(axis=1))
        near = z[np.argsort(d, kind="stable")[:2]]
        before = np.logaddexp.reduce(log_kernel(near, r), axis=1) - np.log(len(r))
        with_x = np.logaddexp.reduce(np.c_[log_kernel(near, r), log_kernel(near, x[None, :])], axis=1)
        return float(np.sum(with_x - np.log(len(r) + 1) - before))

    np.testing.assert_allclose(res.per_record, [score(x) for x in encode(real)], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(res.details.nonmember_scores, [score(x) for x in encode(holdout)], rtol=1e-9,
                               atol=1e-9)
    assert res.params["space"] == "E, numbers standardised"


def test_neighbourhood_attacks_catch_an_exact_copy_and_not_a_fresh_sample():
    # Gen-LRA in five whitened FAMD axes and LightGBM with default leaves (≥ 20 rows) both stayed near AUC 0.6
    # on the exact copy; a density over the whole record and trees that isolate single rows find the copies.
    ids = ["mia_gen_lra", "mia_classifier"]
    params = {mid: {"n_boot": 0} for mid in ids}
    copy = load_scenario("exact_copy", n=1000)
    got = evaluate(copy.real, copy.synthetic, Schema(dict(copy.types)), metrics=ids, holdout=copy.holdout,
                   params=params, strict=True)
    assert got["mia_gen_lra"].raw >= 0.75 and got["mia_classifier"].raw >= 0.8
    fresh = load_scenario("fresh_sample", n=1000)
    got = evaluate(fresh.real, fresh.synthetic, Schema(dict(fresh.types)), metrics=ids, holdout=fresh.holdout,
                   params=params, strict=True)
    for mid in ids:
        assert 0.45 <= got[mid].raw <= 0.55, (mid, got[mid].raw)


def test_classifier_is_one_seeded_lightgbm_random_forest():
    import lightgbm

    rng = np.random.default_rng(4)
    features = rng.normal(size=(120, 3))
    labels = (features[:, 0] + rng.normal(0, 0.5, 120) > 0).astype(int)
    queries = rng.normal(size=(10, 3))
    got = synthetic_probability(features, labels, queries, seed=7)
    model = lightgbm.LGBMClassifier(verbose=-1, random_state=7, n_jobs=1, deterministic=True, force_row_wise=True,
                                    **CLASSIFIER_SETTINGS)
    np.testing.assert_allclose(got, model.fit(features, labels).predict_proba(queries)[:, 1], rtol=1e-10)
    np.testing.assert_array_equal(got, synthetic_probability(features, labels, queries, seed=7))
    # Scores follow the learned direction: probability of label 1 rises with the first feature.
    line = np.c_[np.linspace(-2, 2, 5), np.zeros((5, 2))]
    probability = synthetic_probability(features, labels, line, seed=7)
    assert probability[-1] > probability[0]


def test_classifier_trees_isolate_a_single_copied_row():
    # Synthetic rows and reference rows interleave on a line (…, 0.0 Z, 0.5 R, 1.0 Z, …): a query exactly on a
    # synthetic row must look synthetic and one on a reference row must not. Trees whose leaves need 20 rows (the
    # LightGBM default) cannot separate neighbours 0.5 apart and give every query about the same probability.
    z = np.arange(0.0, 100.0)[:, None]
    r = z + 0.5
    features, labels = np.vstack([z, r]), np.r_[np.ones(100, dtype=int), np.zeros(100, dtype=int)]
    on_z, on_r = synthetic_probability(features, labels, z[10:90], 0), synthetic_probability(features, labels, r[10:90], 0)
    assert roc_auc_score(np.r_[np.ones(80), np.zeros(80)], np.r_[on_z, on_r]) > 0.95
    assert on_z.mean() > 0.6 and on_r.mean() < 0.4


def test_classifier_scores_real_rows_and_nonmembers_in_zero_one():
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"a": rng.normal(size=200), "b": rng.choice(list("xyz"), 200)})
    holdout = pd.DataFrame({"a": rng.normal(size=200), "b": rng.choice(list("xyz"), 200)})
    res = run("mia_classifier", real=real, synthetic=real.copy(), holdout=holdout, reference=None,
              types={"a": "numerical", "b": "categorical"})["mia_classifier"]
    assert res.per_record.shape == (200,) and np.all((res.per_record >= 0) & (res.per_record <= 1))
    assert res.params["boosting_type"] == "rf" and res.params["model"] == "LightGBM random forest"
    assert 0.0 <= res.risk <= 1.0


# ------------------------------------------------------------------------------------------------
# The strongest attack: threshold, split, Holm, ε
# ------------------------------------------------------------------------------------------------


def test_best_threshold_and_tpr_at_fpr_by_hand():
    # Members 3, 2; non-members 2.5, 1. t = 3: TPR ½, FPR 0 → ½; t = 2.5: ½ − ½; t = 2: 1 − ½ = ½. Highest wins.
    assert best_threshold(np.array([3.0, 2.0]), np.array([2.5, 1.0])) == (3.0, 0.5)
    assert best_threshold(np.array([1.0]), np.array([2.0])) == (math.inf, 0.0)
    fpr, tpr = np.array([0, 0, 0.001, 0.01, 0.5, 1]), np.array([0, 0.2, 0.3, 0.6, 0.9, 1])
    assert tpr_at_fprs(fpr, tpr, 1000) == {"0.001": 0.3, "0.01": 0.6, "0.1": 0.6}
    assert tpr_at_fprs(fpr, tpr, 999) == {"0.001": None, "0.01": 0.6, "0.1": 0.6}
    assert tpr_at_fprs(fpr, tpr, 50) == {"0.001": None, "0.01": None, "0.1": 0.6}


def test_honest_split_chooses_on_one_half_and_counts_on_the_other():
    # 8 members, 8 non-members. Attack "good" separates perfectly, "wrong" points the other way (AUC 0 on any
    # half; pure noise could reach AUC 1 on 4 + 4 records by chance and win the tie by coming first).
    members, nonmembers = np.arange(10.0, 18.0), np.arange(0.0, 8.0)
    rng = np.random.default_rng(0)
    scores = {"wrong": (rng.normal(size=8) - 5, rng.normal(size=8) + 5), "good": (members, nonmembers)}
    splits, held_out = honest_splits(scores, seed=3, delta=0.0)
    assert [s.chosen_on for s in splits] == ["A", "B"]
    assert all(s.attack == "good" and s.auc == 1.0 for s in splits)
    perm = np.random.default_rng([3, 7])
    perm_m = perm.permutation(8)  # the members' order; the non-members' (the next draw) is not needed
    # Chosen on A: the threshold is A's lowest member score (flag all of A's members, none of its non-members).
    assert splits[0].threshold == members[perm_m[:4]].min()
    # Counted on B: members of B at or above it, non-members of B (all below 10) never.
    expected_tp = int(np.sum(members[perm_m[4:]] >= splits[0].threshold))
    assert (splits[0].true_positives, splits[0].false_positives) == (expected_tp, 0)
    assert splits[0].advantage == expected_tp / 4
    assert splits[0].epsilon_lower_bound == pytest.approx(epsilon_lower_bound(expected_tp, 4, 0, 4))
    assert len(held_out) == 2 and held_out[1]["threshold"] == splits[1].threshold


def test_holm_by_hand():
    # Sorted 0.001, 0.02, 0.03, 0.5 → ×4, ×3, ×2, ×1 = 0.004, 0.06, 0.06, 0.5, then running maximum.
    np.testing.assert_allclose(holm_adjust([0.03, 0.001, 0.5, 0.02]), [0.06, 0.004, 0.5, 0.06])
    np.testing.assert_allclose(holm_adjust([0.9, 0.8]), [1.0, 1.0])  # capped at 1
    assert holm_adjust([]).tolist() == []


def test_clopper_pearson_and_epsilon_by_hand():
    # One success in two trials: the one-sided 95 % lower bound p solves P(X ≥ 1) = 1 − (1 − p)² = 0.05.
    assert clopper_pearson_lower(1, 2) == pytest.approx(1 - math.sqrt(0.95), rel=1e-12)
    # No success in one trial: the upper bound solves (1 − p) = 0.05.
    assert clopper_pearson_upper(0, 1) == pytest.approx(0.95, rel=1e-12)
    # 20 of 20 members caught, 0 of 20 non-members flagged: TPR_lo = 0.05^(1/20), FPR_hi = 1 − 0.05^(1/20).
    low = 0.05 ** (1 / 20)
    assert epsilon_lower_bound(20, 20, 0, 20) == pytest.approx(math.log(low / (1 - low)), rel=1e-12)
    # δ enters both inequalities.
    assert epsilon_lower_bound(20, 20, 0, 20, delta=0.1) == pytest.approx(math.log((low - 0.1) / (1 - low)))


# ------------------------------------------------------------------------------------------------
# mia_best on tiny tables and its JSON
# ------------------------------------------------------------------------------------------------


def test_mia_best_lists_every_attack_and_reports_held_out_numbers():
    rng = np.random.default_rng(1)
    real = col(rng.normal(0, 1, 60).round(4))
    holdout = col(rng.normal(0, 1, 60).round(4))
    res = run("mia_best", real=real, synthetic=real.copy(), holdout=holdout, reference=None)["mia_best"]
    d = res.details
    assert isinstance(d, MembershipBattery)
    assert list(d.attacks) == [a for a in BATTERY if a not in d.not_applicable]
    assert all(isinstance(a, BatteryAttack) for a in d.attacks.values())
    assert res.raw == pytest.approx(np.mean([s.auc for s in d.splits]))
    assert res.risk == pytest.approx(max(0.0, np.mean([s.advantage for s in d.splits])))
    assert d.epsilon_lower_bound == max(s.epsilon_lower_bound for s in d.splits)
    assert d.selected_attack in {s.attack for s in d.splits}
    assert d.n_members == d.n_nonmembers == 30  # half of the holdout plays R
    # 30 non-members: FPR 0.1 % and 1 % cannot be measured, 10 % can.
    assert all(a.tpr_at["0.001"] is None and a.tpr_at["0.01"] is None and a.tpr_at["0.1"] is not None
               for a in d.attacks.values())
    document = d.to_json()
    assert {"selected_attack", "attacks", "epsilon_lower_bound", "delta"} <= set(document)
    for attack in document["attacks"].values():
        assert {"auc", "auc_interval", "p_value_holm", "tpr_at"} <= set(attack)
        assert "roc_fpr" not in attack


def test_mia_best_p_values_are_holm_adjusted_over_the_attacks():
    d = run("mia_best", reference=None, real=col(range(0, 80, 2)), synthetic=col(range(0, 80, 2)),
            holdout=col(range(1, 81, 2)))["mia_best"].details
    raw = np.array([a.p_value for a in d.attacks.values()])
    np.testing.assert_allclose([a.p_value_holm for a in d.attacks.values()], holm_adjust(raw))


@pytest.mark.slow
def test_delta_lowers_the_epsilon_bound():
    rng = np.random.default_rng(2)
    real, holdout = col(rng.normal(size=200).round(5)), col(rng.normal(size=200).round(5))
    plain = run("mia_best", real=real, synthetic=real.copy(), holdout=holdout, reference=None)["mia_best"]
    loose = run("mia_best", {"mia_best": {"delta": 0.05}}, real=real, synthetic=real.copy(), holdout=holdout,
                reference=None)["mia_best"]
    assert plain.details.epsilon_lower_bound > loose.details.epsilon_lower_bound > 0
    assert loose.details.delta == 0.05 and plain.details.delta == 0.0


# ------------------------------------------------------------------------------------------------
# Properties
# ------------------------------------------------------------------------------------------------

values = st.lists(st.integers(0, 6), min_size=8, max_size=16)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(real=values, synthetic=values, holdout=st.lists(st.integers(0, 6), min_size=8, max_size=24),
       seed=st.integers(0, 1000))
def test_every_attack_stays_in_range_and_is_seeded(real, synthetic, holdout, seed):
    real, synthetic, holdout = col(real), col(synthetic), col(holdout)
    report = run(ALL, {m: {"n_boot": 20} for m in ALL}, real, synthetic, holdout, reference=None, seed=seed)
    again = run(ALL, {m: {"n_boot": 20} for m in ALL}, real, synthetic, holdout, reference=None, seed=seed)
    for mid in ALL:
        res = report[mid]
        if not res.applicable:
            assert res.reason, mid
            continue
        assert 0.0 <= res.risk <= 1.0 and 0.0 <= res.raw <= 1.0, mid
        assert np.all(np.isfinite(res.per_record)), mid
        assert res.raw == again[mid].raw and res.risk == again[mid].risk, mid
    dpi, count = report["mia_dpi"], report["mia_density_count"]
    if dpi.applicable:
        k = dpi.params["k"]
        assert np.all((dpi.per_record >= 1 / (k + 1) - 1e-12) & (dpi.per_record <= k + 1 + 1e-12))
    if count.applicable:
        assert np.all((count.per_record >= 0) & (count.per_record <= len(synthetic)))
        assert np.array_equal(count.per_record, np.round(count.per_record))
    best = report["mia_best"]
    if best.applicable:
        assert best.details.epsilon_lower_bound >= 0


@settings(max_examples=10, deadline=None)
@given(order=st.permutations([0, 1, 2, 3]))
def test_dpi_and_density_count_do_not_depend_on_the_synthetic_row_order(order):
    shuffled = SYN.iloc[list(order)].reset_index(drop=True)
    for mid, params in (("mia_dpi", {"k": 2}), ("mia_density_count", {})):
        a = run(mid, {mid: params})[mid]
        b = run(mid, {mid: params}, synthetic=shuffled)[mid]
        np.testing.assert_allclose(a.per_record, b.per_record)
        np.testing.assert_allclose(a.details.nonmember_scores, b.details.nonmember_scores)


# ------------------------------------------------------------------------------------------------
# Awkward tables: each attack runs or says why not
# ------------------------------------------------------------------------------------------------


def awkward_tables():
    rng = np.random.default_rng(9)
    n = 60
    real = pd.DataFrame({"age": rng.integers(18, 80, n).astype(float), "city": rng.choice(["a", "b"], n),
                         "flag": np.full(n, "same"), "const": np.full(n, 3.0)})
    holdout = real.sample(frac=1.0, random_state=1).reset_index(drop=True).copy()
    holdout.loc[:9, "city"] = "only-in-holdout"  # categories the training data and the generator never saw
    holdout.loc[10:12, "const"] = 4.0
    types = {"age": "numerical", "city": "categorical", "flag": "categorical", "const": "numerical"}
    return real, real.copy(), holdout, types


def test_categories_only_in_the_holdout_and_constant_columns():
    real, synthetic, holdout, types = awkward_tables()
    report = run(ALL, real=real, synthetic=synthetic, holdout=holdout, reference=None, types=types)
    for mid in ALL:
        assert report[mid].applicable, (mid, report[mid].reason)
        assert 0.0 <= report[mid].risk <= 1.0


def test_one_hot_only_tables_with_singular_covariance():
    # Only categorical columns, one of them a copy of another: E's one-hot columns and FAMD's axes are
    # linearly dependent; Gen-LRA drops the zero-variance axes instead of dividing by them.
    rng = np.random.default_rng(3)
    n = 80
    city = rng.choice(["a", "b", "c"], n)
    real = pd.DataFrame({"city": city, "city_again": city, "smoker": rng.choice(["y", "n"], n)})
    holdout = pd.DataFrame({"city": rng.choice(["a", "b", "c"], n), "smoker": rng.choice(["y", "n"], n)})
    holdout["city_again"] = holdout["city"]
    types = dict.fromkeys(real.columns, "categorical")
    report = run(ALL, real=real, synthetic=real.copy(), holdout=holdout, reference=None, types=types)
    for mid in ALL:
        res = report[mid]
        assert res.applicable or res.reason, mid
        if res.applicable:
            assert 0.0 <= res.risk <= 1.0 and np.all(np.isfinite(res.per_record)), mid


def test_every_column_constant_is_not_applicable_with_a_reason():
    real = pd.DataFrame({"x": [1.0] * 10, "c": ["a"] * 10})
    types = {"x": "numerical", "c": "categorical"}
    report = run(NEW, real=real, synthetic=real.copy(), holdout=real.copy(), reference=None, types=types)
    assert not report["mia_gen_lra"].applicable and "constant" in report["mia_gen_lra"].reason
    assert not report["mia_classifier"].applicable and "constant" in report["mia_classifier"].reason
    for mid in ("mia_density_count", "mia_dpi"):  # every distance is 0: they run, and see nothing
        assert report[mid].applicable and report[mid].raw == 0.5


# ------------------------------------------------------------------------------------------------
# One evaluation, every score once
# ------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_an_attacks_scorer_is_found_before_any_evaluation_has_loaded_the_registry():
    # In a fresh interpreter no evaluation has loaded the registry; importing the family's shared module imports
    # the package's face first, which imports every attack's module, so every scorer is registered (and
    # attack_scores would load the families itself if one were not).
    import subprocess
    import sys

    code = (
        "from types import SimpleNamespace\n"
        "import privcore.metrics.membership._base as common\n"
        "shared = SimpleNamespace(cached=lambda key, compute: key[1])\n"
        "ctx = SimpleNamespace(seed=0, is_baseline=False, shared=shared)\n"
        "print(common.attack_scores(ctx, 'mia_learned', {}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "mia_learned"


@pytest.mark.slow
def test_mia_best_reuses_the_attacks_scores_instead_of_running_them_again(monkeypatch):
    # Every attack's module registers its scorer on import: load them all before wrapping the scorers (alone,
    # in a fresh process, no evaluation has loaded them yet).
    all_metrics()
    calls = {mid: 0 for mid in BATTERY}
    for mid in BATTERY:
        info = registry.get(mid)

        def counted(*args, _mid=mid, _score=info.scorer.score):
            calls[_mid] += 1
            return _score(*args)

        scorer = _base.Scorer(counted, info.scorer.param_names)
        monkeypatch.setitem(registry._REGISTRY, mid, dataclasses.replace(info, scorer=scorer))
    d = load_scenario("noisy_copy", n=300)
    schema = Schema(types=dict(d.types))
    report = evaluate(d.real, d.synthetic, schema, metrics=ALL, holdout=d.holdout, strict=True,
                      params={m: {"n_boot": 20} for m in ALL})
    assert calls == {mid: 1 for mid in BATTERY}, calls
    passes = report.shared.passes
    assert len(passes) == len(set(passes))
    # The battery reports the very scores the attack's own metric reports.
    best = report["mia_best"].details
    for mid in BATTERY[1:]:
        assert best.attacks[mid].auc == pytest.approx(report[mid].raw), mid
    assert calls == {mid: 1 for mid in BATTERY}


@pytest.mark.slow
def test_each_attacks_bootstrap_runs_once_and_mia_best_alone_reports_the_same(monkeypatch):
    summaries = []
    original = _base.attack_summary

    def counted(member, non, **kwargs):
        summaries.append(len(member))
        return original(member, non, **kwargs)

    monkeypatch.setattr(_base, "attack_summary", counted)
    d = load_scenario("noisy_copy", n=300)
    schema = Schema(types=dict(d.types))
    params = {m: {"n_boot": 30} for m in ALL}
    together = evaluate(d.real, d.synthetic, schema, metrics=ALL, holdout=d.holdout, strict=True, params=params)
    ran = [m for m in BATTERY if together[m].applicable]
    # mia_best read every attack's summary instead of bootstrapping again; the one extra is the distance
    # attack's own metric, which scores every real row, while the battery scores the members beside R.
    assert summaries.count(len(d.real)) == 1 and len(summaries) == len(ran) + 1
    alone = evaluate(d.real, d.synthetic, schema, metrics=["mia_best"], holdout=d.holdout, strict=True,
                     params={"mia_best": {"n_boot": 30}})
    for mid in ran:
        got, want = together["mia_best"].details.attacks[mid], alone["mia_best"].details.attacks[mid]
        for name in ("auc", "auc_interval", "p_value", "p_value_holm", "tpr_at", "advantage"):
            assert getattr(got, name) == getattr(want, name), (mid, name)
        np.testing.assert_array_equal(got.roc_tpr, want.roc_tpr)
        if mid != "mia_distance":  # the others' own metrics summarise the battery's very scores
            assert together[mid].details.auc_interval == got.auc_interval


@pytest.mark.slow
def test_mia_best_uses_the_attacks_own_settings_when_they_ran():
    d = load_scenario("noisy_copy", n=300)
    schema = Schema(types=dict(d.types))
    params = {"mia_dpi": {"n_boot": 0, "k": 5}, "mia_best": {"n_boot": 0}}
    report = evaluate(d.real, d.synthetic, schema, metrics=["mia_dpi", "mia_best"], holdout=d.holdout,
                      params=params, strict=True)
    assert report["mia_best"].details.attacks["mia_dpi"].auc == pytest.approx(report["mia_dpi"].raw)
    default_k = evaluate(d.real, d.synthetic, schema, metrics=["mia_best"], holdout=d.holdout,
                         params={"mia_best": {"n_boot": 0}}, strict=True)
    assert default_k["mia_best"].details.attacks["mia_dpi"].auc != pytest.approx(report["mia_dpi"].raw)


# ------------------------------------------------------------------------------------------------
# The demo assertions
# ------------------------------------------------------------------------------------------------


def _best(name, n, seed=0):
    d = load_scenario(name, n=n)
    schema = Schema(types=dict(d.types), key=list(d.key), sensitive=d.sensitive)
    return evaluate(d.real, d.synthetic, schema, metrics="mia_best", holdout=d.holdout, seed=seed,
                    params={"mia_best": {"n_boot": 100}}, strict=True)["mia_best"]


@pytest.mark.slow
def test_an_exact_copy_is_caught_with_a_large_epsilon_bound():
    res = _best("exact_copy", 3000)
    assert res.raw >= 0.95, res.raw
    assert res.details.epsilon_lower_bound >= 2, res.details.epsilon_lower_bound
    assert res.details.held_out_auc_interval[0] > 0.9


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_fresh_sample_stays_at_chance_over_seeds(seed):
    # The winner's curse would put the best of eight AUCs above 0.5; choosing on one half and reporting on
    # the other keeps a fresh sample at chance.
    res = _best("fresh_sample", 1500, seed=seed)
    assert 0.45 <= res.raw <= 0.55, res.raw
    assert res.details.epsilon_lower_bound <= 0.3, res.details.epsilon_lower_bound
    assert max(a.auc for a in res.details.attacks.values()) >= res.raw - 0.05


def _dpi_counts_two_passes(queries, synthetic, reference, k, tolerance):
    """DPI's counts as first written: the k-th distance, then every row within the radii counted in a pass."""
    from privcore.engine.neighbors import count_within, nearest_k

    union = np.vstack([synthetic, reference])
    labels = np.r_[np.zeros(len(synthetic), dtype=np.int64), np.ones(len(reference), dtype=np.int64)]
    k = min(k, len(union))
    kth = nearest_k(queries, union, k).distance[:, k - 1]
    counts = count_within(queries, union, np.c_[np.nextafter(kth - tolerance, -np.inf), kth + tolerance],
                          labels=labels)
    closer, within = counts[:, 0, :].astype(float), counts[:, 1, :].astype(float)
    tied = within - closer
    places = k - closer.sum(axis=1)
    share = np.divide(places, tied.sum(axis=1), out=np.zeros(len(places)), where=tied.sum(axis=1) > 0)
    taken = closer + tied * share[:, None]
    return taken[:, 0], taken[:, 1]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 12), extra=st.integers(0, 6), step=st.sampled_from([0.0, 1.0]),
       tolerance=st.sampled_from([0.0, 1e-9, 0.5]))
def test_dpi_counts_from_the_neighbour_list_equal_a_counting_pass(seed, k, extra, step, tolerance):
    from privcore.metrics.membership import battery as mb

    rng = np.random.default_rng(seed)
    grid = lambda n: np.round(rng.random((n, 2)) * 3) + step * rng.random((n, 2))  # noqa: E731 - ties unless step
    queries, synthetic, reference = grid(15), grid(rng.integers(1, 12)), grid(rng.integers(1, 12))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mb, "EXTRA_NEIGHBOURS", extra)
        got = mb.dpi_counts(queries, synthetic, reference, k, tolerance)
    want = _dpi_counts_two_passes(queries, synthetic, reference, k, tolerance)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
