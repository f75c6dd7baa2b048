"""Each query row's exact largest distance to a reference table: the pair extremes of any subset of its rows."""

from __future__ import annotations

import numpy as np

from privcore.engine import gpu
from privcore.engine.candidates import exact_distances
from privcore.engine.chunks import DEFAULT_CHUNK_ELEMENTS, run_chunks
from privcore.engine.operands import matrix_setup

#: Candidates per chunk row past which a float32 chunk is recomputed from the float64 operands (ties of the farthest
#: distance in all-categorical tables are exact and few per row; float32 rounding can make many rows look tied).
FAR_PER_ROW = 64


def farthest_each(query: np.ndarray, reference: np.ndarray, *, chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
                  workers: int | None = None, device: str | None = None) -> np.ndarray:
    """Exact ``max_r sqrt(Σ (q − r)²)`` for every query row ``q``.

    Parameters
    ----------
    query, reference : numpy.ndarray
        Float64 tables with the same columns.
    chunk_elements, workers, device
        As in :func:`privcore.engine.neighbors.nearest_two`.

    Returns
    -------
    numpy.ndarray
        One distance per query row (``nan`` for an empty reference).

    Notes
    -----
    The largest distance between a table ``A`` and any subset ``S`` of ``Q``'s rows is the largest of these over
    ``S``, so the size-matched comparisons read d_max of every subset from one pass. The candidates of a row are the
    reference rows whose approximate squared distance is within the rounding bound of the row's approximate largest
    (as :func:`privcore.engine.candidates.far_candidates` bounds it for the whole block), refined exactly: the same
    value as the exact maximum over all pairs.

    Examples
    --------
    >>> farthest_each(np.array([[0.0], [2.0]]), np.array([[1.0], [5.0], [-1.0]])).tolist()
    [5.0, 3.0]
    """
    query = np.ascontiguousarray(query, dtype=np.float64)
    reference = np.ascontiguousarray(reference, dtype=np.float64)
    n, m = len(query), len(reference)
    out = np.full(n, np.nan)
    if n == 0 or m == 0:
        return out
    setup = matrix_setup(query, reference, device, chunk_elements, workers)

    def candidates(operands, start, stop):
        xp = operands.xp
        block = operands.scores(start, stop)
        query_norm = operands.query_norm[start:stop]
        far_sq = query_norm + 2.0 * block.max(axis=1)
        tolerance = 4.0 * operands.error_scale * (query_norm + 2.0 * setup.max_half_ref) + 1e-300
        rows, cols = xp.nonzero(query_norm[:, None] + 2.0 * block >= (far_sq - tolerance)[:, None])
        return gpu.to_host(rows), gpu.to_host(cols)

    def run(start: int):
        stop = min(n, start + setup.rows_per_chunk)
        rows, cols = candidates(setup.operands, start, stop)
        if setup.operands.fallback is not None and len(rows) > FAR_PER_ROW * (stop - start):
            rows, cols = candidates(setup.operands.fallback, start, stop)
        exact = exact_distances(query, reference, start + rows, cols, chunk_elements)
        largest = np.full(stop - start, -np.inf)
        np.maximum.at(largest, rows, exact)
        return start, stop, largest

    for start, stop, largest in run_chunks(run, setup.starts, setup.workers, None, n, lambda r: r[1] - r[0],
                                           "farthest rows"):
        out[start:stop] = largest
    return out
