"""Benchmark data: Adult rows from the vendored demo data, synthetic tables from the demo generators."""

from __future__ import annotations

import queue as queues
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from privcore.data import Schema
from privcore.demo import ADULT_TYPES, SENSITIVE, generate, load_adult


def adult_tables(n_real: int, n_synthetic: int | None = None, generator: str = "noisy_copy", seed: int = 0):
    """``n_real`` distinct Adult rows and a synthetic table of ``n_synthetic`` rows made by ``generator``.

    Beyond the 32,561 rows of Adult, rows are resampled with replacement (duplicates then occur, as they
    would in any large table of coarse attributes).
    """
    adult = load_adult()
    rng = np.random.default_rng(seed)
    replace = n_real > len(adult)
    real = adult.iloc[rng.choice(len(adult), size=n_real, replace=replace)].reset_index(drop=True)
    synthetic = generate(generator, real, types=dict(ADULT_TYPES), n=n_synthetic or n_real, seed=seed)
    return real, synthetic


def noisy_copy_case(rows: int, seed: int = 0, distinct: bool = False):
    """Issue 24's case: ``rows`` seeded Adult rows and a noisy copy of them in the same row order.

    The copy adds Gaussian noise of 0.1 × the column's standard deviation to every number and redraws 10 % of
    the categorical and binary cells from the column's marginal in the real table. ``distinct=True`` first
    jitters the real numbers (noise of 0.001 × the standard deviation), so that no two real rows are equal
    even where rows are drawn more than once (beyond Adult's 32,561): the distinct-row shortcut cannot help.
    Returns the real table, the synthetic table and the schema (sensitive ``income``, pairing by row).
    """
    adult = load_adult()
    rng = np.random.default_rng(seed)
    real = adult.iloc[rng.choice(len(adult), size=rows, replace=rows > len(adult))].reset_index(drop=True)
    types = dict(ADULT_TYPES)
    numerical = [c for c, t in types.items() if t == "numerical"]
    if distinct:
        for col in numerical:
            real[col] = real[col].astype(float) + rng.normal(0.0, 1e-3 * real[col].std(), rows)
    synthetic = real.copy()
    for col, kind in types.items():
        if kind == "numerical":
            synthetic[col] = real[col].astype(float) + rng.normal(0.0, 0.1 * real[col].std(), rows)
        else:
            redraw = rng.random(rows) < 0.1
            marginal = real[col].value_counts(normalize=True)
            synthetic.loc[redraw, col] = rng.choice(marginal.index.to_numpy(), size=int(redraw.sum()),
                                                    p=marginal.to_numpy())
    return real, synthetic, adult_schema().with_changes(pairing="row")


def adult_schema() -> Schema:
    types = dict(ADULT_TYPES)
    return Schema(types=types, sensitive=SENSITIVE)


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_in_own_process(target, rows):
    """``target(rows, queue)`` in a fresh (spawned) process, so its peak RSS is its own; returns what it puts."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(rows, queue))
    proc.start()
    while True:  # a child that dies before it puts its result must not leave this process waiting forever
        try:
            out = queue.get(timeout=1.0)
            break
        except queues.Empty:
            if not proc.is_alive():
                raise RuntimeError(f"{target.__name__} failed with exit code {proc.exitcode}") from None
    proc.join()
    if proc.exitcode != 0:
        raise RuntimeError(f"{target.__name__} failed with exit code {proc.exitcode}")
    return out


def worktree(commit: str) -> Path:
    """A detached git worktree of ``commit`` (created once, in the temporary folder): the baseline that a
    benchmark measures in the same run as this checkout."""
    root = Path(__file__).resolve().parents[1]
    path = Path(tempfile.gettempdir()) / f"privcore-{commit}"
    if not path.exists():
        subprocess.run(["git", "-C", str(root), "worktree", "add", "--detach", str(path), commit], check=True,
                       capture_output=True)
    return path


def progress_printer(prefix: str, started: float, new_phase=None):
    """A progress callback that prints a line at most every 10 s, at the end, and whenever ``new_phase(message)``
    changes (e.g. the metric a message names): a run stopped at its time limit (a GPU lease) still shows where
    its time went."""
    last = {"phase": None, "at": -10.0}

    def show(fraction: float, message: str) -> None:
        now = time.perf_counter() - started
        phase = new_phase(message) if new_phase is not None else None
        if phase != last["phase"] or now - last["at"] >= 10.0 or fraction >= 1.0:
            print(f"  [{prefix} {now:7.1f} s] {fraction:5.1%} {message}", flush=True)
            last.update(phase=phase, at=now)

    return show
