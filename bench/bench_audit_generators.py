"""What a membership audit costs per generator, and what the shared design saves (issue 22's benchmark).

Three parts, recorded in ``bench/results/audit_generators.json``:

(a) fits: one fit on 1,000 Adult rows plus a sample of 1,000 rows, the median of ``--repeats`` runs in this
    process, for ``privbayes``, ``cart``, ``independent_histograms`` and ``sdv_ctgan``. The first three run with
    one BLAS thread (as every audit task does), so two cores run two fits at once: their rate on 2 cores is
    twice the one-core rate. CTGAN trains with torch, which uses every core for one fit: its rate is the
    measured one. CTGAN runs 300 epochs when probes at 2 and 10 epochs predict a fit under ``--ctgan-limit``
    seconds, else as many as fit in it (recorded); it is skipped with a note when SDV is not installed.
(b) designs: the shared design's whole audit of 1,000 records with ``--models`` privbayes models on 2 processes,
    against the targeted design at today's defaults (10 targets × (2 × 50 shadow + 20 evaluation) = 1,200 fits,
    which run in one process). The targeted audit runs when the measured fit rate predicts it under
    ``--targeted-limit`` seconds; otherwise its seconds are extrapolated from (a), labelled as such.
(c) Dask: the same shared audit on ``local:1`` and ``local:2``: seconds, and whether the JSON (less the
    ``seconds`` and ``timings`` fields) is identical to the run in processes.

Usage: ``python bench/bench_audit_generators.py [--repeats 3] [--models 64] [--skip-ctgan]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from threadpoolctl import threadpool_limits  # noqa: E402

from privcore.audit import AuditSettings, GeneratorFactory, SharedSettings, audit, audit_shared  # noqa: E402
from privcore.data import Schema  # noqa: E402
from privcore.demo import ADULT_TYPES, load_adult, load_scenario  # noqa: E402
from privcore.generators import list_generators, make_generator  # noqa: E402

ROWS = 1000
SINGLE_THREAD = ("privbayes", "cart", "independent_histograms")


def log(message: str) -> None:
    """Progress on stderr (a run takes about ten minutes)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def one_fit(name: str, training, population, seed: int, **settings) -> float:
    """Seconds of one fit on ``training`` and a sample of as many rows (the unit of work of both designs)."""
    generator = make_generator(name, population=population, **settings)
    began = time.perf_counter()
    generator.fit(training, dict(ADULT_TYPES))
    generator.sample(len(training), seed=seed)
    return time.perf_counter() - began


