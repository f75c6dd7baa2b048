"""Start-up (issue 24): ``python -m privcore evaluate`` imports the heavy modules only for the metrics and outputs
that need them.

Each case runs the command line in a fresh interpreter, exactly as ``python -m privcore`` does, and reports
which of the watched modules are in ``sys.modules`` when it is done. The negative cases (DCR on the demo or on
files, building the parser) would pass trivially if a module were never imported at all, so the positive
cases show, with the same probe, that choosing a classifier metric loads scikit-learn (and with it
scipy.stats), MIR loads LightGBM, an HTML report loads Plotly and the ``lab`` sub-command loads the lab and
the generators. Speed itself is measured in bench/bench_startup.py, not here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: Third-party modules that cost most of a second at start-up together; none is needed to compute DCR.
HEAVY = ("sklearn", "scipy.stats", "scipy.optimize", "plotly", "lightgbm", "prince", "torch")
#: privcore's own parts that ``evaluate`` does not use (the generators only for ``--demo``).
UNUSED_PARTS = ("privcore.lab", "privcore.report", "privcore.audit")

# Runs privcore as `python -m privcore ARGS` would, then prints the watched modules that were imported.
PROBE = """
import json, runpy, sys
watch = json.loads(sys.argv[1])
sys.argv = ["privcore", *sys.argv[2:]]
code = 0
try:
    runpy.run_module("privcore", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    code = exc.code
print("LOADED " + json.dumps({"code": code, "loaded": [name for name in watch if name in sys.modules]}))
"""

# Imports the command line and builds its parser, as every sub-command does before it reads its arguments.
PARSER_PROBE = """
import json, sys
from privcore.cli.main import build_parser
build_parser()
print("LOADED " + json.dumps({"code": 0, "loaded": [name for name in json.loads(sys.argv[1]) if name in sys.modules]}))
"""


def _loaded(script: str, watch, *args, cwd=REPO) -> list[str]:
    """The modules of ``watch`` that a fresh interpreter running ``script`` with ``args`` has imported."""
    # The environment (PYTHONPATH included) is inherited, so this checkout's privcore is the one run.
    proc = subprocess.run([sys.executable, "-c", script, json.dumps(list(watch)), *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=300)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("LOADED ")]
    assert proc.returncode == 0 and lines, (proc.stdout[-2000:], proc.stderr[-2000:])
    result = json.loads(lines[-1][len("LOADED "):])
    assert result["code"] in (0, None), proc.stderr[-2000:]
    return result["loaded"]


@pytest.fixture(scope="module")
def small_tables(tmp_path_factory) -> Path:
    """Real, synthetic and holdout CSV files of 150 demo rows each (small, so that models fit in a moment)."""
    from privcore import demo

    folder = tmp_path_factory.mktemp("startup")
    data = demo.load_scenario("noisy_copy", n=150)
    for name, table in (("real", data.real), ("synthetic", data.synthetic), ("holdout", data.holdout)):
        table.to_csv(folder / f"{name}.csv", index=False)
    return folder


def test_heavy_modules_are_installed():
    # Otherwise the "not imported" cases below would pass because the modules are missing, not lazy.
    import importlib.util

    missing = [name for name in ("sklearn", "scipy", "plotly", "lightgbm") if importlib.util.find_spec(name) is None]
    assert not missing


@pytest.mark.slow
def test_evaluate_dcr_on_the_demo_imports_no_heavy_module(tmp_path):
    loaded = _loaded(PROBE, HEAVY + UNUSED_PARTS + ("privcore.generators", "pandas", "privcore.metrics.classifier"),
                     "evaluate", "--demo", "noisy_copy", "--metrics", "dcr", "--quiet", "--json", tmp_path / "o.json")
    # The probe sees the modules evaluate needs: pandas, every metric family (registered on first use), and the
    # generators that make the demo's synthetic table.
    assert {"pandas", "privcore.metrics.classifier", "privcore.generators"} <= set(loaded)
    assert not set(loaded) & set(HEAVY + UNUSED_PARTS), loaded
    assert json.loads((tmp_path / "o.json").read_text())["metrics"]["dcr"]["applicable"]


@pytest.mark.slow
def test_evaluate_dcr_on_files_imports_neither_generators_nor_demo(small_tables, tmp_path):
    loaded = _loaded(PROBE, HEAVY + UNUSED_PARTS + ("privcore.generators", "privcore.demo"),
                     "evaluate", "--real", "real.csv", "--synthetic", "synthetic.csv", "--holdout", "holdout.csv",
                     "--metrics", "dcr", "--quiet", "--json", tmp_path / "o.json", cwd=small_tables)
    assert loaded == []


def test_building_the_parser_imports_no_heavy_module():
    loaded = _loaded(PARSER_PROBE, HEAVY + UNUSED_PARTS + ("privcore.generators", "privcore.cli.main"))
    assert loaded == ["privcore.cli.main"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, expected",
    [
        # D-MLP's folds and scaler are scikit-learn's, which loads scipy.stats and scipy.optimize.
        (["--metrics", "dmlp"], {"sklearn", "scipy.stats", "scipy.optimize"}),
        (["--metrics", "mir"], {"sklearn", "lightgbm"}),
        (["--metrics", "dcr", "--html", "{out}/o.html"], {"plotly"}),
    ],
    ids=["dmlp", "mir", "html"],
)
def test_the_metric_or_output_that_needs_a_heavy_module_imports_it(small_tables, tmp_path, args, expected):
    args = [arg.format(out=tmp_path) for arg in args]
    loaded = _loaded(PROBE, HEAVY, "evaluate", "--real", "real.csv", "--synthetic", "synthetic.csv", "--quiet",
                     "--json", tmp_path / "o.json", *args, cwd=small_tables)
    assert expected <= set(loaded), loaded
    report = json.loads((tmp_path / "o.json").read_text())
    assert all(result["applicable"] and result["risk"] is not None for result in report["metrics"].values())
    if "--html" in args:
        assert "</html>" in (tmp_path / "o.html").read_text(encoding="utf-8").lower()


def test_the_lab_sub_command_imports_the_lab_and_the_generators():
    loaded = _loaded(PROBE, ("privcore.lab", "privcore.generators"), "lab", "--help")
    assert loaded == ["privcore.lab", "privcore.generators"]


def test_the_lab_options_are_there_when_it_parses_or_shows_help(capsys):
    # The lab's options are added when it parses or shows its help (privcore.cli.args.Parser), not before.
    from privcore.cli.main import build_parser, main
    from privcore.generators import LADDER
    from privcore.lab import DEFAULT_METRICS

    args = build_parser().parse_args(["lab", "--demo", "adult", "--seeds", "2"])
    assert (args.metrics, args.seeds, args.demo, args.rows) == (",".join(DEFAULT_METRICS), "2", "adult", 3000)
    with pytest.raises(SystemExit) as shown:
        build_parser().parse_args(["lab", "--help"])
    assert shown.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--ladder LABEL=FILE" in text and "(default all: partial_copy," in text
    assert all(leak in text for leak in LADDER)
    assert main(["lab", "--levels", "2"]) == 2  # checked before any table is read
    assert "Leak levels (lab.levels): every value must be a number from 0 to 1" in capsys.readouterr().err
    with pytest.raises(SystemExit) as bad:
        build_parser().parse_args(["lab", "--no-such-option"])
    assert bad.value.code == 2
