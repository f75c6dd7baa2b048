"""The default metric lab on Adult, timed, with what sharing passes saves (issue 9's benchmark).

The default lab: 6 leak types × 5 levels × 3 seeds, the 15 non-classifier review metrics + both singling-out
attacks + inference + the distance membership attack (``privcore.lab.DEFAULT_METRICS``), on 2,000 Adult rows
with a 2,000-row holdout (split by the lab into a 666-row holdout and 1,334 fresh rows). Also recorded:
where the time goes (seconds per leak type, and per metric on one evaluation of the same tables), the
detection table and summaries, and, in the same run, a smaller lab (2 leak types × 3 levels × 2 seeds,
same metrics and rows) with and without the shared passes: the reuse ratio. Target: ≤ 5 minutes on the
2-core machine. Records ``bench/results/lab.json``.

Other work on the machine slows the lab down: the record keeps the process's CPU seconds and the load average
before and after beside the wall-clock seconds.

Usage: ``python bench/bench_lab.py [--rows 2000] [--skip-reuse]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from threadpoolctl import threadpool_limits  # noqa: E402

from privcore import evaluate, lab  # noqa: E402
from privcore.data import Schema  # noqa: E402
from privcore.demo import load_scenario  # noqa: E402
from privcore.generators import make_generator  # noqa: E402


def timed_lab(real, schema, holdout, **settings):
    """Run a lab; returns the result, its seconds and the seconds spent per leak type (from progress)."""
    per_leak: dict[str, float] = defaultdict(float)
    last = {"time": time.perf_counter(), "leak": None}

    def progress(done, total, message):
        now = time.perf_counter()
        if last["leak"] is not None:
            per_leak[last["leak"]] += now - last["time"]
        last.update(time=now, leak=message.split(" at level")[0])
        print(f"\r{done}/{total} {message:50s}", end="", file=sys.stderr, flush=True)

    started, cpu = time.perf_counter(), time.process_time()
    result = lab.run(real, schema, holdout=holdout, progress=progress, **settings)
    seconds = time.perf_counter() - started
    per_leak["cpu_seconds"] = time.process_time() - cpu
    print(file=sys.stderr)
    return result, seconds, {k: round(v, 2) for k, v in per_leak.items()}


def metric_seconds(real, schema, holdout):
    """One evaluation like the lab's (partial copy at level 0.5, shared passes warm): seconds per metric and the
    rest (preparing the tables, the spaces), with BLAS on one thread as in the lab and with its default threads."""
    training, evaluation, population = lab.split_tables(real, holdout, 0)
    table = make_generator("partial_copy", level=0.5, population=population).fit(
        training, schema.types).sample(len(evaluation), 0)
    out = {}
    for label, threads in (("blas_one_thread", 1), ("blas_default_threads", None)):
        with threadpool_limits(limits=threads, user_api="blas"):
            reuse: dict = {}
            evaluate(training, table, schema, metrics=lab.DEFAULT_METRICS, holdout=evaluation, seed=0, reuse=reuse)
            started = time.perf_counter()
            report = evaluate(training, table, schema, metrics=lab.DEFAULT_METRICS, holdout=evaluation, seed=1,
                              reuse=reuse)
            total = time.perf_counter() - started
        per_metric = {m: round(report[m].seconds, 3) for m in lab.DEFAULT_METRICS}
        out[label] = {"seconds": round(total, 3), "outside_metrics": round(total - sum(per_metric.values()), 3),
                      "seconds_per_metric": per_metric}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--skip-reuse", action="store_true", help="do not measure the reuse ratio")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "lab.json"))
    args = parser.parse_args()
    demo = load_scenario("fresh_sample", n=args.rows)
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)

    load_before = os.getloadavg()
    result, seconds, per_leak = timed_lab(demo.real, schema, demo.holdout)
    cpu_seconds = per_leak.pop("cpu_seconds")
    load_after = os.getloadavg()
    one_evaluation = metric_seconds(demo.real, schema, demo.holdout)
    record = {
        "benchmark": "lab", "rows": {"real": args.rows, "holdout_given": args.rows, **result.settings["rows"]},
        "leaks": result.settings["leaks"], "levels": result.settings["levels"], "seeds": result.settings["seeds"],
        "metrics": result.settings["metrics"], "evaluations": result.settings["evaluations"],
        "repeated_tables": result.settings["repeated_tables"], "seconds": round(seconds, 2),
        "process_cpu_seconds": round(cpu_seconds, 2),
        "load_average_1min_before_and_after": [round(load_before[0], 2), round(load_after[0], 2)],
        "seconds_per_evaluation": round(seconds / result.settings["evaluations"], 3),
        "seconds_per_leak_type": per_leak,
        "one_evaluation": one_evaluation,
        "target_seconds": 300, "under_target": seconds <= 300,
        "detection": result.detection, "summary": result.summary, "monotonicity": result.monotonicity,
        "errors": result.errors,
    }
    if not args.skip_reuse:
        small = dict(leaks=["partial_copy", "noisy_copy"], levels=[0, 0.5, 1], seeds=2)
        shared, with_reuse, _ = timed_lab(demo.real, schema, demo.holdout, **small)
        alone, without_reuse, _ = timed_lab(demo.real, schema, demo.holdout, share_passes=False, **small)
        same = [r.risk for r in shared.runs] == [r.risk for r in alone.runs]
        record["reuse"] = {
            "lab": {**small, "evaluations": shared.settings["evaluations"]},
            "seconds_with_shared_passes": round(with_reuse, 2), "seconds_without": round(without_reuse, 2),
            "ratio_without_to_with": round(without_reuse / with_reuse, 2), "identical_risks": same,
        }
    record.update(cpus=os.cpu_count(), python=platform.python_version(), machine=platform.machine())
    Path(args.out).write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps({k: v for k, v in record.items() if k not in ("summary", "monotonicity")}, indent=2,
                     ensure_ascii=False))


if __name__ == "__main__":
    main()
