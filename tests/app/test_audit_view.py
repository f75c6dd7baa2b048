"""The Audit page's logic (dashboard.audit.view), without Streamlit."""

from __future__ import annotations

import doctest
import json

import numpy as np
import pandas as pd
import pytest

from dashboard.audit import view as V
from privcore.audit.targeted import AuditSettings
from privcore.data.schema import Schema
from privcore.evaluation.verdict import audit_verdict
from privcore.generators import get_generator_spec

TINY = AuditSettings(targets=1, random_targets=1, shadow_models=4, eval_models=4)


@pytest.fixture(scope="module")
def copy_report(demo, demo_schema):
    real, schema = demo.real, demo_schema
    report, error = V.run_audit(real, schema, "exact_copy", {}, TINY)
    assert error is None
    return report


def test_docstring_examples():
    assert doctest.testmod(V).failed == 0


def test_number_inputs_follow_the_declarations():
    for spec in V.BUDGET:
        args = V.number_input_args(spec)
        assert args["step"] == 1 and isinstance(args["min_value"], int)
    params = {p.name: p for p in get_generator_spec("dp_marginals").params}
    assert V.number_input_args(params["level"]) == {"min_value": 0.0, "max_value": 1.0, "step": 0.05, "format": "%g"}
    assert V.number_input_args(params["range_share"])["step"] == pytest.approx(0.01)
    assert "default 1" in V.param_help(params["epsilon"]) and "not set" in V.param_help(params["level"])


def test_budget_inputs_are_the_audits_own_declarations():
    # The page declares nothing of its own: its inputs are privcore's declarations, so their bounds cannot drift.
    assert all(p is AuditSettings.param(p.name) for p in V.BUDGET)
    minimums = {p.name: p.minimum for p in V.BUDGET}
    assert V.budget(minimums | {"targets": 1})[1] is None
    for name, low in minimums.items():
        settings, problem = V.budget(minimums | {"targets": 1, name: low - 1})
        assert settings is None and f"(audit.{name})" in problem


def test_generators_that_cannot_work_here_are_explained(demo, demo_schema):
    real, schema = demo.real, demo_schema
    available, unavailable = V.generator_choices(schema, real)
    assert {"exact_copy", "fresh_sample", "independent_histograms", "dp_marginals"} <= set(available)
    assert not unavailable
    no_sensitive = Schema(types=schema.types)
    available, unavailable = V.generator_choices(no_sensitive, real)
    assert "attribute_leak" not in available and "Configure page" in unavailable["attribute_leak"]


def test_settings_pass_only_changes_and_clashes_are_named(demo, demo_schema):
    real, schema = demo.real, demo_schema
    spec = get_generator_spec("dp_marginals")
    assert V.changed_settings(spec, {"epsilon": 1.0, "level": None, "bins": 20, "range_share": 0.1}) == {}
    clash = V.changed_settings(spec, {"epsilon": 2.0, "level": 0.5})
    assert clash == {"epsilon": 2.0, "level": 0.5}
    assert "not both" in V.generator_problem("dp_marginals", clash, schema, real)
    assert "between 0 and 1" in V.generator_problem("noisy_copy", {"level": 2.0}, schema, real)
    assert V.generator_problem("dp_marginals", {"epsilon": 2.0}, schema, real) is None


def test_the_key_changes_with_every_setting_and_the_cache_keeps_three(demo_schema):
    schema = demo_schema
    key = V.audit_key("hash", schema, "exact_copy", {}, TINY)
    assert key == V.audit_key("hash", schema, "exact_copy", {}, AuditSettings(1, 1, 4, 4))
    others = {V.audit_key("other", schema, "exact_copy", {}, TINY),
              V.audit_key("hash", schema, "noisy_copy", {}, TINY),
              V.audit_key("hash", schema, "noisy_copy", {"level": 0.2}, TINY),
              V.audit_key("hash", schema, "exact_copy", {}, AuditSettings(1, 1, 4, 4, seed=1)),
              V.audit_key("hash", Schema(types=schema.types), "exact_copy", {}, TINY)}
    assert key not in others and len(others) == 5
    state: dict = {}
    for i in range(5):
        V.store(state, f"k{i}", f"report {i}")
    assert list(state[V.RESULTS]) == ["k2", "k3", "k4"] and V.cached(state, "k4") == "report 4"
    assert V.cached(state, "k0") is None and V.cached({}, "k0") is None


