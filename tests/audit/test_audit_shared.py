"""The shared-model audit: every record of a pool at once (privcore.audit.shared; issue 22)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import binom

from privcore.audit import AuditError, AuditSettings, audit
from privcore.audit.crossfit import crossfit_scores, record_statistics
from privcore.audit.features import query_masks
from privcore.audit.shared import SharedSettings, audit_shared, null_shares
from privcore.audit.tasks import GeneratorFactory, fit_seed
from privcore.data.schema import Schema
from privcore.demo import load_scenario


@pytest.fixture(scope="module")
def adult():
    demo = load_scenario("fresh_sample", n=1000)
    return demo.real, Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)


def run(table, schema, name, *, workers=1, **settings):
    return audit_shared(table, None, schema, stronger=False,
                        settings=SharedSettings(**settings), make=GeneratorFactory(name),
                        workers=workers)


def strip(document):
    return {k: v for k, v in document.items() if k not in ("seconds", "timings")}


# ------------------------------------------------------------------------------------------ pieces


def test_query_masks_pack_columns_into_words():
    queries = np.zeros((2, 70))
    queries[0, [0, 2]] = 1
    queries[1, [1, 64, 69]] = 1
    masks = query_masks(queries)
    assert masks.shape == (2, 2)
    assert masks[0].tolist() == [5, 0] and masks[1].tolist() == [2, 1 + 2**5]


def test_no_model_is_scored_by_a_rule_that_saw_it():
    # Noise features, except in fold 0, where the feature says membership perfectly. A rule that saw fold
    # 0 would score fold 0 perfectly; learnt on folds 1-3 (pure noise), it cannot.
    rng = np.random.default_rng(0)
    member = rng.random((40, 30)) < 0.5
    features = rng.normal(size=(40, 30, 1))
    fold0 = np.arange(40) % 4 == 0
    features[fold0, :, 0] = member[fold0] * 10.0
    scores = crossfit_scores(features, member, np.ones(40, bool), folds=4)
    aucs = [record_statistics(scores[fold0, i], member[fold0, i], np.ones(fold0.sum(), bool), 0, i)
            for i in range(30)]
    assert np.mean([a["auc"] for a in aucs if a is not None]) < 0.8


def test_statistics_by_hand():
    member = np.r_[True, False].repeat(10)
    out = record_statistics(np.where(member, 1.0, -1.0), member, np.ones(20, bool), 0, 0)
    # 10 + 10 models told apart: ε ≥ ln(0.05^(1/10) / (1 − 0.05^(1/10))); 1 % FPR needs 100 out-models.
    assert out["auc"] == 1.0 and out["epsilon_lower_bound"] == pytest.approx(1.0519, abs=1e-4)
    assert out["tpr_at"]["0.1"] == 1.0 and out["tpr_at"]["0.01"] is None
    assert out["p_value"] < 1e-3
    assert fit_seed(0, 1) != fit_seed(0, 2) and fit_seed(1, 1) != fit_seed(0, 1)


def test_bad_settings_are_named(adult):
    real, schema = adult
    with pytest.raises(AuditError, match=r"audit.models\) must be between 8 and 1000; got 6. It takes two models per fold"):
        run(real, schema, "exact_copy", models=6)
    with pytest.raises(AuditError, match="records"):
        run(real, schema, "exact_copy", records=5)


# --------------------------------------------------------------------------------------- the attack


@pytest.mark.slow
def test_a_generator_that_ignores_its_training_data_is_at_chance(adult):
    real, schema = adult
    report = run(real, schema, "fresh_sample", models=24, records=300, seed=1)
    aucs = np.array([r.auc for r in report.records])
    summary = report.summary
    assert len(aucs) == 300 and abs(aucs.mean() - 0.5) < 0.05, aucs.mean()
    # No more records above 0.6 than chance predicts (99.9 % binomial bound; records are nearly independent).
    chance = summary["chance_share_above_0.6"]
    assert (aucs > 0.6).sum() <= binom.ppf(0.999, len(aucs), chance), (summary["share_auc_above_0.6"], chance)
    assert summary["share_clearly_exposed"] == 0.0
    assert summary["max_epsilon_lower_bound"] < 1.0


@pytest.mark.slow
def test_the_chance_shares_are_measured_through_the_cross_fitted_attack():
    """On features that carry no information, cross-fitting spreads the AUCs wider than a random ranking's
    (a fold's labels trained the other folds' rules): the shares of records above AUC 0.6 and above an
    interval of 0.5 then exceed the textbook 2.2 % and 2.5 %. The chance shares of the summary are measured
    by rerunning the attack on shuffled training sets, and match what the noise really gives."""
    rng = np.random.default_rng(3)
    models, records = 128, 400
    features = rng.normal(size=(models, records, 8))
    membership = rng.random((models, records)) < 0.5
    usable = np.ones(models, bool)
    scores = crossfit_scores(features, membership, usable, folds=4)
    stats = [record_statistics(scores[:, i], membership[:, i], usable, 0, i) for i in range(records)]
    observed_above = np.mean([s["auc"] > 0.6 for s in stats])
    observed_interval = np.mean([s["auc_interval"][0] > 0.5 for s in stats])
    null = null_shares(features, membership, usable, SharedSettings(models=models, seed=0))
    assert observed_above > 0.04 and observed_interval > 0.04  # wider than a random ranking (0.022, 0.025)
    assert abs(null["auc_above_0.6"] - observed_above) < 0.03, (null, observed_above)
    assert abs(null["interval_above_0.5"] - observed_interval) < 0.03, (null, observed_interval)


@pytest.mark.slow
def test_an_exact_copy_exposes_every_record_without_a_duplicate(adult):
    real, schema = adult
    report = run(real, schema, "exact_copy", models=32, records=200)
    document = json.loads(json.dumps(report.to_dict(), allow_nan=False))
    assert document["design"] == "shared" and len(document["records"]) == 200
    pool = real.iloc[[r["row"] for r in document["records"]]]
    duplicated = pool.duplicated(keep=False).to_numpy()
    aucs = np.array([r["auc"] for r in document["records"]])
    assert (~duplicated).sum() > 150
    assert aucs[~duplicated].min() >= 0.99, np.sort(aucs[~duplicated])[:5]
    record = next(r for r, d in zip(document["records"], duplicated) if not d)
    assert record["nearest_synthetic_distance"] == 0.0 and record["nearest_synthetic_distance_out"] > 0
    assert "exact copy in 100 %" in record["why"] or "contain" in record["why"]
    assert set(record) >= {"row", "auc", "auc_interval", "tpr_at", "epsilon_lower_bound", "why",
                           "nearest_real_distance", "nearest_synthetic_distance"}
    assert document["summary"]["share_auc_above_0.8"] > 0.7 and "not private" in document["summary"]["verdict"]


@pytest.mark.slow
def test_the_dp_generator_at_epsilon_1_never_exceeds_its_epsilon(adult):
    # 32 models, about 16 with each record: a perfect attack would show ε ≥ 1.5, so the bound has room to
    # exceed 1; a bound above 1 would mean the audit or the DP generator is wrong.
    real, schema = adult
    report = audit_shared(real, None, schema, stronger=False, settings=SharedSettings(models=32, records=150, seed=2),
                          make=GeneratorFactory("dp_marginals", {"epsilon": 1.0}))
    bounds = [r.epsilon_lower_bound for r in report.records]
    assert all(b is not None and b <= 1.0 for b in bounds), max(bounds)


@pytest.mark.slow
def test_a_unique_category_is_named_in_the_why(adult):
    real, schema = adult
    report = run(real, schema, "independent_histograms", models=32, records=300, seed=0)
    pool = real.iloc[[r.row for r in report.records]]
    counts = pool["native-country"].map(pool["native-country"].value_counts())
    unique = [r for r, c in zip(report.records, counts) if c == 1]
    assert unique, "the pool should hold a record with a unique native-country"
    named = [r for r in unique if r.why and "native-country =" in r.why]
    assert named, [(r.row, r.auc, r.why) for r in unique]
    assert "never otherwise" in named[0].why and "the only such person" in named[0].why
    assert np.mean([r.auc for r in unique]) > 0.6


@pytest.mark.slow
def test_one_and_two_workers_give_the_same_json(adult):
    real, schema = adult
    progress = []
    one = run(real.iloc[:400], schema, "independent_histograms", models=8, records=120, workers=1)
    two = audit_shared(real.iloc[:400], None, schema, stronger=False, settings=SharedSettings(models=8, records=120),
                       make=GeneratorFactory("independent_histograms"), workers=2,
                       progress=lambda f, m: progress.append(f))
    assert strip(one.to_dict()) == strip(two.to_dict())
    assert progress[-1] == 1.0 and progress == sorted(progress)


@pytest.mark.slow
def test_the_targeted_design_agrees_on_the_same_targets(adult):
    # Same generator, same people: the targeted audit's AUC of each target lies within the shared design's
    # interval for it, widened by the targeted interval (two estimates of one quantity, each uncertain).
    real, schema = adult
    targeted = audit(real, None, schema, make=lambda population: GeneratorFactory("exact_copy")(population),
                     settings=AuditSettings(targets=2, random_targets=1, shadow_models=6, eval_models=10,
                                            n_queries=20, seed=0))
    shared = run(real, schema, "exact_copy", models=32, records=1000)
    by_row = {r.row: r for r in shared.records}
    for target in targeted.targets:
        mine = by_row[target.row]
        assert mine.auc_interval[0] - 0.1 <= target.auc <= mine.auc_interval[1] + 0.1 or \
            target.auc_interval[0] <= mine.auc <= target.auc_interval[1], (target.row, target.auc, mine.auc)


@pytest.mark.slow
def test_cli_shared_design_writes_json_and_html(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "privcore", "audit", "--demo", "exact_copy", "--generator",
                           "exact_copy", "--design", "shared", "--models", "8", "--records", "60", "--json",
                           str(tmp_path / "out.json"), "--html", str(tmp_path / "out.html")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    document = json.loads((tmp_path / "out.json").read_text())
    assert document["design"] == "shared" and document["settings"]["models"] == 8
    assert len(document["records"]) == 60 and "verdict" in document["summary"]
    verdict = document["summary"]["verdict"]  # the generator in words; its machine name stays in "generator"
    assert "Exact copy (worst case)" in verdict and "exact_copy" not in verdict
    assert document["generator"] == "exact_copy" and document["generator_label"] == "Exact copy (worst case)"
    assert {"row", "auc", "auc_interval", "tpr_at", "epsilon_lower_bound", "why"} <= set(document["records"][0])
    page = (tmp_path / "out.html").read_text()
    assert "Shared-model membership audit: Exact copy (worst case)</h1>" in page and "<script" not in page
    # Each attack per trained model: today's, RMIA and the meta-classifier (the CLI runs them by default).
    section = page[page.index("<h2>Per trained model</h2>"):]
    section = section[:section.index("</table>")]
    assert section.count("<tr><td class=why>") == 3 and "Today&#x27;s attack" in section and "RMIA" in section
    assert document["per_model"]["summary"]["models_scored"] == 8
    bad = subprocess.run([sys.executable, "-m", "privcore", "audit", "--demo", "exact_copy", "--generator",
                          "exact_copy", "--design", "shared", "--models", "3"], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and "Models (audit.models) must be between 8 and 1000; got 3" in bad.stderr


def test_each_model_gets_its_fits_seed_for_a_seeded_generator():
    # privbayes takes its noise and structure choices from a seed setting: one fixed seed in every model
    # would de-randomise it, so the fit's seed wins over the settings' one.
    factory = GeneratorFactory("privbayes", {"epsilon": 1.0, "seed": 4})
    assert factory.takes_seed() and factory(None, seed=fit_seed(0, 3)).seed == fit_seed(0, 3)
    assert factory(None).seed == 4
    assert not GeneratorFactory("dp_marginals").takes_seed()
    assert GeneratorFactory("dp_marginals", {"epsilon": 2.0})(None, seed=7).epsilon == 2.0


@pytest.mark.slow
def test_privbayes_at_epsilon_1_with_a_public_domain_never_exceeds_its_epsilon(adult):
    real, schema = adult
    report = audit_shared(real, None, schema, stronger=False, settings=SharedSettings(models=32, records=150, seed=2),
                          make=GeneratorFactory("privbayes", {"epsilon": 1.0}))
    bounds = [r.epsilon_lower_bound for r in report.records]
    assert all(b is not None and b <= 1.0 for b in bounds), max(bounds)


@pytest.mark.slow
def test_a_domain_read_from_the_training_data_is_caught(adult):
    # The same ε = 1 network with its categories read from the training table: a native-country held by
    # one person exists in the output only when that person trained it, and the audit's bound shows more
    # than ε = 1 for them.
    from privcore.generators import make_generator

    real, schema = adult
    report = audit_shared(real, None, schema, stronger=False, settings=SharedSettings(models=32, records=150, seed=2),
                          make=lambda population: make_generator("privbayes", epsilon=1.0))
    worst = max(report.records, key=lambda r: r.epsilon_lower_bound or 0.0)
    assert worst.epsilon_lower_bound > 1.0 and "never otherwise" in worst.why, (worst.epsilon_lower_bound, worst.why)


@pytest.mark.slow
def test_the_targeted_design_agrees_with_an_imperfect_leak(adult):
    # independent_histograms leaks rare values, so some people are exposed and most are not: an imperfect
    # leak. On the same targets and seed, the two designs' AUCs are two noisy estimates of one quantity:
    # most targets agree within the two intervals' combined half-widths, and neither design is
    # systematically higher. Half the table is audited, so that rows a generator draws from its population
    # are never audited records (as in the targeted design).
    real, schema = adult
    make = GeneratorFactory("independent_histograms")
    targeted = audit(real, None, schema, make=make,
                     settings=AuditSettings(targets=6, random_targets=3, shadow_models=30, eval_models=40,
                                            n_queries=20, seed=0))
    shared = audit_shared(real, None, schema, stronger=False,
                          settings=SharedSettings(models=64, records=500, seed=0), make=make)
    by_row = {r.row: r for r in shared.records}
    pairs = [(t, by_row[t.row]) for t in targeted.targets
             if t.row in by_row and t.auc is not None and by_row[t.row].auc is not None]
    assert len(pairs) >= 5, len(pairs)

    def half_width(interval):
        return (interval[1] - interval[0]) / 2

    agree = [abs(t.auc - s.auc) <= np.hypot(half_width(t.auc_interval), half_width(s.auc_interval))
             for t, s in pairs]
    detail = [(t.row, round(t.auc, 3), round(s.auc, 3)) for t, s in pairs]
    assert np.mean(agree) >= 0.75, detail
    assert abs(np.mean([t.auc - s.auc for t, s in pairs])) < 0.1, detail
    assert max(s.auc for _, s in pairs) > 0.65, detail  # someone is exposed: not a comparison of two nulls


def test_the_value_reuse_feature_is_the_attacks_score_against_the_pool(adult):
    # The shared audit reads the value-reuse attack's own function (issue 43), rarity read from the pool.
    from privcore.audit.features import SharedFeatures
    from privcore.engine.encoding import EuclideanSpace
    from privcore.metrics.membership import value_reuse

    real, schema = adult
    real = real.dropna().reset_index(drop=True)  # as prepared (missing = "drop"): categories are all text
    pool, output = real.iloc[:60].reset_index(drop=True), real.iloc[30:90].reset_index(drop=True)
    space = EuclideanSpace(real, [], schema)
    extractor = SharedFeatures(real, pool, schema, space, np.ones((2, len(schema.columns)), dtype=int))
    features = extractor.features(output)
    assert extractor.names[extractor.value_reuse_index] == "value reuse"
    assert extractor.value_reuse_index == features.shape[1] - 1
    expected = value_reuse(pool, output, pool, list(schema.columns)).scores
    assert features[:, extractor.value_reuse_index] == pytest.approx(expected)
    # Records 30..59 are in the output: every one of their values is reused, so on average they outscore the others.
    assert features[30:, extractor.value_reuse_index].mean() > features[:30, extractor.value_reuse_index].mean() + 1


@pytest.mark.slow
def test_a_reused_unique_number_is_caught_and_named_in_the_why(adult):
    # A generator that writes training records' exact weights into fresh rows (the lab's value_reuse leak): the
    # audit exposes the records and its sentence names the reused number.
    from privcore.generators import make_generator

    real, schema = adult
    real = real.assign(fnlwgt=np.random.default_rng(43).integers(10_000, 1_500_000, len(real)))
    schema = Schema(types={**schema.types, "fnlwgt": "numerical"}, key=list(schema.key_columns),
                    sensitive=schema.sensitive)
    report = audit_shared(real, None, schema, stronger=False, settings=SharedSettings(models=32, records=150, seed=0),
                          make=lambda population: make_generator("value_reuse", level=1.0, population=population))
    aucs = np.array([r.auc for r in report.records if r.auc is not None])
    assert np.median(aucs) > 0.9, np.quantile(aucs, [0.1, 0.5, 0.9])
    named = [r.why for r in report.records if r.why and "fnlwgt =" in r.why]
    assert len(named) > 100 and "never otherwise" in named[0], named[:2]


@pytest.mark.slow
def test_the_verdict_cites_the_utility_of_one_output(adult):
    """Issue 37: the audit's answer weighs usefulness too, measured on one output against the records its model
    never saw. Independent histograms (every column drawn on its own) keep every column's shape and none of the
    relations between them."""
    real, schema = adult
    report = run(real.iloc[:400], schema, "independent_histograms", models=8, records=100, seed=2)
    utility = report.summary["utility"]
    assert utility["measures"]["utility_shapes"] > 0.9 and utility["measures"]["utility_pairs"] < 0.5
    assert 0.0 <= utility["relative"] <= 1.0
    assert "of what a fresh sample of real people keeps" in report.summary["verdict"]
    assert "the relations between columns" in report.summary["verdict"]
    import jsonschema

    from privcore.audit.contract import audit_report_schema

    document = json.loads(json.dumps(report.to_dict(), allow_nan=False))
    schema_doc = {"$defs": {"audit_report": audit_report_schema()}, "$ref": "#/$defs/audit_report"}
    jsonschema.Draft202012Validator(schema_doc).validate(document)
