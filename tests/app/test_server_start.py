"""The server's start (dashboard/server_start.py): `streamlit run app.py` warms up before the first visitor."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.web.server.app_discovery import discover_asgi_app

from dashboard.server_start import WarmUp
from dashboard.uploads import DEFAULT_DEMO, demo_requested

ROOT = Path(__file__).resolve().parents[2]

#: Run in a fresh interpreter: which of the dashboard's modules a warm-up leaves imported, and what it reports.
PROBE = """
import json, pkgutil, sys
from dashboard.server_start import warm_up
before = set(sys.modules)
done = warm_up(sys.argv[1:])
import dashboard
names = [m.name for m in pkgutil.walk_packages(dashboard.__path__, "dashboard.")]
print(json.dumps({"demo": done.demo, "modules": list(done.modules), "seconds": done.seconds, "line": done.line(),
                  "not_imported": [n for n in names if n not in sys.modules],
                  "newly_imported": len(set(sys.modules) - before)}))
"""


def warm_up_in_fresh_interpreter(*argv: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=180, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(("argv", "expected"), [
    ([], None),
    (["--demo"], DEFAULT_DEMO),
    (["--demo", "rare_leak"], "rare_leak"),
    (["--demo", "--other-flag"], DEFAULT_DEMO),
    (["--something", "--demo", "exact_copy"], "exact_copy"),
])
def test_demo_requested_reads_the_scripts_arguments(argv, expected):
    assert demo_requested(argv) == expected


def test_streamlit_run_finds_the_servers_app_with_its_warm_up():
    # `streamlit run app.py` looks for an ASGI app in the file (by reading it, not running it); without one it
    # would serve the page with no start-up hook, and the first visitor would wait for the imports again.
    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app
    assert found.import_string == "app:app"


@pytest.mark.slow
def test_warm_up_imports_every_dashboard_module_and_prepares_the_named_demo():
    report = warm_up_in_fresh_interpreter("--demo", "rare_leak")
    assert report["not_imported"] == []
    assert len(report["modules"]) >= 30
    assert report["demo"] == "rare_leak"
    assert report["newly_imported"] > 500  # privcore, pandas, scikit-learn, Plotly ... are loaded now, not later
    assert "rare_leak" in report["line"] and f"{len(report['modules'])} dashboard modules" in report["line"]


@pytest.mark.slow
def test_warm_up_leaves_an_unknown_demo_to_the_home_page():
    # The home page explains a wrong name to every visitor; the server must still start.
    report = warm_up_in_fresh_interpreter("--demo", "noisy_cpy")
    assert report["demo"] is None
    assert report["not_imported"] == []


def test_warm_up_line_names_what_was_done():
    assert WarmUp(("a", "b"), None, 1.26).line() == "privcore: warmed up in 1.3 s (2 dashboard modules)."
    assert "and the demo 'noisy_copy'" in WarmUp(("a",), "noisy_copy", 0.5).line()
