"""The shared audit's white-box attack (``privcore.audit.whitebox``) on TabDDPM, beside its black-box attack and
the DCR test, on Adult rows at settings small enough for 2 CPU cores.

Each of ``--models`` TabDDPM models trains on a random half of ``--records`` Adult records; every model scores
every record with its denoising loss at 10 timesteps with fixed noise, and the attack learns from the other
folds' models which losses mark members. Reported: per model the white-box AUC and TPR at FPR 0 and 1 % (median
and range), the same attack with membership shuffled among the models (chance), the black-box attack's share
of records with an AUC interval above 0.5 beside its chance share, the DCR test on model 0's output, seconds
and the machine. Small TabDDPM settings (``--steps``, ``--timesteps``, ``--width``) keep a run to about a minute;
the paper-scale run (1,000-record pools, default settings, 10 target models) is ``reproduce_dcr_delusion.py``'s.

Usage: ``python bench/bench_whitebox.py [--models 16] [--records 200] [--steps 300] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=16)
    parser.add_argument("--records", type=int, default=200)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--timesteps", type=int, default=50)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "whitebox_tabddpm.json")
    args = parser.parse_args()

    import torch

    from privcore.audit import THREAT_MODEL, GeneratorFactory, SharedSettings, audit_shared
    from privcore.data import Schema
    from privcore.demo import ADULT_TYPES, load_adult

    real = load_adult().sample(2000, random_state=args.seed).reset_index(drop=True)
    schema = Schema(types=dict(ADULT_TYPES))
    settings = {"timesteps": args.timesteps, "steps": args.steps, "width": args.width, "depth": 2, "batch_size": 64}
    began = time.perf_counter()
    report = audit_shared(real, None, schema, settings=SharedSettings(models=args.models, records=args.records,
                                                                     seed=args.seed),
                          make=GeneratorFactory("tabddpm", settings), whitebox=True,
                          progress=lambda fraction, message: print(f"\r{fraction:4.0%} {message}", end="",
                                                                   file=sys.stderr, flush=True))
    print(file=sys.stderr)
    summary, white = report.summary, report.whitebox.summary
    result = {
        "benchmark": "whitebox_tabddpm",
        "threat_model": THREAT_MODEL,
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "load_average": os.getloadavg(),
                    "torch": torch.__version__},
        "tabddpm_settings": settings, "models": args.models, "records": args.records, "seed": args.seed,
        "seconds": round(time.perf_counter() - began, 1),
        "timings": {k: round(v, 1) for k, v in report.timings.items()},
        "whitebox": {"auc": white["auc"], "tpr_at_fpr_0": white["tpr_at_fpr_0"],
                     "tpr_at_fpr_0.01": white["tpr_at_fpr_0.01"],
                     "share_models_interval_above_0.5": white["share_models_interval_above_0.5"],
                     "chance": white["chance"]},
        "blackbox": {"share_interval_above_0.5": summary["share_interval_above_0.5"],
                     "chance_share_interval_above_0.5": summary["chance_share_interval_above_0.5"],
                     "share_auc_above_0.6": summary["share_auc_above_0.6"],
                     "chance_share_above_0.6": summary["chance_share_above_0.6"]},
        "dcr_test": summary.get("dcr_test"),
        "verdict": summary["verdict"],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
