"""The operands of a matrix pass and its setup: norms, rounding-error scale, device, chunking."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from privcore.base import resolve_workers
from privcore.engine import gpu, sparse_split
from privcore.engine.candidates import top_two_candidates
from privcore.engine.sparse_split import SparseSplit

#: Columns per group of the CPU's top-two candidate search (:func:`top_two_candidates`): each block is read
#: about once instead of three times (20,000 × 20,000 Adult rows in six columns: 1.6× faster with 64 or 128).
CPU_GROUP = 128
#: The CPU computes scores in float32 when no row's squared norm exceeds this many times the median one:
#: float32's error bound grows with the largest norm, and a few rows far out (values far beyond the real
#: table's range) would widen every row's candidates; a space scaled as a whole (IdScore's weights) is fine.
FLOAT32_NORM_RATIO = 16.0
#: Query rows on which a pass tries float32 before choosing it (:func:`_float32_pays`).
PROBE_ROWS = 256
#: float32 candidates pay while refining those float64 would not propose costs at most this share of what the float32
#: pass saves (:func:`candidate_budget`).
REFINE_SHARE = 1.0
#: Candidates per query row that float64 proposes too (the two nearest and their near ties).
SHARED_CANDIDATES = 4
#: An exact distance in ``d`` columns costs about ``EXACT_NS[0] + EXACT_NS[1]·d`` ns (it gathers two whole rows), and
#: a float32 score saves about ``SAVED_NS[0] + SAVED_NS[1]·d`` ns over a float64 one (the product, and half the bytes
#: every pass over the block moves): measured on a 2-core AMD EPYC (family 25), 8 to 5,005 columns (0.29 µs and 25 µs
#: an exact distance; 1.2 and 49 ns a product's entry). Ratios, not times, enter the budget.
EXACT_NS = (250.0, 5.0)
SAVED_NS = (3.0, 0.01)


def _norms_and_error_scale(query, reference):
    """Squared norms for the matrix-product shortcut and the scale of its rounding error."""
    half_ref_norm = 0.5 * np.einsum("ij,ij->i", reference, reference)
    query_norm = np.einsum("ij,ij->i", query, query)
    # Bound on the rounding error of |q|²/2 + |r|²/2 − q·r (Higham, dot products: d·u per term), doubled.
    # It also covers the GPU's single product [q, 1]·[−r, |r|²/2] (d + 1 terms, see Operands).
    error_scale = 4.0 * (query.shape[1] + 4) * np.finfo(np.float64).eps
    return half_ref_norm, query_norm, error_scale, float(half_ref_norm.max())


@dataclass(frozen=True)
class Operands:
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
        0: top-two candidates from whole rows; ``g``: from groups of ``g`` columns (:func:`top_two_candidates`).
    error_scale : float
        The rounding-error scale of these scores (float64's, or float32's for float32 operands).
    fallback : Operands or None
        Float64 operands to recompute a chunk with when these propose more candidates than
        :func:`candidate_budget` allows.
    split : SparseSplit or None
        On the CPU, for wide tables mostly of zeros (one-hot codes of many values): the products from their dense
        columns and, as sparse matrices, the rest (:mod:`privcore.engine.sparse_split`); ``query`` and ``reference``
        stay the whole tables, which the exact refinement reads.
    """

    xp: Any
    query: Any
    reference: Any
    half_ref_norm: Any
    query_norm: Any
    group: int
    error_scale: float
    fallback: "Operands | None" = None
    split: SparseSplit | None = None

    def scores(self, start: int, stop: int, first_column: int = 0) -> Any:
        """``|r|²/2 − q·r`` for query rows [start, stop) against the reference rows from ``first_column`` on.

        The squared distance is ``|q|² + 2·score``, so within a row the order is the distances' order.
        """
        return self.scores_of_rows(slice(start, stop), first_column)

    def scores_of_rows(self, rows, first_column: int = 0, last_column: int | None = None) -> Any:
        """:meth:`scores` for the query rows ``rows`` against reference rows [first_column, last_column).

        ``rows`` is a slice or positions; ``last_column`` defaults to the end.
        """
        if self.split is not None:
            block = self.split.products(rows, first_column, last_column)
        else:
            block = self.query[rows] @ self.reference[first_column:last_column].T
        if self.half_ref_norm is not None:
            self.xp.subtract(self.half_ref_norm[first_column:last_column], block, out=block)
        return block


