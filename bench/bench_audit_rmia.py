"""The shared audit's stronger black-box attacks (RMIA, the meta-classifier: ``privcore.audit.stronger``) against
today's per-record rule, on Adult, with the fresh-sample null beside each run (issue 38 item 3).

Each run is one shared audit (``audit_shared``): ``models`` generators, each trained on a random half of
``records`` Adult records; the three attacks read the same outputs. Reported per run: the share of records whose
AUC interval is wholly above 0.5 (the "exposed" share) under today's rule, RMIA and the meta-classifier, each beside
its chance share (the training sets shuffled among the models), the mean AUCs, seconds per phase, and the machine
(``lscpu`` model and family, load average: the 2 cores are shared with other sessions).

The issue's size is 1,000 records and 64 models. ``privbayes`` and ``fresh_sample`` run at ``--size``; SDV's CTGAN
runs at ``--ctgan-size`` with ``--ctgan-epochs`` (64 fits at 300 epochs, the issue's size, took 28 minutes on one
thread, ``OMP_NUM_THREADS=1``, about 26 s a fit), with its own fresh-sample null at that size; the JSON records the
sizes as run. The JSON is rewritten after every run (runs of other sizes or generators already in it are kept),
so that ``--only`` can add one run to the others.

``--keep-features DIR`` also writes, per run, the arrays the attacks read (features, membership, usable models,
the distances' slice, rows) to ``DIR/<generator>_<records>x<models>.npz``, so that a change to an attack can be
measured on the same CTGAN outputs without 28 more minutes of fits (``--from-features``: the attacks only).

Usage: ``python bench/bench_audit_rmia.py [--size 1000x64] [--ctgan-size 200x16] [--ctgan-epochs 100]
[--only privbayes,fresh_sample,sdv_ctgan,ctgan_null] [--keep-features DIR] [--from-features DIR] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Rows of Adult drawn as the real table: the audited records and, beyond them, the population.
TABLE_ROWS = 3000


def lscpu() -> dict:
    """The CPU's model name and family (benchmark ratios differ between hosts)."""
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {"model": platform.processor() or platform.machine()}
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {"model": fields.get("Model name", "").strip(), "family": fields.get("CPU family", "").strip(),
            "cpus": os.cpu_count()}


def size(text: str) -> tuple[int, int]:
    """``RECORDSxMODELS`` as two numbers (``1000x64`` → (1000, 64))."""
    records, models = text.lower().split("x")
    return int(records), int(models)


def shares(summary: dict) -> dict:
    """One attack's exposed share beside its chance share, and its mean AUC."""
    return {key: summary.get(key) for key in ("share_interval_above_0.5", "chance_share_interval_above_0.5",
                                               "share_auc_above_0.6", "chance_share_above_0.6", "mean_auc")}


def save_inputs(report, path: Path) -> None:
    """Write the attacks' inputs the audit kept (``keep_inputs=True``: :class:`privcore.audit.AttackInputs`)."""
    import numpy as np

    kept = report.attack_inputs
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, features=kept.features, membership=kept.membership, usable=kept.usable,
                        rows=kept.rows, distances=np.array([kept.distances.start, kept.distances.stop]),
                        folds=kept.folds, seed=kept.seed)


def from_features(path: Path) -> dict:
    """Today's rule, RMIA and the meta-classifier rerun on saved features (``--keep-features``): shares and seconds."""
    import numpy as np

    from privcore.audit import (
        SharedSettings,
        attack_shares,
        crossfit_scores,
        null_shares,
        record_statistics,
        stronger_attack,
    )

    saved = np.load(path)
    features, membership, usable = saved["features"], saved["membership"], saved["usable"]
    folds, seed = int(saved["folds"]), int(saved["seed"])
    distances = slice(*(int(x) for x in saved["distances"]))
    began = time.perf_counter()
    rule = crossfit_scores(features, membership, usable, folds)
    stats = [record_statistics(rule[:, i], membership[:, i], usable, seed, int(row))
             for i, row in enumerate(saved["rows"])]
    today = attack_shares(stats)
    chance = null_shares(features, membership, usable, SharedSettings(models=len(membership),
                                                                      records=membership.shape[1], seed=seed,
                                                                      folds=folds))
    today.update({"chance_share_interval_above_0.5": chance["interval_above_0.5"],
                  "chance_share_above_0.6": chance["auc_above_0.6"]})
    seconds_today = time.perf_counter() - began
    began = time.perf_counter()
    result = stronger_attack(features, membership, usable, distances, folds, seed, saved["rows"], rule=rule)
    strong = result.summary
    # Which records each attack exposes: the same ones, or different ones (a paired comparison of the two shares).
    by_today = np.array([s is not None and s["auc_interval"][0] > 0.5 for s in stats])
    by_meta = np.array([r["meta_auc_interval"] is not None and r["meta_auc_interval"][0] > 0.5 for r in result.records])
    return {"features": path.name, "records": membership.shape[1], "models": len(membership),
            "seconds": {"today": round(seconds_today, 1), "stronger_attack": round(time.perf_counter() - began, 1)},
            "today": shares(today), "rmia": shares(strong["rmia"]), "meta": shares(strong["meta"]),
            "meta_minus_today": round(strong["meta"]["share_interval_above_0.5"]
                                      - today["share_interval_above_0.5"], 4),
            "excess_over_chance": {name: round(entry["share_interval_above_0.5"]
                                               - entry["chance_share_interval_above_0.5"], 4)
                                   for name, entry in (("today", today), ("meta", strong["meta"]))},
            "exposed_records": {"both": int((by_today & by_meta).sum()), "today_only": int((by_today & ~by_meta).sum()),
                                "meta_only": int((by_meta & ~by_today).sum())}}


