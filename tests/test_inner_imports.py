"""Imports inside functions (docs/architecture.md, "Two rules keep the layers honest"): in privcore/ and
dashboard/ each one says why it is not at the top of its module, in a comment on its line or the line above
(the convention: ``# lazy: <why>``, e.g. an optional extra or a heavy module that only one path needs)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("privcore", "dashboard")


def uncommented_inner_imports(source: str) -> list[int]:
    """The line numbers of the imports inside a function of ``source`` with no comment on their line or above."""
    lines = source.splitlines()
    found: set[int] = set()
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                here = lines[node.lineno - 1]
                above = lines[node.lineno - 2].strip() if node.lineno >= 2 else ""
                if "#" not in here and not above.startswith("#"):
                    found.add(node.lineno)
    return sorted(found)


def offenders(root: Path = REPO) -> list[str]:
    return [f"{path.relative_to(root)}:{line}"
            for package in PACKAGES for path in sorted((root / package).rglob("*.py"))
            for line in uncommented_inner_imports(path.read_text(encoding="utf-8"))]


@pytest.mark.slow
def test_every_import_inside_a_function_says_why():
    found = offenders()
    assert not found, ("imports inside functions without a comment saying why (move them to the top of the module, "
                       "or add '# lazy: <why>' on the line):\n" + "\n".join(found))


def test_the_check_finds_an_uncommented_inner_import():
    source = '''
import json


def f():
    import math  # lazy: a reason
    # lazy: the reason for the next line
    import os
    from privcore import demo
    return json, math, os, demo


class C:
    def g(self):
        def h():
            import sys
            return sys
        return h
'''
    assert uncommented_inner_imports(source) == [9, 16]
