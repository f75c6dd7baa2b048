"""One utility measure of a peer tool (SDMetrics or SynthEval) on tables written by ``bench_utility_peers.py``.

Runs in the peers' own virtualenv (``python bench/_utility_peer.py FOLDER MEASURE``), never in privcore's: it
imports neither privcore nor anything of this repository. ``FOLDER`` holds ``real.csv``, ``synthetic.csv``,
``holdout.csv`` and ``meta.json`` (column types, the sensitive column). The measure runs once on the real
table's first 300 rows in every role (imports and lazy set-up paid outside the timing), then on the whole tables;
one JSON line is printed: the measure's seconds, the process's peak RSS before and after the timed call, and the
measure's numbers (per column / per pair where the tool reports them).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
import warnings

import numpy as np
import pandas as pd


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def load(folder: str):
    meta = json.load(open(os.path.join(folder, "meta.json")))
    tables = {role: pd.read_csv(os.path.join(folder, f"{role}.csv"), float_precision="round_trip",
                                keep_default_na=False, na_values=[""])
              for role in ("real", "synthetic", "holdout")}
    return tables, meta


def sdm_metadata(types: dict[str, str]) -> dict:
    """SDMetrics' single-table metadata: numerical columns 'numerical', the others 'categorical'."""
    return {"columns": {c: {"sdtype": "numerical" if t == "numerical" else "categorical"} for c, t in types.items()}}


# --- SDMetrics ------------------------------------------------------------------------------------------------

def sdm_shapes(real, synthetic, holdout, meta):
    from sdmetrics.reports.single_table._properties import ColumnShapes

    prop = ColumnShapes()
    score = prop.get_score(real, synthetic, sdm_metadata(meta["types"]))
    d = prop.details
    return {"score": float(score), "columns": d["Column"].tolist(), "metric": d["Metric"].tolist(),
            "value": [float(v) for v in d["Score"]]}


def sdm_pairs(real, synthetic, holdout, meta):
    from sdmetrics.reports.single_table._properties import ColumnPairTrends

    prop = ColumnPairTrends()
    score = prop.get_score(real, synthetic, sdm_metadata(meta["types"]))
    d = prop.details
    return {"score": float(score), "pairs": [[a, b] for a, b in zip(d["Column 1"], d["Column 2"])],
            "metric": d["Metric"].tolist(), "value": [float(v) for v in d["Score"]],
            "real_correlation": [None if pd.isna(v) else float(v) for v in d["Real Correlation"]],
            "synthetic_correlation": [None if pd.isna(v) else float(v) for v in d["Synthetic Correlation"]]}


def sdm_quality_report(real, synthetic, holdout, meta):
    from sdmetrics.reports.single_table import QualityReport

    report = QualityReport()
    report.generate(real, synthetic, sdm_metadata(meta["types"]), verbose=False)
    props = report.get_properties()
    return {"score": float(report.get_score()),
            "properties": {p: float(s) for p, s in zip(props["Property"], props["Score"])}}


def sdm_detection(real, synthetic, holdout, meta):
    from sdmetrics.single_table import LogisticDetection

    return {"score": float(LogisticDetection.compute(real, synthetic, sdm_metadata(meta["types"])))}


def sdm_efficacy(real, synthetic, holdout, meta):
    """SDMetrics' ML efficacy (logistic regression, F1 on the holdout), trained on the synthetic table and, as the
    reference privcore's measure also fits, on the real table."""
    from sdmetrics.single_table import BinaryLogisticRegression

    md, target = sdm_metadata(meta["types"]), meta["sensitive"]
    # Its one-hot encoder, fitted on the training table, refuses a category that table lacks: holdout rows with
    # such a category are left out (counted below).
    keep = np.ones(len(holdout), dtype=bool)
    for column, kind in meta["types"].items():
        if kind != "numerical":
            seen = set(synthetic[column].dropna()) & set(real[column].dropna())
            keep &= holdout[column].isna().to_numpy() | holdout[column].isin(seen).to_numpy()
    test = holdout[keep].reset_index(drop=True)
    on_synthetic = BinaryLogisticRegression.compute(test, synthetic, md, target=target)
    on_real = BinaryLogisticRegression.compute(test, real, md, target=target)
    return {"score": float(on_synthetic), "synthetic": float(on_synthetic), "real": float(on_real),
            "holdout_rows_left_out": int((~keep).sum())}


