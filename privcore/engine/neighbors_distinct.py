"""Neighbour passes over distinct rows: tables with repeated rows are searched once per distinct row."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privcore.engine.results import Neighbours

#: Passes run on distinct rows when that leaves at most this share of the pairs.
MAX_PAIR_SHARE = 0.8


@dataclass(frozen=True)
class DistinctRows:
    """The distinct rows of a table, in the order of their first occurrence, and where their copies are.

    Attributes
    ----------
    points : numpy.ndarray
        Shape (k, d): each distinct row once (a copy of its first occurrence).
    inverse : numpy.ndarray
        Shape (n,): the distinct row of every row.
    rows : numpy.ndarray
        Shape (n,): the table's row positions grouped by distinct row, ascending within each.
    starts : numpy.ndarray
        Shape (k + 1,): distinct row ``p``'s copies are ``rows[starts[p]:starts[p + 1]]``.

    Notes
    -----
    Tables of coarse attributes repeat rows: 30,000 Adult rows in six columns hold 15,073 distinct ones, and a
    census extract of a few categorical columns far fewer. Every copy of a row has the same neighbours, so the
    engine (:mod:`privcore.engine.neighbors`) runs on the distinct rows only and the results are expanded to every
    row, exactly as the engine would have given them:

    - the distinct rows are kept in the order of their first occurrence, so the engine's rule "lowest index
      first among equal distances" on distinct rows picks the row whose *first copy* has the lowest index;
    - a reference row's copies all lie at the same distance, so a query's second neighbour is either the second
      copy of its nearest distinct row or the first copy of the second-nearest one, whichever comes first by
      (distance, index) (:func:`_expand_reference`);
    - within one table, a row's other copies lie at distance 0, nearer than any other row (:func:`_expand_within`).

    The same exact refinement computes every distance, on the same coordinates (a distinct row is a copy of its
    first row), so distances, extremes and ties are identical (tests compare with the engine on tables full of
    repeats, ties and −0.0).
    """

    points: np.ndarray
    inverse: np.ndarray
    rows: np.ndarray
    starts: np.ndarray

    @property
    def copies(self) -> np.ndarray:
        """Number of copies of every distinct row."""
        return np.diff(self.starts)

    def copy_rank(self, rank: int) -> np.ndarray:
        """Row position of every distinct row's ``rank``-th copy (0 = the first), −1 where it has fewer."""
        out = np.full(len(self.points), -1, dtype=np.int64)
        has = self.copies > rank
        out[has] = self.rows[self.starts[:-1][has] + rank]
        return out


def distinct_rows(table: np.ndarray) -> DistinctRows:
    """The distinct rows of ``table`` (rows equal value for value, −0.0 = 0.0).

    Examples
    --------
    >>> d = distinct_rows(np.array([[1.0], [0.0], [1.0], [-0.0]]))
    >>> d.points.ravel().tolist(), d.inverse.tolist(), d.copy_rank(1).tolist()
    ([1.0, 0.0], [0, 1, 0, 1], [2, 3])
    """
    table = np.ascontiguousarray(table, dtype=np.float64)
    n, d = table.shape
    if n == 0 or d == 0:
        inverse = np.zeros(n, dtype=np.int64)
        rows = np.arange(n, dtype=np.int64)
        starts = np.array([0, n] if n else [0], dtype=np.int64)
    else:
        inverse, rows, starts = _grouped_by_hash(table)
        if inverse is None:
            inverse, rows, starts = _grouped_by_sorting(np.ascontiguousarray(table + 0.0))
    first = rows[starts[:-1]]
    # Every row distinct (a table with a fine code, names, many numbers): the points are the table itself, in its order,
    # not a copy of it (a 5,000-value code's distinct rows held 1 GB of copies at 1,500 rows in the quick preset).
    points = table if len(first) == n else table[first]
    if points is not table:
        points.flags.writeable = False  # read-only: the passes over it keep what they derive from it (sparse_split)
    return DistinctRows(points, inverse.astype(np.int64), rows.astype(np.int64), starts)


