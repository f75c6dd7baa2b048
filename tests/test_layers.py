"""The layer rules in pyproject.toml hold, and would catch a break: import-linter on the package as it is, and on a
copy with one upward import planted (the engine importing the report layer) or one metric module of a family
importing another (the learned membership attack importing mia_best's module instead of their shared _base), or one
audit design importing the other."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is installed by requirements-dev.txt")


def _lint(where: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(where)}  # the copy's packages before the installed ones
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=where, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("layers")
    def skipped(folder: str, names: list[str]) -> set[str]:  # caches, and the demo's data files (not code)
        return {n for n in names if n == "__pycache__" or (n == "data" and Path(folder).name == "demo")}

    for name in ("privcore", "dashboard"):
        shutil.copytree(ROOT / name, where / name, ignore=skipped)
    shutil.copy(ROOT / "pyproject.toml", where / "pyproject.toml")
    return where


def test_the_layers_hold(copy):
    result = _lint(copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 kept, 0 broken" in result.stdout


def test_a_planted_upward_import_breaks_them(copy):
    engine = copy / "privcore" / "engine" / "__init__.py"
    original = engine.read_text()
    try:
        engine.write_text(original + "\nimport privcore.report.html  # planted: the engine reaching up\n")
        result = _lint(copy)
        assert result.returncode != 0
        assert "1 broken" in result.stdout and "privcore.engine" in result.stdout and "privcore.report" in result.stdout
    finally:
        engine.write_text(original)


def test_a_planted_import_between_two_attacks_of_a_family_breaks_them(copy):
    learned = copy / "privcore" / "metrics" / "membership" / "learned.py"
    original = learned.read_text()
    try:
        learned.write_text(original + "\nfrom privcore.metrics.membership.best import CHOICE_TAG  # noqa: F401 (planted)\n")
        result = _lint(copy)
        assert result.returncode != 0
        assert "1 broken" in result.stdout and "privcore.metrics.membership.learned" in result.stdout
        assert "privcore.metrics.membership.best" in result.stdout
    finally:
        learned.write_text(original)


@pytest.mark.parametrize("module, planted", [
    ("shared.py", "from privcore.audit.targeted import AuditSettings  # noqa: F401 (planted: one design importing the other)"),
    ("_base.py", "import privcore.audit.crossfit  # noqa: F401 (planted: the base reaching up)"),
])
def test_a_planted_import_between_the_audit_designs_or_up_from_its_base_breaks_them(copy, module, planted):
    path = copy / "privcore" / "audit" / module
    original = path.read_text()
    try:
        path.write_text(original + "\n" + planted + "\n")
        result = _lint(copy)
        assert result.returncode != 0
        assert "1 broken" in result.stdout and "the audit's designs" in result.stdout.replace("\n", " ")
    finally:
        path.write_text(original)


def test_every_audit_module_is_in_its_layers():
    # A new audit module left out of the layers could import a design unnoticed.
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c.get("containers") == ["privcore.audit"])
    listed = {name.strip() for layer in layers for name in layer.replace("|", ":").split(":")}
    modules = {p.stem for p in (ROOT / "privcore" / "audit").glob("*.py") if p.stem != "__init__"}
    assert listed == modules


@pytest.mark.parametrize("family", ["membership", "distance"])
def test_every_concrete_module_of_a_family_package_is_in_its_independence_contract(family):
    # A new attack module left out of the contract could import another attack unnoticed.
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    package = f"privcore.metrics.{family}"
    listed = [c["modules"] for c in contracts if c["type"] == "independence" and c["modules"][0].startswith(package + ".")]
    concrete = {f"{package}.{p.stem}" for p in (ROOT / "privcore" / "metrics" / family).glob("*.py")
                if not p.stem.startswith("_")}
    # The contract names the whole package (a new module is covered without editing it), or every module by name.
    assert len(listed) == 1 and (listed[0] == [f"{package}.*"] or set(listed[0]) == concrete)
