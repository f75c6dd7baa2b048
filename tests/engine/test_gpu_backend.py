"""The GPU backend (issue 12): its code path, run with numpy as the array module (PRIVCORE_GPU_EMULATE=1),
returns exactly the CPU path's neighbours, extremes, counts and JSON report; the device is chosen and
checked as documented; without a GPU, asking for one is bad input with a message that says what to do."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore import Schema, evaluate
from privcore.base.errors import InputError
from privcore.base.jsonvalues import without_timings
from privcore.cli.main import main
from privcore.demo import load_scenario
from privcore.engine import candidates, gpu, operands
from privcore.engine.encoding import EuclideanSpace
from privcore.engine.neighbors import all_within, count_within, nearest_k, nearest_two

CHUNK_SIZES = [1, 7, 64, 1000, 2**22]
NO_GPU_MESSAGE = "install privcore[gpu] on a machine with an NVIDIA GPU, or use device='cpu'"
#: The tests that run the real device (CuPy and a CUDA GPU); the others run its code path on numpy.
needs_a_gpu = pytest.mark.skipif(gpu._cuda_device_count() == 0, reason="needs CuPy and a CUDA GPU")


@pytest.fixture
def no_gpu(monkeypatch):
    """A machine without CuPy or a GPU, whatever this one has."""
    monkeypatch.delenv(gpu.EMULATE_VARIABLE, raising=False)
    monkeypatch.setattr(gpu, "_cuda_device_count", lambda: 0)


@pytest.fixture
def emulated(monkeypatch):
    """The GPU code path on numpy; counts the passes that really took it."""
    monkeypatch.setenv(gpu.EMULATE_VARIABLE, "1")
    taken = []
    original = operands._gpu_operands

    def counting(*args):
        taken.append(args[0].shape)
        return original(*args)

    monkeypatch.setattr(operands, "_gpu_operands", counting)
    return taken


def assert_same(a, b):
    np.testing.assert_array_equal(a.distance, b.distance)
    np.testing.assert_array_equal(a.index, b.index)


def mixed_tables(rng, n, m):
    """Encoded mixed-type tables with exact duplicates within and across tables and many tied distances."""
    def table(size):
        return pd.DataFrame({
            "age": rng.integers(18, 30, size).astype(float),
            "income": np.round(rng.normal(50, 10, size), 1),
            "city": rng.choice(["a", "b", "c"], size),
            "smoker": rng.choice(["yes", "no"], size),
        })

    real, synthetic = table(n), table(m)
    real.iloc[n // 2 : n // 2 + 3] = real.iloc[0].to_numpy()  # three copies of row 0
    synthetic.iloc[:5] = real.iloc[:5].to_numpy()  # exact copies across the tables
    schema = Schema({"age": "numerical", "income": "numerical", "city": "categorical", "smoker": "binary"})
    space = EuclideanSpace(real, [synthetic], schema)
    return space.transform(real), space.transform(synthetic)


@pytest.mark.parametrize("group", [2, 3, 64])
@pytest.mark.parametrize("chunk", CHUNK_SIZES)
def test_nearest_two_on_the_gpu_path_is_identical(emulated, monkeypatch, chunk, group):
    monkeypatch.setattr(gpu, "GPU_GROUP", group)
    y, z = mixed_tables(np.random.default_rng(chunk + group), 70, 53)  # 53: groups that do not divide it
    for exclude_self, query, reference in ((False, y, z), (True, y, y), (False, z, y), (True, z, z)):
        extremes = not exclude_self
        cpu, cpu_ext = nearest_two(query, reference, exclude_self=exclude_self, with_extremes=extremes,
                                   chunk_elements=chunk, method="matrix", device="cpu")
        before = len(emulated)
        on_gpu, gpu_ext = nearest_two(query, reference, exclude_self=exclude_self, with_extremes=extremes,
                                      chunk_elements=chunk, method="matrix", device="gpu")
        assert len(emulated) == before + 1  # it really took the GPU code path
        assert_same(on_gpu, cpu)
        assert gpu_ext == cpu_ext
    assert nearest_two(y, y, exclude_self=True, device="gpu", method="matrix")[0].d1[0] == 0.0  # a copy, not self


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(1, 30),
    m=st.integers(1, 30),
    d=st.integers(1, 4),
    levels=st.integers(1, 4),
    chunk=st.sampled_from([1, 3, 50, 4096]),
    group=st.sampled_from([2, 3, 5]),
    seed=st.integers(0, 10_000),
)
def test_grids_with_many_ties_are_identical_on_the_gpu_path(n, m, d, levels, chunk, group, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, levels, (n, d)).astype(float) / max(levels - 1, 1)
    z = rng.integers(0, levels, (m, d)).astype(float) / max(levels - 1, 1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(gpu.EMULATE_VARIABLE, "1")
        patch.setattr(gpu, "GPU_GROUP", group)
        for exclude_self, query, reference in ((False, y, z), (True, y, y)):
            cpu, cpu_ext = nearest_two(query, reference, exclude_self=exclude_self, with_extremes=True,
                                       chunk_elements=chunk, method="matrix", device="cpu")
            on_gpu, gpu_ext = nearest_two(query, reference, exclude_self=exclude_self, with_extremes=True,
                                          chunk_elements=chunk, method="matrix", device="gpu")
            assert_same(on_gpu, cpu)
            assert gpu_ext == cpu_ext


def exact_brute_force_max(query, reference):
    rows, cols = np.divmod(np.arange(len(query) * len(reference)), len(reference))
    return float(candidates.exact_distances(query, reference, rows, cols, 2**22).max())


@pytest.mark.parametrize("seed", [0, 14, 17])
@pytest.mark.parametrize("chunk", [1, 5, 2**22])
def test_d_max_is_the_largest_exact_distance_on_either_device(emulated, chunk, seed):
    rng = np.random.default_rng(seed)
    # Near-ties at the maximum: 900 pairs whose distances differ by about the products' rounding, so the
    # approximately farthest pair alone is often not the exactly farthest one (as before the GPU backend).
    query = np.vstack([rng.random((40, 6)), np.full((30, 6), 1e3) + rng.random((30, 6)) * 1e-12])
    reference = np.vstack([rng.random((30, 6)), np.full((30, 6), -1e3) - rng.random((30, 6)) * 1e-12])
    expected = exact_brute_force_max(query, reference)
    for device in ("cpu", "gpu"):
        _, extremes = nearest_two(query, reference, with_extremes=True, chunk_elements=chunk, method="matrix",
                                  device=device)
        assert extremes.d_max == expected


def test_heavily_tied_maxima_refine_one_pair_per_chunk(emulated, monkeypatch):
    monkeypatch.setattr(candidates, "FAR_CANDIDATES", 8)
    y = np.tile(np.eye(4), (10, 1))  # one-hot rows: every pair of different rows is at the maximum
    for device in ("cpu", "gpu"):
        _, extremes = nearest_two(y, y[::-1].copy(), with_extremes=True, chunk_elements=80, method="matrix",
                                  device=device)
        assert extremes.d_max == np.sqrt(2.0) and extremes.d_min == 0.0


def test_tiny_empty_and_zero_column_tables(emulated):
    cases = [
        (np.zeros((0, 3)), np.ones((4, 3))),
        (np.ones((4, 3)), np.zeros((0, 3))),
        (np.array([[1.0, 2.0]]), np.array([[1.0, 2.0]])),
        (np.array([[0.0], [2.0]]), np.array([[1.0]])),
        (np.array([[0.0], [2.0]]), np.array([[1.0], [1.0]])),
        (np.zeros((5, 0)), np.zeros((4, 0))),
    ]
    for query, reference in cases:
        for exclude_self in (False, True):
            if exclude_self and len(query) != len(reference):
                continue
            cpu, cpu_ext = nearest_two(query, reference, exclude_self=exclude_self, with_extremes=True,
                                       method="matrix", device="cpu")
            on_gpu, gpu_ext = nearest_two(query, reference, exclude_self=exclude_self, with_extremes=True,
                                          method="matrix", device="gpu")
            assert_same(on_gpu, cpu)
            assert (gpu_ext.d_min, gpu_ext.d_max) == (cpu_ext.d_min, cpu_ext.d_max) or np.isnan(cpu_ext.d_min)
    # A one-row table has no other row: no neighbour, not itself at distance 0.
    alone, _ = nearest_two(np.array([[1.0, 2.0]]), np.array([[1.0, 2.0]]), exclude_self=True, method="matrix",
                           device="gpu")
    assert alone.index.tolist() == [[-1, -1]] and np.isinf(alone.distance).all()


@pytest.mark.parametrize("chunk", [1, 9, 2**22])
def test_nearest_k_and_radius_passes_are_identical_on_the_gpu_path(emulated, chunk):
    y, z = mixed_tables(np.random.default_rng(11), 45, 38)
    for k in (1, 3, 38, 40):
        assert_same(nearest_k(y, z, k, chunk_elements=chunk, method="matrix", device="gpu"),
                    nearest_k(y, z, k, chunk_elements=chunk, method="matrix", device="cpu"))
    d1 = nearest_two(y, z, device="cpu", method="matrix")[0].d1
    radii = np.c_[d1, d1 + 0.5, np.full(len(y), np.inf)]
    labels = np.arange(len(z)) % 3
    before = len(emulated)
    counts_gpu = count_within(y, z, radii, labels=labels, chunk_elements=chunk, device="gpu")
    assert len(emulated) == before + 1
    np.testing.assert_array_equal(counts_gpu, count_within(y, z, radii, labels=labels, chunk_elements=chunk,
                                                           device="cpu"))
    assert counts_gpu[:, 2, :].sum() == len(y) * len(z)
    for radius in (d1, d1 + 0.3, -1.0):
        a = all_within(y, z, radius, chunk_elements=chunk, device="gpu")
        b = all_within(y, z, radius, chunk_elements=chunk, device="cpu")
        for field in ("indptr", "indices", "distance"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


DISTANCE_METRICS = ["cvp", "dvp", "auth", "idscore", "nsnd", "nndr", "dcr", "mdcr", "nnaa", "hidr", "hitr"]


@pytest.mark.slow
@pytest.mark.parametrize("shorter", [False, True])
def test_the_distance_metrics_report_is_identical_on_the_gpu_path(emulated, monkeypatch, shorter):
    monkeypatch.setattr(gpu, "GPU_GROUP", 8)
    demo = load_scenario("noisy_copy", n=300)
    synthetic, pairing = demo.synthetic, "row"
    if shorter:  # NNAA's subsets then call the engine directly and find the device in the context
        synthetic, pairing = demo.synthetic.iloc[:-7].reset_index(drop=True), None
    schema = Schema(types=demo.types, key=demo.key, sensitive=demo.sensitive, pairing=pairing)
    run = dict(metrics=DISTANCE_METRICS + ["air", "mia_distance"], holdout=demo.holdout, seed=0,
               chunk_elements=5000, strict=True)
    cpu = evaluate(demo.real, synthetic, schema, device="cpu", **run)
    assert not emulated
    on_gpu = evaluate(demo.real, synthetic, schema, device="gpu", **run)
    assert len(emulated) >= 6  # the shared passes in E and E_idscore at least
    assert without_timings(json.loads(on_gpu.to_json())) == without_timings(json.loads(cpu.to_json()))
    compared = 0
    for metric_id in cpu:
        assert cpu[metric_id].applicable == on_gpu[metric_id].applicable
        if cpu[metric_id].per_record is not None:
            np.testing.assert_array_equal(on_gpu[metric_id].per_record, cpu[metric_id].per_record)
            compared += 1
    assert compared >= 9
    assert on_gpu.shared.device == "gpu"
    # A pickled evaluation (the dashboard's worker processes) does not insist on a GPU where it is opened.
    assert pickle.loads(pickle.dumps(on_gpu.shared)).device == "auto"


def test_auto_takes_the_gpu_only_for_large_passes(emulated, monkeypatch):
    monkeypatch.setattr(gpu, "GPU_MIN_PAIRS", 30 * 30)
    y, z = mixed_tables(np.random.default_rng(3), 30, 30)
    nearest_two(y, z[:29], method="matrix")
    assert emulated == []
    nearest_two(y, z, method="matrix")
    assert emulated == [y.shape]
    demo = load_scenario("noisy_copy", n=60)
    schema = Schema(types=demo.types, key=demo.key, sensitive=demo.sensitive)
    evaluate(demo.real, demo.synthetic, schema, metrics="cvp", device="cpu")
    assert len(emulated) == 1  # device="cpu" holds for the whole evaluation
    evaluate(demo.real, demo.synthetic, schema, metrics="cvp")
    assert len(emulated) > 1  # the default is auto


def test_resolve_device_rules(no_gpu, monkeypatch):
    assert not gpu.gpu_available()
    assert gpu.resolve_device("auto", 10**6, 10**6, 100) == "cpu"  # no GPU: auto is the CPU
    assert gpu.resolve_device("cpu", 10**6, 10**6, 100) == "cpu"
    assert gpu.resolve_device(None, 10**6, 10**6, 100) == "cpu"
    with pytest.raises(InputError, match="install privcore\\[gpu\\] on a machine with an NVIDIA GPU"):
        gpu.resolve_device("gpu", 10, 10, 3)
    for bad in ("tpu", "", None, 1, True):
        with pytest.raises(InputError, match="must be 'auto', 'cpu' or 'gpu'"):
            gpu.check_device(bad)
    monkeypatch.setattr(gpu, "_cuda_device_count", lambda: 1)  # as if CuPy saw one GPU
    pairs = int(gpu.GPU_MIN_PAIRS)
    assert gpu.resolve_device("auto", pairs // 1000, 1000, 10) == "gpu"
    assert gpu.resolve_device("auto", pairs // 1000 - 1, 1000, 10) == "cpu"
    assert gpu.resolve_device(None, pairs // 1000, 1000, 10) == "gpu"
    assert gpu.resolve_device("auto", pairs, pairs, 0) == "cpu"  # no columns: nothing to compute
    assert gpu.resolve_device("gpu", 2, 2, 3) == "gpu" and gpu.resolve_device(" GPU ", 2, 2, 0) == "cpu"
    with gpu.using_device("cpu"):
        assert gpu.resolve_device(None, pairs, pairs, 10) == "cpu"
        assert gpu.current_device() == "cpu"
    assert gpu.current_device() == "auto"
    with pytest.raises(InputError):
        nearest_two(np.zeros((2, 2)), np.zeros((2, 2)), device="gpus")


def test_gpu_available_never_raises_without_cupy(monkeypatch):
    monkeypatch.delenv(gpu.EMULATE_VARIABLE, raising=False)
    gpu._cuda_device_count.cache_clear()
    try:
        assert isinstance(gpu.gpu_available(), bool)
    finally:
        gpu._cuda_device_count.cache_clear()
    monkeypatch.setenv(gpu.EMULATE_VARIABLE, "1")
    assert gpu.gpu_available() and gpu.array_module("gpu") is np and gpu.array_module("cpu") is np


def test_evaluate_refuses_the_gpu_where_there_is_none(no_gpu):
    demo = load_scenario("noisy_copy", n=60)
    schema = Schema(types=demo.types, key=demo.key, sensitive=demo.sensitive)
    with pytest.raises(InputError, match=NO_GPU_MESSAGE.replace("[", "\\[").replace("]", "\\]")):
        evaluate(demo.real, demo.synthetic, schema, metrics="cvp", device="gpu")
    for bad in ("GPU0", "cuda", None):
        with pytest.raises(InputError, match="must be 'auto', 'cpu' or 'gpu'"):
            evaluate(demo.real, demo.synthetic, schema, metrics="cvp", device=bad)
    report = evaluate(demo.real, demo.synthetic, schema, metrics="cvp", device="cpu")
    assert report["cvp"].risk is not None


def test_a_cluster_and_the_gpu_are_not_combined(emulated):
    demo = load_scenario("noisy_copy", n=60)
    schema = Schema(types=demo.types, key=demo.key, sensitive=demo.sensitive)
    with pytest.raises(InputError, match="either a Dask cluster or the GPU"):
        evaluate(demo.real, demo.synthetic, schema, metrics="cvp", device="gpu", cluster="local:2")


@pytest.mark.slow
def test_the_cli_refuses_device_gpu_without_one_and_runs_on_cpu(no_gpu, tmp_path, capsys):
    missing = str(tmp_path / "missing.csv")
    # Checked before any table is read: the files do not even exist.
    assert main(["evaluate", "--real", missing, "--synthetic", missing, "--device", "gpu"]) == 2
    err = capsys.readouterr().err
    assert "--device gpu" in err and NO_GPU_MESSAGE in err and "Traceback" not in err
    assert main(["evaluate", "--real", missing, "--synthetic", missing, "--device", "fast"]) == 2
    assert "must be 'auto', 'cpu' or 'gpu'" in capsys.readouterr().err
    out = {}
    for device in ("cpu", "auto"):
        target = tmp_path / f"{device}.json"
        assert main(["evaluate", "--demo", "noisy_copy", "--metrics", "dcr,cvp", "--device", device, "--json",
                     str(target), "--quiet"]) == 0
        out[device] = without_timings(json.loads(target.read_text()))
    assert out["cpu"] == out["auto"]


def test_the_cli_subprocess_exits_2_for_device_gpu_without_one(tmp_path):
    import subprocess
    import sys

    if gpu._cuda_device_count() > 0:
        pytest.skip("this machine has a GPU")
    done = subprocess.run([sys.executable, "-m", "privcore", "evaluate", "--demo", "noisy_copy", "--device", "gpu"],
                          capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in __import__("os").environ.items() if k != gpu.EMULATE_VARIABLE})
    assert done.returncode == 2 and NO_GPU_MESSAGE in done.stderr and "Traceback" not in done.stderr


@needs_a_gpu
def test_a_real_gpu_gives_the_cpu_results(monkeypatch):
    monkeypatch.delenv(gpu.EMULATE_VARIABLE, raising=False)
    rng = np.random.default_rng(0)
    y, z = mixed_tables(rng, 3000, 2500)
    for exclude_self, query, reference in ((False, y, z), (True, y, y)):
        cpu, cpu_ext = nearest_two(query, reference, exclude_self=exclude_self, with_extremes=True,
                                   method="matrix", device="cpu")
        on_gpu, gpu_ext = nearest_two(query, reference, exclude_self=exclude_self, with_extremes=True,
                                      method="matrix", device="gpu")
        assert_same(on_gpu, cpu)
        assert gpu_ext == cpu_ext


@needs_a_gpu
@pytest.mark.parametrize("chunk", [4099, 2**26])
def test_a_real_gpu_gives_the_cpu_k_nearest_and_radius_counts(monkeypatch, chunk):
    monkeypatch.delenv(gpu.EMULATE_VARIABLE, raising=False)
    y, z = mixed_tables(np.random.default_rng(5), 2000, 1700)
    for k in (1, 5):
        assert_same(nearest_k(y, z, k, chunk_elements=chunk, method="matrix", device="gpu"),
                    nearest_k(y, z, k, chunk_elements=chunk, method="matrix", device="cpu"))
    d1 = nearest_two(y, z, device="cpu", method="matrix")[0].d1
    radii = np.c_[d1, d1 + 0.5, np.full(len(y), np.inf)]
    labels = np.arange(len(z)) % 3
    np.testing.assert_array_equal(count_within(y, z, radii, labels=labels, chunk_elements=chunk, device="gpu"),
                                  count_within(y, z, radii, labels=labels, chunk_elements=chunk, device="cpu"))
    a = all_within(y, z, d1 + 0.3, chunk_elements=chunk, device="gpu")
    b = all_within(y, z, d1 + 0.3, chunk_elements=chunk, device="cpu")
    for field in ("indptr", "indices", "distance"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


@needs_a_gpu
def test_a_real_gpu_gives_the_cpu_report_of_the_distance_metrics(monkeypatch):
    monkeypatch.delenv(gpu.EMULATE_VARIABLE, raising=False)
    demo = load_scenario("noisy_copy", n=1500)
    schema = Schema(types=demo.types, key=demo.key, sensitive=demo.sensitive, pairing="row")
    run = dict(metrics=DISTANCE_METRICS + ["air", "mia_distance"], holdout=demo.holdout, seed=0, strict=True)
    cpu = evaluate(demo.real, demo.synthetic, schema, device="cpu", **run)
    on_gpu = evaluate(demo.real, demo.synthetic, schema, device="gpu", **run)
    assert on_gpu.shared.device == "gpu"
    assert without_timings(json.loads(on_gpu.to_json())) == without_timings(json.loads(cpu.to_json()))
    for metric_id in cpu:
        if cpu[metric_id].per_record is not None:
            np.testing.assert_array_equal(on_gpu[metric_id].per_record, cpu[metric_id].per_record)
