"""The dashboard's first answer: the default run on the demo, this checkout against a baseline, in the same run.

"Start with demo data" loads the ``noisy_copy`` scenario with its holdout and runs the quick preset (with the holdout:
the membership attacks too). The command line runs the same tables and metrics with
``python -m privcore evaluate --demo noisy_copy --metrics quick``; this bench times that command in the baseline
checkout (default: the commit before the size-matched comparisons, 32ecda5^) and in this one, interleaved so that
load on the machine falls on both alike, each run once untimed first (bytecode written, as an installed package has
it). Per checkout: the median wall and CPU seconds (user + system, all threads) of ``--repeats`` runs, the verdict, and
each metric's own seconds from the JSON report (their sum exceeds the wall time where metrics ran beside each other).

    python bench/bench_first_answer.py [--baseline 32ecda5^] [--repeats 3]

Writes ``bench/results/first_answer.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
COMMAND = ["evaluate", "--demo", "noisy_copy", "--metrics", "quick", "--quiet", "--json"]


def _env(tree: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cpu_model() -> dict[str, str]:
    """``lscpu``'s model name, family and number of CPUs (ratios differ between hosts)."""
    out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    return {k: fields.get(k, "").strip() for k in ("Model name", "CPU family", "Model", "CPU(s)")}


def run_once(tree: Path, out_json: Path) -> tuple[float, float]:
    """Wall and CPU seconds of the command in ``tree`` (exit 0, 1 or 3 are answers; anything else is a failure)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "privcore", *COMMAND, str(out_json)], cwd=tree, env=_env(tree),
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if not out_json.exists():
        raise RuntimeError(f"{tree}: exit {done.returncode}\n{done.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def summary(report: Path) -> dict:
    """The verdict and each metric's seconds in a JSON report (both layouts: ``metrics`` or ``results``)."""
    document = json.loads(report.read_text(encoding="utf-8"))
    metrics = document.get("metrics", document.get("results", {}))
    verdict = document.get("verdict") or {}
    return {"verdict": verdict.get("level") or verdict.get("answer"),
            "metric_seconds": {k: round(float(v.get("seconds") or 0.0), 3) for k, v in metrics.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="32ecda5^", help="commit to compare with")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(RESULTS / "first_answer.json"))
    args = parser.parse_args()

    def rev(ref: str) -> str:
        return subprocess.run(["git", "rev-parse", "--short", ref], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()

    head, baseline = rev("HEAD"), rev(args.baseline)
    dirty = bool(subprocess.run(["git", "status", "--porcelain", "--", "privcore"], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.strip())
    load_before = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch) / "baseline"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base), baseline], cwd=ROOT, check=True)
        try:
            trees = {"baseline": base, "head": ROOT}
            walls: dict[str, list[float]] = {name: [] for name in trees}
            cpus: dict[str, list[float]] = {name: [] for name in trees}
            for name, tree in trees.items():  # untimed: each checkout's bytecode
                run_once(tree, Path(scratch) / f"{name}.json")
            for _ in range(args.repeats):
                for name, tree in trees.items():
                    wall, cpu = run_once(tree, Path(scratch) / f"{name}.json")
                    walls[name].append(round(wall, 2))
                    cpus[name].append(round(cpu, 2))
            reports = {name: summary(Path(scratch) / f"{name}.json") for name in trees}
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False)
    median_wall = {name: statistics.median(v) for name, v in walls.items()}
    median_cpu = {name: statistics.median(v) for name, v in cpus.items()}
    document = {
        "benchmark": "first_answer",
        "what": __doc__.split("\n\n")[1].replace("\n", " "),
        "cpu": cpu_model(),
        "baseline": baseline, "head": head + ("+uncommitted" if dirty else ""), "repeats": args.repeats,
        "command": "python -m privcore " + " ".join(COMMAND) + " OUT.json",
        "wall_seconds": walls, "cpu_seconds": cpus,
        "median_wall_seconds": median_wall, "median_cpu_seconds": median_cpu,
        "head_over_baseline_wall": round(median_wall["head"] / median_wall["baseline"], 3),
        "head_over_baseline_cpu": round(median_cpu["head"] / median_cpu["baseline"], 3),
        "reports": reports,
        "load_average_before_after": [load_before, [round(x, 2) for x in os.getloadavg()]],
    }
    Path(args.out).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: document[k] for k in ("median_wall_seconds", "head_over_baseline_wall",
                                                 "head_over_baseline_cpu")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
