"""Issue 37 item 6: privcore's four utility measures against SDMetrics and SynthEval, in the same run.

Case at each of ``--rows`` (default 10,000 and 100,000): that many seeded Adult rows and their noisy copy in the
same row order (:func:`_adult.noisy_copy_case`: numbers + Gaussian noise of 0.1 × the column's standard deviation,
10 % of categorical cells redrawn from the marginal), and as many other Adult rows as the holdout (disjoint from
the real rows where Adult has enough, drawn with replacement beyond). The three tables are written once per size
to a temporary folder as CSV; every measure of both tools reads the same files in a fresh process (so each peak RSS
is the measure's own), runs once on the first 300 rows (imports and lazy set-up outside the timing), then on the
whole tables. privcore runs in this checkout's interpreter, the peers in their own virtualenv (``--peer-python``,
default ``/work/peers-venv/bin/python``: ``python3 -m venv /work/peers-venv && /work/peers-venv/bin/pip install
sdmetrics syntheval``) through ``bench/_utility_peer.py``; privcore's and the peers' runs alternate, ``--repeats``
times (the fastest counts).

Measures and their counterparts (the ratio is the peer's seconds over privcore's, > 1 = privcore faster):

- ``utility_shapes`` ↔ SDMetrics' Column Shapes (KSComplement / TVComplement per column), SynthEval's ``h_dist``
  (Hellinger) and ``ks_test`` (KS on numbers, permutation KS on categories);
- ``utility_pairs`` ↔ SDMetrics' Column Pair Trends (CorrelationSimilarity / ContingencySimilarity) and
  SynthEval's ``corr_diff`` (mixed correlation matrix);
- ``utility_shapes`` + ``utility_pairs`` ↔ SDMetrics' whole QualityReport;
- ``utility_mle`` ↔ SDMetrics' BinaryLogisticRegression efficacy (trained on the synthetic and on the real table,
  tested on the holdout), SynthEval's ``cls_acc`` (logistic regression and random forest, 5 folds and the
  holdout) and ``auroc_diff``;
- ``utility_discriminator`` ↔ SDMetrics' LogisticDetection and SynthEval's ``p_mse``.

Agreement (at every size, on the same tables): where a definition coincides the per-column / per-pair numbers are
compared (maximum absolute difference; 1e-6 required): SDMetrics' TVComplement on a categorical column against
``1 −`` privcore's TVD, KSComplement against privcore's ``ks_complement``, CorrelationSimilarity against
``1 − |ρ_real − ρ_synthetic| / 2`` of privcore's Pearson ρ (and the ρ themselves); where it does not, the difference
is measured and explained (``agreement`` in the JSON).

Usage: ``python bench/bench_utility_peers.py [--rows 10000,100000] [--repeats 2,2] [--repeat-limit 120]
[--peer-python PATH]``.
Writes ``bench/results/utility_peers.json`` with the CPU (``lscpu`` model name and family) and the cores.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

PRIVCORE = ("utility_shapes", "utility_pairs", "utility_mle", "utility_discriminator")
#: privcore measure → the peers' corresponding measures.
PEERS = {
    "utility_shapes": ("sdm_shapes", "se_h_dist", "se_ks_test"),
    "utility_pairs": ("sdm_pairs", "se_corr_diff"),
    "utility_mle": ("sdm_efficacy", "se_cls_acc", "se_auroc_diff"),
    "utility_discriminator": ("sdm_detection", "se_p_mse"),
}
PEER_NAMES = {
    "sdm_shapes": "SDMetrics QualityReport: Column Shapes (KSComplement numerical, TVComplement categorical)",
    "sdm_pairs": "SDMetrics QualityReport: Column Pair Trends (CorrelationSimilarity numerical pairs, "
                 "ContingencySimilarity otherwise)",
    "sdm_quality_report": "SDMetrics QualityReport.generate (both properties)",
    "sdm_efficacy": "SDMetrics BinaryLogisticRegression efficacy, fitted on synthetic and on real, F1 on the holdout",
    "sdm_detection": "SDMetrics LogisticDetection",
    "se_h_dist": "SynthEval h_dist (Hellinger per column)",
    "se_ks_test": "SynthEval ks_test (sig_lvl 0.05, n_perms 1000)",
    "se_corr_diff": "SynthEval corr_diff (mixed_corr: Spearman / Cramér's V / correlation ratio)",
    "se_cls_acc": "SynthEval cls_acc (models logreg and rf, 5 folds, weighted F1, with the holdout)",
    "se_auroc_diff": "SynthEval auroc_diff (log_reg, 1 bootstrap)",
    "se_p_mse": "SynthEval p_mse (logistic regression, 5 folds, liblinear)",
}
TOLERANCE = 1e-6
#: Models each classifier-based measure fits, as run here (context for the ratios: the learners differ too).
MODELS_FITTED = {
    "utility_mle": "20 (logistic regression and LightGBM × 5 seeds × trained on synthetic and on real)",
    "utility_discriminator": "10 LightGBM (5 folds × the synthetic table and the holdout as the fresh-sample "
                             "reference)",
    "sdm_efficacy": "2 logistic regressions (trained on synthetic and on real)",
    "sdm_detection": "3 logistic regressions (3 folds)",
    "se_cls_acc": "24 (logistic regression and random forest × (5 folds × real and synthetic + the holdout "
                  "fits))",
    "se_auroc_diff": "2 logistic regressions (real and synthetic, 1 bootstrap)",
    "se_p_mse": "5 logistic regressions (5 folds)",
}

PRIVCORE_RUN = r"""
import json, resource, sys, time, warnings
sys.path.insert(0, sys.argv[1])
import pandas as pd
import privcore
folder, measure = sys.argv[2], sys.argv[3]
meta = json.load(open(folder + "/meta.json"))
tables = {r: pd.read_csv(f"{folder}/{r}.csv", float_precision="round_trip", keep_default_na=False, na_values=[""])
          for r in ("real", "synthetic", "holdout")}
