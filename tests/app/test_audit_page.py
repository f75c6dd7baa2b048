"""Audit page, targeted design (chosen explicitly: the shared design is the default, see
test_shared_audit_page.py): guard, generator and budget inputs, the run with its verdict, figure, tables and
download."""

from __future__ import annotations

import json

import pytest

from privcore.data.schema import Schema

from .conftest import assert_no_exception, assert_points_to_the_data_page, open_page, seed_session, texts
from .test_results_page import seed_demo

AUDIT = "pages/6_Audit.py"
RUN_TIMEOUT = 120
TINY = {"targets": 1, "random_targets": 1, "shadow_models": 4, "eval_models": 4}


def targeted(at):
    """Choose the targeted design (shadow models per target); the page opens on the shared one."""
    at.radio(key="audit::design").set_value("targeted").run()
    assert_no_exception(at)
    return at


def set_budget(at, **values):
    for name, value in values.items():
        at.number_input(key=f"audit::budget::{name}").set_value(value)
    return at


def tiny_audit(at, generator: str = "exact_copy"):
    """Choose the targeted design, ``generator`` and the tiny budget, then press Run audit."""
    targeted(at)
    at.selectbox(key="audit::generator").set_value(generator)
    set_budget(at, **TINY).run()
    assert_no_exception(at)
    at.button(key="run_audit").click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    return at


@pytest.fixture(scope="module")
def ran():
    return tiny_audit(seed_demo(open_page(AUDIT)).run())


def test_without_data_it_says_how_to_load_some():
    at = open_page(AUDIT).run()
    assert_points_to_the_data_page(at)
    assert not at.button


@pytest.mark.slow
def test_before_a_run_it_shows_the_choices_and_an_estimate():
    at = seed_demo(open_page(AUDIT)).run()
    assert_no_exception(at)
    options = at.selectbox(key="audit::generator").options  # names in words
    assert options[:3] == ["Exact copy (worst case)", "Fresh real sample (the null)", "Independent histograms"]
    assert "Differentially private marginals" in options
    assert "Estimated run time" in texts(at.info) and "Run audit" in texts(at.info)
    assert not at.button(key="run_audit").disabled and not at.get("plotly_chart")
    targeted(at)
    info = texts(at.info)  # measured on the table: the targeted budget's fits and one fit's time
    assert "Estimated run time" in info and "for 1,200 generator fits on this table, on 1 worker" in info
    assert "(measured: one fit on 60 rows of your table took" in info  # m: half of the 120 auxiliary rows
    at.selectbox(key="audit::generator").set_value("dp_marginals").run()
    labels = [w.label for w in at.number_input]
    assert "Privacy budget ε" in labels and "Leak strength" in labels


@pytest.mark.slow
def test_a_tiny_audit_shows_verdict_numbers_figure_table_and_download(ran):
    assert not ran.exception and not ran.warning
    # An exact copy exposes everyone: the verdict is shown as an error, in words, naming it by its label.
    assert "Exact copy (worst case) is not private" in texts(ran.error) and "exact_copy" not in texts(ran.error)
    assert [m.label for m in ran.metric][:2] == ["Targets with AUC above 0.6", "Targets with AUC above 0.8"]
    assert ran.metric[0].value == "100%"
    body = texts(ran.markdown)
    assert "The proxy says" in body and "The attack says" in body
    charts = ran.get("plotly_chart")
    assert len(charts) == 1 and charts[0].proto.alt.startswith("Dot plot")
    targets, person = ran.dataframe[0].value, ran.dataframe[1].value
    assert list(targets["chosen"]) == ["vulnerable", "random"] and targets["AUC"].min() >= 0.9
    assert len(person) == 1 and int(person.index[0]) in set(targets["real row"])
    downloads = ran.get("download_button")
    assert len(downloads) == 1 and "JSON" in downloads[0].proto.label
    report = next(iter(ran.session_state["audit_results"].values()))
    assert json.loads(json.dumps(report.to_dict()))["summary"]["share_auc_above_0.8"] == 1.0


