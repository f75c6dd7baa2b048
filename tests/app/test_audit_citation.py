"""Results cites an audit of the generator run in this session (issue 22, item 5)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from dashboard.audit.citation import AUDIT_TABLES, citations, demo_generator, remember

from .conftest import assert_no_exception, open_page
from .test_audit_page import AUDIT, RUN_TIMEOUT
from .test_results_page import RESULTS, seed_demo


def fake_report(generator, *, shared=True, exposed=True):
    summary = {"share_auc_above_0.6": 0.5 if exposed else 0.1, "chance_share_above_0.6": 0.1,
               "share_auc_above_0.8": 0.3 if exposed else 0.0, "share_clearly_exposed": 0.2 if exposed else 0.0,
               "verdict": f"{generator} says something."}
    if shared:
        summary["records_scored"] = 1000
    return SimpleNamespace(generator=generator, summary=summary, settings=SimpleNamespace(models=64),
                           targets=[1, 2], splits={"training_rows": 500})


def test_only_audits_of_this_real_table_are_cited_most_recent_first():
    state = {"audit_results": {}, "demo": "noisy_copy"}
    for key, generator, table in (("a", "privbayes", "real-1"), ("b", "noisy_copy", "real-1"),
                                  ("c", "cart", "real-2")):
        state["audit_results"][key] = fake_report(generator, shared=key != "b")
        remember(state, key, table)
    found = citations(state, "real-1")
    assert [c.generator for c in found] == ["noisy_copy", "privbayes"]
    mine, other = found
    assert mine.same_generator and not other.same_generator and mine.design == "targeted"
    assert mine.severity == "exposed" and "2 targets" in mine.scope
    assert "the generator that made “noisy”" in mine.sentence("noisy")
    assert "only if that table was made by Bayesian network (PrivBayes)" in other.sentence("noisy")
    assert "1,000 records, 64 models" in other.scope
    assert citations(state, "real-3") == []


def test_a_dropped_audit_is_forgotten_and_demo_names_map_to_generators():
    state = {"audit_results": {"b": fake_report("cart")}, AUDIT_TABLES: {"a": "x", "b": "y"}}
    remember(state, "b", "y")
    assert state[AUDIT_TABLES] == {"b": "y"}
    assert demo_generator({"demo": "column_resampler"}) == "column_resample"
    assert demo_generator({"demo": None}) is None


@pytest.mark.slow
def test_results_cite_the_audit_of_the_generator_that_made_the_table():
    audit = seed_demo(open_page(AUDIT))
    audit.session_state["demo"] = "noisy_copy"
    audit.run(timeout=RUN_TIMEOUT)
    audit.selectbox(key="audit::generator").set_value("noisy_copy")
    for name, value in {"models": 8, "records": 40}.items():
        audit.number_input(key=f"audit::shared::{name}").set_value(value)
    audit.run(timeout=RUN_TIMEOUT)
    audit.button(key="run_audit").click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(audit)
    results = seed_demo(open_page(RESULTS), metrics=["dcr"])
    for key in ("audit_results", AUDIT_TABLES, "demo"):
        results.session_state[key] = audit.session_state[key]
    results.run(timeout=RUN_TIMEOUT)
    results.button(key="run_evaluation").click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(results)
    cited = [e.value for e in [*results.info, *results.error] if "An audit of" in e.value]
    assert len(cited) == 1 and "the generator that made “noisy”" in cited[0], cited
    assert "every record at once: 40 records, 8 models" in cited[0]
    assert "See the audit: who is exposed, and why" in [link.label for link in results.main.page_link]
