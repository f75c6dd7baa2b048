"""One evaluation's caches asked for from two threads at once (a metric beside D-MLP and one on the main thread)."""

from __future__ import annotations

import pickle
import threading
import time

import numpy as np
import pandas as pd

from privcore.data.prepare import prepare
from privcore.data.schema import infer_schema
from privcore.engine.context import SharedComputation


def _shared() -> SharedComputation:
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"a": rng.normal(size=200), "b": rng.choice(list("xyz"), size=200)})
    synthetic = pd.DataFrame({"a": rng.normal(size=150), "b": rng.choice(list("xyz"), size=150)})
    return SharedComputation(prepare(real, synthetic, infer_schema(real)), workers=2)


def test_two_threads_asking_for_one_pass_compute_it_once_and_read_the_same_result(monkeypatch):
    shared = _shared()
    computed = []
    compute = shared._compute_pass

    def slow(*args):
        computed.append(threading.current_thread().name)
        time.sleep(0.2)  # long enough for the other thread to ask meanwhile
        return compute(*args)

    monkeypatch.setattr(shared, "_compute_pass", slow)
    results = {}
    threads = [threading.Thread(target=lambda n=n: results.__setitem__(n, shared.neighbours("E", "real", "synthetic")),
                                name=f"asker {n}") for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(computed) == 1 and shared.passes == [("E", "real", "synthetic")]
    assert results[0] is results[1]


def test_passes_report_progress_only_on_the_thread_that_set_the_callback():
    shared = _shared()
    reports = []
    shared.progress = lambda fraction, message: reports.append(threading.current_thread().name)
    beside = threading.Thread(target=lambda: shared.neighbours("E", "real", "synthetic"), name="beside")
    beside.start()
    beside.join(timeout=30)
    assert reports == []  # the callback speaks for the main thread's metric
    shared.neighbours("E", "synthetic", "real")
    assert reports  # where the callback was set, the pass reports


def test_a_pickled_evaluation_gets_a_lock_of_its_own_and_keeps_its_passes():
    shared = _shared()
    shared.neighbours("E", "real", "synthetic")
    copy = pickle.loads(pickle.dumps(shared))
    assert copy._lock is not shared._lock and copy.progress is None
    assert copy.neighbours("E", "real", "synthetic").d1.tolist() == shared.neighbours("E", "real", "synthetic").d1.tolist()
    assert copy.passes == [("E", "real", "synthetic")]


def test_a_long_fill_on_one_thread_keeps_no_other_thread_from_what_is_filled_or_from_other_keys():
    shared = _shared()
    filled = shared.neighbours("E", "real", "synthetic")
    inside, release = threading.Event(), threading.Event()

    def long_attack():
        inside.set()
        assert release.wait(timeout=30)
        return "scores"

    def long_pass(*args):
        inside.set()
        assert release.wait(timeout=30)
        return {("E", "synthetic", "real"): filled}

    for busy in (lambda: shared.cached("a membership attack", long_attack),
                 lambda: shared.neighbours("E", "synthetic", "real")):
        inside.clear()
        release.clear()
        shared._compute_pass = long_pass  # only the second round's pass gets here
        beside = threading.Thread(target=busy)
        beside.start()
        assert inside.wait(timeout=30)
        started = time.perf_counter()
        assert shared.neighbours("E", "real", "synthetic") is filled  # filled: read without waiting
        assert shared.encoded("E", "real") is not None
        assert shared.cached("another key", lambda: 1) == 1  # another key: filled without waiting
        assert time.perf_counter() - started < 5
        release.set()
        beside.join(timeout=30)
    assert shared.cached("a membership attack", lambda: "computed twice") == "scores"
