"""Utility and fidelity measures (issue 37, metrics.md §6): column shapes, column-pair trends, train on synthetic /
test on real (MLE) and the discriminator.

Hand-computed values on tiny tables for each measure, hypothesis properties (ranges, identical tables give the
perfect score, symmetry where it holds), how a utility score travels (no risk; a score beside what a fresh sample
keeps, in JSON, the assessment and the HTML report), and the Must-show ordering on the demo's tables.
"""

from __future__ import annotations

import json
import math

import jsonschema
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore import Schema, evaluate
from privcore.demo import load_scenario
from privcore.evaluation import interpret as R
from privcore.evaluation.evaluate import resolve_metric_ids
from privcore.evaluation.verdict import verdict
from privcore.metrics import registry
from privcore.metrics.details import Discrimination, ModelUtility
from privcore.metrics.utility._base import bin_column, cramers_v, hellinger, ks_complement, shares, tvd
from privcore.metrics.utility.pairs import pair_trends
from privcore.metrics.utility.shapes import column_shapes
from privcore.report.figures import metric_figures
from privcore.report.html import html_report
from privcore.report.json_schema import report_schema

UTILITY = ["utility_shapes", "utility_pairs", "utility_mle", "utility_discriminator"]


# ------------------------------------------------------------------------------------ declarations
def test_the_four_measures_are_declared_in_the_utility_family_and_presets():
    for metric_id in UTILITY:
        info = registry.get(metric_id)
        assert info.family == "Utility" and registry.is_utility(info)
        assert info.explanation.steps and info.explanation.note
    assert registry.presets()["utility"] == UTILITY == resolve_metric_ids("utility")
    quick = registry.quick_metrics(holdout=True)
    assert {"utility_shapes", "utility_pairs"} <= set(quick)
    assert not {"utility_mle", "utility_discriminator"} & set(quick)  # they train models
    assert not set(UTILITY) & set(registry.presets(holdout=True)["attacks (needs holdout)"])


# ------------------------------------------------------------------------------------ bins and distances
def test_numerical_bins_are_the_real_quantiles_with_missing_and_outside_bins_of_their_own():
    real = pd.Series([0.0] * 8 + [5.0, 7.0])  # mostly 0: tied quantiles merge into one bin
    other = pd.Series([0.0, 5.0, 6.0, 99.0, -1.0, np.nan])
    binned = bin_column(real, other, "numerical")
    assert binned.real.tolist() == [0] * 8 + [1, 2]  # bins (−inf, 0], (0, 5], (5, 7]
    assert binned.other.tolist() == [0, 1, 2, 4, 4, 3]  # 99 and −1 lie outside the real range; NaN is missing
    assert binned.labels[3:] == ["missing", "outside the real range"]


def test_categories_only_the_other_table_has_share_one_bin():
    binned = bin_column(pd.Series(["a", "b"]), pd.Series(["c", "d", None]), "categorical")
    assert binned.other.tolist() == [3, 3, 2]


def test_column_shapes_by_hand():
    real = pd.DataFrame({"c": ["a", "a", "b", "b"], "x": [1.0, 2.0, 3.0, 4.0]})
    other = pd.DataFrame({"c": ["a", "a", "a", "b"], "x": [1.0, 2.0, 3.0, 9.0]})
    d = column_shapes(real, other, {"c": "categorical", "x": "numerical"})
    # c: p = (1/2, 1/2), q = (3/4, 1/4): TVD 1/4, H = sqrt(1 − sqrt(3/8) − sqrt(1/8)).
    # x: bins (−inf, 1], (1, 2], (2, 3], (3, 4] hold a quarter each; 9 is outside: TVD 1/4, H = sqrt(1 − 3/4).
    assert d.tvd == pytest.approx([0.25, 0.25])
    assert d.hellinger == pytest.approx([math.sqrt(1 - math.sqrt(3 / 8) - math.sqrt(1 / 8)), 0.5])
    assert d.ks_complement == {"x": pytest.approx(0.75)}  # the ECDFs differ by 1/4 at 4
    assert d.utility == pytest.approx(0.75) and d.bins == [2, 5]
    result = evaluate(real, other, Schema({"c": "categorical", "x": "numerical"}), metrics="utility_shapes",
                      strict=True)["utility_shapes"]
    assert result.risk is None and result.raw == pytest.approx(0.75) and result.utility.score == pytest.approx(0.75)
    assert result.utility.reference is None and result.utility.relative is None  # no holdout


