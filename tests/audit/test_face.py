"""The audit package's face: every name it offers resolves, importing it loads nothing, and outsiders use it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import privcore.audit as face

ROOT = Path(__file__).resolve().parents[2]
DEEP = re.compile(r"^\s*(from privcore\.audit\.\w+ import|import privcore\.audit\.\w+)", re.M)


def test_every_name_of_the_face_resolves_to_its_definition():
    from privcore.audit import shared, targeted

    for name in face.__all__:
        assert getattr(face, name) is not None, name
    assert face.audit is targeted.audit and face.SharedSettings is shared.SharedSettings
    assert "audit" in dir(face)


def test_importing_the_face_loads_no_audit_module():
    code = ("import sys, privcore.audit\n"
            "print(sorted(m for m in sys.modules if m.startswith('privcore.audit.')))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_outsiders_import_the_audit_from_its_face():
    # Tests may reach inside to test a module; product code and benchmarks go through the face.
    outside = [p for folder in ("privcore", "dashboard", "pages", "bench") for p in (ROOT / folder).rglob("*.py")
               if "audit" not in p.relative_to(ROOT).parts[:2] or folder != "privcore"]
    offenders = [f"{p.relative_to(ROOT)}:{m.group(0).strip()}" for p in outside
                 for m in DEEP.finditer(p.read_text(encoding="utf-8"))]
    assert not offenders, offenders
