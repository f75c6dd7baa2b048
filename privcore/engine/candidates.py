"""Candidate selection and exact refinement, the two steps that keep every chunked pass exact.

The selection functions take the array module ``xp`` (numpy, or CuPy on a GPU); the refinement and the final
choice run on the host.
"""

from __future__ import annotations

import numpy as np

from privcore.engine import gpu, sparse_split

#: Near-farthest pairs a chunk refines exactly for d_max; beyond that many (maxima tied across thousands of
#: pairs, as in all-categorical tables, where their exact distances are equal) only the approximately
#: farthest pair is refined, which keeps the extremes' cost at one row's worth per chunk.
FAR_CANDIDATES = 4096


def row_candidates(block, rows, others, query_norm, operands, max_half_ref):
    """(chunk row, block column) of every score that may be among its row's two nearest.

    ``others`` are the columns a row may have as neighbours (the block's, less the row itself where it is excluded as
    ``inf``): with two or more, the candidates are those within the rounding bound of the second-best
    (:func:`top_two_candidates`); with one, that one; with none (a one-row table without itself), no neighbour at all.

    Parameters
    ----------
    block : array
        Scores of the chunk's rows (``operands.xp``), the excluded entries ``inf``; its order may be changed.
    rows : array
        ``arange`` of the chunk's rows.
    others : int
        Columns each row may take as neighbours.
    query_norm : array
        ``|q|²`` of the chunk's rows.
    operands : privcore.engine.operands.Operands
        The pass's operands (array module, error scale, column groups).
    max_half_ref : float
        Largest ``|r|²/2``.

    Returns
    -------
    cand_rows, cand_cols : array
        In ``operands.xp``.
    """
    xp = operands.xp
    if others >= 2:
        tolerance = 2.0 * operands.error_scale * (query_norm + max_half_ref * 2.0 + 1e-300)
        return top_two_candidates(block, rows, tolerance, operands.group, xp)
    if others == 1:
        return rows, xp.argmin(block, axis=1)
    return xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=np.int64)


def far_candidates(block, query_norm, error_scale, max_half_ref, xp):
    """(chunk row, reference row) of every pair that may be the chunk's farthest, on the host.

    A pair's approximate squared distance ``|q|² + 2·score`` is within half the tolerance below of its exact
    value, so the exactly farthest pair is within the tolerance of the approximate maximum, whatever the
    device's rounding: refining all those pairs gives the same d_max on every device and for any chunking.
    More than :data:`FAR_CANDIDATES` such pairs means a maximum tied across many pairs; then the
    approximately farthest pair alone is refined.

    Parameters
    ----------
    block : array
        The chunk's scores, before any entry is excluded.
    query_norm : array
        ``|q|²`` of the chunk's rows.
    error_scale : float
        The scores' rounding-error scale.
    max_half_ref : float
        Largest ``|r|²/2``.
    xp : module
        numpy or cupy.

    Returns
    -------
    rows, cols : numpy.ndarray
        Chunk rows and reference rows of the pairs to refine.
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


def top_two_candidates(block, rows, tolerance, group, xp):
    """(chunk row, reference row) of every score within ``tolerance`` of its row's second-best score.

    ``group == 0`` (the CPU): the best and second-best score of each row from the whole block. ``group = g``
    (the GPU): the block's columns in groups of ``g``; the second-smallest of the groups' minima is a score
    of another column than the best one, so at least the second-best score, and the threshold built on it
    keeps every candidate the whole-row threshold keeps (perhaps a few more, which the exact refinement
    sorts out). Only the groups whose minimum lies under the threshold are read again, so the block is read
    about once instead of three times.

    Parameters
    ----------
    block : array
        Scores of the chunk's rows; restored after use.
    rows : array
        ``arange`` of the chunk's rows.
    tolerance : array
        Per row, how far above the second-best score a candidate may lie (the rounding bound).
    group : int
        Columns per group (see above).
    xp : module
        numpy or cupy.

    Returns
    -------
    rows, cols : array
        In ``xp``.
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


#: Columns sampled per row to bound its k-th smallest score ahead of the full block's search: a partition of
#: this many columns plus one mask over the block costs about a third of partitioning every row.
K_SAMPLE_COLUMNS = 1024
#: ... or one column in this many where the block is narrower: at 3,000 columns (the demo's pooled subsets ask for 12
#: and 24 nearest rows) one in 8 found the same candidates 2.3-2.9x faster than partitioning every row, which the
#: 1,024-column sample left to blocks under 4,096 columns (measured side by side, 400-row blocks of the demo's E).
K_SAMPLE_FRACTION = 8
#: ... and at least this many per neighbour wanted, so that few scores fall under the bound.
K_SAMPLE_PER_NEIGHBOUR = 8