def test_cramers_v_by_hand():
    # 100 rows, table [[40, 10], [10, 40]]: χ² = 4 · 15² / 25 = 36, φ² = 0.36, bias-corrected
    # φ²~ = 0.36 − 1/99, r~ = k~ = 2 − 1/99, V = sqrt(φ²~ / (1 − 1/99)).
    a = np.repeat([0, 0, 1, 1], [40, 10, 10, 40])
    b = np.repeat([0, 1, 0, 1], [40, 10, 10, 40])
    expected = math.sqrt((0.36 - 1 / 99) / (1 - 1 / 99))
    assert cramers_v(a, b) == pytest.approx(expected) and cramers_v(b, a) == pytest.approx(expected)


def test_pair_trends_by_hand():
    def table(counts):
        a = np.repeat([0, 0, 1, 1], counts)
        b = np.repeat([0, 1, 0, 1], counts)
        return pd.DataFrame({"s": np.where(a == 1, "y", "n"), "t": np.where(b == 1, "y", "n")})

    real, other = table([40, 10, 10, 40]), table([35, 15, 15, 35])
    v_real = math.sqrt((0.36 - 1 / 99) / (1 - 1 / 99))
    v_other = math.sqrt((0.16 - 1 / 99) / (1 - 1 / 99))  # χ² = 4 · 10² / 25 = 16
    d = pair_trends(real, other, {"s": "categorical", "t": "categorical"})
    assert d.pairs == [["s", "t"]] and d.measure == ["cramers_v"]
    assert d.real == pytest.approx([v_real]) and d.synthetic == pytest.approx([v_other])
    assert d.difference == pytest.approx([v_real - v_other]) and d.similarity == pytest.approx([1 - v_real + v_other])
    assert d.utility == pytest.approx(1 - (v_real - v_other) / v_real)  # one pair: the share of its V kept
    # Two numerical columns: Pearson's ρ, SDMetrics' similarity 1 − |Δρ| / 2, and the share of |ρ| kept.
    numbers = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 2.0, 3.0, 4.0]})
    flat = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 2.0, 2.0, 1.0]})  # ρ = 0
    d = pair_trends(numbers, flat, {"x": "numerical", "y": "numerical"})
    assert d.measure == ["pearson"] and d.real == [pytest.approx(1.0)] and d.synthetic == [pytest.approx(0.0)]
    assert d.similarity == [pytest.approx(0.5)] and d.utility == pytest.approx(0.0)


