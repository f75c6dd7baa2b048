"""Calibrate the verdict against truth (issue 36 item 4): the default evaluation's answer on one output of each
generator the project can run, at 1x, 5x and 10x the holdout's size, against what the shared-model audit of the
same generator finds.

For each generator (lab leak types at several levels, DP marginals and PrivBayes at several ε, CART, Gaussian
copulas, SDV's Gaussian copula where installed, and ``fresh_sample``, real people no model saw):

1. **Truth.** The shared-model membership audit (:mod:`privcore.audit.shared`) of the generator on a pool of
   ``2 × --rows`` Adult records with ``--models`` models: :func:`privcore.evaluation.verdict.audit_severity` says
   ``exposed``, ``suspect`` or ``none``. A fresh sample is ``none`` by construction (no model saw anyone), so it is
   not audited.
2. **The answer.** A training table of ``--rows`` Adult rows, a holdout of as many other rows, the generator fitted
   on the training table and sampled at 1x, 5x and 10x the holdout's size; the default evaluation (the ``quick``
   preset with the holdout) and its verdict.
3. **The confusion table** of answer against truth, by size ratio and by generator, and a sweep of the rule's
   thresholds over the stored reports (the verdict is recomputed, nothing is evaluated again): the rule's
   thresholds are chosen from it, as documented in ``chosen`` of the output.

Writes ``bench/results/verdict_calibration.json``.

    python bench/verdict_calibration.py [--rows 500] [--models 64] [--workers 2] [--generators a,b]
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privcore import evaluate  # noqa: E402
from privcore.audit import GeneratorFactory, SharedSettings, audit_shared  # noqa: E402
from privcore.base import usable_cores  # noqa: E402
from privcore.data import Schema  # noqa: E402
from privcore.demo import ADULT_TYPES, SENSITIVE, load_adult  # noqa: E402
from privcore.evaluation import CAUTION, DO_NOT_RELEASE, RELEASE, VerdictRule, audit_severity  # noqa: E402
from privcore.evaluation.verdict import verdict  # noqa: E402
from privcore.generators import (
    list_generators,  # noqa: E402
    make_generator,  # noqa: E402
)

RESULTS = ROOT / "bench" / "results"
RATIOS = (1, 5, 10)
#: (name shown, generator id, settings): the generators the project can run and audit.
GENERATORS = [
    ("fresh_sample", "fresh_sample", {}),
    ("exact_copy", "exact_copy", {}),
    ("partial_copy 0.1", "partial_copy", {"level": 0.1}),
    ("partial_copy 0.5", "partial_copy", {"level": 0.5}),
    ("noisy_copy 0.5", "noisy_copy", {"level": 0.5}),
    ("noisy_copy 0.9", "noisy_copy", {"level": 0.9}),
    ("rare_records 0.5", "rare_records", {"level": 0.5}),
    ("attribute_leak 0.5", "attribute_leak", {"level": 0.5}),
    ("value_reuse 0.5", "value_reuse", {"level": 0.5}),
    ("column_resample 0.5", "column_resample", {"level": 0.5}),
    ("independent_histograms", "independent_histograms", {}),
    ("dp_marginals ε=0.1", "dp_marginals", {"epsilon": 0.1}),
    ("dp_marginals ε=1", "dp_marginals", {"epsilon": 1.0}),
    ("dp_marginals ε=10", "dp_marginals", {"epsilon": 10.0}),
    ("privbayes (no noise)", "privbayes", {}),
    ("privbayes ε=1", "privbayes", {"epsilon": 1.0}),
    ("cart", "cart", {}),
    ("gaussian_copula", "gaussian_copula", {}),
    ("sdv_gaussian_copula", "sdv_gaussian_copula", {}),
]
#: What the project took from the sweep (kept beside it in the output; revise it with the data).
DECISION = (
    "Defaults kept: decisive_at 0.10 and caution_at 0.05 (no value of the grid changes a single answer on them); "
    "similarity_at 0.05, lowered from the 0.10 that both kinds of supporting evidence shared before size matching. "
    "The sweep ranks similarity_at 0.02 first (one more leaky table cautioned, 18 of 42 missed against 19), with "
    "no false caution among the 15 tables whose audit finds nothing; but 15 tables cannot show the false-caution "
    "rate that the 95 % simultaneous interval alone allows (about 1 evaluation in 20), so 0.05 stays as a "
    "materiality guard above the interval. The leaky tables still answered 'release' are those whose audit finds "
    "a few people exposed (missed_by_one_output): no threshold reaches them without cautioning fresh samples."
)
#: The threshold grid of the sweep.
GRID = {"decisive_at": (0.05, 0.10, 0.20), "caution_at": (0.02, 0.05, 0.10), "similarity_at": (0.02, 0.05, 0.10, 0.20)}


def lscpu() -> dict:
    """The CPU's model name and family (benchmark ratios differ between hosts)."""
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {"model": platform.processor() or platform.machine()}
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {"model": fields.get("Model name", "").strip(), "family": fields.get("CPU family", "").strip(),
            "cores": usable_cores()}