def k_candidates(block, kept, tolerance, xp):
    """(chunk row, block column) of every score within ``tolerance`` of its row's ``kept``-th smallest.

    ``kept`` is below the block's width: the pairs that may truly be among the row's ``kept`` nearest, in row-major
    order.

    On the host, when the block is wide, each row's ``kept``-th smallest is not found by partitioning the row:
    the ``kept``-th smallest of evenly spaced columns is an upper bound ``u`` of it (a subset's order statistic
    is at least the whole row's), so the scores ≤ ``u`` + tolerance (on Adult 0.5-3 % of a row for 5-36 neighbours) hold
    the row's ``kept`` smallest; their exact ``kept``-th smallest ``t`` is found among them and the pairs kept
    are those ≤ ``t`` + tolerance, a subset (rounding is monotonic): the same pairs as the partition would give.
    """
    width = block.shape[1]
    sample = max(min(K_SAMPLE_COLUMNS, width // K_SAMPLE_FRACTION), K_SAMPLE_PER_NEIGHBOUR * kept)
    if xp is not np or width < 4 * sample:
        kth = xp.partition(block, kept - 1, axis=1)[:, kept - 1]
        return xp.nonzero(block <= (kth + tolerance)[:, None])
    bound = np.partition(block[:, :: width // sample], kept - 1, axis=1)[:, kept - 1]
    rows, cols = np.nonzero(block <= (bound + tolerance)[:, None])
    values = block[rows, cols]
    counts = np.bincount(rows, minlength=len(block))
    # Each row's scores side by side, padded with inf (at most the block's size, when a row's scores tie):
    # every row holds at least ``kept`` of them, so the padding never reaches its ``kept``-th smallest.
    padded = np.full((len(block), int(counts.max())), np.inf)
    padded[rows, np.arange(len(rows)) - (np.cumsum(counts) - counts)[rows]] = values
    kth = np.partition(padded, kept - 1, axis=1)[:, kept - 1]
    keep = values <= (kth + tolerance)[rows]
    return rows[keep], cols[keep]


def _group_minima(block, group, xp):
    """Minimum of each run of ``group`` columns of every row (the last run may be shorter)."""
    k, m = block.shape
    full = (m // group) * group
    minima = block[:, :full].reshape(k, full // group, group).min(axis=2)
    if full < m:
        minima = xp.concatenate([minima, block[:, full:].min(axis=1)[:, None]], axis=1)
    return minima


def select_two(cand_rows, cand_cols, exact, n_rows):
    """Nearest and second-nearest among exact candidate distances; lowest index first among equal ones.

    Parameters
    ----------
    cand_rows, cand_cols : numpy.ndarray
        Chunk row and reference row of each candidate.
    exact : numpy.ndarray
        Their exact distances.
    n_rows : int
        Rows of the chunk.

    Returns
    -------
    distance, index : numpy.ndarray
        Shape (n_rows, 2); ``inf`` and −1 where a row has fewer candidates.
    """
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


def select_k(cand_rows, cand_cols, exact, n_rows, k):
    """The ``k`` nearest among exact candidate distances per row; lowest index first among equal ones.

    Parameters
    ----------
    cand_rows, cand_cols, exact, n_rows
        As in :func:`select_two`.
    k : int
        Neighbours kept per row.

    Returns
    -------
    distance, index : numpy.ndarray
        Shape (n_rows, k); ``inf`` and −1 where a row has fewer candidates.
    """
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


def exact_distances(query, reference, query_rows, reference_rows, chunk_elements) -> np.ndarray:
    """sqrt(Σ (q − r)²) for the given pairs, in batches so memory stays within ``chunk_elements``.

    Parameters
    ----------
    query, reference : numpy.ndarray
        The float64 tables.
    query_rows, reference_rows : numpy.ndarray
        The pairs, as positions into each table.
    chunk_elements : int
        Upper bound on the values held at once.

    Returns
    -------
    numpy.ndarray
        One distance per pair.

    Notes
    -----
    A score block is approximate (one matrix product, off by bounded rounding); the functions here pick, per row,
    every reference row that could truly be among the nearest (:func:`row_candidates`, :func:`top_two_candidates`)
    or the farthest (:func:`far_candidates`), recompute those pairs exactly as ``sqrt(Σ (q − r)²)``
    (:func:`exact_distances`) and choose the nearest by (exact distance, index) (:func:`select_two`,
    :func:`select_k`), so identical rows are at distance exactly 0 and the lowest index wins among ties.
    """
    if query.shape[1] >= WIDE_COLUMNS and len(query_rows):
        return _exact_distances_wide(query, reference, np.asarray(query_rows), np.asarray(reference_rows),
                                     chunk_elements)
    return _exact_distances_dense(query, reference, query_rows, reference_rows, chunk_elements)


#: Tables at least this wide refine a pair of mostly-zero rows from their non-zero values alone
#: (:func:`_exact_distances_wide`).
WIDE_COLUMNS = 256
#: A pair of rows is "mostly zero" when together they hold at most this share of the columns as non-zeros.
SPARSE_PAIR_SHARE = 1 / 16


def _exact_distances_dense(query, reference, query_rows, reference_rows, chunk_elements) -> np.ndarray:
    """sqrt(Σ (q − r)²) over every column, in batches of pairs."""
    out = np.empty(len(query_rows))
    batch = max(1, chunk_elements // max(query.shape[1], 1))
    for s in range(0, len(query_rows), batch):
        diff = query[query_rows[s : s + batch]] - reference[reference_rows[s : s + batch]]
        out[s : s + batch] = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    return out


def _exact_distances_wide(query, reference, query_rows, reference_rows, chunk_elements) -> np.ndarray:
    """sqrt(Σ (q − r)²) of pairs of wide rows, a pair of mostly-zero rows summed over its non-zero columns only.

    A 5,000-value code is 5,000 one-hot columns, of which a row holds one: gathering both whole rows of every pair
    moved 80 KB a pair (AIR's tied pairs: most of its 20 s at 5,000 rows). Here the non-zeros of each row taken
    part are read once, and a pair's differences are summed in column order over the columns where either row is
    non-zero (a zero term adds nothing). The value depends on the two rows alone, never on the tables or the pass
    they come from, so every pass refines a pair to the same bits; identical rows are at exactly 0. Pairs with more
    non-zeros (:data:`SPARSE_PAIR_SHARE`) are refined over every column as in narrow tables.
    """
    width = query.shape[1]
    q_start, q_col, q_val, query_of = _nonzeros_of(query, query_rows, chunk_elements)
    r_start, r_col, r_val, reference_of = _nonzeros_of(reference, reference_rows, chunk_elements)
    q_count, r_count = np.diff(q_start), np.diff(r_start)
    held = q_count[query_of] + r_count[reference_of]
    out = np.empty(len(query_rows))
    dense = np.flatnonzero(held > SPARSE_PAIR_SHARE * width)
    if len(dense):
        out[dense] = _exact_distances_dense(query, reference, query_rows[dense], reference_rows[dense],
                                            chunk_elements)
    sparse = np.flatnonzero(held <= SPARSE_PAIR_SHARE * width)
    per_batch = max(1, chunk_elements // max(int(SPARSE_PAIR_SHARE * width), 1))
    for s in range(0, len(sparse), per_batch):
        pairs = sparse[s : s + per_batch]
        out[pairs] = _sparse_pair_distances(q_start, q_col, q_val, query_of[pairs], r_start, r_col, r_val,
                                            reference_of[pairs], width)
    return out


def _nonzeros_of(table, rows, chunk_elements):
    """CSR arrays of the rows ``rows`` of ``table`` refer to, and each pair's row in them.

    A table that cannot change (the evaluation's encodings: :func:`privcore.engine.sparse_split.frozen`) has its CSR
    form kept, and every call reads it; another table's rows are read once per call. Which pairs are summed over
    their non-zeros depends on the pair alone, never on this choice.
    """
    csr = sparse_split.csr_of(table) if sparse_split.frozen(table) else None
    if csr is not None:
        return csr.indptr.astype(np.int64), csr.indices.astype(np.int64), csr.data, rows
    unique, of = np.unique(rows, return_inverse=True)
    return (*_row_nonzeros(table, unique, chunk_elements), of)


def _row_nonzeros(table, rows, chunk_elements) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR arrays (row starts, columns, values) of the non-zeros of ``table[rows]``, read in batches of rows."""
    batch = max(1, chunk_elements // max(table.shape[1], 1))
    cols, vals, counts = [], [], []
    for s in range(0, len(rows), batch):
        block = table[rows[s : s + batch]]
        r, c = np.nonzero(block)
        cols.append(c)
        vals.append(block[r, c])
        counts.append(np.bincount(r, minlength=len(block)))
    start = np.zeros(len(rows) + 1, dtype=np.int64)
    if counts:
        np.cumsum(np.concatenate(counts), out=start[1:])
    return start, (np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)), \
        (np.concatenate(vals) if vals else np.zeros(0))


def _gather(start, values_of, owners):
    """The entries of rows ``owners`` of a CSR layout, and the position of each entry's pair."""
    length = start[owners + 1] - start[owners]
    pair = np.repeat(np.arange(len(owners)), length)
    offset = np.repeat(np.cumsum(length) - length, length)
    position = np.arange(len(pair)) - offset + np.repeat(start[owners], length)
    return pair, [v[position] for v in values_of]


def _sparse_pair_distances(q_start, q_col, q_val, q_owner, r_start, r_col, r_val, r_owner, width) -> np.ndarray:
    """sqrt(Σ (q − r)²) of each pair over the columns where either row is non-zero, summed in column order."""
    q_pair, (qc, qv) = _gather(q_start, (q_col, q_val), q_owner)
    r_pair, (rc, rv) = _gather(r_start, (r_col, r_val), r_owner)
    pair = np.concatenate([q_pair, r_pair])
    key = pair * width + np.concatenate([qc, rc])
    value = np.concatenate([qv, -rv])
    order = np.argsort(key, kind="stable")  # q's entry before r's at a column both hold: q + (−r) is q − r
    key, value = key[order], value[order]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    diff = np.add.reduceat(value, first) if len(value) else value
    owner = key[first] // width
    out = np.zeros(len(q_owner))
    if len(diff):
        segment = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        out[owner[segment]] = np.add.reduceat(diff * diff, segment)
    return np.sqrt(out)
