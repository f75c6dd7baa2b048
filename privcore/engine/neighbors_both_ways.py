"""Both directions of a neighbour pass from one score block: each pair's distance is computed once."""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from privcore.base import ProgressCallback, one_blas_thread, resolve_workers
from privcore.engine import cluster as dask_cluster
from privcore.engine import gpu, tiles
from privcore.engine.candidates import exact_distances, far_candidates, row_candidates, select_two
from privcore.engine.chunks import CLUSTER_TASKS_PER_WORKER, DEFAULT_CHUNK_ELEMENTS, run_chunks
from privcore.engine.kdtree import uses_tree
from privcore.engine.operands import Operands, candidate_budget, matrix_setup, too_many_candidates
from privcore.engine.results import Neighbours, PairExtremes

#: Rows of the table whose distances give every column its first bound on its second-nearest distance.
SAMPLE_ROWS = 256
#: Below this many rows on either side the plain engine is used: the bookkeeping would cost more than it saves.
MIN_ROWS = 8
#: ... and below this many rows × columns (of the smaller table): in smaller passes the columns' bookkeeping
#: costs about what the products it saves cost (bench/results/one_block.json, 2-core machine: within one table
#: at 15,000 × 29 columns 0.71x, 30,000 × 29 0.92x, 60,000 × 29 1.09x, 30,000 × 106 1.16x, 100,000 × 107
#: 1.54x; both ways at 10,000 × 29 0.96x, 60,000 × 29 1.12x, 100,000 × 107 1.57x).
MIN_WORK = 1_500_000


class RunningTopTwo:
    """The exact nearest two of every owner row among the candidates merged so far (thread-safe).

    Parameters
    ----------
    n : int
        Number of owner rows.

    Examples
    --------
    >>> top = RunningTopTwo(2)
    >>> top.merge(np.array([0, 0, 0, 1]), np.array([5, 3, 4, 3]), np.array([2.0, 1.0, 2.0, 7.0]))
    >>> top.distance.tolist(), top.index.tolist()
    ([[1.0, 2.0], [7.0, inf]], [[3, 4], [3, -1]])
    """

    def __init__(self, n: int):
        self.distance = np.full((n, 2), np.inf)
        self.index = np.full((n, 2), -1, dtype=np.int64)
        self._lock = threading.Lock()

    def half_square_bound(self, first: int, last: int | None = None) -> np.ndarray:
        """``d₂²/2`` of owners ``first..last−1`` (default to the end): their current exact second-nearest distance.

        It is inf while fewer than two candidates were merged, and an upper bound of the final one.
        """
        with self._lock:
            second = self.distance[first:last, 1].copy()
        return 0.5 * second * second

    def merge(self, owners: np.ndarray, neighbours: np.ndarray, exact: np.ndarray) -> None:
        """Merge candidate pairs (owner row, neighbour row, exact distance); each pair at most once overall."""
        if not len(owners):
            return
        with self._lock:
            rows = np.unique(owners)
            kept = self.index[rows] >= 0
            local_owner = np.concatenate([np.nonzero(kept)[0], np.searchsorted(rows, owners)])
            neighbour = np.concatenate([self.index[rows][kept], neighbours])
            distance = np.concatenate([self.distance[rows][kept], exact])
            self.distance[rows], self.index[rows] = select_two(local_owner, neighbour, distance, len(rows))


