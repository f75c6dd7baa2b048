"""Issue 24: the engine's passes with and without tiles (privcore/engine/tiles.py), in the same process.

For each size in ``--rows``: Adult's noisy copy (issue 24's case; distinct rows beyond 20,000) encoded in E, and
each kind of pass the 17 metrics run, on one thread (the pass's own speed, not the machine's cores), alternating
the untiled path (``tiles.applies`` patched to refuse) and the tiled one ``--repeats`` times:

- top two real→synthetic, with the farthest pair (CVP, AIR, IdScore's space);
- both ways real⇄synthetic with the farthest pair (DCR, NNAA);
- within one table (NNAA, Auth), as the sweep of each pair once.

Every result of both paths must be identical (neighbours, distances, extremes). Writes ``results/tiles.json``
with the best time of each and their ratio.

Usage: ``python bench/bench_tiles.py --rows 10000,40000 [--repeats 2] [--out results/tiles.json]``
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _adult import noisy_copy_case  # noqa: E402

from privcore.data.prepare import prepare  # noqa: E402
from privcore.engine import (  # noqa: E402
    EuclideanSpace,  # noqa: E402
    nearest_two,  # noqa: E402
    nearest_two_both_ways,
    nearest_two_within,
    tiles,  # noqa: E402
)


def _passes(real, synthetic):
    return {
        "top_two_with_extremes": lambda: nearest_two(real, synthetic, with_extremes=True, workers=1),
        "both_ways_with_extremes": lambda: nearest_two_both_ways(real, synthetic, with_extremes=True, workers=1),
        "within_one_table": lambda: nearest_two_within(real, workers=1),
    }


def _arrays(result):
    """Every array and extreme of a pass's result, flattened for comparison."""
    out = []
    for part in result if isinstance(result, tuple) else (result,):
        if part is None:
            continue
        if hasattr(part, "distance"):
            out += [part.distance, part.index]
        else:
            out += [np.array([part.d_min, part.d_max])]
    return out


def measure(rows: int, repeats: int) -> dict:
    real, synthetic, schema = noisy_copy_case(rows, distinct=rows > 20_000)
    data = prepare(real, synthetic, schema)
    space = EuclideanSpace(data.real, [data.synthetic], data.schema)
    y, z = space.transform(data.real), space.transform(data.synthetic)
    applies = tiles.applies
    out = {"rows": rows, "dims": int(y.shape[1]), "passes": {}}
    for name, run in _passes(y, z).items():
        seconds = {"untiled": [], "tiled": []}
        reference = None
        for _ in range(repeats):
            for mode in ("untiled", "tiled"):
                tiles.applies = applies if mode == "tiled" else (lambda *args: False)
                try:
                    with threadpool_limits(limits=1, user_api="blas"):
                        start = time.perf_counter()
                        result = run()
                        seconds[mode].append(time.perf_counter() - start)
                finally:
                    tiles.applies = applies
                arrays = _arrays(result)
                if reference is None:
                    reference = arrays
                elif not all(np.array_equal(a, b) for a, b in zip(arrays, reference)):
                    raise AssertionError(f"{name} at {rows} rows: the tiled and untiled results differ")
        best = {mode: round(min(values), 3) for mode, values in seconds.items()}
        out["passes"][name] = {**best, "ratio_untiled_over_tiled": round(best["untiled"] / best["tiled"], 2),
                               "identical": True}
        print(f"{rows} rows, {name}: untiled {best['untiled']} s, tiled {best['tiled']} s "
              f"(x{out['passes'][name]['ratio_untiled_over_tiled']})", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="10000,40000")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "tiles.json"))
    args = parser.parse_args()
    import os

    results = {
        "issue": 24,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "machine": platform.machine(),
                    "load_average_at_start": [round(x, 2) for x in os.getloadavg()]},
        "threads": 1,
        "sizes": [measure(int(rows), args.repeats) for rows in args.rows.split(",")],
    }
    Path(args.out).write_text(json.dumps(results, indent=1) + "\n")
    print("written", args.out)


if __name__ == "__main__":
    main()
