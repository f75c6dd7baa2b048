"""Chunks of a matrix pass: how many distances a chunk holds and how chunks run on threads or on a Dask cluster.

Chunks run on this machine's threads or are grouped into tasks for a Dask cluster. Shared by every chunked pass
(:mod:`privcore.engine.neighbors`, :mod:`privcore.engine.neighbors_both_ways`, :mod:`privcore.engine.within_radius`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from privcore.base import one_blas_thread

#: Distances held at once per worker: 2**22 float64 = 32 MiB.
DEFAULT_CHUNK_ELEMENTS = 2**22
#: Tasks per Dask worker in one pass (:func:`cluster_tasks`): enough to balance the load, few enough that
#: scheduling does not cost more than the work.
CLUSTER_TASKS_PER_WORKER = 3



def cluster_tasks(starts: list[int], n_workers: int) -> list[tuple[int, ...]]:
    """The chunks of a pass grouped into about :data:`CLUSTER_TASKS_PER_WORKER` tasks per worker.

    A Dask task costs milliseconds of scheduling, as much as a small chunk's work, so each task runs several chunks (one
    at a time, so a worker's memory stays that of one chunk).

    Parameters
    ----------
    starts : list of int
        First query row of every chunk.
    n_workers : int
        Workers of the cluster.

    Returns
    -------
    list of tuple of int
        The chunks' starts, consecutive ones together.

    Examples
    --------
    >>> cluster_tasks([0, 10, 20, 30, 40], 1)
    [(0, 10), (20, 30), (40,)]
    """
    wanted = max(1, CLUSTER_TASKS_PER_WORKER * max(n_workers, 1))
    per_task = -(-len(starts) // wanted)
    return [tuple(starts[i : i + per_task]) for i in range(0, len(starts), per_task)]


def run_chunks(run, starts, workers, progress, total, size_of, message):
    """Run ``run(start)`` for every chunk on worker threads; report progress from the calling thread only.

    Callers such as Streamlit may only update their page from their own thread.

    Parameters
    ----------
    run : callable
        ``run(start)`` computes one chunk and returns its result.
    starts : list of int
        First row of every chunk.
    workers : int
        Threads.
    progress : ProgressCallback or None
        Told the share done after every chunk.
    total : int
        The pass's whole work, in the units of ``size_of``.
    size_of : callable
        Work done by a chunk, from its result.
    message : str
        Passed to ``progress``.

    Returns
    -------
    list
        The chunks' results, in the order of ``starts``.
    """
    results, done = [], 0
    # BLAS is limited to one thread per worker so the cores are not oversubscribed.
    with one_blas_thread():
        if workers > 1 and len(starts) > 1:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                for result in pool.map(run, starts):
                    results.append(result)
                    done += size_of(result)
                    if progress is not None:
                        progress(done / total, message)
        else:
            for start in starts:
                results.append(run(start))
                done += size_of(results[-1])
                if progress is not None:
                    progress(done / total, message)
    return results