@dataclass
class _Sweep:
    """What every chunk of one sweep shares."""

    query: np.ndarray
    reference: np.ndarray
    operands: Operands
    rows_per_chunk: int
    within: bool  # one table: each chunk computes only the pairs from its own first row on (about half)
    with_extremes: bool
    max_half_ref: float
    max_query_norm: float
    half_ref_norm: np.ndarray
    first_bound: np.ndarray  # per reference row, in units of d²/2 (see _first_bounds)
    columns: RunningTopTwo | None  # None while sent to a cluster worker (a lock cannot be sent)
    chunk_elements: int

    def column_thresholds(self, first: int, operands: Operands, dtype, last: int | None = None) -> np.ndarray:
        """Largest shifted block value a column-candidate of reference rows ``first..`` may have.

        The rows run up to ``last``, excluded; default all.

        The rounding error of an entry ``d²/2`` is at most ``err·(|q|² + |r|²)`` (the engine's bound, with
        ``err`` the operands' error scale); twice that is allowed. The block holds ``d²/2 − 2·err·|q|²`` for
        each row, so the threshold is the column's bound plus ``2·err·|r|²``, rounded up to the block's type:
        every entry whose exact ``d²/2`` is at most the bound passes.
        """
        last = len(self.reference) if last is None else last
        bound = np.minimum(self.first_bound[first:last], self.columns.half_square_bound(first, last))
        threshold = bound + 4.0 * operands.error_scale * self.half_ref_norm[first:last] + 1e-300
        rounded = threshold.astype(dtype)
        return np.where(rounded < threshold, np.nextafter(rounded, np.inf), rounded)


def nearest_two_within(
    table: np.ndarray,
    *,
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    label: str = "",
    cluster: Any = None,
) -> Neighbours:
    """Nearest and second-nearest other row of every row of one table, each pair computed once.

    The same result as ``nearest_two(table, table, exclude_self=True, method="matrix", device="cpu")``
    (a row is not its own neighbour, an identical row elsewhere is one at distance 0, the lowest index wins
    among equal distances) for about half its arithmetic.

    Parameters
    ----------
    table : numpy.ndarray
        Shape (n, d) float64.
    chunk_elements, workers, progress, label, cluster
        As in :func:`privcore.engine.neighbors.nearest_two` (on a cluster see :func:`_sweep_task`).

    Returns
    -------
    Neighbours

    Examples
    --------
    >>> nb = nearest_two_within(np.array([[0.0], [1.0], [3.0], [0.0]]))
    >>> nb.distance.tolist(), nb.index.tolist()
    ([[0.0, 1.0], [1.0, 1.0], [2.0, 3.0], [0.0, 1.0]], [[3, 1], [0, 3], [1, 0], [0, 1]])
    """
    table = np.ascontiguousarray(table, dtype=np.float64)
    sweep, starts, threads = _prepare(table, table, True, False, chunk_elements, workers)
    n = len(table)
    # A chunk's work is its rows times the columns from its first row on.
    work = [(min(n, s + sweep.rows_per_chunk) - s) * (n - s) for s in starts]
    _sweep(sweep, starts, threads, cluster, progress, sum(work), f"nearest neighbours {label}".strip())
    return Neighbours(sweep.columns.distance, sweep.columns.index)


