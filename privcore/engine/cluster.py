"""Dask cluster backend: the neighbour passes of an evaluation run on a ``dask.distributed`` cluster.

It serves tables one machine cannot finish in time. Optional: ``pip install 'privcore[dask]'``. The tables travel to the
cluster: use one you control.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from privcore.base import InputError

_LOCAL = re.compile(r"local:(\d+)")

#: glibc settings for worker processes. Dask's nanny sets ``MALLOC_TRIM_THRESHOLD_=65536`` so that workers
#: give memory back to the system; setting it also turns off glibc's adaptive threshold, so every block over
#: 128 KiB is then a fresh ``mmap`` whose pages fault in on first use. A neighbour pass allocates such blocks
#: per chunk: its tasks ran 1.5x slower in a worker than on the caller (40,000 Adult rows, one worker).
#: With these, blocks up to 256 MiB come from the heap and are reused, and the tasks run as fast as on the
#: caller; memory a pass freed is kept for the next one instead of being returned at once.
WORKER_MALLOC = {"MALLOC_TRIM_THRESHOLD_": 2**30, "MALLOC_MMAP_THRESHOLD_": 2**28}


class ClusterError(InputError):
    """The cluster cannot be used: Dask is not installed, the address is malformed or unreachable."""


def _distributed():
    try:
        import distributed  # lazy: optional extra privcore[dask]
    except ImportError as exc:
        raise ClusterError("Running on a Dask cluster needs the optional Dask packages: pip install "
                           "'privcore[dask]'.") from exc
    return distributed


def check_address(address: str) -> str:
    """``address`` if it names a cluster (``tcp://host:port``, ``tls://…`` or ``local:N`` with N ≥ 1).

    >>> check_address("local:2"), check_address("tcp://10.0.0.5:8786")
    ('local:2', 'tcp://10.0.0.5:8786')
    """
    text = str(address).strip()
    local = _LOCAL.fullmatch(text)
    if local and int(local[1]) >= 1:
        return text
    if re.fullmatch(r"(tcp|tls|ucx|inproc)://\S+", text):
        return text
    raise ClusterError(f"--dask must be a scheduler address such as tcp://host:8786, or local:N for N worker "
                       f"processes on this machine (N at least 1); got {address!r}.")


@contextlib.contextmanager
def connected(cluster: Any) -> Iterator[Any]:
    """A ``distributed.Client`` for ``cluster`` (an address, ``local:N`` or a Client, which is kept open).

    Notes
    -----
    Optional: ``pip install 'privcore[dask]'``. Three ways to name a cluster, in :func:`privcore.evaluate`
    (``cluster=``) and on the command line (``--dask``):

    - ``"tcp://host:8786"``: the scheduler of a running cluster (see ``docker-compose.dask.yml``);
    - ``"local:N"``: a cluster of N worker processes on this machine, started and stopped for the call;
    - a ``distributed.Client`` you made yourself (kept open).
    """
    if cluster is None:
        yield None
        return
    distributed = _distributed()
    if isinstance(cluster, distributed.Client):
        yield cluster
        return
    address = check_address(cluster)
    local = _LOCAL.fullmatch(address)
    try:
        if local:
            import dask  # lazy: optional extra privcore[dask]

            environ = {f"distributed.nanny.pre-spawn-environ.{name}": value for name, value in WORKER_MALLOC.items()}
            with dask.config.set(environ), distributed.LocalCluster(
                n_workers=int(local[1]), threads_per_worker=1, processes=True, dashboard_address=None,
            ) as made, distributed.Client(made) as client:
                yield client
            return
        client = distributed.Client(address, timeout="20s")
    except OSError as exc:  # unreachable scheduler, timeout
        raise ClusterError(f"The Dask scheduler at {address} cannot be reached: {exc}") from exc
    try:
        yield client
    finally:
        client.close()


def run_chunks_on_cluster(client: Any, task: Callable, shared: Sequence[Any], chunks: Sequence[tuple],
                          progress: Callable[[float, str], None] | None, total: int,
                          size_of: Callable[[Any], int], message: str) -> list[Any]:
    """``task(*shared, *chunk)`` for every chunk on the cluster, in chunk order.

    The ``shared`` arrays are sent to every worker once; progress counts finished chunks (``size_of`` of
    a result) as they arrive.

    Notes
    -----
    What runs where: the query and the reference table are sent to every worker once (``scatter`` with
    ``broadcast``); each task is a few chunks of query rows of the exact matrix path
    (:func:`privcore.engine.neighbors.nearest_two`, and the one-block passes of :mod:`privcore.engine.neighbors_both_ways`),
    and the tasks' results are merged on the caller exactly as on one machine, so the report is identical. Passes
    in few columns (the FAMD projection), which a k-d tree answers in far less time than it takes to send them,
    run on the caller. The tables travel to the cluster: use one you control.
    """
    distributed = _distributed()
    # hash=False: a unique key per call, so that releasing this pass's data never touches another pass that
    # sent equal arrays (scatter would otherwise give both the same key).
    scattered = client.scatter(list(shared), broadcast=True, hash=False)
    futures = [client.submit(task, *scattered, *chunk, pure=False) for chunk in chunks]
    done = 0
    try:
        for future in distributed.as_completed(futures):
            done += size_of(future.result())
            if progress is not None:
                progress(done / max(total, 1), message)
        return [future.result() for future in futures]
    except BaseException:
        client.cancel(futures)  # stop what has not run yet; the data is released with the references
        raise


def map_on_cluster(client: Any, task: Callable, shared: Sequence[Any], items: Sequence[tuple]) -> list[Any]:
    """``task(*shared, *item)`` for every item as tasks on the cluster, results in item order.

    The items are independent fits: a classifier's folds or repeats, an attack's models; ``shared`` is sent to every
    worker once.
    """
    return run_chunks_on_cluster(client, task, shared, items, None, len(items), lambda result: 1, "")
