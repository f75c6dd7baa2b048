"""Reproduce "The DCR Delusion" (Yao et al. 2025) on Adult: generators pass the DCR test, yet the shared-model
membership audit finds people it exposes.

For each generator (``privbayes`` non-private by default; ``sdv_ctgan`` at 300 epochs with ``--ctgan``, which
needs ``pip install 'privcore[sdv]'`` and, on 2 cores, hours):

``fresh_sample`` (real rows no model trained on) runs beside them as the negative control.

1. **The DCR test's pass rate.** ``--dcr-tables`` times: a fresh training set of ``--train-rows`` Adult rows,
   one synthetic table of the same size, and the DCR holdout test (``dcr_test``) against as many other Adult
   rows; the share of tables that pass.
2. **The shared audit** (``privcore.audit.shared``): a pool of ``2 × --train-rows`` Adult records, ``--models``
   generators each trained on a random half of it (so each training set has about ``--train-rows`` rows),
   every record of the pool scored. Recorded: the share of records whose AUC is above 0.6 and 0.8, the share
   whose 95 % interval lies above 0.5, each next to what chance alone gives, the DCR test on one output, and
   the most exposed records with the sentence of evidence and their nearest-record distances.

3. **Per target model** (the paper's Table 1 reading, for ``tabddpm`` with ``--generators tabddpm,fresh_sample
   --train-rows 200``: each model then has about 200 members and 200 non-members in the pool): the black-box
   attacks' TPR at FPR 0 per model (today's rule, and RMIA and the meta-classifier with ``--stronger``) and, for
   a generator with a per-record loss, the white-box attack's (MIDST's white-box track), median and range over
   the first ``--targets`` models and over all, beside the paper's figures for TabDDPM.

Writes ``bench/results/dcr_delusion.json`` and ``bench/results/dcr_delusion.html`` (per-record AUC against
the record's distance to its nearest other real record: the picture in which a distance proxy sees nothing).

    python bench/reproduce_dcr_delusion.py [--models 128] [--workers 2] [--ctgan]
    python bench/reproduce_dcr_delusion.py --generators tabddpm,fresh_sample --train-rows 200 --models 32 \
        --stronger --gpu --merge      # the diffusion table (minutes on a GPU; hours on 2 cores)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _adult import progress_printer  # noqa: E402 (bench/, the script's own folder)

from privcore import evaluate  # noqa: E402
from privcore.audit import GeneratorFactory, SharedSettings, audit_shared  # noqa: E402
from privcore.base import usable_cores  # noqa: E402
from privcore.data import Schema  # noqa: E402
from privcore.demo import ADULT_TYPES, SENSITIVE, load_adult  # noqa: E402
from privcore.generators import make_generator  # noqa: E402

RESULTS = ROOT / "bench" / "results"
#: The paper's CTGAN: SDV's defaults with 300 epochs.
GENERATORS = {"privbayes": {}, "sdv_ctgan": {"epochs": 300}, "fresh_sample": {}, "tabddpm": {}}
#: What the paper reports for TabDDPM (its Table 1, on Berka, 10 target models of 200 members and 200 non-members,
#: MIDST's attacks with 20 shadow models); its text gives these bounds, not the cells.
PAPER_TABDDPM = {"dcr_test": "every synthetic table passes",
                 "black_box_tpr_at_fpr_0": "above 5 % on most target models, above 10 % on some",
                 "white_box_tpr_at_fpr_0": "above 20 % on every target model"}


def one_dcr_table(adult, schema: Schema, name: str, settings: dict, rows: int, picked: np.ndarray, t: int) -> dict:
    """The DCR holdout test on one synthetic table from the training set ``picked[:rows]``."""
    train = adult.iloc[picked[:rows]].reset_index(drop=True)
    holdout = adult.iloc[picked[rows:]].reset_index(drop=True)
    generator = make_generator(name, population=holdout, key=schema.key_columns, sensitive=schema.sensitive,
                               **settings)
    synthetic = generator.fit(train, dict(schema.types)).sample(rows, seed=t)
    result = evaluate(train, synthetic, schema, metrics="dcr_test", holdout=holdout, seed=t)["dcr_test"]
    return {"passes": bool(result.details.passes), "risk": result.risk,
            "p_synthetic": result.details.p_synthetic, "p_holdout": result.details.p_holdout}


def dcr_pass_rate(adult, schema: Schema, name: str, settings: dict, tables: int, rows: int, seed: int,
                  workers: int = 1) -> dict:
    """The DCR holdout test on ``tables`` synthetic tables, each from a fresh training set of ``rows`` rows, the
    tables fitted on ``workers`` processes (the draws and the results do not depend on it)."""
    rng = np.random.default_rng(seed)
    picks = [rng.choice(len(adult), size=2 * rows, replace=False) for _ in range(tables)]
    if workers <= 1 or tables <= 1:
        outcomes = [one_dcr_table(adult, schema, name, settings, rows, picked, t) for t, picked in enumerate(picks)]
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # spawn: a CUDA generator cannot run in a forked child of a process that touched CUDA.
        with ProcessPoolExecutor(min(workers, tables), mp_context=multiprocessing.get_context("spawn")) as pool:
            outcomes = list(pool.map(one_dcr_table, [adult] * tables, [schema] * tables, [name] * tables,
                                     [settings] * tables, [rows] * tables, picks, range(tables)))
    return {"tables": tables, "pass_rate": float(np.mean([o["passes"] for o in outcomes])), "tables_detail": outcomes}


def per_model_rows(report, targets: int) -> dict:
    """Each attack's TPR at FPR 0 (and AUC) per target model: the values of the first ``targets`` models, their
    median and range, the same over all models, and the attack's chance level (the paper's Table 1 reading)."""
    attacks = {"today (black box)": report.per_model}
    if report.stronger is not None:
        attacks.update({f"{name} (black box)": entry for name, entry in report.stronger.models.items()})
    if report.whitebox is not None:
        white = report.whitebox.to_dict()
        attacks["white box (denoising loss)"] = {"models": white["models"], "summary": white["summary"]}
    out = {}
    for name, entry in attacks.items():
        if not entry:
            continue
        models = entry["models"][:targets]
        tpr = [m["tpr_at"]["0"] for m in models]
        out[name] = {
            "tpr_at_fpr_0_per_target": [None if v is None else round(v, 4) for v in tpr],
            "auc_per_target": [None if m["auc"] is None else round(m["auc"], 4) for m in models],
            "targets": {"tpr_at_fpr_0": spread_of(tpr), "auc": spread_of([m["auc"] for m in models]),
                        "share_tpr_at_fpr_0_above_0.05": share_above(tpr, 0.05),
                        "share_tpr_at_fpr_0_above_0.2": share_above(tpr, 0.2)},
            "all_models": {"models": entry["summary"]["models_scored"],
                           "tpr_at_fpr_0": entry["summary"]["tpr_at_fpr_0"], "auc": entry["summary"]["auc"],
                           "chance": entry["summary"]["chance"]},
        }
    return out


def spread_of(values: list) -> dict:
    """Median, minimum and maximum of the values that are not None."""
    kept = [v for v in values if v is not None]
    return {"median": float(np.median(kept)), "min": float(min(kept)), "max": float(max(kept))} if kept else {}


def share_above(values: list, level: float) -> float | None:
    """The share of the values (not None) above ``level``."""
    kept = [v for v in values if v is not None]
    return float(np.mean(np.array(kept) > level)) if kept else None


def exposed_records(report, top: int) -> list[dict]:
    """The ``top`` records with the highest interval lower end, with their evidence and distances."""
    scored = [r for r in report.records if r.auc is not None]
    scored.sort(key=lambda r: (-r.auc_interval[0], -r.auc))
    return [{"row": r.row, "auc": r.auc, "auc_interval": list(r.auc_interval), "epsilon_lower_bound":
             r.epsilon_lower_bound, "nearest_real_distance": r.nearest_real_distance,
             "nearest_synthetic_distance": r.nearest_synthetic_distance, "why": r.why} for r in scored[:top]]


def record_points(report) -> dict:
    """Every scored record's AUC, interval and nearest-real distance (4 decimals), for the figure."""
    scored = [r for r in report.records if r.auc is not None]
    return {"row": [int(r.row) for r in scored], "auc": [round(r.auc, 4) for r in scored],
            "low": [round(r.auc_interval[0], 4) for r in scored], "high": [round(r.auc_interval[1], 4) for r in scored],
            "nearest_real_distance": [round(r.nearest_real_distance, 4) for r in scored]}


