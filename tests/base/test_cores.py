"""privcore.base.cores: the default number of workers follows affinity, cgroup quota and thread variables."""

from __future__ import annotations

import pytest

from privcore.base import cores


@pytest.fixture
def machine(monkeypatch):
    """A pretend machine: 8 cores in the affinity mask, no quota, no thread variables."""
    monkeypatch.setattr(cores.os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    monkeypatch.setattr(cores, "cgroup_quota_cores", lambda: None)
    for name in cores.THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_every_core_of_the_affinity_mask_by_default(machine):
    assert cores.usable_cores() == 8  # not capped at 4 any more


def test_a_cgroup_quota_lowers_it(machine):
    machine.setattr(cores, "cgroup_quota_cores", lambda: 3)
    assert cores.usable_cores() == 3


def test_a_thread_variable_lowers_it_but_never_raises_it(machine):
    machine.setenv("OMP_NUM_THREADS", "2")
    assert cores.usable_cores() == 2
    machine.setenv("OMP_NUM_THREADS", "64")
    assert cores.usable_cores() == 8


def test_the_smallest_bound_wins_and_the_answer_is_at_least_one(machine):
    machine.setattr(cores.os, "sched_getaffinity", lambda pid: set(), raising=False)
    assert cores.usable_cores() == 1


@pytest.mark.parametrize("content, expected", [("200000 100000", 2), ("50000 100000", 1), ("250000 100000", 3),
                                               ("max 100000", None), ("garbage", None)])
def test_cgroup_v2_quota(tmp_path, content, expected):
    quota = tmp_path / "cpu.max"
    quota.write_text(content + "\n")
    assert cores.cgroup_quota_cores(quota, tmp_path / "no-v1") == expected


def test_cgroup_v1_quota(tmp_path):
    (tmp_path / "cpu.cfs_quota_us").write_text("300000\n")
    (tmp_path / "cpu.cfs_period_us").write_text("100000\n")
    assert cores.cgroup_quota_cores(tmp_path / "no-v2", tmp_path) == 3
    (tmp_path / "cpu.cfs_quota_us").write_text("-1\n")
    assert cores.cgroup_quota_cores(tmp_path / "no-v2", tmp_path) is None


@pytest.mark.parametrize("bad", [0, -2, 1.5, True])
def test_resolve_workers_refuses_anything_but_a_whole_number_of_at_least_one(bad):
    with pytest.raises(ValueError):
        cores.resolve_workers(bad)


def test_resolve_workers_defaults_to_the_usable_cores(machine):
    assert cores.resolve_workers(None) == 8 and cores.resolve_workers(5) == 5


def test_the_dashboard_pool_asks_the_same_helper(machine):
    from dashboard import compute

    assert compute.usable_cores() == 8
