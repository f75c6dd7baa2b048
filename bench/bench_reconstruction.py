"""Reconstruction attacks (issue 40): the advantage on the demo's leak ladder, and the time of every attack.

The ladder: the demo's exact copy, noisy copy, rare leak, column resampler and fresh sample, with the attacker knowing
six demographic columns (age, gender, race, marital status, native country, relationship) and the other eight secret.
The advantage (members' score − non-members') should order as the leaks do: copies first, the fresh sample at 0.
Timings: the three metrics alone, each in a fresh evaluation, at ``--rows`` rows per table (10,000 by default; the
target is all three together ≤ 30 s on 2 cores).

    python bench/bench_reconstruction.py [--rows 10000] [--ladder-rows 3000] [--out bench/results/reconstruction.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from privcore import Schema, evaluate  # noqa: E402
from privcore.demo import load_scenario  # noqa: E402

LADDER = ("exact_copy", "noisy_copy", "rare_leak", "column_resampler", "fresh_sample")
DEMOGRAPHICS = ["age", "gender", "race", "marital-status", "native-country", "relationship"]
METRICS = ("recon_nearest", "recon_learned", "recon_best")


def _cpu() -> dict:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {"machine": platform.machine()}
    fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    keep = ("Model name", "CPU family", "CPU(s)")
    return {k: fields[k].strip() for k in keep if k in fields}


def _schema(demo) -> Schema:
    return Schema(types=dict(demo.types), key=DEMOGRAPHICS, sensitive=demo.sensitive, seed=0)


def ladder(rows: int) -> dict:
    out = {}
    for name in LADDER:
        demo = load_scenario(name, n=rows)
        report = evaluate(demo.real, demo.synthetic, _schema(demo), metrics=",".join(METRICS), holdout=demo.holdout,
                          seed=0)
        out[name] = {}
        for metric in METRICS:
            d = report[metric].details
            out[name][metric] = {"members": d.members, "nonmembers": d.nonmembers, "advantage": d.advantage,
                                 "interval": list(d.advantage_interval), "population": d.population,
                                 "attack": d.attack, "seconds": report[metric].seconds}
        print(f"{name:18s} " + "  ".join(f"{m} {out[name][m]['advantage']:+.3f}" for m in METRICS), flush=True)
    return out


def timings(rows: int) -> dict:
    demo = load_scenario("noisy_copy", n=min(rows, 10_000))
    if rows > len(demo.real):  # beyond the demo's size: the bench's Adult sampler
        sys.path.insert(0, str(Path(__file__).parent))
        from _adult import adult_tables

        real, synthetic = adult_tables(rows, generator="noisy_copy", seed=0)
        holdout, _ = adult_tables(rows, generator="noisy_copy", seed=1)
    else:
        real, synthetic, holdout = demo.real, demo.synthetic, demo.holdout
    out = {}
    for metric in METRICS:
        started = time.perf_counter()
        evaluate(real, synthetic, _schema(demo), metrics=metric, holdout=holdout, seed=0)
        out[metric] = time.perf_counter() - started
        print(f"{rows:,} rows: {metric} {out[metric]:.1f} s", flush=True)
    out["all three together"] = None
    started = time.perf_counter()
    evaluate(real, synthetic, _schema(demo), metrics=",".join(METRICS), holdout=holdout, seed=0)
    out["all three together"] = time.perf_counter() - started
    print(f"{rows:,} rows: all three together {out['all three together']:.1f} s", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000])
    parser.add_argument("--ladder-rows", type=int, default=3000)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "reconstruction.json"))
    args = parser.parse_args()
    result = {"cpu": _cpu(), "key": DEMOGRAPHICS, "ladder_rows": args.ladder_rows, "ladder": ladder(args.ladder_rows),
              "seconds": {str(rows): timings(rows) for rows in args.rows}}
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
