"""The verdict's utility line (issue 37 item 2): what a table keeps and loses relative to a fresh sample, and the
flag "private because it keeps little"; usefulness never changes the privacy answer."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore import Schema, evaluate
from privcore.demo import load_scenario
from privcore.evaluation.outcome import Report
from privcore.evaluation.utility_line import utility_line
from privcore.evaluation.verdict import DO_NOT_RELEASE, VerdictRule, verdict
from privcore.metrics.results import MetricResult, UtilityScore
from privcore.report.json_schema import report_schema

CHEAP = "utility_shapes,utility_pairs,mia_distance"


def _demo_report(name: str):
    demo = load_scenario(name, n=800)
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive, seed=0)
    return evaluate(demo.real, demo.synthetic, schema, metrics=CHEAP, holdout=demo.holdout, seed=0,
                    params={"mia_distance": {"n_boot": 100}})


@pytest.fixture(scope="module")
def resampler():
    return _demo_report("column_resampler")


def _fake(relatives: dict[str, float | None], scores: dict[str, float] | None = None) -> Report:
    """A report holding only utility results with the given relative scores (no details)."""
    results = {}
    for metric_id, relative in relatives.items():
        score = (scores or {}).get(metric_id, 0.5 if relative is None else min(1.0, relative))
        reference = None if relative is None else 1.0
        results[metric_id] = MetricResult(metric_id, True, scale="utility",
                                          utility=UtilityScore(score, reference, relative))
    return Report(results, {"real": 10, "synthetic": 10, "holdout": 10})


def test_the_column_resampler_is_flagged_and_its_lost_relation_named(resampler):
    v = verdict(resampler)
    assert v.level != DO_NOT_RELEASE  # the privacy answer lets it go out ...
    line = v.utility
    assert line is not None and line.keeps_little  # ... while it keeps little
    assert any(k.startswith("the columns' shapes") for k in line.keeps)
    assert len(line.loses) == 1 and line.loses[0].startswith("the relations between columns")
    assert "most of all the relation between" in line.loses[0]
    assert "Private because it keeps little?" in line.text
    pairs = next(m for m in line.measures if m.metric == "utility_pairs")
    # The share is said as kept: "but only 4% of the relations between columns", never "loses ... (4%)".
    assert f"but only {pairs.relative:.0%} of the relations between columns, losing most of all" in line.text
    assert "loses the relations" not in line.text
    assert pairs.relative is not None and pairs.relative <= 0.5


def test_the_json_holds_the_utility_line_and_validates(resampler):
    document = json.loads(resampler.to_json())
    utility = document["verdict"]["utility"]
    assert utility["keeps_little"] is True and {m["metric"] for m in utility["measures"]} == {
        "utility_shapes", "utility_pairs"}
    assert document["verdict"]["rule"]["keeps_little_below"] == 0.5
    jsonschema.Draft202012Validator(report_schema()).validate(document)


def test_the_noisy_copy_still_answers_do_not_release_and_is_not_flagged():
    v = verdict(_demo_report("noisy_copy"))
    assert v.level == DO_NOT_RELEASE
    assert v.utility is not None and not v.utility.keeps_little  # a table that fails on privacy is not "private"
    assert v.utility.relative is not None and v.utility.relative > 0.8


def test_thresholds_are_adjustable(resampler):
    lenient = verdict(resampler, VerdictRule(keeps_little_below=0.01, useful_at=0.01))
    assert not lenient.utility.keeps_little and not lenient.utility.loses
    assert verdict(resampler).level == lenient.level  # utility never moves the privacy answer


def test_hand_computed_overall_caps_each_measure_at_one():
    line = utility_line(_fake({"utility_shapes": 1.2, "utility_pairs": 0.4}))
    assert line.relative == pytest.approx((1.0 + 0.4) / 2)
    assert line.keeps_little and line.keeps == ("the columns' shapes (120%)",)
    assert line.loses == ("the relations between columns (40%)",)


def test_without_a_holdout_there_is_no_reference_and_no_flag():
    line = utility_line(_fake({"utility_shapes": None, "utility_pairs": None}, {"utility_pairs": 0.01}))
    assert line.relative is None and not line.keeps_little and "no fresh sample" in line.text


def test_no_utility_measure_no_line():
    assert utility_line(Report({}, {"real": 10, "synthetic": 10, "holdout": None})) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 3.0), min_size=1, max_size=4), st.floats(0.05, 1.0), st.booleans())
def test_overall_in_unit_interval_and_flag_follows_the_weakest_measure(relatives, below, passes):
    ids = ["utility_shapes", "utility_pairs", "utility_mle", "utility_discriminator"][:len(relatives)]
    line = utility_line(_fake(dict(zip(ids, relatives))), keeps_little_below=below, passes_privacy=passes)
    assert 0.0 <= line.relative <= 1.0
    assert line.keeps_little == (passes and min(relatives) < below)
    assert len(line.keeps) + len(line.loses) == len(relatives)
