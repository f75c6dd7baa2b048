"""One door per room: every privcore package's ``__init__`` is its face, importing a face loads none of its
modules, and product code and benchmarks import another package's names from its face."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import privcore
import privcore.audit as audit_face

ROOT = Path(__file__).resolve().parents[1]
#: The packages with a lazy face.
FACES = ("base", "data", "engine", "evaluation", "metrics", "report", "lab", "generators", "demo", "audit")
#: Every top-level package of privcore: a deep import of any of them by an outsider is checked.
PACKAGES = (*FACES, "cli")
#: What importing a face may load of its own package beside the face itself.
FACE_MAY_LOAD = {"base": {"privcore.base.faces"}}
#: Packages whose modules outsiders may not import as modules either (``import privcore.audit.targeted``); a
#: benchmark may import another package's module to time its internals.
NO_MODULE_IMPORTS = ("audit",)
#: Deep imports that stay deep, (module, name) -> why. A face cannot offer a name its package also has as a
#: submodule: importing that submodule (as its package's insiders do) sets the package attribute to the module.
ALLOWED_DEEP = {
    ("privcore.data.prepare", "prepare"): "the function has its module's name (privcore.data.prepare)",
    ("privcore.evaluation.evaluate", "evaluate"): "the function has its module's name (privcore.evaluation.evaluate)",
    ("privcore.evaluation.verdict", "verdict"): "the function has its module's name (privcore.evaluation.verdict)",
    ("privcore.evaluation.utility_line", "utility_line"):
        "the function has its module's name (privcore.evaluation.utility_line)",
    ("privcore.report.lab_html", "lab_html"): "the function has its module's name (privcore.report.lab_html)",
    ("privcore.cli.main", "main"): "the command line has no face (its sub-commands load on demand) and main is "
                                   "also its module's name",
}


def _target(package: str, where: str):
    """The object a face entry ``where`` (``module``, ``privcore.module`` or ``module:attribute``) names."""
    module, _, attribute = where.partition(":")
    return importlib.import_module(module if module.startswith("privcore.") else f"{package}.{module}"), attribute


@pytest.mark.parametrize("name", FACES)
def test_every_name_of_a_face_resolves_to_its_definition(name):
    face = importlib.import_module(f"privcore.{name}")
    entries = getattr(face, "_FACE")
    assert set(face.__all__) <= set(entries) | set(vars(face)), sorted(set(face.__all__) - set(entries))
    for public in sorted({*face.__all__, *entries}):
        value = getattr(face, public)
        if public in entries:
            module, attribute = _target(face.__name__, entries[public])
            assert value is getattr(module, attribute or public), public
        assert public in dir(face)
        assert not public.startswith("_")


def test_the_audits_face_offers_its_designs_and_the_verdict():
    from privcore.audit import shared, targeted
    from privcore.evaluation import verdict

    assert audit_face.audit is targeted.audit and audit_face.SharedSettings is shared.SharedSettings
    assert audit_face.verdict is verdict.audit_verdict and audit_face.severity is verdict.audit_severity
    assert "audit" in dir(audit_face)


def test_an_unknown_name_is_an_attribute_error_and_submodules_still_import():
    with pytest.raises(AttributeError):
        getattr(importlib.import_module("privcore.engine"), "no_such_name")
    from privcore.engine import gpu

    assert gpu.__name__ == "privcore.engine.gpu"


def test_the_generators_and_the_top_level_keep_their_public_names():
    import privcore.generators as generators

    assert len(generators.__all__) == len(set(generators.__all__)) == 55
    assert {"make_generator", "GeneratorSpec", "PrivBayes", "SDVAdapter"} <= set(generators.__all__)
    assert not {"TabDDPM", "LEAK_ATTR"} & set(generators.__all__)
    # evaluate_related and Relation: related tables (people and their rows) evaluated per person; Dataset,
    # EvaluationOptions and evaluate_dataset: one evaluation object for either, as the command line builds it.
    assert privcore.__all__ == ["evaluate", "evaluate_related", "evaluate_dataset", "Dataset", "EvaluationOptions",
                                "Schema", "infer_schema", "InputError", "MetricResult", "Relation", "Report",
                                "load_table"]
    for public in privcore.__all__:
        assert callable(getattr(privcore, public)), public
    assert privcore.evaluate.__module__ == "privcore.evaluation.evaluate"


def test_importing_a_face_loads_none_of_its_modules():
    code = ("import importlib, json, sys\n"
            "loaded = {}\n"
            f"for name in {list(FACES)!r}:\n"
            "    importlib.import_module('privcore.' + name)\n"
            "    loaded[name] = sorted(m for m in sys.modules if m.startswith(f'privcore.{name}.'))\n"
            "print(json.dumps(loaded))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.splitlines()[-1])
    extra = {name: sorted(set(modules) - FACE_MAY_LOAD.get(name, set())) for name, modules in loaded.items()}
    assert extra == {name: [] for name in FACES}


def _inside(rel: Path, package: str) -> bool:
    """Whether the file ``rel`` is a module of ``privcore.<package>`` (an insider, free to import its modules)."""
    return rel.parts[0] == "privcore" and len(rel.parts) > 2 and rel.parts[1] == package


def deep_imports(root: Path) -> list[str]:
    """``path:line: module name`` for every name an outsider imports from inside another privcore package."""
    files = [p for folder in ("privcore", "dashboard", "pages", "bench") for p in sorted((root / folder).rglob("*.py"))]
    found = []
    for path in [*files, root / "app.py"]:
        rel = path.relative_to(root)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        for node in sorted(imports, key=lambda n: n.lineno):
            for alias in node.names if isinstance(node, ast.Import) else ():
                parts = alias.name.split(".")
                if len(parts) > 2 and parts[0] == "privcore" and parts[1] in NO_MODULE_IMPORTS \
                        and not _inside(rel, parts[1]):
                    found.append(f"{rel}:{node.lineno}: {alias.name}")
            if not isinstance(node, ast.ImportFrom) or not node.module or node.level:
                continue
            parts = node.module.split(".")
            if len(parts) < 3 or parts[0] != "privcore" or parts[1] not in PACKAGES:
                continue
            if _inside(rel, parts[1]):
                continue
            found += [f"{rel}:{node.lineno}: {node.module} {alias.name}" for alias in node.names
                      if (node.module, alias.name) not in ALLOWED_DEEP]
    return found


@pytest.mark.slow
def test_outsiders_import_from_the_faces():
    # Tests may reach inside to test a module; product code and benchmarks go through the faces.
    offenders = deep_imports(ROOT)
    assert not offenders, "\n".join(offenders)


def test_the_check_finds_a_planted_deep_import(tmp_path):
    for folder in ("privcore/lab", "privcore/engine", "dashboard", "pages", "bench"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "app.py").write_text("from privcore.lab import run\n", encoding="utf-8")
    (tmp_path / "privcore" / "lab" / "runs.py").write_text("from privcore.lab.settings import REFERENCE\n"
                                                            "from privcore.engine.context import MetricContext\n",
                                                            encoding="utf-8")
    (tmp_path / "dashboard" / "view.py").write_text(
        "def f():\n    from privcore.engine.gpu import (  # lazy: why\n        require_gpu,\n    )\n"
        "from privcore.evaluation.verdict import verdict\nimport privcore.audit.targeted\nimport privcore.engine.gpu\n",
        encoding="utf-8")
    assert deep_imports(tmp_path) == [
        str(Path("privcore/lab/runs.py")) + ":2: privcore.engine.context MetricContext",
        str(Path("dashboard/view.py")) + ":2: privcore.engine.gpu require_gpu",
        str(Path("dashboard/view.py")) + ":6: privcore.audit.targeted",
    ]
