"""Top-two candidates of a chunk from its score block computed tile by tile (the CPU's float32 and float64 passes)."""

from __future__ import annotations

import numpy as np

from privcore.engine.candidates import FAR_CANDIDATES

#: Query rows of a tiled chunk.
TILE_ROWS = 1024
#: ... of a tiled chunk that also keeps the columns' nearest two (privcore.engine.neighbors_both_ways): more rows
#: per chunk there also mean looser column bounds between chunks and more column candidates (10,000 Adult rows
#: both ways: 104,528 column candidates in chunks of 419 rows untiled, 149,204 in tiled chunks of 1,024, 124,445
#: of 512).
SWEEP_TILE_ROWS = 512
#: Reference columns of a tile (a multiple of the CPU's column group): 1,024 × 2,048 float32 scores are 8 MiB.
TILE_COLUMNS = 2048


def applies(operands, reference_rows: int, with_extremes: bool) -> bool:
    """Whether a pass's chunks find their top-two candidates tile by tile.

    On the CPU (numpy), with column groups, at least two full groups and more reference rows than one tile (with or
    without the farthest pair, see :class:`RunningFarthest`).

    Parameters
    ----------
    operands : privcore.engine.operands.Operands
        The pass's operands.
    reference_rows : int
        Rows of the reference table.
    with_extremes : bool
        Whether the pass also finds the farthest pair.

    Returns
    -------
    bool
    """
    group = operands.group
    return (operands.xp is np and group >= 2 and reference_rows // group >= 2
            and reference_rows > TILE_COLUMNS and TILE_COLUMNS % group == 0)


