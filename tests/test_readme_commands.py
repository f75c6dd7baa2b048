"""The README's test commands are the ones CI runs, and the tiers they name are the ones pytest selects."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bash_blocks(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def test_ci_runs_the_readme_test_commands_verbatim():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = _bash_blocks(readme)
    quick = next(b for b in blocks if "requirements-dev.txt" in b and b.endswith("-m pytest"))
    slow = next(b for b in blocks if b.endswith("pytest -m slow"))
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert quick in ci_lines, "the README's test command is not in .ci/run verbatim"
    assert slow in ci_lines, "the README's slow-tier command is not in .ci/run verbatim"
    assert ci_lines.index(quick) < ci_lines.index(slow), "CI runs the quick tier first"


def test_the_plain_pytest_run_is_the_quick_tier():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "-m 'not slow and not load'" in options["addopts"]
    assert any(marker.startswith("slow:") for marker in options["markers"])


def test_every_page_has_a_smoke_test_in_the_quick_tier():
    smoke = (ROOT / "tests" / "browser" / "test_smoke.py").read_text(encoding="utf-8")
    assert "pytest.mark.slow" not in smoke
    assert '@pytest.mark.parametrize("name", list(PAGE_PATHS))' in smoke
    pages = {path.stem.split("_", 1)[1].replace("_", " ") for path in (ROOT / "pages").glob("[0-9]_*.py")}
    support = (ROOT / "tests" / "browser" / "browser_support.py").read_text(encoding="utf-8")
    listed = set(re.findall(r'^    "([A-Za-z ]+)": "', support[support.index("PAGE_PATHS = {"):], flags=re.M))
    assert pages | {"Home"} <= listed, f"pages without a smoke test: {sorted(pages | {'Home'} - listed)}"


def test_the_readme_is_short_and_says_how_to_read_the_answer_early():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; move reference text to docs/"
    headings = [i for i, line in enumerate(lines) if line.startswith("## ")]
    titles = [lines[i] for i in headings]
    assert titles[:2] == ["## Two commands", "## Reading the answer"], titles
    assert headings[1] < 100


def test_every_file_the_docs_link_to_exists():
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).exists(), f"{page.relative_to(ROOT)} links to a missing {target}"