def _gpu_operands(query, reference, half_ref_norm, query_norm, error_scale) -> Operands:
    """The tables on the GPU (numpy when emulated), augmented so that one product gives the scores."""
    xp = gpu.array_module("gpu")
    n, d = query.shape
    augmented_query = xp.empty((n, d + 1))
    augmented_query[:, :d] = xp.asarray(query)
    augmented_query[:, d] = 1.0
    augmented_reference = xp.empty((len(reference), d + 1))
    augmented_reference[:, :d] = -xp.asarray(reference)
    augmented_reference[:, d] = xp.asarray(half_ref_norm)
    return Operands(xp, augmented_query, augmented_reference, None, xp.asarray(query_norm), gpu.GPU_GROUP,
                     error_scale)


def _cpu_operands(query, reference, half_ref_norm, query_norm, error_scale) -> Operands:
    """The CPU's operands: float32 scores where that is safe, with the float64 operands as the fallback.

    Float32 scores come from one product of augmented tables where that is safe (:data:`FLOAT32_NORM_RATIO`), with the
    float64 operands as the fallback; else float64 alone.

    float32 halves the bytes every pass over a score block moves (the product's output, the group minima,
    the masks), which bound the pass in few dimensions: the 17 review metrics' passes at 20,000 Adult rows
    took 1.8–2× less time. Its rounding error is ~5·10⁸ times float64's, so the candidate threshold widens
    by as much (error scale with float32's epsilon) and more candidates are refined; the exact float64
    refinement makes the results identical.
    """
    parts = sparse_split.split(query, reference)
    if parts is not None:
        # A 5,000-value code: its one-hot columns are multiplied as sparse matrices, the few others by BLAS (at 1,500
        # rows and 2,963 columns 0.7 s a pass in one float64 product). float32 would not pay: its rounding bound,
        # which grows with the columns, proposed 67 candidates a row there.
        return Operands(np, query, reference, half_ref_norm, query_norm, CPU_GROUP, error_scale, split=parts)
    plain = Operands(np, query, reference, half_ref_norm, query_norm, CPU_GROUP, error_scale)
    norms = np.concatenate([query_norm, 2.0 * half_ref_norm])
    # The second test also keeps inf and NaN, and squares beyond float32's range, on the float64 path.
    if not (norms.max() <= FLOAT32_NORM_RATIO * np.median(norms) and norms.max() < 1e30):
        return plain
    n, d = query.shape
    augmented_query = np.empty((n, d + 1), dtype=np.float32)
    augmented_query[:, :d] = query
    augmented_query[:, d] = 1.0
    augmented_reference = np.empty((len(reference), d + 1), dtype=np.float32)
    np.negative(reference, out=augmented_reference[:, :d], casting="same_kind")  # no float64 temporary
    augmented_reference[:, d] = half_ref_norm
    widened = error_scale * float(np.finfo(np.float32).eps / np.finfo(np.float64).eps)
    fast = Operands(np, augmented_query, augmented_reference, None, query_norm, CPU_GROUP, widened, plain)
    return fast if _float32_pays(fast, plain, float(half_ref_norm.max())) else plain


def candidate_budget(rows: int, reference_rows: int, dims: int) -> float:
    """How many float32 candidates ``rows`` query rows may propose before refining them costs too much.

    Too much: refining the candidates float64 would not propose (beyond :data:`SHARED_CANDIDATES` a row) costs more
    than :data:`REFINE_SHARE` of what float32 saves on the block (:data:`EXACT_NS`, :data:`SAVED_NS`); then float64,
    whose threshold is narrower, is cheaper. (A budget of a quarter of the block, as if an exact distance cost as
    much as one entry of it, let float32 propose 67 candidates a row where float64 proposes 4 on a table with a
    5,000-value code, 2,963 columns: refining them took 60 % of AIR's time, 21 of 35 s.)

    Parameters
    ----------
    rows, reference_rows, dims : int
        The chunk's rows, the reference rows and the columns.

    Returns
    -------
    float

    Examples
    --------
    >>> round(candidate_budget(1, 3000, 106) - SHARED_CANDIDATES), round(candidate_budget(1, 1500, 2963), 1)
    (16, 7.2)
    """
    saved = SAVED_NS[0] + SAVED_NS[1] * dims
    exact = EXACT_NS[0] + EXACT_NS[1] * dims
    return REFINE_SHARE * rows * (SHARED_CANDIDATES + reference_rows * saved / exact)