def nearest_two_both_ways(
    query: np.ndarray,
    reference: np.ndarray,
    *,
    with_extremes: bool = False,
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    label: str = "",
    cluster: Any = None,
) -> tuple[Neighbours, Neighbours, PairExtremes | None]:
    """Nearest two reference rows of every query row and nearest two query rows of every reference row, in one pass.

    Both come from one pass over their pairs.

    The same results as ``nearest_two(query, reference, with_extremes=...)`` and
    ``nearest_two(reference, query)`` on the CPU's matrix path, for the cost of one pass and a little more.

    Parameters
    ----------
    query : numpy.ndarray
        Shape (n, d) float64.
    reference : numpy.ndarray
        Shape (m, d) float64.
    with_extremes : bool
        Also return the smallest and largest distance over all pairs.
    chunk_elements, workers, progress, label, cluster
        As in :func:`privcore.engine.neighbors.nearest_two` (on a cluster see :func:`_sweep_task`).

    Returns
    -------
    Neighbours, Neighbours, PairExtremes or None
        query→reference, reference→query, and the extremes (None unless asked for).

    Notes
    -----
    A block of scores between query rows and reference rows answers two questions: each query row's nearest
    reference rows (along its row) and each reference row's nearest query rows (down its column). The plain
    engine (:func:`privcore.engine.neighbors.nearest_two`) reads only the rows, so

    - a pass within one table (real→real, synthetic→synthetic) computes every pair twice, once from each end;
    - two passes in opposite directions between two tables (real→synthetic and synthetic→real, which CVP,
      DCR, NNDR and NNAA read together) compute every pair twice.

    Here each pair is computed once: :func:`nearest_two_within` computes only the pairs ``i < j`` of one table
    (the blocks on and right of the diagonal, half the arithmetic) and :func:`nearest_two_both_ways` both
    directions from one pass. The rows are read as in the plain engine. The columns cannot be settled within
    one chunk of rows, so every column keeps a running exact top two (:class:`RunningTopTwo`): a chunk proposes
    as candidates for column *j* only the entries within the rounding bound of the column's current exact
    second-nearest distance, which is never below its final one (it is the second smallest of a subset of the
    distances), so no pair that ends among the final two is missed; a sample of rows gives every column a first
    bound ahead of the pass. The candidates are refined exactly as in the plain engine and the final two are
    chosen by (exact distance, index), whatever order the chunks ran in, so the results are identical to the
    plain engine's (tests compare both on ties, duplicates and uneven chunks).

    They run on the CPU's threads or as tasks on a Dask cluster (each task keeps its own running top two of the
    columns, merged by the caller); on a GPU the plain engine's passes run instead.

    Examples
    --------
    >>> forward, backward, ext = nearest_two_both_ways(np.array([[0.0], [4.0]]),
    ...                                                np.array([[1.0], [3.0], [5.0]]), with_extremes=True)
    >>> forward.index.tolist(), backward.index.tolist(), ext.d_max
    ([[0, 1], [1, 2]], [[0, 1], [1, 0], [1, 0]], 5.0)
    """
    query = np.ascontiguousarray(query, dtype=np.float64)
    reference = np.ascontiguousarray(reference, dtype=np.float64)
    if query.shape[1] != reference.shape[1]:
        raise ValueError("query and reference must have the same number of columns")
    n = len(query)
    sweep, starts, threads = _prepare(query, reference, False, with_extremes, chunk_elements, workers)
    distance = np.full((n, 2), np.inf)
    index = np.full((n, 2), -1, dtype=np.int64)
    extremes = []
    results = _sweep(sweep, starts, threads, cluster, progress, n * len(reference),
                     f"nearest neighbours {label}".strip())
    for start, (dist, idx, chunk_extremes), _ in results:
        distance[start : start + len(dist)] = dist
        index[start : start + len(dist)] = idx
        extremes.append(chunk_extremes)
    pair_extremes = None
    if with_extremes:
        d_min = float(min(e[0] for e in extremes))
        pair_extremes = PairExtremes(d_min=d_min, d_max=max(float(max(e[1] for e in extremes)), d_min))
    return Neighbours(distance, index), Neighbours(sweep.columns.distance, sweep.columns.index), pair_extremes


def applicable(rows: int, reference_rows: int, dims: int, device: str | None = None) -> bool:
    """Whether :func:`privcore.engine.neighbors.nearest_two` would take its CPU matrix path here and the sweep pays.

    For this shape: a k-d tree serves at most ``TREE_MAX_DIM`` columns, a GPU large passes; the sweep pays by
    :func:`sweep_pays`.

    Parameters
    ----------
    rows, reference_rows : int
        Rows of the query and of the reference table.
    dims : int
        Columns of both.
    device : {"auto", "cpu", "gpu"}, optional
        As in :func:`privcore.engine.neighbors.nearest_two`.

    Returns
    -------
    bool
    """
    # Either direction taking the tree would make the sweep a detour.
    tree = uses_tree(dims, rows) or uses_tree(dims, reference_rows)
    return not tree and sweep_pays(device, rows, reference_rows, dims)


def sweep_pays(device: str | None, rows: int, reference_rows: int, dims: int) -> bool:
    """Whether a matrix pass of this shape runs on the CPU and is large enough for the one-block sweeps.

    Large enough: :data:`MIN_ROWS`, :data:`MIN_WORK`.

    Parameters
    ----------
    device : {"auto", "cpu", "gpu"} or None
        Where the pass would run (:func:`privcore.engine.gpu.resolve_device`).
    rows, reference_rows : int
        Rows of the query and of the reference table.
    dims : int
        Columns of both.

    Returns
    -------
    bool
    """
    smaller = min(rows, reference_rows)
    return (smaller >= MIN_ROWS and dims > 0 and smaller * dims >= MIN_WORK
            and gpu.resolve_device(device, rows, reference_rows, dims) == "cpu")