def _groups(inverse: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``inverse`` (the distinct row of every row), the rows grouped by it and the groups' starts.

    Distinct rows are numbered by first occurrence; within a group the rows are ascending.
    """
    rows = np.argsort(inverse, kind="stable")
    starts = np.r_[0, np.cumsum(np.bincount(inverse, minlength=count))].astype(np.int64)
    return inverse, rows, starts


#: Values hashed or compared at once (512 KiB of float64): each step's temporaries stay in the core's cache and
#: are reused from the heap, where whole-table temporaries (17 MB at 20,000 rows of 106 coordinates) are
#: mapped afresh by malloc every time and cost a page fault per 4 KiB: 20,000 Adult rows 15.3 -> 6.6 ms.
BLOCK_VALUES = 2**16


def _grouped_by_hash(table: np.ndarray):
    """Rows grouped by a 64-bit hash of their bytes, checked.

    ``(None, None, None)`` if two different rows share a hash (then :func:`_grouped_by_sorting` decides).

    Equal rows have equal bytes once −0.0 is made 0.0, so equal hashes: a group never splits equal rows, and
    the check that every row equals its group's first row (numerically, so −0.0 = 0.0 there too) rules out the
    other error. Hashing and ``pandas.factorize`` (which numbers the groups by first occurrence, as wanted)
    replace sorting the rows' bytes: 100,000 rows of 106 coordinates 0.58 -> 0.19 s.
    """
    step = max(1, BLOCK_VALUES // table.shape[1])
    codes, uniques = pd.factorize(_row_hashes(table, step))
    inverse, rows, starts = _groups(codes.astype(np.int64, copy=False), len(uniques))
    first = rows[starts[:-1]]
    for begin in range(0, len(table), step):  # in blocks: never a second copy of the whole table
        if not np.array_equal(table[begin : begin + step], table[first[inverse[begin : begin + step]]]):
            return None, None, None
    return inverse, rows, starts


def _row_hashes(table: np.ndarray, step: int) -> np.ndarray:
    """A 64-bit hash of every row's bytes with −0.0 read as 0.0, ``step`` rows at a time."""
    hashes = np.empty(len(table), dtype=np.uint64)
    multipliers = _multipliers(table.shape[1])
    for begin in range(0, len(table), step):
        bits = (table[begin : begin + step] + 0.0).view(np.uint64)  # −0.0 + 0.0 = 0.0: equal values, equal bytes
        # Mix each coordinate's bits (the low bits of 0.0, 1.0 and most short decimals are all zero), then
        # combine the columns with odd multipliers: a linear hash over all 64 bits of every coordinate.
        mixed = bits >> np.uint64(33)
        mixed ^= bits
        mixed *= _MIX
        np.right_shift(mixed, np.uint64(29), out=bits)
        mixed ^= bits
        hashes[begin : begin + step] = mixed @ multipliers
    return hashes


def _grouped_by_sorting(canonical: np.ndarray):
    """Rows grouped by sorting their bytes (the fallback of :func:`_grouped_by_hash`)."""
    keys = canonical.view(np.dtype((np.void, 8 * canonical.shape[1]))).ravel()
    _, first_sorted, inverse_sorted = np.unique(keys, return_index=True, return_inverse=True)
    by_first = np.argsort(first_sorted, kind="stable")
    position = np.empty_like(by_first)
    position[by_first] = np.arange(len(by_first))
    return _groups(position[inverse_sorted.ravel()].astype(np.int64), len(by_first))


#: fmix64's multiplier (MurmurHash3): spreads every input bit over the high bits.
_MIX = np.uint64(0xFF51AFD7ED558CCD)


def _multipliers(columns: int) -> np.ndarray:
    """Fixed odd 64-bit multipliers, one per column (seeded: the grouping never depends on the run)."""
    return np.random.default_rng(0x5EED).integers(0, 2**63, size=columns, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def pays(query: DistinctRows, reference: DistinctRows) -> bool:
    """Whether a pass over the distinct rows leaves at most :data:`MAX_PAIR_SHARE` of the pairs."""
    pairs = len(query.inverse) * len(reference.inverse)
    return pairs > 0 and len(query.points) * len(reference.points) <= MAX_PAIR_SHARE * pairs


def expand(point_result: Neighbours, query: DistinctRows, reference: DistinctRows) -> Neighbours:
    """The rows' nearest two reference rows from their distinct rows' nearest two distinct reference rows."""
    distance, index = _expand_reference(point_result, reference)
    return Neighbours(distance[query.inverse], index[query.inverse])


def expand_within(point_result: Neighbours, table: DistinctRows) -> Neighbours:
    """The rows' nearest two other rows of the same table from the distinct rows' nearest two other distinct rows.

    See :func:`_expand_within`.
    """
    return Neighbours(*_expand_within(point_result, table))


def _expand_reference(point_result: Neighbours, reference: DistinctRows) -> tuple[np.ndarray, np.ndarray]:
    """Per query distinct row: the first and second copies that are its nearest two.

    First = the first copy of the nearest distinct row; second = the smaller by (distance, index) of its second copy and
    the second-nearest distinct row's first copy.
    """
    near, second_near = point_result.index[:, 0], point_result.index[:, 1]
    d_near, d_second = point_result.distance[:, 0], point_result.distance[:, 1]
    first_copy, second_copy = reference.copy_rank(0), reference.copy_rank(1)
    distance = np.full(point_result.distance.shape, np.inf)
    index = np.full(point_result.index.shape, -1, dtype=np.int64)
    found = near >= 0
    distance[found, 0], index[found, 0] = d_near[found], first_copy[near[found]]
    # Candidate A: the nearest distinct row's second copy (same distance); B: the next distinct row's first.
    a_index = np.where(found, second_copy[np.where(found, near, 0)], -1)
    b_index = np.where(second_near >= 0, first_copy[np.where(second_near >= 0, second_near, 0)], -1)
    a_distance = np.where(a_index >= 0, d_near, np.inf)
    b_distance = np.where(b_index >= 0, d_second, np.inf)
    take_a = (a_index >= 0) & ((b_index < 0) | (a_distance < b_distance)
                               | ((a_distance == b_distance) & (a_index < b_index)))
    take_b = ~take_a & (b_index >= 0)
    distance[take_a, 1], index[take_a, 1] = a_distance[take_a], a_index[take_a]
    distance[take_b, 1], index[take_b, 1] = b_distance[take_b], b_index[take_b]
    return distance, index


def _expand_within(point_result: Neighbours, table: DistinctRows) -> tuple[np.ndarray, np.ndarray]:
    """Per row: its other copies first (distance 0, lowest positions), then the other distinct rows.

    The other distinct rows come as in :func:`_expand_reference` (whose nearest two are other distinct rows).
    """
    n = len(table.inverse)
    point = table.inverse
    copies = table.copies[point]
    by_points = _expand_reference(point_result, table)
    distance, index = by_points[0][point].copy(), by_points[1][point].copy()
    first, second, third = (table.copy_rank(r)[point] for r in (0, 1, 2))
    rows = np.arange(n)
    others = [np.where(rows == first, second, first), np.where(rows == first, third, np.where(rows == second,
                                                                                              third, second))]
    many = copies >= 3  # two other copies at distance 0
    distance[many] = 0.0
    index[many, 0], index[many, 1] = others[0][many], others[1][many]
    pair = copies == 2  # one other copy at 0, then the nearest other distinct row's first copy
    distance[pair, 1], index[pair, 1] = by_points[0][point[pair], 0], by_points[1][point[pair], 0]
    distance[pair, 0], index[pair, 0] = 0.0, others[0][pair]
    return distance, index
