"""Every GPU check of the project in one prepared run, within a time budget (issue 24's GPU part).

A lent GPU machine is held for minutes, so the checks run in one command, most important first, each in its
own process with its own time limit taken from what is left of ``--budget``; each writes its own files
into ``--out`` as soon as it ends, so a check stopped at its limit loses only itself:

1. ``environment.json``: the GPU, driver and the versions of Python, numpy, pandas, scikit-learn, CuPy, torch.
2. ``gpu_tests.log``: ``tests/engine/test_gpu_backend.py`` with a real GPU (its real-GPU tests run, not skip).
3. ``gpu_check.json``, ``gpu_metrics.json``: ``bench_gpu.py``'s parts (the 11 distance metrics' reports on
   both devices at ``--check-rows``; the 11 at ``--metric-rows`` on the GPU).
4. ``torch_generators.json``: ``bench_torch_generators.py`` (CTGAN and TVAE, GPU against CPU).
5. ``gpu_pair.json``: the 100,000-row passes on both devices, if time is left.
6. ``dcr_delusion_gpu.json``: "The DCR Delusion" with 300-epoch CTGAN (``reproduce_dcr_delusion.py``),
   as many models as the measured GPU fit time lets finish in what is left (at most ``--models``).

Usage: ``python bench/gpu_session.py --out DIR [--budget 540]``; progress is printed as it goes. A short
lease takes ``--steps NAME:SECONDS,...`` (only those steps, in that order, with those limits). The GPU image
used so far (2026-11: Python 3.12, numpy 2.5, pandas 3, CuPy 14 for CUDA 13, torch 2.11) lacks pandas 2,
lightgbm, SDV and SDV's own dependencies: they travel as wheels, installed with ``pip --target`` before this
script runs (``bench/results/gpu.json`` records the versions it ran with).
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

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent


def run(command: list[str], limit: float, log: Path) -> dict:
    """``command`` in the repository root with at most ``limit`` seconds; its output goes to ``log``."""
    began = time.perf_counter()
    print(f"[{time.strftime('%H:%M:%S')}] {' '.join(command)} (limit {limit:.0f} s)", flush=True)
    with log.open("w") as sink:
        try:
            code = subprocess.run(command, cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT, timeout=limit).returncode
        except subprocess.TimeoutExpired:
            code = "stopped at its time limit"
    seconds = round(time.perf_counter() - began, 1)
    tail = log.read_text(errors="replace").splitlines()[-6:]
    print(f"    -> {code} in {seconds} s\n    " + "\n    ".join(tail), flush=True)
    return {"exit": code, "seconds": seconds}


def environment() -> dict:
    """What the numbers were measured with."""
    out = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()}
    for name in ("numpy", "pandas", "scipy", "sklearn", "cupy", "torch", "sdv", "lightgbm"):
        try:
            out[name] = __import__(name).__version__
        except Exception as error:  # a missing package is recorded, not fatal
            out[name] = f"missing: {error}"
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True)
        out["nvidia_smi"] = smi.stdout.strip() or smi.stderr.strip()
    except OSError as error:
        out["nvidia_smi"] = f"not run: {error}"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--budget", type=float, default=540.0, help="seconds for everything")
    parser.add_argument("--pair-rows", type=int, default=100_000)
    parser.add_argument("--check-rows", type=int, default=100_000)
    parser.add_argument("--metric-rows", type=int, default=1_000_000)
    parser.add_argument("--models", type=int, default=128)
    parser.add_argument("--workers", type=int, default=12)
    parser.add_argument("--steps", help="NAME:SECONDS,... to run only these steps, in this order, with these limits "
                        "(e.g. gpu_tests:30,gpu_check:75); each then keeps nothing for the steps after it")
    parser.add_argument("--tests", default="", help="pytest -k expression for gpu_tests (e.g. real_gpu)")
    parser.add_argument("--torch", default="sdv_ctgan,sdv_tvae", help="generators for torch_generators")
    parser.add_argument("--torch-devices", default="gpu,cpu")
    args = parser.parse_args()
    deadline = time.perf_counter() + args.budget
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    steps: dict = {"environment": environment()}
    (out / "environment.json").write_text(json.dumps(steps["environment"], indent=2) + "\n")
    print(json.dumps(steps["environment"]), flush=True)

    def left(reserve: float = 0.0) -> float:
        return deadline - time.perf_counter() - reserve

    python = sys.executable
    # Each step's limit leaves the later ones a floor, so one slow step cannot starve all the rest.
    plan = [  # (name, command, its own limit, seconds kept for the steps after it): the most wanted first
        ("gpu_tests", [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-n", "4",
                       "-rs", "tests/engine/test_gpu_backend.py"] + (["-k", args.tests] if args.tests else []), 60, 420),
        ("gpu_check", [python, "bench/bench_gpu.py", "--parts", "check", "--metric-rows", str(args.check_rows),
                       "--check-rows", str(args.check_rows), "--out", str(out / "gpu_check.json")], 120, 300),
        # The 1,000,000-row run did not finish in 90 s on an H200 (first lease): it gets the most time.
        ("gpu_metrics", [python, "bench/bench_gpu.py", "--parts", "metrics", "--metric-rows", str(args.metric_rows),
                         "--out", str(out / "gpu_metrics.json")], 250, 60),
        ("torch_generators", [python, "bench/bench_torch_generators.py", "--timeout", "80", "--generators", args.torch,
                              "--devices", args.torch_devices, "--out", str(out / "torch_generators.json")], 180, 0),
        ("gpu_pair", [python, "bench/bench_gpu.py", "--parts", "pair", "--pair-rows", str(args.pair_rows),
                      "--out", str(out / "gpu_pair.json")], 80, 0),
    ]
    if args.steps:
        commands = {name: command for name, command, _, _ in plan}
        chosen = [item.split(":") for item in args.steps.split(",")]
        plan = [(name, commands[name], float(seconds), 0.0) for name, seconds in chosen]
    for name, command, limit, reserve in plan:
        budget = min(limit, left(reserve))
        if budget < 20:
            steps[name] = {"exit": f"not run: {left():.0f} s left"}
            continue
        steps[name] = run(command, budget, out / f"{name}.log")
    fits = json.loads((out / "torch_generators.json").read_text()) if (out / "torch_generators.json").exists() else {}
    fit = fits.get("generators", {}).get("sdv_ctgan", {}).get("gpu", {}).get("fits", {}).get("300", {})
    if fit and left() > 60:
        # Models that finish in what is left: fits run `workers` at a time, each about as long as the one
        # measured alone plus its sample (sharing the GPU and the cores makes them slower: a margin of 2).
        per_fit = 2.0 * (fit["fit_seconds"] + fit["sample_seconds"])
        models = min(args.models, int((left(60) / per_fit) * args.workers) // 16 * 16)
        if models >= 32:
            steps["dcr_delusion"] = run([python, "bench/reproduce_dcr_delusion.py", "--generators", "sdv_ctgan",
                                         "--models", str(models), "--dcr-tables", "2", "--workers",
                                         str(args.workers), "--out", str(out / "dcr_delusion_gpu.json")],
                                        left(5), out / "dcr_delusion.log")
        else:
            steps["dcr_delusion"] = {"exit": f"not run: {models} models would fit in {left():.0f} s"}
    (out / "session.json").write_text(json.dumps(steps, indent=2, default=str) + "\n")
    print(json.dumps({k: v for k, v in steps.items() if k != "environment"}, default=str), flush=True)


if __name__ == "__main__":
    main()
