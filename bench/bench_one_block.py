"""Issue 12, item 1: each pair computed once, against the plain engine, in the same run.

For each size in ``--rows`` (Adult rows, real × a noisy copy; beyond Adult's 32,561 rows the real table is
drawn with replacement, so it repeats rows), in space E of all Adult columns and of six columns:

- ``within``: real→real by the plain engine (every pair from both ends) and by
  :func:`privcore.engine.neighbors_both_ways.nearest_two_within` (each pair once);
- ``both_ways``: real→synthetic with extremes plus synthetic→real by the plain engine, and both from one pass
  (:func:`privcore.engine.neighbors_both_ways.nearest_two_both_ways`);
- ``distinct``: the evaluation's real→real pass over the distinct rows (:mod:`privcore.engine.neighbors_distinct`)
  against the same pass over all rows, with the number of distinct rows.

Every pair of results must be identical. Seconds on this machine's default cores. Results:
``bench/results/one_block.json`` with the machine's description.

Usage: ``python bench/bench_one_block.py [--rows 30000,100000]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from _adult import adult_tables  # noqa: E402
from bench_scale import SIX_COLUMNS, machine  # noqa: E402


def timed(compute):
    started = time.perf_counter()
    result = compute()
    return result, round(time.perf_counter() - started, 2)


def same(a, b) -> bool:
    return bool(np.array_equal(a.distance, b.distance) and np.array_equal(a.index, b.index))


def measure(rows: int, columns) -> dict:
    from privcore.data import Schema
    from privcore.data.prepare import prepare
    from privcore.demo import ADULT_TYPES, SENSITIVE
    from privcore.engine import (
        SharedComputation,
        distinct_rows,
        expand_within,
        nearest_two,
        nearest_two_both_ways,
        nearest_two_within,
    )

    real, synthetic = adult_tables(rows)
    if columns:
        real, synthetic = real[list(columns)], synthetic[list(columns)]
    schema = Schema(types={c: ADULT_TYPES[c] for c in real.columns}, sensitive=SENSITIVE)
    shared = SharedComputation(prepare(real, synthetic, schema))
    y, z = shared.encoded("E", "real"), shared.encoded("E", "synthetic")
    plain = dict(method="matrix", device="cpu")
    out = {"rows": rows, "columns": len(real.columns), "dims": int(y.shape[1])}

    import privcore.engine.neighbors_both_ways as both

    floor, both.MIN_ROWS = both.MIN_ROWS, 10**12  # the plain engine's own pass within one table
    (within_plain, _), seconds_plain = timed(lambda: nearest_two(y, y, exclude_self=True, **plain))
    both.MIN_ROWS = floor
    within_once, seconds_once = timed(lambda: nearest_two_within(y))
    out["within"] = {"plain_seconds": seconds_plain, "once_seconds": seconds_once,
                     "ratio": round(seconds_plain / seconds_once, 2), "identical": same(within_plain, within_once)}

    (forward, extremes), seconds_forward = timed(lambda: nearest_two(y, z, with_extremes=True, **plain))
    (backward, _), seconds_backward = timed(lambda: nearest_two(z, y, **plain))
    (fused_forward, fused_backward, fused_extremes), seconds_fused = timed(
        lambda: nearest_two_both_ways(y, z, with_extremes=True))
    out["both_ways"] = {"plain_seconds": round(seconds_forward + seconds_backward, 2), "once_seconds": seconds_fused,
                        "ratio": round((seconds_forward + seconds_backward) / seconds_fused, 2),
                        "identical": same(forward, fused_forward) and same(backward, fused_backward)
                        and extremes == fused_extremes}

    distinct, seconds_distinct_rows = timed(lambda: distinct_rows(y))
    (on_points, _), seconds_points = timed(lambda: nearest_two(distinct.points, distinct.points, exclude_self=True))
    expanded = expand_within(on_points, distinct)
    out["distinct"] = {"distinct_rows": int(len(distinct.points)), "all_rows_seconds": seconds_once,
                       "distinct_seconds": round(seconds_distinct_rows + seconds_points, 2),
                       "ratio": round(seconds_once / (seconds_distinct_rows + seconds_points), 2),
                       "identical": same(expanded, within_once)}
    print(json.dumps(out), flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="30000,100000")
    parser.add_argument("--out", default=str(BENCH / "results" / "one_block.json"))
    args = parser.parse_args()
    record = {"benchmark": "one_block", "machine": machine(), "runs": []}
    for rows in (int(r) for r in args.rows.split(",")):
        for columns in (None, SIX_COLUMNS):
            record["runs"].append(measure(rows, columns))
    record["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    Path(args.out).write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
