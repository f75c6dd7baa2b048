"""The Dask cluster backend (issue 12): a 2-worker LocalCluster of processes gives exactly the single-machine
neighbours and the same JSON report; addresses are checked; without Dask the message says what to install."""

from __future__ import annotations

import json

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from privcore import Schema, evaluate  # noqa: E402
from privcore.demo import load_scenario  # noqa: E402
from privcore.engine.cluster import ClusterError, check_address  # noqa: E402
from privcore.engine.neighbors import nearest_two  # noqa: E402

pytestmark = pytest.mark.timeout(300)


@pytest.mark.slow
def test_neighbour_passes_on_the_cluster_are_identical(dask_client):
    rng = np.random.default_rng(0)
    query, reference = rng.random((1500, 9)), rng.random((1200, 9))
    query[5] = reference[7]  # an exact tie at distance 0
    query[6] = query[8]  # duplicates within the query table
    small_chunks = 100_000  # about 80 query rows per task: many tasks on two workers
    for exclude_self, a, b in ((False, query, reference), (True, query, query)):
        on_cluster, ext_cluster = nearest_two(a, b, exclude_self=exclude_self, with_extremes=not exclude_self,
                                              chunk_elements=small_chunks, cluster=dask_client)
        here, ext_here = nearest_two(a, b, exclude_self=exclude_self, with_extremes=not exclude_self)
        np.testing.assert_array_equal(on_cluster.distance, here.distance)
        np.testing.assert_array_equal(on_cluster.index, here.index)
        assert ext_cluster == ext_here


def test_one_block_sweeps_on_the_cluster_are_identical(dask_client):
    """Within one table and both ways at once: each task keeps its own running top two of the columns and the
    caller merges them; the result is the single machine's, pair for pair."""
    from privcore.engine.neighbors_both_ways import nearest_two_both_ways, nearest_two_within

    rng = np.random.default_rng(1)
    query, reference = rng.integers(0, 3, (900, 10)) / 2.0, rng.integers(0, 3, (700, 10)) / 2.0  # many ties
    here = nearest_two_within(query, chunk_elements=40_000)
    there = nearest_two_within(query, chunk_elements=40_000, cluster=dask_client)
    np.testing.assert_array_equal(there.distance, here.distance)
    np.testing.assert_array_equal(there.index, here.index)
    expected = nearest_two_both_ways(query, reference, with_extremes=True, chunk_elements=30_000)
    got = nearest_two_both_ways(query, reference, with_extremes=True, chunk_elements=30_000, cluster=dask_client)
    for a, b in zip(got[:2], expected[:2]):
        np.testing.assert_array_equal(a.distance, b.distance)
        np.testing.assert_array_equal(a.index, b.index)
    assert got[2] == expected[2]


def test_local_workers_keep_glibcs_heap_for_large_blocks(dask_client):
    """Dask's default MALLOC_TRIM_THRESHOLD_ alone makes every large block a fresh mmap (tasks 1.5x slower);
    a local cluster's workers get privcore.engine.cluster.WORKER_MALLOC instead."""
    import os

    from privcore.engine.cluster import WORKER_MALLOC

    seen = dask_client.run(lambda: {name: os.environ.get(name) for name in WORKER_MALLOC})
    assert len(seen) == 2
    for environ in seen.values():
        assert environ == {name: str(value) for name, value in WORKER_MALLOC.items()}


def test_passes_in_few_columns_run_on_the_caller(dask_client, monkeypatch):
    """A k-d tree answers Φ's passes in less time than sending the tables would take."""
    import privcore.engine.cluster as cluster_module

    monkeypatch.setattr(cluster_module, "run_chunks_on_cluster", lambda *a, **k: pytest.fail("sent to the cluster"))
    rng = np.random.default_rng(2)
    query, reference = rng.random((800, 3)), rng.random((700, 3))
    there, ext_there = nearest_two(query, reference, with_extremes=True, cluster=dask_client)
    here, ext_here = nearest_two(query, reference, with_extremes=True)
    np.testing.assert_array_equal(there.index, here.index)
    assert ext_there == ext_here