def fits(repeats: int, ctgan_limit: float, skip_ctgan: bool) -> dict:
    adult = load_adult()
    training = adult.sample(ROWS, random_state=0).reset_index(drop=True)
    population = adult.drop(training.index).sample(2000, random_state=1).reset_index(drop=True)
    out = {}
    for name in SINGLE_THREAD:
        log(f"fits: {name}")
        with threadpool_limits(limits=1, user_api="blas"):
            one_fit(name, training, population, 99)  # warm-up: imports and caches, not the fit's own cost
            times = [one_fit(name, training, population, r) for r in range(repeats)]
        median = statistics.median(times)
        out[name] = {"seconds_per_fit": round(median, 4), "runs": [round(t, 4) for t in times],
                     "fits_per_second_one_core": round(1 / median, 2), "fits_per_second_2_cores": round(2 / median, 2),
                     "how": "one BLAS thread per fit; 2 cores = two fits at once (twice the one-core rate)"}
    spec = next(s for s in list_generators() if s.name == "sdv_ctgan")
    if skip_ctgan or not spec.installed:
        out["sdv_ctgan"] = {"skipped": "SDV not installed" if not spec.installed else "--skip-ctgan"}
        return out
    import sdv.single_table  # noqa: F401 - imported before the probes, so that neither counts the import
    import torch

    # Two probes: SDV's preprocessing (a Gaussian mixture per numeric column) costs tens of seconds whatever
    # the epochs, so a fit's time is that fixed cost plus a per-epoch slope.
    log("fits: sdv_ctgan")
    short, probe = (one_fit("sdv_ctgan", training, population, 0, epochs=e) for e in (2, 10))
    slope, fixed = max((probe - short) / 8, 1e-3), max(short - 2 * max((probe - short) / 8, 1e-3), 0.0)
    predicted = fixed + 300 * slope
    epochs = 300 if predicted <= ctgan_limit else max(10, int((ctgan_limit - fixed) / slope) // 10 * 10)
    runs = repeats if fixed + epochs * slope <= 60 else 1  # a slow fit is measured once (time budget)
    times = [one_fit("sdv_ctgan", training, population, r, epochs=epochs) for r in range(runs)]
    median = statistics.median(times)
    out["sdv_ctgan"] = {"epochs": epochs, "epochs_note": "300 (SDV's default)" if epochs == 300 else
                        f"fewer than 300: a 300-epoch fit was predicted at {predicted:.0f} s > {ctgan_limit:.0f} s",
                        "probe_seconds": {"2_epochs": round(short, 2), "10_epochs": round(probe, 2)},
                        "predicted_300_epochs_seconds": round(predicted, 1), "seconds_per_fit": round(median, 2),
                        "runs": [round(t, 2) for t in times], "fits_per_second_2_cores": round(1 / median, 4),
                        "torch_threads": torch.get_num_threads(),
                        "how": "one fit at a time, torch using every core (the measured rate)"}
    return out


def strip(document: dict) -> dict:
    return {k: v for k, v in document.items() if k not in ("seconds", "timings")}


def designs(models: int, fit_rate_one_core: float, targeted_limit: float) -> tuple[dict, dict]:
    demo = load_scenario("fresh_sample", n=2 * ROWS)  # 1,000 audited records, 1,000 others as the population
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)
    make = GeneratorFactory("privbayes")
    settings = SharedSettings(models=models, records=ROWS, seed=0)

    def shared(**where):
        began = time.perf_counter()
        report = audit_shared(demo.real, None, schema, settings=settings, make=make, generator_name="privbayes",
                              **where)
        return time.perf_counter() - began, strip(report.to_dict()), report

    log("designs: shared")
    seconds, reference, report = shared(workers=2)
    part_b = {"shared": {"records": ROWS, "models": models, "fits": models, "workers": 2, "seconds": round(seconds, 1),
                         "timings": {k: round(v, 1) for k, v in report.timings.items()},
                         "records_scored": report.summary["records_scored"],
                         "share_interval_above_0.5": report.summary["share_interval_above_0.5"]}}
    targeted_fits = 10 * (2 * 50 + 20)
    predicted = targeted_fits / fit_rate_one_core  # the targeted audit runs its fits in one process
    entry = {"targets": 10, "fits": targeted_fits, "training_rows": ROWS, "workers": 1,
             "predicted_seconds_from_fit_rate": round(predicted, 1)}
    if predicted <= targeted_limit:
        log("designs: targeted")
        began = time.perf_counter()
        # Two training sets of 1,000 rows and a target pool need more than the shared design's 2,000 rows.
        big = load_scenario("fresh_sample", n=5 * ROWS)
        audit(big.real, None, schema, settings=AuditSettings(targets=5, random_targets=5, training_rows=ROWS, seed=0),
              generator_name="privbayes", make=make)
        entry.update(seconds=round(time.perf_counter() - began, 1), measured=True)
    else:
        entry.update(seconds=round(predicted, 1), measured=False,
                     note=f"not run (--targeted-limit {targeted_limit:g} s): extrapolated from the measured "
                     "privbayes fit rate, fits only (features and meta-classifiers not counted), so a lower bound")
    part_b["targeted"] = entry
    part_b["fits_ratio_targeted_to_shared"] = round(targeted_fits / models, 1)
    part_b["records_per_targeted_record"] = f"{ROWS} records audited against 10"
    part_c = {}
    for address in ("local:1", "local:2"):
        log(f"dask: {address}")
        seconds, document, _ = shared(cluster=address)
        part_c[address] = {"seconds": round(seconds, 1), "identical_json": document == reference,
                           "includes": "starting and stopping the LocalCluster"}
    return part_b, part_c


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", type=int, default=64)
    parser.add_argument("--ctgan-limit", type=float, default=180.0, help="seconds a 300-epoch CTGAN fit may take")
    parser.add_argument("--targeted-limit", type=float, default=600.0, help="seconds the targeted audit may take")
    parser.add_argument("--skip-ctgan", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "audit_generators.json"))
    args = parser.parse_args()
    began = time.perf_counter()
    part_a = fits(args.repeats, args.ctgan_limit, args.skip_ctgan)
    part_b, part_c = designs(args.models, part_a["privbayes"]["fits_per_second_one_core"], args.targeted_limit)
    record = {
        "benchmark": "audit_generators", "rows_per_fit": ROWS, "fits": part_a, "designs": part_b, "dask": part_c,
        "machine": {"cpus": os.cpu_count(), "usable_cores": len(os.sched_getaffinity(0)),
                    "python": platform.python_version(), "machine": platform.machine()},
        "limits": {"ctgan_limit_seconds": args.ctgan_limit, "targeted_limit_seconds": args.targeted_limit,
                   "repeats": args.repeats},
        "total_seconds": round(time.perf_counter() - began, 1),
    }
    Path(args.out).write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
