"""Issue 12, item 2: the GPU backend of the neighbour engine against the CPU path, on Adult-like tables.

Parts, each measured in its own (spawned) process, so that its peak memory is its own:

- ``pair``: the real→synthetic pass in E with d_min/d_max and the real→real pass at ``--pair-rows``
  (default 100,000) rows, on the CPU (every usable core) and on the GPU: seconds of each, and whether
  the results are identical (d1, d2, both indices, d_min, d_max). The GPU is warmed up first (CUDA
  context, cuBLAS) on a small pass, reported separately.
- ``metrics``: the 11 distance metrics of the review (cvp dvp auth idscore nsnd nndr dcr mdcr nnaa hidr hitr)
  at ``--metric-rows`` (default 1,000,000) real × synthetic rows with ``evaluate(..., device="gpu")``:
  total seconds (start-up included), seconds per metric, the neighbour passes, and the process's peak host
  memory (``resource.getrusage``, max RSS). Targets: ≤ 120 s and ≤ 8 GB on one GPU.
- ``check``: the same 11 metrics on the first ``--check-rows`` (default 100,000) rows of those tables on the
  CPU and on the GPU: the two JSON reports (run times left out) must be equal.

Usage, on a machine with an NVIDIA GPU and ``pip install 'privcore[gpu]'``:
``python bench/bench_gpu.py [--parts pair,metrics,check] [--pair-rows 100000] [--metric-rows 1000000]
[--check-rows 100000]``. Writes ``bench/results/gpu.json`` with the machine's description (CPU, cores, GPU
name, CuPy and CUDA versions).

``--emulate`` runs the GPU code path with numpy as its array module (``PRIVCORE_GPU_EMULATE=1``) to check
that the script works on a machine without a GPU; use small sizes, e.g. ``--emulate --pair-rows 3000
--metric-rows 3000 --check-rows 2000``. Emulated numbers are not GPU results: they are written to
``/tmp/privcore_gpu_emulated.json`` unless ``--out`` says otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT))

from _adult import progress_printer, run_in_own_process  # noqa: E402

DISTANCE = ("cvp", "dvp", "auth", "idscore", "nsnd", "nndr", "dcr", "mdcr", "nnaa", "hidr", "hitr")


def _tables(rows: int, subsample: int | None = None):
    """Adult real rows (resampled beyond 32,561) and a noisy copy; optionally only their first rows."""
    from _adult import adult_tables

    real, synthetic = adult_tables(rows)
    if subsample is not None:
        real = real.iloc[:subsample].reset_index(drop=True)
        synthetic = synthetic.iloc[:subsample].reset_index(drop=True)
    return real, synthetic


def _schema():
    from _adult import adult_schema

    return adult_schema().with_changes(pairing="row")  # HidR needs the pairing


def _pair(rows: int, queue) -> None:
    import numpy as np

    from privcore.data.prepare import prepare
    from privcore.engine import SharedComputation, nearest_two

    real, synthetic = _tables(rows)
    shared = SharedComputation(prepare(real, synthetic, _schema()))
    y, z = shared.encoded("E", "real"), shared.encoded("E", "synthetic")
    started = time.perf_counter()
    nearest_two(y[:2000], z[:2000], with_extremes=True, method="matrix", device="gpu")
    warm_up = time.perf_counter() - started
    out = {"rows": rows, "dim": int(y.shape[1]), "gpu_warm_up_seconds": round(warm_up, 3)}
    results = {}
    for device in ("cpu", "gpu"):
        started = time.perf_counter()
        across, extremes = nearest_two(y, z, with_extremes=True, method="matrix", device=device)
        middle = time.perf_counter()
        within, _ = nearest_two(y, y, exclude_self=True, method="matrix", device=device)
        ended = time.perf_counter()
        out[f"{device}_seconds"] = {"real_to_synthetic_with_extremes": round(middle - started, 3),
                                    "real_to_real": round(ended - middle, 3)}
        results[device] = (across, extremes, within)
    (a_cpu, e_cpu, w_cpu), (a_gpu, e_gpu, w_gpu) = results["cpu"], results["gpu"]
    out["identical"] = {
        "d1_d2": bool(np.array_equal(a_cpu.distance, a_gpu.distance) and np.array_equal(w_cpu.distance,
                                                                                         w_gpu.distance)),
        "indices": bool(np.array_equal(a_cpu.index, a_gpu.index) and np.array_equal(w_cpu.index, w_gpu.index)),
        "extremes": e_cpu == e_gpu,
    }
    out["d_min"], out["d_max"] = e_cpu.d_min, e_cpu.d_max
    out["speedup"] = round(sum(out["cpu_seconds"].values()) / max(sum(out["gpu_seconds"].values()), 1e-9), 2)
    queue.put(out)


def _evaluate(rows: int, device: str, subsample: int | None):
    from privcore import evaluate

    began = time.perf_counter()
    real, synthetic = _tables(rows, subsample)
    print(f"  [{device} {time.perf_counter() - began:7.1f} s] tables of {len(real):,} rows ready", flush=True)
    started = time.perf_counter()
    report = evaluate(real, synthetic, _schema(), metrics=list(DISTANCE), seed=0, strict=True, device=device,
                      progress=progress_printer(device, started, lambda message: message.split(":", 1)[0]))
    return report, time.perf_counter() - started


def _metrics(args: tuple, queue) -> None:
    from _adult import peak_rss_mb

    from privcore.base import without_timings

    rows, device, subsample = args
    report, seconds = _evaluate(rows, device, subsample)
    document = without_timings(json.loads(report.to_json()))
    queue.put({
        "rows": subsample or rows,
        "device": device,
        "total_seconds": round(seconds, 2),
        "seconds_per_metric": {m: round(report[m].seconds, 2) for m in DISTANCE},
        "risk": {m: report[m].risk for m in DISTANCE},
        "neighbour_passes": [" ".join(p) for p in report.shared.passes],
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "report_sha256": hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest(),
    })


def machine() -> dict:
    """CPU, cores, memory and the GPU the numbers were measured on."""
    from privcore.base import usable_cores
    from privcore.engine import gpu

    cpuinfo = Path("/proc/cpuinfo")
    model = next((line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                  if line.startswith("model name")), platform.processor()) if cpuinfo.exists() else ""
    out = {"cpus": os.cpu_count(), "usable_cores": usable_cores(), "cpu_model": model,
           "python": platform.python_version(), "machine": platform.machine(),
           "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
           "emulated": gpu.emulated(), "gpu": gpu.device_name()}
    if not gpu.emulated() and out["gpu"] is not None:
        import cupy

        free, total = cupy.cuda.runtime.memGetInfo()
        out.update({"gpu_memory_gib": round(total / 2**30, 1), "cupy": cupy.__version__,
                    "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
                    "cuda_driver": cupy.cuda.runtime.driverGetVersion()})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="pair,metrics,check")
    parser.add_argument("--pair-rows", type=int, default=100_000)
    parser.add_argument("--metric-rows", type=int, default=1_000_000)
    parser.add_argument("--check-rows", type=int, default=100_000)
    parser.add_argument("--emulate", action="store_true",
                        help="run the GPU code path on numpy (no GPU needed; the numbers are not GPU results)")
    parser.add_argument("--out", help="default bench/results/gpu.json, /tmp/privcore_gpu_emulated.json with --emulate")
    args = parser.parse_args()
    if args.emulate:
        os.environ["PRIVCORE_GPU_EMULATE"] = "1"  # inherited by the spawned measurements
    from privcore.engine import gpu

    if not gpu.gpu_available():
        sys.exit("No usable GPU: install privcore[gpu] on a machine with an NVIDIA GPU, or pass --emulate.")
    out = Path(args.out or ("/tmp/privcore_gpu_emulated.json" if args.emulate
                            else ROOT / "bench" / "results" / "gpu.json"))
    parts = args.parts.split(",")
    record = {"benchmark": "gpu", "machine": machine()}

    def save() -> None:  # after every part: a run stopped at its time limit keeps what it measured
        record["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
        out.write_text(json.dumps(record, indent=2) + "\n")

    if "pair" in parts:
        record["pair"] = run_in_own_process(_pair, args.pair_rows)
        print(json.dumps({"pair": record["pair"]}), flush=True)
        save()
    if "metrics" in parts:
        record["metrics"] = run_in_own_process(_metrics, (args.metric_rows, "gpu", None))
        record["metrics"]["targets_met"] = {"seconds_le_120": record["metrics"]["total_seconds"] <= 120,
                                            "peak_rss_le_8_gb": record["metrics"]["peak_rss_mb"] <= 8 * 1024}
        print(json.dumps({"metrics": record["metrics"]}), flush=True)
        save()
    if "check" in parts:
        subsample = min(args.check_rows, args.metric_rows)
        runs = {device: run_in_own_process(_metrics, (args.metric_rows, device, subsample))
                for device in ("cpu", "gpu")}
        record["check"] = {"rows": subsample, "of_rows": args.metric_rows,
                           "identical_report": runs["cpu"]["report_sha256"] == runs["gpu"]["report_sha256"],
                           "cpu_seconds": runs["cpu"]["total_seconds"], "gpu_seconds": runs["gpu"]["total_seconds"],
                           "seconds_per_metric": {d: runs[d]["seconds_per_metric"] for d in runs},
                           "peak_rss_mb": {d: runs[d]["peak_rss_mb"] for d in runs}, "risk": runs["cpu"]["risk"]}
        print(json.dumps({"check": record["check"]}), flush=True)
    save()
    print(f"written to {out}")


if __name__ == "__main__":
    main()