def _separable(n, rng, flip=False):
    x = np.r_[rng.uniform(-2, -1, n // 2), rng.uniform(1, 2, n - n // 2)]
    return pd.DataFrame({"x": x, "y": np.where((x > 0) != flip, "yes", "no")})


def test_train_on_synthetic_by_hand():
    rng = np.random.default_rng(0)
    real, holdout = _separable(200, rng), _separable(200, rng)
    schema = Schema({"x": "numerical", "y": "binary"}, sensitive="y")
    # The target follows x with a gap around 0: every model trained on the real table ranks the holdout perfectly.
    same = evaluate(real, real.copy(), schema, metrics="utility_mle", holdout=holdout, strict=True)["utility_mle"]
    d = same.details
    assert isinstance(d, ModelUtility) and d.targets == ["y"] and len(d.scores) == 2
    linear, boosted = d.scores
    assert linear.learner.startswith("logistic") and linear.real == 1.0 and linear.synthetic == 1.0
    # LightGBM bins x on each bootstrap draw: a holdout value at the edge of the gap may share a bin with the other
    # class (AUC 0.9994 on one seed).
    assert boosted.learner == "LightGBM" and boosted.real > 0.999 and boosted.synthetic > 0.999
    assert all(s.score_name == "ROC AUC" and len(s.synthetic_per_seed) == 5 for s in d.scores)
    assert linear.ratio == 1.0 and boosted.ratio == pytest.approx(1.0, abs=1e-3)
    assert same.utility.score == pytest.approx(1.0, abs=1e-3) and same.utility.reference == 1.0
    # A synthetic table whose target has one value: its model ranks everyone alike, AUC 0.5, half of the real's 1.0.
    constant = real.assign(y="no")
    result = evaluate(real, constant, schema, metrics="utility_mle", holdout=holdout, strict=True)["utility_mle"]
    assert [s.synthetic for s in result.details.scores] == [0.5, 0.5]
    assert result.utility.score == pytest.approx(0.5, abs=1e-3) and result.raw == pytest.approx(0.5, abs=1e-3)
    # Another target named by the user: a numerical one is scored by R².
    three = Schema({"x": "numerical", "w": "numerical", "y": "binary"}, sensitive="y")
    real, holdout = (t.assign(w=2 * t["x"] + 1) for t in (real, holdout))
    named = evaluate(real, real.copy(), three, metrics="utility_mle", holdout=holdout, strict=True,
                     params={"utility_mle": {"targets": ["w"]}})["utility_mle"]
    assert named.details.targets == ["y", "w"] and {s.score_name for s in named.details.scores} == {"ROC AUC", "R²"}
    linear = next(s for s in named.details.scores if s.target == "w" and s.learner.startswith("logistic"))
    assert linear.real == pytest.approx(1.0) and linear.synthetic == pytest.approx(1.0)  # w = 2x + 1 exactly


def test_train_on_synthetic_needs_a_holdout_and_predicts_the_sensitive_or_last_column():
    real = _separable(60, np.random.default_rng(1))
    no_holdout = evaluate(real, real.copy(), Schema({"x": "numerical", "y": "binary"},
                                                    sensitive="y"), metrics="utility_mle")["utility_mle"]
    assert not no_holdout.applicable and "holdout" in no_holdout.reason
    assert json.loads(json.dumps(no_holdout.to_dict()))["utility"] is None
    # Without a sensitive column the last analysed column is predicted (the parameter's documented default).
    no_sensitive = evaluate(real, real.copy(), Schema({"x": "numerical", "y": "binary"}), metrics="utility_mle",
                            holdout=real.copy())["utility_mle"]
    assert no_sensitive.details.targets == ["y"]


def test_discriminator_by_hand():
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"a": rng.normal(size=200), "b": rng.choice(["x", "y"], 200)})
    schema = Schema({"a": "numerical", "b": "categorical"})
    apart = evaluate(real, real.assign(a=real["a"] + 20), schema, metrics="utility_discriminator",
                     strict=True)["utility_discriminator"]
    d = apart.details
    assert isinstance(d, Discrimination) and len(d.fold_aucs) == 5 and d.rows_per_table == 200
    assert d.auc > 0.99 and d.utility == pytest.approx(1 - max(0.0, 2 * d.auc - 1)) and apart.raw == d.auc
    copy = evaluate(real, real.copy(), schema, metrics="utility_discriminator", strict=True)["utility_discriminator"]
    assert copy.details.auc < 0.6 and copy.utility.score > 0.8  # the same rows cannot be told apart


def test_reuse_fits_the_models_of_real_and_holdout_once_with_the_same_results(monkeypatch):
    """Where the caller keeps ``reuse`` (the lab, the dashboard's comparisons), the MLE models trained on the real
    table and the discriminator against the holdout are fitted once for every synthetic table compared against
    the same real table and holdout; the results are those of an evaluation without reuse."""
    import privcore.metrics.utility.discriminator as discriminator_module
    import privcore.metrics.utility.mle as mle_module

    rng = np.random.default_rng(3)
    real, holdout = _separable(120, rng), _separable(120, rng)
    schema = Schema({"x": "numerical", "y": "binary"}, sensitive="y")
    tables = [real.assign(x=real["x"] + rng.normal(scale=s, size=len(real))) for s in (0.5, 2.0)]
    metrics = ["utility_mle", "utility_discriminator"]
    alone = [evaluate(real, t, schema, metrics=metrics, holdout=holdout, seed=1, strict=True) for t in tables]
    fits, discriminations = [], []
    fit_and_score, discriminate = mle_module._fit_and_score, discriminator_module.discriminate
    monkeypatch.setattr(mle_module, "_fit_and_score", lambda *a: fits.append(1) or fit_and_score(*a))
    monkeypatch.setattr(discriminator_module, "discriminate", lambda *a: discriminations.append(1) or discriminate(*a))
    reuse: dict = {}
    counts = []
    for table, expected in zip(tables, alone):
        report = evaluate(real, table, schema, metrics=metrics, holdout=holdout, seed=1, strict=True, reuse=reuse)
        counts.append((len(fits), len(discriminations)))
        for metric_id in metrics:
            assert report[metric_id].details == expected[metric_id].details
            assert report[metric_id].utility == expected[metric_id].utility
    # First table: 20 models and two discriminators (synthetic, holdout); second: the 10 on synthetic and one.
    assert counts == [(20, 2), (30, 3)]


