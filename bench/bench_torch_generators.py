"""The audit's torch generators (SDV's CTGAN and TVAE) on the GPU against the CPU of the same machine.

One fit of each on 1,000 Adult rows plus a sample of 1,000 rows, as every shadow model of an audit does
(the same rows as ``bench_audit_generators.py``), at ``--epochs`` (SDV's default 300) and at 1 epoch, so
that a fit's time splits into SDV's fixed preprocessing (a Gaussian mixture per numeric column, on the CPU
whatever the device) and a per-epoch cost. Each device runs in its own fresh process: the CPU one with
``CUDA_VISIBLE_DEVICES`` empty, so SDV's ``enable_gpu=True`` (its default, which privcore keeps) finds no
GPU and torch uses every core. Before timing, each process imports SDV and, on the GPU, makes the CUDA
context and fits once for 1 epoch (both reported separately): neither is a fit's own cost.

Usage, on a machine with an NVIDIA GPU and ``pip install 'privcore[sdv]'``:
``python bench/bench_torch_generators.py [--epochs 300] [--out bench/results/torch_generators.json]``.
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
GENERATORS = ("sdv_ctgan", "sdv_tvae")
ROWS = 1000


def measure(name: str, epochs: list[int]) -> dict:
    """Fit-and-sample seconds of ``name`` at each of ``epochs`` in this process, and where torch ran."""
    sys.path.insert(0, str(ROOT))
    import sdv.single_table  # noqa: F401 - imported before timing: the import is not a fit's cost
    import torch

    from privcore.demo import ADULT_TYPES, load_adult
    from privcore.generators import make_generator

    began = time.perf_counter()
    on_gpu = torch.cuda.is_available()
    if on_gpu:
        torch.zeros(1, device="cuda").sum().item()  # the CUDA context, once per process
    context_seconds = time.perf_counter() - began
    adult = load_adult()
    training = adult.sample(ROWS, random_state=0).reset_index(drop=True)
    out = {"device": torch.cuda.get_device_name(0) if on_gpu else "cpu", "torch": torch.__version__,
           "torch_threads": torch.get_num_threads(), "cuda_context_seconds": round(context_seconds, 2), "fits": {}}
    # The first fit in a process also pays lazy imports and caches (seconds): timed apart, not a fit's cost.
    began = time.perf_counter()
    make_generator(name, epochs=1).fit(training, dict(ADULT_TYPES)).sample(10, seed=0)
    out["first_fit_seconds"] = round(time.perf_counter() - began, 2)
    for count in epochs:
        generator = make_generator(name, epochs=count)
        began = time.perf_counter()
        generator.fit(training, dict(ADULT_TYPES))
        fitted = time.perf_counter()
        sample = generator.sample(ROWS, seed=0)
        ended = time.perf_counter()
        out["fits"][str(count)] = {"fit_seconds": round(fitted - began, 2), "sample_seconds": round(ended - fitted, 2),
                                   "rows_sampled": len(sample)}
    return out


def in_own_process(name: str, epochs: list[int], cpu_only: bool, timeout: float) -> dict:
    """:func:`measure` in a fresh interpreter; ``cpu_only`` hides every GPU from it."""
    env = dict(os.environ)
    if cpu_only:
        env["CUDA_VISIBLE_DEVICES"] = ""
    code = (f"import json, sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); import bench_torch_generators as b; "
            f"print('RESULT ' + json.dumps(b.measure({name!r}, {epochs!r})))")
    try:
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"stopped after {timeout:.0f} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr or done.stdout)[-2000:]}
    return json.loads(lines[-1][len("RESULT "):])


def summarise(entry: dict, epochs: int) -> None:
    """Fixed and per-epoch seconds from the 1-epoch and the full fit (a straight line through the two)."""
    fits = entry.get("fits", {})
    if "1" in fits and str(epochs) in fits and epochs > 1:
        one, full = fits["1"]["fit_seconds"], fits[str(epochs)]["fit_seconds"]
        per_epoch = max(full - one, 0.0) / (epochs - 1)
        entry["per_epoch_seconds"] = round(per_epoch, 4)
        entry["fixed_seconds"] = round(max(one - per_epoch, 0.0), 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--generators", default=",".join(GENERATORS))
    parser.add_argument("--devices", default="gpu,cpu")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds one device's measurement may take")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "torch_generators.json"))
    args = parser.parse_args()
    record = {"benchmark": "torch_generators", "rows": ROWS, "epochs": args.epochs,
              "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "machine": platform.machine()},
              "generators": {}}
    for name in args.generators.split(","):
        entry = {}
        for device in args.devices.split(","):
            cpu_only = device == "cpu"
            entry[device] = in_own_process(name, [1, args.epochs], cpu_only, args.timeout)
            summarise(entry[device], args.epochs)
            print(json.dumps({name: {device: entry[device]}}), flush=True)
            record["generators"][name] = entry
            Path(args.out).write_text(json.dumps(record, indent=2) + "\n")  # kept if a later fit is stopped
        full = str(args.epochs)
        try:
            entry["cpu_over_gpu_fit_seconds"] = round(entry["cpu"]["fits"][full]["fit_seconds"]
                                                      / entry["gpu"]["fits"][full]["fit_seconds"], 2)
        except (KeyError, ZeroDivisionError):
            pass
    Path(args.out).write_text(json.dumps(record, indent=2) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
