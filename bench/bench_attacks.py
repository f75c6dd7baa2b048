"""Time each Anonymeter-style attack with 500 attacks on 50,000-row tables (issue 5's benchmark).

Real, synthetic and control tables of ``--rows`` rows are drawn with replacement (three different
seeds) from the UCI Adult demo table (``privcore.demo.load_adult``; if that package is missing, from
``/work/shared/data/adult.csv.gz`` with the index column dropped and strings stripped). Prints the
seconds per attack and one JSON line. Target: each attack under 60 s on the 2-core machine.

Usage: ``python bench/bench_attacks.py [--rows 50000] [--attacks 500] [--repeat 1]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from privcore.metrics import (  # noqa: E402
    inference,
    linkability,
    singling_out_multivariate,
    singling_out_univariate,
)

ADULT_FALLBACK = Path("/work/shared/data/adult.csv.gz")


def load_source() -> tuple[pd.DataFrame, dict[str, str], str]:
    try:
        from privcore.demo import ADULT_TYPES, load_adult

        return load_adult(), dict(ADULT_TYPES), "privcore.demo.load_adult"
    except ImportError:
        df = pd.read_csv(ADULT_FALLBACK)
        df = df.drop(columns=df.columns[0])
        for col in df.columns:
            if df[col].dtype == object:
                df[col] = df[col].str.strip().replace("?", np.nan)
        types = {c: ("numerical" if pd.api.types.is_numeric_dtype(df[c]) else "categorical") for c in df.columns}
        for c in ("gender", "income"):
            types[c] = "binary"
        return df, types, str(ADULT_FALLBACK)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--attacks", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()

    source, types, origin = load_source()
    tables = [
        source.sample(args.rows, replace=True, random_state=s).reset_index(drop=True) for s in (1, 2, 3)
    ]
    real, synthetic, control = tables
    cols = list(types)
    half = len(cols) // 2
    aux = (cols[:half], cols[half:])
    secret = "income" if "income" in types else cols[-1]
    runs = {
        "singling_out_univariate": lambda: singling_out_univariate(
            real, synthetic, control, column_types=types, n_attacks=args.attacks),
        "singling_out_multivariate": lambda: singling_out_multivariate(
            real, synthetic, control, column_types=types, n_attacks=args.attacks),
        "linkability": lambda: linkability(
            real, synthetic, control, column_types=types, aux_cols=aux, n_attacks=args.attacks),
        "inference": lambda: inference(
            real, synthetic, control, column_types=types, secret=secret, n_attacks=args.attacks),
    }
    seconds: dict[str, float] = {}
    risks: dict[str, float] = {}
    for name, run in runs.items():
        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            out = run()
            best = min(best, time.perf_counter() - t0)
        seconds[name] = round(best, 3)
        risks[name] = round(out.risk, 4)
        print(f"{name:28s} {best:8.2f} s   risk {out.risk:.3f}   main {out.n_main}/{out.result.n_main_total}",
              flush=True)
    print(json.dumps({
        "benchmark": "attacks",
        "rows": args.rows,
        "n_attacks": args.attacks,
        "source": origin,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "seconds": seconds,
        "risk": risks,
        "target_seconds": 60,
        "all_under_target": all(v < 60 for v in seconds.values()),
    }))


if __name__ == "__main__":
    main()
