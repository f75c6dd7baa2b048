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
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

import numpy as np
from threadpoolctl import threadpool_limits

#: Distances held at once per worker: 2**22 float64 = 32 MiB.
DEFAULT_CHUNK_ELEMENTS = 2**22

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
        Threads working on chunks (default: the number of CPUs, at most 4).
    progress : callable, optional
        ``progress(fraction_done, message)``.
    label : str
        Shown in progress messages.

    Returns
    -------
    Neighbours, PairExtremes or None

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
    if query.shape[1] != reference.shape[1]:
        raise ValueError("query and reference must have the same number of columns")
    if exclude_self and n != m:
        raise ValueError("exclude_self needs the query and the reference to be the same table")
    distance = np.full((n, 2), np.inf)
    index = np.full((n, 2), -1, dtype=np.int64)
    if n == 0 or m == 0:
        return Neighbours(distance, index), (PairExtremes(np.nan, np.nan) if with_extremes else None)

    half_ref_norm = 0.5 * np.einsum("ij,ij->i", reference, reference)
    query_norm = np.einsum("ij,ij->i", query, query)
    # Bound on the rounding error of |q|²/2 + |r|²/2 − q·r (Higham, dot products: d·u per term), doubled.
    unit = np.finfo(np.float64).eps
    error_scale = 4.0 * (query.shape[1] + 4) * unit
    max_half_ref = float(half_ref_norm.max())
    rows_per_chunk = max(1, min(n, chunk_elements // max(m, 1)))
    starts = list(range(0, n, rows_per_chunk))
    workers = workers or min(4, os.cpu_count() or 1)
    done = [0]

    def run(start: int):
        stop = min(n, start + rows_per_chunk)
        result = _chunk_top_two(
            query, reference, half_ref_norm, query_norm, start, stop, exclude_self, with_extremes,
            error_scale, max_half_ref, chunk_elements,
        )
        done[0] += stop - start
        if progress is not None:
            progress(done[0] / n, f"nearest neighbours {label}".strip())
        return start, stop, result

    extremes = []
    # Threads share the chunk list; BLAS is limited to one thread each so cores are not oversubscribed.
    with threadpool_limits(limits=1, user_api="blas"):
        if workers > 1 and len(starts) > 1:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                results = list(pool.map(run, starts))
        else:
            results = [run(s) for s in starts]
    for start, stop, (dist, idx, chunk_extremes) in results:
        distance[start:stop] = dist
        index[start:stop] = idx
        if chunk_extremes is not None:
            extremes.append(chunk_extremes)

    pair_extremes = None
    if with_extremes:
        d_min = float(min(e[0] for e in extremes))
        # The approximate farthest pair is refined exactly; its distance is within rounding of the true max.
        _, _, qi, rj = max(extremes, key=lambda e: e[1])
        d_max = float(np.sqrt(np.sum((query[qi] - reference[rj]) ** 2)))
        pair_extremes = PairExtremes(d_min=d_min, d_max=max(d_max, d_min))
    return Neighbours(distance, index), pair_extremes


def _chunk_top_two(
    query, reference, half_ref_norm, query_norm, start, stop, exclude_self, with_extremes,
    error_scale, max_half_ref, chunk_elements,
):
    """Exact top-2 for query rows [start, stop); also the chunk's approximate farthest pair."""
    block = query[start:stop] @ reference.T
    # score = |r|²/2 − q·r; the squared distance is |q|² + 2·score, so per row the order is the same.
    np.subtract(half_ref_norm, block, out=block)
    rows = np.arange(stop - start)
    chunk_extremes = None
    if with_extremes:
        far = np.argmax(block, axis=1)
        far_sq = query_norm[start:stop] + 2.0 * block[rows, far]
        best = int(np.argmax(far_sq))
        chunk_extremes = [np.inf, float(far_sq[best]), start + best, int(far[best])]
    if exclude_self:
        block[rows, start + rows] = np.inf
    m = block.shape[1]
    first = np.argmin(block, axis=1)
    first_score = block[rows, first]
    if m - int(exclude_self) >= 2:
        block[rows, first] = np.inf
        second_score = block.min(axis=1)
        block[rows, first] = first_score
        tolerance = 2.0 * error_scale * (query_norm[start:stop] + max_half_ref * 2.0 + 1e-300)
        threshold = second_score + tolerance
        cand_rows, cand_cols = np.nonzero(block <= threshold[:, None])
    else:
        cand_rows, cand_cols = rows, first
    del block
    exact = _exact_distances(query, reference, start + cand_rows, cand_cols, chunk_elements)
    order = np.lexsort((cand_cols, exact, cand_rows))
    cand_rows, cand_cols, exact = cand_rows[order], cand_cols[order], exact[order]
    group_start = np.flatnonzero(np.r_[True, cand_rows[1:] != cand_rows[:-1]])
    group_size = np.diff(np.r_[group_start, len(cand_rows)])
    dist = np.full((stop - start, 2), np.inf)
    idx = np.full((stop - start, 2), -1, dtype=np.int64)
    owner = cand_rows[group_start]
    dist[owner, 0] = exact[group_start]
    idx[owner, 0] = cand_cols[group_start]
    has_second = group_size >= 2
    dist[owner[has_second], 1] = exact[group_start[has_second] + 1]
    idx[owner[has_second], 1] = cand_cols[group_start[has_second] + 1]
    if chunk_extremes is not None:
        # (smallest distance in the chunk, approximate largest squared distance, its query row, its reference row)
        chunk_extremes = (float(dist[:, 0].min()), chunk_extremes[1], chunk_extremes[2], chunk_extremes[3])
    return dist, idx, chunk_extremes


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
        Threads working on chunks (default: the number of CPUs, at most 4).
    progress : callable, optional
        ``progress(fraction_done, message)``.
    label : str
        Shown in progress messages.

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

    half_ref_norm = 0.5 * np.einsum("ij,ij->i", reference, reference)
    query_norm = np.einsum("ij,ij->i", query, query)
    unit = np.finfo(np.float64).eps
    error_scale = 4.0 * (query.shape[1] + 4) * unit
    max_half_ref = float(half_ref_norm.max())
    rows_per_chunk = max(1, min(n, chunk_elements // max(m, 1)))
    starts = list(range(0, n, rows_per_chunk))
    workers = workers or min(4, os.cpu_count() or 1)
    done = [0]

    def run(start: int):
        stop = min(n, start + rows_per_chunk)
        result = _chunk_within(
            query, reference, half_ref_norm, query_norm, radius, start, stop, error_scale, max_half_ref,
            chunk_elements,
        )
        done[0] += stop - start
        if progress is not None:
            progress(done[0] / n, f"neighbours within radius {label}".strip())
        return result

    with threadpool_limits(limits=1, user_api="blas"):
        if workers > 1 and len(starts) > 1:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                results = list(pool.map(run, starts))
        else:
            results = [run(s) for s in starts]
    rows = np.concatenate([r[0] for r in results])
    indices = np.concatenate([r[1] for r in results])
    distance = np.concatenate([r[2] for r in results])
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return WithinPairs(indptr, indices, distance)


def _chunk_within(
    query, reference, half_ref_norm, query_norm, radius, start, stop, error_scale, max_half_ref, chunk_elements
):
    """Pairs (global query row, reference row, exact distance) within the radius, for query rows [start, stop)."""
    r = radius[start:stop]
    finite = np.where(np.isfinite(r), r, 0.0)
    # Squared distance = |q|² + 2·score with score = |r|²/2 − q·r: a candidate has score ≤ threshold.
    threshold = 0.5 * (np.where(r >= 0, finite * finite, -np.inf) - query_norm[start:stop])
    tolerance = 2.0 * error_scale * (query_norm[start:stop] + max_half_ref * 2.0 + finite * finite + 1e-300)
    threshold = np.where(np.isposinf(r), np.inf, threshold + tolerance)
    block = query[start:stop] @ reference.T
    np.subtract(half_ref_norm, block, out=block)
    cand_rows, cand_cols = np.nonzero(block <= threshold[:, None])
    del block
    exact = _exact_distances(query, reference, start + cand_rows, cand_cols, chunk_elements)
    keep = exact <= r[cand_rows]
    return start + cand_rows[keep], cand_cols[keep], exact[keep]
