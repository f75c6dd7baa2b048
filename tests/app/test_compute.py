"""Heavy work in worker processes (dashboard.compute): results, progress, errors and settings travel back and
forth; with PRIVCORE_DASHBOARD_WORKERS=0 the job runs in the calling thread."""

from __future__ import annotations

import os

import pytest

from dashboard import compute
from privcore.base.errors import InputError


def where_and_progress(steps: int, *, progress) -> tuple[int, str | None]:
    for i in range(steps):
        progress((i + 1) / steps, f"step {i + 1} of {steps}")
    return os.getpid(), os.environ.get("PRIVCORE_TEST_SETTING")


def priorities_and_blas_threads(*, progress) -> tuple[list[int], int]:
    """The nice value of every thread of the worker, and the BLAS threads its matrix products may use."""
    import numpy as np
    from threadpoolctl import threadpool_info

    a = np.ones((300, 300))
    a @ a  # a product, so that a BLAS library that starts its threads lazily has started them
    nice = [int((task / "stat").read_text().rsplit(")", 1)[1].split()[16]) for task in
            __import__("pathlib").Path("/proc/self/task").iterdir()]
    blas = max((pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"), default=1)
    return nice, blas


def refuse(*, progress) -> None:
    raise InputError("Column 'age' of real.csv is not a number.", file="real.csv", column="age")


@pytest.mark.slow
def test_a_job_runs_in_another_process_and_its_last_progress_arrives(monkeypatch):
    monkeypatch.setenv(compute.WORKERS_VARIABLE, "1")
    monkeypatch.setenv("PRIVCORE_TEST_SETTING", "sent with the job")
    seen = []
    pid, setting = compute.run_job(where_and_progress, 3, progress=lambda f, m: seen.append((f, m)))
    assert pid != os.getpid()
    assert setting == "sent with the job"  # the worker started earlier, the job brings the current settings
    assert seen and seen[-1] == (1.0, "step 3 of 3")
    assert [f for f, _ in seen] == sorted(f for f, _ in seen)


def test_a_setting_removed_here_is_removed_for_the_next_job(monkeypatch):
    monkeypatch.setenv(compute.WORKERS_VARIABLE, "1")
    monkeypatch.setenv("PRIVCORE_TEST_SETTING", "first")
    assert compute.run_job(where_and_progress, 1)[1] == "first"
    monkeypatch.delenv("PRIVCORE_TEST_SETTING")
    assert compute.run_job(where_and_progress, 1)[1] is None


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads thread priorities from Linux's /proc")
def test_every_worker_thread_yields_to_the_server_and_uses_one_blas_thread(monkeypatch):
    # A nice value belongs to a thread on Linux: BLAS threads started at numpy's import, before the worker
    # lowered its priority, once ran at the server's priority and slowed page loads.
    monkeypatch.setenv(compute.WORKERS_VARIABLE, "1")
    nice, blas_threads = compute.run_job(priorities_and_blas_threads)
    assert len(nice) >= 1 and set(nice) == {compute.WORKER_NICENESS}, nice
    assert blas_threads == 1


def test_an_input_error_in_a_worker_keeps_its_message_file_and_column(monkeypatch):
    monkeypatch.setenv(compute.WORKERS_VARIABLE, "1")
    with pytest.raises(InputError, match="not a number") as caught:
        compute.run_job(refuse)
    assert (caught.value.file, caught.value.column) == ("real.csv", "age")


def test_zero_workers_run_the_job_in_this_thread(monkeypatch):
    monkeypatch.setenv(compute.WORKERS_VARIABLE, "0")
    seen = []
    pid, _ = compute.run_job(where_and_progress, 2, progress=lambda f, m: seen.append(f))
    assert pid == os.getpid() and seen == [0.5, 1.0]


@pytest.mark.parametrize(("text", "expected"), [("3", 3), ("0", 0), ("-2", 0), ("many", None), ("", None)])
def test_worker_count_setting(monkeypatch, text, expected):
    monkeypatch.setenv(compute.WORKERS_VARIABLE, text)
    assert compute.configured_workers() == (compute.usable_cores() if expected is None else expected)
    assert compute.usable_cores() >= 1


def slow_job(seconds: float, *, progress) -> str:
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        progress(0.5, "working")
        time.sleep(0.02)
    return "finished"


class PageLeft(BaseException):
    """Stands for Streamlit's StopException, raised in the waiting script when the user leaves."""


def test_a_job_whose_page_left_stops_and_frees_its_worker(monkeypatch):
    import time

    monkeypatch.setenv(compute.WORKERS_VARIABLE, "1")
    compute.run_job(where_and_progress, 1)  # the single worker is started

    def leave(fraction, message):
        raise PageLeft()

    with pytest.raises(PageLeft):
        compute.run_job(slow_job, 60.0, progress=leave)
    started = time.monotonic()
    assert compute.run_job(slow_job, 0.1) == "finished"  # the only worker is free again long before 60 s
    assert time.monotonic() - started < 15