schema = privcore.Schema(meta["types"], sensitive=meta["sensitive"])
warnings.simplefilter("ignore")
small = tables["real"].head(300)
privcore.evaluate(small, small.copy(), schema, holdout=small.copy(), metrics=measure, seed=0)
rss = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
before = rss()
started = time.perf_counter()
report = privcore.evaluate(tables["real"], tables["synthetic"], schema, holdout=tables["holdout"], metrics=measure,
                           seed=0)
seconds = time.perf_counter() - started
out = {}
for m in measure.split(","):
    r = report[m]
    d = r.details
    out[m] = {"score": r.utility.score if r.utility else None, "raw": r.raw,
              "reference": r.utility.reference if r.utility else None, "measure_seconds": r.seconds}
    if m == "utility_shapes":
        out[m].update(columns=d.columns, tvd=d.tvd, hellinger=d.hellinger, ks_complement=d.ks_complement)
    elif m == "utility_pairs":
        out[m].update(pairs=d.pairs, measure=d.measure, real=d.real, synthetic=d.synthetic, similarity=d.similarity,
                      mean_similarity=d.mean_similarity)
    elif m == "utility_discriminator":
        out[m].update(auc=d.auc)
print(json.dumps({"measure": measure, "seconds": seconds, "rss_before_mb": before, "peak_rss_mb": rss(),
                  "out": out}, default=float))