# ------------------------------------------------------------------------------------ properties
shares_pair = st.integers(2, 8).flatmap(lambda k: st.tuples(
    st.lists(st.floats(0, 1), min_size=k, max_size=k).filter(lambda v: sum(v) > 0),
    st.lists(st.floats(0, 1), min_size=k, max_size=k).filter(lambda v: sum(v) > 0)))


@settings(max_examples=60, deadline=None)
@given(shares_pair)
def test_tvd_and_hellinger_are_symmetric_distances_in_0_1(pair):
    p, q = (np.array(v) / sum(v) for v in pair)
    for distance in (tvd, hellinger):
        assert 0.0 <= distance(p, q) <= 1.0
        assert distance(p, q) == pytest.approx(distance(q, p), abs=1e-12)
        assert distance(p, p) == pytest.approx(0.0, abs=1e-6)


categories = st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=4, max_size=40)


@settings(max_examples=40, deadline=None)
@given(categories, categories, st.lists(st.floats(-5, 5, allow_nan=False), min_size=4, max_size=40))
def test_column_shapes_range_perfect_score_and_symmetry(first, second, numbers):
    n = min(len(first), len(second), len(numbers))
    real = pd.DataFrame({"c": first[:n], "x": numbers[:n]})
    other = pd.DataFrame({"c": second[:n], "x": numbers[:n][::-1]})
    kinds = {"c": "categorical", "x": "numerical"}
    d = column_shapes(real, other, kinds)
    assert 0.0 <= d.utility <= 1.0 and all(0 <= h <= 1 for h in d.hellinger)
    assert column_shapes(real, real.copy(), kinds).utility == 1.0
    # A categorical column's TVD and Hellinger do not depend on which table is the real one: the values only the
    # other table has, gathered in one bin, are where the real table has nothing either way.
    swapped = column_shapes(other, real, kinds)
    assert swapped.tvd[0] == pytest.approx(d.tvd[0]) and swapped.hellinger[0] == pytest.approx(d.hellinger[0])


@settings(max_examples=40, deadline=None)
@given(categories, categories, categories)
def test_pair_trends_range_and_perfect_score(first, second, third):
    n = min(len(first), len(second), len(third))
    real = pd.DataFrame({"a": first[:n], "b": second[:n], "c": third[:n]})
    other = pd.DataFrame({"a": third[:n], "b": first[:n], "c": second[:n]})
    kinds = dict.fromkeys("abc", "categorical")
    d = pair_trends(real, other, kinds)
    assert 0.0 <= d.utility <= 1.0 and all(0 <= v <= 1 for v in d.real + d.synthetic)
    same = pair_trends(real, real.copy(), kinds)
    assert same.utility == 1.0 and same.difference == [0.0] * 3


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=3, max_size=50), st.lists(st.integers(0, 3), min_size=3, max_size=50))
def test_cramers_v_is_symmetric_and_in_0_1(first, second):
    n = min(len(first), len(second))
    a, b = np.array(first[:n]), np.array(second[:n])
    assert 0.0 <= cramers_v(a, b) <= 1.0
    assert cramers_v(a, b) == pytest.approx(cramers_v(b, a), abs=1e-6)


def test_ks_complement_of_identical_columns_is_one():
    values = np.array([3.0, 1.0, 2.0, 2.0])
    assert ks_complement(values, values[::-1]) == 1.0
    assert shares(np.array([0, 0, 2]), 4).tolist() == pytest.approx([2 / 3, 0, 1 / 3, 0])


# ------------------------------------------------------------------------------------ how a utility score travels
@pytest.fixture(scope="module")
def resampler():
    demo = load_scenario("column_resampler", n=300)
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive, seed=0)
    return evaluate(demo.real, demo.synthetic, schema, metrics=[*UTILITY, "crp"], holdout=demo.holdout, seed=0,
                    strict=True)


def test_a_utility_measure_has_no_risk_but_a_score_beside_a_fresh_sample(resampler):
    for metric_id in UTILITY:
        result = resampler[metric_id]
        assert result.risk is None and result.baseline is None and result.scale == "utility"
        u = result.utility
        assert 0.0 <= u.score <= 1.0 and u.reference is not None and u.relative == pytest.approx(u.score / u.reference)
    shapes = resampler["utility_shapes"]
    assert shapes.utility.reference == pytest.approx(shapes.baseline_output.details.utility)
    assert resampler["utility_mle"].utility.reference == 1.0  # its own models trained on the real table


