"""How close the Audit page's run-time estimate comes to the audit's real run time (issue 22, item 5).

For each generator (``privbayes``, ``independent_histograms`` by default) and each design, on Adult rows:
the estimate of :mod:`privcore.audit.timing` (trial fits on the table, and the seconds the estimate itself
took), then the audit itself in the same process, and the ratio actual / estimate. Target: within a factor 2
either way. The estimate runs first, as on the page, so it pays the first fit's imports and the audit does not.

- shared: ``--records`` records (of ``--records`` × 1.2 rows), ``--models`` models, one process (as the
  dashboard runs it);
- targeted: 2 targets × (2 × 10 shadow + 10 evaluation) models on ``--targeted-rows`` rows;
- CTGAN (when SDV is installed, ``--ctgan-epochs`` > 0): the per-model seconds extrapolated from the probes at
  2 and 8 epochs against one real model (fit, sample, features) at ``--ctgan-epochs`` epochs on the same training
  set (a whole CTGAN audit takes far too long here).

Writes ``results/audit_estimate.json`` with the machine's cores and load average (a busy machine stretches
both numbers alike, as both run in the same minutes).

Usage: ``OMP_NUM_THREADS=1 python bench/bench_audit_estimate.py [--generators privbayes,independent_histograms]
[--models 32] [--ctgan-epochs 50]`` (one thread, as the dashboard's workers run torch).
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

from privcore.audit import (  # noqa: E402
    AuditSettings,
    GeneratorFactory,
    SharedSettings,
    audit,
    audit_shared,
    estimate_shared,
    estimate_targeted,
    plan_shared,
)
from privcore.data import Schema  # noqa: E402
from privcore.demo import ADULT_TYPES, load_adult  # noqa: E402
from privcore.generators import get_generator_spec  # noqa: E402

TARGETED = AuditSettings(targets=1, random_targets=1, shadow_models=10, eval_models=10)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def measure(design: str, name: str, real, schema: Schema, settings) -> dict:
    """The estimate (and its own seconds), then the audit's seconds, in this process."""
    make = GeneratorFactory(name)
    began = time.perf_counter()
    if design == "shared":
        estimate = estimate_shared(real, schema, make, settings, generator_name=name)
    else:
        estimate = estimate_targeted(real, schema, make, settings, generator_name=name)
    estimate_took = time.perf_counter() - began
    began = time.perf_counter()
    if design == "shared":
        report = audit_shared(real, None, schema, settings=settings, generator_name=name, make=make, workers=1)
    else:
        report = audit(real, None, schema, settings=settings, generator_name=name, make=make)
    actual = time.perf_counter() - began
    ratio = actual / estimate.seconds
    log(f"{design} {name}: estimate {estimate.seconds:.1f} s, actual {actual:.1f} s, ratio {ratio:.2f}")
    return {"design": design, "generator": name, "rows": len(real), "models": estimate.models,
            "estimate_seconds": round(estimate.seconds, 2), "actual_seconds": round(actual, 2),
            "ratio_actual_to_estimate": round(ratio, 3), "within_factor_2": bool(0.5 <= ratio <= 2.0),
            "estimate_took_seconds": round(estimate_took, 2),
            "per_model_seconds": round(estimate.model.seconds, 4), "overhead_seconds": round(estimate.overhead, 2),
            "measured": estimate.model.describe(),
            "audit_timings": {k: round(v, 3) for k, v in report.timings.items()}}


def ctgan(real, schema: Schema, settings: SharedSettings, epochs: int) -> dict:
    """One CTGAN model's seconds as extrapolated by the estimate, against one real model at ``epochs`` epochs."""
    if not get_generator_spec("sdv_ctgan").installed:
        return {"skipped": "SDV not installed"}
    make = GeneratorFactory("sdv_ctgan", {"epochs": epochs})
    began = time.perf_counter()
    estimate = estimate_shared(real, schema, make, settings, generator_name="sdv_ctgan")
    estimate_took = time.perf_counter() - began
    outcome = plan_shared(real, schema, settings, make=make).setup.run(0)  # the same training set as the probes
    if outcome.error:
        return {"failed": outcome.error.splitlines()[0]}
    actual = sum(outcome.seconds.values())
    ratio = actual / estimate.model.seconds
    log(f"sdv_ctgan at {epochs} epochs: one model estimated {estimate.model.seconds:.1f} s, actual {actual:.1f} s")
    return {"epochs": epochs, "training_rows": estimate.model.training_rows,
            "estimated_model_seconds": round(estimate.model.seconds, 2), "actual_model_seconds": round(actual, 2),
            "ratio_actual_to_estimate": round(ratio, 3), "within_factor_2": bool(0.5 <= ratio <= 2.0),
            "estimate_took_seconds": round(estimate_took, 2), "measured": estimate.model.describe()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generators", default="privbayes,independent_histograms")
    parser.add_argument("--models", type=int, default=32)
    parser.add_argument("--records", type=int, default=500)
    parser.add_argument("--targeted-rows", type=int, default=1000)
    parser.add_argument("--ctgan-epochs", type=int, default=50, help="0: skip the CTGAN part")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "audit_estimate.json"))
    args = parser.parse_args()
    adult = load_adult()
    schema = Schema(types=dict(ADULT_TYPES))
    shared_real = adult.sample(int(args.records * 1.2), random_state=0).reset_index(drop=True)
    targeted_real = adult.sample(args.targeted_rows, random_state=1).reset_index(drop=True)
    shared = SharedSettings(models=args.models, records=args.records)
    runs = []
    for name in args.generators.split(","):
        runs.append(measure("shared", name, shared_real, schema, shared))
        runs.append(measure("targeted", name, targeted_real, schema, TARGETED))
    extrapolated = (ctgan(shared_real, schema, shared, args.ctgan_epochs) if args.ctgan_epochs > 0
                    else {"skipped": "--ctgan-epochs 0"})
    document = {
        "what": "Audit run-time estimate (trial fits on the table, privcore.audit.timing) against the audit's real "
                "seconds, same process, one worker",
        "target": "actual within a factor 2 of the estimate",
        "all_within_factor_2": all(r["within_factor_2"] for r in runs),
        "machine": {"cores": os.cpu_count(), "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
                    "python": platform.python_version(),
                    "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")},
        "runs": runs,
        "ctgan_per_model": extrapolated,
    }
    Path(args.out).write_text(json.dumps(document, indent=2) + "\n")
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
