"""The metric lab (privcore.lab): runs, statistics, named errors, JSON contract and the ``lab`` command."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

from privcore import lab
from privcore.base.errors import InputError, TooFewRowsError
from privcore.cli.main import main
from privcore.data.schema import Schema
from privcore.demo import load_scenario
from privcore.lab.statistics import agreement, auc, detection_level, false_alarm_bound, rises, separated, spearman
from privcore.metrics import registry
from privcore.report.json_schema import DRAFT, report_schema

REPO = Path(__file__).resolve().parents[2]
DISTANCE = ("dcr", "cvp", "dcr_test", "mia_distance")
METRICS = ("crp", *DISTANCE)


@pytest.fixture(scope="module")
def adult():
    demo = load_scenario("fresh_sample", n=400)
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)
    return demo.real, demo.holdout, schema


@pytest.fixture(scope="module")
def small_lab(adult):
    real, holdout, schema = adult
    calls = []
    result = lab.run(real, schema, holdout=holdout, leaks="partial_copy,column_resample", levels=(0, 0.5, 1),
                     seeds=3, metrics=METRICS, seed=0, progress=lambda done, total, message: calls.append((done, total)))
    return result, calls


def _validate(document):
    schema = report_schema()
    jsonschema.Draft202012Validator({"$schema": DRAFT, "$defs": schema["$defs"],
                                     "$ref": "#/$defs/lab_report"}).validate(document)


# ---------------------------------------------------------------------------------------------------
# what the issue asks the statistics to show
# ---------------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_level_zero_has_no_excess_risk_within_the_seed_spread(small_lab):
    result, _ = small_lab
    for metric in METRICS:
        for leak in ("partial_copy", "column_resample"):
            zero = result.curves[metric][leak][0]
            assert zero.level == 0 and zero.runs == 3
            assert abs(zero.excess_mean) <= 3 * zero.risk_sd + 0.02, (metric, leak, zero)
            assert not zero.separated and zero.auc == 0.5  # level 0 of these leak types is the reference itself


@pytest.mark.slow
def test_partial_copy_at_full_strength_is_detected_by_copy_and_distance_metrics(small_lab):
    result, _ = small_lab
    for metric in METRICS:
        top = result.curves[metric]["partial_copy"][-1]
        assert top.level == 1 and top.separated and top.auc == 1.0, (metric, top)
        assert result.detection[metric]["partial_copy"] is not None
        assert result.monotonicity[metric]["partial_copy"] > 0.8
    assert "partial copies from" in result.summary["dcr"]


def test_negative_control_does_not_raise_distance_metrics_beyond_seed_noise(small_lab):
    result, _ = small_lab
    for metric in DISTANCE:
        assert result.detection[metric]["column_resample"] is None, metric
        reference = [r.risk for r in result.runs if r.metric == metric and r.leak == lab.REFERENCE]
        for point in result.curves[metric]["column_resample"]:
            assert point.risk_mean <= max(reference) + result.settings["margin"], (metric, point)
        assert "negative control (per-column resampling) leaves it quiet" in result.summary[metric]


def test_runs_baselines_and_reference(small_lab, adult):
    result, calls = small_lab
    assert len(result.runs) == (1 + 2 * 3) * 3 * len(METRICS)  # reference + 2 leaks × 3 levels, 3 seeds
    assert {r.seed for r in result.runs} == {0, 1, 2}
    # the level-0 tables of partial_copy and column_resample are the fresh reference: evaluated once
    assert result.settings["evaluations"] == lab.evaluations_needed(["partial_copy", "column_resample"], [0, .5, 1], 3)
    assert result.settings["repeated_tables"] == 6
    rows = result.settings["rows"]
    assert rows == {"training": 400, "holdout": 133, "population": 267, "synthetic": 133}
    assert result.settings["baseline_source"] == {"crp": "holdout", "dcr": "holdout", "cvp": "holdout",
                                                  "dcr_test": "fresh_sample", "mia_distance": "fresh_sample"}
    fresh = {(r.metric, r.seed): r.risk for r in result.runs if r.leak == lab.REFERENCE}
    for r in result.runs:
        if r.metric in ("dcr_test", "mia_distance"):
            assert r.baseline == fresh[(r.metric, r.seed)]
    assert calls[0] == (0, 21) and calls[-1] == (21, 21)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
    assert set(result.agreement) == set(METRICS) and result.agreement["crp"]["crp"] == 1.0


def test_json_validates_against_the_schema_and_has_the_contract_keys(small_lab):
    result, _ = small_lab
    document = json.loads(result.to_json())
    _validate(document)
    assert {"runs", "detection", "agreement", "summary"} <= set(document)
    assert set(document["runs"][0]) == {"leak", "level", "seed", "metric", "risk", "baseline"}
    assert document["detection"]["crp"]["partial_copy"] in (0.5, 1.0)
    assert set(document["summary"]) == set(METRICS)


def test_dp_marginals_runs_carry_epsilon_and_level_zero_is_compared_with_fresh_samples(adult):
    real, holdout, schema = adult
    result = lab.run(real, schema, holdout=holdout, leaks=["dp_marginals"], levels=[1], seeds=1, metrics="crp")
    document = json.loads(result.to_json())
    _validate(document)
    epsilons = {run["level"]: run["epsilon"] for run in document["runs"] if run["leak"] == "dp_marginals"}
    assert epsilons == {0.0: pytest.approx(0.1), 1.0: "inf"}
    assert all("epsilon" not in run for run in document["runs"] if run["leak"] != "dp_marginals")
    assert [p["epsilon"] for p in document["curves"]["crp"]["dp_marginals"]] == [pytest.approx(0.1), "inf"]
    assert result.settings["reference"] == "fresh_sample at level 0"


@pytest.mark.slow
def test_seeded_runs_are_reproducible_and_sharing_passes_changes_nothing(adult):
    real, holdout, schema = adult
    settings = dict(leaks="partial_copy", levels=(0, 1), seeds=2, metrics="crp,dcr", seed=7)
    first = lab.run(real, schema, holdout=holdout, **settings).to_dict()
    again = lab.run(real, schema, holdout=holdout, share_passes=False, **settings).to_dict()
    other = lab.run(real, schema, holdout=holdout, **{**settings, "seed": 8}).to_dict()
    for doc in (first, again, other):
        doc["settings"].pop("seconds")
        doc["settings"].pop("shared_passes")
    assert first == again
    assert [r["seed"] for r in first["runs"][:2]] == [7, 7] and first["settings"]["run_seeds"] == [7, 8]
    assert [r["risk"] for r in first["runs"]] != [r["risk"] for r in other["runs"]]


def test_holdout_is_split_off_the_real_table_when_none_is_given(adult):
    real, holdout, schema = adult
    table = pd.concat([real, holdout], ignore_index=True).iloc[:300]
    training, evaluation, population = lab.split_tables(table, None, 0)
    assert (len(training), len(evaluation), len(population)) == (150, 50, 100)
    result = lab.run(table, schema, leaks="partial_copy", levels=[1], seeds=1, metrics="crp")
    assert result.settings["rows"] == {"training": 150, "holdout": 50, "population": 100, "synthetic": 50}
    assert result.detection["crp"]["partial_copy"] == 1.0


def test_supplied_ladder(adult):
    real, holdout, schema = adult
    fresh = holdout.iloc[:100].reset_index(drop=True)
    tables = {0.1: [fresh, holdout.iloc[100:200].reset_index(drop=True)],
              5: [real.iloc[:100].reset_index(drop=True), real.iloc[100:200].reset_index(drop=True)]}
    result = lab.run_ladder(real, tables, schema, holdout=holdout.iloc[200:], metrics="crp,dcr", name="epsilon")
    _validate(json.loads(result.to_json()))
    assert result.detection == {"crp": {"epsilon": 5.0}, "dcr": {"epsilon": 5.0}}
    assert result.settings["reference"] == "label 0.1"
    assert {(r.level, r.seed) for r in result.runs} == {(0.1, 0), (0.1, 1), (5.0, 0), (5.0, 1)}
    assert "the epsilon ladder from label 5" in result.summary["crp"]
    with pytest.raises(lab.LevelError, match="two or more"):
        lab.run_ladder(real, {1: fresh}, schema)
    with pytest.raises(lab.LevelError, match="not a finite number"):
        lab.run_ladder(real, {float("nan"): fresh, 1: fresh}, schema)


def test_missing_numbers_in_the_holdout_only(adult):
    real, holdout, schema = adult
    holdout = holdout.copy()
    holdout.loc[::13, "hours-per-week"] = np.nan  # training has none: fresh rows bring them in
    result = lab.run(real, schema, holdout=holdout, leaks="partial_copy", levels=[1], seeds=1, metrics="crp,dcr")
    assert result.detection == {"crp": {"partial_copy": 1.0}, "dcr": {"partial_copy": 1.0}} and not result.errors


def test_metric_that_cannot_run_is_explained(adult):
    real, holdout, schema = adult
    result = lab.run(real, schema, holdout=holdout, leaks="partial_copy", levels=[1], seeds=1, metrics="crp,hidr")
    assert "pairing" in result.not_applicable["hidr"]
    assert result.summary["hidr"].startswith("HidR did not run here: needs a pairing")
    assert result.detection["hidr"] == {"partial_copy": None}


# ---------------------------------------------------------------------------------------------------
# named errors
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("settings, error, fragment", [
    ({"leaks": "partial_copy,nope"}, lab.UnknownLeakError, "nope"),
    ({"leaks": []}, lab.UnknownLeakError, "No leak type"),
    ({"levels": (0, 1.5)}, lab.LevelError, "1.5"),
    ({"levels": (0, -0.1)}, lab.LevelError, "from 0"),
    ({"levels": (0,)}, lab.LevelError, "above 0"),
    ({"levels": ("x",)}, lab.LevelError, r"Leak levels \(lab.levels\): every value must be a number from 0 to 1.*'x' is not\."),
    ({"seeds": 0}, lab.SeedsError, "got 0"),
    ({"seeds": 2.5}, lab.SeedsError, "whole number"),
    ({"metrics": "crp,nope"}, lab.UnknownLabMetricError, "nope"),
    ({"margin": 2}, lab.LabError, "margin"),
    ({"seed": -1}, lab.LabError, "seed"),
])
def test_bad_settings_raise_named_errors(adult, settings, error, fragment):
    real, holdout, schema = adult
    with pytest.raises(error, match=fragment) as caught:
        lab.run(real, schema, holdout=holdout, **settings)
    assert isinstance(caught.value, InputError)


def test_attribute_leak_needs_a_sensitive_column(adult):
    real, holdout, schema = adult
    with pytest.raises(lab.LabError, match="--sensitive"):
        lab.run(real, schema.with_changes(sensitive=None), holdout=holdout, leaks="attribute_leak")


def test_tables_too_small_for_a_split(adult):
    real, holdout, schema = adult
    with pytest.raises(lab.LabTableTooSmallError, match="119 rows.*at least 120") as caught:
        lab.run(real.iloc[:119], schema)
    assert isinstance(caught.value, TooFewRowsError)
    with pytest.raises(lab.LabTableTooSmallError, match="59 rows"):
        lab.run(real, schema, holdout=holdout.iloc[:59])


def test_default_metrics_are_the_issue_s_set():
    quick = [m for m in registry.REVIEW_METRICS if not registry.get(m).uses_classifier]
    assert len(quick) == 15
    assert list(lab.DEFAULT_METRICS) == quick + ["singling_out_univariate", "singling_out_multivariate",
                                                 "inference", "mia_distance"]


# ---------------------------------------------------------------------------------------------------
# statistics
# ---------------------------------------------------------------------------------------------------
def test_statistics_rules():
    assert separated([0.3, 0.4, 0.5], [0.1, 0.2, 0.25])
    assert not separated([0.3, 0.26, 0.5], [0.1, 0.2, 0.25], margin=0.01)
    assert not separated([], [0.1]) and not separated([0.5], [])
    assert detection_level([0, 0.25, 0.5, 1], [False, False, True, True]) == 0.5
    assert detection_level([0, 0.5, 1], [False, True, False]) is None
    assert auc([1, 2, 3], [0, 0, 0]) == 1.0 and auc([1], [1]) == 0.5 and auc([], [1]) is None
    assert spearman([0, 1, 2, 3], [3, 2, 1, 0]) == -1.0 and spearman([1, 2], [1, 2]) is None
    assert rises([0.3, 0.5, 0.6], [0.1, 0.2, 0.35]) and not rises([0.3, 0.5, 0.6], [0.1, 0.2, 0.25])
    assert not rises([0.205, 0.206, 0.207], [0.2, 0.201, 0.202])  # consistent but smaller than the margin
    assert false_alarm_bound(3) == pytest.approx(0.05) and false_alarm_bound(2) == pytest.approx(1 / 6)
    # the separation rule's chance pass rate under no effect is the bound (3 seeds each side)
    rng = np.random.default_rng(0)
    passes = np.mean([separated(rng.random(3), rng.random(3), margin=0) for _ in range(20000)])
    assert passes == pytest.approx(0.05, abs=0.006)
    runs = [lab.LabRun("a", level, 0, metric, risk, None) for level, x in ((0, 0.1), (0.5, 0.4), (1, 0.9))
            for metric, risk in (("m", x), ("n", 1 - x), ("k", 0.5))]
    rho = agreement(runs, ["m", "n", "k"], ["a"])
    assert rho["m"]["n"] == -1.0 and rho["m"]["m"] == 1.0 and rho["m"]["k"] is None


def test_summary_sentences():
    from privcore.lab.summary import metric_sentence, short_name

    grid = {leak: [0, 0.5, 1] for leak in ("partial_copy", "noisy_copy", "dp_marginals", "column_resample")}
    sentence = metric_sentence("Distance to Closest Record (DCR)", {"partial_copy": 0.5, "noisy_copy": 0.0,
                               "dp_marginals": None, "column_resample": 1.0}, grid)
    assert sentence == ("DCR notices partial copies from level 0.5 and noisy copies already at level 0 (noise of one σ); "
                        "it never notices DP marginals up to level 1; the negative control (per-column resampling) "
                        "raises it from level 1, though no training row is kept together there, only single values.")
    noisy = metric_sentence("Singling out (univariate, Anonymeter)", {"partial_copy": None, "noisy_copy": None},
                            grid, rising=["partial_copy"])
    assert noisy == ("Singling out (univariate, Anonymeter) rises with partial copies at level 1, but not beyond seed "
                     "noise; it never notices noisy copies up to level 1.")
    assert metric_sentence("x", {"dp_marginals": 0.5}, grid) == "x notices DP marginals from level 0.5 (ε = 3.16)."
    assert short_name("Authenticity (Auth)") == "Auth"
    assert short_name("Attribute inference (Anonymeter)") == "Attribute inference (Anonymeter)"


# ---------------------------------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_cli_happy_path_writes_json_and_html(adult, tmp_path):
    real, holdout, _ = adult
    real.to_csv(tmp_path / "real.csv", index=False)
    holdout.iloc[:150].to_csv(tmp_path / "holdout.csv", index=False)
    proc = subprocess.run(
        [sys.executable, "-m", "privcore", "lab", "--real", "real.csv", "--holdout", "holdout.csv",
         "--sensitive", "income", "--leaks", "partial_copy", "--levels", "0,1", "--seeds", "2",
         "--metrics", "crp,dcr", "--json", "lab.json", "--html", "lab.html"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    document = json.loads((tmp_path / "lab.json").read_text())
    _validate(document)
    assert document["detection"]["crp"] == {"partial_copy": 1.0}
    assert document["settings"]["real"] == "real.csv" and document["settings"]["seeds"] == 2
    page = (tmp_path / "lab.html").read_text()
    # self-contained: plotly.js inline once, nothing loaded from elsewhere
    assert not re.search(r"<(script|img|iframe|link|source|embed|object)\b[^>]*\b(src|href|data)\s*=", page, flags=re.I)
    assert len(re.findall(r"\* plotly\.js v\d", page)) == 1
    assert "Detection level" in page and "partial copies" in page
    for caption in ("Which metric notices which leak", "How far the metrics agree", "Risk against leak level"):
        assert caption in page


@pytest.mark.parametrize("args, fragment", [
    (["--leaks", "nope"], "nope"),
    (["--levels", "0,1.5"], "1.5"),
    (["--levels", "0,x"], "every value must be a number from 0 to 1"),
    (["--seeds", "0"], "got 0"),
    (["--seeds", "two"], "two"),
    (["--metrics", "nope"], "nope"),
    (["--margin", "-1"], "margin"),
    (["--ladder", "x=table.csv"], "LABEL=FILE"),
    (["--ladder", "1=table.csv", "--seeds", "2"], "--seeds"),
    (["--json", "no/such/folder/out.json"], "does not exist"),
])
def test_cli_bad_settings_exit_2_with_one_line_before_reading_tables(capsys, args, fragment):
    code = main(["lab", "--real", "does-not-exist.csv", *args])
    err = capsys.readouterr().err
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and fragment in lines[0], err


def test_cli_table_too_small_exits_2(capsys, adult, tmp_path):
    real, _, _ = adult
    real.iloc[:50].to_csv(tmp_path / "real.csv", index=False)
    code = main(["lab", "--real", str(tmp_path / "real.csv"), "--sensitive", "income", "--metrics", "crp"])
    err = capsys.readouterr().err
    assert code == 2 and "at least 120" in err and len(err.strip().splitlines()) == 1
