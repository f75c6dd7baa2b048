"""Compare-metrics page: guard, settings with their named errors, the estimate, a tiny lab, the supplied ladder."""

from __future__ import annotations

import json

import jsonschema
import pytest

from privcore.demo import load_scenario
from privcore.lab import DEFAULT_METRICS
from privcore.report.json_schema import DRAFT, report_schema

from .conftest import assert_no_exception, assert_points_to_the_data_page, csv_bytes, open_page, seed_session, texts
from .test_results_page import seed_demo

PAGE = "pages/7_Compare_metrics.py"
RUN_TIMEOUT = 120
TINY_METRICS = ["crp", "dcr"]


def key(*parts):
    return "lab::" + "::".join(parts)


def tiny_settings(at, *, levels="0, 1", seeds=2, metrics=TINY_METRICS):
    at.text_input(key=key("levels")).set_value(levels)
    at.number_input(key=key("seeds")).set_value(seeds)
    at.multiselect(key=key("metrics")).set_value(metrics)
    return at.run(timeout=RUN_TIMEOUT)


def validate(document):
    schema = report_schema()
    jsonschema.Draft202012Validator({"$schema": DRAFT, "$defs": schema["$defs"],
                                     "$ref": "#/$defs/lab_report"}).validate(document)


@pytest.fixture(scope="module")
def ran():
    """The page after a tiny generated lab on the demo (2 leak types × levels 0, 1 × 2 seeds, CRP and DCR)."""
    at = tiny_settings(seed_demo(open_page(PAGE)).run(timeout=RUN_TIMEOUT))
    assert_no_exception(at)
    at.button(key=key("run")).click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    return at


def test_without_data_it_says_how_to_load_some():
    at = open_page(PAGE).run()
    assert_points_to_the_data_page(at)
    assert not at.button


def test_with_the_demo_it_starts_small_and_shows_an_estimate_before_running():
    at = seed_demo(open_page(PAGE)).run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    assert at.multiselect(key=key("leaks")).value == ["partial_copy", "rare_records"]
    assert at.text_input(key=key("levels")).value == "0, 0.5, 1" and at.number_input(key=key("seeds")).value == 2
    assert at.multiselect(key=key("metrics")).value == ["crp", "dcr", "dcr_test", "mia_distance",
                                                       "singling_out_univariate"]
    info = texts(at.info)
    # 1 fresh table + 2 per leak type (levels 0.5 and 1; level 0 is the fresh table), for 2 seeds
    assert "Estimated run time" in info and "for 10 evaluations" in info and "an estimate" in info
    assert not at.button(key=key("run")).disabled and not at.get("plotly_chart")
    assert at.session_state["lab_timings"]  # measured once, kept for this session


@pytest.mark.slow
def test_the_full_default_preset_sets_every_leak_level_and_default_metric():
    at = seed_demo(open_page(PAGE)).run(timeout=RUN_TIMEOUT)
    at.button(key=key("preset", "full")).click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    assert len(at.multiselect(key=key("leaks")).value) == 7
    assert at.text_input(key=key("levels")).value == "0, 0.25, 0.5, 0.75, 1"
    assert at.multiselect(key=key("metrics")).value == list(DEFAULT_METRICS)
    assert "for 93 evaluations" in texts(at.info)


@pytest.mark.slow
def test_a_tiny_lab_shows_both_heatmaps_curves_sentences_and_downloads(ran):
    assert not ran.error
    charts = ran.get("plotly_chart")
    assert len(charts) == 4
    alts = [c.proto.alt for c in charts]
    assert alts[0].startswith("Heatmap of 2 metrics by 2 leak type(s)")
    assert alts[1].startswith("Small multiples of risk") and alts[2].startswith("Heatmap of Spearman")
    # The privacy–utility frontier (issue 37): the lab measured column shapes and pair trends on every table.
    assert alts[3].startswith("Privacy–utility frontier (utility_shapes, utility_pairs)")
    assert "Privacy and utility across the levels" in texts(ran.subheader)
    captions = texts(ran.caption)
    assert "not detected" in captions and "how alike two metrics rank" in captions
    assert "evaluated with 2 metric(s)" in captions and "estimated beforehand" in captions
    body = texts(ran.markdown)
    assert "CRP notices partial copies from level 1" in body
    downloads = ran.get("download_button")
    assert [d.proto.label for d in downloads] == ["Download the lab (JSON)", "Self-contained HTML page"]
    (stored,) = ran.session_state["lab_results"].values()
    validate(json.loads(json.dumps(stored.document)))
    assert stored.document["settings"]["real"] == "real" and stored.document["settings"]["holdout"] == "holdout"
    assert stored.document["detection"]["crp"]["partial_copy"] == 1.0


