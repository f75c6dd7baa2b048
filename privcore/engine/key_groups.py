"""The nearest two of most rows, found among the rows that share every discrete column with them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privcore.engine import sparse_split
from privcore.engine.candidates import exact_distances, select_two
from privcore.engine.neighbors_distinct import distinct_rows

#: A column is discrete when it holds at most this many values: in both tables' first :data:`SCREEN_ROWS`
#: rows, then in the groups' keys.
MAX_VALUES = 64
SCREEN_ROWS = 4096
#: Key columns have a smallest gap of at least the largest one's divided by this.
GAP_RATIO = 4.0
#: ... or by this where the columns within GAP_RATIO form groups that hold too many pairs: a space that weighs
#: its one-hot codes unequally (IdScore's, weighted by 1/entropy: Adult's codes have gaps 0.41 to 1.81) keeps
#: only its heaviest codes within a ratio of 4, and their groups are too large (0.66 % of the pairs at
#: 10,000 Adult rows), while all of them settle 59 % of the rows. A number's fine steps (16 values on a unit
#: range: a ratio of 15 to a unit code) stay out.
FINER_GAP_RATIO = 8.0
#: Passes of fewer pairs than this take the usual pass at once: forming the groups would cost about as much.
MIN_PAIRS = 4_000_000
#: The groups are searched when they hold at most this share of all pairs: an exact distance costs about as
#: much as 50 scores of the matrix pass (2-core machine, 10,000 Adult rows: about 200 ns a pair, from the
#: non-key columns, against about 4 ns), so 0.4 % of the pairs cost about a fifth of the pass.
MAX_PAIR_SHARE = 0.004
#: A row is settled by its group when its second-nearest squared distance there is below the smallest squared
#: gap times (1 − MARGIN): the rounding of either side is below 1e-12 relative for any table the engine holds.
MARGIN = 1e-9
#: Arrays of one value per pair that a batch holds at once (positions, offsets, sums, masks): a batch of
#: ``chunk_elements / PAIR_ARRAYS`` pairs takes about the memory of one chunk's score block.
PAIR_ARRAYS = 8
#: Candidates: within this relative distance (squared) of their row's second smallest over the non-key
#: columns, or :data:`UNDERFLOW` (squares of differences below 1e-145 may vanish).
CANDIDATE_TOLERANCE = 1e-9
UNDERFLOW = 1e-280
#: Within one table the one-block sweep (each pair once) stays the cheaper way when more than this share of
#: the rows would be left for the pass.
SWEEP_REST_SHARE = 0.6


@dataclass(frozen=True)
class GroupedTopTwo:
    """The query rows settled by their key group, their nearest two, and the rows left for the usual pass.

    Attributes
    ----------
    resolved : numpy.ndarray
        Positions of the settled query rows, ascending.
    distance, index : numpy.ndarray
        Shape (len(resolved), 2): their two nearest reference rows, as the engine gives them.
    rest : numpy.ndarray
        Positions of the other query rows, ascending.
    """

    resolved: np.ndarray
    distance: np.ndarray
    index: np.ndarray
    rest: np.ndarray


def key_columns(query: np.ndarray, reference: np.ndarray, ratio: float = GAP_RATIO) -> np.ndarray:
    """The columns that form the key groups: discrete and coarse.

    Discrete: at most :data:`MAX_VALUES` values in the first :data:`SCREEN_ROWS` rows of both tables. Coarse: their
    smallest gap between two values at least 1 / ``ratio`` of the largest such gap (one-hot codes, not a number's fine
    steps, whose small gap would let no row be settled).

    Parameters
    ----------
    query, reference : numpy.ndarray
        Float64 tables with the same columns.
    ratio : float
        :data:`GAP_RATIO` or :data:`FINER_GAP_RATIO`.

    Returns
    -------
    numpy.ndarray
        Column positions, ascending.

    Examples
    --------
    >>> key_columns(np.array([[0.0, 0.1, 5.0], [1.0, 0.2, 5.0]]), np.array([[1.0, 0.3, 5.0]])).tolist()
    [0]
    """
    ordered = np.sort(np.concatenate([query[:SCREEN_ROWS], reference[:SCREEN_ROWS]]), axis=0)
    steps = np.diff(ordered, axis=0)
    values = 1 + np.count_nonzero(steps > 0, axis=0)
    gaps = np.where(steps > 0, steps, np.inf).min(axis=0, initial=np.inf)
    discrete = (values <= MAX_VALUES) & np.isfinite(gaps)
    if not discrete.any():
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(discrete & (gaps >= gaps[discrete].max() / ratio))


def smallest_gap_squared(keys: np.ndarray) -> float:
    """The smallest squared difference between two different values of one column of ``keys``.

    No two rows that differ in some column are nearer (``inf`` where every column holds one value).

    Parameters
    ----------
    keys : numpy.ndarray
        Shape (k, c), finite.

    Returns
    -------
    float

    Examples
    --------
    >>> smallest_gap_squared(np.array([[0.0, 1.0], [0.5, 1.0], [2.0, 1.0]]))
    0.25
    """
    if len(keys) < 2:
        return np.inf
    steps = np.diff(np.sort(keys, axis=0), axis=0)
    positive = steps[steps > 0]
    return float(positive.min()) ** 2 if len(positive) else np.inf


def top_two_in_key_groups(query: np.ndarray, reference: np.ndarray, exclude_self: bool,
                          chunk_elements: int) -> GroupedTopTwo | None:
    """The nearest two reference rows of every query row that its key group settles (see Notes).

    Parameters
    ----------
    query, reference : numpy.ndarray
        Float64 tables with the same columns.
    exclude_self : bool
        The query is the reference: a row is not its own neighbour (by position).
    chunk_elements : int
        The engine's bound on the values held at once (a batch of pairs holds about as much).

    Returns
    -------
    GroupedTopTwo or None
        None where the groups do not pay: a small pass, no discrete column, a non-finite value, or groups
        holding more than :data:`MAX_PAIR_SHARE` of the pairs.

    Notes
    -----
    Mixed tables encoded in space E have many columns that take only a few values (one-hot codes, coarse
    numbers): 101 of Adult's 106. Two rows that differ in such a column lie at least that column's smallest gap
    between two of its values apart (1 between one-hot codes). Most rows' two nearest lie far closer, among the
    rows that share every discrete column with them, their *key group*: 10,000 Adult rows against a noisy copy,
    70 % of the rows, in groups of 13 rows on average. For those rows the nearest two come from their group alone
    (0.1 % of the pairs); the other rows take the engine's usual pass (:func:`privcore.engine.neighbors.nearest_two`).

    Exactness. Every distance is computed by the engine's own exact refinement
    (:func:`privcore.engine.candidates.exact_distances`) and the nearest two are chosen by (distance, index) as
    there. A row is settled by its group only when its second-nearest distance in the group, squared, is below
    the smallest squared gap of any discrete column by a margin (:data:`MARGIN`) far wider than the rounding of
    either side: every row outside the group differs in some discrete column, so it is strictly farther, cannot
    tie, and cannot be one of the two. The groups and gaps come from the values as stored (−0.0 = 0.0); a table
    with a non-finite value is left to the usual pass.
    """
    n, m = len(query), len(reference)
    if n * m < MIN_PAIRS or query.shape[1] >= sparse_split.MIN_COLUMNS:
        # A table of hundreds of columns is mostly the one-hot code of a many-valued column: rows rarely share it, so
        # the groups settle few rows, and finding its discrete columns sorted 8,192 rows of each (5,004 columns at
        # 5,000 rows: 64 of NNAA's 90 s); its pass multiplies it as a sparse matrix instead (sparse_split).
        return None
    # The finer ratio's columns include the coarser one's, so its groups are smaller: it is tried where the
    # coarser groups' sample holds more than MAX_PAIR_SHARE of the pairs (the sample may err by 2×).
    for ratio in (GAP_RATIO, FINER_GAP_RATIO):
        columns = key_columns(query, reference, ratio)
        if not len(columns):
            return None
        share = _estimated_pair_share(query, reference, columns)
        if share <= MAX_PAIR_SHARE:
            break
    if share > 2 * MAX_PAIR_SHARE:
        return None
    if not (np.isfinite(query).all() and np.isfinite(reference).all()):
        return None
    groups = distinct_rows(np.concatenate([query[:, columns], reference[:, columns]]))
    ordered = np.sort(groups.points, axis=0)
    values = 1 + np.count_nonzero(ordered[1:] != ordered[:-1], axis=0)
    if (values > MAX_VALUES).any():  # a column with few values among the first rows only: group without it
        columns = columns[values <= MAX_VALUES]
        if not len(columns):
            return None
        groups = distinct_rows(np.concatenate([query[:, columns], reference[:, columns]]))
    gap = smallest_gap_squared(groups.points)
    query_group, reference_group = groups.inverse[:n], groups.inverse[n:]
    reference_count = np.bincount(reference_group, minlength=len(groups.points))
    reference_rows = np.argsort(reference_group, kind="stable")  # grouped, ascending within a group
    reference_start = np.r_[0, np.cumsum(reference_count)]
    pairs = reference_count[query_group]
    if not np.isfinite(gap) or pairs.sum() > MAX_PAIR_SHARE * n * m:
        return None

    # Within a group the key columns are equal, so the other columns alone give each pair's squared distance;
    # computed from those few columns (each query row's pairs in a run), they propose the candidates that the
    # exact refinement decides between.
    other_columns = np.setdiff1d(np.arange(query.shape[1]), columns)
    query_other = np.ascontiguousarray(query[:, other_columns])
    reference_other = np.ascontiguousarray(reference[:, other_columns])
    distance = np.full((n, 2), np.inf)
    index = np.full((n, 2), -1, dtype=np.int64)
    pair_end = np.cumsum(pairs)
    begin = 0
    batch = max(1, chunk_elements // PAIR_ARRAYS)
    while begin < n:  # query rows in batches of at most `batch` pairs (at least one row)
        before = int(pair_end[begin - 1]) if begin else 0
        end = max(begin + 1, int(np.searchsorted(pair_end, before + batch, side="right")))
        rows = np.repeat(np.arange(begin, end), pairs[begin:end])
        offset = np.arange(len(rows)) - np.repeat(np.r_[0, np.cumsum(pairs[begin:end])[:-1]], pairs[begin:end])
        cols = reference_rows[reference_start[query_group[rows]] + offset]
        if exclude_self:
            other = cols != rows
            rows, cols = rows[other], cols[other]
        if len(rows):
            rows, cols = _candidates(rows, cols, query_other, reference_other, chunk_elements)
            exact = exact_distances(query, reference, rows, cols, chunk_elements)
            distance[begin:end], index[begin:end] = select_two(rows - begin, cols, exact, end - begin)
        begin = end
    second = distance[:, 1]
    settled = second * second < gap * (1.0 - MARGIN)  # inf (fewer than two in the group) is never settled
    resolved = np.flatnonzero(settled)
    return GroupedTopTwo(resolved, distance[resolved], index[resolved], np.flatnonzero(~settled))


def _estimated_pair_share(query, reference, columns) -> float:
    """The share of pairs within the key groups among the first :data:`SCREEN_ROWS` rows of both tables.

    Cheap: it spares forming the groups of a pass where they would be too large.
    """
    sample_query, sample_reference = query[:SCREEN_ROWS, columns], reference[:SCREEN_ROWS, columns]
    groups = distinct_rows(np.concatenate([sample_query, sample_reference]))
    in_reference = np.bincount(groups.inverse[len(sample_query):], minlength=len(groups.points))
    return float(in_reference[groups.inverse[: len(sample_query)]].sum()) / (len(sample_query) * len(sample_reference))


def _candidates(rows, cols, query_other, reference_other, chunk_elements):
    """The pairs (grouped by query row) that hold each row's nearest two by exact distance.

    Those whose squared distance over the non-key columns is within :data:`CANDIDATE_TOLERANCE` of their row's second
    smallest: they hold the row's nearest two by exact distance, since the exact distance's rounding and this sum's are
    both far below the tolerance.
    """
    approximate = np.empty(len(rows))
    batch = max(1, chunk_elements // max(query_other.shape[1], 1))
    for s in range(0, len(rows), batch):
        diff = query_other[rows[s : s + batch]] - reference_other[cols[s : s + batch]]
        approximate[s : s + batch] = np.einsum("ij,ij->i", diff, diff)
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    sizes = np.diff(np.r_[starts, len(rows)])
    row_smallest = np.minimum.reduceat(approximate, starts)
    at_smallest = approximate == np.repeat(row_smallest, sizes)
    second = np.minimum.reduceat(np.where(at_smallest, np.inf, approximate), starts)
    second = np.where(np.add.reduceat(at_smallest.astype(np.int64), starts) >= 2, row_smallest, second)
    keep = approximate <= np.repeat(second, sizes) * (1.0 + CANDIDATE_TOLERANCE) + UNDERFLOW
    return rows[keep], cols[keep]