@pytest.mark.slow
def test_the_json_report_is_the_same_as_on_one_machine(dask_client, monkeypatch):
    import privcore.engine.neighbors_both_ways as both_ways

    monkeypatch.setattr(both_ways, "MIN_WORK", 0)  # the one-block passes too, small as the tables are
    demo = load_scenario("noisy_copy", n=400)
    schema = Schema(types=demo.types, key=demo.key, sensitive=demo.sensitive)
    metrics = ["dcr", "nndr", "cvp", "dvp", "nsnd", "mdcr", "idscore", "auth", "nnaa", "dcr_test", "mia_distance"]
    alone = evaluate(demo.real, demo.synthetic, schema, metrics=metrics, holdout=demo.holdout)
    spread = evaluate(demo.real, demo.synthetic, schema, metrics=metrics, holdout=demo.holdout, cluster=dask_client)

    def without_times(report):
        document = json.loads(report.to_json())
        for result in document["metrics"].values():
            result.pop("seconds", None)
        return document

    assert without_times(spread) == without_times(alone)
    assert spread.shared.cluster is None  # not kept with the report: it may be closed after the call


@pytest.mark.slow
def test_the_classifiers_fits_run_as_tasks_and_give_the_same_results(dask_client, monkeypatch):
    """D-MLP's five folds, MIR's five repeats and the learned attack's fold models are tasks on the cluster's
    workers; each fit depends only on its seed and split, so the results are those of the single machine."""
    import privcore.engine.cluster as cluster_module

    demo = load_scenario("noisy_copy", n=300)
    schema = Schema(types=demo.types, sensitive=demo.sensitive)
    alone = evaluate(demo.real, demo.synthetic, schema, metrics=["dmlp", "mir"], seed=3)
    sent = []
    original = cluster_module.run_chunks_on_cluster

    def counting(client_, task, shared, chunks, *args):
        sent.append((task.__name__, len(chunks)))
        return original(client_, task, shared, chunks, *args)

    monkeypatch.setattr(cluster_module, "run_chunks_on_cluster", counting)
    spread = evaluate(demo.real, demo.synthetic, schema, metrics=["dmlp", "mir"], seed=3, cluster=dask_client)
    assert ("_fit_fold_task", 5) in sent and ("_fit_repeat", 5) in sent
    # The learned membership attack's twelve fits (five fold models per half, one model per half) likewise.
    learned = evaluate(demo.real, demo.synthetic, schema, metrics=["mia_learned"], holdout=demo.holdout, seed=3)
    learned_spread = evaluate(demo.real, demo.synthetic, schema, metrics=["mia_learned"], holdout=demo.holdout,
                              seed=3, cluster=dask_client)
    assert ("fit_and_score", 12) in sent  # five folds per half, then one model per half for mia_best's count
    assert learned_spread["mia_learned"].risk == learned["mia_learned"].risk
    np.testing.assert_array_equal(learned_spread["mia_learned"].per_record, learned["mia_learned"].per_record)
    for metric in ("dmlp", "mir"):
        assert spread[metric].risk == alone[metric].risk
        np.testing.assert_array_equal(spread[metric].per_record, alone[metric].per_record)


@pytest.mark.parametrize("address", ["local:0", "local:x", "localhost", "", "http://host:8786"])
def test_a_malformed_address_is_named(address):
    with pytest.raises(ClusterError, match="--dask must be"):
        check_address(address)


@pytest.mark.slow
def test_the_cli_runs_on_a_local_cluster_and_writes_the_same_report(tmp_path):
    import subprocess
    import sys

    outputs = {}
    for name, extra in (("alone", []), ("cluster", ["--dask", "local:2"])):
        out = tmp_path / f"{name}.json"
        done = subprocess.run([sys.executable, "-m", "privcore", "evaluate", "--demo", "noisy_copy", "--metrics",
                               "dcr,cvp,mia_distance", "--json", str(out), "--quiet", *extra],
                              capture_output=True, text=True, timeout=240)
        assert done.returncode == 0, done.stderr[-2000:]
        document = json.loads(out.read_text())
        for result in document["metrics"].values():
            result.pop("seconds", None)
        outputs[name] = document
    assert outputs["cluster"] == outputs["alone"]


@pytest.mark.slow
def test_the_cli_refuses_a_malformed_address_before_reading_tables(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "privcore", "evaluate", "--real", str(tmp_path / "missing.csv"),
                           "--synthetic", str(tmp_path / "missing.csv"), "--dask", "local:0"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--dask must be" in done.stderr and "Traceback" not in done.stderr