"""


def cpu() -> dict:
    info = {}
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in text.splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("Model name", "CPU family", "Model", "Thread(s) per core", "CPU(s)"):
                info[key.strip()] = value.strip()
    except (OSError, subprocess.CalledProcessError) as error:
        info["lscpu"] = f"unavailable: {error}"
    info.update(cores=os.cpu_count(), usable_cores=len(os.sched_getaffinity(0)), machine=platform.machine(),
                python=platform.python_version())
    return info


def write_case(rows: int, folder: Path) -> dict:
    """The real table, its noisy copy and a holdout of ``rows`` rows each, as CSV in ``folder``."""
    import numpy as np
    from _adult import noisy_copy_case

    from privcore.demo import load_adult

    real, synthetic, schema = noisy_copy_case(rows, seed=0)
    adult = load_adult()
    used = np.random.default_rng(0).choice(len(adult), size=rows, replace=rows > len(adult))  # noisy_copy_case's
    rest = np.setdiff1d(np.arange(len(adult)), used)
    rng = np.random.default_rng(1)
    if len(rest) >= rows:
        holdout = adult.iloc[rng.choice(rest, size=rows, replace=False)].reset_index(drop=True)
        how = "disjoint from the real rows"
    else:
        holdout = adult.iloc[rng.choice(len(adult), size=rows, replace=True)].reset_index(drop=True)
        how = "drawn with replacement from all of Adult (Adult has too few rows for a disjoint one)"
    folder.mkdir(parents=True, exist_ok=True)
    for name, table in (("real", real), ("synthetic", synthetic), ("holdout", holdout)):
        table.to_csv(folder / f"{name}.csv", index=False)
    meta = {"types": dict(schema.types), "sensitive": schema.sensitive, "rows": rows}
    (folder / "meta.json").write_text(json.dumps(meta))
    missing = [c for c in schema.types if real[c].isna().any() or synthetic[c].isna().any()]
    return {"rows": rows, "holdout": how, "columns": len(schema.types),
            "numerical": [c for c, t in schema.types.items() if t == "numerical"],
            "columns_with_missing_values": missing}


def run_json(command: list[str], timeout: float) -> dict:
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "PYTHONWARNINGS": "ignore"})
    except subprocess.TimeoutExpired:
        return {"error": f"did not finish within {timeout:.0f} s", "process_seconds": time.perf_counter() - started}
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("{"):
            result = json.loads(line)
            result["process_seconds"] = time.perf_counter() - started
            return result
    return {"error": (done.stderr or done.stdout)[-1500:], "returncode": done.returncode,
            "process_seconds": time.perf_counter() - started}


def run_privcore(folder: Path, measure: str, timeout: float) -> dict:
    return run_json([sys.executable, "-c", PRIVCORE_RUN, str(ROOT), str(folder), measure], timeout)


def run_peer(python: str, folder: Path, measure: str, timeout: float) -> dict:
    return run_json([python, str(BENCH / "_utility_peer.py"), str(folder), measure], timeout)


def _max_abs(pairs) -> float | None:
    pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
    return max((abs(a - b) for a, b in pairs), default=None)


def _tvd_without_missing(folder: Path, column: str) -> float:
    """privcore's own TVD (its bins, shares and distance) of one categorical column with the missing values left
    out of both tables, as SDMetrics' TVComplement leaves them out."""
    import pandas as pd

    from privcore.metrics import bin_column, shares, tvd

    real, synthetic = (pd.read_csv(folder / f"{role}.csv", usecols=[column], keep_default_na=False, na_values=[""])
                       [column].dropna() for role in ("real", "synthetic"))
    binned = bin_column(real, synthetic, "categorical")
    return tvd(shares(binned.real, binned.n_bins), shares(binned.other, binned.n_bins))


