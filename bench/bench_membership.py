"""Membership attacks before and after the calibration fix (issue 10): AUC and seconds per attack.

Runs ``mia_distance``, ``mia_calibrated`` and ``mia_domias`` on the demo scenarios (exact copy, noisy copy,
fresh sample) at ``--rows`` rows, once with this checkout and once with a git worktree of the baseline
commit (default 320299e, before the fix), each in its own process, and records AUC, advantage and
seconds of both in ``bench/results/membership.json``. Target: every attack ≤ 30 s at 10,000 rows; AUC ≥ 0.95
on the exact copy and 0.45–0.55 on a fresh sample at 3,000 rows.

Usage: ``python bench/bench_membership.py [--rows 10000] [--baseline 320299e] [--scenarios a,b]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _adult import worktree  # noqa: E402

ATTACKS = ("mia_distance", "mia_calibrated", "mia_domias")

MEASURE = r"""
import json, sys, time
from privcore import Schema, evaluate
from privcore.demo import load_scenario
rows, scenarios = int(sys.argv[1]), sys.argv[2].split(",")
out = {}
for name in scenarios:
    d = load_scenario(name, n=rows)
    schema = Schema(types=dict(d.types), key=list(d.key), sensitive=d.sensitive)
    for attack in %r:
        started = time.perf_counter()
        r = evaluate(d.real, d.synthetic, schema, metrics=attack, holdout=d.holdout, params={attack: {"n_boot": 0}})
        res = r[attack]
        out.setdefault(name, {})[attack] = {"auc": res.raw, "advantage": res.risk,
                                            "seconds": round(time.perf_counter() - started, 2)}
print(json.dumps(out))
""" % (ATTACKS,)


def measure(root: Path, rows: int, scenarios: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run([sys.executable, "-c", MEASURE, str(rows), scenarios], capture_output=True, text=True,
                          env=env, cwd=root, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--baseline", default="320299e")
    parser.add_argument("--scenarios", default="exact_copy,noisy_copy,fresh_sample")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "membership.json"))
    args = parser.parse_args()
    after = measure(ROOT, args.rows, args.scenarios)
    before = measure(worktree(args.baseline), args.rows, args.scenarios)
    for name in after:
        for attack in ATTACKS:
            b, a = before[name][attack], after[name][attack]
            print(f"{name:13s} {attack:15s} AUC {b['auc']:.3f} → {a['auc']:.3f}   "
                  f"{b['seconds']:6.1f} s → {a['seconds']:6.1f} s")
    slowest = max(a["seconds"] for s in after.values() for a in s.values())
    record = {
        "benchmark": "membership", "rows": args.rows, "baseline_commit": args.baseline,
        "cpus": os.cpu_count(), "python": platform.python_version(), "machine": platform.machine(),
        "before": before, "after": after, "target_seconds": 30, "slowest_seconds": slowest,
        "all_under_target": slowest <= 30,
    }
    Path(args.out).write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps({"slowest_seconds": slowest, "all_under_target": slowest <= 30}))


if __name__ == "__main__":
    main()
