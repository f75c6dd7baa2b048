"""Start-up cost of the command line: this checkout against a baseline commit, measured in the same run.

Issue 24 asks that the import and set-up cost of ``python -m privcore evaluate`` be halved by importing heavy
modules only when the chosen work needs them. These numbers per checkout, each the median of ``--repeats``
runs, the two checkouts interleaved so that machine load falls on both alike (on a shared 2-core machine
the wall times of single runs vary by a factor of 3 or more; the CPU times vary far less):

- ``parser_seconds``: a fresh interpreter imports the command line and builds its parser (what every
  sub-command pays before it reads its arguments), timed inside the process;
- ``evaluate_dcr_seconds``: the wall time of ``python -m privcore evaluate --demo noisy_copy --metrics dcr``
  (start-up, the demo's tables and one light metric), timed from outside, and ``evaluate_dcr_cpu_seconds``,
  the CPU time (user + system, all threads) the process used;
- ``setup_seconds``: the issue's "import and set-up cost" of that command, from just before the interpreter
  is started until the first metric starts. The command runs through a small launcher (:data:`SETUP`) that
  wraps the evaluation's per-metric function (``_run_metric``, in both layouts) to print the wall clock
  when it is first called, then runs ``privcore`` as ``-m`` would; the parent subtracts the clock it read
  before starting the process. The launcher imports the evaluation module first, which the command itself
  imports before any metric anyway, so the work before the first metric is the command's own.
  ``setup_cpu_seconds``: the CPU time the process had used by then (``time.process_time()``);
- ``import_seconds``: the sum of the self times that ``python -X importtime`` reports for the same command
  (every module the process imports, at start-up or later, e.g. inside the metric), and
  ``privcore_import_seconds``, the cumulative time of ``import privcore`` in that report.

The baseline is checked out with ``git worktree add --detach`` into a temporary folder and removed after.
Both checkouts run with bytecode caching on (``PYTHONDONTWRITEBYTECODE`` removed from the children's
environment) and are run once, untimed, before the timed runs, so that neither pays for compiling its
sources, as an installed package would not.

    python bench/bench_startup.py [--baseline 1928f6a] [--repeats 7]

Writes ``bench/results/startup.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
# Before issue 21 the command line was one module, privcore/cli.py.
PARSER = ("import time; t = time.perf_counter()\n"
          "try:\n    from privcore.cli.main import build_parser\n"
          "except ImportError:\n    from privcore.cli import build_parser\n"
          "build_parser(); print(time.perf_counter() - t)")
# Before issue 21 the evaluation was privcore/evaluate.py (the package's attribute of that name is the
# function, hence sys.modules). The hook prints the wall clock once, when the first metric starts.
SETUP = """import importlib, runpy, sys, time
try:
    evaluation = importlib.import_module("privcore.evaluation.evaluate")
except ImportError:
    evaluation = importlib.import_module("privcore.evaluate")
run_metric = evaluation._run_metric


def first_metric_starts(*args, **kwargs):
    if not getattr(first_metric_starts, "seen", False):
        first_metric_starts.seen = True
        print(f"FIRST_METRIC_STARTS {time.time():.6f} {time.process_time():.6f}", file=sys.stderr, flush=True)
    return run_metric(*args, **kwargs)


evaluation._run_metric = first_metric_starts
sys.argv = ["privcore", *sys.argv[1:]]
runpy.run_module("privcore", run_name="__main__", alter_sys=True)
"""
EVALUATE_DCR = ["evaluate", "--demo", "noisy_copy", "--metrics", "dcr", "--quiet", "--json"]


def _env(tree: Path) -> dict[str, str]:
    # The checkout's own privcore wins over the installed (editable) one; bytecode is cached as when installed.
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def parser_seconds(tree: Path) -> float:
    """Seconds to import the command line and build its parser, in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", PARSER], cwd=tree, env=_env(tree), capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


def evaluate_seconds(tree: Path, out_json: Path) -> tuple[float, float]:
    """Wall seconds of ``evaluate --demo noisy_copy --metrics dcr``, and its CPU seconds (user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "privcore", *EVALUATE_DCR, str(out_json)], cwd=tree, env=_env(tree),
                   capture_output=True, check=True)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # children waited for so far: this one is the difference
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def setup_seconds(tree: Path, out_json: Path) -> tuple[float, float]:
    """Wall seconds from just before the interpreter starts until the first metric of ``evaluate --demo
    noisy_copy --metrics dcr`` starts (see :data:`SETUP`), and the CPU seconds the process had used by then."""
    began = time.time()
    out = subprocess.run([sys.executable, "-c", SETUP, *EVALUATE_DCR, str(out_json)], cwd=tree, env=_env(tree),
                         capture_output=True, text=True, check=True)
    stamps = [line.split()[1:] for line in out.stderr.splitlines() if line.startswith("FIRST_METRIC_STARTS ")]
    return float(stamps[0][0]) - began, float(stamps[0][1])


def import_seconds(tree: Path, out_json: Path) -> tuple[float, float]:
    """``-X importtime`` of ``evaluate --demo noisy_copy --metrics dcr``: the sum of every module's self time
    and the cumulative time of ``import privcore``, in seconds."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "privcore", *EVALUATE_DCR, str(out_json)],
                         cwd=tree, env=_env(tree), capture_output=True, text=True, check=True)
    total, package = 0, 0
    for line in out.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            own, cumulative, name = line[len("import time:"):].split("|")
            if own.strip().isdigit():  # not the header line
                total += int(own)
                if name.strip() == "privcore" and name.startswith(" privcore"):  # the top-level import
                    package = int(cumulative)
    return total / 1e6, package / 1e6