def agreement(ours_shapes: dict, ours_pairs: dict, sdm_shapes: dict, sdm_pairs: dict, numerical: list[str],
              folder: Path, with_missing: list[str]) -> dict:
    """Per-column and per-pair maximum absolute differences between privcore and SDMetrics on one case."""
    out = {}
    ours_tvd = dict(zip(ours_shapes["columns"], ours_shapes["tvd"]))
    theirs = dict(zip(sdm_shapes["columns"], zip(sdm_shapes["metric"], sdm_shapes["value"])))
    categorical = [c for c in ours_tvd if c not in numerical]
    tv = {c: (1.0 - ours_tvd[c], theirs[c][1]) for c in categorical}
    out["tv_complement_categorical"] = {
        "compared": "SDMetrics TVComplement against 1 − privcore's TVD, per categorical (and binary) column",
        "per_column_abs_difference": {c: abs(a - b) for c, (a, b) in tv.items()},
        "max_abs_difference": _max_abs(tv.values()),
        "max_abs_difference_columns_without_missing_values": _max_abs(
            v for c, v in tv.items() if c not in with_missing),
        "columns_with_missing_values": [c for c in categorical if c in with_missing],
        "explained": "The definitions coincide on a column without missing values. privcore counts a missing value "
                     "as a bin of its own (metrics.md §6: missing is a category that counts against fidelity); "
                     "SDMetrics' TVComplement drops missing values first and compares the shares of the rest "
                     "(adding 1e-6 to a real count for a category only the synthetic table has). On the columns "
                     "with missing values, privcore's own functions with the missing values left out give "
                     "SDMetrics' number (next entry).",
    }
    dropped = {c: (1.0 - _tvd_without_missing(folder, c), theirs[c][1]) for c in categorical if c in with_missing}
    out["tv_complement_missing_left_out"] = {
        "compared": "SDMetrics TVComplement against 1 − privcore's TVD (bin_column, shares, tvd) of the column with "
                    "its missing values dropped from both tables, per categorical column with missing values",
        "per_column_abs_difference": {c: abs(a - b) for c, (a, b) in dropped.items()},
        "max_abs_difference": _max_abs(dropped.values()),
    }
    ks = {c: (ours_shapes["ks_complement"][c], theirs[c][1]) for c in numerical}
    out["ks_complement_numerical"] = {
        "compared": "SDMetrics KSComplement against privcore's ks_complement, per numerical column",
        "per_column_abs_difference": {c: abs(a - b) for c, (a, b) in ks.items()},
        "max_abs_difference": _max_abs(ks.values()),
    }
    binned = {c: (1.0 - ours_tvd[c], theirs[c][1]) for c in numerical}
    out["numerical_column_shape"] = {
        "compared": "SDMetrics' numerical column shape (KSComplement on raw values) against privcore's 1 − TVD of "
                    "the quantile bins, the number privcore's score averages",
        "per_column_abs_difference": {c: abs(a - b) for c, (a, b) in binned.items()},
        "max_abs_difference": _max_abs(binned.values()),
        "explained": "Different definitions: privcore's column-shape score averages 1 − TVD of the shares in at most "
                     "20 equal-frequency bins cut at the real table's quantiles (a number outside the real range "
                     "falls in a bin of its own) for every column, SDMetrics' averages 1 − KS on the raw values for "
                     "numerical columns. privcore reports the KS complement beside it (compared above).",
    }
    sdm_by_pair = {tuple(p): (m, v, rc, sc) for p, m, v, rc, sc in zip(
        sdm_pairs["pairs"], sdm_pairs["metric"], sdm_pairs["value"], sdm_pairs["real_correlation"],
        sdm_pairs["synthetic_correlation"])}
    corr, rho, contingency = {}, {}, {}
    for pair, measure, a, b, similarity in zip(ours_pairs["pairs"], ours_pairs["measure"], ours_pairs["real"],
                                               ours_pairs["synthetic"], ours_pairs["similarity"]):
        key = tuple(pair) if tuple(pair) in sdm_by_pair else tuple(pair[::-1])
        metric, value, real_rho, synthetic_rho = sdm_by_pair[key]
        name = " / ".join(pair)
        if measure == "pearson":
            corr[name] = (similarity, value)
            rho[name] = (max(abs(a - real_rho), abs(b - synthetic_rho)), 0.0)
        else:
            contingency[name] = (similarity, value)
    out["correlation_similarity_numerical_pairs"] = {
        "compared": "SDMetrics CorrelationSimilarity against 1 − |ρ_real − ρ_synthetic| / 2 of privcore's Pearson ρ, "
                    "per numerical pair",
        "per_pair_abs_difference": {p: abs(a - b) for p, (a, b) in corr.items()},
        "max_abs_difference": _max_abs(corr.values()),
        "max_abs_difference_of_rho": _max_abs(rho.values()),
    }
    out["contingency_pairs"] = {
        "compared": "SDMetrics ContingencySimilarity (1 − TVD of the two-way shares) against privcore's per-pair "
                    "similarity 1 − |V_real − V_synthetic| (bias-corrected Cramér's V), per pair with a categorical "
                    "column",
        "per_pair_abs_difference": {p: abs(a - b) for p, (a, b) in contingency.items()},
        "max_abs_difference": _max_abs(contingency.values()),
        "explained": "Different definitions: SDMetrics compares the joint shares of the two columns (1 − TVD of the "
                     "contingency table, a numerical column cut into 10 equal-width bins computed separately on the "
                     "real and on the synthetic table); privcore compares the strength of the association, the "
                     "bias-corrected Cramér's V (Bergsma 2013) on its shared quantile bins, in the real and in the "
                     "synthetic table. A table that keeps every column's shares but no association scores high on "
                     "the first and low on the second; the spec's 1 − TVD of the joint was replaced by the share of "
                     "association kept (pairs.py).",
    }
    within = [out["tv_complement_categorical"]["max_abs_difference_columns_without_missing_values"]]
    within += [out[k]["max_abs_difference"] for k in ("tv_complement_missing_left_out", "ks_complement_numerical",
                                                       "correlation_similarity_numerical_pairs")]
    out["coinciding_definitions_within_tolerance"] = all(v is not None and v <= TOLERANCE for v in within)
    out["tolerance"] = TOLERANCE
    return out


