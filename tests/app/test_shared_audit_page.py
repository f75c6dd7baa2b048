"""Audit page, shared design (the default): every record at once, its summary in words, the DCR test beside
the attack, the figure, the per-record table, the evidence for the most exposed and the JSON download."""

from __future__ import annotations

import doctest
import json

import pytest

from dashboard.audit import shared_view as SV

from .conftest import assert_no_exception, open_page, texts
from .test_audit_page import AUDIT, RUN_TIMEOUT, targeted
from .test_results_page import seed_demo

TINY = {"models": 8, "records": 40}


def shared_budget(at, **values):
    for name, value in values.items():
        at.number_input(key=f"audit::shared::{name}").set_value(value)
    return at


@pytest.fixture(scope="module")
def ran():
    at = seed_demo(open_page(AUDIT)).run()
    at.selectbox(key="audit::generator").set_value("exact_copy")
    shared_budget(at, **TINY).run()
    assert_no_exception(at)
    stronger = at.checkbox(key="audit::stronger::exact_copy")
    assert not stronger.value and stronger.label == SV.STRONGER_LABEL  # opt-in: it costs a minute at full size
    stronger.check().run()
    assert_no_exception(at)
    at.button(key="run_audit").click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    return at


def test_docstring_examples():
    assert doctest.testmod(SV).failed == 0


@pytest.mark.slow
def test_the_page_opens_on_the_shared_design_with_its_budget():
    at = seed_demo(open_page(AUDIT)).run()
    assert_no_exception(at)
    design = at.radio(key="audit::design")
    assert design.value == "shared" and design.options == list(SV.DESIGNS.values())
    assert at.number_input(key="audit::shared::models").value == 64
    assert at.number_input(key="audit::shared::records").value == 300  # min(1000, the demo's 300 rows)
    assert not [w for w in at.number_input if w.key and w.key.startswith("audit::budget::")]
    info = texts(at.info)  # measured on the table: trial fits on a training set of the audit's size
    assert "Estimated run time" in info and "64 generator fits on 300 records, on 1 worker" in info
    assert "(measured: one fit on " in info and "the attack on every record and the DCR test add" in info
    estimate = next(iter(at.session_state["audit_estimates"].values()))
    assert estimate.models == 64 and 120 <= estimate.model.training_rows <= 180  # about half of 300 records
    assert not at.button(key="run_audit").disabled and not at.get("plotly_chart")


@pytest.mark.slow
def test_the_page_opens_on_privbayes_and_its_default_audit_names_it_in_words():
    # Not the exact copy, whose answer is known before it runs: a real generator, listed by its name in words.
    at = seed_demo(open_page(AUDIT)).run()
    assert_no_exception(at)
    chosen = at.selectbox(key="audit::generator")
    assert chosen.value == "privbayes" and chosen.format_func(chosen.value) == "Bayesian network (PrivBayes)"
    assert at.radio(key="audit::design").value == "shared"
    at.button(key="run_audit").click().run(timeout=RUN_TIMEOUT)  # the default budget, as a newcomer runs it
    assert_no_exception(at)
    verdict = texts(at.error) + texts(at.warning) + texts(at.success)
    assert "Bayesian network (PrivBayes)" in verdict and "privbayes" not in verdict, verdict
    report = next(iter(at.session_state["audit_results"].values()))
    assert report.generator == "privbayes" and report.settings.models == 64  # the id stays in the JSON
    assert report.stronger is None and "A stronger attack says" not in texts(at.markdown)  # not asked for


def test_budget_minimums_match_the_audits_own_check():
    # The widgets' bounds are the audit's own: a value the inputs accept is never refused by the audit.
    params = SV.budget_params(300)
    minimums = {p.name: p.minimum for p in params}
    assert SV.budget(minimums)[1] is None
    for name, low in minimums.items():
        settings, problem = SV.budget(minimums | {name: low - 1})
        assert settings is None and name in problem
    assert {p.name: p.default for p in params}["records"] == 300
    assert {p.name: p.default for p in SV.budget_params(5000)}["records"] == 1000


@pytest.mark.slow
def test_a_tiny_shared_audit_shows_summary_table_figure_and_download(ran):
    assert not ran.exception
    body = texts(ran.markdown)
    verdict = texts(ran.warning) + texts(ran.error)  # the verdict sentence, naming the generator in words
    assert "Exact copy (worst case)" in verdict and "exact_copy" not in verdict
    assert "of the records give the attack an AUC above 0.6; chance alone gives about" in body
    assert "have a 95% interval wholly above 0.5; chance alone gives about" in body and "clearly exposed" in body
    assert "The DCR test says" in body and "The attack says" in body and "**Fails.**" in body  # a copy fails DCR
    # The stronger attacks beside today's, each share next to its own chance level.
    assert "A stronger attack says" in body and "Under the meta-classifier, **" in body and "RMIA alone: **" in body
    assert "Why the most exposed people are exposed" in [h.value for h in ran.subheader]
    assert body.count("**Real row ") == 5  # the top five's evidence
    charts = ran.get("plotly_chart")
    assert len(charts) == 2 and charts[0].proto.alt.startswith("Scatter plot")
    # Per trained model, each attack's TPR at FPR 0: today's, RMIA and the meta-classifier (asked for above).
    assert "Per trained model" in [h.value for h in ran.subheader]
    per_model = charts[1].proto.alt
    assert "true-positive rate at a false-positive rate of 0 on 8 trained model(s)" in per_model
    assert "the audit's attack median" in per_model and "RMIA median" in per_model and "meta-classifier" in per_model
    table = ran.dataframe[0].value
    assert len(table) == 40 and list(table.columns) == ["real row", "AUC", "AUC 95% interval", "meta-classifier AUC",
                                                        "ε lower bound", "nearest real distance",
                                                        "nearest synthetic distance", "why"]
    lows = [float(text.split(" – ")[0]) for text in table["AUC 95% interval"] if text != "—"]
    assert lows == sorted(lows, reverse=True) and table["AUC"].max() >= 0.9
    downloads = ran.get("download_button")
    assert len(downloads) == 1 and "JSON" in downloads[0].proto.label
    report = next(iter(ran.session_state["audit_results"].values()))
    data = json.loads(json.dumps(report.to_dict()))
    assert data["design"] == "shared" and data["settings"]["models"] == 8 and len(data["records"]) == 40


@pytest.mark.slow
def test_switching_to_the_targeted_design_keeps_both_apart(ran):
    before = dict(ran.session_state["audit_results"])
    targeted(ran)
    assert not ran.get("plotly_chart") and "Run audit" in texts(ran.info)  # its own budget, not yet run
    assert ran.number_input(key="audit::budget::targets")
    ran.radio(key="audit::design").set_value("shared").run(timeout=RUN_TIMEOUT)
    assert_no_exception(ran)
    assert dict(ran.session_state["audit_results"]) == before  # the shared audit is reused, not rerun
    assert ran.get("plotly_chart")[0].proto.alt.startswith("Scatter plot")