def _sweep(sweep: _Sweep, starts, threads, cluster, progress, total, message) -> list:
    """Every chunk of ``sweep``, on this machine's threads or as tasks on a Dask cluster.

    Returns the chunks' results in order, the columns' top two merged into ``sweep.columns``.
    """
    if cluster is None:
        return run_chunks(lambda start: _sweep_chunk(sweep, start), starts, threads, progress, total,
                          lambda result: result[2], message)
    workers = max(1, len(cluster.scheduler_info().get("workers", {})))
    tasks = min(len(starts), CLUSTER_TASKS_PER_WORKER * workers)
    # Interleaved, so that the tasks of a pass within one table (whose chunks shrink) get equal work.
    grouped = dask_cluster.run_chunks_on_cluster(
        cluster, _sweep_task, (dataclasses.replace(sweep, columns=None),),
        [(tuple(starts[t::tasks]),) for t in range(tasks)], progress, total,
        lambda task_result: sum(chunk[2] for chunk in task_result[0]), message)
    for _, distance, index in grouped:
        owners, slot = np.nonzero(index >= 0)
        sweep.columns.merge(owners, index[owners, slot], distance[owners, slot])
    return sorted((chunk for chunk_results, _, _ in grouped for chunk in chunk_results), key=lambda c: c[0])


def _sweep_task(sweep: _Sweep, starts: tuple[int, ...]):
    """Chunks of one sweep as one task of a Dask cluster worker (module level, so it can be sent).

    The task keeps its own running top two of the columns, bounded by the chunks it has seen; every pair
    belongs to exactly one chunk, so the caller's merge of the tasks' top twos is the top two of all pairs.
    Returns ``(chunk results, columns' distance, columns' index)``.
    """
    local = dataclasses.replace(sweep, columns=RunningTopTwo(len(sweep.reference)))
    with one_blas_thread():
        results = [_sweep_chunk(local, start) for start in starts]
    return results, local.columns.distance, local.columns.index


def _prepare(query, reference, within, with_extremes, chunk_elements, workers):
    setup = matrix_setup(query, reference, "cpu", chunk_elements, workers)
    if tiles.applies(setup.operands, len(reference), with_extremes):
        # More query rows per chunk, the reference a tile at a time (privcore.engine.tiles, _tiled_candidates).
        rows = tiles.tile_rows(len(query), chunk_elements, tiles.SWEEP_TILE_ROWS)
        setup = dataclasses.replace(setup, starts=list(range(0, len(query), rows)), rows_per_chunk=rows)
    sweep = _Sweep(
        query=query, reference=reference, operands=setup.operands, rows_per_chunk=setup.rows_per_chunk,
        within=within, with_extremes=with_extremes, max_half_ref=setup.max_half_ref,
        max_query_norm=float(setup.query_norm.max()), half_ref_norm=setup.half_ref_norm,
        first_bound=_first_bounds(query, reference, within, setup, chunk_elements),
        columns=RunningTopTwo(len(reference)),
        chunk_elements=chunk_elements,
    )
    return sweep, setup.starts, resolve_workers(workers)


