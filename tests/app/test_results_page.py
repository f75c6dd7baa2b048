"""Results page: guards, the run button, score cards and charts, cached results, every metric's detail."""

from __future__ import annotations

import html

import pytest

from dashboard.session.state import LoadedTable, Tables
from privcore import Schema
from privcore.demo import load_scenario
from privcore.evaluation import interpret as R
from privcore.metrics import registry

from .conftest import assert_no_exception, assert_points_to_the_data_page, open_page, people, texts

RESULTS = "pages/4_Results.py"
RUN_TIMEOUT = 120


def seed_demo(at, *, metrics=None, holdout=True):
    """Session state as the Data, Configure and Metrics pages leave it, with the noisy-copy demo."""
    demo = load_scenario("noisy_copy", n=300)
    at.session_state["tables"] = Tables(
        real=LoadedTable.from_frame("real", demo.real),
        synthetic={"noisy": LoadedTable.from_frame("noisy", demo.synthetic)},
        holdout=LoadedTable.from_frame("holdout", demo.holdout) if holdout else None,
    )
    at.session_state["schema"] = Schema(types=demo.types, key=demo.key, sensitive=demo.sensitive)
    at.session_state["selected_metrics"] = registry.presets()["quick"] if metrics is None else metrics
    return at


@pytest.fixture(scope="module")
def ran():
    """The page after clicking Run once (shared by the tests that only read it)."""
    at = seed_demo(open_page(RESULTS)).run()
    assert_no_exception(at)
    at.button(key="run_evaluation").click().run(timeout=RUN_TIMEOUT)
    return at


def test_deep_link_without_data_points_to_the_data_page():
    at = open_page(RESULTS).run()
    assert_points_to_the_data_page(at)
    assert not at.button


def test_without_a_schema_points_to_the_configure_page():
    at = seed_demo(open_page(RESULTS))
    at.session_state["schema"] = None
    at.run()
    assert_no_exception(at)
    assert [link.value for link in at.main.page_link] == ["Go to the Configure page"]


def test_nothing_runs_until_the_button_is_pressed():
    at = seed_demo(open_page(RESULTS)).run()
    assert_no_exception(at)
    assert not at.button(key="run_evaluation").disabled
    assert "Run evaluation" in texts(at.info)
    assert not at.get("plotly_chart") and not at.session_state["results"]


def test_run_is_disabled_without_metrics():
    at = seed_demo(open_page(RESULTS), metrics=[]).run()
    assert_no_exception(at)
    assert at.button(key="run_evaluation").disabled
    assert "No metric is selected" in texts(at.warning)
    assert "Choose metrics" in [link.value for link in at.page_link]


def show_tab(at, label: str):
    """Switch the Results page's stateful tabs (only the open tab's content is computed)."""
    at.session_state["results_tab"] = label
    return at.run(timeout=RUN_TIMEOUT)


@pytest.mark.slow
def test_run_produces_score_cards_charts_and_downloads(ran):
    assert_no_exception(ran)
    assert not ran.error
    results = ran.session_state["results"]
    assert len(results) == 1
    key = ran.session_state["last_run_key"]
    reports = results[key]
    assert list(reports) == ["noisy"]
    report = reports["noisy"]
    # One metric count everywhere: HidR cannot run without a pairing, nor the reproduced-identifiers check without an
    # identifier column, so both are left out with a note.
    assert set(report) == set(registry.presets()["quick"]) - {"hidr", "reproduced_identifiers"}
    # (14 privacy metrics and the two cheap utility measures of the quick preset, issue 37.)
    assert "17 metric(s)" not in texts(ran.markdown) and "16 metric(s)" in texts(ran.markdown)
    assert "Left out of the count and of the run" in texts(ran.caption) and "Hidden Rate" in texts(ran.caption)
    assert [t.label for t in ran.tabs] == ["Score cards", "Side by side", "Privacy and utility", "Membership",
                                           "Reconstruction", "Metric in detail", "Record explorer", "Downloads"]
    show_tab(ran, "Score cards")
    body = texts(ran.markdown)
    for metric_id, result in report.items():
        assert f"<strong>{html.escape(registry.get(metric_id).name)}</strong>" in body  # one card per metric
        if result.risk is not None:  # the card leads with the excess and its level; the raw risk comes second
            a = R.assess(metric_id, result)
            assert f"Risk {result.risk:.3f}" in texts(ran.caption)
            assert (a.excess_text in body and a.against in body) or "Cannot tell on this data" in body
    assert "Risk level:" in body and "Not applicable" not in body  # HidR without pairing: not run, not shown
    assert "Simulation-based metrics" in texts(ran.subheader)

    show_tab(ran, "Side by side")
    assert_no_exception(ran)
    charts = ran.get("plotly_chart")
    assert len(charts) == 1 and charts[0].proto.alt
    assert len(ran.dataframe[0].value) == len(report)

    show_tab(ran, "Metric in detail")
    assert_no_exception(ran)
    body = texts(ran.markdown)
    assert "Is this person" in body and "Is the dataset shareable?" in body and "Does this metric apply here?" in body
    assert "What this score means" in body
    assert ran.get("plotly_chart") and all(c.proto.alt for c in ran.get("plotly_chart"))

    show_tab(ran, "Record explorer")
    assert_no_exception(ran)
    assert "Metrics disagree" in texts(ran.markdown)
    assert len(ran.get("plotly_chart")) == 2  # flag counts and the overlap heatmap

    show_tab(ran, "Downloads")
    assert_no_exception(ran)
    labels = [b.label for b in ran.get("download_button")]
    assert "JSON for “noisy”" in labels and "Self-contained HTML report" in labels