def figure_html(points: dict, path: Path) -> None:
    """Per-record AUC (with interval) against the distance to the nearest other real record, per generator."""
    import plotly.graph_objects as go

    from privcore.base import OKABE_ITO

    fig = go.Figure()
    colours = [OKABE_ITO["blue"], OKABE_ITO["vermillion"], OKABE_ITO["bluish_green"]]
    symbols = ["circle", "x", "diamond"]
    for i, (name, p) in enumerate(points.items()):
        fig.add_trace(go.Scatter(
            x=p["nearest_real_distance"], y=p["auc"], mode="markers", name=name,
            marker={"color": colours[i % 3], "symbol": symbols[i % 3], "size": 5, "opacity": 0.6},
            error_y={"type": "data", "symmetric": False, "array": [h - a for h, a in zip(p["high"], p["auc"])],
                     "arrayminus": [a - lo for a, lo in zip(p["auc"], p["low"])], "thickness": 0.5}))
    fig.add_hline(y=0.5, line_dash="dash", annotation_text="chance")
    fig.update_layout(title="Membership AUC of every record against its distance to the nearest other real record",
                      xaxis_title="distance to the nearest other real record (E space)",
                      yaxis_title="membership AUC (95 % interval)", template="simple_white")
    caption = ("Each point is one real person: the higher, the better an attacker tells whether they were in the "
               "training data. Points far above the dashed line are exposed even where distances look ordinary.")
    path.write_text(fig.to_html(include_plotlyjs=True, full_html=True).replace(
        "<body>", f"<body><p>{caption}</p>", 1), encoding="utf-8")


