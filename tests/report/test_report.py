"""Reading results: levels, the three questions, record flags, JSON and the self-contained HTML report."""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest

from privcore import Schema, evaluate
from privcore.demo import load_scenario
from privcore.evaluation import interpret as R
from privcore.evaluation.outcome import combined_json
from privcore.metrics import registry
from privcore.metrics.names import metric_name, short_name
from privcore.metrics.results import MetricOutput, MetricResult
from privcore.report import html as H

QUICK = ["crp", "cvp", "dcr", "auth", "hitr", "zcap", "mia_distance", "singling_out_univariate", "hidr"]


def _evaluate(name: str, n: int = 200, metrics=QUICK):
    demo = load_scenario(name, n=n)
    schema = Schema(types=demo.types, key=demo.key, sensitive=demo.sensitive)
    ids = [m for m in metrics if m in registry.metric_ids()]
    return evaluate(demo.real, demo.synthetic, schema, metrics=ids, holdout=demo.holdout)


@pytest.fixture(scope="module")
def copy():
    return _evaluate("exact_copy")


@pytest.fixture(scope="module")
def fresh():
    return _evaluate("fresh_sample")


def test_json_round_trip(copy, fresh):
    doc = json.loads(copy.to_json())
    assert doc == json.loads(json.dumps(copy.to_dict()))
    assert set(doc["metrics"]) == set(copy)
    combined = json.loads(combined_json({"copy": copy, "fresh": fresh}, settings={"seed": 0}))
    assert set(combined["tables"]) == {"copy", "fresh"}
    assert combined["tables"]["copy"] == doc
    assert combined["settings"] == {"seed": 0}


def test_levels_separate_a_copy_from_a_fresh_sample(copy, fresh):
    assert R.assess("crp", copy["crp"]).level.key == "high"
    assert R.assess("crp", fresh["crp"]).level.key == "low"
    na = R.assess("hidr", copy["hidr"])  # no pairing in the demo
    assert not na.applicable and na.level.key == "na" and na.reason
    for level in R.LEVELS.values():  # never colour alone
        assert level.word and level.icon and level.colour


def test_reference_is_the_baseline_or_the_chance_level():
    with_baseline = MetricResult(id="auth", applicable=True, risk=0.7, baseline=0.6)
    a = R.assess("auth", with_baseline)
    assert a.reference == 0.6 and a.adjusted == pytest.approx(0.1) and a.level.key == "moderate"
    chance = R.assess("auth", MetricResult(id="auth", applicable=True, risk=0.52))
    assert chance.reference == 0.5 and chance.level.key == "low"
    zero = R.assess("crp", MetricResult(id="crp", applicable=True, risk=0.3))
    assert zero.reference == 0.0 and zero.level.key == "high"


def test_dataset_shareable_follows_the_threshold(copy):
    result = copy["crp"]
    assert R.dataset_shareable("crp", result, threshold=0.1).verdict == "no"
    assert R.dataset_shareable("crp", result, threshold=1.0).verdict == "yes"
    uncertain = MetricResult(id="x", applicable=True, risk=0.05, interval=(0.0, 0.3))
    assert R.dataset_shareable("x", uncertain, threshold=0.1).verdict == "caveats"
    assert R.default_threshold("sd_idr") == 0.09 and R.default_threshold("crp") == R.DEFAULT_THRESHOLD
    assert "0.1" in R.THRESHOLD_REASON and "0.09" in R.THRESHOLD_REASON


def test_person_at_risk_uses_the_metrics_own_values(copy, fresh):
    row = int(np.flatnonzero(copy["crp"].per_record == 1)[0])
    assert R.person_at_risk(copy, "crp", row).word == "At risk"
    not_copied = int(np.flatnonzero(fresh["crp"].per_record == 0)[0])
    assert R.person_at_risk(fresh, "crp", not_copied).word == "Not flagged"
    assert R.person_at_risk(copy, "hidr", 0).verdict == "unknown"
    # an exact copy sits at distance 0: DCR's per-record risk 1 exceeds what a fresh sample gives
    assert R.person_at_risk(copy, "dcr", row).word == "At risk"


def test_metric_applies_checks_assumptions(copy):
    crp = R.metric_applies(copy, "crp")
    assert any("Exact matching" in c.text and "age" in c.text for c in crp.checks)
    assert crp.verdict == "caveats"
    hidr = R.metric_applies(copy, "hidr")
    assert hidr.verdict == "no" and "pairing" in hidr.checks[0].text
    dcr = R.metric_applies(copy, "dcr")
    assert any("FAMD projection keeps" in c.text for c in dcr.checks)