def agreement_syntheval(ours_shapes: dict, se_ks: dict, se_h: dict | None, numerical: list[str]) -> dict:
    """SynthEval reports means over columns only: its mean KS over the numerical columns and mean TVD over the
    categorical ones (ks_test) against the same means of privcore's per-column numbers."""
    import numpy as np

    result = se_ks["result"]
    ours_tvd = dict(zip(ours_shapes["columns"], ours_shapes["tvd"]))
    ours_ks = float(np.mean([1.0 - ours_shapes["ks_complement"][c] for c in numerical]))
    ours_cat = float(np.mean([v for c, v in ours_tvd.items() if c not in numerical]))
    out = {
        "ks_test_avg_ks": {"compared": "SynthEval ks_test 'avg ks' (mean two-sample KS statistic over the numerical "
                                       "columns) against the mean of privcore's 1 − ks_complement",
                           "syntheval": result.get("avg ks"), "privcore": ours_ks,
                           "abs_difference": abs(result["avg ks"] - ours_ks) if result.get("avg ks") is not None
                           else None},
        "ks_test_avg_tvd": {"compared": "SynthEval ks_test 'avg tvd' (mean total variation distance over the "
                                        "categorical columns, a missing value given to SynthEval as the category "
                                        "'NA') against the mean of privcore's categorical TVD (missing = a bin)",
                            "syntheval": result.get("avg tvd"), "privcore": ours_cat,
                            "abs_difference": abs(result["avg tvd"] - ours_cat) if result.get("avg tvd") is not None
                            else None,
                            "privcore_rounded_as_syntheval": float(np.mean([round(v, 4) for c, v in ours_tvd.items()
                                                                           if c not in numerical])),
                            "explained": "SynthEval rounds each column's TVD to 4 decimals (np.round(..., 4)) before "
                                         "averaging: the means can differ by up to 5e-5 where a TVD is not a "
                                         "multiple of 1e-4; privcore_rounded_as_syntheval is privcore's mean of the "
                                         "rounded values"},
    }
    if se_h is not None:
        out["h_dist"] = {
            "syntheval_avg": se_h["result"].get("avg"), "privcore_avg": float(np.mean(ours_shapes["hellinger"])),
            "explained": "Not compared number for number: SynthEval bins each numerical column by Scott's rule over "
                         "each table's own range (np.histogram(bins=n)) and each categorical column's label codes "
                         "into as many equal-width bins as the real table has categories, again over each table's own "
                         "range; privcore uses the shared quantile bins of the real table. Only the means are "
                         "reported, side by side."}
    return out


#: Models fitted per measure (for the per-model seconds in the notes).
FITS = {"utility_mle": 20, "utility_discriminator": 10, "sdm_efficacy": 2, "sdm_detection": 3, "se_cls_acc": 24,
        "se_auroc_diff": 2, "se_p_mse": 5}