def test_results_are_cached_per_session(ran):
    key = ran.session_state["last_run_key"]
    before = ran.session_state["results"][key]
    ran.button(key="run_evaluation").click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(ran)
    assert ran.session_state["results"][key] is before  # reused, not recomputed


@pytest.mark.slow
def test_every_metric_detail_renders(ran):
    key = ran.session_state["last_run_key"]
    report = ran.session_state["results"][key]["noisy"]
    show_tab(ran, "Metric in detail")
    for metric_id in report:
        ran.selectbox(key=f"metric::{key}::noisy").set_value(metric_id).run(timeout=RUN_TIMEOUT)
        assert_no_exception(ran)
        assert ran.selectbox(key=f"metric::{key}::noisy").value == metric_id
        assert ran.get("plotly_chart")
        if registry.is_utility(registry.get(metric_id)):  # issue 37: the three questions rephrased for utility
            body = texts(ran.markdown)
            assert "What does the synthetic table lose most?" in body and "Is the table useful for this?" in body
            assert "Does this measure apply here?" in body and "Worked computation for real row" not in body
        elif report[metric_id].applicable:
            assert "Worked computation for real row" in texts(ran.markdown)
    ran.selectbox(key=f"metric::{key}::noisy").set_value("crp").run(timeout=RUN_TIMEOUT)
    ran.number_input(key=f"record::{key}::noisy").set_value(0).run(timeout=RUN_TIMEOUT)
    assert_no_exception(ran)
    assert "Worked computation for real row 0" in texts(ran.markdown)
    show_tab(ran, "Record explorer")
    assert "Real row 0" in texts(ran.markdown)


@pytest.mark.slow
def test_two_synthetic_tables_and_attack_metrics():
    attacks = ["crp", "singling_out_univariate", "linkability", "inference", "mia_distance", "sd_idr", "dcr_test"]
    at = seed_demo(open_page(RESULTS), metrics=[m for m in attacks if m in registry.metric_ids()])
    other = load_scenario("column_resampler", n=300)
    tables = at.session_state["tables"]
    tables.synthetic["resampled"] = LoadedTable.from_frame("resampled", other.synthetic)
    at.run()
    at.button(key="run_evaluation").click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    key = at.session_state["last_run_key"]
    assert list(at.session_state["results"][key]) == ["noisy", "resampled"]
    show_tab(at, "Side by side")
    frame = at.dataframe[0].value
    assert {"noisy: risk", "resampled: risk"} <= set(frame.columns)
    show_tab(at, "Metric in detail")
    at.selectbox(key=f"table::{key}").set_value("resampled").run(timeout=RUN_TIMEOUT)
    for metric_id in at.session_state["results"][key]["resampled"]:
        at.selectbox(key=f"metric::{key}::resampled").set_value(metric_id).run(timeout=RUN_TIMEOUT)
        assert_no_exception(at)
        assert at.get("plotly_chart")
    show_tab(at, "Downloads")
    assert "JSON for all tables" in [b.label for b in at.get("download_button")]


