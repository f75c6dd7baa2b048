"""Issue 12, item 3: the distance metrics on a Dask cluster against the same evaluation on one machine.

At ``--rows`` Adult rows (default 100,000; real × synthetic, a noisy copy), the 11 distance metrics of the
review are evaluated (each configuration in its own fresh process):

- on this machine alone (every usable core, the default);
- on a ``LocalCluster`` of N worker processes of one thread each, for each N of ``--workers`` (default
  1 and 2; 8 and 16 on a larger machine), started before the clock runs;
- optionally on a running cluster, ``--address tcp://host:8786``.

Reported per configuration: seconds, the extra cost over one machine (``seconds / alone − 1``, target
≤ 20 % at 100k with as many workers as this machine has cores), the peak memory of the calling process, and
whether the JSON report (run times left out) is identical to the one-machine report (it must be).

Results: ``bench/results/dask.json`` with the machine's description.

Usage: ``python bench/bench_dask.py [--rows 100000] [--workers 1,2] [--address tcp://host:8786]``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT))

from _adult import run_in_own_process  # noqa: E402

DISTANCE = ["cvp", "dvp", "auth", "idscore", "nsnd", "nndr", "dcr", "mdcr", "nnaa", "hidr", "hitr"]


def _measure(args: tuple, queue) -> None:
    from _adult import adult_schema, adult_tables, peak_rss_mb

    from privcore import evaluate
    from privcore.base import without_timings
    from privcore.engine import connected

    rows, cluster = args
    real, synthetic = adult_tables(rows)
    schema = adult_schema().with_changes(pairing="row")
    with connected(cluster) as client:  # a LocalCluster starts here, before the clock
        started = time.perf_counter()
        report = evaluate(real, synthetic, schema, metrics=DISTANCE, seed=0, strict=True, cluster=client)
        seconds = time.perf_counter() - started
    document = without_timings(json.loads(report.to_json()))
    queue.put({"cluster": cluster or "this machine alone", "seconds": round(seconds, 1),
               "seconds_per_metric": {m: round(report[m].seconds, 1) for m in DISTANCE},
               "peak_rss_mb_caller": round(peak_rss_mb(), 1),
               "report_sha256": hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--address", default=None)
    parser.add_argument("--out", default=str(BENCH / "results" / "dask.json"))
    args = parser.parse_args()
    from privcore.base import usable_cores

    record = {"benchmark": "dask", "rows": args.rows, "metrics": DISTANCE,
              "machine": {"cpus": os.cpu_count(), "usable_cores": usable_cores(), "python": platform.python_version(),
                          "load_average_at_start": [round(x, 2) for x in os.getloadavg()]}}
    alone = run_in_own_process(_measure, (args.rows, None))
    print(f"alone: {alone['seconds']} s", flush=True)
    runs = [alone]
    clusters = [f"local:{n}" for n in args.workers.split(",") if n] + ([args.address] if args.address else [])
    for cluster in clusters:
        run = run_in_own_process(_measure, (args.rows, cluster))
        run["extra_over_alone"] = round(run["seconds"] / alone["seconds"] - 1.0, 3)
        run["identical_report"] = run["report_sha256"] == alone["report_sha256"]
        print(f"{cluster}: {run['seconds']} s ({run['extra_over_alone']:+.0%}), identical: {run['identical_report']}",
              flush=True)
        runs.append(run)
    record["runs"] = runs
    record["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    Path(args.out).write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