def run(real, schema, generator: str, settings: dict, records: int, models: int, seed: int,
        keep: Path | None = None) -> dict:
    """One shared audit with the stronger attacks; the three attacks' shares, seconds and phases."""
    from privcore.audit import GeneratorFactory, SharedSettings, audit_shared

    print(f"{generator} {settings or ''}: {records} records, {models} models", file=sys.stderr, flush=True)
    load = os.getloadavg()
    began = time.perf_counter()
    report = audit_shared(real, None, schema, settings=SharedSettings(models=models, records=records, seed=seed),
                          make=GeneratorFactory(generator, settings), keep_inputs=keep is not None,
                          progress=lambda fraction, message: print(f"\r  {fraction:4.0%} {message}", end="",
                                                                   file=sys.stderr, flush=True))
    seconds = time.perf_counter() - began
    if keep is not None:  # after the clock: writing the arrays is not the audit's time
        save_inputs(report, keep / f"{generator}_{records}x{models}.npz")
    print(file=sys.stderr)
    strong = report.stronger.summary
    today = shares(report.summary)
    result = {"generator": generator, "settings": settings, "records": records, "models": models,
              "failed_models": report.splits["failed_models"], "seconds": round(seconds, 1),
              "load_average_at_start": [round(x, 2) for x in load],
              "timings": {k: round(v, 1) for k, v in report.timings.items()},
              "today": today, "rmia": shares(strong["rmia"]), "meta": shares(strong["meta"])}
    result["meta_minus_today"] = round(result["meta"]["share_interval_above_0.5"] - today["share_interval_above_0.5"],
                                       4)
    print(json.dumps({k: result[k] for k in ("today", "rmia", "meta", "seconds")}), file=sys.stderr, flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=size, default=(1000, 64), help="RECORDSxMODELS of privbayes and its null")
    parser.add_argument("--ctgan-size", type=size, default=(200, 16), help="RECORDSxMODELS of sdv_ctgan and its null")
    parser.add_argument("--ctgan-epochs", type=int, default=100)
    parser.add_argument("--only", default="privbayes,fresh_sample,sdv_ctgan,ctgan_null",
                        help="which runs, comma-separated (ctgan_null: fresh_sample at the CTGAN run's size)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "audit_rmia.json")
    parser.add_argument("--keep-features", type=Path, help="also save each run's attack inputs in this folder")
    parser.add_argument("--from-features", type=Path,
                        help="rerun only the attacks on every .npz saved in this folder, printing the shares")
    args = parser.parse_args()
    if args.from_features is not None:
        for path in sorted(args.from_features.glob("*.npz")):
            print(json.dumps(from_features(path)), flush=True)
        return

    from privcore.data import Schema
    from privcore.demo import ADULT_TYPES, load_adult
    from privcore.generators import get_generator_spec

    real = load_adult().sample(TABLE_ROWS, random_state=args.seed).reset_index(drop=True)
    schema = Schema(types=dict(ADULT_TYPES))
    chosen = set(args.only.split(","))
    everything = {"privbayes": ("privbayes", {}, *args.size), "fresh_sample": ("fresh_sample", {}, *args.size),
                  "sdv_ctgan": ("sdv_ctgan", {"epochs": args.ctgan_epochs}, *args.ctgan_size),
                  "ctgan_null": ("fresh_sample", {}, *args.ctgan_size)}
    ctgan = get_generator_spec("sdv_ctgan")
    if not ctgan.installed:
        chosen.discard("sdv_ctgan")
    result = json.loads(args.out.read_text()) if args.out.exists() else {"runs": []}
    result.update({
        "benchmark": "audit_rmia",
        "what": "share of audited records whose AUC interval is wholly above 0.5, under today's per-record rule, "
                "RMIA and the meta-classifier, each beside its chance share (training sets shuffled among the "
                "models); fresh_sample is the null generator at the same size",
        "table": f"Adult, {TABLE_ROWS} rows drawn by the seed", "seed": args.seed,
        "sdv_ctgan": (f"SDV is not installed: {ctgan.install}" if not ctgan.installed else
                      "each run at the size and epochs recorded in it; the issue's size is 1,000 records x 64 models "
                      "at 300 epochs (SDV's default), about 28 minutes of CTGAN fits on one thread of these cores "
                      "(run with OMP_NUM_THREADS=1 beside other work); the smaller runs are kept beside it"),
        "machine": {**lscpu(), "platform": platform.platform(), "shared_with_other_sessions": True},
    })
    for name in [n for n in everything if n in chosen]:
        generator, settings, records, models = everything[name]
        done = run(real, schema, generator, settings, records, models, args.seed, args.keep_features)
        same = (generator, settings, records, models)
        result["runs"] = [r for r in result["runs"]
                          if (r["generator"], r["settings"], r["records"], r["models"]) != same] + [done]
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")  # after every run: a stopped run keeps the others
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