@pytest.mark.slow
def test_switching_the_curves_to_excess_risk_reuses_the_lab(ran):
    before = dict(ran.session_state["lab_results"])
    ran.radio(key=next(r.key for r in ran.radio if r.key.startswith(key("curves")))).set_value("excess")
    ran.run(timeout=RUN_TIMEOUT)
    assert_no_exception(ran)
    assert all(ran.session_state["lab_results"][k] is v for k, v in before.items())
    assert ran.get("plotly_chart")[1].proto.alt.startswith("Small multiples of excess risk")


@pytest.mark.parametrize("change, message", [
    ({"levels": "0, 1.5"}, "Leak levels (lab.levels): every value must be a number from 0 to 1"),
    ({"levels": "0, x"}, "every value must be a number from 0 to 1"),
    ({"levels": "0"}, "Give at least one leak level above 0"),
    ({"leaks": []}, "No leak type chosen"),
    ({"metrics": []}, "No metric chosen"),
])
def test_bad_settings_show_the_named_error_and_nothing_runs(change, message):
    at = seed_demo(open_page(PAGE)).run(timeout=RUN_TIMEOUT)
    for name, value in change.items():
        widget = at.text_input(key=key(name)) if name == "levels" else at.multiselect(key=key(name))
        widget.set_value(value)
    at.run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    assert message in texts(at.error)
    assert at.button(key=key("run")).disabled and "Estimated run time" not in texts(at.info)


@pytest.mark.slow
def test_a_table_too_small_to_split_is_a_named_error():
    at = open_page(PAGE)
    seed_session(at, schema=False)  # 40 rows, no holdout
    at.run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    assert "too few to split off a holdout" in texts(at.error)
    assert at.button(key=key("run")).disabled


@pytest.mark.slow
def test_a_supplied_ladder_of_uploaded_tables_runs_with_labels_from_the_file_names():
    at = seed_demo(open_page(PAGE)).run(timeout=RUN_TIMEOUT)
    at.radio(key=key("mode")).set_value("supplied").run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    assert "two or more different labels" in texts(at.error)  # nothing uploaded yet
    demo = load_scenario("noisy_copy", n=300)
    fresh = demo.holdout.iloc[:150]
    copy = demo.real.iloc[:150]
    at.file_uploader(key=key("ladder_upload")).set_value([
        ("gen_eps0.1.csv", csv_bytes(fresh), "text/csv"), ("gen_eps10.csv", csv_bytes(copy), "text/csv")])
    at.run(timeout=RUN_TIMEOUT)
    at.multiselect(key=key("metrics")).set_value(["crp"]).run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    assert not at.error
    assert [at.number_input(key=key("label", name)).value for name in ("gen_eps0.1", "gen_eps10")] == [0.1, 10.0]
    assert "for 2 evaluations" in texts(at.info)
    at.button(key=key("run")).click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    alts = [c.proto.alt for c in at.get("plotly_chart")]
    assert alts[0].startswith("Heatmap of 1 metrics by 1 leak type(s)")
    (stored,) = at.session_state["lab_results"].values()
    assert stored.document["settings"]["kind"] == "supplied" and stored.document["detection"]["crp"] == {
        "uploaded": 10.0}
    # the same label twice leaves one label: a named error, and the stored tables survive the rerun
    at.number_input(key=key("label", "gen_eps10")).set_value(0.1).run(timeout=RUN_TIMEOUT)
    assert "give them different labels" in texts(at.error)
    assert [e.name for e in at.session_state["lab_ladder"]] == ["gen_eps0.1", "gen_eps10"]
    at.button(key=key("remove", "gen_eps10")).click().run(timeout=RUN_TIMEOUT)
    assert [e.name for e in at.session_state["lab_ladder"]] == ["gen_eps0.1"]
