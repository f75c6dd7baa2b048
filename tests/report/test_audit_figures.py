"""The audit's figures (privcore.report.audit_figures): per-target AUCs with intervals; for the shared design,
each record's AUC against its distance to the nearest other real record. Okabe–Ito colours, words."""

from __future__ import annotations

import pytest

from privcore.audit.shared import RecordResult, SharedAuditReport, SharedSettings
from privcore.audit.targeted import AuditReport, AuditSettings, TargetResult
from privcore.report.audit_figures import RECORD_STYLES, TARGET_STYLES, audit_figure, shared_audit_figure
from tests.report.test_figures import ALLOWED, check


def target(row: int, chosen: str, auc: float | None, interval=None) -> TargetResult:
    return TargetResult(row=row, chosen=chosen, vulnerability=0.1 * row, auc=auc, auc_interval=interval,
                        tpr_at={"0": None, "0.01": None, "0.1": None},
                        tpr_at_interval={"0": None, "0.01": None, "0.1": None},
                        shadow_models=8, eval_models=4, failed_models=0)


def report(targets) -> AuditReport:
    return AuditReport(generator="exact_copy", settings=AuditSettings(), targets=targets, summary={}, warnings=[],
                       seconds=1.0, splits={})


def test_vulnerable_and_random_targets_differ_in_symbol_and_colour():
    figure = audit_figure(report([target(7, "vulnerable", 0.95, (0.9, 1.0)), target(3, "vulnerable", 0.7, (0.5, 0.9)),
                                  target(11, "random", 0.5, (0.3, 0.7)), target(2, "random", None)]))
    check(figure)
    points = {trace.name: trace for trace in figure.fig.data if trace.mode == "markers"}
    vulnerable, random = points[TARGET_STYLES["vulnerable"]["label"]], points[TARGET_STYLES["random"]["label"]]
    assert vulnerable.marker.symbol != random.marker.symbol and vulnerable.marker.color != random.marker.color
    assert {vulnerable.marker.color.upper(), random.marker.color.upper()} <= ALLOWED
    assert list(vulnerable.x) == [0.95, 0.7] and [c[0] for c in vulnerable.customdata] == ["row 7 (vulnerable)",
                                                                                           "row 3 (vulnerable)"]
    assert list(figure.fig.layout.yaxis.ticktext) == ["row 7 (vulnerable)", "row 3 (vulnerable)", "row 11 (random)"]
    assert list(vulnerable.error_x.arrayminus) == [0.95 - 0.9, 0.7 - 0.5]
    lines = {trace.name: list(trace.x) for trace in figure.fig.data if trace.mode == "lines"}
    assert [0.5, 0.5] in lines.values() and [0.6, 0.6] in lines.values()
    # The target without an AUC is not drawn but named in the words.
    assert "row 2 (random)" not in figure.fig.layout.yaxis.ticktext and "row 2 (random)" in figure.alt
    assert "row 7 (vulnerable) 0.95 (95% interval 0.90 to 1.00)" in figure.alt


def test_rows_are_named_as_in_the_loaded_table():
    # privcore.audit.targeted reports a target's row in the real table as given (rows dropped for a missing number
    # do not shift it), so the figure names it as it is.
    figure = audit_figure(report([target(20, "vulnerable", 0.8, (0.7, 0.9))]))
    check(figure)
    assert list(figure.fig.layout.yaxis.ticktext) == ["row 20 (vulnerable)"] and "row 20" in figure.alt


def test_an_audit_without_any_auc_says_so():
    figure = audit_figure(report([target(1, "random", None)]))
    assert figure.caption.endswith(".") and "no AUC" in figure.caption and figure.alt.strip()


# ------------------------------------------------------------------------------ shared design

def record(row: int, auc: float | None, interval=None, distance: float = 1.0) -> RecordResult:
    return RecordResult(row=row, auc=auc, auc_interval=interval, tpr_at={}, epsilon_lower_bound=None, p_value=None,
                        models_in=4, models_out=4, nearest_real_distance=distance, nearest_synthetic_distance=0.0,
                        nearest_synthetic_distance_out=0.5)


def shared_report(records) -> SharedAuditReport:
    return SharedAuditReport(generator="exact_copy", settings=SharedSettings(), records=records, summary={},
                             warnings=[], seconds=1.0, splits={})


def test_shared_figure_plots_auc_against_the_distance_to_the_nearest_real_record():
    figure = shared_audit_figure(shared_report([record(4, 0.95, (0.8, 1.0), 2.0), record(9, 0.55, (0.3, 0.8), 0.5),
                                                record(1, 0.4, (0.2, 0.6), 0.1), record(2, None),
                                                record(3, 0.7, (0.6, 0.8), float("inf"))]))
    check(figure)
    assert len(figure.fig.data) == 3  # exposed records, the others, the chance line
    points = {trace.name: trace for trace in figure.fig.data if trace.mode == "markers"}
    exposed, other = points[RECORD_STYLES["exposed"]["label"]], points[RECORD_STYLES["other"]["label"]]
    assert exposed.marker.symbol != other.marker.symbol and exposed.marker.color != other.marker.color
    assert {exposed.marker.color.upper(), other.marker.color.upper()} <= ALLOWED
    assert list(exposed.x) == [2.0] and list(exposed.y) == [0.95] and list(other.x) == [0.5, 0.1]
    assert list(other.error_y.arrayminus) == pytest.approx([0.55 - 0.3, 0.4 - 0.2])
    chance = next(trace for trace in figure.fig.data if trace.mode == "lines")
    assert list(chance.y) == [0.5, 0.5] and chance.line.dash == "dash"
    assert "nearest other real record" in figure.fig.layout.xaxis.title.text
    assert "AUC" in figure.fig.layout.yaxis.title.text
    assert figure.caption.endswith(".") and figure.caption.count(". ") == 0 and "dashed line" in figure.caption
    assert "3 record(s)" in figure.alt and "2 record(s) have no AUC" in figure.alt


def test_a_shared_audit_without_any_auc_says_so():
    figure = shared_audit_figure(shared_report([record(1, None)]))
    assert figure.caption.endswith(".") and "no AUC" in figure.caption and figure.alt.strip()
