"""Rules on the code's text: module docstrings of at most five lines, and no history phrases in the sources."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_MODULE_DOCSTRING_LINES = 5
#: Phrases that tell the code's history rather than what it does (case-sensitive, like ``grep -E``).
HISTORY = re.compile(r"issue [0-9]+|as before|before the")


def _sources(root: Path) -> list[Path]:
    files = [p for folder in ("privcore", "dashboard", "pages") for p in sorted((root / folder).rglob("*.py"))]
    return files + [root / "app.py"]


def long_module_docstrings(root: Path) -> list[str]:
    """``path (n lines)`` for every module whose docstring is longer than the limit."""
    out = []
    for path in _sources(root):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
        lines = len(doc.strip().splitlines()) if doc else 0
        if lines > MAX_MODULE_DOCSTRING_LINES:
            out.append(f"{path.relative_to(root)} ({lines} lines)")
    return out


def history_phrases(root: Path) -> list[str]:
    """``path:line: text`` for every line that matches :data:`HISTORY`."""
    out = []
    for path in _sources(root):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if HISTORY.search(line):
                out.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    return out


def test_module_docstrings_are_short():
    long = long_module_docstrings(ROOT)
    assert not long, (f"module docstrings over {MAX_MODULE_DOCSTRING_LINES} lines (move the method text onto the "
                      "function or class it explains):\n" + "\n".join(long))


def test_no_history_phrases():
    found = history_phrases(ROOT)
    assert not found, "history phrases (say what the code does, not what it did):\n" + "\n".join(found)


def test_rules_catch_a_planted_break(tmp_path):
    for folder in ("privcore", "dashboard", "pages"):
        (tmp_path / folder).mkdir()
    (tmp_path / "app.py").write_text('"""The app."""\n', encoding="utf-8")
    (tmp_path / "privcore" / "short.py").write_text('"""One line.\n\nA second paragraph.\n"""\n', encoding="utf-8")
    (tmp_path / "privcore" / "long.py").write_text('"""Summary.\n\n' + "more\n" * 5 + '"""\n', encoding="utf-8")
    (tmp_path / "pages" / "old.py").write_text("x = 1  # computed as before\n", encoding="utf-8")
    assert long_module_docstrings(tmp_path) == [str(Path("privcore") / "long.py") + " (7 lines)"]
    assert history_phrases(tmp_path) == [str(Path("pages") / "old.py") + ":1: x = 1  # computed as before"]
