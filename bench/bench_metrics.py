"""Benchmark the metrics of issue 3 on Adult demo tables.

Parts (each in its own process, so peak memory is its own):
- ``review``: all 17 review metrics at 10,000 real × 10,000 synthetic rows (pairing by row order so HidR
  runs), seconds per metric, and the total of the 15 without a classifier (targets: < 30 s, < 5 s).
- ``naive``: the same run's time for a naive implementation of CVP, Auth and DCR-in-E (full
  ``scipy.spatial.distance.cdist`` matrices, numpy reductions) against privcore's shared pass, as a ratio.
- ``large``: the distance metrics at 100,000 × 100,000 rows; seconds and peak memory (target < 4 GB).
- ``compare``: three synthetic tables against one real table and holdout, with and without ``reuse``.

Usage: ``python bench/bench_metrics.py [--parts review,naive,large] [--rows 10000] [--large-rows 100000]``.
Writes ``bench/results/metrics.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

CLASSIFIERS = ("dmlp", "mir")
DISTANCE = ("cvp", "dvp", "auth", "idscore", "nsnd", "nndr", "dcr", "mdcr", "nnaa", "hidr", "hitr")


def _schema():
    from _adult import adult_schema

    return adult_schema().with_changes(pairing="row")


def _review(rows: int, queue) -> None:
    from _adult import adult_tables, peak_rss_mb

    from privcore import evaluate
    from privcore.metrics import registry

    real, synthetic = adult_tables(rows)
    ids = [m for m in registry.REVIEW_METRICS if m in registry.metric_ids()]
    started = time.perf_counter()
    report = evaluate(real, synthetic, _schema(), metrics=ids, seed=0, strict=True)
    total = time.perf_counter() - started
    seconds = {mid: round(report[mid].seconds, 3) for mid in ids}
    queue.put({
        "rows": rows,
        "total_seconds": round(total, 3),
        "without_classifiers_seconds": round(sum(s for m, s in seconds.items() if m not in CLASSIFIERS), 3),
        "seconds_per_metric": seconds,
        "risk": {mid: report[mid].risk for mid in ids},
        "neighbour_passes": [" ".join(p) for p in report.shared.passes],
        "peak_rss_mb": round(peak_rss_mb(), 1),
    })


def _naive(rows: int, queue) -> None:
    import numpy as np
    from _adult import adult_tables
    from scipy.spatial.distance import cdist

    from privcore.data.prepare import prepare
    from privcore.engine import SharedComputation

    real, synthetic = adult_tables(rows)
    shared = SharedComputation(prepare(real, synthetic, _schema()))
    y, z = shared.encoded("E", "real"), shared.encoded("E", "synthetic")

    started = time.perf_counter()
    d_yz = cdist(y, z)
    d_yy = cdist(y, y)
    np.fill_diagonal(d_yy, np.inf)
    nearest_yz, nearest_yy = d_yz.min(axis=1), d_yy.min(axis=1)
    d_min, d_max = d_yz.min(), d_yz.max()
    norm = (nearest_yz - d_min) / (d_max - d_min)
    tol = 1e-12 * d_max  # metrics.md §0's tie tolerance; cdist's rounding would otherwise split exact ties
    naive = {"cvp": float(np.mean(norm <= 0.2)), "auth": float(1 - np.mean(nearest_yy < nearest_yz - tol))}
    naive_seconds = time.perf_counter() - started
    del d_yz, d_yy

    from privcore import evaluate

    started = time.perf_counter()
    report = evaluate(real, synthetic, _schema(), metrics="cvp,auth", seed=0, strict=True)
    ours_seconds = time.perf_counter() - started
    queue.put({
        "rows": rows,
        "naive_seconds": round(naive_seconds, 3),
        "privcore_seconds": round(ours_seconds, 3),
        "speedup": round(naive_seconds / ours_seconds, 2),
        "agree": all(abs(naive[m] - report[m].risk) < 1e-9 for m in naive),
    })


def _large(rows: int, queue) -> None:
    from _adult import adult_tables, peak_rss_mb

    from privcore import evaluate
    from privcore.metrics import registry

    real, synthetic = adult_tables(rows)
    ids = [m for m in DISTANCE if m in registry.metric_ids()]
    started = time.perf_counter()
    report = evaluate(real, synthetic, _schema(), metrics=ids, seed=0, strict=True)
    queue.put({
        "rows": rows,
        "metrics": ids,
        "total_seconds": round(time.perf_counter() - started, 1),
        "seconds_per_metric": {mid: round(report[mid].seconds, 2) for mid in ids},
        "peak_rss_mb": round(peak_rss_mb(), 1),
    })


def _compare(rows: int, queue) -> None:
    """Three synthetic tables against one real table and holdout (the dashboard's side-by-side case),
    the 15 review metrics without classifiers, with and without ``reuse`` of the shared passes."""
    import numpy as np
    from _adult import adult_schema

    from privcore import evaluate
    from privcore.demo import ADULT_TYPES, generate, load_adult
    from privcore.metrics import registry

    adult = load_adult()
    order = np.random.default_rng(0).permutation(len(adult))
    real = adult.iloc[order[:rows]].reset_index(drop=True)
    holdout = adult.iloc[order[rows : 2 * rows]].reset_index(drop=True)
    tables = {g: generate(g, real, types=dict(ADULT_TYPES), seed=0)
              for g in ("noisy_copy", "column_resampler", "gaussian_copula")}
    ids = [m for m in registry.REVIEW_METRICS if m not in CLASSIFIERS and m != "hidr"]
    timings = {}
    for label, reuse in (("separate", None), ("reuse", {})):
        started = time.perf_counter()
        for synthetic in tables.values():
            evaluate(real, synthetic, adult_schema(), metrics=ids, holdout=holdout, strict=True, reuse=reuse)
        timings[label] = round(time.perf_counter() - started, 2)
    queue.put({"rows": rows, "tables": 3, "metrics": len(ids), "with_holdout": True, "seconds": timings,
               "speedup": round(timings["separate"] / timings["reuse"], 2)})


def main() -> None:
    from _adult import run_in_own_process

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="review,naive,large,compare")
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--large-rows", type=int, default=100_000)
    args = parser.parse_args()
    parts = args.parts.split(",")
    out_path = Path(__file__).resolve().parent / "results" / "metrics.json"
    summary = json.loads(out_path.read_text()) if out_path.exists() else {}
    for part, target, rows in (("review", _review, args.rows), ("naive", _naive, args.rows),
                               ("large", _large, args.large_rows), ("compare", _compare, args.rows)):
        if part in parts:
            summary[part] = run_in_own_process(target, rows)
            print(json.dumps({part: summary[part]}, indent=2), flush=True)
    out_path.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
