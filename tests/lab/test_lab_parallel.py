"""The lab's evaluations as tasks (issue 12): on several processes or a 2-worker Dask LocalCluster the lab's
result is the one of the sequential run; bad settings are refused with a named message."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from privcore import lab
from privcore.demo import load_scenario
from privcore.lab import LabError
from privcore.lab import runs as lab_runs

pytestmark = pytest.mark.timeout(300)

SMALL = dict(leaks=["partial_copy", "noisy_copy"], levels=[0, 1], seeds=2, metrics=["dcr", "crp", "mia_distance"])


@pytest.fixture(scope="module")
def big_demo():
    """The demo's noisy copy at 1,200 people (not the shared 300-people ``demo``: the ladder below splits its
    holdout at row 600)."""
    return load_scenario("noisy_copy", n=1200)


def comparable(result):
    return without_seconds(json.loads(json.dumps(result.to_dict(), default=str)))


def without_seconds(document):
    """The lab's JSON without its run time (the only thing that may differ)."""
    document.pop("seconds", None)
    document.get("settings", {}).pop("seconds", None)
    return document


@pytest.fixture(scope="module")
def sequential(big_demo):
    return lab.run(big_demo.real, holdout=big_demo.holdout, workers=1, **SMALL)


@pytest.mark.slow
def test_two_processes_give_the_sequential_result(big_demo, sequential):
    seen = []
    parallel = lab.run(big_demo.real, holdout=big_demo.holdout, workers=2,
                       progress=lambda done, total, message: seen.append((done, total)), **SMALL)
    assert comparable(parallel) == comparable(sequential)
    assert parallel.runs == sequential.runs
    assert parallel.settings["evaluations"] == sequential.settings["evaluations"] == 8
    assert parallel.settings["repeated_tables"] == sequential.settings["repeated_tables"] == 2
    done = [d for d, _ in seen]
    assert done == sorted(done) and seen[-1] == (10, 10)  # truthful: tables done of all, never backwards


@pytest.mark.slow
def test_a_supplied_ladder_on_two_processes_is_the_same(big_demo):
    tables = {0.0: [big_demo.holdout.iloc[:600], big_demo.holdout.iloc[600:]],
              1.0: [big_demo.real.iloc[:600], big_demo.synthetic]}
    one = lab.run_ladder(big_demo.real, tables, holdout=big_demo.holdout, metrics=["dcr", "crp"], workers=1)
    two = lab.run_ladder(big_demo.real, tables, holdout=big_demo.holdout, metrics=["dcr", "crp"], workers=2)
    assert comparable(one) == comparable(two)


@pytest.mark.slow
def test_a_local_dask_cluster_gives_the_sequential_result(big_demo, sequential):
    pytest.importorskip("distributed")
    on_cluster = lab.run(big_demo.real, holdout=big_demo.holdout, cluster="local:2", **SMALL)
    assert comparable(on_cluster) == comparable(sequential)


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_a_bad_number_of_workers_is_refused(big_demo, workers):
    with pytest.raises(LabError, match=r"Workers \(lab\.workers\) must be (a whole number|at least 1)"):
        lab.run(big_demo.real, holdout=big_demo.holdout, workers=workers, **SMALL)
    with pytest.raises(LabError, match=r"Workers \(lab\.workers\) must be (a whole number|at least 1)"):
        lab.run_ladder(big_demo.real, {0.0: big_demo.holdout, 1.0: big_demo.synthetic}, workers=workers)


def test_default_workers_one_per_four_tables_and_none_inside_a_daemon(monkeypatch):
    monkeypatch.setattr(lab_runs, "usable_cores", lambda: 8)
    monkeypatch.setattr(lab_runs, "in_daemon_process", lambda: False)
    assert lab_runs.lab_workers(None, 3) == 1
    assert lab_runs.lab_workers(None, 12) == 3
    assert lab_runs.lab_workers(None, 93) == 8
    assert lab_runs.lab_workers(5, 2) == 5  # an explicit number is taken as given
    monkeypatch.setattr(lab_runs, "in_daemon_process", lambda: True)
    assert lab_runs.lab_workers(None, 93) == 1


@pytest.mark.slow
@pytest.mark.parametrize("option, value, message", [("--workers", "0", "--workers 0"),
                                                    ("--dask", "local:0", "--dask must be")])
def test_the_cli_refuses_bad_parallel_settings_before_reading_tables(tmp_path, option, value, message):
    done = subprocess.run([sys.executable, "-m", "privcore", "lab", "--real", str(tmp_path / "missing.csv"), option,
                           value], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_the_cli_lab_on_two_workers_writes_the_same_report(tmp_path):
    outputs = {}
    for workers in ("1", "2"):
        out = tmp_path / f"lab{workers}.json"
        done = subprocess.run([sys.executable, "-m", "privcore", "lab", "--demo", "noisy_copy", "--rows", "1200",
                               "--leaks", "partial_copy", "--levels", "0,1", "--seeds", "2", "--metrics", "dcr,crp",
                               "--workers", workers, "--json", str(out), "--quiet"],
                              capture_output=True, text=True, timeout=240)
        assert done.returncode == 0, done.stderr[-2000:]
        outputs[workers] = without_seconds(json.loads(out.read_text()))
    assert outputs["1"] == outputs["2"]
