"""The custodian's answer (privcore.evaluation.verdict; issue 11 item 6): attacks decide, proxies support."""

from __future__ import annotations

import json

import pytest

from privcore import Schema, evaluate
from privcore.demo import load_scenario
from privcore.evaluation.verdict import CAUTION, DO_NOT_RELEASE, RELEASE, VerdictRule, verdict
from privcore.metrics import registry
from privcore.report.html import html_report

QUICK_ATTACKS = ["singling_out_univariate", "linkability", "inference", "mia_distance", "mia_calibrated"]
PROXIES = ["crp", "cvp", "dcr", "nndr", "dcr_test"]


def run(name, metrics, holdout=True, n=600):
    d = load_scenario(name, n=n)
    schema = Schema(types=dict(d.types), key=list(d.key), sensitive=d.sensitive)
    params = {m: {"n_boot": 200} for m in metrics if m.startswith("mia_")}
    return evaluate(d.real, d.synthetic, schema, metrics=metrics, holdout=d.holdout if holdout else None,
                    params=params)


@pytest.fixture(scope="module")
def copy_report():
    return run("exact_copy", QUICK_ATTACKS + PROXIES)


@pytest.fixture(scope="module")
def fresh_report():
    return run("fresh_sample", QUICK_ATTACKS + PROXIES)


def test_an_exact_copy_is_not_to_be_released_and_says_why(copy_report):
    v = verdict(copy_report)
    assert v.level == DO_NOT_RELEASE
    assert len(v.evidence) == 3 and all(e.weight == "decisive" for e in v.evidence)
    assert all(e.pushes_to == DO_NOT_RELEASE for e in v.evidence)
    assert "beyond chance" in v.evidence[0].text


def test_a_fresh_sample_of_real_people_may_be_released(fresh_report):
    v = verdict(fresh_report)
    assert v.level == RELEASE, [e.text for e in v.evidence]
    assert "bounds only the attacks that ran" in v.headline


def test_proxies_alone_never_say_do_not_release():
    report = run("exact_copy", PROXIES)  # every proxy screams, but no attack ran
    v = verdict(report)
    assert v.level == CAUTION
    assert any("No attack" in line for line in v.not_tested)
    assert all(e.weight == "supporting" for e in v.evidence)


def test_without_a_holdout_membership_inference_is_listed_as_not_tested():
    report = run("exact_copy", ["singling_out_univariate", "mia_distance", "crp"], holdout=False)
    v = verdict(report)
    assert any("membership" in line.lower() for line in v.not_tested)
    assert any(line.startswith("Membership inference: distance") for line in v.not_tested)


def test_the_thresholds_are_the_rule(copy_report, fresh_report):
    # Nothing can exceed an excess of 1: with that threshold an exact copy is "only" a caution.
    lenient = VerdictRule(decisive_at=1.0, caution_at=0.05, supporting_at=0.1)
    assert verdict(copy_report, lenient).level == CAUTION
    # A negative threshold alone does not make a fresh sample a reason for caution: an attack's estimate moves the
    # answer only beyond chance, and so does a member-versus-non-member proxy (the DCR test), beyond what it gives
    # with its two groups relabelled at random (issue 60). The supporting threshold still rules a proxy that is
    # beyond chance: the DCR test of an exact copy cautions under the default rule, not under a threshold of 1.
    assert verdict(fresh_report, VerdictRule(supporting_at=-1.0)).level == RELEASE
    assert verdict(fresh_report, VerdictRule(caution_at=-1.0)).level == RELEASE
    proxy = run("exact_copy", ["dcr_test"])
    assert verdict(proxy).evidence[0].pushes_to == CAUTION
    assert verdict(proxy, VerdictRule(supporting_at=1.0)).evidence[0].pushes_to == RELEASE
    assert "0.10" in VerdictRule().describe()[0]


def test_the_verdict_heads_the_json_and_html_reports(copy_report):
    document = json.loads(copy_report.to_json())
    assert list(document)[0] == "verdict" and document["verdict"]["level"] == DO_NOT_RELEASE
    assert document["verdict"]["rule"]["decisive_at"] == 0.1
    lenient = json.loads(copy_report.to_json(rule=VerdictRule(decisive_at=1.0)))
    assert lenient["verdict"]["level"] == CAUTION
    page = html_report({"copy": copy_report}, include_figures=False)
    assert page.index("The answer") < page.index("All metrics side by side")
    assert "Do not release" in page and "How the answer is reached" in page


def test_every_registered_family_is_either_decisive_or_supporting():
    from privcore.evaluation.verdict import DECISIVE_FAMILIES

    assert set(DECISIVE_FAMILIES) <= set(registry.FAMILIES)


@pytest.mark.slow
def test_the_strongest_attack_stands_for_the_battery_when_it_ran():
    # Issue 14: with mia_best in the report, the seven attacks it compares do not count again one by one.
    from privcore.metrics.registry import battery_ids

    metrics = ["mia_distance", "mia_calibrated", "mia_dpi", "mia_best", "crp"]
    with_best = verdict(run("exact_copy", metrics))
    counted = [e.metric for e in with_best.evidence]
    assert counted[0] == "mia_best" and not set(counted) & set(battery_ids())
    assert with_best.level == DO_NOT_RELEASE
    assert "strongest" in with_best.evidence[0].text and "ε below" in with_best.evidence[0].text
    # Without it, the attacks count one by one, as before.
    without = verdict(run("exact_copy", ["mia_distance", "mia_calibrated", "crp"]))
    assert {"mia_distance", "mia_calibrated"} <= {e.metric for e in without.evidence}
    # A mia_best that could not run does not silence the attacks.
    no_holdout_best = run("exact_copy", ["mia_distance", "mia_best"])
    no_holdout_best.results["mia_best"] = type(no_holdout_best["mia_best"])(id="mia_best", applicable=False,
                                                                            reason="test")
    assert "mia_distance" in {e.metric for e in verdict(no_holdout_best).evidence}


@pytest.mark.slow
def test_a_fresh_sample_with_the_strongest_attack_may_be_released():
    v = verdict(run("fresh_sample", ["singling_out_univariate", "mia_best"]))
    best = next(e for e in v.evidence if e.metric == "mia_best")
    assert best.pushes_to == RELEASE and "coin flip" in best.text
