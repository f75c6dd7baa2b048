"""The one exact nearest-neighbour engine every distance metric reads from.

The machinery (operands, candidates, chunks, k-d tree, radius, results, key groups) lives in modules below it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from privcore.base import ProgressCallback, one_blas_thread
from privcore.engine import cluster as dask_cluster
from privcore.engine import gpu, key_groups, tiles
from privcore.engine.candidates import (
    FAR_CANDIDATES,
    exact_distances,
    far_candidates,
    k_candidates,
    row_candidates,
    select_k,
    select_two,
)
from privcore.engine.chunks import (
    CLUSTER_TASKS_PER_WORKER,
    DEFAULT_CHUNK_ELEMENTS,
    cluster_tasks,
    run_chunks,
)
from privcore.engine.kdtree import TREE_MAX_DIM, TREE_MIN_ROWS, tree_top_k, tree_top_two, uses_tree
from privcore.engine.neighbors_both_ways import nearest_two_within, sweep_pays
from privcore.engine.operands import (
    CPU_GROUP,
    FLOAT32_NORM_RATIO,
    PROBE_ROWS,
    REFINE_SHARE,
    candidate_budget,
    matrix_setup,
    too_many_candidates,
)
from privcore.engine.results import Neighbours, PairExtremes
from privcore.engine.within_radius import WithinPairs, all_within, count_within

# The names below are re-exported: callers import them from this module.
__all__ = [
    "CLUSTER_TASKS_PER_WORKER",
    "CPU_GROUP",
    "DEFAULT_CHUNK_ELEMENTS",
    "FAR_CANDIDATES",
    "FLOAT32_NORM_RATIO",
    "PROBE_ROWS",
    "REFINE_SHARE",
    "TREE_MAX_DIM",
    "TREE_MIN_ROWS",
    "Neighbours",
    "PairExtremes",
    "WithinPairs",
    "all_within",
    "candidate_budget",
    "count_within",
    "nearest_k",
    "nearest_two",
    "row_candidates",
    "uses_tree",
]


def nearest_two(
    query: np.ndarray,
    reference: np.ndarray,
    *,
    exclude_self: bool = False,
    with_extremes: bool = False,
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    label: str = "",
    method: str = "auto",
    cluster: Any = None,
    device: str | None = None,
) -> tuple[Neighbours, PairExtremes | None]:
    """Exact nearest and second-nearest reference rows for every query row.

    Parameters
    ----------
    query : numpy.ndarray
        Shape (n, d) float64.
    reference : numpy.ndarray
        Shape (m, d) float64.
    exclude_self : bool
        ``query`` and ``reference`` are the same table: row *i* is not its own neighbour (by position;
        an identical duplicate at another position is a neighbour at distance 0).
    with_extremes : bool
        Also return the minimum and maximum distance over all pairs.
    chunk_elements : int
        Upper bound on distances held at once per worker.
    workers : int, optional
        Threads working on chunks (default: :func:`privcore.base.cores.usable_cores`).
    progress : callable, optional
        ``progress(fraction_done, message)``.
    label : str
        Shown in progress messages.
    method : {"auto", "matrix", "tree"}
        ``"matrix"``: chunked matrix products (any dimension). ``"tree"``: a k-d tree proposes the
        candidates (fast in few dimensions, such as the FAMD projection). ``"auto"`` picks the tree for at
        most ``TREE_MAX_DIM`` columns. Both refine candidates exactly and return identical results.
    cluster : distributed.Client, optional
        Run the matrix path on a Dask cluster (:mod:`privcore.engine.cluster`): the query and reference are sent to
        every worker once, and each task is a few chunks of query rows; the chunks' results are merged as on
        one machine, so the result is identical. The tree path runs here (it takes less time than sending the
        tables would).
    device : {"auto", "cpu", "gpu"}, optional
        Where the matrix path runs (:func:`privcore.engine.gpu.resolve_device`; default: the device of the
        enclosing :func:`privcore.evaluate`, ``"auto"`` outside one). The result is the same on either;
        the tree path and a cluster always use CPUs.

    Returns
    -------
    Neighbours, PairExtremes or None
        ``d_max`` is the largest exact distance over all pairs: the pairs whose approximate distance lies
        within rounding of the largest one are refined exactly (see :data:`FAR_CANDIDATES`).

    Notes
    -----
    :func:`nearest_two` finds, for every query row, its nearest and second-nearest reference rows by exact
    Euclidean distance, optionally excluding the query row itself *by position* (metrics.md §0), and can
    return the minimum and maximum distance over all query × reference pairs from the same pass. It never
    holds more than one ``chunk`` × |reference| block of distances: peak memory is set by ``chunk_elements``,
    not by n·m.

    How it stays exact and fast: a chunk's squared distances come from one matrix product
    (``|q|² + |r|² − 2 q·r``), which is fast but can be off by rounding. The rounding error is bounded, so
    every reference row that could truly be among the two nearest is within that bound of the approximate
    second-nearest value; only those candidates are recomputed exactly as ``sqrt(Σ (q − r)²)``. Identical
    rows therefore get distance exactly 0, and equal distances compare equal. Among rows at exactly the same
    distance, the lowest reference index wins.

    Where the matrix path runs (``device``, :mod:`privcore.engine.gpu`): its chunk kernels are written against an
    array module ``xp``, numpy on the CPU and CuPy on a GPU. On the GPU the block products, the per-row
    reductions and the candidate masks run in float64 on the device; the candidates come back to the host and
    are refined by the same exact host code, so both devices return the same numbers. The k-d tree path runs on
    the CPU.

    This module chooses the path of each pass and runs the plain row-by-row matrix path; the machinery lives in
    modules below it, which the one-block sweeps (:mod:`privcore.engine.neighbors_both_ways`) share:
    :mod:`~privcore.engine.operands` (score operands, float32 or float64, and the pass's setup),
    :mod:`~privcore.engine.candidates` (candidate selection and exact refinement), :mod:`~privcore.engine.chunks`
    (running chunks on threads or cluster tasks), :mod:`~privcore.engine.kdtree` (the k-d tree path),
    :mod:`~privcore.engine.within_radius` (all rows within a radius) and :mod:`~privcore.engine.results`.
    Before a CPU pass without extremes, :mod:`~privcore.engine.key_groups` settles the rows whose two nearest share
    every coarse discrete column (one-hot codes) with them; only the other rows take the matrix pass.

    Examples
    --------
    >>> import numpy as np
    >>> nb, ext = nearest_two(np.array([[0.0], [1.0]]), np.array([[0.0], [3.0]]), with_extremes=True)
    >>> nb.d1.tolist(), nb.i1.tolist(), ext.d_max
    ([0.0, 1.0], [0, 0], 3.0)
    """
    query = np.ascontiguousarray(query, dtype=np.float64)
    reference = np.ascontiguousarray(reference, dtype=np.float64)
    n, m = len(query), len(reference)
    if device is not None:
        gpu.check_device(device)
    if query.shape[1] != reference.shape[1]:
        raise ValueError("query and reference must have the same number of columns")
    if exclude_self and n != m:
        raise ValueError("exclude_self needs the query and the reference to be the same table")
    distance = np.full((n, 2), np.inf)
    index = np.full((n, 2), -1, dtype=np.int64)
    if n == 0 or m == 0:
        return Neighbours(distance, index), (PairExtremes(np.nan, np.nan) if with_extremes else None)
    if method == "auto":
        method = "tree" if uses_tree(query.shape[1], m) else "matrix"
    if method == "tree":
        return tree_top_two(query, reference, exclude_self, with_extremes, chunk_elements, workers, progress,
                            label)
    if method != "matrix":
        raise ValueError("method must be 'auto', 'matrix' or 'tree'")

    on_cpu = cluster is None and gpu.resolve_device(device, n, m, query.shape[1]) == "cpu"
    within_sweep = exclude_self and not with_extremes and sweep_pays("cpu" if cluster is not None else device, n,
                                                                     m, query.shape[1])
    grouped = key_groups.top_two_in_key_groups(query, reference, exclude_self, chunk_elements) if (
        on_cpu and not with_extremes) else None
    if grouped is not None and not (within_sweep and len(grouped.rest) > key_groups.SWEEP_REST_SHARE * n):
        # The rows whose two nearest share their discrete columns are done; the others take a pass of their own.
        distance[grouped.resolved], index[grouped.resolved] = grouped.distance, grouped.index
        if len(grouped.rest):
            rest, _ = _matrix_top_two(query[grouped.rest], reference, grouped.rest if exclude_self else None,
                                      False, chunk_elements, workers, progress, label, None, device)
            distance[grouped.rest], index[grouped.rest] = rest.distance, rest.index
        return Neighbours(distance, index), None
    if within_sweep:
        # Each pair once instead of from both ends: identical results for half the products.
        return nearest_two_within(query, chunk_elements=chunk_elements, workers=workers, progress=progress,
                                  label=label, cluster=cluster), None
    return _matrix_top_two(query, reference, np.arange(n) if exclude_self else None, with_extremes,
                           chunk_elements, workers, progress, label, cluster, device)


def _matrix_top_two(query, reference, own, with_extremes, chunk_elements, workers, progress, label, cluster,
                    device) -> tuple[Neighbours, PairExtremes | None]:
    """:func:`nearest_two`'s chunked matrix pass.

    ``own``: None, or where the query is the reference, the reference position of every query row (not its own
    candidate).
    """
    n, m = len(query), len(reference)
    distance = np.full((n, 2), np.inf)
    index = np.full((n, 2), -1, dtype=np.int64)
    setup = matrix_setup(query, reference, "cpu" if cluster is not None else device, chunk_elements, workers)
    rows_per_chunk = setup.rows_per_chunk
    if tiles.applies(setup.operands, m, with_extremes):
        # More query rows per chunk, the reference a tile at a time (privcore.engine.tiles).
        rows_per_chunk = tiles.tile_rows(n, chunk_elements)
        setup = dataclasses.replace(setup, starts=list(range(0, n, rows_per_chunk)), rows_per_chunk=rows_per_chunk)

    def run(start: int):
        stop = min(n, start + rows_per_chunk)
        result = _chunk_top_two(
            query, reference, setup.operands, start, stop, None if own is None else own[start:stop], with_extremes,
            setup.max_half_ref, chunk_elements,
        )
        return start, stop, result

    message = f"nearest neighbours {label}".strip()
    if cluster is not None:
        # A cluster's passes exclude a row's own position (own is None or every row's position).
        tasks = cluster_tasks(setup.starts, len(cluster.scheduler_info().get("workers", {})))
        grouped = dask_cluster.run_chunks_on_cluster(
            cluster, _chunk_task, (setup.operands,),
            [(starts, rows_per_chunk, own is not None, with_extremes, setup.max_half_ref, chunk_elements)
             for starts in tasks],
            progress, n, lambda group: sum(stop - start for start, stop, _ in group), message)
        results = [chunk for group in grouped for chunk in group]
    else:
        results = run_chunks(run, setup.starts, setup.workers, progress, n, lambda r: r[1] - r[0], message)
    extremes = []
    for start, stop, (dist, idx, chunk_extremes) in results:
        distance[start:stop] = dist
        index[start:stop] = idx
        if chunk_extremes is not None:
            extremes.append(chunk_extremes)

    pair_extremes = None
    if with_extremes:
        d_min = float(min(e[0] for e in extremes))
        d_max = float(max(e[1] for e in extremes))
        pair_extremes = PairExtremes(d_min=d_min, d_max=max(d_max, d_min))
    return Neighbours(distance, index), pair_extremes


def _chunk_top_two(
    query, reference, operands, start, stop, own, with_extremes, max_half_ref, chunk_elements,
):
    """Exact top-2 for query rows [start, stop) and, with extremes, the chunk's (d_min, d_max).

    ``own``: None, or the reference position of each of the chunk's rows (not its own candidate).

    The scores, reductions and masks run in ``operands.xp``; the exact refinement runs on the host arrays
    ``query`` and ``reference``.
    """
    if tiles.applies(operands, len(operands.reference), with_extremes):
        farthest = tiles.RunningFarthest(operands, start, stop, max_half_ref) if with_extremes else None
        cand_rows, cand_cols = tiles.top_two_candidates_tiled(operands, start, stop, own, max_half_ref, farthest)
        far_pairs = farthest.candidates if farthest is not None else None
    else:
        cand_rows, cand_cols, far_pairs = _block_candidates(operands, start, stop, own, with_extremes, max_half_ref)
    if too_many_candidates(cand_rows, stop - start, operands):
        return _chunk_top_two(query, reference, operands.fallback, start, stop, own, with_extremes, max_half_ref,
                              chunk_elements)
    cand_rows, cand_cols = gpu.to_host(cand_rows), gpu.to_host(cand_cols)
    exact = exact_distances(query, reference, start + cand_rows, cand_cols, chunk_elements)
    dist, idx = select_two(cand_rows, cand_cols, exact, stop - start)
    chunk_extremes = None
    if far_pairs is not None:
        far_rows, far_cols = far_pairs()
        far = exact_distances(query, reference, start + far_rows, far_cols, chunk_elements)
        chunk_extremes = (float(dist[:, 0].min()), float(far.max()))
    return dist, idx, chunk_extremes


def _block_candidates(operands, start, stop, own, with_extremes, max_half_ref):
    """A chunk's top-two and farthest-pair candidates from its whole block; the block is freed on return.

    The top-two candidates are in ``operands.xp``; the farthest-pair candidates are on the host (a callable, as the
    tiles' :meth:`privcore.engine.tiles.RunningFarthest.candidates`, or None without extremes).
    """
    xp = operands.xp
    block = operands.scores(start, stop)
    rows = xp.arange(stop - start)
    query_norm = operands.query_norm[start:stop]
    far_pairs = None
    if with_extremes:
        far = far_candidates(block, query_norm, operands.error_scale, max_half_ref, xp)
        far_pairs = lambda: far  # noqa: E731 - the same interface as RunningFarthest.candidates
    if own is not None:
        block[rows, xp.asarray(own)] = xp.inf
    cand_rows, cand_cols = row_candidates(block, rows, block.shape[1] - int(own is not None), query_norm, operands,
                                          max_half_ref)
    return cand_rows, cand_cols, far_pairs


def _chunk_task(operands, starts, rows_per_chunk, exclude_self, with_extremes, max_half_ref, chunk_elements):
    """Several consecutive chunks of the matrix path as one task for a cluster worker.

    Module level, so it can be sent. ``operands`` are the CPU's (float32 candidates where they pay), sent to every
    worker once; the float64 tables of the exact refinement are its own (plain) or its fallback's arrays, so they travel
    once. Returns ``[(start, stop, result), ...]``.
    """
    exact = operands.fallback or operands
    query, reference = exact.query, exact.reference
    out = []
    with one_blas_thread():
        for start in starts:
            stop = min(len(query), start + rows_per_chunk)
            own = np.arange(start, stop) if exclude_self else None
            out.append((start, stop, _chunk_top_two(query, reference, operands, start, stop, own,
                                                    with_extremes, max_half_ref, chunk_elements)))
    return out


def nearest_k(
    query: np.ndarray,
    reference: np.ndarray,
    k: int,
    *,
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    label: str = "",
    method: str = "auto",
    device: str | None = None,
) -> Neighbours:
    """Exact ``k`` nearest reference rows of every query row (the k-neighbour sibling of :func:`nearest_two`).

    Candidates come from the same chunked matrix product as :func:`nearest_two` (or, in at most
    ``TREE_MAX_DIM`` columns, from a k-d tree), widened by its rounding-error bound, and are recomputed
    exactly as ``sqrt(Σ (q − r)²)``; among rows at exactly the same distance the lowest index comes first.
    At most one ``chunk × |reference|`` block of distances is held per worker.

    Parameters
    ----------
    query : numpy.ndarray
        Shape (n, d) float64.
    reference : numpy.ndarray
        Shape (m, d) float64.
    k : int
        Neighbours wanted (≥ 1); when the reference has fewer rows, the missing ones are ``inf`` / −1.
    chunk_elements, workers, progress, label, method, device
        As in :func:`nearest_two`.

    Returns
    -------
    Neighbours
        ``distance`` and ``index`` of shape (n, k), nearest first.

    Examples
    --------
    >>> nb = nearest_k(np.array([[0.0]]), np.array([[3.0], [1.0], [1.0], [2.0]]), 3)
    >>> nb.distance.tolist(), nb.index.tolist()
    ([[1.0, 1.0, 2.0]], [[1, 2, 3]])
    """
    query = np.ascontiguousarray(query, dtype=np.float64)
    reference = np.ascontiguousarray(reference, dtype=np.float64)
    if k < 1:
        raise ValueError("k must be at least 1")
    n, m = len(query), len(reference)
    if query.shape[1] != reference.shape[1]:
        raise ValueError("query and reference must have the same number of columns")
    distance = np.full((n, k), np.inf)
    index = np.full((n, k), -1, dtype=np.int64)
    if n == 0 or m == 0:
        return Neighbours(distance, index)
    if method == "auto":
        method = "tree" if uses_tree(query.shape[1], m) else "matrix"
    if method == "tree":
        return tree_top_k(query, reference, k, chunk_elements, workers, progress, label)
    if method != "matrix":
        raise ValueError("method must be 'auto', 'matrix' or 'tree'")
    # partition copies the block, so a chunk holds two blocks: half the rows of nearest_two's chunks.
    setup = matrix_setup(query, reference, device, chunk_elements, workers, blocks_per_chunk=2)
    max_half_ref = setup.max_half_ref

    def candidates(operands, start, stop):
        xp = operands.xp
        block = operands.scores(start, stop)
        kept = min(k, m)
        tolerance = 2.0 * operands.error_scale * (operands.query_norm[start:stop] + max_half_ref * 2.0 + 1e-300)
        if kept < m:
            return k_candidates(block, kept, tolerance, xp)
        return xp.nonzero(block <= (block.max(axis=1) + tolerance)[:, None])

    def run(start: int):
        stop = min(n, start + setup.rows_per_chunk)
        cand_rows, cand_cols = candidates(setup.operands, start, stop)
        if too_many_candidates(cand_rows, stop - start, setup.operands):
            cand_rows, cand_cols = candidates(setup.operands.fallback, start, stop)
        cand_rows, cand_cols = gpu.to_host(cand_rows), gpu.to_host(cand_cols)
        exact = exact_distances(query, reference, start + cand_rows, cand_cols, chunk_elements)
        return start, stop, select_k(cand_rows, cand_cols, exact, stop - start, k)

    for start, stop, (dist, idx) in run_chunks(run, setup.starts, setup.workers, progress, n, lambda r: r[1] - r[0],
                                               f"{k} nearest neighbours {label}".strip()):
        distance[start:stop], index[start:stop] = dist, idx
    return Neighbours(distance, index)
