"""Passes that find every reference row within a radius of each query row.

:func:`all_within` lists the pairs, :func:`count_within` only counts them (by label), from the same chunked score blocks
and exact refinement as :func:`privcore.engine.neighbors.nearest_two`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privcore.base import ProgressCallback
from privcore.engine import gpu
from privcore.engine.candidates import exact_distances
from privcore.engine.chunks import DEFAULT_CHUNK_ELEMENTS, run_chunks
from privcore.engine.operands import matrix_setup


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

    setup = matrix_setup(query, reference, device, chunk_elements, workers)

    def run(start: int):
        stop = min(n, start + setup.rows_per_chunk)
        return stop - start, _chunk_within(
            query, reference, setup.operands, setup.query_norm, radius, start, stop, setup.max_half_ref,
            chunk_elements,
        )

    results = [r for _, r in run_chunks(run, setup.starts, setup.workers, progress, n, lambda r: r[0],
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
    ``operands.xp``; the candidates are refined exactly on the host.
    """
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
    exact = exact_distances(query, reference, start + cand_rows, cand_cols, chunk_elements)
    keep = exact <= r[cand_rows]
    return start + cand_rows[keep], cand_cols[keep], exact[keep]


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
    setup = matrix_setup(query, reference, device, chunk_elements, workers)

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

    for start, stop, local in run_chunks(run, setup.starts, setup.workers, progress, n, lambda r: r[1] - r[0],
                                         f"counting neighbours {label}".strip()):
        counts[start:stop] = local
    return counts
