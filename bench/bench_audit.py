"""The shadow-model audit at the issue's budget, with where the time goes (issue 10's benchmark).

10 targets (5 vulnerable + 5 random) × (2 × 50 shadow + 20 evaluation) models of the independent-histograms
generator on 2,000 Adult rows, and the same audit's phases (generator fits, samples, features,
meta-classifiers, statistics). The baseline measured in the same run is one evaluation of the 15
non-classifier review metrics on the same table against one synthetic output, for scale. Target:
≤ 5 minutes on the 2-core machine. Records ``bench/results/audit.json``.

Usage: ``python bench/bench_audit.py [--rows 2000] [--generator independent_histograms] [--shadow-models 50]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privcore import evaluate  # noqa: E402
from privcore.audit import AuditSettings, audit  # noqa: E402
from privcore.data import Schema  # noqa: E402
from privcore.demo import load_scenario  # noqa: E402
from privcore.generators import make_generator  # noqa: E402
from privcore.metrics import registry  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--generator", default="independent_histograms")
    parser.add_argument("--shadow-models", type=int, default=50)
    parser.add_argument("--eval-models", type=int, default=20)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "audit.json"))
    args = parser.parse_args()
    demo = load_scenario("fresh_sample", n=args.rows)
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)
    settings = AuditSettings(targets=5, random_targets=5, shadow_models=args.shadow_models,
                             eval_models=args.eval_models, seed=0)
    started = time.perf_counter()
    report = audit(demo.real, None, schema, settings=settings, generator_name=args.generator,
                   make=lambda population: make_generator(args.generator, population=population))
    seconds = time.perf_counter() - started
    quick = [m for m in registry.REVIEW_METRICS if not registry.get(m).uses_classifier]
    started = time.perf_counter()
    evaluate(demo.real, demo.synthetic, schema, metrics=quick, holdout=demo.holdout)
    baseline = time.perf_counter() - started
    record = {
        "benchmark": "audit", "rows": args.rows, "generator": args.generator, "settings": report.to_dict()["settings"],
        "models": 10 * (2 * args.shadow_models + args.eval_models), "seconds": round(seconds, 2),
        "timings": {k: round(v, 2) for k, v in report.timings.items()},
        "baseline_15_metrics_seconds": round(baseline, 2), "ratio_to_baseline": round(seconds / baseline, 1),
        "mean_auc": report.summary["mean_auc"], "share_auc_above_0.6": report.summary["share_auc_above_0.6"],
        "target_seconds": 300, "under_target": seconds <= 300,
        "cpus": os.cpu_count(), "python": platform.python_version(), "machine": platform.machine(),
    }
    Path(args.out).write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
