"""Issue 37: would a cheaper LightGBM keep ``utility_discriminator``'s results? (Why it keeps 100 trees.)

``utility_discriminator`` fits 10 LightGBM models (5 folds on the synthetic table and 5 on the holdout, its
fresh-sample reference), and almost all of its time is LightGBM's boosting. The cheaper settings a speed-up could
use (fewer trees, fewer bins) are allowed only where the AUC stays within the measure's own seed-to-seed spread.
This measures it: for each case (``--rows`` seeded Adult rows as the real table against the holdout, a Gaussian
copula and a column resampler of it; the noisy copy of ``bench_utility_peers`` is told apart perfectly by every
setting), each of ``--seeds`` evaluation seeds (which change the folds, the rows kept and LightGBM's seed) and each
setting, privcore's own ``discriminate`` on the encoded tables with ``make_lgbm`` given the setting. Reported per
case and setting: the mean AUC over the seeds, its seed-to-seed standard deviation, the shift from the default
setting in units of that standard deviation, and the seconds of one ``discriminate`` call on one thread.

Usage: ``python bench/bench_discriminator_trees.py [--rows 10000] [--seeds 5]``. Writes
``bench/results/discriminator_trees.json`` with ``lscpu``'s CPU and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

#: Setting name → LightGBM parameters on top of ``make_lgbm``'s (LightGBM's defaults: 100 trees, learning rate
#: 0.1, 255 bins).
SETTINGS = {
    "default (100 trees)": {},
    "50 trees": {"n_estimators": 50},
    "50 trees, learning rate 0.2": {"n_estimators": 50, "learning_rate": 0.2},
    "63 bins": {"max_bin": 63},
}


def encoded_cases(rows: int) -> dict:
    """(real, other) encoded in E for each case, as ``utility_discriminator`` sees them."""
    import numpy as np
    from _adult import adult_schema, noisy_copy_case

    from privcore.data.prepare import prepare
    from privcore.demo import ADULT_TYPES, generate, load_adult
    from privcore.engine import SharedComputation

    real, _, _ = noisy_copy_case(rows, seed=0)
    schema = adult_schema()
    adult = load_adult()
    used = np.random.default_rng(0).choice(len(adult), size=rows, replace=rows > len(adult))
    rest = np.setdiff1d(np.arange(len(adult)), used)
    holdout = adult.iloc[np.random.default_rng(1).choice(rest, size=rows, replace=len(rest) < rows)].reset_index(drop=True)
    others = {"holdout": holdout,
              "gaussian_copula": generate("gaussian_copula", real, types=dict(ADULT_TYPES), seed=0),
              "column_resampler": generate("column_resampler", real, types=dict(ADULT_TYPES), seed=0)}
    out = {}
    for name, other in others.items():
        shared = SharedComputation(prepare(real, other, schema))
        out[name] = (shared.encoded("E", "real"), shared.encoded("E", "synthetic"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10000)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "discriminator_trees.json"))
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import numpy as np
    from bench_utility_peers import cpu

    import privcore.metrics.classifier as classifier
    from privcore.metrics import discriminate

    make_lgbm = classifier.make_lgbm
    load_before = os.getloadavg()
    cases = encoded_cases(args.rows)
    results = {}
    for case, (real, other) in cases.items():
        results[case] = {}
        for setting, extra in SETTINGS.items():
            classifier.make_lgbm = lambda seed, extra=extra: make_lgbm(seed).set_params(**extra)
            aucs, seconds = [], []
            for seed in range(args.seeds):
                started = time.perf_counter()
                aucs.append(discriminate(real, other, seed, workers=1).auc)
                seconds.append(time.perf_counter() - started)
            results[case][setting] = {"auc_per_seed": aucs, "mean_auc": float(np.mean(aucs)),
                                      "seed_sd": float(np.std(aucs, ddof=1)),
                                      "seconds_per_call_median": float(np.median(seconds))}
            print(case, setting, round(float(np.mean(aucs)), 4), round(float(np.median(seconds)), 3), flush=True)
        classifier.make_lgbm = make_lgbm
        default = results[case]["default (100 trees)"]
        for setting, entry in results[case].items():
            entry["shift_from_default"] = entry["mean_auc"] - default["mean_auc"]
            entry["shift_in_default_seed_sds"] = (entry["shift_from_default"] / default["seed_sd"]
                                                  if default["seed_sd"] else None)
            entry["seconds_ratio_to_default"] = (entry["seconds_per_call_median"]
                                                 / default["seconds_per_call_median"])
    result = {"what": __doc__.split("\n\n")[0], "rows": args.rows, "seeds": args.seeds, "settings": SETTINGS,
              "cpu": cpu(), "load_average_before": load_before, "load_average_after": os.getloadavg(),
              "cases": results}
    Path(args.out).write_text(json.dumps(result, indent=1, default=float) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
