"""Fine-tuned against from-scratch shadow models for TabDDPM in the shared audit (issue 38 item 4).

The same pool of Adult records is audited twice with the same models' training sets (the audit's seed fixes them):
once with every model trained from scratch, once with every model fine-tuned from one base model trained on
population rows outside the pool (:mod:`privcore.audit.fine_tune`). Recorded: the seconds of each (the base's fit
counted with the fine-tuned audit), the speed-up, and the agreement of the per-record AUCs — the share of records
whose fine-tuned AUC lies inside the from-scratch AUC's 95 % interval, their correlation, and the exposed shares
(interval above 0.5) of both; the white-box attack's per-model AUC of both.

    python bench/bench_finetune_shadows.py [--pool 200] [--models 16] [--steps 2000] [--fine-steps 300]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privcore.audit import GeneratorFactory, SharedSettings, audit_shared, fine_tuned_factory  # noqa: E402
from privcore.base import usable_cores  # noqa: E402
from privcore.data import Schema  # noqa: E402
from privcore.demo import ADULT_TYPES, SENSITIVE, load_adult  # noqa: E402


def _cpu() -> dict:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    return {k: fields[k].strip() for k in ("Model name", "CPU family", "CPU(s)") if k in fields}


def _whitebox(report) -> dict | None:
    if report.whitebox is None:
        return None
    aucs = [m.auc for m in report.whitebox.models if m.auc is not None]
    tpr0 = [m.tpr_at.get("0") for m in report.whitebox.models if m.tpr_at.get("0") is not None]
    return {"median_auc": float(np.median(aucs)) if aucs else None,
            "median_tpr_at_fpr_0": float(np.median(tpr0)) if tpr0 else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", type=int, default=200, help="audited records (each model trains on half)")
    parser.add_argument("--models", type=int, default=16)
    parser.add_argument("--steps", type=int, default=2000, help="training steps from scratch (and of the base)")
    parser.add_argument("--fine-steps", type=int, default=300, help="fine-tuning steps per model")
    parser.add_argument("--workers", type=int, default=max(1, usable_cores()))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "finetune_shadows.json"))
    args = parser.parse_args()

    adult = load_adult()
    rng = np.random.default_rng(args.seed)
    rows = rng.choice(len(adult), size=args.pool + 2000, replace=False)
    pool = adult.iloc[rows[:args.pool]].reset_index(drop=True)
    population = adult.iloc[rows[args.pool:]].reset_index(drop=True)
    schema = Schema(types=dict(ADULT_TYPES), sensitive=SENSITIVE)
    base_settings = {"steps": args.steps, "threads": 1, "seed": args.seed}
    settings = SharedSettings(models=args.models, records=args.pool, seed=args.seed)

    started = time.perf_counter()
    scratch = audit_shared(pool, None, schema, settings=settings, make=GeneratorFactory("tabddpm", base_settings),
                           generator_name="tabddpm", workers=args.workers)
    scratch_seconds = time.perf_counter() - started
    print(f"from scratch: {scratch_seconds:.0f} s", flush=True)

    started = time.perf_counter()
    factory = fine_tuned_factory(population, schema.types, base_settings=base_settings,
                                 fine_tune={"steps": args.fine_steps, "threads": 1})
    base_seconds = time.perf_counter() - started
    tuned = audit_shared(pool, None, schema, settings=settings, make=factory, generator_name="tabddpm",
                         workers=args.workers)
    tuned_seconds = time.perf_counter() - started
    print(f"fine-tuned: {tuned_seconds:.0f} s (base {base_seconds:.0f} s)", flush=True)

    a = {r.row: r for r in scratch.records if r.auc is not None}
    b = {r.row: r for r in tuned.records if r.auc is not None}
    rows_both = sorted(set(a) & set(b))
    inside = [a[r].auc_interval[0] <= b[r].auc <= a[r].auc_interval[1] for r in rows_both]
    aucs_a = np.array([a[r].auc for r in rows_both])
    aucs_b = np.array([b[r].auc for r in rows_both])
    result = {
        "cpu": _cpu(), "pool_records": args.pool, "models": args.models, "steps": args.steps,
        "fine_tune_steps": args.fine_steps, "workers": args.workers,
        "seconds": {"from_scratch": round(scratch_seconds, 1), "fine_tuned_with_base": round(tuned_seconds, 1),
                    "base": round(base_seconds, 1)},
        "speed_up": round(scratch_seconds / tuned_seconds, 2),
        "agreement": {
            "records": len(rows_both),
            "share_fine_tuned_auc_inside_scratch_interval": float(np.mean(inside)) if inside else None,
            "correlation": float(np.corrcoef(aucs_a, aucs_b)[0, 1]) if len(rows_both) > 2 else None,
            "mean_auc": {"from_scratch": float(aucs_a.mean()), "fine_tuned": float(aucs_b.mean())},
            "share_interval_above_0.5": {"from_scratch": scratch.summary["share_interval_above_0.5"],
                                         "fine_tuned": tuned.summary["share_interval_above_0.5"]},
            "chance_share_interval_above_0.5": {"from_scratch": scratch.summary["chance_share_interval_above_0.5"],
                                                "fine_tuned": tuned.summary["chance_share_interval_above_0.5"]},
        },
        "whitebox": {"from_scratch": _whitebox(scratch), "fine_tuned": _whitebox(tuned)},
    }
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["agreement"], indent=1))
    print(f"speed-up {result['speed_up']}x; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
