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


def test_membership_attacks_lead_with_their_auc_the_number_the_answer_quotes():
    # One finding, one number: the card of an attack says its AUC with what 0.5 and 1 mean, as the answer does,
    # never the advantage "+0.611 above zero" beside an answer that says "AUC 0.89".
    d = load_scenario("noisy_copy", n=300)
    report = evaluate(d.real, d.synthetic, Schema(types=dict(d.types)), metrics=["mia_best", "mia_distance"],
                      holdout=d.holdout, params={"mia_best": {"n_boot": 200}, "mia_distance": {"n_boot": 200}}, seed=0)
    best = R.assess("mia_best", report["mia_best"])
    auc = report["mia_best"].details.held_out_auc
    assert best.excess_text == f"AUC {auc:.2f}"
    assert "0.5 = a coin flip" in best.against and "not chosen on" in best.against
    assert f"AUC {auc:.2f}" in " ".join(e.text for e in verdict(report).evidence)
    distance = R.assess("mia_distance", report["mia_distance"])
    assert distance.excess_text == f"AUC {report['mia_distance'].details.auc:.2f}"
    assert "not chosen on" not in distance.against
    assert R.assess("mia_best", report["mia_best"]).level == R.level_of(best.adjusted)  # the level is unchanged
