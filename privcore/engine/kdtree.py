"""The k-d tree path of the engine, for few columns (e.g. the FAMD projection Φk); it runs on the CPU.

A tree proposes each query row's candidates, which are refined exactly as in the matrix path, so both paths return
identical results.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from privcore.base import resolve_workers
from privcore.engine.candidates import exact_distances, select_k, select_two
from privcore.engine.results import Neighbours, PairExtremes

#: Up to this many columns a k-d tree finds candidates faster than matrix products (e.g. Φk, k ≤ 5).
TREE_MAX_DIM = 8
TREE_MIN_ROWS = 256


def uses_tree(dims: int, reference_rows: int) -> bool:
    """The engine's ``method="auto"`` choice: a k-d tree for few columns and many reference rows.

    A k-d tree for at most ``TREE_MAX_DIM`` columns and more than ``TREE_MIN_ROWS`` reference rows (without columns
    every distance is 0: the matrix path handles that, a k-d tree cannot).

    Parameters
    ----------
    dims : int
        Columns of the tables.
    reference_rows : int
        Rows of the reference table.

    Returns
    -------
    bool
    """
    return 0 < dims <= TREE_MAX_DIM and reference_rows > TREE_MIN_ROWS


def tree_top_two(query, reference, exclude_self, with_extremes, chunk_elements, workers, progress, label):
    """``nearest_two`` for few columns: a k-d tree proposes candidates, which are then refined exactly.

    The tree's k-th distance (k = 2, or 3 when the query row itself is in the reference) bounds the true
    second-nearest distance; every reference row within that radius (widened by 1e-9 relative, far more
    than the tree's rounding) is a candidate, so exact ties and the lowest-index rule come out exactly as
    in the matrix path (see :func:`_tree_refined`).

    Parameters
    ----------
    query, reference, exclude_self, with_extremes, chunk_elements, workers, progress, label
        As in :func:`privcore.engine.neighbors.nearest_two`.

    Returns
    -------
    Neighbours, PairExtremes or None
    """
    distance, index = _tree_refined(
        query, reference, 3 if exclude_self else 2, exclude_self, select_two, 2, chunk_elements, workers,
        progress, f"nearest neighbours {label}".strip(),
    )
    extremes = None
    if with_extremes:
        d_min = float(distance[:, 0].min())
        d_max = _farthest_pair_distance(query, reference, chunk_elements, workers)
        extremes = PairExtremes(d_min=d_min, d_max=max(d_max, d_min))
    return Neighbours(distance, index), extremes


def _tree_refined(query, reference, wanted, exclude_self, select, width, chunk_elements, workers, progress,
                  message):
    """Exact nearest rows by k-d tree candidates.

    ``select(cand_rows, cand_cols, exact, n_rows)`` (``width`` columns of distances and indices) on every reference row
    within ``radius = d_wanted · (1 + 1e-9)`` of each query row, ``d_wanted`` being the tree's ``wanted``-th nearest
    distance.

    The tree is asked for one neighbour more than ``wanted``: where that extra one already lies beyond the
    radius, the ``wanted`` rows it found are all the rows within it (as a radius search would return), so
    only the other query rows (ties at the radius, duplicates) need a radius search. In continuous spaces
    that is almost none, which saves two radius searches and one Python list per query row (30,000 Adult
    rows in Φ5, real→synthetic with extremes, real→real and 5 nearest: 2.2× less CPU time, identical
    results; bench/bench_scale.py, part ``lowdim``). Radius searches run in batches whose candidate lists
    together stay within the memory bound.
    """
    # Only the tree path needs scipy.spatial: imported here so that the matrix passes never load it.
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
        exact = exact_distances(query, reference, rows[cand_rows], cand_cols, chunk_elements)
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


def _farthest_pair_distance(query, reference, chunk_elements, workers=1) -> float:
    """Largest distance over all query × reference pairs, exactly.

    The farthest pair joins a vertex of each set's convex hull, so only hull vertices are compared (with
    exact differences). Flat or tiny sets, where the hull is undefined, fall back to all points. With two
    or more workers the two hulls are built side by side (Qhull releases the GIL: 10,000 Adult rows in Φ5,
    0.10 -> 0.06 s).
    """
    if resolve_workers(workers) >= 2:
        with ThreadPoolExecutor(max_workers=2) as pool:
            a, b = pool.map(_extreme_points, (query, reference))
    else:
        a, b = _extreme_points(query), _extreme_points(reference)
    best = 0.0
    rows = max(1, chunk_elements // max(len(b) * max(a.shape[1], 1), 1))
    for s in range(0, len(a), rows):
        diff = a[s : s + rows, None, :] - b[None, :, :]
        best = max(best, float(np.sqrt(np.einsum("ijk,ijk->ij", diff, diff).max())))
    return best


def _extreme_points(points):
    """The vertices of the convex hull of ``points``, or all distinct points where Qhull cannot build it."""
    if len(points) > 4 * (points.shape[1] + 1):
        try:
            from scipy.spatial import ConvexHull  # only the tree path with extremes needs Qhull

            return points[ConvexHull(points).vertices]
        except Exception:  # degenerate (flat) point sets: Qhull cannot build a full-dimensional hull
            pass
    return np.unique(points, axis=0)


def tree_top_k(query, reference, k, chunk_elements, workers, progress, label) -> Neighbours:
    """:func:`nearest_k` in few columns: a k-d tree's k-th distance bounds the candidates, refined exactly.

    The refinement is :func:`_tree_refined`, so ties and the lowest-index rule come out as in the matrix path.

    Parameters
    ----------
    query, reference, k, chunk_elements, workers, progress, label
        As in :func:`privcore.engine.neighbors.nearest_k`.

    Returns
    -------
    Neighbours
    """
    distance, index = _tree_refined(
        query, reference, k, False, lambda rows, cols, exact, n_rows: select_k(rows, cols, exact, n_rows, k), k,
        chunk_elements, workers, progress, f"{k} nearest neighbours {label}".strip(),
    )
    return Neighbours(distance, index)