def test_a_refused_distance_space_is_explained_in_the_detail_and_explorer(monkeypatch):
    # CRP runs without a distance space; the FAMD map and the nearest-record table need one, and an
    # identifier-like column can make it too large. The page must explain that, not fail.
    import privcore.engine.encoding

    monkeypatch.setattr(privcore.engine.encoding, "MAX_ENCODED_BYTES", 1000)
    monkeypatch.setenv("PRIVCORE_DASHBOARD_WORKERS", "0")  # the patch exists in this process only
    at = open_page(RESULTS)
    real = people(40, seed=1).assign(id=[f"p{i}" for i in range(40)])
    at.session_state["tables"] = Tables(real=LoadedTable.from_frame("real", real),
                                        synthetic={"copy": LoadedTable.from_frame("copy", real.copy())})
    at.session_state["schema"] = Schema(types={"age": "numerical", "job": "categorical", "id": "categorical"})
    at.session_state["selected_metrics"] = ["crp"]
    at.run()
    at.button(key="run_evaluation").click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    show_tab(at, "Metric in detail")
    assert_no_exception(at)
    assert "'id'" in "\n".join(c.proto.alt for c in at.get("plotly_chart"))
    show_tab(at, "Record explorer")
    assert_no_exception(at)
    assert "'id'" in texts(at.info)


def test_a_real_table_emptied_by_dropping_missing_numbers_is_explained():
    at = open_page(RESULTS)
    real = people(40, seed=1).astype({"age": float}).assign(height=170.0)
    real.loc[::2, "age"] = None  # every row misses one of the two numbers
    real.loc[1::2, "height"] = None
    synthetic = people(40, seed=2).assign(height=160.0)
    at.session_state["tables"] = Tables(real=LoadedTable.from_frame("real.csv", real),
                                        synthetic={"synth": LoadedTable.from_frame("synth", synthetic)})
    at.session_state["schema"] = Schema(types={"age": "numerical", "height": "numerical", "job": "categorical"})
    at.session_state["selected_metrics"] = ["crp"]
    at.run()
    at.button(key="run_evaluation").click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    assert "median imputation" in texts(at.error)


def test_the_answer_heads_the_results_with_its_rule_and_links_to_the_cards():
    at = seed_demo(open_page(RESULTS), metrics=["crp", "cvp", "singling_out_univariate", "mia_distance"]).run()
    at.button(key="run_evaluation").click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    assert "The answer" in [h.value for h in at.subheader]
    shown = texts(at.markdown)
    assert any(word in shown for word in ("Do not release", "Release with caution", "Release"))
    assert "#card-" in shown  # each piece of evidence links to its score card
    assert "Do not release when an attack" in shown  # the rule is shown in words
    # Changing a threshold changes the answer: nothing exceeds an excess of 1.
    at.number_input(key="verdict_rule::decisive_at").set_value(1.0).run(timeout=RUN_TIMEOUT)
    at.number_input(key="verdict_rule::caution_at").set_value(1.0).run(timeout=RUN_TIMEOUT)
    at.number_input(key="verdict_rule::supporting_at").set_value(1.0).run(timeout=RUN_TIMEOUT)
    at.number_input(key="verdict_rule::similarity_at").set_value(1.0).run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    assert "Release: no attack does better" in texts(at.markdown)


def test_a_metric_that_cannot_tell_says_so_on_its_card_and_is_not_among_the_flaggers(ran):
    # On the demo a fresh sample scores the maximum on DVP too: its card must not say "Low" beside 1.000.
    report = ran.session_state["results"][ran.session_state["last_run_key"]]["noisy"]
    assert report["dvp"].risk == pytest.approx(1.0) and report["dvp"].baseline == pytest.approx(1.0)
    show_tab(ran, "Score cards")
    body = texts(ran.markdown)
    card = body[body.index("<strong>Distant Value Probability (DVP)"):]
    card = card[:card.index("<strong>", 10)]
    assert "Cannot tell on this data" in card and "Low" not in card
    assert "a fresh sample of real people scores 1.000 too" in body  # the reason, visible on the card
    show_tab(ran, "Record explorer")
    assert "DVP" not in R.record_flags(report).columns
    assert "cannot tell on this data" in texts(ran.caption)