def test_the_json_carries_the_utility_and_validates(resampler):
    document = json.loads(resampler.to_json())
    jsonschema.Draft202012Validator(report_schema()).validate(document)
    entry = document["metrics"]["utility_pairs"]
    assert entry["risk"] is None and entry["scale"] == "utility" and entry["details"]["kind"] == "pair_trends"
    assert set(entry["utility"]) >= {"score", "reference", "relative", "text"}
    assert "scale" not in document["metrics"]["crp"]  # privacy metrics are unchanged
    broken = json.loads(resampler.to_json())
    broken["metrics"]["utility_pairs"]["risk"] = 0.3
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(report_schema()).validate(broken)


def test_assess_reads_a_utility_level_and_the_verdict_leaves_it_out(resampler):
    pairs = R.assess("utility_pairs", resampler["utility_pairs"])
    assert pairs.is_utility and pairs.risk is None and pairs.adjusted is None
    assert pairs.level == R.UTILITY_LEVELS["little"] and pairs.excess_text.endswith("%")
    assert "fresh sample" in pairs.against
    shapes = R.assess("utility_shapes", resampler["utility_shapes"])
    assert shapes.level == R.UTILITY_LEVELS["keeps"]
    assert R.table_useful("utility_pairs", resampler["utility_pairs"]).verdict == "no"
    assert R.dataset_shareable("utility_shapes", resampler["utility_shapes"]).verdict == "yes"
    assert "education" in R.what_it_loses(resampler, "utility_pairs").text
    assert R.metric_applies(resampler, "utility_pairs").checks
    assert all(e.metric not in UTILITY for e in verdict(resampler).evidence)


def test_figures_and_the_html_report_show_utility(resampler):
    titles = {m: [f.title for f in metric_figures(resampler, m)] for m in UTILITY}
    assert "each column follows the real table" in titles["utility_shapes"][0]
    assert "change in how columns go together" in titles["utility_pairs"][0]
    assert "trained on synthetic and on real" in titles["utility_mle"][0]
    assert "per fold" in titles["utility_discriminator"][0]
    heatmap = metric_figures(resampler, "utility_pairs")[0].fig.data[0]
    assert heatmap.type == "heatmap" and len(heatmap.z) == 14
    page = html_report({"resampler": resampler}, include_figures=False)
    assert "What does the synthetic table lose most?" in page and "Is the table useful for this?" in page
    assert "% of a fresh sample" in page and "Keeps little" in page


def test_the_fresh_sample_reference_is_compared_at_the_synthetic_tables_size():
    demo = load_scenario("fresh_sample", n=400)
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive, seed=0)
    synthetic = demo.synthetic.iloc[:200]
    result = evaluate(demo.real, synthetic, schema, metrics="utility_shapes", holdout=demo.holdout, seed=0,
                      strict=True)["utility_shapes"]
    u = result.utility
    assert u.matched_rows == 200 and u.repeats == 3 and u.matched_score == u.score
    assert u.reference != pytest.approx(result.baseline_output.details.utility)  # 200-row subsets of the holdout
    assert "compared at 200 rows" in u.describe()


# ------------------------------------------------------------------------------------ Must show, on the demo
@pytest.fixture(scope="module")
def demo_relative():
    out = {}
    for name in ("exact_copy", "fresh_sample", "noisy_copy", "gaussian_copula", "column_resampler"):
        demo = load_scenario(name, n=800)
        schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive, seed=0)
        report = evaluate(demo.real, demo.synthetic, schema, metrics="utility", holdout=demo.holdout, seed=0,
                          strict=True)
        out[name] = {m: report[m].utility.relative for m in UTILITY}
    return out


@pytest.mark.slow
@pytest.mark.parametrize("metric_id", UTILITY)
def test_exact_copy_about_fresh_sample_at_least_noisy_copy(demo_relative, metric_id):
    exact, fresh, noisy = (demo_relative[s][metric_id] for s in ("exact_copy", "fresh_sample", "noisy_copy"))
    assert abs(exact - fresh) <= 0.2, (exact, fresh)
    assert fresh >= noisy, (fresh, noisy)


@pytest.mark.slow
def test_the_copula_keeps_pairs_better_than_the_column_resampler(demo_relative):
    assert demo_relative["gaussian_copula"]["utility_pairs"] > demo_relative["column_resampler"]["utility_pairs"]


def test_the_column_resampler_keeps_column_shapes_and_loses_pairs(demo_relative):
    assert demo_relative["column_resampler"]["utility_shapes"] >= 0.9
    assert demo_relative["column_resampler"]["utility_pairs"] <= 0.5