@pytest.mark.slow
def test_a_run_reports_progress_and_gives_the_tables(demo, demo_schema, copy_report):
    real, schema = demo.real, demo_schema
    assert [t.chosen for t in copy_report.targets] == ["vulnerable", "random"]
    assert all(t.auc >= 0.9 for t in copy_report.targets)
    assert V.verdict_level(copy_report.summary) == "error"
    frame = V.targets_frame(copy_report)
    assert list(frame["chosen"]) == ["vulnerable", "random"] and frame["AUC"].min() >= 0.9
    assert {"real row", "AUC 95% interval", "TPR at FPR 0%", "TPR at FPR 1%", "TPR at FPR 10%",
            "ε lower bound"} <= set(frame)
    order = V.target_order(copy_report)
    assert sorted(order) == [0, 1] and V.target_label(copy_report, order[0]).startswith("real row ")
    assert json.loads(V.report_json(copy_report))["generator"] == "exact_copy"
    labels = [label for label, _, _ in V.summary_numbers(copy_report.summary)]
    assert labels[0] == "Targets with AUC above 0.6"
    proxy, attack = V.proxy_and_attack(copy_report.summary)
    assert attack.startswith("**Leaks.**") and proxy.startswith(("**Passes.**", "**Fails.**"))

    seen = []
    report, error = V.run_audit(real, schema, "exact_copy", {}, TINY, progress=V.throttled(
        lambda fraction, message: seen.append((fraction, message)), steps=10))
    assert error is None and 2 <= len(seen) <= 11 and seen[-1][0] == 1.0 and "model" in seen[-1][1]


def test_errors_come_back_as_sentences(demo, demo_schema):
    real, schema = demo.real, demo_schema
    report, error = V.run_audit(real.head(40), schema, "exact_copy", {}, TINY)
    assert report is None and "too few" in error
    broken = Schema(types={**schema.types, "no such column": "numerical"})
    report, error = V.run_audit(real, broken, "exact_copy", {}, TINY)
    assert report is None and "no such column" in error and "Traceback" not in error


@pytest.mark.slow
def test_rows_dropped_for_a_missing_number_keep_their_real_row_numbers():
    # The audit drops rows with a missing number (missing="drop"); a target's row is still its row in the
    # table as given.
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"age": rng.integers(18, 90, 400).astype(float), "job": rng.choice(list("abcdef"), 400)})
    real.loc[:9, "age"] = np.nan
    schema = Schema(types={"age": "numerical", "job": "categorical"})
    report, error = V.run_audit(real, schema, "exact_copy", {}, TINY)
    assert error is None
    assert all(t.row >= 10 and not np.isnan(real["age"].iloc[t.row]) for t in report.targets)
    frame = V.targets_frame(report)
    assert frame["real row"].tolist() == [t.row for t in report.targets]
    assert V.target_label(report, 0).startswith(f"real row {report.targets[0].row} · most vulnerable")


def test_verdict_levels_follow_the_audits_rule():
    base = {"chance_share_above_0.6": 0.2}
    starts = {"error": ("g is not private",), "warning": ("g leaks membership", "g may leak membership"),
              "success": ("No target stood out",)}
    for share6, share8, clear in [(0.5, 0.1, 0.1), (0.5, 0.1, 0.0), (0.5, 0.0, 0.0), (0.3, 0.0, 0.0),
                                  (0.0, 0.0, 0.0), (1.0, 1.0, 1.0)]:
        summary = {**base, "share_auc_above_0.6": share6, "share_auc_above_0.8": share8, "share_clearly_exposed": clear}
        assert audit_verdict(summary, "g").startswith(starts[V.verdict_level(summary)]), summary
    assert V.verdict_level({**base, "share_auc_above_0.6": None, "share_auc_above_0.8": None}) == "warning"
    assert V.verdict_level({**base, "share_auc_above_0.6": 0.5, "share_auc_above_0.8": 0.1,
                            "share_clearly_exposed": 0.1}) == "error"
    assert V.verdict_level({**base, "share_auc_above_0.6": 0.5, "share_auc_above_0.8": 0.1}) == "warning"
    assert V.verdict_level({**base, "share_auc_above_0.6": 0.5, "share_auc_above_0.8": 0.0}) == "warning"
    assert V.verdict_level({**base, "share_auc_above_0.6": 0.3, "share_auc_above_0.8": 0.0}) == "success"
    assert V.proxy_and_attack({**base, "share_auc_above_0.6": None})[1].startswith("No attack")
    assert "could not be run" in V.proxy_and_attack({"dcr_test": None})[0]


def test_the_audit_explains_itself_like_every_metric():
    from privcore.audit.targeted import ATTACKER_KNOWS, EXPLANATION

    written = []
    V.explanation_markdown(written.append)
    text = "\n".join(written)
    assert ATTACKER_KNOWS in text and EXPLANATION.blind_spots in text and "1. " in text and "3. " in text
    assert 2 <= len(EXPLANATION.steps) <= 4 and EXPLANATION.high and EXPLANATION.low and EXPLANATION.note
