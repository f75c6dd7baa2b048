"""Numbers in the verdict's sentences keep their digits, and an interval below chance is said as such (issue 43)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from privcore import Schema, evaluate
from privcore.demo import load_scenario
from privcore.evaluation.verdict import verdict


@pytest.fixture(scope="module")
def report():
    demo = load_scenario("fresh_sample", n=300)
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive, seed=0)
    return evaluate(demo.real, demo.synthetic, schema, metrics="mia_distance,mia_best", holdout=demo.holdout, seed=0,
                    params={"mia_best": {"n_boot": 100}, "mia_distance": {"n_boot": 100}})


def _with(report, metric_id, **changes):
    result = report[metric_id]
    report.results[metric_id] = replace(result, details=replace(result.details, **changes))
    return report


def _text(report, metric_id):
    return next(e.text for e in verdict(report).evidence if e.metric == metric_id)


def test_a_small_epsilon_bound_keeps_its_digits(report):
    """It read "ε below 0.0" when the bound was 0.04 (printed to one decimal)."""
    kept = report["mia_best"]
    try:
        _with(report, "mia_best", held_out_auc=0.56, held_out_auc_interval=(0.51, 0.61), epsilon_lower_bound=0.04)
        text = _text(report, "mia_best")
        assert "ε below 0.04 could do this" in text and "below 0.0 " not in text
    finally:
        report.results["mia_best"] = kept


def test_an_interval_wholly_below_chance_is_not_called_a_coin_flip(report):
    """AUC 0.460 with interval 0.437–0.487 was worded "no better than a coin flip"."""
    kept = report["mia_best"]
    try:
        _with(report, "mia_best", held_out_auc=0.46, held_out_auc_interval=(0.437, 0.487))
        text = _text(report, "mia_best")
        assert "worse than a coin flip" in text and "whole interval lies below chance" in text
        assert "no better than a coin flip" not in text
    finally:
        report.results["mia_best"] = kept


def test_an_attack_below_chance_on_its_own_is_not_called_a_coin_flip(report):
    kept = dict(report.results)
    try:
        report.results.pop("mia_best")  # without the battery, each attack speaks for itself
        _with(report, "mia_distance", auc=0.46, auc_interval=(0.437, 0.487))
        text = _text(report, "mia_distance")
        assert "worse than a coin flip" in text and "no better than a coin flip" not in text
    finally:
        report.results.clear()
        report.results.update(kept)


def test_the_answer_and_the_membership_tab_write_one_epsilon_bound(report):
    """The answer read "ε below 1.7" where the Membership tab read "below 1.6" (rounded against floored)."""
    from privcore.report.membership_figures import epsilon_sentence

    kept = report["mia_best"]
    try:
        _with(report, "mia_best", held_out_auc=0.89, held_out_auc_interval=(0.87, 0.91), epsilon_lower_bound=1.66)
        answer = _text(report, "mia_best")
        tab = epsilon_sentence(report["mia_best"].details)
        assert "ε below 1.6 could do this" in answer and "ε below 1.6 could let" in tab
        assert "1.7" not in answer and "1.7" not in tab
    finally:
        report.results["mia_best"] = kept
