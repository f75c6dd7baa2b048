"""Runs PrivEval's 17 metrics on two CSV tables and prints per-metric seconds as JSON (used by bench_priveval.py).

Run with the Python of PrivEval's own environment (its pins), never privcore's:

    PRIVEVAL_PYTHON _priveval_runner.py PRIVEVAL_CHECKOUT REAL.csv SYNTHETIC.csv SENSITIVE [METRIC,...]

The tables are prepared the way PrivEval's example harness (``get_results.py``) prepares them: the raw tables for
the metrics it calls with ``real_data``/``syn_data``, and the label-encoded tables (every object or bool column
label-encoded over the union of both tables) for those it calls with ``real_labels``/``syn_labels``; the
sensitive attribute is passed as a one-element list and every other column is a key, as in its example. Each
metric is called as ``get_metric_results.py`` calls it. Nothing of PrivEval is copied here: its modules are
imported from the checkout given.

Per metric: wall seconds (``time.perf_counter``), CPU seconds of this process (``time.process_time``, all its
threads: faiss's OpenMP threads and BLAS included) and of its reaped children (``RUSAGE_CHILDREN``; Hitting
Rate's loky workers are shut down after it so that theirs count), and the value.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    checkout, real_path, syn_path, sensitive = sys.argv[1:5]
    wanted = sys.argv[5].split(",") if len(sys.argv) > 5 and sys.argv[5] else None
    started = time.perf_counter()
    sys.path.insert(0, checkout)
    os.chdir(checkout)
    import numpy as np  # noqa: F401  (PrivEval's environment)
    import pandas as pd
    from Metrics import (
        DCR,
        MDCR,
        NNAA,
        NNDR,
        AttributeInference,
        Authenticity,
        CGeneralizedCAP,
        CloseValuesProbability,
        CommonRowsProportion,
        CZeroCAP,
        DetectionMLP,
        DistantValuesProbability,
        Hidden_rate,
        Hitting_rate,
        IdentifiabilityScore,
        MemInf,
        NearestSynNeighborDistance,
    )
    from sklearn.preprocessing import LabelEncoder

    imported = time.perf_counter()
    real = pd.read_csv(real_path, index_col=False)
    syn = pd.read_csv(syn_path, index_col=False)
    # PrivEval's get_results.py: label codes over the union of both tables, numbers as they are.
    both = pd.concat([real, syn], ignore_index=True)
    encoded = {}
    for col in both.select_dtypes(include=["object", "bool"]).columns:
        if both[col].dtype == "bool":
            encoded[col] = both[col].astype(int)
        else:
            encoded[col] = LabelEncoder().fit_transform(both[col].astype(str))
    for col in both.select_dtypes(exclude=["object", "bool"]).columns:
        encoded[col] = both[col]
    labels = pd.DataFrame(encoded)
    real_labels, syn_labels = labels[: len(real)], labels[len(real):]
    sens = [sensitive]
    loaded = time.perf_counter()

    raw = {"_real_data": real, "_synthetic": syn}
    lab = {"_real_data": real_labels, "_synthetic": syn_labels}
    # privcore's id -> PrivEval's call, in the order of get_metric_results.py.
    calls = {
        "mir": lambda: MemInf.calculate_metric(args=None, **raw),
        "crp": lambda: CommonRowsProportion.calculate_metric(args=None, **raw),
        "nsnd": lambda: NearestSynNeighborDistance.calculate_metric(args=None, **raw),
        "cvp": lambda: CloseValuesProbability.calculate_metric(args=None, **raw),
        "dvp": lambda: DistantValuesProbability.calculate_metric(args=None, **raw),
        "auth": lambda: Authenticity.calculate_metric(args=None, **raw),
        "dmlp": lambda: DetectionMLP.calculate_metric(args=None, **raw),
        "idscore": lambda: IdentifiabilityScore.calculate_metric(args=None, **raw),
        "air": lambda: AttributeInference.calculate_metric(args=None, **raw, sensitive_attributes=sens),
        "gcap": lambda: CGeneralizedCAP.calculate_metric(args=None, **lab, sensitive_attributes=sens),
        "zcap": lambda: CZeroCAP.calculate_metric(args=None, **lab, sensitive_attributes=sens),
        "mdcr": lambda: MDCR.calculate_metric(args=None, **lab),
        "hitr": lambda: Hitting_rate.calculate_metric(args=None, **lab),
        "nnaa": lambda: NNAA.calculate_metric(args=None, **lab),
        "dcr": lambda: DCR.calculate_metric(args=None, **lab),
        "nndr": lambda: NNDR.calculate_metric(args=None, **lab),
        "hidr": lambda: Hidden_rate.calculate_metric(args=None, **lab),
    }
    out = {}
    metrics_started = time.perf_counter()
    metrics_cpu = time.process_time()
    metrics_children = children_cpu()
    devnull = open(os.devnull, "w")  # noqa: SIM115  (open for the whole run)
    for metric_id, call in calls.items():
        if wanted is not None and metric_id not in wanted:
            continue
        wall, cpu, child = time.perf_counter(), time.process_time(), children_cpu()
        stdout, sys.stdout = sys.stdout, devnull  # PrivEval prints as it goes
        try:
            value, error = call(), None
        except Exception as exc:  # noqa: BLE001  recorded, as get_metric_results.py does (it scores 0.0)
            value, error = None, f"{type(exc).__name__}: {exc}"
        finally:
            sys.stdout = stdout
        if metric_id == "hitr":  # its loky workers: shut down so that their CPU seconds are counted
            try:
                from joblib.externals.loky import get_reusable_executor

                get_reusable_executor().shutdown(wait=True)
            except Exception:  # noqa: BLE001, S110  an older joblib: its workers' seconds stay uncounted
                pass
        out[metric_id] = {"seconds": time.perf_counter() - wall, "cpu_seconds": time.process_time() - cpu,
                          "children_cpu_seconds": children_cpu() - child,
                          "value": None if value is None else float(value), "error": error}
    ended = time.perf_counter()
    usage_self = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({
        "metrics": out,
        "metrics_wall_seconds": ended - metrics_started,
        "metrics_cpu_seconds": time.process_time() - metrics_cpu + children_cpu() - metrics_children,
        "import_seconds": imported - started,
        "load_and_encode_seconds": loaded - imported,
        "process_wall_seconds": ended - started,
        "peak_rss_mb": usage_self.ru_maxrss / 1024.0,
        "children_peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0,
    }))


if __name__ == "__main__":
    main()