def test_record_flags_and_disagreements(copy, fresh):
    flags = R.record_flags(copy)
    assert len(flags) == copy.rows["real"]
    assert flags.dtypes.map(lambda d: d == bool).all()
    assert flags[short_name("crp")].sum() == int(copy["crp"].per_record.sum())
    patterns = R.disagreements(R.record_flags(fresh))
    some = R.record_flags(fresh)
    mixed = (some.any(axis=1) & ~some.all(axis=1)).sum()
    assert patterns["records"].sum() == mixed
    row = R.riskiest_record(copy)
    assert 0 <= row < copy.rows["real"] and flags.iloc[row].sum() == flags.sum(axis=1).max()


def test_flag_rule_for_membership_scores():
    from privcore.metrics.details import MembershipScores

    details = MembershipScores(
        auc=1.0, advantage=1.0, roc_fpr=np.r_[0.0, 1.0], roc_tpr=np.r_[1.0, 1.0], tpr_at={}, n_boot=0, confidence=0.95,
        auc_interval=None, advantage_interval=None, tpr_at_interval={}, n_members=10, n_nonmembers=100,
        per_record_meaning="attack score", member_scores=np.arange(10.0), nonmember_scores=np.zeros(100))
    result = MetricResult(id="m", applicable=True, risk=0.5, per_record=np.arange(10.0), details=details)
    rule = R.flag_rule(result)
    assert rule.apply(result.per_record).sum() == 9  # every member scored above all non-members
    continuous = MetricResult(id="c", applicable=True, risk=0.5, per_record=np.array([0.9, 0.9, 0.3]),
                              baseline_output=MetricOutput(risk=0.5, per_record=np.array([0.95, 0.95, 0.1])))
    # a fresh sample puts people at 0.95 anyway: 0.9 is not unusual
    assert R.flag_rule(continuous).apply(continuous.per_record).tolist() == [False, False, False]
    continuous.baseline_output.per_record = np.array([0.5, 0.2, 0.1])
    assert R.flag_rule(continuous).apply(continuous.per_record).tolist() == [True, True, False]


def test_worked_computation_and_nearest_records_share_the_computation(copy):
    per_record, constants = R.worked_computation(copy, "cvp", 3)
    assert per_record.iloc[0, 1] == R._plain(copy["cvp"].per_record[3])
    assert "threshold" in set(constants["quantity"])
    passes = list(copy.shared.passes)
    table = R.nearest_records(copy, 3, "E")
    assert copy.shared.passes.count(("E", "real", "synthetic")) == 1  # read from the shared cache
    assert len(copy.shared.passes) - len(passes) <= 1  # at most the real→real pass was added
    assert "distance 0)" in table.columns[1]  # an exact copy's twin


@pytest.mark.slow
def test_html_report_is_self_contained_and_complete(copy, fresh):
    page = H.html_report({"exact copy": copy, "fresh": fresh}, settings={"metrics": QUICK})
    assert page.startswith("<!DOCTYPE html>")
    # nothing fetched: no remote scripts, styles or fonts
    assert not re.search(r"<script[^>]+src=", page)
    assert "<link" not in page and "@import" not in page
    assert not re.search(r"url\(\s*['\"]?https?://", page)
    # no HTML element loads anything remote (the inline plotly.js bundle mentions URLs only for map traces,
    # which no figure here uses)
    assert not re.search(r"<(script|img|iframe|link|source|embed|object)\b[^>]*\b(src|href|data)\s*=\s*['\"]?https?://",
                         page, flags=re.I)
    assert "fonts.googleapis" not in page and "fonts.gstatic" not in page
    # plotly.js inline exactly once
    assert page.count("Plotly.newPlot") >= 2
    assert len(re.findall(r"\* plotly\.js v\d", page)) == 1
    for report in (copy, fresh):
        for metric_id, result in report.items():
            assert html.escape(metric_name(metric_id)) in page
            if result.risk is not None:
                assert f"{result.risk:.3f}" in page
            else:
                assert html.escape(result.reason) in page
    info = registry.get("crp")
    assert html.escape(info.explanation.blind_spots) in page
    assert "Is the dataset shareable?" in page and "Does this metric apply here?" in page


def test_html_report_without_figures_is_small(copy):
    page = H.html_report({"copy": copy}, include_figures=False)
    assert "Plotly" not in page and len(page) < 200_000