@pytest.mark.slow
def test_a_rerun_reuses_the_audit_and_another_target_shows_its_record(ran):
    results = ran.session_state["audit_results"]
    before = dict(results)
    pick = ran.selectbox(key=next(s.key for s in ran.selectbox if s.key.startswith("audit-target::")))
    first = int(ran.dataframe[1].value.index[0])
    pick.select_index(1).run(timeout=RUN_TIMEOUT)
    assert_no_exception(ran)
    assert dict(ran.session_state["audit_results"]) == before
    assert all(ran.session_state["audit_results"][k] is v for k, v in before.items())
    assert "Exact copy (worst case) is not private" in texts(ran.error)
    row = int(ran.dataframe[1].value.index[0])
    assert row != first and row in set(ran.dataframe[0].value["real row"])


@pytest.mark.slow
def test_no_target_at_all_is_a_named_error_and_nothing_runs():
    at = set_budget(targeted(seed_demo(open_page(AUDIT)).run()), targets=0, random_targets=0).run()
    assert_no_exception(at)
    assert "needs at least one target" in texts(at.error)
    assert at.button(key="run_audit").disabled


@pytest.mark.slow
def test_a_clash_of_generator_settings_is_a_named_error():
    at = seed_demo(open_page(AUDIT)).run()
    at.selectbox(key="audit::generator").set_value("dp_marginals").run()
    at.number_input(key="audit::setting::dp_marginals::epsilon").set_value(2.0)
    at.number_input(key="audit::setting::dp_marginals::level").set_value(0.5).run()
    assert_no_exception(at)
    assert "give epsilon or level, not both" in texts(at.error)
    assert at.button(key="run_audit").disabled


@pytest.mark.slow
def test_too_few_rows_is_a_named_error_not_a_traceback():
    at = open_page(AUDIT)
    seed_session(at, schema=False)  # 40 rows, no schema: the types are inferred
    at = set_budget(targeted(at.run()), **TINY).run()
    assert_no_exception(at)
    # Said before any run: timing the generator on the table meets the audit's own error, so it cannot start.
    assert "too few to split" in texts(at.error) and not at.get("plotly_chart")
    assert at.button(key="run_audit").disabled and "Estimated run time" not in texts(at.info)
    assert "inferred" in texts(at.caption)


def test_without_a_sensitive_column_attribute_leak_is_explained():
    at = seed_demo(open_page(AUDIT))
    at.session_state["schema"] = Schema(types=dict(at.session_state["schema"].types))
    at.run()
    assert_no_exception(at)
    assert "attribute_leak" not in at.selectbox(key="audit::generator").options
    assert "attribute_leak" in texts(at.caption) and "sensitive column" in texts(at.caption)


@pytest.mark.slow
def test_a_column_list_setting_is_a_choice_of_columns():
    at = seed_demo(open_page(AUDIT)).run()
    at.selectbox(key="audit::generator").set_value("cart").run()
    assert_no_exception(at)
    order = at.multiselect(key="audit::setting::cart::column_order")
    assert order.label == "Column order" and order.value == []
    order.set_value(list(reversed(order.options))).run()
    assert_no_exception(at)
    assert not at.error and not at.button(key="run_audit").disabled


@pytest.mark.slow
def test_the_estimate_is_measured_once_per_choice_and_again_for_another():
    at = targeted(seed_demo(open_page(AUDIT)).run())
    estimates = at.session_state["audit_estimates"]
    first = dict(estimates)
    assert len(first) == 2  # the shared design's on opening, then the targeted one's
    at.run()
    assert_no_exception(at)
    assert all(at.session_state["audit_estimates"][k] is v for k, v in first.items()) and \
        len(at.session_state["audit_estimates"]) == 2  # a rerun reuses them
    set_budget(at, shadow_models=10).run()
    assert_no_exception(at)
    assert len(at.session_state["audit_estimates"]) == 3
    assert "for 400 generator fits on this table" in texts(at.info)  # 10 targets × (2 × 10 + 20)
