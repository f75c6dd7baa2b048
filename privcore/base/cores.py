"""How many cores privcore may use: the one answer every parallel part of the package asks for."""

from __future__ import annotations

import math
import os
from pathlib import Path

#: Thread-count variables honoured as an upper bound when set (OpenMP, OpenBLAS, MKL, BLIS, numexpr).
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                    "NUMEXPR_NUM_THREADS")
#: cgroup v2 quota file (v1: cpu.cfs_quota_us / cpu.cfs_period_us next to it in /sys/fs/cgroup/cpu).
CGROUP_V2_QUOTA = Path("/sys/fs/cgroup/cpu.max")
CGROUP_V1_DIR = Path("/sys/fs/cgroup/cpu")


def affinity_cores() -> int:
    """Cores this process may be scheduled on (all of the machine's where affinity is unknown), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def cgroup_quota_cores(v2_file: Path = CGROUP_V2_QUOTA, v1_dir: Path = CGROUP_V1_DIR) -> int | None:
    r"""Cores allowed by a cgroup CPU quota, rounded up (a quota of 1.5 cores keeps two busy), or None.

    Parameters
    ----------
    v2_file : Path
        cgroup v2 ``cpu.max`` ("QUOTA PERIOD" or "max PERIOD").
    v1_dir : Path
        cgroup v1 directory with ``cpu.cfs_quota_us`` and ``cpu.cfs_period_us`` (quota −1 = none).

    Returns
    -------
    int or None
        None where no quota is set or the files cannot be read.

    Examples
    --------
    >>> import tempfile
    >>> quota = Path(tempfile.mkdtemp()) / "cpu.max"
    >>> _ = quota.write_text("150000 100000\n")
    >>> cgroup_quota_cores(quota, Path("/nonexistent"))
    2
    >>> _ = quota.write_text("max 100000\n")
    >>> cgroup_quota_cores(quota, Path("/nonexistent")) is None
    True
    """
    try:
        quota, period = v2_file.read_text().split()[:2]
        if quota == "max":
            return None
        return _quota_to_cores(float(quota), float(period))
    except (OSError, ValueError):
        pass
    try:
        quota = float((v1_dir / "cpu.cfs_quota_us").read_text())
        period = float((v1_dir / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return _quota_to_cores(quota, period) if quota > 0 else None


def _quota_to_cores(quota: float, period: float) -> int | None:
    if quota <= 0 or period <= 0:
        return None
    return max(1, math.ceil(quota / period))


def thread_variable_limit(environ=None) -> int | None:
    """The smallest positive whole number among the set thread variables, or None.

    A value that is not a positive whole number (empty, ``"auto"``, ``"4,2"`` nested OpenMP lists beyond
    their first level) is ignored, as the libraries themselves fall back to their defaults for it.

    Examples
    --------
    >>> thread_variable_limit({"OMP_NUM_THREADS": "3", "MKL_NUM_THREADS": "2"})
    2
    >>> thread_variable_limit({"OMP_NUM_THREADS": "4,2"}), thread_variable_limit({"OMP_NUM_THREADS": "x"})
    (4, None)
    """
    environ = os.environ if environ is None else environ
    limits = []
    for name in THREAD_VARIABLES:
        text = environ.get(name, "").strip().split(",")[0].strip()
        if text.isdigit() and int(text) > 0:
            limits.append(int(text))
    return min(limits) if limits else None


def usable_cores() -> int:
    """Cores privcore's thread pools and worker processes use by default, at least 1.

    The smallest of the CPU affinity, the cgroup CPU quota and any thread variable that is set
    (:data:`THREAD_VARIABLES`). ``workers=`` / ``--workers`` override it.

    Notes
    -----
    A process may be allowed fewer cores than the machine has: its CPU affinity (``taskset``, a container's
    cpuset), a cgroup CPU quota (Docker's ``--cpus``, Kubernetes limits: ``/sys/fs/cgroup/cpu.max``), and the
    thread variables people set to keep a job small (``OMP_NUM_THREADS`` and its siblings). Running more
    threads than that only adds switching, so :func:`usable_cores` takes the smallest of them.
    """
    bounds = [affinity_cores(), cgroup_quota_cores(), thread_variable_limit()]
    return max(1, min(b for b in bounds if b is not None))


def resolve_workers(workers: int | None) -> int:
    """``workers`` when given (a whole number ≥ 1), else :func:`usable_cores`.

    Raises
    ------
    ValueError
        For ``workers`` < 1 or not a whole number.

    Examples
    --------
    >>> resolve_workers(3)
    3
    """
    if workers is None:
        return usable_cores()
    if isinstance(workers, bool) or int(workers) != workers or workers < 1:
        raise ValueError(f"workers must be a whole number of at least 1, not {workers!r}")
    return int(workers)
