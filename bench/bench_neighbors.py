"""Benchmark the shared neighbour pass (issue 2): 20,000 × 20,000 Adult rows in E.

Each variant runs in its own process so its peak memory (max RSS) is its own:
- ``engine``: privcore's shared pass — real→synthetic with d_min/d_max, real→real, synthetic→real,
  synthetic→synthetic — exactly what one evaluation computes.
- ``brute``: the naive exact baseline for the same four passes: scipy ``cdist`` on 2,000-row blocks
  (exact pairwise differences), ``argsort`` for the two nearest, global min/max.

Usage: ``python bench/bench_neighbors.py [--rows 20000] [--skip-brute]``; writes
``bench/results/neighbors.json`` and prints a summary with the ratio brute/engine.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _encode(rows: int):
    from _adult import adult_schema, adult_tables

    from privcore.data.prepare import prepare
    from privcore.engine import SharedComputation

    real, synthetic = adult_tables(rows)
    shared = SharedComputation(prepare(real, synthetic, adult_schema()))
    return shared, shared.encoded("E", "real"), shared.encoded("E", "synthetic")


def _engine(rows: int, queue) -> None:
    from _adult import peak_rss_mb

    shared, y, z = _encode(rows)
    baseline_rss = peak_rss_mb()
    started = time.perf_counter()
    for query, reference in (("real", "synthetic"), ("real", "real"), ("synthetic", "real"), ("synthetic", "synthetic")):
        shared.neighbours("E", query, reference)
    seconds = time.perf_counter() - started
    ext = shared.extremes("E", "real", "synthetic")
    nb = shared.neighbours("E", "real", "synthetic")
    queue.put({"seconds": seconds, "peak_rss_mb": peak_rss_mb(), "rss_before_mb": baseline_rss, "dim": y.shape[1],
               "d_min": ext.d_min, "d_max": ext.d_max, "checksum": float(nb.distance.sum())})


def _brute(rows: int, queue) -> None:
    import numpy as np
    from _adult import peak_rss_mb
    from scipy.spatial.distance import cdist

    _, y, z = _encode(rows)
    baseline_rss = peak_rss_mb()
    started = time.perf_counter()
    result = {}
    lo, hi = np.inf, -np.inf
    for name, (q, r, self_pass) in {"yz": (y, z, False), "yy": (y, y, True), "zy": (z, y, False), "zz": (z, z, True)}.items():
        top = np.empty((len(q), 2))
        for s in range(0, len(q), 2000):
            block = cdist(q[s : s + 2000], r)
            if name == "yz":
                lo, hi = min(lo, block.min()), max(hi, block.max())
            if self_pass:
                block[np.arange(len(block)), s + np.arange(len(block))] = np.inf
            top[s : s + 2000] = np.sort(block, axis=1)[:, :2]
        result[name] = top
    seconds = time.perf_counter() - started
    queue.put({"seconds": seconds, "peak_rss_mb": peak_rss_mb(), "rss_before_mb": baseline_rss,
               "d_min": float(lo), "d_max": float(hi), "checksum": float(result["yz"].sum())})


def main() -> None:
    from _adult import run_in_own_process

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--skip-brute", action="store_true")
    args = parser.parse_args()
    engine = run_in_own_process(_engine, args.rows)
    summary = {"rows": args.rows, "machine": platform.machine(), "cpus": mp.cpu_count(), "engine": engine}
    if not args.skip_brute:
        brute = run_in_own_process(_brute, args.rows)
        summary["brute"] = brute
        summary["speedup_vs_brute"] = brute["seconds"] / engine["seconds"]
        summary["same_answer"] = (
            abs(brute["checksum"] - engine["checksum"]) <= 1e-9 * abs(brute["checksum"])
            and brute["d_min"] == engine["d_min"]
            and abs(brute["d_max"] - engine["d_max"]) <= 1e-12 * brute["d_max"]
        )
    out = Path(__file__).resolve().parent / "results" / "neighbors.json"
    out.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
