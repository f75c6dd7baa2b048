"""Issue 42: the 17 review metrics of privcore against PrivEval itself, on the same case, in the same run.

The case: ``--rows`` (default 10,000) seeded Adult rows and their noisy copy (``_adult.noisy_copy_case``: numbers
plus Gaussian noise of 0.1 × the column's standard deviation, 10 % of the categorical cells redrawn), sensitive
``income``, every other column a key (as in PrivEval's example, where the keys are every non-sensitive column),
pairing by row. The two tables are written as CSV to a temporary folder and both tools read them from there.

PrivEval runs from a checkout of hereditary-eu/PrivEval (``--priveval``; nothing of it is copied here) under a
Python of its own environment (``--priveval-python``, with its pins: numpy 1.24.3, scipy 1.10.0, pandas 2.2.3,
scikit-learn 1.5.2, saiph 1.5.5, faiss-cpu 1.8.0.post1, lightgbm 4.6.0), through ``bench/_priveval_runner.py``:
its 17 metrics called one after the other as its ``get_metric_results.py`` calls them, each timed in that
process (wall and CPU seconds).

privcore, in fresh processes of this checkout:

- ``full``: ``evaluate`` of all 17 (wall seconds, CPU seconds of the process: every thread, peak RSS), with each
  metric's wall seconds as the report gives them and its own CPU seconds (the process's CPU during the metric
  less that of the threads that ran beside it, read from ``/proc/self/task``): D-MLP runs on a background thread
  beside the others (``privcore.evaluation.background``), so a metric's wall seconds in this run include the
  cores lent to D-MLP meanwhile, and D-MLP's are timed on its own thread.
- ``alone``: each metric in an ``evaluate`` of its own (after one small warm-up evaluation of all 17, so that
  imports are not counted): wall and CPU seconds of the whole ``evaluate``, preparing the tables included. A
  shared pass (the FAMD projection, the nearest-neighbour passes in E, Φk or key space) is then computed for
  every metric that reads it, so it is attributed to each of them: these are the per-metric seconds compared
  with PrivEval's, whose every metric also computes its own encoding and neighbours.

Rounds (``--rounds``, default 2) run PrivEval, privcore ``full`` and privcore ``alone`` interleaved, the order
reversed every other round, so that load elsewhere on the machine falls on both alike; medians count.

GCAP line (issue 42 item 2): GCAP's wall and own CPU seconds in the full run and alone, this checkout against
``--baseline`` (default 1928f6a, a detached worktree) in the same rounds. GCAP's own CPU seconds would show a
regression of GCAP's code; its wall seconds in the full run also move with D-MLP's overlap and the host's load.

    python bench/bench_priveval.py --priveval /work/priveval --priveval-python /work/priveval-venv/bin/python

Writes ``bench/results/priveval.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

from _adult import worktree

REVIEW = ("zcap", "gcap", "air", "crp", "cvp", "dvp", "dmlp", "auth", "idscore", "nsnd", "nndr", "dcr", "mdcr",
          "nnaa", "mir", "hidr", "hitr")
DEFAULT_BASELINE = "1928f6a"
#: Issue 42 item 3: the 17 together at least this many times faster than DEFAULT_BASELINE, in wall seconds.
TARGET_AGAINST_BASELINE = 1.6
#: Keys of an earlier result kept under ``earlier_runs`` when a run replaces it.
KEPT_OF_EARLIER = ("this_commit", "lscpu_at_start", "rounds_completed", "overall", f"against_{DEFAULT_BASELINE}")
#: Issue 42 item 2, bisected on a 2-core AMD EPYC (family 25) at load 8-12: 1928f6a, c2097b0 and 3d6d56f^ in
#: interleaved fresh processes, the noisy-copy case at 10,000 rows.
GCAP_CAUSE = (
    "Not GCAP's code: its CPU seconds did not grow. GCAP alone (evaluate of GCAP only, CPU seconds of the "
    "process, 5 runs in each of 4 processes per checkout): 1928f6a 0.52-0.58 s, c2097b0 0.45-0.50 s, the "
    "checkout before issue 42 0.45-0.48 s. In the full 17-metric run, GCAP's own CPU seconds (the process's less "
    "the D-MLP thread's, read from /proc/self/task): 1928f6a 0.33-0.43 s, c2097b0 0.33-0.40 s, 0.30-0.31 s "
    "before issue 42; its wall seconds there 0.85-1.16 s, 1.35-1.60 s and 1.19-1.41 s. The wall line grew "
    "because from 7743e05/8d9b854 on D-MLP trains on a background thread beside the other metrics (0.17-0.21 "
    "CPU s of it fell inside GCAP's interval): report['gcap'].seconds is wall time and counts the cores lent "
    "to D-MLP meanwhile, while the evaluation as a whole got faster (CPU 11.0 -> 6.3 s). On a host at load 8-12 "
    "a process gets about a third of its wall time as CPU time, so single runs vary 2-4x (GCAP alone: "
    "0.57-3.87 s wall at the same CPU): the 0.76 -> 2.47 s of the issue was one run each. This line compares "
    "GCAP's own CPU seconds, in the full run and alone, with the baseline's in the same run; it would show a "
    "regression of GCAP's code whatever the load and the overlap.")
#: Why privcore's metric costs more CPU than PrivEval's where it does (measured: ``why_slower_stages_cpu_seconds``).
WHY_SLOWER = {
    "auth": "PrivEval's Authenticity keeps the numeric columns only (select_dtypes(np.number): 5 of Adult's 14) and "
            "searches them with scikit-learn's k-d tree; privcore's reads every column in E (standardised numbers "
            "and one-hot categories: 'dims'), by two exact nearest-neighbour passes, real->synthetic and "
            "real->real, whose CPU seconds alone exceed PrivEval's whole metric. Its farthest pair is no longer "
            "computed when Auth runs without the E metrics that read it (issue 42).",
    "dcr": "PrivEval's DCR projects the label codes (every column a number) on 2 FAMD axes and searches them with "
           "faiss; privcore's prepares the mixed table, fits the mixed FAMD (Φk, k = 5) and runs an exact pass in "
           "Φ5: preparing the tables alone ('prepare') costs more CPU than PrivEval's whole DCR. Its farthest pair "
           "is no longer computed (DCR reads none; issue 42).",
    "hidr": "As DCR (PrivEval: 2 FAMD axes of the label codes and faiss; privcore: the mixed FAMD in Φ5), plus the "
            "exact d_max of metrics.md §0's tie tolerance, which HidR reports in its details (two convex hulls "
            "in Φ5, inside 'pass_real_synthetic').",
    "nndr": "As DCR and HidR (PrivEval: 2 FAMD axes of the label codes, faiss in float32; privcore: the mixed table "
            "prepared, the mixed FAMD fitted (Φ5), an exact synthetic->real pass for the two nearest, and the exact d_max "
            "of metrics.md §0's tie tolerance, which NNDR reports). Its CPU seconds are below PrivEval's in the quiet runs; "
            "its wall seconds within PrivEval's own spread between rounds.",
}
PINS = ("numpy", "scipy", "pandas", "scikit-learn", "saiph", "faiss-cpu", "lightgbm")

# Shared by the two privcore scripts: the case read back from the CSV files, and per-metric own CPU seconds.
_PRELUDE = r"""
import json, os, resource, sys, threading, time
sys.path.insert(0, sys.argv[1])
import pandas as pd
from _adult import noisy_copy_case
from privcore import evaluate
try:
    from privcore.metrics import registry
