"""The first answer is the decisive one (issue 23 item 1): the default choice with a holdout runs the membership
attacks, its time is estimated from the tables' sizes, and without a holdout the verdict says what to upload."""

from __future__ import annotations

import json

from privcore import Schema, evaluate
from privcore.demo import load_scenario
from privcore.evaluation.estimate import describe_estimate, estimate_seconds
from privcore.evaluation.evaluate import resolve_metric_ids
from privcore.evaluation.verdict import RUN_MEMBERSHIP, UPLOAD_HOLDOUT, verdict
from privcore.metrics import registry


def test_quick_adds_every_membership_attack_that_needs_the_holdout_and_mia_best():
    without, with_holdout = registry.quick_metrics(holdout=False), registry.quick_metrics(holdout=True)
    assert with_holdout[:len(without)] == without
    added = with_holdout[len(without):]
    assert "mia_best" in added and set(registry.battery_ids()) <= set(added)
    assert all(registry.get(m).family == "Membership inference" and "holdout" in registry.get(m).needs for m in added)
    assert not any(m.startswith("mia_") for m in without)
    assert registry.presets(holdout=True)["quick"] == with_holdout and registry.presets()["quick"] == without


def test_the_quick_preset_follows_the_holdout_in_evaluate_and_on_the_command_line():
    assert resolve_metric_ids("quick", holdout=True) == registry.quick_metrics(holdout=True)
    assert resolve_metric_ids("quick") == registry.quick_metrics(holdout=False)
    assert resolve_metric_ids("all", holdout=True) == registry.metric_ids()  # the CLI's default is unchanged


def test_the_estimate_grows_with_the_tables_and_counts_the_battery_behind_mia_best():
    quick = registry.quick_metrics(holdout=True)
    small, demo, large = (estimate_seconds(quick, n, n, n) for n in (1000, 3000, 12000))
    assert small < demo < large
    # The demo's default run was measured at 9.9 s before the size-matched comparison, which took it 1.47x longer.
    assert 10 < demo < 20
    assert estimate_seconds(["mia_best"], 3000, 3000, 3000) > estimate_seconds(["mia_distance"], 3000, 3000, 3000) + 3
    assert estimate_seconds(quick, 3000, [3000, 3000], 3000) == 2 * demo
    assert all(registry.get(m).cost is not None for m in ("crp", "dcr", "mia_best", "mia_learned"))
    # a metric it was not calibrated on (a new one) still gets a time
    assert estimate_seconds(["not_a_metric"], 3000, 3000, 3000) > 0
    text = describe_estimate(demo, {"real": 3000, "synthetic": [3000], "holdout": 3000})
    assert text.startswith("Estimated time: about 15 seconds") and "3,000 holdout" in text
    # A synthetic table ten times the holdout's size pays the size-matched comparison's ten subsets.
    assert estimate_seconds(quick, 3000, 30000, 3000) > estimate_seconds(quick, 3000, 30000, None) + 10


def _run(name, metrics, holdout):
    d = load_scenario(name, n=300)
    schema = Schema(types=dict(d.types), key=list(d.key), sensitive=d.sensitive)
    return evaluate(d.real, d.synthetic, schema, metrics=metrics, holdout=d.holdout if holdout else None)


def test_without_a_holdout_the_answer_says_in_one_line_what_to_upload():
    v = verdict(_run("noisy_copy", ["crp", "dcr"], holdout=False))
    assert v.next_step == UPLOAD_HOLDOUT and "upload a holdout" in v.next_step and "\n" not in v.next_step
    assert "not used to train the generator" in v.next_step
    assert json.loads(_run("noisy_copy", ["crp"], holdout=False).to_json())["verdict"]["next_step"] == UPLOAD_HOLDOUT


def test_with_a_holdout_but_no_membership_attack_it_says_to_run_them():
    assert verdict(_run("noisy_copy", ["crp", "dcr"], holdout=True)).next_step == RUN_MEMBERSHIP


def test_with_a_membership_attack_there_is_no_next_step():
    report = _run("noisy_copy", ["crp", "mia_distance"], holdout=True)
    assert verdict(report).next_step == ""
    assert json.loads(report.to_json())["verdict"]["next_step"] is None