def machine() -> dict:
    """The CPU (lscpu's model and family), its cores, and the GPU when torch sees one."""
    out = {"cores": usable_cores(), "cpu": platform.processor() or platform.machine(),
           "load_average": [round(x, 2) for x in os.getloadavg()]}
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        fields = dict(line.split(":", 1) for line in lscpu.splitlines() if ":" in line)
        out.update({"cpu_model": fields.get("Model name", "").strip(), "cpu_family": fields.get("CPU family",
                                                                                             "").strip()})
    except OSError:
        pass
    try:
        import torch

        out["torch"] = torch.__version__
        out["gpu"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    except ImportError:
        out["torch"] = None
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-rows", type=int, default=1000)
    parser.add_argument("--models", type=int, default=128)
    parser.add_argument("--dcr-tables", type=int, default=10)
    parser.add_argument("--workers", type=int, default=max(1, usable_cores()))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ctgan", action="store_true", help="also sdv_ctgan (300 epochs): hours on 2 cores")
    parser.add_argument("--generators", help="comma-separated names to run (default privbayes,fresh_sample, "
                        "plus sdv_ctgan with --ctgan)")
    parser.add_argument("--merge", action="store_true", help="keep the other generators already in --out "
                        "(run a slow generator on its own, e.g. --generators sdv_ctgan --models 64 --merge)")
    parser.add_argument("--targets", type=int, default=10, help="target models reported one by one (the paper: 10)")
    parser.add_argument("--stronger", action="store_true", help="also RMIA and the meta-classifier")
    parser.add_argument("--gpu", action="store_true", help="tabddpm trains and samples on the CUDA GPU")
    parser.add_argument("--tabddpm", default="", help="tabddpm settings NAME=VALUE,... (e.g. steps=300 for a smoke "
                        "run; default: the generator's defaults)")
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--out", default=str(RESULTS / "dcr_delusion.json"))
    args = parser.parse_args()

    adult = load_adult()
    schema = Schema(types=dict(ADULT_TYPES), sensitive=SENSITIVE)
    rng = np.random.default_rng(args.seed)
    # The pool (2 × train rows, audited) first, then as many rows as the population the audit draws from.
    table = adult.iloc[rng.choice(len(adult), size=4 * args.train_rows, replace=False)].reset_index(drop=True)
    # fresh_sample (real rows that no model trained on) is the negative control, measured in the same run.
    names = (args.generators.split(",") if args.generators else
             ["privbayes"] + (["sdv_ctgan"] if args.ctgan else []) + ["fresh_sample"])
    generators = dict(GENERATORS)
    generators["tabddpm"] = {**({"gpu": 1} if args.gpu else {}), **{
        k: float(v) if "." in v or "e" in v else int(v)
        for k, v in (item.split("=") for item in args.tabddpm.split(",") if item)}}
    out = {"paper": "Yao et al. 2025, The DCR Delusion (../shared/seeds/dcr-delusion.txt)",
           "data": f"UCI Adult, {len(adult):,} rows (privcore.demo)", "machine": machine(),
           "settings": {"train_rows": args.train_rows, "pool_records": 2 * args.train_rows, "models": args.models,
                        "dcr_tables": args.dcr_tables, "workers": args.workers, "seed": args.seed},
           "generators": {}, "not_run": {} if "sdv_ctgan" in names else {
               "sdv_ctgan": "300-epoch CTGAN takes 35-45 s per fit on this 2-core machine (about 1.5 h for 128 "
                            "models); run with --ctgan on a larger machine or the GPU"}}
    if args.merge and Path(args.out).exists():
        earlier = json.loads(Path(args.out).read_text(encoding="utf-8"))
        for name, entry in earlier["generators"].items():
            if name not in names:
                out["generators"][name] = entry
        # A generator run alone keeps its own settings (models, workers) beside its results.
        if "sdv_ctgan" in earlier["generators"] and "sdv_ctgan" not in names:
            out["not_run"] = {}
    for name in names:
        settings = generators[name]
        started = time.perf_counter()
        dcr = dcr_pass_rate(adult, schema, name, settings, args.dcr_tables, args.train_rows, args.seed, args.workers)
        dcr_seconds = time.perf_counter() - started
        print(f"{name}: DCR test on {args.dcr_tables} tables in {dcr_seconds:.0f} s", flush=True)
        make = GeneratorFactory(name, settings, schema.key_columns, schema.sensitive)
        started = time.perf_counter()
        report = audit_shared(table, schema=schema, make=make, generator_name=name, workers=args.workers,
                              settings=SharedSettings(models=args.models, records=2 * args.train_rows,
                                                      seed=args.seed),
                              progress=progress_printer(f"{name} audit", started), stronger=args.stronger)
        seconds = time.perf_counter() - started
        summary = report.summary
        scored = summary["records_scored"]
        above = round(summary["share_interval_above_0.5"] * scored)
        out["generators"][name] = {
            "settings": settings, "models": args.models, "workers": args.workers,
            "dcr_test": {**dcr, "seconds": round(dcr_seconds, 1)},
            "audit": {
                "seconds": round(seconds, 1), "fits_per_second": round(args.models / seconds, 2),
                "records_scored": scored,
                "mean_auc": summary["mean_auc"],
                "share_auc_above_0.6": summary["share_auc_above_0.6"],
                "chance_share_above_0.6": summary["chance_share_above_0.6"],
                "share_auc_above_0.8": summary["share_auc_above_0.8"],
                "share_interval_above_0.5": summary["share_interval_above_0.5"],
                "chance_share_interval_above_0.5": summary["chance_share_interval_above_0.5"],
                "records_interval_above_0.5": above,
                "records_expected_by_chance": round(summary["chance_share_interval_above_0.5"] * scored, 1),
                "chance_share_above_0.8": summary["chance_share_above_0.8"],
                "share_clearly_exposed": summary["share_clearly_exposed"],
                "max_epsilon_lower_bound": summary["max_epsilon_lower_bound"],
                "max_epsilon_lower_bound_per_record": summary.get("max_epsilon_lower_bound_per_record"),
                "dcr_test_on_one_output": summary.get("dcr_test"),
                "verdict": summary.get("verdict"),
                "warnings": report.warnings,
            },
            "per_target_model": per_model_rows(report, args.targets),
            "timings": {k: round(v, 1) for k, v in report.timings.items()},
            "most_exposed": exposed_records(report, args.top),
            "points": record_points(report),
        }
        g = out["generators"][name]
        if name == "tabddpm":
            g["paper"] = PAPER_TABDDPM
        for attack, row in g["per_target_model"].items():
            print(f"{name} {attack}: TPR at FPR 0 over the first {args.targets} models {row['targets']} "
                  f"(chance over all: {row['all_models']['chance']['tpr_at_fpr_0']})", flush=True)
        print(f"{name}: DCR test passes on {dcr['pass_rate']:.0%} of {args.dcr_tables} tables; audit of {scored} "
              f"records with {args.models} models in {seconds:.0f} s: AUC>0.6 {summary['share_auc_above_0.6']:.1%} "
              f"(chance {summary['chance_share_above_0.6']:.1%}), interval above 0.5 for {above} records "
              f"(chance {g['audit']['records_expected_by_chance']}), clearly exposed "
              f"{summary['share_clearly_exposed']:.1%}", flush=True)
    Path(args.out).write_text(json.dumps(out, indent=2, allow_nan=False, default=lambda v: None if (
        isinstance(v, float) and not math.isfinite(v)) else str(v)) + "\n", encoding="utf-8")
    figure_html({name: g["points"] for name, g in out["generators"].items() if "points" in g},
                Path(args.out).with_suffix(".html"))
    print(f"wrote {args.out} and {Path(args.out).with_suffix('.html')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