# --- SynthEval ------------------------------------------------------------------------------------------------

def _syntheval(real, synthetic, holdout, meta, **metric):
    from syntheval import SynthEval

    cats = [c for c, t in meta["types"].items() if t != "numerical"]
    # SynthEval refuses missing values: a missing category becomes the value "NA" (a category of its own, as
    # privcore's missing bin); Adult's numerical columns have none.
    real, synthetic, holdout = (t.fillna({c: "NA" for c in cats}) for t in (real, synthetic, holdout))
    evaluator = SynthEval(real, holdout_dataframe=holdout, cat_cols=cats, verbose=False, enable_plots=False,
                          console="off", show_warnings=False)
    evaluator.evaluate(synthetic, meta["sensitive"], **metric)
    (name,) = metric
    raw = evaluator._raw_results.get(name) if hasattr(evaluator, "_raw_results") else None
    if raw is None:
        raw = getattr(evaluator, "raw_results", {}).get(name)
    if raw is None:
        raise RuntimeError(f"SynthEval returned no result for {name}")
    return {"result": _plain(raw)}


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, pd.DataFrame):
        return value.to_dict(orient="list") if len(value) < 50 else f"DataFrame {value.shape}"
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value][:200]
    if isinstance(value, np.ndarray):
        return value.tolist() if value.size <= 400 else f"array {value.shape}"
    if isinstance(value, (np.floating, float)):
        return None if not np.isfinite(value) else float(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (str, bool)) or value is None:
        return value
    return repr(value)[:200]


def se_h_dist(real, synthetic, holdout, meta):
    return _syntheval(real, synthetic, holdout, meta, h_dist={})


def se_ks_test(real, synthetic, holdout, meta):
    return _syntheval(real, synthetic, holdout, meta, ks_test={"sig_lvl": 0.05, "n_perms": 1000})


def se_corr_diff(real, synthetic, holdout, meta):
    return _syntheval(real, synthetic, holdout, meta, corr_diff={"mixed_corr": True})


def se_p_mse(real, synthetic, holdout, meta):
    return _syntheval(real, synthetic, holdout, meta, p_mse={"k_folds": 5, "max_iter": 100, "solver": "liblinear"})


def se_cls_acc(real, synthetic, holdout, meta):
    models = meta.get("cls_models", ["logreg", "rf"])
    return _syntheval(real, synthetic, holdout, meta,
                      cls_acc={"cls_models": models, "F1_type": "weighted", "k_folds": 5, "full_output": False})


def se_auroc_diff(real, synthetic, holdout, meta):
    return _syntheval(real, synthetic, holdout, meta, auroc_diff={"model": "log_reg", "num_boots": 1})


MEASURES = {f.__name__: f for f in (sdm_shapes, sdm_pairs, sdm_quality_report, sdm_detection, sdm_efficacy,
                                     se_h_dist, se_ks_test, se_corr_diff, se_p_mse, se_cls_acc, se_auroc_diff)}


def main() -> None:
    folder, name = sys.argv[1], sys.argv[2]
    warnings.simplefilter("ignore")
    tables, meta = load(folder)
    measure = MEASURES[name]
    small = tables["real"].head(300).reset_index(drop=True)
    # Imports and lazy set-up, on one 300-row table in every role (SDMetrics' one-hot encoders refuse a category
    # the table they were fitted on lacks, which small unrelated heads would have).
    measure(small, small.copy(), small.copy(), meta)
    before = _rss_mb()
    started = time.perf_counter()
    out = measure(tables["real"], tables["synthetic"], tables["holdout"], meta)
    seconds = time.perf_counter() - started
    print(json.dumps({"measure": name, "seconds": seconds, "rss_before_mb": before, "peak_rss_mb": _rss_mb(),
                      "out": out}))


if __name__ == "__main__":
    main()
