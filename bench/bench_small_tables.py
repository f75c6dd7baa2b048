"""The fixed costs that dominate on small tables, against a baseline commit in the same run (interleaved rounds).

Two cases, each in a fresh process per round:

- ``evaluate``: every metric that trains no classifier (36), on 30-row real, synthetic and holdout tables (four
  columns), the mean of 5 calls after a warm-up call. On tables this small the work is the metrics' fixed costs:
  BLAS thread limits set around every pass, the singling-out search's 200,000 attempts, bootstrap loops.
- ``audit``: the targeted shadow-model audit of ``independent_histograms`` (4 targets, 30 shadow and 20 evaluation
  models a side, 300 training rows of the 2,000-row fresh-sample demo): 200 small generator fits and their features.

The reports must be identical (risks of the evaluation; the audit's JSON without its timings), and are compared.

Run: ``.venv/bin/python bench/bench_small_tables.py [--baseline 46e015f] [--rounds 3]`` →
``bench/results/small_tables.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _adult import worktree  # noqa: E402
from bench_priveval import lscpu  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "small_tables.json"

CASE = r'''
import hashlib, json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np, pandas as pd
import privcore
from privcore import Schema
from privcore.metrics import registry

rng = np.random.default_rng(0)
def table(n):
    return pd.DataFrame({"a": rng.normal(size=n), "b": rng.choice(list("xyz"), n), "c": rng.choice(["p", "q"], n),
                         "d": rng.integers(0, 5, n)})
real, synthetic, holdout = table(30), table(30), table(30)
schema = Schema({"a": "numerical", "b": "categorical", "c": "binary", "d": "categorical"}, sensitive="c",
                key=["a", "b"])
fast = [m.id for m in registry.all_metrics() if not m.uses_classifier]
privcore.evaluate(real, synthetic, schema, metrics=fast, holdout=holdout, strict=False)
started = time.perf_counter()
for _ in range(5):
    report = privcore.evaluate(real, synthetic, schema, metrics=fast, holdout=holdout, strict=False)
evaluate_seconds = (time.perf_counter() - started) / 5
risks = {m: report[m].risk for m in fast if m in report.results}

from privcore.audit.targeted import AuditSettings, audit
from privcore.demo import load_scenario
from privcore.generators import make_generator
demo = load_scenario("fresh_sample", n=2000)
settings = AuditSettings(targets=2, random_targets=2, shadow_models=30, eval_models=20, n_queries=60, seed=1,
                         training_rows=300)
started = time.perf_counter()
result = audit(demo.real, None, Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive),
               settings=settings, make=lambda population: make_generator("independent_histograms", population=population))
audit_seconds = time.perf_counter() - started
document = {k: v for k, v in result.to_dict().items() if k not in ("seconds", "timings")}
print(json.dumps({"privcore": privcore.__file__, "metrics": len(fast), "evaluate_seconds": evaluate_seconds,
                  "audit_seconds": audit_seconds, "risks": risks,
                  "audit_digest": hashlib.sha256(json.dumps(document, sort_keys=True, default=str).encode()).hexdigest()}))
'''


def run(path: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", CASE, str(path)], capture_output=True, text=True, cwd=path)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="46e015f")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    this_commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                 text=True).stdout.strip()
    paths = {"baseline": worktree(args.baseline), "this": ROOT}
    start_cpu = lscpu()
    runs: dict[str, list[dict]] = {"baseline": [], "this": []}
    for round_ in range(args.rounds):
        for name, path in paths.items():
            runs[name].append(run(path))
            print(f"round {round_ + 1} {name}: evaluate {runs[name][-1]['evaluate_seconds']:.3f} s, "
                  f"audit {runs[name][-1]['audit_seconds']:.2f} s", flush=True)
    result = {"what": __doc__.splitlines()[0], "this_commit": this_commit, "baseline": args.baseline,
              "lscpu_at_start": start_cpu, "lscpu_at_end": lscpu(), "rounds": args.rounds}
    for case in ("evaluate_seconds", "audit_seconds"):
        this, base = [r[case] for r in runs["this"]], [r[case] for r in runs["baseline"]]
        result[case] = {"this": [round(x, 4) for x in this], "baseline": [round(x, 4) for x in base],
                        "speed_up": round(statistics.median(base) / statistics.median(this), 2)}
    result["metrics_evaluated"] = runs["this"][0]["metrics"]
    # As JSON text: a metric without a risk on these tables (NaN) is then the same as itself.
    result["risks_identical"] = (json.dumps(runs["this"][0]["risks"], sort_keys=True)
                                 == json.dumps(runs["baseline"][0]["risks"], sort_keys=True))
    result["audit_reports_identical"] = runs["this"][0]["audit_digest"] == runs["baseline"][0]["audit_digest"]
    result["differing_risks"] = {m: [runs["baseline"][0]["risks"].get(m), r]
                                 for m, r in runs["this"][0]["risks"].items()
                                 if json.dumps(runs["baseline"][0]["risks"].get(m)) != json.dumps(r)}
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: result[k] for k in ("evaluate_seconds", "audit_seconds", "risks_identical",
                                              "audit_reports_identical")}, indent=1))


if __name__ == "__main__":
    main()