def dcr_risk(report: Path) -> float | None:
    """DCR's risk in a JSON report (the same in both checkouts: only the start-up may change)."""
    document = json.loads(report.read_text(encoding="utf-8"))
    metrics = document.get("metrics", document.get("results", {}))
    return metrics.get("dcr", {}).get("risk")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="1928f6a", help="commit to compare with (the issue's)")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", default=str(RESULTS / "startup.json"))
    args = parser.parse_args()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    load_before = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch) / "baseline"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base), args.baseline], cwd=ROOT, check=True)
        try:
            trees = {"baseline": base, "head": ROOT}
            kinds = ("parser", "evaluate", "evaluate_cpu", "setup", "setup_cpu", "imports", "privcore_import")
            runs: dict[str, dict[str, list[float]]] = {k: {kind: [] for kind in kinds} for k in trees}
            for name, tree in trees.items():  # untimed: writes each checkout's bytecode cache
                evaluate_seconds(tree, Path(scratch) / f"{name}.json")
            for _ in range(args.repeats):
                for name, tree in trees.items():  # interleaved: load falls on both alike
                    out_json = Path(scratch) / f"{name}.json"
                    runs[name]["parser"].append(parser_seconds(tree))
                    wall, cpu = evaluate_seconds(tree, out_json)
                    runs[name]["evaluate"].append(wall)
                    runs[name]["evaluate_cpu"].append(cpu)
                    wall, cpu = setup_seconds(tree, out_json)
                    runs[name]["setup"].append(wall)
                    runs[name]["setup_cpu"].append(cpu)
                    imports, package = import_seconds(tree, out_json)
                    runs[name]["imports"].append(imports)
                    runs[name]["privcore_import"].append(package)
            risks = {name: dcr_risk(Path(scratch) / f"{name}.json") for name in trees}
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False)
    median = {name: {k: statistics.median(v) for k, v in r.items()} for name, r in runs.items()}

    def seconds(kind: str) -> dict[str, float]:
        return {name: round(m[kind], 3) for name, m in median.items()}

    def ratio(kind: str) -> float:  # baseline / head: above 1 is faster
        return round(median["baseline"][kind] / median["head"][kind], 2)

    document = {
        "benchmark": "startup",
        "machine": {"cores": os.cpu_count(), "cpu": platform.processor() or platform.machine()},
        "baseline": args.baseline, "head": head, "repeats": args.repeats, "bytecode_cached": True,
        "command": "python -m privcore " + " ".join(EVALUATE_DCR) + " OUT.json",
        "dcr_risk": risks,
        "parser_seconds": seconds("parser"),
        "evaluate_dcr_seconds": seconds("evaluate"),
        "evaluate_dcr_cpu_seconds": seconds("evaluate_cpu"),
        "setup_seconds": seconds("setup"),
        "setup_cpu_seconds": seconds("setup_cpu"),
        "import_seconds": seconds("imports"),
        "privcore_import_seconds": seconds("privcore_import"),
        "parser_speedup": ratio("parser"),
        "evaluate_dcr_speedup": ratio("evaluate"),
        "evaluate_dcr_cpu_speedup": ratio("evaluate_cpu"),
        "setup_speedup": ratio("setup"),
        "setup_cpu_speedup": ratio("setup_cpu"),
        "import_speedup": ratio("imports"),
        "privcore_import_speedup": ratio("privcore_import"),
        "setup_share_of_baseline": round(median["head"]["setup"] / median["baseline"]["setup"], 3),
        "setup_cpu_share_of_baseline": round(median["head"]["setup_cpu"] / median["baseline"]["setup_cpu"], 3),
        "target": "issue 24: setup_share_of_baseline at most 0.5, evaluate_dcr_seconds clearly lower",
        "load_average_before_after": [load_before, [round(x, 2) for x in os.getloadavg()]],
        "runs": {name: {k: [round(x, 3) for x in v] for k, v in r.items()} for name, r in runs.items()},
    }
    Path(args.out).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in document.items() if k not in ("runs", "machine", "target")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
