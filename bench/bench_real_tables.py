"""The cost of the tables people hold (issue 56 item 7): a code of many values, and a wide table, against the same
tables without them, measured side by side in one run.

Cases (real, synthetic and holdout drawn from one population; the quick preset with the holdout, as the dashboard's
default), each in a fresh process so that its peak memory (``ru_maxrss``) is its own:

- ``base``: ``ROWS`` rows of age, sex, region and income;
- ``code``: the same with a diagnosis code of ``CODES`` values as its last column;
- ``wide``: the same four columns with 96 more (48 numbers, 48 categories of four values);

and the ratios code/base and wide/base of wall time and peak memory. A case that runs past ``--timeout`` seconds
is stopped and recorded as such (its ratio is then a lower bound).

Run: ``.venv/bin/python bench/bench_real_tables.py [--rows 20000] [--codes 5000] [--timeout 1800]`` →
``bench/results/real_tables.json``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_priveval import lscpu  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "real_tables.json"

CASE = r'''
import json, resource, sys, time
import numpy as np, pandas as pd
from privcore import evaluate
from privcore.data import infer_schema

case, rows, codes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def table(seed):
    rng = np.random.default_rng(seed)
    frame = {"age": rng.integers(18, 90, rows), "sex": rng.choice(["F", "M"], rows),
             "region": rng.choice(list("abcd"), rows), "income": rng.normal(50, 10, rows).round(1)}
    if case == "code":
        frame["diagnosis"] = [f"D{c:05d}" for c in rng.integers(0, codes, rows)]
    if case == "wide":
        for j in range(48):
            frame[f"n{j}"] = rng.normal(size=rows).round(3)
            frame[f"c{j}"] = rng.choice(list("wxyz"), rows)
    return pd.DataFrame(frame)

real, synthetic, holdout = table(1), table(2), table(3)
schema = infer_schema(real, sensitive="income")
started = time.perf_counter()
report = evaluate(real, synthetic, schema, metrics="quick", holdout=holdout)
seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "columns": len(real.columns), "failed": [m for m, r in report.items() if r.failed],
                  "slowest": sorted(((round(r.seconds, 2), m) for m, r in report.items()), reverse=True)[:5]}))
'''


def run_case(case: str, rows: int, codes: int, timeout: float) -> dict:
    started = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-c", CASE, case, str(rows), str(codes)], capture_output=True,
                              text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"stopped_after_seconds": timeout, "seconds": None, "peak_mb": None}
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1][:300], "seconds": time.perf_counter() - started}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def ratio(case: dict, base: dict, key: str, timeout: float) -> dict:
    if case.get(key) is not None and base.get(key):
        return {"value": round(case[key] / base[key], 3), "bound": "exact"}
    if key == "seconds" and case.get("stopped_after_seconds") and base.get(key):
        return {"value": round(timeout / base[key], 3), "bound": "at least"}
    return {"value": None, "bound": "not measured"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--codes", type=int, default=5_000)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    cases = {name: run_case(name, args.rows, args.codes, args.timeout) for name in ("base", "code", "wide")}
    base = cases["base"]
    result = {
        "what": __doc__.split("\n\n")[0],
        "cpu": lscpu(),
        "rows": args.rows, "codes": args.codes, "timeout_seconds": args.timeout,
        "cases": cases,
        "ratios": {name: {key: ratio(cases[name], base, key, args.timeout) for key in ("seconds", "peak_mb")}
                   for name in ("code", "wide")},
        "target": "at most 3x the time and memory of the base table (issue 56 item 7)",
    }
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["ratios"], indent=2))


if __name__ == "__main__":
    main()
