"""Score cards lead with the excess over the reference and its level; a metric that cannot tell says so (issue 23)."""

from __future__ import annotations

import pytest

from privcore import Schema, evaluate
from privcore.demo import load_scenario
from privcore.evaluation import interpret as R
from privcore.evaluation.verdict import verdict
from privcore.report.html import html_report


@pytest.fixture(scope="module")
def report():
    d = load_scenario("noisy_copy", n=300)
    schema = Schema(types=dict(d.types), key=list(d.key), sensitive=d.sensitive)
    return evaluate(d.real, d.synthetic, schema, metrics=["dvp", "cvp", "crp", "mdcr"], holdout=d.holdout)


def test_a_metric_whose_fresh_sample_scores_the_maximum_cannot_tell(report):
    a = R.assess("dvp", report["dvp"])
    assert report["dvp"].risk == pytest.approx(1.0) and report["dvp"].baseline == pytest.approx(1.0)
    assert a.level.key == "cannot_tell" and a.level.word == "Cannot tell on this data"
    assert "scores 1.000 too" in a.cannot_tell and "cannot tell a leak from no leak" in a.cannot_tell
    assert R.dataset_shareable("dvp", report["dvp"]).word == "Cannot tell"
    assert R.person_at_risk(report, "dvp", 0).word == "Cannot tell"
    assert R.assess("cvp", report["cvp"]).cannot_tell is None


def test_it_flags_no_one_in_the_disagreement_panel_and_is_named_apart(report):
    flags = R.record_flags(report)
    assert "DVP" not in flags.columns and "CVP" in flags.columns
    assert list(R.cannot_tell_metrics(report)) == ["dvp"]


def test_the_verdict_counts_it_as_not_tested_rather_than_as_reassurance(report):
    v = verdict(report)
    assert all(e.metric != "dvp" for e in v.evidence)
    assert any(line.startswith("Distant Value Probability (DVP): A fresh sample") for line in v.not_tested)


def test_cards_lead_with_the_excess_and_what_it_is_measured_against(report):
    a = R.assess("cvp", report["cvp"])
    assert a.excess_text == f"{a.risk - a.baseline:+.3f}" and a.against.startswith("above a fresh sample")
    chance = R.assess("mdcr", report["mdcr"])
    assert chance.against.startswith("above a fresh sample")  # the baseline wins over the chance level


def test_the_html_report_follows_the_same_card_logic(report):
    page = html_report({"noisy": report}, include_figures=False)
    dvp = page[page.index("Distant Value Probability (DVP) <span"):]
    dvp = dvp[:dvp.index('<div class="card')]
    assert "Cannot tell on this data" in dvp and "✓ Low" not in dvp
    a = R.assess("cvp", report["cvp"])
    assert f"<strong>{a.excess_text}</strong> {a.against}" in page