def truth_of(name: str, generator: str, settings: dict, pool, schema: Schema, models: int, workers: int,
             seed: int) -> dict:
    """What the shared-model audit of ``generator`` finds ("none" for a fresh sample, by construction)."""
    if generator == "fresh_sample":
        return {"severity": "none", "why": "a fresh sample of real people: no model saw anyone", "seconds": 0.0}
    started = time.perf_counter()
    make = GeneratorFactory(generator, settings, schema.key_columns, schema.sensitive)
    report = audit_shared(pool, schema=schema, make=make, generator_name=generator, workers=workers,
                          settings=SharedSettings(models=models, records=len(pool) // 2, seed=seed))
    summary = report.summary
    return {"severity": audit_severity(summary), "seconds": round(time.perf_counter() - started, 1),
            "share_auc_above_0.6": summary["share_auc_above_0.6"],
            "chance_share_above_0.6": summary["chance_share_above_0.6"],
            "share_clearly_exposed": summary["share_clearly_exposed"], "verdict": summary.get("verdict")}


def answers(generator: str, settings: dict, train, holdout, population, schema: Schema, seed: int) -> dict:
    """The default evaluation of one output at each size ratio: {ratio: Report}."""
    made = make_generator(generator, population=population, key=schema.key_columns, sensitive=schema.sensitive,
                          **settings).fit(train, dict(schema.types))
    reports = {}
    for ratio in RATIOS:
        synthetic = made.sample(ratio * len(holdout), seed=seed + ratio)
        reports[ratio] = evaluate(train, synthetic, schema, metrics="quick", holdout=holdout, seed=seed)
    return reports


def is_leak(severity: str) -> bool:
    return severity in ("exposed", "suspect")


def confusion(rows: list[dict], rule: VerdictRule | None = None, reports=None) -> dict:
    """Counts of answer by truth; with ``rule`` and ``reports`` the answers are recomputed under ``rule``."""
    table = {truth: {RELEASE: 0, CAUTION: 0, DO_NOT_RELEASE: 0} for truth in ("exposed", "suspect", "none")}
    for row in rows:
        level = row["level"] if rule is None else verdict(reports[(row["generator"], row["ratio"])], rule).level
        table[row["truth"]][level] += 1
    return table


def score(table: dict) -> tuple[int, int, int]:
    """Lower is better: (leaks answered "release", no-leak tables not answered "release", exposed only cautioned)."""
    missed = table["exposed"][RELEASE] + table["suspect"][RELEASE]
    false_alarms = table["none"][CAUTION] + table["none"][DO_NOT_RELEASE]
    soft = table["exposed"][CAUTION]
    return missed, false_alarms, soft


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500, help="training rows; the holdout has as many")
    parser.add_argument("--models", type=int, default=64)
    parser.add_argument("--workers", type=int, default=max(1, usable_cores()))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--generators", help="comma-separated names shown (default: all that are installed)")
    parser.add_argument("--out", default=str(RESULTS / "verdict_calibration.json"))
    args = parser.parse_args()

    adult = load_adult()
    schema = Schema(types=dict(ADULT_TYPES), sensitive=SENSITIVE)
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(adult))
    rows = args.rows
    train = adult.iloc[order[:rows]].reset_index(drop=True)
    holdout = adult.iloc[order[rows:2 * rows]].reset_index(drop=True)
    population = adult.iloc[order[2 * rows:]].reset_index(drop=True)  # fresh samples and DP ranges come from here
    pool = adult.iloc[order[:4 * rows]].reset_index(drop=True)  # audited: 2 x rows records, then its population
    installed = {spec.name for spec in list_generators()}
    wanted = set(args.generators.split(",")) if args.generators else None
    chosen = [g for g in GENERATORS if g[1] in installed and (wanted is None or g[0] in wanted)]
    skipped = [g[0] for g in GENERATORS if g[1] not in installed]

    results, reports, started_all = [], {}, time.perf_counter()
    per_generator = {}
    for shown, generator, settings in chosen:
        started = time.perf_counter()
        try:
            truth = truth_of(shown, generator, settings, pool, schema, args.models, args.workers, args.seed)
            found = answers(generator, settings, train, holdout, population, schema, args.seed)
        except ImportError as exc:  # an optional extra that is not installed
            skipped.append(f"{shown}: {exc}")
            continue
        per_generator[shown] = {"generator": generator, "settings": settings, "truth": truth, "answers": {}}
        for ratio, report in found.items():
            answer = verdict(report)
            reports[(shown, ratio)] = report
            pushed = [e.metric for e in answer.evidence if e.pushes_to != RELEASE]
            results.append({"generator": shown, "ratio": ratio, "truth": truth["severity"], "level": answer.level})
            per_generator[shown]["answers"][str(ratio)] = {
                "level": answer.level, "headline": answer.headline, "pushed_by": pushed,
                "strongest_attack": next((e.text for e in answer.evidence if e.metric == "mia_best"), None),
                "rows": report.rows, "seconds": round(report.seconds, 1)}
        print(f"{shown}: audit {truth['severity']} ({truth['seconds']} s); answers "
              f"{ {r: per_generator[shown]['answers'][str(r)]['level'] for r in RATIOS} } "
              f"in {time.perf_counter() - started:.0f} s", flush=True)

    by_ratio = {str(r): confusion([row for row in results if row["ratio"] == r]) for r in RATIOS}
    sweep = []
    for values in itertools.product(*GRID.values()):
        rule = VerdictRule(**dict(zip(GRID, values)))
        table = confusion(results, rule, reports)
        sweep.append({**dict(zip(GRID, values)), "missed_leaks": score(table)[0], "false_alarms": score(table)[1],
                      "exposed_only_cautioned": score(table)[2]})
    default = VerdictRule()
    best = min(sweep, key=lambda s: (s["missed_leaks"], s["false_alarms"], s["exposed_only_cautioned"],
                                     sum(abs(s[k] - getattr(default, k)) for k in GRID)))
    none_rows = [row for row in results if row["truth"] == "none"]
    caution_none = sum(row["level"] == CAUTION for row in none_rows)
    missed = {name: g["truth"].get("share_clearly_exposed") for name, g in per_generator.items()
              if is_leak(g["truth"]["severity"]) and all(a["level"] == RELEASE for a in g["answers"].values())}
    out = {
        "what": "The default evaluation's verdict on one output of each generator at 1x, 5x and 10x the holdout's "
                "size, against the shared-model audit of the same generator (truth); fresh samples are 'none' by "
                "construction.",
        "machine": lscpu(),
        "settings": {"rows": rows, "holdout_rows": rows, "audit_models": args.models, "audit_pool": 2 * rows,
                     "workers": args.workers, "seed": args.seed, "ratios": list(RATIOS), "preset": "quick"},
        "rule_in_use": {k: getattr(default, k) for k in GRID},
        "confusion_by_ratio": by_ratio,
        "confusion_all": confusion(results),
        "caution_among_no_leak": {"tables": len(none_rows), "release_with_caution": caution_none,
                                  "share": round(caution_none / len(none_rows), 3) if none_rows else None},
        "sweep": sweep,
        "chosen": {**{k: best[k] for k in GRID}, "why": (
            "The sweep orders rules by leaks answered 'release' (fewest first), then tables whose audit finds "
            "nothing answered other than 'release', then exposed generators only cautioned, then closeness to the "
            "rule in use; 'chosen' is the first. Where it equals rule_in_use, the data gave no reason to move the "
            "defaults.")},
        "missed_by_one_output": {
            "generators": missed,
            "note": "Generators whose audit finds some people exposed (share_clearly_exposed: AUC above 0.8 with "
                    "its interval above 0.5, over many models) but whose single output no attack of the default "
                    "evaluation separates from a fresh sample: the answer 'release' bounds only the attacks that "
                    "ran on that one table. This is the DCR delusion's point, and what the Audit page is for; no "
                    "threshold of the rule recovers them without cautioning fresh samples."},
        "decision": DECISION,
        "generators": per_generator,
        "skipped": skipped,
        "seconds": round(time.perf_counter() - started_all, 1),
    }
    Path(args.out).write_text(json.dumps(out, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    print(json.dumps({k: out[k] for k in ("confusion_by_ratio", "caution_among_no_leak", "chosen")}, indent=1,
                     ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