def annotate(result: dict) -> None:
    """A note for every speed target missed: what each side does, and the ratio on the measure's own seconds or
    per model fitted."""
    result.setdefault("peer_install", "python3 -m venv /work/peers-venv && /work/peers-venv/bin/pip install sdmetrics "
                                      "syntheval: both installed with Python 3.11 (versions under 'peers'), so no "
                                      "peer was left out")
    for size in result["sizes"].values():
        notes = {}
        for target, met in size["targets_met"].items():
            if met or " no slower than " not in target or "QualityReport" in target:
                continue
            ours, peer = target.split(" no slower than ")
            key = f"{peer} / {ours}"
            own = size.get("ratios_peer_over_privcore_measure_seconds", {}).get(key)
            if ours == "utility_shapes":
                notes[target] = (
                    "evaluate() validates and prepares all three tables (types checked against the data, categories "
                    "made canonical text, numbers coerced: privcore/data, shared by every measure of one call, "
                    "outside the utility code) and the measure runs twice (on the synthetic table and on the holdout "
                    "as the fresh-sample reference); SDMetrics' ColumnShapes gets the two tables as they are. On the "
                    f"measure's own seconds the ratio is {own}.")
            elif peer in FITS and ours in FITS:
                theirs_s = size["measures"][peer]["seconds"]
                ours_s = size["measures"][ours]["seconds"]
                per_fit = round((theirs_s / FITS[peer]) / (ours_s / FITS[ours]), 3)
                notes[target] = (
                    f"privcore fits {MODELS_FITTED[ours]}; the peer {MODELS_FITTED[peer]}. Seconds per model "
                    f"fitted: privcore {ours_s / FITS[ours]:.3f}, peer {theirs_s / FITS[peer]:.3f} (ratio "
                    f"{per_fit}). The work is fixed by the measure's definition (its seeds or folds and the "
                    "fresh-sample reference give the intervals); fewer fits would change its results.")
                if ours == "utility_discriminator":
                    notes[target] += _cheaper_lightgbm_note(theirs_s / ours_s)
        size["target_notes"] = notes


