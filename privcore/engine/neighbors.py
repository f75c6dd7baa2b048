"""The one exact nearest-neighbour engine every distance metric reads from.

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
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from threadpoolctl import threadpool_limits

from privcore.engine import gpu
from privcore.base.cores import resolve_workers

#: Distances held at once per worker: 2**22 float64 = 32 MiB.
DEFAULT_CHUNK_ELEMENTS = 2**22
#: Columns per group of the CPU's top-two candidate search (:func:`_top_two_candidates`): each block is read
#: about once instead of three times (20,000 × 20,000 Adult rows in six columns: 1.6× faster with 64 or 128).
CPU_GROUP = 128
#: The CPU computes scores in float32 when no row's squared norm exceeds this many times the median one:
#: float32's error bound grows with the largest norm, and a few rows far out (values far beyond the real
#: table's range) would widen every row's candidates; a space scaled as a whole (IdScore's weights) is fine.
FLOAT32_NORM_RATIO = 16.0
#: Query rows on which a pass tries float32 before choosing it (:func:`_float32_pays`).
PROBE_ROWS = 256
#: float32 candidates pay while refining them costs at most this share of the block they save: a candidate's
#: exact distance costs about ``d + 64`` operations, a row of the block ``m·d`` (:func:`candidate_budget`).
REFINE_SHARE = 0.25
#: Tasks per Dask worker in one pass (:func:`_cluster_tasks`): enough to balance the load, few enough that
#: scheduling does not cost more than the work.
CLUSTER_TASKS_PER_WORKER = 3
#: Up to this many columns a k-d tree finds candidates faster than matrix products (e.g. Φk, k ≤ 5).
TREE_MAX_DIM = 8
TREE_MIN_ROWS = 256
#: Near-farthest pairs a chunk refines exactly for d_max; beyond that many (maxima tied across thousands of
#: pairs, as in all-categorical tables, where their exact distances are equal) only the approximately
#: farthest pair is refined, which keeps the extremes' cost at one row's worth per chunk.
FAR_CANDIDATES = 4096

ProgressCallback = Callable[[float, str], None]


@dataclass(frozen=True)
class Neighbours:
    """Nearest and second-nearest reference rows of each query row.

    Attributes
    ----------
    distance : numpy.ndarray
        Shape (n, 2), exact Euclidean distances, ``distance[:, 0] <= distance[:, 1]``; ``inf`` where the
        reference has too few (other) rows.
    index : numpy.ndarray
        Shape (n, 2), reference row positions (lowest index among exact ties); −1 where missing.
    """

    distance: np.ndarray
    index: np.ndarray

    @property
    def d1(self) -> np.ndarray:
        """Distance to the nearest reference row."""
        return self.distance[:, 0]

    @property
    def d2(self) -> np.ndarray:
        """Distance to the second-nearest reference row."""
        return self.distance[:, 1]

    @property
    def i1(self) -> np.ndarray:
        """Position of the nearest reference row."""
        return self.index[:, 0]


@dataclass(frozen=True)
class PairExtremes:
    """Smallest and largest distance over all query × reference pairs (the review's eq. 12–13)."""

    d_min: float
    d_max: float

    @property
    def tie_tolerance(self) -> float:
        """Distances closer than this compare as equal (metrics.md §0: 1e-12 × d_max)."""
        return 1e-12 * self.d_max

    @property
    def span(self) -> float:
        """``d_max − d_min``."""
        return self.d_max - self.d_min

    def normalise(self, distance: np.ndarray) -> np.ndarray:
        """``n = (d − d_min)/(d_max − d_min)`` (metrics.md §2), 0 everywhere when d_max = d_min.

        The span counts as zero within the tie tolerance.

        Examples
        --------
        >>> PairExtremes(d_min=1.0, d_max=3.0).normalise(np.array([1.0, 2.0, 3.0])).tolist()
        [0.0, 0.5, 1.0]
        """
        distance = np.asarray(distance, dtype=np.float64)
        if self.span <= self.tie_tolerance:
            return np.zeros(len(distance))
        # d ≥ d_min and ≤ d_max by definition; the clip only removes rounding of d_max's refinement.
        return np.clip((distance - self.d_min) / self.span, 0.0, 1.0)


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
        return _tree_top_two(query, reference, exclude_self, with_extremes, chunk_elements, workers, progress,
                             label)
    if method != "matrix":
        raise ValueError("method must be 'auto', 'matrix' or 'tree'")

    if exclude_self and not with_extremes and _sweeps_on_cpu("cpu" if cluster is not None else device, n, m,
                                                             query.shape[1]):
        from privcore.engine.neighbors_both_ways import nearest_two_within

        # Each pair once instead of from both ends: identical results for half the products.
        return nearest_two_within(query, chunk_elements=chunk_elements, workers=workers, progress=progress,
                                  label=label, cluster=cluster), None
    setup = _matrix_setup(query, reference, "cpu" if cluster is not None else device, chunk_elements, workers)
    rows_per_chunk = setup.rows_per_chunk

    def run(start: int):
        stop = min(n, start + rows_per_chunk)
        result = _chunk_top_two(
            query, reference, setup.operands, start, stop, exclude_self, with_extremes, setup.max_half_ref,
            chunk_elements,
        )
        return start, stop, result

    message = f"nearest neighbours {label}".strip()
    if cluster is not None:
        from privcore.engine.cluster import run_chunks_on_cluster

        tasks = _cluster_tasks(setup.starts, len(cluster.scheduler_info().get("workers", {})))
        grouped = run_chunks_on_cluster(
            cluster, _chunk_task, (setup.operands,),
            [(starts, rows_per_chunk, exclude_self, with_extremes, setup.max_half_ref, chunk_elements)
             for starts in tasks],
            progress, n, lambda group: sum(stop - start for start, stop, _ in group), message)
        results = [chunk for group in grouped for chunk in group]
    else:
        results = _run_chunks(run, setup.starts, setup.workers, progress, n, lambda r: r[1] - r[0], message)
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


def _sweeps_on_cpu(device, n, m, dims) -> bool:
    """Whether a matrix pass of this shape runs on the CPU and is large enough for the one-block sweeps of
    :mod:`privcore.engine.neighbors_both_ways`."""
    from privcore.engine.neighbors_both_ways import MIN_ROWS, MIN_WORK

    return (min(n, m) >= MIN_ROWS and dims > 0 and min(n, m) * dims >= MIN_WORK
            and gpu.resolve_device(device, n, m, dims) == "cpu")


def _norms_and_error_scale(query, reference):
    """Squared norms for the matrix-product shortcut and the scale of its rounding error."""
    half_ref_norm = 0.5 * np.einsum("ij,ij->i", reference, reference)
    query_norm = np.einsum("ij,ij->i", query, query)
    # Bound on the rounding error of |q|²/2 + |r|²/2 − q·r (Higham, dot products: d·u per term), doubled.
    # It also covers the GPU's single product [q, 1]·[−r, |r|²/2] (d + 1 terms, see _Operands).
    error_scale = 4.0 * (query.shape[1] + 4) * np.finfo(np.float64).eps
    return half_ref_norm, query_norm, error_scale, float(half_ref_norm.max())


@dataclass(frozen=True)
class _Operands:
    """The arrays of one matrix pass, where its chunk kernels run (:mod:`privcore.engine.gpu`).

    On the CPU, for tables of moderate values: float32 copies augmented as on the GPU below
    (:func:`_cpu_operands`), with the float64 operands as the ``fallback`` of a chunk whose float32 candidates
    are too many; otherwise the float64 host arrays, a chunk's scores ``|r|²/2 − q·r`` coming from one product
    and one subtraction. On the GPU the tables are copied to the device once per pass with one more column each,
    ``[q, 1]`` and ``[−r, |r|²/2]``, so that one product gives the scores without a second pass over the
    block (whose reads and writes, not the arithmetic, bound a GPU pass). The scores then round differently
    from the CPU's, within the same error bound; since only candidates come from them and the candidates are
    refined exactly, the results do not change.

    Attributes
    ----------
    xp : module
        numpy or cupy.
    query, reference : array
        The tables (augmented on the GPU).
    half_ref_norm : array or None
        ``|r|²/2``, None where the product already subtracts it.
    query_norm : array
        ``|q|²`` per query row.
    group : int
        0: top-two candidates from whole rows; ``g``: from groups of ``g`` columns (:func:`_top_two_candidates`).
    error_scale : float
        The rounding-error scale of these scores (float64's, or float32's for float32 operands).
    fallback : _Operands or None
        Float64 operands to recompute a chunk with when these propose more candidates than
        :func:`candidate_budget` allows.
    """

    xp: Any
    query: Any
    reference: Any
    half_ref_norm: Any
    query_norm: Any
    group: int
    error_scale: float
    fallback: "_Operands | None" = None

    def scores(self, start: int, stop: int, first_column: int = 0) -> Any:
        """``|r|²/2 − q·r`` for query rows [start, stop) against the reference rows from ``first_column`` on
        (the squared distance is ``|q|² + 2·score``, so within a row the order is the distances' order)."""
        block = self.query[start:stop] @ self.reference[first_column:].T
        if self.half_ref_norm is not None:
            self.xp.subtract(self.half_ref_norm[first_column:], block, out=block)
        return block


def _gpu_operands(query, reference, half_ref_norm, query_norm, error_scale) -> _Operands:
    """The tables on the GPU (numpy when emulated), augmented so that one product gives the scores."""
    xp = gpu.array_module("gpu")
    n, d = query.shape
    augmented_query = xp.empty((n, d + 1))
    augmented_query[:, :d] = xp.asarray(query)
    augmented_query[:, d] = 1.0
    augmented_reference = xp.empty((len(reference), d + 1))
    augmented_reference[:, :d] = -xp.asarray(reference)
    augmented_reference[:, d] = xp.asarray(half_ref_norm)
    return _Operands(xp, augmented_query, augmented_reference, None, xp.asarray(query_norm), gpu.GPU_GROUP,
                     error_scale)


def _cpu_operands(query, reference, half_ref_norm, query_norm, error_scale) -> _Operands:
    """The CPU's operands: float32 scores from one product of augmented tables where that is safe
    (:data:`FLOAT32_NORM_RATIO`), with the float64 operands as the fallback; else float64 alone.

    float32 halves the bytes every pass over a score block moves (the product's output, the group minima,
    the masks), which bound the pass in few dimensions: the 17 review metrics' passes at 20,000 Adult rows
    took 1.8–2× less time. Its rounding error is ~5·10⁸ times float64's, so the candidate threshold widens
    by as much (error scale with float32's epsilon) and more candidates are refined; the exact float64
    refinement makes the results identical.
    """
    plain = _Operands(np, query, reference, half_ref_norm, query_norm, CPU_GROUP, error_scale)
    norms = np.concatenate([query_norm, 2.0 * half_ref_norm])
    # The second test also keeps inf and NaN, and squares beyond float32's range, on the float64 path.
    if not (norms.max() <= FLOAT32_NORM_RATIO * np.median(norms) and norms.max() < 1e30):
        return plain
    n, d = query.shape
    augmented_query = np.empty((n, d + 1), dtype=np.float32)
    augmented_query[:, :d] = query
    augmented_query[:, d] = 1.0
    augmented_reference = np.empty((len(reference), d + 1), dtype=np.float32)
    augmented_reference[:, :d] = -reference
    augmented_reference[:, d] = half_ref_norm
    widened = error_scale * float(np.finfo(np.float32).eps / np.finfo(np.float64).eps)
    fast = _Operands(np, augmented_query, augmented_reference, None, query_norm, CPU_GROUP, widened, plain)
    return fast if _float32_pays(fast, plain, float(half_ref_norm.max())) else plain


def candidate_budget(rows: int, reference_rows: int, dims: int) -> float:
    """How many float32 candidates ``rows`` query rows may propose before refining them costs more than
    :data:`REFINE_SHARE` of the float32 block (then float64, whose threshold is narrower, is cheaper)."""
    return REFINE_SHARE * rows * reference_rows * dims / (dims + 64)


def _float32_pays(fast, plain, max_half_ref) -> bool:
    """Whether float32 scores propose few enough candidates for this pass, judged on its first
    :data:`PROBE_ROWS` query rows (:func:`candidate_budget`). Where rows differ at a far finer scale than their
    norms (a weighted space whose heavy columns set the norms while light ones separate the rows), float32's
    wider threshold takes in most of the table.
    """
    rows = min(PROBE_ROWS, len(plain.query))
    if len(plain.reference) < 2:
        return True
    tolerance = 2.0 * fast.error_scale * (fast.query_norm[:rows] + 2.0 * max_half_ref + 1e-300)
    candidates, _ = _top_two_candidates(fast.scores(0, rows), np.arange(rows), tolerance, fast.group, np)
    return len(candidates) <= candidate_budget(rows, *plain.reference.shape)


@dataclass(frozen=True)
class _MatrixSetup:
    """What every chunk of one matrix pass shares: operands, chunking, threads, error bound."""

    operands: _Operands
    starts: list[int]
    rows_per_chunk: int
    workers: int
    half_ref_norm: np.ndarray
    query_norm: np.ndarray
    error_scale: float
    max_half_ref: float


def _matrix_setup(query, reference, device, chunk_elements, workers, blocks_per_chunk=1) -> _MatrixSetup:
    """Norms, the device (:func:`privcore.engine.gpu.resolve_device`) and the chunks of a matrix pass.

    ``blocks_per_chunk``: score blocks a chunk holds at once (``nearest_k``'s partition copies its block).
    """
    n, m = len(query), len(reference)
    half_ref_norm, query_norm, error_scale, max_half_ref = _norms_and_error_scale(query, reference)
    if gpu.resolve_device(device, n, m, query.shape[1]) == "gpu":
        operands = _gpu_operands(query, reference, half_ref_norm, query_norm, error_scale)
        elements = gpu.device_chunk_elements(chunk_elements)
        threads = min(resolve_workers(workers), gpu.GPU_THREADS)
    else:
        operands = _cpu_operands(query, reference, half_ref_norm, query_norm, error_scale)
        elements, threads = chunk_elements, resolve_workers(workers)
    rows_per_chunk = max(1, min(n, elements // max(blocks_per_chunk * m, 1)))
    return _MatrixSetup(operands, list(range(0, n, rows_per_chunk)), rows_per_chunk, threads, half_ref_norm,
                        query_norm, error_scale, max_half_ref)


def _chunk_top_two(
    query, reference, operands, start, stop, exclude_self, with_extremes, max_half_ref, chunk_elements,
):
    """Exact top-2 for query rows [start, stop) and, with extremes, the chunk's (d_min, d_max).

    The scores, reductions and masks run in ``operands.xp``; the exact refinement runs on the host arrays
    ``query`` and ``reference``.
    """
    xp, error_scale = operands.xp, operands.error_scale
    block = operands.scores(start, stop)
    rows = xp.arange(stop - start)
    query_norm = operands.query_norm[start:stop]
    far_rows = far_cols = None
    if with_extremes:
        far_rows, far_cols = _far_candidates(block, query_norm, error_scale, max_half_ref, xp)
    if exclude_self:
        block[rows, start + rows] = xp.inf
    cand_rows, cand_cols = row_candidates(block, rows, block.shape[1] - int(exclude_self), query_norm, operands,
                                          max_half_ref)
    if _too_many(cand_rows, stop - start, operands):
        del block
        return _chunk_top_two(query, reference, operands.fallback, start, stop, exclude_self, with_extremes,
                              max_half_ref, chunk_elements)
    del block
    cand_rows, cand_cols = gpu.to_host(cand_rows), gpu.to_host(cand_cols)
    exact = _exact_distances(query, reference, start + cand_rows, cand_cols, chunk_elements)
    dist, idx = _select_two(cand_rows, cand_cols, exact, stop - start)
    chunk_extremes = None
    if with_extremes:
        far = _exact_distances(query, reference, start + far_rows, far_cols, chunk_elements)
        chunk_extremes = (float(dist[:, 0].min()), float(far.max()))
    return dist, idx, chunk_extremes


def row_candidates(block, rows, others, query_norm, operands, max_half_ref):
    """(chunk row, block column) of every score that may be among its row's two nearest, ``others`` being the
    columns a row may have as neighbours (the block's, less the row itself where it is excluded as ``inf``):
    with two or more, those within the rounding bound of the second-best (:func:`_top_two_candidates`); with
    one, that one; with none (a one-row table without itself), no neighbour at all."""
    xp = operands.xp
    if others >= 2:
        tolerance = 2.0 * operands.error_scale * (query_norm + max_half_ref * 2.0 + 1e-300)
        return _top_two_candidates(block, rows, tolerance, operands.group, xp)
    if others == 1:
        return rows, xp.argmin(block, axis=1)
    return xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=np.int64)


def uses_tree(dims: int, reference_rows: int) -> bool:
    """The engine's ``method="auto"`` choice: a k-d tree for at most ``TREE_MAX_DIM`` columns and more than
    ``TREE_MIN_ROWS`` reference rows (without columns every distance is 0: the matrix path handles that, a
    k-d tree cannot)."""
    return 0 < dims <= TREE_MAX_DIM and reference_rows > TREE_MIN_ROWS


def _too_many(candidates, rows, operands) -> bool:
    """Whether a chunk's float32 candidates should be recomputed with the float64 fallback
    (:func:`candidate_budget`)."""
    return operands.fallback is not None and len(candidates) > candidate_budget(max(rows, 1),
                                                                                *operands.fallback.reference.shape)


def _far_candidates(block, query_norm, error_scale, max_half_ref, xp):
    """(chunk row, reference row) of every pair that may be the chunk's farthest, on the host.

    A pair's approximate squared distance ``|q|² + 2·score`` is within half the tolerance below of its exact
    value, so the exactly farthest pair is within the tolerance of the approximate maximum, whatever the
    device's rounding: refining all those pairs gives the same d_max on every device and for any chunking.
    More than :data:`FAR_CANDIDATES` such pairs means a maximum tied across many pairs; then the
    approximately farthest pair alone is refined.
    """
    row_max = block.max(axis=1)
    far_sq = query_norm + 2.0 * row_max
    best = int(xp.argmax(far_sq))
    tolerance = 4.0 * error_scale * (float(query_norm.max()) + 2.0 * max_half_ref) + 1e-300
    limit = float(far_sq[best]) - tolerance
    near = xp.flatnonzero(far_sq >= limit)
    if len(near) <= FAR_CANDIDATES:
        hit_rows, hit_cols = xp.nonzero(query_norm[near][:, None] + 2.0 * block[near] >= limit)
        if len(hit_rows) <= FAR_CANDIDATES:
            return gpu.to_host(near[hit_rows]), gpu.to_host(hit_cols)
    return np.array([best]), np.array([int(xp.argmax(block[best]))])


def _top_two_candidates(block, rows, tolerance, group, xp):
    """(chunk row, reference row) of every score within ``tolerance`` of its row's second-best score.

    ``group == 0`` (the CPU): the best and second-best score of each row from the whole block. ``group = g``
    (the GPU): the block's columns in groups of ``g``; the second-smallest of the groups' minima is a score
    of another column than the best one, so at least the second-best score, and the threshold built on it
    keeps every candidate the whole-row threshold keeps (perhaps a few more, which the exact refinement
    sorts out). Only the groups whose minimum lies under the threshold are read again, so the block is read
    about once instead of three times.
    """
    m = block.shape[1]
    if group < 2 or m // group < 2:
        first = xp.argmin(block, axis=1)
        first_score = block[rows, first]
        block[rows, first] = xp.inf
        second_score = block.min(axis=1)
        block[rows, first] = first_score
        threshold = second_score + tolerance
        return xp.nonzero(block <= threshold[:, None])
    # With two full groups of at least two columns, some group other than the best one has a finite score
    # even when the row's own column is excluded (inf), so the threshold is finite.
    minima = _group_minima(block, group, xp)
    first = xp.argmin(minima, axis=1)
    first_minimum = minima[rows, first]
    minima[rows, first] = xp.inf
    threshold = minima.min(axis=1) + tolerance
    minima[rows, first] = first_minimum
    group_rows, groups = xp.nonzero(minima <= threshold[:, None])
    cols = groups[:, None] * group + xp.arange(group)
    inside = cols < m  # the last group may be shorter
    cols = xp.minimum(cols, m - 1)
    hit = inside & (block[group_rows[:, None], cols] <= threshold[group_rows][:, None])
    i, j = xp.nonzero(hit)
    return group_rows[i], cols[i, j]


def _group_minima(block, group, xp):
    """Minimum of each run of ``group`` columns of every row (the last run may be shorter)."""
    k, m = block.shape
    full = (m // group) * group
    minima = block[:, :full].reshape(k, full // group, group).min(axis=2)
    if full < m:
        minima = xp.concatenate([minima, block[:, full:].min(axis=1)[:, None]], axis=1)
    return minima


def _select_two(cand_rows, cand_cols, exact, n_rows):
    """Nearest and second-nearest among exact candidate distances; lowest index first among equal ones."""
    order = np.lexsort((cand_cols, exact, cand_rows))
    cand_rows, cand_cols, exact = cand_rows[order], cand_cols[order], exact[order]
    group_start = np.flatnonzero(np.r_[True, cand_rows[1:] != cand_rows[:-1]]) if len(cand_rows) else cand_rows
    group_size = np.diff(np.r_[group_start, len(cand_rows)])
    dist = np.full((n_rows, 2), np.inf)
    idx = np.full((n_rows, 2), -1, dtype=np.int64)
    owner = cand_rows[group_start]
    dist[owner, 0] = exact[group_start]
    idx[owner, 0] = cand_cols[group_start]
    has_second = group_size >= 2
    dist[owner[has_second], 1] = exact[group_start[has_second] + 1]
    idx[owner[has_second], 1] = cand_cols[group_start[has_second] + 1]
    return dist, idx


def _cluster_tasks(starts: list[int], n_workers: int) -> list[tuple[int, ...]]:
    """The chunks of a pass grouped into about :data:`CLUSTER_TASKS_PER_WORKER` tasks per worker: a Dask task
    costs milliseconds of scheduling, as much as a small chunk's work, so each task runs several chunks (one
    at a time, so a worker's memory stays that of one chunk).

    Examples
    --------
    >>> _cluster_tasks([0, 10, 20, 30, 40], 1)
    [(0, 10), (20, 30), (40,)]
    """
    wanted = max(1, CLUSTER_TASKS_PER_WORKER * max(n_workers, 1))
    per_task = -(-len(starts) // wanted)
    return [tuple(starts[i : i + per_task]) for i in range(0, len(starts), per_task)]


def _chunk_task(operands, starts, rows_per_chunk, exclude_self, with_extremes, max_half_ref, chunk_elements):
    """Several consecutive chunks of the matrix path as one task for a cluster worker (module level, so it
    can be sent). ``operands`` are the CPU's (float32 candidates where they pay), sent to every worker once;
    the float64 tables of the exact refinement are its own (plain) or its fallback's arrays, so they travel
    once. Returns ``[(start, stop, result), ...]``."""
    exact = operands.fallback or operands
    query, reference = exact.query, exact.reference
    out = []
    with threadpool_limits(limits=1, user_api="blas"):
        for start in starts:
            stop = min(len(query), start + rows_per_chunk)
            out.append((start, stop, _chunk_top_two(query, reference, operands, start, stop, exclude_self,
                                                    with_extremes, max_half_ref, chunk_elements)))
    return out


def _run_chunks(run, starts, workers, progress, total, size_of, message):
    """Run ``run(start)`` for every chunk on worker threads; report progress from the calling thread only
    (callers such as Streamlit may only update their page from their own thread)."""
    results, done = [], 0
    # BLAS is limited to one thread per worker so the cores are not oversubscribed.
    with threadpool_limits(limits=1, user_api="blas"):
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


def _tree_top_two(query, reference, exclude_self, with_extremes, chunk_elements, workers, progress, label):
    """``nearest_two`` for few columns: a k-d tree proposes candidates, which are then refined exactly.

    The tree's k-th distance (k = 2, or 3 when the query row itself is in the reference) bounds the true
    second-nearest distance; every reference row within that radius (widened by 1e-9 relative, far more
    than the tree's rounding) is a candidate, so exact ties and the lowest-index rule come out exactly as
    in the matrix path (see :func:`_tree_refined`).
    """
    distance, index = _tree_refined(
        query, reference, 3 if exclude_self else 2, exclude_self, _select_two, 2, chunk_elements, workers,
        progress, f"nearest neighbours {label}".strip(),
    )
    extremes = None
    if with_extremes:
        d_min = float(distance[:, 0].min())
        extremes = PairExtremes(d_min=d_min, d_max=max(_farthest_pair_distance(query, reference, chunk_elements), d_min))
    return Neighbours(distance, index), extremes


def _tree_refined(query, reference, wanted, exclude_self, select, width, chunk_elements, workers, progress,
                  message):
    """Exact nearest rows by k-d tree candidates: ``select(cand_rows, cand_cols, exact, n_rows)`` (``width``
    columns of distances and indices) on every reference row within ``radius = d_wanted · (1 + 1e-9)`` of
    each query row, ``d_wanted`` being the tree's ``wanted``-th nearest distance.

    The tree is asked for one neighbour more than ``wanted``: where that extra one already lies beyond the
    radius, the ``wanted`` rows it found are all the rows within it (as a radius search would return), so
    only the other query rows (ties at the radius, duplicates) need a radius search. In continuous spaces
    that is almost none, which saves two radius searches and one Python list per query row (30,000 Adult
    rows in Φ5, real→synthetic with extremes, real→real and 5 nearest: 2.2× less CPU time, identical
    results; bench/bench_scale.py, part ``lowdim``). Radius searches run in batches whose candidate lists
    together stay within the memory bound.
    """
    from scipy.spatial import cKDTree

    n, m = len(query), len(reference)
    threads = resolve_workers(workers)
    tree = cKDTree(reference)
    wanted = min(wanted, m)
    asked = min(wanted + 1, m)
    tree_dist, tree_index = tree.query(query, k=asked, workers=threads)
    tree_dist, tree_index = tree_dist.reshape(n, -1), tree_index.reshape(n, -1)
    radius = tree_dist[:, wanted - 1] * (1 + 1e-9) + 1e-300
    settled = tree_dist[:, wanted] > radius if asked > wanted else np.ones(n, dtype=bool)
    distance = np.full((n, width), np.inf)
    index = np.full((n, width), -1, dtype=np.int64)

    def refine(rows, cand_rows, cand_cols):
        """Exact distances of the candidates of query ``rows`` (``cand_rows`` indexes ``rows``)."""
        if exclude_self:
            keep = cand_cols != rows[cand_rows]
            cand_rows, cand_cols = cand_rows[keep], cand_cols[keep]
        exact = _exact_distances(query, reference, rows[cand_rows], cand_cols, chunk_elements)
        distance[rows], index[rows] = select(cand_rows, cand_cols, exact, len(rows))

    rows = np.flatnonzero(settled)
    refine(rows, np.repeat(np.arange(len(rows)), wanted), tree_index[rows, :wanted].ravel())
    todo = np.flatnonzero(~settled)
    if progress is not None:
        progress(len(rows) / n, message)
    if not len(todo):
        return distance, index
    counts = tree.query_ball_point(query[todo], radius[todo], return_length=True, workers=threads)
    budget = max(1, chunk_elements // 4)
    cumulative = np.cumsum(counts)
    start = 0
    while start < len(todo):
        limit = (cumulative[start - 1] if start else 0) + budget
        stop = max(start + 1, int(np.searchsorted(cumulative, limit, side="right")))
        batch = todo[start:stop]
        lists = tree.query_ball_point(query[batch], radius[batch], workers=threads)
        sizes = np.fromiter((len(c) for c in lists), dtype=np.int64, count=len(lists))
        cand_rows = np.repeat(np.arange(len(batch)), sizes)
        cand_cols = np.concatenate([np.asarray(c, dtype=np.int64) for c in lists]) if sizes.sum() else cand_rows
        refine(batch, cand_rows, cand_cols)
        if progress is not None:
            progress((len(rows) + stop) / n, message)
        start = stop
    return distance, index


def _farthest_pair_distance(query, reference, chunk_elements) -> float:
    """Largest distance over all query × reference pairs, exactly.

    The farthest pair joins a vertex of each set's convex hull, so only hull vertices are compared (with
    exact differences). Flat or tiny sets, where the hull is undefined, fall back to all points.
    """
    def extreme_points(points):
        if len(points) > 4 * (points.shape[1] + 1):
            try:
                from scipy.spatial import ConvexHull

                return points[ConvexHull(points).vertices]
            except Exception:  # degenerate (flat) point sets: Qhull cannot build a full-dimensional hull
                pass
        return np.unique(points, axis=0)

    a, b = extreme_points(query), extreme_points(reference)
    best = 0.0
    rows = max(1, chunk_elements // max(len(b) * max(a.shape[1], 1), 1))
    for s in range(0, len(a), rows):
        diff = a[s : s + rows, None, :] - b[None, :, :]
        best = max(best, float(np.sqrt(np.einsum("ijk,ijk->ij", diff, diff).max())))
    return best


def _exact_distances(query, reference, query_rows, reference_rows, chunk_elements) -> np.ndarray:
    """sqrt(Σ (q − r)²) for the given pairs, in batches so memory stays within ``chunk_elements``."""
    out = np.empty(len(query_rows))
    batch = max(1, chunk_elements // max(query.shape[1], 1))
    for s in range(0, len(query_rows), batch):
        diff = query[query_rows[s : s + batch]] - reference[reference_rows[s : s + batch]]
        out[s : s + batch] = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    return out


@dataclass(frozen=True)
class WithinPairs:
    """Every reference row within a per-query radius, in compressed sparse row (CSR) layout.

    The reference rows of query row *i* are ``indices[indptr[i]:indptr[i + 1]]`` (ascending), at exact
    Euclidean distances ``distance[indptr[i]:indptr[i + 1]]``.
    """

    indptr: np.ndarray
    indices: np.ndarray
    distance: np.ndarray

    @property
    def counts(self) -> np.ndarray:
        """Number of reference rows within the radius of each query row."""
        return np.diff(self.indptr)

    def rows(self) -> np.ndarray:
        """The query row of each pair (expanded ``indptr``)."""
        return np.repeat(np.arange(len(self.indptr) - 1), self.counts)


def all_within(
    query: np.ndarray,
    reference: np.ndarray,
    radius: np.ndarray | float,
    *,
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    label: str = "",
    device: str | None = None,
) -> WithinPairs:
    """Every reference row at exact Euclidean distance ≤ ``radius[i]`` of each query row *i*.

    Used where a metric pools *all* tied nearest rows (AIR's guesses: ``radius = d1 + 1e-12·d_max``
    with ``d1`` from :func:`nearest_two`). Candidates come from the same chunked matrix product as
    :func:`nearest_two`, widened by its rounding-error bound, and are then recomputed exactly as
    ``sqrt(Σ (q − r)²)`` and compared with the radius, so no pair within the radius is missed and
    identical rows are at distance exactly 0. At most one ``chunk × |reference|`` block of distances is
    held per worker; the returned pairs themselves are as many as there are rows within the radii.

    Parameters
    ----------
    query : numpy.ndarray
        Shape (n, d) float64.
    reference : numpy.ndarray
        Shape (m, d) float64.
    radius : numpy.ndarray or float
        Shape (n,) (or a scalar for every row); ``inf`` takes every reference row, a negative radius none.
    chunk_elements : int
        Upper bound on distances held at once per worker.
    workers : int, optional
        Threads working on chunks (default: :func:`privcore.base.cores.usable_cores`).
    progress : callable, optional
        ``progress(fraction_done, message)``.
    label : str
        Shown in progress messages.
    device : {"auto", "cpu", "gpu"}, optional
        Where the matrix products run, as in :func:`nearest_two`; the result is the same on either.

    Returns
    -------
    WithinPairs

    Examples
    --------
    >>> import numpy as np
    >>> pairs = all_within(np.array([[0.0], [2.0]]), np.array([[1.0], [3.0], [1.0]]), np.array([1.0, 0.5]))
    >>> pairs.indptr.tolist(), pairs.indices.tolist(), pairs.distance.tolist()
    ([0, 2, 2], [0, 2], [1.0, 1.0])
    """
    query = np.ascontiguousarray(query, dtype=np.float64)
    reference = np.ascontiguousarray(reference, dtype=np.float64)
    n, m = len(query), len(reference)
    if query.shape[1] != reference.shape[1]:
        raise ValueError("query and reference must have the same number of columns")
    radius = np.broadcast_to(np.asarray(radius, dtype=np.float64), (n,))
    if n == 0 or m == 0:
        return WithinPairs(np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))

    setup = _matrix_setup(query, reference, device, chunk_elements, workers)

    def run(start: int):
        stop = min(n, start + setup.rows_per_chunk)
        return stop - start, _chunk_within(
            query, reference, setup.operands, setup.query_norm, radius, start, stop, setup.max_half_ref,
            chunk_elements,
        )

    results = [r for _, r in _run_chunks(run, setup.starts, setup.workers, progress, n, lambda r: r[0],
                                         f"neighbours within radius {label}".strip())]
    rows = np.concatenate([r[0] for r in results])
    indices = np.concatenate([r[1] for r in results])
    distance = np.concatenate([r[2] for r in results])
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return WithinPairs(indptr, indices, distance)


def _chunk_within(query, reference, operands, query_norm, radius, start, stop, max_half_ref, chunk_elements):
    """Pairs (global query row, reference row, exact distance) within the radius, for query rows [start, stop).

    The thresholds are computed on the host (``query_norm`` is the host copy), the scores and the mask in
    ``operands.xp``; the candidates are refined exactly on the host."""
    r = radius[start:stop]
    finite = np.where(np.isfinite(r), r, 0.0)
    # Squared distance = |q|² + 2·score with score = |r|²/2 − q·r: a candidate has score ≤ threshold.
    threshold = 0.5 * (np.where(r >= 0, finite * finite, -np.inf) - query_norm[start:stop])
    tolerance = 2.0 * operands.error_scale * (query_norm[start:stop] + max_half_ref * 2.0 + finite * finite + 1e-300)
    threshold = np.where(np.isposinf(r), np.inf, threshold + tolerance)
    xp = operands.xp
    block = operands.scores(start, stop)
    cand_rows, cand_cols = xp.nonzero(block <= xp.asarray(threshold)[:, None])
    del block
    cand_rows, cand_cols = gpu.to_host(cand_rows), gpu.to_host(cand_cols)
    exact = _exact_distances(query, reference, start + cand_rows, cand_cols, chunk_elements)
    keep = exact <= r[cand_rows]
    return start + cand_rows[keep], cand_cols[keep], exact[keep]


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
        return _tree_top_k(query, reference, k, chunk_elements, workers, progress, label)
    if method != "matrix":
        raise ValueError("method must be 'auto', 'matrix' or 'tree'")
    # partition copies the block, so a chunk holds two blocks: half the rows of nearest_two's chunks.
    setup = _matrix_setup(query, reference, device, chunk_elements, workers, blocks_per_chunk=2)
    max_half_ref = setup.max_half_ref

    def candidates(operands, start, stop):
        xp = operands.xp
        block = operands.scores(start, stop)
        kept = min(k, m)
        kth = xp.partition(block, kept - 1, axis=1)[:, kept - 1] if kept < m else block.max(axis=1)
        tolerance = 2.0 * operands.error_scale * (operands.query_norm[start:stop] + max_half_ref * 2.0 + 1e-300)
        return xp.nonzero(block <= (kth + tolerance)[:, None])

    def run(start: int):
        stop = min(n, start + setup.rows_per_chunk)
        cand_rows, cand_cols = candidates(setup.operands, start, stop)
        if _too_many(cand_rows, stop - start, setup.operands):
            cand_rows, cand_cols = candidates(setup.operands.fallback, start, stop)
        cand_rows, cand_cols = gpu.to_host(cand_rows), gpu.to_host(cand_cols)
        exact = _exact_distances(query, reference, start + cand_rows, cand_cols, chunk_elements)
        return start, stop, _select_k(cand_rows, cand_cols, exact, stop - start, k)

    for start, stop, (dist, idx) in _run_chunks(run, setup.starts, setup.workers, progress, n, lambda r: r[1] - r[0],
                                                f"{k} nearest neighbours {label}".strip()):
        distance[start:stop], index[start:stop] = dist, idx
    return Neighbours(distance, index)


def _select_k(cand_rows, cand_cols, exact, n_rows, k):
    """The ``k`` nearest among exact candidate distances per row; lowest index first among equal ones."""
    order = np.lexsort((cand_cols, exact, cand_rows))
    cand_rows, cand_cols, exact = cand_rows[order], cand_cols[order], exact[order]
    dist = np.full((n_rows, k), np.inf)
    idx = np.full((n_rows, k), -1, dtype=np.int64)
    if len(cand_rows) == 0:
        return dist, idx
    group_start = np.flatnonzero(np.r_[True, cand_rows[1:] != cand_rows[:-1]])
    first_of_row = np.repeat(group_start, np.diff(np.r_[group_start, len(cand_rows)]))
    rank = np.arange(len(cand_rows)) - first_of_row
    keep = rank < k
    dist[cand_rows[keep], rank[keep]] = exact[keep]
    idx[cand_rows[keep], rank[keep]] = cand_cols[keep]
    return dist, idx


def _tree_top_k(query, reference, k, chunk_elements, workers, progress, label) -> Neighbours:
    """:func:`nearest_k` in few columns: a k-d tree's k-th distance bounds the candidates, refined exactly
    (:func:`_tree_refined`), so ties and the lowest-index rule come out as in the matrix path."""
    distance, index = _tree_refined(
        query, reference, k, False, lambda rows, cols, exact, n_rows: _select_k(rows, cols, exact, n_rows, k), k,
        chunk_elements, workers, progress, f"{k} nearest neighbours {label}".strip(),
    )
    return Neighbours(distance, index)


def count_within(
    query: np.ndarray,
    reference: np.ndarray,
    radius: np.ndarray | float,
    *,
    labels: np.ndarray | None = None,
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    label: str = "",
    device: str | None = None,
) -> np.ndarray:
    """How many reference rows lie at exact Euclidean distance ≤ ``radius`` of each query row, by label.

    The counting sibling of :func:`all_within`: the same candidates and exact comparison, but only counts
    are kept, so memory stays at one ``chunk × |reference|`` block per worker however many rows are within
    the radius (all-categorical tables put thousands of rows at distance 0).

    Parameters
    ----------
    query : numpy.ndarray
        Shape (n, d) float64.
    reference : numpy.ndarray
        Shape (m, d) float64.
    radius : numpy.ndarray or float
        A scalar, shape (n,) or shape (n, j): ``j`` radii per query row, counted in one pass.
    labels : numpy.ndarray, optional
        Shape (m,), integers 0..L−1: the group of each reference row (default: one group).
    chunk_elements, workers, progress, label, device
        As in :func:`all_within`.

    Returns
    -------
    numpy.ndarray
        Integer counts of shape (n, j, L) (``j = 1`` for a scalar or (n,) radius).

    Examples
    --------
    >>> count_within(np.array([[0.0], [2.0]]), np.array([[1.0], [3.0], [1.0]]), [[1.0, 3.0], [0.5, 0.5]],
    ...              labels=np.array([0, 1, 1]))[:, :, :].tolist()
    [[[1, 1], [1, 2]], [[0, 0], [0, 0]]]
    """
    query = np.ascontiguousarray(query, dtype=np.float64)
    reference = np.ascontiguousarray(reference, dtype=np.float64)
    n, m = len(query), len(reference)
    radius = np.asarray(radius, dtype=np.float64)
    radius = np.broadcast_to(radius.reshape(-1, 1) if radius.ndim == 1 else radius, (n, radius.shape[-1]
                             if radius.ndim == 2 else 1))
    labels = np.zeros(m, dtype=np.int64) if labels is None else np.asarray(labels, dtype=np.int64)
    n_labels = int(labels.max()) + 1 if m else 1
    n_radii = radius.shape[1]
    counts = np.zeros((n, n_radii, n_labels), dtype=np.int64)
    if n == 0 or m == 0:
        return counts
    widest = radius.max(axis=1)
    setup = _matrix_setup(query, reference, device, chunk_elements, workers)

    def run(start: int):
        stop = min(n, start + setup.rows_per_chunk)
        rows, cols, exact = _chunk_within(query, reference, setup.operands, setup.query_norm, widest, start, stop,
                                          setup.max_half_ref, chunk_elements)
        local = np.zeros((stop - start, n_radii, n_labels), dtype=np.int64)
        for j in range(n_radii):
            inside = exact <= radius[rows, j]
            flat = (rows[inside] - start) * n_labels + labels[cols[inside]]
            local[:, j, :] = np.bincount(flat, minlength=(stop - start) * n_labels).reshape(-1, n_labels)
        return start, stop, local

    for start, stop, local in _run_chunks(run, setup.starts, setup.workers, progress, n, lambda r: r[1] - r[0],
                                          f"counting neighbours {label}".strip()):
        counts[start:stop] = local
    return counts
