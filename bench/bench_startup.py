"""Start-up cost of the command line: this checkout against a baseline commit, measured in the same run.

Issue 24 asks that the import and set-up cost of ``python -m privcore evaluate`` be halved by importing heavy
modules only when the chosen work needs them. Two numbers per checkout, each the median of ``--repeats``
runs, the two checkouts interleaved so that machine load falls on both alike:

- ``parser_seconds``: a fresh interpreter imports the command line and builds its parser (what every
  sub-command pays before it reads its arguments), timed inside the process;
- ``evaluate_dcr_seconds``: the wall time of ``python -m privcore evaluate --demo noisy_copy --metrics dcr``
  (start-up, the demo's tables and one light metric), timed from outside.

The baseline is checked out with ``git worktree add --detach`` into a temporary folder and removed after.

    python bench/bench_startup.py [--baseline 1928f6a] [--repeats 7]

Writes ``bench/results/startup.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
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


def _env(tree: Path) -> dict[str, str]:
    # The checkout's own privcore wins over the installed (editable) one.
    return {**os.environ, "PYTHONPATH": str(tree)}


def parser_seconds(tree: Path) -> float:
    """Seconds to import the command line and build its parser, in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", PARSER], cwd=tree, env=_env(tree), capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


def evaluate_seconds(tree: Path, out_json: Path) -> float:
    """Wall seconds of ``evaluate --demo noisy_copy --metrics dcr``."""
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "privcore", "evaluate", "--demo", "noisy_copy", "--metrics", "dcr",
                    "--quiet", "--json", str(out_json)], cwd=tree, env=_env(tree), capture_output=True, check=True)
    return time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="1928f6a", help="commit to compare with (the issue's)")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", default=str(RESULTS / "startup.json"))
    args = parser.parse_args()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch) / "baseline"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base), args.baseline], cwd=ROOT, check=True)
        try:
            trees = {"baseline": base, "head": ROOT}
            runs: dict[str, dict[str, list[float]]] = {k: {"parser": [], "evaluate": []} for k in trees}
            for _ in range(args.repeats):
                for name, tree in trees.items():  # interleaved: load falls on both alike
                    runs[name]["parser"].append(parser_seconds(tree))
                    runs[name]["evaluate"].append(evaluate_seconds(tree, Path(scratch) / f"{name}.json"))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False)
    median = {name: {k: statistics.median(v) for k, v in r.items()} for name, r in runs.items()}
    document = {
        "benchmark": "startup",
        "machine": {"cores": os.cpu_count(), "cpu": platform.processor() or platform.machine()},
        "baseline": args.baseline, "head": head, "repeats": args.repeats,
        "parser_seconds": {name: round(m["parser"], 3) for name, m in median.items()},
        "evaluate_dcr_seconds": {name: round(m["evaluate"], 3) for name, m in median.items()},
        "parser_speedup": round(median["baseline"]["parser"] / median["head"]["parser"], 2),
        "evaluate_dcr_speedup": round(median["baseline"]["evaluate"] / median["head"]["evaluate"], 2),
        "runs": {name: {k: [round(x, 3) for x in v] for k, v in r.items()} for name, r in runs.items()},
    }
    Path(args.out).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: document[k] for k in ("parser_seconds", "evaluate_dcr_seconds", "parser_speedup",
                                               "evaluate_dcr_speedup")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
