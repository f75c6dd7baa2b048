"""A subset's neighbour passes read from its whole table's: the size-matched comparisons' repeats without new passes.

Exact: the same rows, distances and tie order as a pass of their own (:meth:`privcore.engine.context.
SharedComputation.neighbours` falls back to one where a row's answer is not settled by the whole table's).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privcore.engine.farthest import farthest_each
from privcore.engine.neighbors import nearest_k, nearest_two
from privcore.engine.results import Neighbours, PairExtremes

#: The role of the synthetic table and the holdout together, and its parts in order.
POOL = "pool"
POOL_PARTS = ("synthetic", "holdout")
#: Subsets smaller than this share of their table take passes of their own: ten repeats of a subset of a tenth cost
#: one pass over the table, and the candidates a row needs to hold two of the subset's rows grow as 1 / share.
MIN_SHARE = 0.25
#: Candidates per row: enough that two of them fall in a subset of share ``s`` for all but about one row in a
#: few hundred (``ceil(CANDIDATES_PER_SHARE / s)``: 12 at a half, 24 at a quarter), the rest recomputed.
CANDIDATES_PER_SHARE = 6
MAX_CANDIDATES = 48


def candidates_for(share: float) -> int:
    """Candidates per row to read a subset of ``share`` of its table from (see :data:`CANDIDATES_PER_SHARE`).

    Examples
    --------
    >>> candidates_for(0.5), candidates_for(0.25), candidates_for(1.0)
    (12, 24, 6)
    """
    return min(MAX_CANDIDATES, max(2, math.ceil(CANDIDATES_PER_SHARE / share)))


def rows_of(whole: Neighbours, rows: np.ndarray) -> Neighbours:
    """The answers of a subset of the query rows: a row's nearest reference rows do not depend on the other queries.

    Examples
    --------
    >>> whole = Neighbours(np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]), np.array([[0, 1], [1, 0], [2, 1]]))
    >>> rows_of(whole, np.array([0, 2])).index.tolist()
    [[0, 1], [2, 1]]
    """
    return Neighbours(np.ascontiguousarray(whole.distance[rows]), np.ascontiguousarray(whole.index[rows]))


def nearest_two_in_subset(candidates: Neighbours, subset: np.ndarray, table_rows: int,
                          own: np.ndarray | None = None) -> tuple[Neighbours, np.ndarray]:
    """Each query row's nearest two rows of a subset of a table, from its ``k`` nearest rows of the whole table.

    Parameters
    ----------
    candidates : Neighbours
        Shape (n, k): each query row's ``k`` nearest rows of the whole table, by (exact distance, index) as
        :func:`privcore.engine.neighbors.nearest_k` orders them; −1 past the table's end.
    subset : numpy.ndarray
        Sorted positions of the subset's rows in the table (so a lower position in the table is a lower one in the
        subset, and the lowest-index rule among ties carries over).
    table_rows : int
        Rows of the whole table.
    own : numpy.ndarray, optional
        Where the query is the table itself: each query row's own position, never its own neighbour.

    Returns
    -------
    Neighbours
        Shape (n, 2), indices as positions in the subset.
    unsettled : numpy.ndarray
        Query rows whose answer the candidates do not settle (fewer than two of them in the subset while the
        whole table has rows beyond them): their rows of the result are to be computed by a pass of their own.

    Notes
    -----
    Every row of the table outside a query row's ``k`` candidates comes after all of them in (distance, index)
    order, so the first two candidates in the subset are the subset's first two; where the candidates hold the
    whole table (``−1`` entries), whatever they hold of the subset is all of it.

    Examples
    --------
    >>> near = Neighbours(np.array([[0.0, 1.0, 2.0]]), np.array([[4, 1, 3]]))
    >>> found, unsettled = nearest_two_in_subset(near, np.array([1, 3]), 5)
    >>> found.distance.tolist(), found.index.tolist(), unsettled.tolist()
    ([[1.0, 2.0]], [[0, 1]], [])
    """
    position = np.full(table_rows + 1, -1, dtype=np.int64)  # the last entry answers index −1
    position[subset] = np.arange(len(subset))
    index = candidates.index
    placed = position[index]
    if own is not None:
        placed[index == own[:, None]] = -1
    inside = placed >= 0
    count = np.cumsum(inside, axis=1)
    n, k = index.shape
    distance = np.full((n, 2), np.inf)
    found = np.full((n, 2), -1, dtype=np.int64)
    rows = np.arange(n)
    for rank in (1, 2):
        hit = inside & (count == rank)
        has = hit.any(axis=1)
        column = np.argmax(hit, axis=1)
        distance[has, rank - 1] = candidates.distance[rows[has], column[has]]
        found[has, rank - 1] = placed[rows[has], column[has]]
    whole_table = (index < 0).any(axis=1) | (k >= table_rows)
    unsettled = np.flatnonzero((count[:, -1] < 2) & ~whole_table) if k else np.arange(n)
    return Neighbours(distance, found), unsettled


class SubsetPasses:
    """The candidates and farthest distances one evaluation's subsets are read from, and the reading.

    ``shared`` is the :class:`privcore.engine.context.SharedComputation` whose subsamples these are (its
    ``subsamples``, ``encoded``, ``neighbours``, ``known_pass`` and engine settings are read). Kept out of a pickled
    evaluation: everything here is recomputed from the encoded tables.
    """

    def __init__(self) -> None:
        #: (space, query role, table role) → each query row's k nearest rows of the table.
        self.candidates: dict[tuple[str, str, str], Neighbours] = {}
        #: (space, table role, other role) → each row of the table's largest distance to the other table.
        self.farthest: dict[tuple[str, str, str], np.ndarray] = {}

    def derive(self, shared: Any, space: str, query: str, reference: str) -> Neighbours | None:
        """The pass ``query → reference`` read from whole tables' passes, or None where it takes a pass of its own.

        A subsample as the query reads its table's pass (where that is known or the subset is large); a subsample as
        the reference, and a subsample against itself, read each query row's :func:`candidates_for` nearest rows of
        the whole table, the rows those do not settle recomputed.
        """
        query_of, reference_of = shared.subsample_of(query), shared.subsample_of(reference)
        if query == POOL and reference_of is None and reference not in (POOL, *POOL_PARTS):
            parts = [shared.neighbours(space, part, reference) for part in POOL_PARTS]
            return Neighbours(np.vstack([p.distance for p in parts]), np.vstack([p.index for p in parts]))
        if query_of is not None and reference_of is None:
            base, rows = query_of
            share = len(rows) / len(shared.table(base))
            if base == reference or not (shared.known_pass(space, base, reference) or share >= MIN_SHARE):
                return None
            return rows_of(shared.neighbours(space, base, reference), rows)
        if reference_of is None or (query_of is not None and query != reference):
            return None
        base, rows = reference_of
        share = len(rows) / len(shared.table(base))
        if share < MIN_SHARE:
            return None
        own = query == reference  # a subsample against itself: its rows' neighbours among the others of the subset
        if own:
            near = self._candidates(shared, space, base, base, candidates_for(share) + 1)
            near = Neighbours(near.distance[rows], near.index[rows])
        else:
            near = self._candidates(shared, space, query, base, candidates_for(share))
        found, unsettled = nearest_two_in_subset(near, rows, len(shared.table(base)), own=rows if own else None)
        if len(unsettled):
            table = shared.encoded(space, reference)
            engine = dict(chunk_elements=shared.chunk_elements, workers=shared.workers, device=shared.device)
            if own:
                redone, _ = nearest_two_in_subset(nearest_k(table[unsettled], table, 3, **engine),
                                                  np.arange(len(table)), len(table), own=unsettled)
            else:
                redone, _ = nearest_two(shared.encoded(space, query)[unsettled], table, **engine)
            found.distance[unsettled], found.index[unsettled] = redone.distance, redone.index
        return found

    def extremes(self, shared: Any, space: str, a: str, b: str) -> PairExtremes | None:
        """d_min and d_max of a subsample and a whole table, from the pass and each row's farthest; else None.

        The smallest distance over the pairs is the smallest nearest-neighbour distance of the pass; the largest is
        the largest, over the subsample's rows, of their farthest distance to the other table (computed once for all
        rows of the subsample's table). The pool's with a whole table are its parts'.
        """
        for pool, other in ((a, b), (b, a)):
            if pool == POOL and shared.subsample_of(other) is None and other not in (POOL, *POOL_PARTS):
                parts = [shared.extremes(space, part, other) for part in POOL_PARTS]
                return PairExtremes(d_min=min(p.d_min for p in parts), d_max=max(p.d_max for p in parts))
        for subsample, other in ((a, b), (b, a)):
            drawn = shared.subsample_of(subsample)
            if drawn is None or shared.subsample_of(other) is not None or drawn[0] == other:
                continue
            base, rows = drawn
            if len(rows) / len(shared.table(base)) < MIN_SHARE:
                return None
            # The smallest distance over the pairs from whichever direction is known (the one asked for first).
            known = (a, b) if shared.known_pass(space, a, b) or not shared.known_pass(space, b, a) else (b, a)
            nearest = shared.neighbours(space, *known)
            farthest = self._farthest(shared, space, base, other)
            if not len(rows) or not len(nearest.distance):
                return PairExtremes(np.nan, np.nan)
            d_min = float(nearest.d1.min())
            return PairExtremes(d_min=d_min, d_max=max(float(farthest[rows].max()), d_min))
        return None

    def _farthest(self, shared: Any, space: str, table: str, other: str) -> np.ndarray:
        """Each ``table`` row's largest distance to ``other`` (the pool's from its parts: no stacked copy)."""
        key = (space, table, other)
        if key not in self.farthest:
            if table == POOL:
                self.farthest[key] = np.concatenate([self._farthest(shared, space, part, other) for part in POOL_PARTS])
            else:
                self.farthest[key] = shared.reused(("farthest", *key))
                if self.farthest[key] is None:
                    self.farthest[key] = farthest_each(shared.encoded(space, table), shared.encoded(space, other),
                                                       chunk_elements=shared.chunk_elements, workers=shared.workers,
                                                       device=shared.device)
                    shared.passes.append((space, table, f"{other} (farthest)"))
                    if not {table, other} & {POOL, *POOL_PARTS[:1]}:
                        shared.keep_for_reuse(("farthest", *key), self.farthest[key])
        return self.farthest[key]

    def _candidates(self, shared: Any, space: str, query: str, table: str, k: int) -> Neighbours:
        """Each ``query`` row's ``k`` (or more, where computed before) nearest rows of ``table``.

        The pool's are merged from its parts' (its rows numbered synthetic first), so that no stacked copy of the
        synthetic table and the holdout is encoded: on a code of thousands of values each is as large as a table.
        """
        key = (space, query, table)
        known = self.candidates.get(key)
        if known is None or known.index.shape[1] < k:
            known = shared.reused(("candidates", *key))  # passes without the synthetic table: kept between evaluations
        if known is not None and known.index.shape[1] >= k:
            self.candidates[key] = known
            return known
        if POOL in (query, table):
            offsets = np.cumsum([0] + [len(shared.table(part)) for part in POOL_PARTS])[:-1]
            per_query = []
            for part_query in (POOL_PARTS if query == POOL else (query,)):
                if table == POOL:
                    per_query.append(merged_nearest([self._candidates(shared, space, part_query, part, k)
                                                     for part in POOL_PARTS], offsets, k))
                else:
                    per_query.append(self._candidates(shared, space, part_query, table, k))
            known = Neighbours(np.vstack([n.distance for n in per_query]), np.vstack([n.index for n in per_query]))
        else:
            known = nearest_k(shared.encoded(space, query), shared.encoded(space, table), k,
                              chunk_elements=shared.chunk_elements, workers=shared.workers, device=shared.device,
                              label=f"{query}→{table} in {space}")
            shared.passes.append((space, query, f"{table} ({k} nearest)"))
            if not {query, table} & {POOL, *POOL_PARTS[:1]}:
                shared.keep_for_reuse(("candidates", *key), known)
        self.candidates[key] = known
        return known


def merged_nearest(parts: list[Neighbours], offsets, k: int) -> Neighbours:
    """The ``k`` nearest rows of tables stacked one after the other, from each table's ``k`` nearest.

    Rows are numbered through the stack (table ``t``'s row ``i`` is ``offsets[t] + i``); ties keep the lowest number
    first, as a pass over the stacked table would. The ``k`` nearest of the stack are among the tables' ``k`` nearest.

    Examples
    --------
    >>> a = Neighbours(np.array([[1.0, 3.0]]), np.array([[0, 1]]))
    >>> b = Neighbours(np.array([[1.0, np.inf]]), np.array([[0, -1]]))
    >>> merged = merged_nearest([a, b], [0, 2], 3)
    >>> merged.distance.tolist(), merged.index.tolist()
    ([[1.0, 1.0, 3.0]], [[0, 2, 1]])
    """
    distance = np.hstack([p.distance for p in parts])
    index = np.hstack([np.where(p.index >= 0, p.index + offset, -1) for p, offset in zip(parts, offsets)])
    n, width = distance.shape
    rows = np.repeat(np.arange(n), width)
    order = np.lexsort((np.where(index < 0, np.iinfo(np.int64).max, index).ravel(), distance.ravel(), rows))
    order = order.reshape(n, width)[:, :k] - (np.arange(n) * width)[:, None]
    return Neighbours(np.take_along_axis(distance, order, axis=1), np.take_along_axis(index, order, axis=1))