def tile_rows(query_rows: int, chunk_elements: int, wanted: int | None = None) -> int:
    """Query rows of a tiled chunk: ``wanted`` (default :data:`TILE_ROWS`), fewer where one tile would exceed the limit.

    The limit is ``chunk_elements``.

    Parameters
    ----------
    query_rows : int
        Rows of the query table.
    chunk_elements : int
        Scores a chunk may hold at once.
    wanted : int, optional
        Rows wanted per chunk.

    Returns
    -------
    int
    """
    wanted = TILE_ROWS if wanted is None else wanted
    return max(1, min(query_rows, wanted, chunk_elements // TILE_COLUMNS))


def tile_scores(operands, start: int, stop: int, first: int, last: int) -> np.ndarray:
    """The scores of :meth:`privcore.engine.operands.Operands.scores`, transposed.

    For query rows [start, stop) against reference rows [first, last): shape (last − first, stop − start).

    Parameters
    ----------
    operands : privcore.engine.operands.Operands
        The pass's CPU operands.
    start, stop, first, last : int
        The query and reference rows.

    Returns
    -------
    numpy.ndarray

    Notes
    -----
    A tile is held transposed, one reference row per row (:func:`tile_scores`): the reductions that follow each
    product (the minimum of every group of reference rows, each query row's largest score, each reference row's
    smallest) then run along long contiguous rows, about three times faster than the minima of short runs within
    a row (measured: 0.2 against 0.6 ns per score; the product itself takes about 2.6).
    """
    if operands.split is not None:
        block = operands.split.scores_t(first, last, start, stop)
    else:
        block = operands.reference[first:last] @ operands.query[start:stop].T
    if operands.half_ref_norm is not None:
        np.subtract(operands.half_ref_norm[first:last, None], block, out=block)
    return block


def group_minima_t(block_t: np.ndarray, group: int) -> np.ndarray:
    """Minimum over each run of ``group`` rows of a transposed tile, per column: shape (⌈rows / group⌉, columns).

    The last run may be shorter.

    Parameters
    ----------
    block_t : numpy.ndarray
        A transposed tile (:func:`tile_scores`).
    group : int
        Rows per run.

    Returns
    -------
    numpy.ndarray
    """
    width, k = block_t.shape
    full = (width // group) * group
    minima = block_t[:full].reshape(full // group, group, k).min(axis=1)
    if full < width:
        minima = np.concatenate([minima, block_t[full:].min(axis=0)[None, :]], axis=0)
    return minima


class RunningRowCandidates:
    """Each chunk row's top-two candidates, from score tiles added one at a time (see :func:`top_two_candidates_tiled`).

    Parameters
    ----------
    operands : privcore.engine.operands.Operands
        The pass's CPU operands, with column groups.
    start, stop : int
        The chunk's query rows.
    max_half_ref : float
        Largest ``|r|²/2``.
    """

    def __init__(self, operands, start: int, stop: int, max_half_ref: float):
        self.group = operands.group
        self.rows = np.arange(stop - start)
        self.tolerance = 2.0 * operands.error_scale * (operands.query_norm[start:stop] + max_half_ref * 2.0 + 1e-300)
        # The two smallest group minima so far, per row (inf until seen).
        self.best = np.full(stop - start, np.inf)
        self.second = np.full(stop - start, np.inf)
        self._rows, self._cols, self._scores = [], [], []

    def add(self, block_t, first: int) -> None:
        """Take a transposed tile ``block_t`` (:func:`tile_scores`) of reference rows ``first, first + 1, …``.

        It is against the chunk's rows (a row's excluded entries ``inf``); ``block_t`` is read, not changed.
        """
        rows, group = self.rows, self.group
        width = block_t.shape[0]
        minima = group_minima_t(block_t, group)
        tile_best_group = np.argmin(minima, axis=0)
        tile_best = minima[tile_best_group, rows]
        minima[tile_best_group, rows] = np.inf
        tile_second = minima.min(axis=0) if minima.shape[0] > 1 else np.full(len(rows), np.inf)
        minima[tile_best_group, rows] = tile_best
        # The two smallest of {best, second, tile_best, tile_second}.
        self.second = np.minimum(np.maximum(self.best, tile_best), np.minimum(self.second, tile_second))
        self.best = np.minimum(self.best, tile_best)
        threshold = self.second + self.tolerance
        groups, group_rows = np.nonzero(minima <= threshold[None, :])  # ordered by group
        if not len(group_rows):
            return
        # Group by group: the group's rows of the tile are contiguous, and each of them is read once for all
        # the chunk rows that hit the group (reading a column segment per hit would touch a line per score).
        ends = np.flatnonzero(np.r_[groups[1:] != groups[:-1], True]) + 1
        begin = 0
        for end in ends:
            hit_rows = group_rows[begin:end]
            top = int(groups[begin]) * group
            sub = block_t[top : min(width, top + group), hit_rows]
            i, j = np.nonzero(sub <= threshold[hit_rows][None, :])
            self._rows.append(hit_rows[j])
            self._cols.append(first + top + i)
            self._scores.append(sub[i, j])
            begin = end

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """(chunk row, reference row), int64, of every kept score within tolerance of its row's final second-best.

        The tolerance is taken from its row's final second-best group minimum.
        """
        if not self._rows:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        rows, cols, scores = (np.concatenate(a) for a in (self._rows, self._cols, self._scores))
        final = scores <= (self.second + self.tolerance)[rows]
        return rows[final].astype(np.int64, copy=False), cols[final].astype(np.int64, copy=False)


class RunningFarthest:
    """The pairs of a chunk that may be its farthest, from score tiles added one at a time.

    As :func:`privcore.engine.candidates.far_candidates` finds them in a whole block.

    Each row's largest score is kept while the tiles pass; at the end the rows whose largest approximate
    squared distance lies within the tolerance of the chunk's largest are read again (usually one or a few
    rows, a small product) and their pairs within the tolerance are the candidates. Their scores come from
    another product and may round differently within the same bound; the tolerance covers twice that bound,
    so the exactly farthest pair is among them, and refining them gives the same largest distance.

    Parameters
    ----------
    operands : privcore.engine.operands.Operands
        The pass's CPU operands.
    start, stop : int
        The chunk's query rows.
    max_half_ref : float
        Largest ``|r|²/2``.
    """

    def __init__(self, operands, start: int, stop: int, max_half_ref: float):
        self.operands, self.start, self.stop, self.max_half_ref = operands, start, stop, max_half_ref
        self.row_max = np.full(stop - start, -np.inf)

    def add(self, block_t) -> None:
        """Take a transposed tile of the chunk's scores (before any entry is excluded)."""
        np.maximum(self.row_max, block_t.max(axis=0), out=self.row_max)

    def candidates(self) -> tuple[np.ndarray, np.ndarray]:
        """(chunk row, reference row) of the pairs to refine.

        All pairs within the tolerance of the largest, or, beyond :data:`FAR_CANDIDATES` of them, the approximately
        farthest pair alone.
        """
        operands = self.operands
        query_norm = operands.query_norm[self.start : self.stop]
        far_sq = query_norm + 2.0 * self.row_max
        best = int(np.argmax(far_sq))
        tolerance = 4.0 * operands.error_scale * (float(query_norm.max()) + 2.0 * self.max_half_ref) + 1e-300
        limit = float(far_sq[best]) - tolerance
        near = np.flatnonzero(far_sq >= limit)
        m = len(operands.reference)
        hit_rows, hit_cols, found = [], [], 0
        best_column, best_score = 0, -np.inf
        for first in range(0, m, TILE_COLUMNS):
            block = query_norm[near][:, None] + 2.0 * operands.scores_of_rows(self.start + near, first,
                                                                              min(m, first + TILE_COLUMNS))
            rows, cols = np.nonzero(block >= limit)
            found += len(rows)
            if found <= FAR_CANDIDATES:
                hit_rows.append(near[rows])
                hit_cols.append(first + cols)
            at_best = block[int(np.flatnonzero(near == best)[0])]
            column = int(np.argmax(at_best))
            if at_best[column] > best_score:
                best_column, best_score = first + column, float(at_best[column])
        if 0 < found <= FAR_CANDIDATES:
            return np.concatenate(hit_rows), np.concatenate(hit_cols)
        return np.array([best]), np.array([best_column])


def own_entries_excluded(block_t, own, first: int) -> None:
    """Set to ``inf`` the entries of the transposed tile ``block_t`` that pair a query row with its own reference row.

    ``block_t`` holds reference rows ``first, …`` against a chunk of query rows.

    Parameters
    ----------
    block_t : numpy.ndarray
        A transposed tile (:func:`tile_scores`), changed in place.
    own : numpy.ndarray
        The reference position of each of the chunk's query rows (the query and the reference are one table).
    first : int
        The tile's first reference row.
    """
    rows = np.flatnonzero((own >= first) & (own < first + block_t.shape[0]))
    block_t[own[rows] - first, rows] = np.inf


def top_two_candidates_tiled(operands, start: int, stop: int, own, max_half_ref: float,
                             farthest: RunningFarthest | None = None):
    """(chunk row, reference row) of every score within the rounding tolerance of its row's second-best group minimum.

    For query rows [start, stop), reading the scores one tile at a time (and, with ``farthest``, giving it every tile).

    Parameters
    ----------
    operands : privcore.engine.operands.Operands
        The pass's CPU operands (float32 or float64), with column groups.
    start, stop : int
        The chunk's query rows.
    own : numpy.ndarray or None
        Where the query is the reference: the reference position of each of the chunk's rows, which is not
        its own candidate.
    max_half_ref : float
        Largest ``|r|²/2``.
    farthest : RunningFarthest, optional
        Also fed every tile (prior to the row itself being excluded).

    Returns
    -------
    rows, cols : numpy.ndarray
        Chunk rows and reference rows of the candidates, int64.

    Notes
    -----
    A chunk of a matrix pass holds at most ``chunk_elements`` scores, so against a large reference it has few rows:
    41 query rows against 100,000 reference rows. A matrix product with so few rows runs at about 40 % of the
    machine's speed (measured on 2 cores: 35 GFLOP/s for 83 × 50,000 against 88 for 1,024 × 1,024 tiles), because
    the library packs the whole reference for every product and uses it for a few rows only. Here a chunk has
    :data:`TILE_ROWS` rows and the reference is taken :data:`TILE_COLUMNS` columns at a time; no tile outlives its
    own step, so memory stays within the same bound.

    The candidates are those of :func:`privcore.engine.candidates.top_two_candidates`, found in one sweep:
    the threshold of a row (the second-smallest minimum over its groups of ``group`` columns, plus the rounding
    tolerance) can only fall as tiles are added, so every score at or under the row's final threshold was at or
    under its running threshold when its tile was read. Each tile keeps its scores under the running threshold
    (few: the running threshold soon nears the final one) and the final threshold filters them. The scores come
    from other products than the whole-row block's and may round differently within the same error bound; the
    candidates still include every pair that can be among the two nearest, and since the exact refinement and the
    choice by (exact distance, index) decide, the neighbours and distances are identical.
    """
    candidates = RunningRowCandidates(operands, start, stop, max_half_ref)
    m = len(operands.reference)
    for first in range(0, m, TILE_COLUMNS):
        block_t = tile_scores(operands, start, stop, first, min(m, first + TILE_COLUMNS))
        if farthest is not None:
            farthest.add(block_t)
        if own is not None:
            own_entries_excluded(block_t, own, first)
        candidates.add(block_t, first)
    return candidates.result()
