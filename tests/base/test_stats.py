"""Tests of privcore.base.stats: Wilson rates, residual risk, clipping, AttackResult, bootstrap.

The reference values are the ones published in issue 5 (they are Anonymeter's own test values).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore.base.roc import _level_counts, roc_auc, roc_curve, roc_statistics
from privcore.base.stats import (
    BASELINE_WARNING,
    CONTROL_WARNING,
    AttackResult,
    Risk,
    SuccessRate,
    bootstrap_interval,
    bootstrap_replicates,
    clip_risk,
    percentile_interval,
    probit,
    residual_risk,
    residual_risk_clipped,
    success_rate,
)

# --------------------------------------------------------------------------- published values


def test_probit():
    assert round(probit(0.95), 2) == 1.96
    assert probit(0) == 0.0


@pytest.mark.parametrize(
    "n_success, expected_rate, expected_error",
    [(850, 0.849, 0.022), (0, 0.002, 0.002), (1000, 0.998, 0.002)],
)
def test_success_rate_published_1000(n_success, expected_rate, expected_error):
    rate = success_rate(n_success, 1000, confidence=0.95)
    assert round(rate.value, 3) == expected_rate
    assert round(rate.error, 3) == expected_error


def test_success_rate_published_23_of_100_exact():
    rate = success_rate(23, 100, 0.95)
    assert rate.value == 0.23998824451588613
    assert rate.error == 0.08155558571285167


def test_success_rate_published_100_of_100_at_068_exact():
    rate = success_rate(100, 100, confidence=0.68)
    assert rate.value == 0.9951036894831882
    assert rate.error == 0.004896310516811869


def test_success_rate_more_anonymeter_values():
    # Anonymeter's test_evaluation_results_confidence (main and baseline rates)
    assert tuple(success_rate(100, 100, 0.95)) == (0.9815032508965071, 0.01849674910349284)
    assert tuple(success_rate(0, 100, 0.95)) == (0.01849674910349284, 0.01849674910349284)
    assert tuple(success_rate(0, 100, 0.68)) == (0.0048963105168118685, 0.004896310516811869)
    assert tuple(success_rate(11, 100, 0.95)) == (0.1244274643007244, 0.06188550073007873)


def test_residual_risk_published():
    res = residual_risk(SuccessRate(0.9, 0.02), SuccessRate(0.85, 0.02))
    assert round(res.value, 3) == 0.333
    assert round(res.error, 2) == 0.16
    res0 = residual_risk(SuccessRate(0.9, 0.0), SuccessRate(0.8, 0.0))
    assert round(res0.value, 3) == 0.5 and res0.error == 0.0


@pytest.mark.parametrize("k, n", [(0, 1), (3, 10), (23, 100), (100, 100), (850, 1000), (7, 13)])
def test_confidence_zero_is_exactly_k_over_n(k, n):
    rate = success_rate(k, n, confidence=0)
    assert rate.value == k / n
    assert rate.error == 0.0


# --------------------------------------------------------------------------- clipping, residual edge cases


@pytest.mark.parametrize(
    "value, error, expected",
    [(0.1, 0.3, (0.1, 0.0, 0.4)), (1.1, 0.5, (1.0, 0.6, 1.0)), (-0.1, 0.2, (0.0, 0.0, 0.1))],
)
def test_clip_risk(value, error, expected):
    risk = clip_risk(SuccessRate(value, error))
    np.testing.assert_allclose([risk.value, *risk.interval], expected)


def test_residual_negative_is_clipped_to_zero():
    res = residual_risk(SuccessRate(0.2, 0.05), SuccessRate(0.4, 0.05))
    assert res.value < 0
    clipped = residual_risk_clipped(SuccessRate(0.2, 0.05), SuccessRate(0.4, 0.05))
    assert clipped.value == 0.0 and clipped.interval[0] == 0.0


def test_residual_with_perfect_control_is_nan():
    res = residual_risk(SuccessRate(1.0, 0.0), SuccessRate(1.0, 0.0))
    assert math.isnan(res.value) and math.isnan(res.error)


@pytest.mark.parametrize("confidence", [-0.1, 1.0, 1.2, float("nan")])
def test_bad_confidence_raises(confidence):
    with pytest.raises(ValueError):
        success_rate(1, 10, confidence)


@pytest.mark.parametrize("k, n", [(-1, 10), (11, 10), (0, 0)])
def test_bad_counts_raise(k, n):
    with pytest.raises(ValueError):
        success_rate(k, n)


# --------------------------------------------------------------------------- AttackResult


def test_attack_result_without_control_is_main_rate():
    res = AttackResult(n_main=23, n_main_total=100, n_baseline=11, n_baseline_total=100)
    assert res.control_rate() is None and res.residual() is None
    risk = res.risk()
    main = success_rate(23, 100)
    assert risk.value == main.value
    assert risk.interval == (main.value - main.error, main.value + main.error)
    assert res.risk(baseline=True).value == success_rate(11, 100).value
    assert res.warnings() == []
    # confidence 0: the risk is exactly k/n with a degenerate interval
    assert res.risk(confidence=0) == Risk(0.23, (0.23, 0.23))


def test_attack_result_with_control_is_clipped_residual():
    res = AttackResult(90, 100, 5, 100, n_control=50, n_control_total=100, confidence=0.95)
    expected = residual_risk(success_rate(90, 100), success_rate(50, 100))
    assert res.residual() == expected
    risk = res.risk()
    assert risk.value == pytest.approx(expected.value)
    assert risk.interval[0] <= risk.value <= risk.interval[1] <= 1.0
    d = res.to_dict()
    assert d["risk"] == risk.value and d["control"]["value"] == success_rate(50, 100).value


def test_attack_result_warns_when_main_does_not_beat_baseline():
    res = AttackResult(49, 100, 50, 100)
    warnings = res.warnings()
    assert len(warnings) == 1
    assert warnings[0].startswith(BASELINE_WARNING.split("(")[0])
    assert "cannot be trusted" in warnings[0]


def test_attack_result_warns_when_control_always_succeeds():
    res = AttackResult(49, 100, 0, 100, n_control=100, n_control_total=100, confidence=0)
    assert CONTROL_WARNING in res.warnings()
    assert math.isnan(res.risk().value)


def test_attack_result_validation():
    with pytest.raises(ValueError):
        AttackResult(1, 10, 0, 10, confidence=1.2)
    with pytest.raises(ValueError):
        AttackResult(1, 10, 0, 10, n_control=3)


# --------------------------------------------------------------------------- bootstrap


def test_bootstrap_is_seeded_and_vectorised_matches_loop():
    x = np.random.default_rng(1).normal(size=300)
    a = bootstrap_interval(np.mean, x, n_boot=400, seed=3)
    b = bootstrap_interval(np.mean, x, n_boot=400, seed=3)
    v = bootstrap_interval(lambda arr: arr.mean(axis=-1), x, n_boot=400, seed=3, vectorized=True)
    assert a.interval == b.interval == v.interval
    assert a.value == pytest.approx(x.mean())
    assert a.interval[0] < x.mean() < a.interval[1]
    c = bootstrap_interval(np.mean, x, n_boot=400, seed=4)
    assert c.interval != a.interval
    # roughly the normal-theory interval of a mean
    se = x.std(ddof=1) / np.sqrt(x.size)
    assert a.interval[1] - a.interval[0] == pytest.approx(2 * 1.96 * se, rel=0.25)


def test_bootstrap_chunking_does_not_change_result():
    x = np.arange(50.0)
    a = bootstrap_interval(lambda arr: arr.mean(axis=-1), x, n_boot=200, seed=0, vectorized=True)
    b = bootstrap_interval(lambda arr: arr.mean(axis=-1), x, n_boot=200, seed=0, vectorized=True,
                           max_chunk_elements=50 * 7)
    assert a.interval == b.interval


def test_bootstrap_strata_keep_group_sizes_and_pairing():
    labels = np.array([1] * 30 + [0] * 70)
    scores = labels + np.random.default_rng(0).normal(scale=0.1, size=100)

    def n_members(s, y):
        return float(y.sum())

    res = bootstrap_interval(n_members, scores, labels, n_boot=50, seed=0, strata=labels)
    assert res.interval == (30.0, 30.0)

    def separation(s, y):  # arrays are resampled with the same positions
        return float(s[y == 1].min() - s[y == 0].max())

    res = bootstrap_interval(separation, scores, labels, n_boot=50, seed=0, strata=labels)
    assert res.interval[0] > 0


def _replicates_drawn_as_written(statistic, arrays, n_boot, seed, strata, chunk):
    """The resamples as the docstring of ``bootstrap_replicates`` states them: per chunk, each stratum in
    sorted label order draws ``rng.integers(0, size, (b, size))`` and the blocks are joined side by side."""
    rng = np.random.default_rng(seed)
    labels = np.unique(strata)
    groups = [np.flatnonzero(strata == label) for label in labels]
    out = []
    for done in range(0, n_boot, chunk):
        b = min(chunk, n_boot - done)
        idx = np.concatenate([g[rng.integers(0, g.size, size=(b, g.size))] for g in groups], axis=1)
        out.append(statistic(*(a[idx] for a in arrays)))
    return np.concatenate(out)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 60), classes=st.integers(1, 3), grouped=st.booleans(),
       chunk=st.integers(1, 9), threads=st.integers(1, 3))
def test_bootstrap_replicates_are_the_documented_draws_on_any_threads(seed, n, classes, grouped, chunk, threads):
    # Consecutive strata are filled as offsets of their draws, scattered ones by gathering; chunks may be
    # evaluated on threads: every path must give the resamples the docstring describes, in order.
    rng = np.random.default_rng(seed)
    strata = rng.integers(0, classes, n)
    if grouped:
        strata = np.sort(strata)
    x = rng.normal(size=n)

    def statistic(values, labels):
        return np.column_stack([values.mean(axis=1), (values * labels).sum(axis=1), values[:, 0]])

    expected = _replicates_drawn_as_written(statistic, (x, strata), 23, seed, strata, chunk)
    got = bootstrap_replicates(statistic, x, strata, n_boot=23, seed=seed, vectorized=True, strata=strata,
                               max_chunk_elements=chunk * n, threads=threads)
    assert np.array_equal(got, expected)


def test_bootstrap_nan_replicates_are_counted():
    y = np.array([0, 1])

    def needs_both(arr):
        return float(arr.mean()) if 0 < arr.sum() < arr.size else float("nan")

    res = bootstrap_interval(needs_both, y, n_boot=200, seed=0)
    assert 0 < res.n_failed < 200
    assert res.interval == (0.5, 0.5)


def test_bootstrap_validation():
    with pytest.raises(ValueError):
        bootstrap_interval(np.mean)
    with pytest.raises(ValueError):
        bootstrap_interval(lambda a, b: 0.0, np.ones(3), np.ones(4))
    with pytest.raises(ValueError):
        bootstrap_interval(np.mean, np.ones(3), n_boot=0)


# --------------------------------------------------------------------------- properties


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=100_000),
    frac=st.floats(min_value=0, max_value=1),
    confidence=st.floats(min_value=0, max_value=0.999),
)
def test_wilson_rate_properties(n, frac, confidence):
    k = round(frac * n)
    rate = success_rate(k, n, confidence)
    assert 0.0 <= rate.value <= 1.0
    assert rate.error >= 0.0
    low, high = rate.interval
    assert low <= rate.value <= high
    # the Wilson interval itself never leaves [0, 1]
    assert rate.value - rate.error >= -1e-12 and rate.value + rate.error <= 1 + 1e-12
    if confidence == 0:
        assert rate.value == k / n


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=5000),
    f_main=st.floats(min_value=0, max_value=1),
    f_control=st.floats(min_value=0, max_value=1),
    confidence=st.floats(min_value=0.01, max_value=0.99),
)
def test_clipped_residual_properties(n, f_main, f_control, confidence):
    res = AttackResult(round(f_main * n), n, 0, n, round(f_control * n), n, confidence)
    risk = res.risk()
    assert 0.0 <= risk.value <= 1.0
    assert 0.0 <= risk.interval[0] <= risk.value <= risk.interval[1] <= 1.0


# --------------------------------------------------------------------------- ROC curve and AUC


def test_roc_auc_with_ties_by_hand():
    # Positives 3, 2, 2 and negatives 2, 1, 0, 2: of 12 pairs, 3 wins 4; each 2 beats 1 and 0 and ties
    # the two 2s (½ each), so 3 apiece. AUC = (4 + 3 + 3) / 12.
    labels, scores = [1, 1, 1, 0, 0, 0, 0], [3.0, 2, 2, 2, 1, 0, 2]
    assert roc_auc(labels, scores) == 10 / 12
    assert roc_auc([1, 0], [1.0, 1.0]) == 0.5  # one tied pair
    assert roc_auc([1, 0], [0.0, 1.0]) == 0.0


def test_roc_curve_by_hand():
    # Thresholds from the top: 3 flags 1 of 3 positives; 2 flags all 3 and 2 of 4 negatives; then 1 and 0.
    curve = roc_curve([1, 1, 1, 0, 0, 0, 0], [3.0, 2, 2, 2, 1, 0, 2])
    assert curve.thresholds.tolist() == [np.inf, 3.0, 2.0, 1.0, 0.0]
    assert curve.fpr.tolist() == [0.0, 0.0, 0.5, 0.75, 1.0]
    assert curve.tpr.tolist() == [0.0, 1 / 3, 1.0, 1.0, 1.0]


def test_roc_statistics_of_resamples_match_each_one_alone():
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 5, (4, 12))
    labels = np.tile(np.r_[np.ones(5), np.zeros(7)], (4, 1))
    _, ranks = np.unique(scores, return_inverse=True)
    stats = roc_statistics(ranks.reshape(scores.shape), labels, int(ranks.max()) + 1, (0.0, 0.5))
    for row in range(4):
        assert stats.auc[row] == roc_auc(labels[row], scores[row])
        curve = roc_curve(labels[row], scores[row])
        assert stats.advantage[row] == max(0.0, float((curve.tpr - curve.fpr).max()))
        assert stats.tpr_at[0.5][row] == curve.tpr[curve.fpr <= 0.5].max()


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), b=st.integers(1, 5), n=st.integers(2, 40), levels=st.integers(1, 8),
       k=st.integers(0, 40))
def test_roc_statistics_equal_each_resamples_curve_at_every_fpr_boundary(seed, b, n, levels, k):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, levels, (b, n)).astype(float)
    labels = rng.integers(0, 2, (b, n))
    labels[:, 0], labels[:, 1] = 1, 0
    _, ranks = np.unique(scores, return_inverse=True)
    negatives = (labels == 0).sum(axis=1)
    targets = (0.0, 0.01, 0.1, min(k, int(negatives.min())) / negatives.min(), 1.0)  # one exactly k / N
    stats = roc_statistics(ranks.reshape(scores.shape), labels, int(ranks.max()) + 1, targets)
    for row in range(b):
        curve = roc_curve(labels[row], scores[row])
        assert stats.auc[row] == roc_auc(labels[row], scores[row])
        assert stats.advantage[row] == max(0.0, float((curve.tpr - curve.fpr).max()))
        for target in targets:
            assert stats.tpr_at[target][row] == curve.tpr[curve.fpr <= target].max()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), b=st.integers(1, 5), n=st.integers(2, 40), levels=st.integers(1, 8),
       grouped=st.booleans())
def test_roc_statistics_with_every_replicate_labelled_alike_equal_the_per_record_masks(seed, b, n, levels, grouped):
    # A bootstrap with the classes as strata labels every replicate alike: those labels are read once, as
    # column slices when the classes are kept together; the counts must be those of the per-record masks.
    rng = np.random.default_rng(seed)
    row = rng.integers(0, 2, n)
    row[0], row[1] = 1, 0
    if grouped:
        row = np.sort(row)
    ranks = rng.integers(0, levels, (b, n))
    alike = {"one row": row, "broadcast": np.broadcast_to(row, (b, n)), "tiled": np.tile(row, (b, 1))}
    masks = np.tile(row, (b, 1)).astype(bool)
    flat = ranks + (np.arange(b) * levels)[:, None]
    expected_pos = np.bincount(flat[masks], minlength=b * levels).reshape(b, levels)[:, ::-1]
    expected_neg = np.bincount(flat[~masks], minlength=b * levels).reshape(b, levels)[:, ::-1]
    targets = (0.0, 0.1, 0.5)
    curves = [roc_curve(row, ranks[i].astype(float)) for i in range(b)]
    for labels in alike.values():
        pos, neg = _level_counts(ranks, labels, levels)
        assert np.array_equal(pos, expected_pos) and np.array_equal(neg, expected_neg)
        stats = roc_statistics(ranks, labels, levels, targets)
        for i, curve in enumerate(curves):
            assert stats.auc[i] == roc_auc(row, ranks[i].astype(float))
            assert stats.advantage[i] == max(0.0, float((curve.tpr - curve.fpr).max()))
            assert all(stats.tpr_at[t][i] == curve.tpr[curve.fpr <= t].max() for t in targets)


def test_roc_statistics_refuse_labels_of_another_length():
    with pytest.raises(ValueError, match="one entry per record"):
        roc_statistics(np.zeros((2, 4), dtype=int), np.array([1, 0, 1]), 1)


@pytest.mark.parametrize("negatives, k", [(49, 1), (98, 2), (10, 1), (3, 1)])
def test_tpr_at_an_fpr_of_exactly_k_over_n_counts_the_kth_negative(negatives, k):
    # fl(1/49)·49 rounds below 1, so floor(target·N) alone would stop one negative short of the target.
    scores = np.r_[np.arange(negatives + 1, 0, -1.0), np.arange(negatives, 0, -1.0) - 0.5]
    labels = np.r_[np.ones(negatives + 1), np.zeros(negatives)]
    _, ranks = np.unique(scores, return_inverse=True)
    target = k / negatives
    stats = roc_statistics(ranks, labels, int(ranks.max()) + 1, (target,))
    curve = roc_curve(labels, scores)
    assert stats.tpr_at[target][0] == curve.tpr[curve.fpr <= target].max()


def test_roc_needs_both_classes():
    with pytest.raises(ValueError, match="one positive and one negative"):
        roc_auc([1, 1], [0.2, 0.3])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(-3, 3)), min_size=2, max_size=30))
def test_roc_auc_properties(pairs):
    labels = np.array([p[0] for p in pairs])
    scores = np.array([p[1] for p in pairs], dtype=float)
    if labels.all() or not labels.any():
        return
    auc = roc_auc(labels, scores)
    assert 0.0 <= auc <= 1.0
    assert auc == pytest.approx(1.0 - roc_auc(labels, -scores), abs=1e-12)
    # The Mann–Whitney definition: P(positive > negative) + ½ P(tie), over every pair.
    diff = scores[labels == 1][:, None] - scores[labels == 0][None, :]
    assert auc == pytest.approx(float(((diff > 0) + 0.5 * (diff == 0)).mean()), abs=1e-12)
    # Area under the full curve (trapezoids) is the same number.
    curve = roc_curve(labels, scores)
    area = float(np.sum(np.diff(curve.fpr) * (curve.tpr[1:] + curve.tpr[:-1]) / 2))
    assert auc == pytest.approx(area, abs=1e-12)


def test_bootstrap_replicates_of_several_statistics_are_those_of_each_alone():
    x = np.random.default_rng(1).normal(size=40)
    both = bootstrap_replicates(lambda a: np.column_stack([a.mean(axis=1), a.max(axis=1)]), x, n_boot=50,
                                seed=2, vectorized=True)
    assert both.shape == (50, 2)
    assert np.array_equal(both[:, 0], bootstrap_interval(lambda a: a.mean(axis=1), x, n_boot=50, seed=2,
                                                         vectorized=True).samples)
    # A Generator continues its stream: two draws of 25 from one are the draws of 50 in one chunk.
    rng = np.random.default_rng(2)
    halves = [bootstrap_replicates(lambda a: a.mean(axis=1), x, n_boot=25, seed=rng, vectorized=True,
                                   max_chunk_elements=25 * 40) for _ in range(2)]
    assert np.array_equal(np.r_[halves[0], halves[1]], both[:, 0])


def test_percentile_interval_leaves_out_nan():
    assert percentile_interval(np.r_[np.arange(101.0), np.nan], 0.5) == (25.0, 75.0)
    assert all(math.isnan(v) for v in percentile_interval(np.full(3, np.nan)))
