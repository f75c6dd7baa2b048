"""The membership attack battery (issue 14): seconds at 10,000 training rows, and the strongest AUC per case.

Part ``speed``: on the demo's noisy copy at ``--rows`` rows (real, holdout and synthetic tables of that
size), one evaluation of the three attacks that existed before the battery (``mia_distance``,
``mia_calibrated``, ``mia_domias``) and one of all eight attacks plus ``mia_best``, each in its own fresh
process, with the default settings (1,000 bootstrap replicates). Reported: seconds of each, the ratio, and
the seconds per metric. Target: the full battery ≤ 60 s on the 2-core machine.

Part ``cases``: the strongest attack on recreated example cases at ``--case-rows`` rows (default 3,000, the
size of the issue's table): an exact copy, the noisy-copy demo, a Gaussian-copula table (a real generator,
fitted on the training rows), ε-DP marginals at ε = 1 (a real generator with a privacy guarantee), the
rare-record leak, a fresh sample, and two tables of a sequential-CART synthesiser (synthpop's default method,
``_cart.py``; leaves of 1 and of 5 rows), a real generator that leaks to a moderate degree. Reported per
case: ``mia_best``'s held-out AUC, advantage and ε lower bound, the selected attack, every attack's AUC on all
records, and the best AUC of the published battery (Synth-MIA, re-implemented in ``_synthmia_peer.py``) on
the same members, non-members and reference rows, counted on all records as it reports it.

Results: ``bench/results/membership_battery.json``.

Usage: ``python bench/bench_membership_battery.py [--rows 10000] [--case-rows 3000] [--parts speed,cases]``
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
sys.path.insert(0, str(ROOT / "bench"))

from _adult import run_in_own_process  # noqa: E402

EXISTING = ["mia_distance", "mia_calibrated", "mia_domias"]
BATTERY = [*EXISTING, "mia_gen_lra", "mia_classifier", "mia_density_count", "mia_dpi", "mia_learned", "mia_best"]
TARGET_SECONDS = 60
#: Recreated cases: name → how the synthetic table is made (a demo scenario, or a generator on the demo's
#: real rows with its settings).
CASES = {
    "exact copy": ("scenario", "exact_copy", {}),
    "noisy copy demo": ("scenario", "noisy_copy", {}),
    "Gaussian copula (real generator)": ("scenario", "gaussian_copula", {}),
    "ε-DP marginals, ε = 1": ("generator", "dp_marginals", {"epsilon": 1.0}),
    "rare-record leak": ("scenario", "rare_leak", {}),
    "fresh sample": ("scenario", "fresh_sample", {}),
    "sequential CART, leaves of 1 row (real generator)": ("cart", "sequential_cart", {"min_leaf": 1}),
    "sequential CART, leaves of 5 rows (real generator)": ("cart", "sequential_cart", {"min_leaf": 5}),
}


def _tables(kind: str, name: str, settings: dict, rows: int):
    from privcore.demo import load_scenario
    from privcore.generators import make_generator

    if kind == "scenario":
        d = load_scenario(name, n=rows)
        return d.real, d.synthetic, d.holdout, dict(d.types)
    d = load_scenario("noisy_copy", n=rows)
    if kind == "cart":
        from _cart import sequential_cart

        return d.real, sequential_cart(d.real, dict(d.types), rows, seed=0, **settings), d.holdout, dict(d.types)
    # The holdout gives the public category lists (dp_marginals refuses to read them off the training rows).
    generator = make_generator(name, population=d.holdout, **settings).fit(d.real, dict(d.types))
    return d.real, generator.sample(rows, seed=0), d.holdout, dict(d.types)


def _time_metrics(args, queue) -> None:
    rows, metrics = args
    from privcore import Schema, evaluate
    from privcore.demo import load_scenario

    d = load_scenario("noisy_copy", n=rows)
    schema = Schema(types=dict(d.types), key=list(d.key), sensitive=d.sensitive)
    started = time.perf_counter()
    report = evaluate(d.real, d.synthetic, schema, metrics=metrics, holdout=d.holdout, seed=0, strict=True)
    total = time.perf_counter() - started
    queue.put({"seconds": round(total, 2),
               "per_metric": {m: round(report[m].seconds, 2) for m in metrics},
               "auc": {m: report[m].raw for m in metrics}})


def speed(rows: int) -> dict:
    existing = run_in_own_process(_time_metrics, (rows, EXISTING))
    battery = run_in_own_process(_time_metrics, (rows, BATTERY))
    return {"rows": rows, "existing_three": existing, "battery": battery,
            "ratio": round(battery["seconds"] / existing["seconds"], 2),
            "target_seconds": TARGET_SECONDS, "under_target": battery["seconds"] <= TARGET_SECONDS}


def cases(rows: int, with_peer: bool = True) -> dict:
    from privcore import Schema, evaluate

    out = {}
    for label, (kind, name, settings) in CASES.items():
        real, synthetic, holdout, types = _tables(kind, name, settings, rows)
        started = time.perf_counter()
        report = evaluate(real, synthetic, Schema(types=types), metrics="mia_best", holdout=holdout, seed=0,
                          strict=True)
        best = report["mia_best"]
        d = best.details
        out[label] = {
            "held_out_auc": round(best.raw, 4), "held_out_advantage": round(best.risk, 4),
            "held_out_auc_interval": [round(v, 4) for v in d.held_out_auc_interval],
            "epsilon_lower_bound": round(d.epsilon_lower_bound, 3), "selected_attack": d.selected_attack,
            "chosen_per_split": [s.attack for s in d.splits],
            "tpr_at": d.tpr_at,
            "auc_all_records": {a: round(v.auc, 4) for a, v in d.attacks.items()},
            "strongest_auc_all_records": round(max(v.auc for v in d.attacks.values()), 4),
            "seconds": round(time.perf_counter() - started, 2),
        }
        if with_peer:
            from _synthmia_peer import peer_aucs

            peer = peer_aucs(real, synthetic, holdout, types, seed=0)
            best_peer = max(v for v in peer.values() if isinstance(v, float))
            out[label]["synth_mia_reimplemented"] = peer
            out[label]["synth_mia_best_auc_all_records"] = best_peer
            out[label]["privcore_held_out_at_least_peer"] = bool(round(best.raw, 4) >= best_peer)
        print(f"{label:52s} held-out AUC {best.raw:.3f}  ε ≥ {d.epsilon_lower_bound:.2f}  "
              f"selected {d.selected_attack:18s} best AUC on all {out[label]['strongest_auc_all_records']:.3f}  "
              f"Synth-MIA best {out[label].get('synth_mia_best_auc_all_records', '-')}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--case-rows", type=int, default=3_000)
    parser.add_argument("--parts", default="speed,cases")
    parser.add_argument("--no-peer", action="store_true", help="skip the re-implemented Synth-MIA battery")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "membership_battery.json"))
    args = parser.parse_args()
    parts = args.parts.split(",")
    record = {"benchmark": "membership_battery", "cpus": os.cpu_count(), "python": platform.python_version(),
              "machine": platform.machine()}
    if "speed" in parts:
        record["speed"] = speed(args.rows)
        s = record["speed"]
        print(f"{args.rows} rows: three attacks {s['existing_three']['seconds']:.1f} s, battery + mia_best "
              f"{s['battery']['seconds']:.1f} s (×{s['ratio']:.2f}); per metric {s['battery']['per_metric']}")
    if "cases" in parts:
        record["case_rows"] = args.case_rows
        record["cases"] = cases(args.case_rows, with_peer=not args.no_peer)
    Path(args.out).write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
