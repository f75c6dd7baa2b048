"""Audit page, white-box attack (issue 38 item 6): offered only for a generator with a per-record loss and only in
the shared design; TabDDPM listed with its settings (or with its install command when torch is missing); a
tiny white-box audit shows the threat model, the per-model figure and table."""

from __future__ import annotations

import doctest
import sys

import pytest

from dashboard.audit import whitebox_view as WV
from dashboard.audit.estimate import estimate_text
from privcore.audit.timing import AuditEstimate, ModelTiming
from privcore.audit.whitebox import THREAT_MODEL
from tests.audit.test_audit_whitebox import OWN_MODULE

from .conftest import assert_no_exception, open_page, texts
from .test_audit_page import AUDIT, RUN_TIMEOUT, targeted
from .test_results_page import seed_demo
from .test_shared_audit_page import shared_budget

#: The admin's own generator with a loss: it resamples its training rows, and its loss is 0 on them (the same module
#: as the CLI's test of a bring-your-own generator).
MODULE = OWN_MODULE



def box(at, name: str):
    """The white-box option of generator ``name``, or None when the page does not offer it."""
    found = [w for w in at.checkbox if w.key == f"audit::whitebox::{name}"]
    return found[0] if found else None


@pytest.fixture
def lossy(tmp_path, monkeypatch):
    (tmp_path / "admin_lossy.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PRIVCORE_GENERATORS", "admin_lossy=admin_lossy:LossyResampler")
    monkeypatch.setenv("PRIVCORE_DASHBOARD_WORKERS", "0")  # in this process, where tmp_path is importable


def test_docstring_examples():
    results = doctest.testmod(WV)
    assert results.attempted > 0 and results.failed == 0


def test_the_estimate_names_the_white_box_attack_when_it_runs():
    model = ModelTiming(2.0, 150, (2.1, 1.9), 0.1)
    black, white = (estimate_text(AuditEstimate("shared", 64, 1, model, 5.0, flag), 300) for flag in (False, True))
    assert "the attack on every record and the DCR test add" in black and "white-box" not in black
    assert "the black-box and white-box attacks on every record and the DCR test add" in white


@pytest.mark.slow
def test_the_option_appears_only_for_a_generator_with_a_loss_in_the_shared_design(lossy):
    at = seed_demo(open_page(AUDIT)).run()
    assert_no_exception(at)
    assert box(at, "privbayes") is None  # the page opens on PrivBayes: no loss, no option
    at.selectbox(key="audit::generator").set_value("admin_lossy").run()
    assert_no_exception(at)
    option = box(at, "admin_lossy")
    assert option is not None and option.label == WV.OPTION_LABEL and option.value is True
    targeted(at)
    assert box(at, "admin_lossy") is None  # the targeted design has no white-box attack


@pytest.mark.slow
def test_a_tiny_white_box_audit_shows_the_threat_model_figure_and_table(lossy):
    at = seed_demo(open_page(AUDIT)).run()
    at.selectbox(key="audit::generator").set_value("admin_lossy")
    shared_budget(at, models=8, records=40).run()
    assert_no_exception(at)
    at.button(key="run_audit").click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    report = next(iter(at.session_state["audit_results"].values()))
    assert report.whitebox is not None and report.to_dict()["whitebox"]["threat_model"] == THREAT_MODEL
    assert "White-box attack: the model's loss" in [h.value for h in at.subheader]
    assert THREAT_MODEL in texts(at.info)
    assert "of its training records without one false accusation" in texts(at.markdown)
    # The records' figure, every attack per trained model, then the white-box attack's own per-model TPR at FPR 0.
    charts = at.get("plotly_chart")
    assert [c.key.split("::")[0] for c in charts] == ["shared-audit-figure", "per-model-figure", "whitebox-figure"]
    assert "white box (the model's loss) median" in charts[1].proto.alt
    assert "TPR at FPR 0 (no false accusation)" in charts[2].proto.spec
    records = at.dataframe[-1].value  # the per-record table: the white-box AUC beside the black-box one
    assert list(records.columns[:4]) == ["real row", "AUC", "AUC 95% interval", "white-box AUC"]
    white_auc = {r["row"]: r["auc"] for r in report.whitebox.records}
    assert all(round(white_auc[row], 3) == auc for row, auc in zip(records["real row"], records["white-box AUC"]))
    # Unticked, the same audit is another one (its own cache key) and runs without the attack.
    box(at, "admin_lossy").uncheck().run()
    at.button(key="run_audit").click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    assert len(at.session_state["audit_results"]) == 2
    assert "White-box attack: the model's loss" not in [h.value for h in at.subheader]
    assert "white-box AUC" not in at.dataframe[-1].value.columns


@pytest.mark.slow
def test_tabddpm_is_listed_with_its_settings_and_the_option():
    pytest.importorskip("torch", reason="privcore[tabddpm] (torch) is installed by requirements-dev.txt")
    at = seed_demo(open_page(AUDIT))
    # Tiny settings before TabDDPM is chosen, so that its trial fits (the run-time estimate) take a second.
    for name, value in {"timesteps": 4, "steps": 10, "width": 16, "depth": 1}.items():
        at.session_state[f"audit::setting::tabddpm::{name}"] = value
    at.run()
    at.selectbox(key="audit::generator").set_value("tabddpm").run()
    assert_no_exception(at)
    assert "TabDDPM (diffusion)" in at.selectbox(key="audit::generator").options
    labels = [w.label for w in at.number_input]
    assert {"Diffusion steps", "Training steps", "Batch size", "Learning rate", "Layer width", "Layers"} <= set(labels)
    assert at.number_input(key="audit::setting::tabddpm::steps").value == 10  # the tiny settings were used
    assert box(at, "tabddpm") is not None
    info = texts(at.info)
    assert "Estimated run time" in info and "one fit on" in info


@pytest.mark.slow
def test_without_torch_tabddpm_names_its_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # torch not installed, as far as this process can tell
    at = seed_demo(open_page(AUDIT)).run()
    assert "TabDDPM (diffusion) (not installed)" in at.selectbox(key="audit::generator").options
    at.selectbox(key="audit::generator").set_value("tabddpm").run()
    assert_no_exception(at)
    assert "pip install 'privcore[tabddpm]'" in texts(at.error) and at.button(key="run_audit").disabled
    assert box(at, "tabddpm") is None
