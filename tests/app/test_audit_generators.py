"""Audit page: generators listed by name in words, a missing extra shown with its install command, and a
generator the server admin registered in PRIVCORE_GENERATORS offered and audited."""

from __future__ import annotations

import sys
import textwrap

import pytest

from .conftest import assert_no_exception, open_page, texts
from .test_audit_page import AUDIT, RUN_TIMEOUT, set_budget, targeted, tiny_audit
from .test_results_page import seed_demo

INSTALL = "pip install 'privcore[sdv]'"
MODULE = textwrap.dedent('''
    class Resampler:
        """The admin's own generator: resampled training rows."""

        def fit(self, table, types):
            self.table = table
            return self

        def sample(self, n, seed):
            return self.table.sample(n, replace=True, random_state=seed)
''')

BROKEN = textwrap.dedent('''
    class Broken:
        """The admin's generator that cannot train on this table."""

        def fit(self, table, types):
            raise RuntimeError("no GPU with enough memory for this table")

        def sample(self, n, seed):
            raise AssertionError("never fitted")
''')


def options(at) -> list[str]:
    return at.selectbox(key="audit::generator").options


@pytest.mark.slow
def test_generators_are_listed_by_name_in_words():
    pytest.importorskip("sdv")
    at = seed_demo(open_page(AUDIT)).run()
    assert_no_exception(at)
    shown = options(at)
    assert {"Exact copy (worst case)", "Gaussian copula (SDV)", "CTGAN (SDV)", "TVAE (SDV)"} <= set(shown)
    assert not any(name in shown for name in ("exact_copy", "sdv_ctgan"))
    at.selectbox(key="audit::generator").set_value("sdv_ctgan").run()
    assert_no_exception(at)
    labels = [w.label for w in at.number_input]
    assert "Epochs" in labels and "Batch size" in labels and "Pac" in labels
    assert not at.button(key="run_audit").disabled


@pytest.mark.slow
def test_a_generator_whose_extra_is_missing_is_shown_with_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "sdv", None)  # SDV not installed, as far as this process can tell
    at = seed_demo(open_page(AUDIT)).run()
    assert_no_exception(at)
    assert "CTGAN (SDV) (not installed)" in options(at) and "Exact copy (worst case)" in options(at)
    at.selectbox(key="audit::generator").set_value("sdv_ctgan").run()
    assert_no_exception(at)
    assert f"CTGAN (SDV) is not installed on this server. To offer it, install it with: {INSTALL}" in texts(at.error)
    assert at.button(key="run_audit").disabled


@pytest.mark.slow
def test_a_generator_the_admin_registered_is_offered_and_audited(tmp_path, monkeypatch):
    (tmp_path / "admin_gens.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PRIVCORE_GENERATORS", "admin_resampler=admin_gens:Resampler")
    monkeypatch.setenv("PRIVCORE_DASHBOARD_WORKERS", "0")  # in this process, where tmp_path is importable
    at = seed_demo(open_page(AUDIT)).run()
    assert_no_exception(at)
    assert options(at)[-1] == "admin_resampler"
    at = tiny_audit(at, "admin_resampler")
    assert not at.exception and at.get("plotly_chart")
    report = next(iter(at.session_state["audit_results"].values()))
    assert report.generator == "admin_resampler"


@pytest.mark.slow
def test_an_sdv_generator_runs_a_tiny_audit(monkeypatch):
    pytest.importorskip("sdv")
    monkeypatch.setenv("PRIVCORE_DASHBOARD_WORKERS", "0")  # SDV is imported once, here, not in every worker
    at = targeted(seed_demo(open_page(AUDIT)).run())
    at.selectbox(key="audit::generator").set_value("sdv_gaussian_copula")
    set_budget(at, targets=1, random_targets=0, shadow_models=4, eval_models=4).run()  # 12 fits of SDV
    at.button(key="run_audit").click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    assert at.get("plotly_chart")
    report = next(iter(at.session_state["audit_results"].values()))
    assert report.generator == "sdv_gaussian_copula" and all(t.failed_models == 0 for t in report.targets)


@pytest.mark.slow
def test_a_generator_that_fails_when_timed_shows_its_error_and_cannot_run(tmp_path, monkeypatch):
    (tmp_path / "admin_broken.py").write_text(BROKEN)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PRIVCORE_GENERATORS", "admin_broken=admin_broken:Broken")
    monkeypatch.setenv("PRIVCORE_DASHBOARD_WORKERS", "0")  # in this process, where tmp_path is importable
    at = seed_demo(open_page(AUDIT)).run()
    at.selectbox(key="audit::generator").set_value("admin_broken").run()
    assert_no_exception(at)
    error = texts(at.error)  # the estimate's trial fit met the error the audit would meet: said in one line
    assert error.startswith("The generator admin_broken failed when timed on ") and "rows of your table" in error
    assert error.endswith("RuntimeError: no GPU with enough memory for this table") and "Traceback" not in error
    assert at.button(key="run_audit").disabled and "Estimated run time" not in texts(at.info)


@pytest.mark.slow
def test_tabddpm_is_listed_and_without_torch_shown_with_its_install_command(monkeypatch):
    pytest.importorskip("torch")
    at = seed_demo(open_page(AUDIT)).run()
    assert_no_exception(at)
    assert "TabDDPM (diffusion)" in options(at)
    monkeypatch.setitem(sys.modules, "torch", None)  # torch not installed, as far as this process can tell
    at = seed_demo(open_page(AUDIT)).run()
    assert "TabDDPM (diffusion) (not installed)" in options(at)
    at.selectbox(key="audit::generator").set_value("tabddpm").run()
    assert_no_exception(at)
    assert ("TabDDPM (diffusion) is not installed on this server. To offer it, install it with: "
            "pip install 'privcore[tabddpm]'") in texts(at.error)
    assert at.button(key="run_audit").disabled
