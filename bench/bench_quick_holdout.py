"""The dashboard's default choice with a holdout: the "quick" preset (the 15 review metrics that train no model and
every membership attack, the verdict's decisive evidence), this checkout against a baseline commit in the same run.

Case: ``--rows`` (default 10,000) Adult rows, ``--rows`` other Adult rows as the holdout (seeded, disjoint), and a
noisy copy of the real rows (``privcore.demo.generate("noisy_copy")``). Each checkout runs ``evaluate()`` in a fresh
process (``PYTHONPATH`` set to it, the case built by this checkout's ``bench/_adult.py``), alternating ``--repeats``
times, after a small warm-up evaluation. Medians count. Identical results: every metric's risk, raw value and
interval equal between the checkouts.

    python bench/bench_quick_holdout.py [--baseline ce47c93] [--rows 10000] [--repeats 2]

Writes ``bench/results/quick_holdout.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

from _adult import worktree  # noqa: E402
from bench_scale import machine, run_python  # noqa: E402

EVALUATE = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from _adult import ADULT_TYPES, adult_schema, load_adult
from privcore import evaluate
from privcore.demo import generate
from privcore.metrics.registry import quick_metrics
rows = int(sys.argv[2])
adult = load_adult()
order = np.random.default_rng(0).permutation(len(adult))
real = adult.iloc[order[:rows]].reset_index(drop=True)
holdout = adult.iloc[order[rows : 2 * rows]].reset_index(drop=True)
synthetic = generate("noisy_copy", real, types=dict(ADULT_TYPES), n=rows, seed=0)
schema, ids = adult_schema(), quick_metrics(True)
evaluate(real.head(300), synthetic.head(300), schema, holdout=holdout.head(300), metrics=ids, seed=0)
started = time.perf_counter()
report = evaluate(real, synthetic, schema, holdout=holdout, metrics=ids, seed=0)
total = time.perf_counter() - started
print(json.dumps({"total_seconds": round(total, 3), "seconds": {m: round(report[m].seconds, 4) for m in ids},
                  "results": {m: [report[m].risk, report[m].raw,
                                  None if report[m].interval is None else list(report[m].interval)] for m in ids}}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="ce47c93")
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", default=str(BENCH / "results" / "quick_holdout.json"))
    args = parser.parse_args()
    baseline = worktree(args.baseline)
    runs: dict[str, list[dict]] = {"baseline": [], "this": []}
    for repeat in range(args.repeats):
        for name, tree in (("baseline", baseline), ("this", ROOT)):
            runs[name].append(run_python(EVALUATE, tree, args.rows))
            print(f"  repeat {repeat + 1} {name}: {runs[name][-1]['total_seconds']} s", flush=True)
    medians = {name: statistics.median(r["total_seconds"] for r in rs) for name, rs in runs.items()}
    ids = list(runs["this"][0]["seconds"])
    different = [m for m in ids if runs["this"][0]["results"][m] != runs["baseline"][0]["results"][m]]
    out = {
        "issue": 24,
        "machine": machine(),
        "baseline": args.baseline,
        "this_commit": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                      text=True).stdout.strip(),
        "rows": args.rows,
        "repeats": args.repeats,
        "total_seconds": {name: [r["total_seconds"] for r in rs] for name, rs in runs.items()},
        "ratio_baseline_over_this": round(medians["baseline"] / medians["this"], 3),
        "per_metric_median_seconds": {m: {name: statistics.median(r["seconds"][m] for r in rs)
                                          for name, rs in runs.items()} for m in ids},
        "results_identical": not different,
        "results_different": different,
    }
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"quick preset with a holdout at {args.rows} rows: {medians['baseline']:.2f} s -> {medians['this']:.2f} s "
          f"(x{out['ratio_baseline_over_this']}); results identical: {not different}")
    if different:
        raise SystemExit(f"results differ: {different}")


if __name__ == "__main__":
    main()