def too_many_candidates(candidates, rows, operands) -> bool:
    """Whether a chunk's float32 candidates should be recomputed with the float64 fallback (:func:`candidate_budget`).

    Parameters
    ----------
    candidates : array
        The chunk's candidates (one entry each).
    rows : int
        Rows of the chunk.
    operands : Operands
        The operands that proposed them.

    Returns
    -------
    bool
        False where there is no fallback.
    """
    return operands.fallback is not None and len(candidates) > candidate_budget(max(rows, 1),
                                                                                *operands.fallback.reference.shape)


def _float32_pays(fast, plain, max_half_ref) -> bool:
    """Whether float32 scores propose few enough candidates for this pass, judged on its first query rows.

    The first :data:`PROBE_ROWS` query rows, by :func:`candidate_budget`. Where rows differ at a far finer scale than
    their norms (a weighted space whose heavy columns set the norms while light ones separate the rows), float32's wider
    threshold takes in most of the table.
    """
    rows = min(PROBE_ROWS, len(plain.query))
    if len(plain.reference) < 2:
        return True
    tolerance = 2.0 * fast.error_scale * (fast.query_norm[:rows] + 2.0 * max_half_ref + 1e-300)
    candidates, _ = top_two_candidates(fast.scores(0, rows), np.arange(rows), tolerance, fast.group, np)
    return len(candidates) <= candidate_budget(rows, *plain.reference.shape)


@dataclass(frozen=True)
class MatrixSetup:
    """What every chunk of one matrix pass shares: operands, chunking, threads, error bound."""

    operands: Operands
    starts: list[int]
    rows_per_chunk: int
    workers: int
    half_ref_norm: np.ndarray
    query_norm: np.ndarray
    error_scale: float
    max_half_ref: float


def matrix_setup(query, reference, device, chunk_elements, workers, blocks_per_chunk=1) -> MatrixSetup:
    """Norms, the device (:func:`privcore.engine.gpu.resolve_device`) and the chunks of a matrix pass.

    ``blocks_per_chunk``: score blocks a chunk holds at once (``nearest_k``'s partition copies its block).

    Parameters
    ----------
    query, reference : numpy.ndarray
        The float64 tables.
    device : {"auto", "cpu", "gpu"} or None
        Where the pass runs.
    chunk_elements : int
        Upper bound on distances held at once per worker (on a GPU, see
        :func:`privcore.engine.gpu.device_chunk_elements`).
    workers : int or None
        Threads (:func:`privcore.base.cores.resolve_workers`).
    blocks_per_chunk : int
        Score blocks a chunk holds at once.

    Returns
    -------
    MatrixSetup

    Notes
    -----
    A chunk's scores ``|r|²/2 − q·r`` come from one matrix product (:meth:`Operands.scores`). On the CPU the product
    runs in float32 where that is safe and pays, with float64 operands as the fallback of a chunk whose float32
    candidates are too many (:func:`too_many_candidates`); on a GPU (:mod:`privcore.engine.gpu`) the tables live on
    the device. Every pass that reads score blocks (:mod:`privcore.engine.neighbors`,
    :mod:`privcore.engine.neighbors_both_ways`, :mod:`privcore.engine.within_radius`) starts from
    :func:`matrix_setup`.
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
    return MatrixSetup(operands, list(range(0, n, rows_per_chunk)), rows_per_chunk, threads, half_ref_norm,
                        query_norm, error_scale, max_half_ref)