except ImportError:  # before the layered subpackages (1928f6a)
    from privcore import registry
folder, ids = sys.argv[2], sys.argv[3].split(",")
_, _, schema = noisy_copy_case(10)
real = pd.read_csv(folder + "/real.csv")
synthetic = pd.read_csv(folder + "/synthetic.csv")
TICK = os.sysconf("SC_CLK_TCK")

def _task_cpu(tid):
    try:
        fields = open(f"/proc/self/task/{tid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except OSError:
        return None

def _other_threads():
    me = threading.get_native_id()
    return {t.native_id: _task_cpu(t.native_id) for t in threading.enumerate() if t.native_id != me}

OWN = {}

def _timed(metric_id, compute):
    def wrapped(ctx):
        wall, cpu, others = time.perf_counter(), time.process_time(), _other_threads()
        try:
            return compute(ctx)
        finally:
            cpu = time.process_time() - cpu
            after = _other_threads()
            beside = sum(after[t] - c for t, c in others.items() if c is not None and after.get(t) is not None)
            OWN[metric_id] = {"wall": round(time.perf_counter() - wall, 4), "process_cpu": round(cpu, 4),
                              "beside_cpu": round(beside, 4), "own_cpu": round(cpu - beside, 4)}
    return wrapped

def instrument(metric_ids):
    for metric_id in metric_ids:
        info = registry.get(metric_id)
        object.__setattr__(info, "compute", _timed(metric_id, info.compute))

evaluate(real.head(300), synthetic.head(300), schema, metrics=list(REVIEW), seed=0)
"""

PRIVCORE_FULL = _PRELUDE + r"""
instrument(ids)
wall, cpu = time.perf_counter(), time.process_time()
report = evaluate(real, synthetic, schema, metrics=ids, seed=0, strict=True)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"evaluate_seconds": round(wall, 3), "evaluate_cpu_seconds": round(cpu, 3),
                  "seconds": {m: round(report[m].seconds, 4) for m in ids}, "own": OWN,
                  "risk": {m: report[m].risk for m in ids},
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
"""

PRIVCORE_ALONE = _PRELUDE + r"""
import gc
instrument(ids)
out = {}
for metric_id in ids:
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    report = evaluate(real, synthetic, schema, metrics=[metric_id], seed=0, strict=True)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    out[metric_id] = {"seconds": round(wall, 4), "cpu_seconds": round(cpu, 4),
                      "metric_seconds": round(report[metric_id].seconds, 4),
                      "metric_cpu_seconds": OWN[metric_id]["own_cpu"], "risk": report[metric_id].risk}
print(json.dumps(out))
"""

STAGES = _PRELUDE + r"""
# Where the CPU seconds of the metrics that PrivEval computes on much less go: Auth (PrivEval: the 5 numeric
# columns only; privcore: E, every column), DCR and HidR (PrivEval: 2 FAMD axes of the label codes; privcore:
# Φk of the mixed FAMD). Each stage in a fresh SharedComputation, as the metric alone runs it; medians of 3.
import statistics
from privcore.data.prepare import prepare
from privcore.engine.context import SharedComputation
from privcore.engine.tolerance import d_max_bounds

def stages(space, passes, extremes):
    out = {}
    def clock(name, fn):
        cpu = time.process_time()
        value = fn()
        out[name] = time.process_time() - cpu
        return value
    data = clock("prepare", lambda: prepare(real, synthetic, schema))
    shared = SharedComputation(data)
    if not extremes:
        shared.tolerance_only = {(space, "real", "synthetic")}
    clock("fit_space", lambda: shared.space(space))
    clock("encode", lambda: [shared.encoded(space, r) for r in ("real", "synthetic")])
    for q, r in passes:
        clock(f"pass_{q}_{r}", lambda: shared.neighbours(space, q, r))
    if extremes:
        clock("exact_extremes", lambda: shared.extremes(space, "real", "synthetic"))
    else:
        clock("d_max_bounds", lambda: d_max_bounds(shared.encoded(space, "real"), shared.encoded(space, "synthetic")))
    out["dims"] = int(shared.encoded(space, "real").shape[1])
    return out

plans = {"auth": ("E", [("real", "synthetic"), ("real", "real")], False),
         "dcr": ("phi", [("real", "synthetic")], False),
         "hidr": ("phi", [("real", "synthetic")], True),
         "nndr": ("phi", [("synthetic", "real")], True)}
result = {}
for metric_id in ids:
    runs = [stages(*plans[metric_id]) for _ in range(3)]
    result[metric_id] = {k: (runs[0][k] if k == "dims" else round(statistics.median(r[k] for r in runs), 4))
                         for k in runs[0]}
print(json.dumps(result))
"""

WRITE_CSV = r"""
import sys
sys.path.insert(0, sys.argv[1])
from _adult import noisy_copy_case
real, synthetic, schema = noisy_copy_case(int(sys.argv[2]))
real.to_csv(sys.argv[3] + "/real.csv", index=False)
synthetic.to_csv(sys.argv[3] + "/synthetic.csv", index=False)
print('{"sensitive": "%s"}' % schema.sensitive)
"""


def run_script(code: str, tree: Path, *args: str, python: str | None = None) -> tuple[dict, float]:
    """``code`` in a fresh interpreter importing privcore from ``tree``: its last stdout line as JSON, and the
    process's wall seconds (start-up included)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    started = time.perf_counter()
    proc = subprocess.run([python or sys.executable, "-c", f"REVIEW = {REVIEW!r}\n" + code, str(BENCH),
                           *map(str, args)], capture_output=True, text=True, env=env, cwd=tree, check=False)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"measurement in {tree} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1]), seconds


def run_priveval(priveval: Path, python: str, folder: Path, sensitive: str) -> tuple[dict, float]:
    started = time.perf_counter()
    proc = subprocess.run([python, str(BENCH / "_priveval_runner.py"), str(priveval), str(folder / "real.csv"),
                           str(folder / "synthetic.csv"), sensitive], capture_output=True, text=True, check=False,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"PrivEval failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1]), seconds


def lscpu() -> dict:
    """``lscpu``'s model name, family, model and CPU count, and the load average."""
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        text = ""
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    return {"model_name": fields.get("Model name"), "cpu_family": fields.get("CPU family"),
            "model": fields.get("Model"), "cpus": fields.get("CPU(s)"), "vendor": fields.get("Vendor ID"),
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def priveval_versions(python: str, checkout: Path) -> dict:
    proc = subprocess.run([python, "-m", "pip", "list", "--format", "json"], capture_output=True, text=True,
                          check=False)
    listed = {p["name"].lower(): p["version"] for p in json.loads(proc.stdout or "[]")}
    commit = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip()
    version = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                             capture_output=True, text=True, check=False).stdout.strip()
    return {"commit": commit, "python": version, "pins": {name: listed.get(name) for name in PINS}}


def median(values) -> float:
    return round(statistics.median(values), 4)


def summarize(result: dict, runs: dict, process_seconds: dict, args, baseline) -> None:
    """Medians and ratios of the rounds run so far, into ``result``, written to ``args.out``."""
    result["lscpu_at_end"] = lscpu()
    result["rounds_completed"] = len(runs["priveval"])

    per_metric = {}
    for m in REVIEW:
        pe_wall = [r["metrics"][m]["seconds"] for r in runs["priveval"]]
        pe_cpu = [r["metrics"][m]["cpu_seconds"] + r["metrics"][m]["children_cpu_seconds"] for r in runs["priveval"]]
        pc_wall = [r[m]["seconds"] for r in runs["alone"]]
        pc_cpu = [r[m]["cpu_seconds"] for r in runs["alone"]]
        entry = {
            "priveval_seconds": [round(x, 4) for x in pe_wall],
            "priveval_cpu_seconds": [round(x, 4) for x in pe_cpu],
            "privcore_alone_seconds": pc_wall,
            "privcore_alone_cpu_seconds": pc_cpu,
            "privcore_alone_metric_seconds": [r[m]["metric_seconds"] for r in runs["alone"]],
            "privcore_full_run_seconds": [r["seconds"][m] for r in runs["full"]],
            "privcore_full_run_own_cpu_seconds": [r["own"][m]["own_cpu"] for r in runs["full"]],
            "ratio_wall_priveval_over_privcore": round(median(pe_wall) / max(median(pc_wall), 1e-4), 2),
            "ratio_cpu_priveval_over_privcore": round(median(pe_cpu) / max(median(pc_cpu), 1e-4), 2),
            "priveval_value": runs["priveval"][0]["metrics"][m]["value"],
            "priveval_error": runs["priveval"][0]["metrics"][m]["error"],
            "privcore_risk": runs["alone"][0][m]["risk"],
        }
        entry["privcore_not_slower_wall"] = median(pc_wall) <= median(pe_wall)
        entry["privcore_not_slower_cpu"] = median(pc_cpu) <= median(pe_cpu)
        per_metric[m] = entry
    result["per_metric"] = per_metric
    result["per_metric_note"] = (
        "privcore's per-metric seconds are an evaluate() of that metric alone (preparing the tables included), so a "
        "shared pass is attributed to every metric that reads it; PrivEval's are the metric's call in its process "
        "(its own encoding included). CPU seconds count every thread of the process (and PrivEval's reaped "
        "children: Hitting Rate's loky workers). Ratios are of medians over the rounds.")
    pe_metrics = [r["metrics_wall_seconds"] for r in runs["priveval"]]
    pe_metrics_cpu = [r["metrics_cpu_seconds"] for r in runs["priveval"]]
    full_wall = [r["evaluate_seconds"] for r in runs["full"]]
    full_cpu = [r["evaluate_cpu_seconds"] for r in runs["full"]]
    pe_rss = max(r["peak_rss_mb"] for r in runs["priveval"])
    pc_rss = max(r["peak_rss_mb"] for r in runs["full"])
    result["overall"] = {
        "priveval_17_metrics_seconds": [round(x, 3) for x in pe_metrics],
        "priveval_17_metrics_cpu_seconds": [round(x, 3) for x in pe_metrics_cpu],
        "privcore_evaluate_seconds": full_wall,
        "privcore_evaluate_cpu_seconds": full_cpu,
        "ratio_wall": round(median(pe_metrics) / median(full_wall), 2),
        "ratio_cpu": round(median(pe_metrics_cpu) / median(full_cpu), 2),
        "priveval_process_seconds": process_seconds["priveval"],
        "privcore_process_seconds": process_seconds["full"],
        "ratio_process_wall": round(median(process_seconds["priveval"]) / median(process_seconds["full"]), 2),
        "priveval_peak_rss_mb": round(pe_rss, 1),
        "priveval_children_peak_rss_mb": round(max(r["children_peak_rss_mb"] for r in runs["priveval"]), 1),
        "privcore_peak_rss_mb": pc_rss,
        "memory_ratio_privcore_over_priveval": round(pc_rss / pe_rss, 3),
        "metrics_where_privcore_is_slower_wall": [m for m in REVIEW if not per_metric[m]["privcore_not_slower_wall"]],
        "metrics_where_privcore_is_slower_cpu": [m for m in REVIEW if not per_metric[m]["privcore_not_slower_cpu"]],
    }
    slower = set(result["overall"]["metrics_where_privcore_is_slower_cpu"]) | set(
        result["overall"]["metrics_where_privcore_is_slower_wall"])
    stages = result.get("why_slower_stages_cpu_seconds", {})
    result["why_slower"] = {m: {"reason": WHY_SLOWER.get(m, "not explained: measure again (load on the host?)"),
                                "stages_cpu_seconds": stages.get(m)} for m in REVIEW if m in slower}
    if baseline is not None:
        result["gcap_line"] = {
            "baseline": args.baseline,
            "full_run_seconds": {"this": [r["seconds"]["gcap"] for r in runs["full"]],
                                 "baseline": [r["seconds"]["gcap"] for r in runs["baseline_full"]]},
            "full_run_own_cpu_seconds": {"this": [r["own"]["gcap"]["own_cpu"] for r in runs["full"]],
                                         "baseline": [r["own"]["gcap"]["own_cpu"] for r in runs["baseline_full"]]},
            "full_run_cpu_beside_seconds": {"this": [r["own"]["gcap"]["beside_cpu"] for r in runs["full"]],
                                            "baseline": [r["own"]["gcap"]["beside_cpu"]
                                                         for r in runs["baseline_full"]]},
            "alone_seconds": {"this": [r["gcap"]["seconds"] for r in runs["alone"]],
                              "baseline": [r["gcap"]["seconds"] for r in runs["baseline_alone"]]},
            "alone_cpu_seconds": {"this": [r["gcap"]["cpu_seconds"] for r in runs["alone"]],
                                  "baseline": [r["gcap"]["cpu_seconds"] for r in runs["baseline_alone"]]},
            "evaluate_seconds": {"this": full_wall, "baseline": [r["evaluate_seconds"] for r in runs["baseline_full"]]},
            "evaluate_cpu_seconds": {"this": full_cpu,
                                     "baseline": [r["evaluate_cpu_seconds"] for r in runs["baseline_full"]]},
            "cause": GCAP_CAUSE,
            # As in bench_engine: bit for bit except AIR (math.fsum since 505c211) and DCR/NNDR (the FAMD's SVD
            # on one BLAS thread since f72c6f3), which move by ~1e-15; D-MLP (float32 training) left out.
            "risks_equal_within_1e-12": all(
                abs(runs["full"][0]["risk"][m] - runs["baseline_full"][0]["risk"][m]) <= 1e-12
                for m in REVIEW if m != "dmlp"),
            "risks_not_bit_identical": {
                m: runs["full"][0]["risk"][m] - runs["baseline_full"][0]["risk"][m] for m in REVIEW
                if m != "dmlp" and runs["full"][0]["risk"][m] != runs["baseline_full"][0]["risk"][m]},
        }
        line = result["gcap_line"]
        wall, cpu = line["evaluate_seconds"], line["evaluate_cpu_seconds"]
        wall_ratio = median(wall["baseline"]) / median(wall["this"])
        result[f"against_{args.baseline}"] = {
            "evaluate_seconds": wall, "evaluate_cpu_seconds": cpu,
            "evaluate_wall_ratio": round(wall_ratio, 3),
            "evaluate_cpu_ratio": round(median(cpu["baseline"]) / median(cpu["this"]), 3),
            "target": TARGET_AGAINST_BASELINE, "met": wall_ratio >= TARGET_AGAINST_BASELINE,
        }
        own_this, own_base = (median(line["full_run_own_cpu_seconds"][s]) for s in ("this", "baseline"))
        alone_this, alone_base = (median(line["alone_cpu_seconds"][s]) for s in ("this", "baseline"))
        line["gcap_cpu_not_above_baseline"] = own_this <= 1.1 * own_base and alone_this <= 1.1 * alone_base
    out_path = Path(args.out)
    out_path.write_text(json.dumps(result, indent=2) + "\n")
    o = result["overall"]
    print(f"17 metrics: PrivEval {median(pe_metrics):.1f} s, privcore evaluate {median(full_wall):.1f} s "
          f"(x{o['ratio_wall']} wall, x{o['ratio_cpu']} CPU), peak {pe_rss:.0f} MB vs {pc_rss:.0f} MB; slower "
          f"(wall): {o['metrics_where_privcore_is_slower_wall']}, (CPU): {o['metrics_where_privcore_is_slower_cpu']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--priveval", required=True, help="a checkout of hereditary-eu/PrivEval")
    parser.add_argument("--priveval-python", required=True, help="a Python of PrivEval's own environment")
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, help="the commit of the GCAP line; '' for none")
    parser.add_argument("--out", default=str(BENCH / "results" / "priveval.json"))
    parser.add_argument("--no-stages", dest="stages", action="store_false",
                        help="leave out the CPU seconds per stage of Auth, DCR and HidR")
    args = parser.parse_args()
    priveval = Path(args.priveval).resolve()
    baseline = worktree(args.baseline) if args.baseline else None
    result = {
        "issue": 42,
        "this_commit": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                      capture_output=True, text=True, check=False).stdout.strip(),
        "lscpu_at_start": lscpu(),
        "priveval": priveval_versions(args.priveval_python, priveval),
        "case": {"rows": args.rows, "generator": "noisy_copy_case (bench/_adult.py)", "sensitive": "income",
                 "keys": "every other column (PrivEval's example: every non-sensitive column)",
                 "pairing": "row", "tables": "written as CSV, read by both tools"},
        "rounds": args.rounds,
    }
    out_path = Path(args.out)
    if out_path.exists():
        # The runs this one replaces: their overall figures, newest first, so that a figure's spread between runs
        # (the host's load moves both tools' seconds) stays on record.
        earlier = json.loads(out_path.read_text())
        result["earlier_runs"] = [{k: earlier[k] for k in KEPT_OF_EARLIER if k in earlier},
                                  *earlier.get("earlier_runs", [])]
    runs = {"priveval": [], "full": [], "alone": [], "baseline_full": [], "baseline_alone": []}
    process_seconds = {"priveval": [], "full": []}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sensitive = run_script(WRITE_CSV, ROOT, args.rows, folder)[0]["sensitive"]
        steps = [("priveval", lambda: run_priveval(priveval, args.priveval_python, folder, sensitive)),
                 ("full", lambda: run_script(PRIVCORE_FULL, ROOT, folder, ",".join(REVIEW))),
                 ("alone", lambda: run_script(PRIVCORE_ALONE, ROOT, folder, ",".join(REVIEW)))]
        if baseline is not None:
            steps += [("baseline_full", lambda: run_script(PRIVCORE_FULL, baseline, folder, ",".join(REVIEW))),
                      ("baseline_alone", lambda: run_script(PRIVCORE_ALONE, baseline, folder, "gcap"))]
        if args.stages:
            result["why_slower_stages_cpu_seconds"] = run_script(STAGES, ROOT, folder, "auth,dcr,hidr,nndr")[0]
        for round_ in range(args.rounds):
            for name, step in (steps if round_ % 2 == 0 else steps[::-1]):
                out, seconds = step()
                runs[name].append(out)
                if name in process_seconds:
                    process_seconds[name].append(round(seconds, 3))
                print(f"  round {round_ + 1} {name}: {seconds:.1f} s", flush=True)
            summarize(result, runs, process_seconds, args, baseline)


if __name__ == "__main__":
    main()