def _cheaper_lightgbm_note(needed: float) -> str:
    """What bench_discriminator_trees.py measured of a cheaper LightGBM for the discriminator ('' without it);
    ``needed``: the share of its seconds the discriminator would have to reach to be no slower than the peer."""
    path = BENCH / "results" / "discriminator_trees.json"
    if not path.exists():
        return ""
    trees = json.loads(path.read_text())
    parts, within = [], []
    for setting in trees["settings"]:
        if setting.startswith("default"):
            continue
        entries = [case[setting] for case in trees["cases"].values()]
        worst = max(abs(e["shift_in_default_seed_sds"] or 0.0) for e in entries)
        slowest = max(e["seconds_ratio_to_default"] for e in entries)
        parts.append(f"{setting}: the AUC shifted by up to {worst:.1f} seed standard deviations, "
                     f"{min(e['seconds_ratio_to_default'] for e in entries):.2f}-{slowest:.2f} of the default's "
                     "seconds")
        if worst <= 1.0:
            within.append((setting, slowest))
    verdict = ("none stays within one seed standard deviation in every case" if not within else
               "within one seed standard deviation in every case: " + ", ".join(
                   f"{name} (at most {ratio:.2f} of the seconds)" for name, ratio in within))
    return (f" A cheaper LightGBM (bench/results/discriminator_trees.json, {trees['rows']:,} rows, {trees['seeds']} "
            "seeds, against the holdout, a Gaussian copula and a column resampler): " + "; ".join(parts) + f"; "
            f"{verdict}. To be no slower than the peer the discriminator would need {needed:.2f} of its seconds"
            + (": no setting within the spread gets there, so it keeps LightGBM's defaults."
               if all(ratio > needed for _, ratio in within) else
               f": {', '.join(n for n, r in within if r <= needed)} would."))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", default="10000,100000")
    parser.add_argument("--repeats", default="2,2", help="repeats per size, in the order of --rows (the last one "
                        "for any further size)")
    parser.add_argument("--peer-python", default="/work/peers-venv/bin/python")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds allowed to one measure's process")
    parser.add_argument("--repeat-limit", type=float, default=120.0,
                        help="a peer measure whose first run took longer is not repeated")
    parser.add_argument("--skip-peers", default="", help="comma-separated peer measures not to run")
    parser.add_argument("--out", default=str(BENCH / "results" / "utility_peers.json"))
    parser.add_argument("--annotate-only", action="store_true",
                        help="only (re)write the notes on missed targets into an existing --out")
    args = parser.parse_args()
    if args.annotate_only:
        result = json.loads(Path(args.out).read_text())
        annotate(result)
        Path(args.out).write_text(json.dumps(result, indent=1, default=float) + "\n")
        return
    skip = set(filter(None, args.skip_peers.split(",")))

    versions = run_json([args.peer_python, "-c", "import json, importlib.metadata as m, sys\n"
                         "v = {}\nfor p in ('sdmetrics', 'syntheval', 'numpy', 'pandas', 'scikit-learn', 'scipy'):\n"
                         "    try: v[p] = m.version(p)\n    except m.PackageNotFoundError: v[p] = None\n"
                         "print(json.dumps({'python': sys.version.split()[0], 'packages': v}))"], 120)
    result = {
        "what": "issue 37 item 6: privcore's utility measures against SDMetrics and SynthEval on the same tables, "
                "alternating in one run",
        "cpu": cpu(), "load_average_at_start": os.getloadavg(), "peers": versions,
        "peer_measures": PEER_NAMES, "models_fitted": MODELS_FITTED,
        "correspondence": {k: list(v) for k, v in PEERS.items()},
        "timing": "seconds of the measure's call on the whole tables, in a fresh process per measure after a "
                  "300-row warm-up run (imports outside); fastest of the repeats (a peer measure over --repeat-limit "
                  "seconds runs once); the 1-minute load average before each run is recorded (the 2-core machine "
                  "is shared with other jobs); peak RSS = the process's maxrss "
                  "(including the interpreter, the libraries and the three tables); ratio = peer seconds / privcore "
                  "seconds (> 1: privcore faster)",
        "privcore_measure_seconds": "ratios_peer_over_privcore_measure_seconds divides by the measure's own "
                                    "seconds inside evaluate() (MetricResult.seconds: the measure and its "
                                    "fresh-sample reference, without evaluate()'s validation and preparation of the "
                                    "three tables, which privcore/data does once for any number of measures)",
        "peer_input": "the same CSV files; for SynthEval a missing category is given as the value 'NA' (it refuses "
                      "missing values)",
        "privcore_note": "each privcore measure also computes its fresh-sample reference (the holdout in place of "
                         "the synthetic table), so it does its comparison twice; utility_mle fits 2 learners × 5 "
                         "seeds × (synthetic, real) models",
        "sizes": {},
    }
    started_all = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="utility-peers-") as temporary:
        repeats = [int(r) for r in args.repeats.split(",")]
        for index, rows in enumerate(int(r) for r in args.rows.split(",")):
            n_repeats = repeats[min(index, len(repeats) - 1)]
            folder = Path(temporary) / str(rows)
            case = write_case(rows, folder)
            print(f"--- {rows} rows ({case['holdout']})", flush=True)
            runs: dict[str, list[dict]] = {}
            for repeat in range(n_repeats):
                order = []
                for measure in PRIVCORE:
                    order.append(("privcore", measure))
                    order += [("peer", p) for p in PEERS[measure] if p not in skip]
                order += [("privcore", "utility_shapes,utility_pairs"), ("privcore", ",".join(PRIVCORE))]
                if "sdm_quality_report" not in skip:
                    order.append(("peer", "sdm_quality_report"))
                for tool, measure in order:
                    done = [o for o in runs.get(measure, []) if "seconds" in o]
                    if tool == "peer" and done and done[0]["seconds"] > args.repeat_limit:
                        continue  # a slow peer measure runs once (its ratio is far from 1 either way)
                    load = os.getloadavg()[0]
                    if tool == "privcore":
                        out = run_privcore(folder, measure, args.timeout)
                    else:
                        out = run_peer(args.peer_python, folder, measure, args.timeout)
                    out["load_1min_before"] = load
                    runs.setdefault(measure, []).append(out)
                    shown = f"{out['seconds']:.2f} s, peak {out['peak_rss_mb']:.0f} MB" if "seconds" in out \
                        else f"FAILED: {out['error'][-300:]}"
                    print(f"  [{repeat}] {tool:8s} {measure:45s} {shown}", flush=True)
            best = {}
            for measure, outs in runs.items():
                good = [o for o in outs if "seconds" in o]
                if not good:
                    best[measure] = {"error": outs[-1]["error"]}
                    continue
                fastest = min(good, key=lambda o: o["seconds"])
                best[measure] = {"seconds": round(fastest["seconds"], 3),
                                 "all_seconds": [round(o["seconds"], 3) for o in good],
                                 "peak_rss_mb": round(max(o["peak_rss_mb"] for o in good), 1),
                                 "rss_before_mb": round(fastest["rss_before_mb"], 1),
                                 "load_1min_before": [round(o["load_1min_before"], 2) for o in good],
                                 "out": fastest["out"]}
            ratios, targets = {}, {}
            for measure, peers in PEERS.items():
                ours = best.get(measure, {}).get("seconds")
                for peer in peers:
                    theirs = best.get(peer, {}).get("seconds")
                    if ours and theirs:
                        ratios[f"{peer} / {measure}"] = round(theirs / ours, 3)
                        targets[f"{measure} no slower than {peer}"] = ours <= theirs
            both = best.get("utility_shapes,utility_pairs", {}).get("seconds")
            report = best.get("sdm_quality_report", {}).get("seconds")
            if both and report:
                ratios["sdm_quality_report / utility_shapes,utility_pairs"] = round(report / both, 3)
                targets["utility_shapes + utility_pairs no slower than the QualityReport"] = both <= report
            together = best.get(",".join(PRIVCORE), {}).get("seconds")
            if together is not None:
                targets["all four privcore measures together ≤ 60 s"] = together <= 60.0
            size = {"case": case, "measures": best, "ratios_peer_over_privcore": ratios, "targets_met": targets}
            ours_out = best.get("utility_shapes", {}).get("out", {}).get("utility_shapes")
            ours_pairs = best.get("utility_pairs", {}).get("out", {}).get("utility_pairs")
            sdm_s, sdm_p = best.get("sdm_shapes", {}).get("out"), best.get("sdm_pairs", {}).get("out")
            if ours_out and ours_pairs and sdm_s and sdm_p:
                size["agreement_sdmetrics"] = agreement(ours_out, ours_pairs, sdm_s, sdm_p, case["numerical"],
                                                        folder, case["columns_with_missing_values"])
            se_ks = best.get("se_ks_test", {}).get("out")
            if ours_out and se_ks:
                size["agreement_syntheval"] = agreement_syntheval(ours_out, se_ks, best.get("se_h_dist", {}).get("out"),
                                                                  case["numerical"])
            own = {}
            for measure, peers in PEERS.items():
                ours = best.get(measure, {}).get("out", {}).get(measure, {}).get("measure_seconds")
                for peer in peers:
                    theirs = best.get(peer, {}).get("seconds")
                    if ours and theirs:
                        own[f"{peer} / {measure}"] = round(theirs / ours, 3)
            size["ratios_peer_over_privcore_measure_seconds"] = own
            size["repeats"] = n_repeats
            result["sizes"][str(rows)] = size
            annotate(result)
            result["seconds_total"] = round(time.perf_counter() - started_all, 1)
            Path(args.out).write_text(json.dumps(result, indent=1, default=float) + "\n")  # after every size
            print(json.dumps({"ratios": ratios, "targets": targets}, indent=1), flush=True)
    result["seconds_total"] = round(time.perf_counter() - started_all, 1)
    Path(args.out).write_text(json.dumps(result, indent=1, default=float) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