def _first_bounds(query, reference, within, setup, chunk_elements) -> np.ndarray:
    """An upper bound of every reference row's final second-nearest ``d²/2``.

    Its second-smallest distance to :data:`SAMPLE_ROWS` evenly spaced query rows (itself excluded within one table),
    from float64 products widened by twice their rounding bound. Without it a column would take every entry of the first
    chunks as a candidate.
    """
    m = len(reference)
    sample = np.unique(np.linspace(0, len(query) - 1, min(SAMPLE_ROWS, len(query))).astype(np.int64))
    bound = np.full(m, np.inf)
    if len(sample) - int(within) < 2:
        return bound
    points = query[sample]
    half_sample_norm = 0.5 * setup.query_norm[sample]
    tolerance = 4.0 * setup.error_scale * (float(setup.query_norm[sample].max()) + 2.0 * setup.half_ref_norm)
    step = max(1, chunk_elements // len(sample))
    for s in range(0, m, step):
        block = reference[s : s + step]
        half_square = setup.half_ref_norm[s : s + step, None] + half_sample_norm[None, :] - block @ points.T
        if within:
            own = np.flatnonzero((sample >= s) & (sample < s + step))
            half_square[sample[own] - s, own] = np.inf
        bound[s : s + step] = np.partition(half_square, 1, axis=1)[:, 1]
    return np.maximum(bound, 0.0) + tolerance


def _column_candidates(columns_t, thresholds, error_scale, half_ref_norm, query_norm):
    """(chunk row, reference row) of every entry of ``columns_t`` under its reference row's threshold.

    ``columns_t`` has one reference row per row, the chunk's query rows across (a transposed view of a block is fine).
    In reference rows hit more than twice in this chunk, entries must also be within the rounding bound of their
    second-smallest entry here (the others cannot be among its final two). The rows' minima find the few hit ones in one
    read.
    """
    if not columns_t.shape[0]:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    hit = np.flatnonzero(columns_t.min(axis=1) <= thresholds)
    sub = columns_t[hit]
    if sub.shape[1] > 2 and len(hit):
        # The second-smallest shifted entry is at least its exact d²/2 less 4·err·(max |q|² + |r|²)
        # (rounding plus the shift); widening by twice that keeps every entry at or below its exact value.
        second = np.partition(sub, 1, axis=1)[:, 1].astype(np.float64)
        widened = second + 8.0 * error_scale * (float(query_norm.max()) + 2.0 * half_ref_norm[hit]) + 1e-300
        local = widened.astype(sub.dtype)
        local = np.where(local < widened, np.nextafter(local, np.inf), local)
        limit = np.minimum(thresholds[hit], local)
    else:
        limit = thresholds[hit]
    position, rows = np.nonzero(sub <= limit[:, None])
    return rows, hit[position]


def _sweep_chunk(sweep: _Sweep, start: int, operands: Operands | None = None):
    """One chunk of query rows [start, stop): its rows' candidates and its columns' candidates.

    The rows' candidates are merged within one table and final between two; the columns' candidates are merged. Returns
    ``(start, row result or None, work done)``.

    The candidates come from the chunk's whole block (:func:`_block_candidates`) or, against a large
    reference, from its tiles (:func:`_tiled_candidates`). A chunk whose float32 candidates are too many
    (:func:`privcore.engine.operands.candidate_budget`) is recomputed with the float64 operands, as in the
    plain engine.
    """
    operands = operands or sweep.operands
    query, reference = sweep.query, sweep.reference
    stop = min(len(query), start + sweep.rows_per_chunk)
    k, m = stop - start, len(reference)
    first_column = start if sweep.within else 0
    # Columns: reference rows of other chunks (within one table, those after this chunk's rows: the pairs
    # inside the chunk were all proposed along its rows).
    first_owner = stop if sweep.within else 0
    tiled = tiles.applies(operands, m - first_column, sweep.with_extremes)
    find = _tiled_candidates if tiled else _block_candidates
    cand_rows, cand_cols, col_rows, owners, far_pairs = find(sweep, operands, start, stop, first_column, first_owner)
    too_many = too_many_candidates(cand_rows, k, operands) or (
        operands.fallback is not None and len(col_rows) > candidate_budget(k, max(m - first_owner, 1),
                                                                           query.shape[1]))
    if too_many:
        return _sweep_chunk(sweep, start, operands.fallback)
    exact = exact_distances(query, reference, start + cand_rows, cand_cols, sweep.chunk_elements)
    sweep.columns.merge(owners, start + col_rows,
                        exact_distances(query, reference, start + col_rows, owners, sweep.chunk_elements))
    work = k * (m - first_column)
    if sweep.within:
        sweep.columns.merge(start + cand_rows, cand_cols, exact)
        return start, None, work
    dist, idx = select_two(cand_rows, cand_cols, exact, k)
    chunk_extremes = None
    if far_pairs is not None:
        far_rows, far_cols = far_pairs()
        far = exact_distances(query, reference, start + far_rows, far_cols, sweep.chunk_elements)
        chunk_extremes = (float(dist[:, 0].min()), float(far.max()))
    return start, (dist, idx, chunk_extremes), work


def _block_candidates(sweep: _Sweep, operands: Operands, start, stop, first_column, first_owner):
    """A chunk's candidates from its whole block.

    (chunk row, reference row) along its rows, (chunk row, owner reference row) down its columns, and the farthest-pair
    candidates (a callable, None without extremes).
    """
    k = stop - start
    block = operands.scores(start, stop, first_column)
    rows = np.arange(k)
    query_norm = operands.query_norm[start:stop]
    far_pairs = None
    if sweep.with_extremes:
        far = far_candidates(block, query_norm, operands.error_scale, sweep.max_half_ref, np)
        far_pairs = lambda: far  # noqa: E731 - the same interface as the tiles' RunningFarthest.candidates
    if sweep.within:
        block[rows, rows] = np.inf  # the row itself, on the diagonal
    cand_rows, cand_cols = row_candidates(block, rows, block.shape[1] - int(sweep.within), query_norm, operands,
                                          sweep.max_half_ref)
    columns = block[:, first_owner - first_column :]
    # d²/2 less each row's share of the rounding bound (see _Sweep.column_thresholds).
    columns += ((0.5 - 2.0 * operands.error_scale) * query_norm).astype(block.dtype)[:, None]
    thresholds = sweep.column_thresholds(first_owner, operands, block.dtype)
    col_rows, col_cols = _column_candidates(columns.T, thresholds, operands.error_scale,
                                            sweep.half_ref_norm[first_owner:], query_norm)
    return cand_rows, first_column + cand_cols, col_rows, first_owner + col_cols, far_pairs


def _tiled_candidates(sweep: _Sweep, operands: Operands, start, stop, first_column, first_owner):
    """:func:`_block_candidates` with the block read one tile of reference rows at a time (privcore.engine.tiles).

    The rows' candidates come from a running threshold, each tile's columns' candidates as in the whole block (a column
    lies in one tile, with all the chunk's rows). Same neighbours, same results.
    """
    m = len(sweep.reference)
    query_norm = operands.query_norm[start:stop]
    shift = (0.5 - 2.0 * operands.error_scale) * query_norm
    row_candidates_ = tiles.RunningRowCandidates(operands, start, stop, sweep.max_half_ref)
    farthest = tiles.RunningFarthest(operands, start, stop, sweep.max_half_ref) if sweep.with_extremes else None
    col_rows, owners = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    own = np.arange(start, stop) if sweep.within else None
    for first in range(first_column, m, tiles.TILE_COLUMNS):
        last = min(m, first + tiles.TILE_COLUMNS)
        block_t = tiles.tile_scores(operands, start, stop, first, last)
        if farthest is not None:
            farthest.add(block_t)
        if own is not None:
            tiles.own_entries_excluded(block_t, own, first)
        row_candidates_.add(block_t, first)
        owners_from = max(first, first_owner)
        if owners_from < last:
            columns_t = block_t[owners_from - first :]
            columns_t += shift.astype(block_t.dtype)[None, :]
            thresholds = sweep.column_thresholds(owners_from, operands, block_t.dtype, last)
            rows, cols = _column_candidates(columns_t, thresholds, operands.error_scale,
                                            sweep.half_ref_norm[owners_from:last], query_norm)
            col_rows.append(rows)
            owners.append(owners_from + cols)
        del block_t
    cand_rows, cand_cols = row_candidates_.result()
    far_pairs = farthest.candidates if farthest is not None else None
    return cand_rows, cand_cols, np.concatenate(col_rows), np.concatenate(owners), far_pairs
