"""Counting the guesses of the simulation metrics (ZCAP, GCAP, AIR) without a |Y| × |Z| matrix."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd

from privcore.base import NotApplicable, resolve_workers
from privcore.data import NUMERICAL
from privcore.engine import DEFAULT_CHUNK_ELEMENTS, MetricContext
from privcore.engine import distinct_rows as distinct_points
from privcore.metrics._exact_match import first_positions, tuple_ids
from privcore.metrics.registry import NEEDS_REASONS


def keys_and_sensitive(ctx: MetricContext, categorical: bool = True) -> tuple[list[str], str]:
    """The key columns and the sensitive column, or NotApplicable with the reason."""
    sensitive = ctx.schema.sensitive
    if sensitive is None:
        raise NotApplicable(NEEDS_REASONS["sensitive"])
    if categorical and ctx.schema.types.get(sensitive) == NUMERICAL:
        raise NotApplicable(f"needs a categorical or binary sensitive column; '{sensitive}' is numerical.")
    keys = [c for c in ctx.schema.key_columns if c != sensitive]
    if not keys:
        raise NotApplicable("needs at least one key (quasi-identifier) column besides the sensitive one.")
    return keys, sensitive


def distinct_rows(encoded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row the id of its distinct encoded point, and the first row of each point."""
    if encoded.shape[1] == 0:  # every key attribute constant in Y: one point
        return np.zeros(len(encoded), dtype=np.int64), np.zeros(min(1, len(encoded)), dtype=np.int64)
    # The engine's hashing of whole rows: points numbered by first occurrence, −0.0 = 0.0, as factorizing every column
    # and numbering the tuples gave, without a factorize per column (5,004 of them for a 5,000-value code: 0.2 s a call).
    found = distinct_points(encoded)
    return found.inverse, found.rows[found.starts[:-1]]


def sensitive_ranks(
    real_values: np.ndarray, syn_values: np.ndarray, tolerance: float | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Ranks of the synthetic sensitive values and, per real row, the rank range of correct guesses.

    Categorical (``tolerance`` None): a synthetic value is correct when it equals the real one. Numerical:
    when ``|z − y| ≤ tolerance·|y|``, evaluated exactly as written on the sorted distinct synthetic values
    (the correct values form a contiguous range of them).

    Returns
    -------
    syn_rank : ndarray
        Rank of each synthetic value in ``0..n_ranks-1``.
    lo, hi : ndarray
        Per real row: synthetic ranks in ``[lo, hi)`` are correct guesses.
    n_ranks : int
    """
    n = len(real_values)
    if tolerance is None:
        codes = pd.factorize(np.concatenate([real_values, syn_values]))[0].astype(np.int64)
        n_ranks = int(codes.max()) + 1 if len(codes) else 1
        return codes[n:], codes[:n], codes[:n] + 1, n_ranks
    y = real_values.astype(np.float64)
    values, syn_rank = np.unique(syn_values.astype(np.float64), return_inverse=True)
    allowed = tolerance * np.abs(y)
    lo = np.searchsorted(values, y - allowed, "left")
    hi = np.searchsorted(values, y + allowed, "right")

    def correct(position: np.ndarray) -> np.ndarray:
        ok = (position >= 0) & (position < len(values))
        out = np.zeros(n, dtype=bool)
        out[ok] = np.abs(values[position[ok]] - y[ok]) <= allowed[ok]
        return out

    # y ± allowed is rounded; settle each bound on the exact predicate (it moves by a few ulps at most).
    for _ in range(64):
        grow_lo = correct(lo - 1)
        shrink_lo = (lo < hi) & ~correct(lo)
        grow_hi = correct(hi)
        shrink_hi = (hi > lo) & ~correct(hi - 1)
        if not (grow_lo.any() or shrink_lo.any() or grow_hi.any() or shrink_hi.any()):
            break
        lo = lo - grow_lo + shrink_lo
        hi = np.maximum(hi + grow_hi - shrink_hi, lo)
    return syn_rank.astype(np.int64), lo.astype(np.int64), hi.astype(np.int64), max(1, len(values))


class GroupRankCounter:
    """Counts synthetic rows by (group, sensitive rank range) with one sorted array and binary search.

    Parameters
    ----------
    group, rank : ndarray
        Per synthetic row: its group (key tuple or key point) and its sensitive rank.
    n_groups, n_ranks : int

    Notes
    -----
    Every value is replaced by an integer code over the union of the real and the synthetic table, so "equal on
    the keys" is "equal codes". The number of correct guesses in a pool is a count of synthetic rows whose
    (key group, sensitive rank) falls in a range, answered by binary search in one sorted array
    (:class:`GroupRankCounter`). GCAP's Hamming pass (:func:`hamming_pool_counts`) works on chunks of distinct
    real key tuples; AIR's pools of tied nearest rows are counted by :func:`pooled_counts`.
    """

    def __init__(self, group: np.ndarray, rank: np.ndarray, n_groups: int, n_ranks: int):
        self.n_ranks = int(n_ranks)
        self.keys = np.sort(group.astype(np.int64) * self.n_ranks + rank)
        self.group_size = np.bincount(group, minlength=n_groups).astype(np.int64)

    def count(self, group: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Number of synthetic rows in ``group`` with a rank in ``[lo, hi)`` (elementwise)."""
        base = group.astype(np.int64) * self.n_ranks
        return np.searchsorted(self.keys, base + hi) - np.searchsorted(self.keys, base + lo)


def pooled_counts(
    pair_owner: np.ndarray,
    pair_group: np.ndarray,
    n_owners: int,
    counter: GroupRankCounter,
    query_owner: np.ndarray,
    query_lo: np.ndarray,
    query_hi: np.ndarray,
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
) -> tuple[np.ndarray, np.ndarray]:
    """Pool sizes and correct guesses when pools are unions of synthetic groups.

    Parameters
    ----------
    pair_owner, pair_group : ndarray
        The pools as pairs (owner, group), sorted by owner: owner *u*'s pool is every synthetic row of
        every group paired with *u*.
    n_owners : int
    counter : GroupRankCounter
    query_owner, query_lo, query_hi : ndarray
        Queries: in ``query_owner``'s pool, how many rows have a rank in ``[query_lo, query_hi)``?
    chunk_elements : int
        Bound on the (query, group) pairs expanded at once.

    Returns
    -------
    pool_size : ndarray
        Per owner.
    correct : ndarray
        Per query.
    """
    pool_size = np.bincount(pair_owner, weights=counter.group_size[pair_group], minlength=n_owners)
    pool_size = np.rint(pool_size).astype(np.int64)
    starts = np.zeros(n_owners + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair_owner, minlength=n_owners), out=starts[1:])
    q_start = starts[query_owner]
    q_len = starts[query_owner + 1] - q_start
    correct = np.zeros(len(query_owner), dtype=np.int64)
    ends = np.cumsum(q_len)
    begin = 0
    while begin < len(query_owner):
        # As many queries as fit in chunk_elements expanded pairs (at least one).
        offset = ends[begin - 1] if begin else 0
        stop = max(begin + 1, int(np.searchsorted(ends, offset + chunk_elements, "right")))
        lengths = q_len[begin:stop]
        which = np.repeat(np.arange(begin, stop), lengths)
        position = np.arange(len(which)) - np.repeat(np.cumsum(lengths) - lengths, lengths) + q_start[which]
        hits = counter.count(pair_group[position], query_lo[which], query_hi[which])
        correct[begin:stop] = np.bincount(which - begin, weights=hits, minlength=stop - begin).round().astype(np.int64)
        begin = stop
    return pool_size, correct


def hamming_pool_counts(
    query_codes: np.ndarray,
    ref_codes: np.ndarray,
    ref_group: np.ndarray,
    counter: GroupRankCounter,
    q_tuple: np.ndarray,
    q_lo: np.ndarray,
    q_hi: np.ndarray,
    *,
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
    workers: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GCAP's pools: every reference key tuple at minimal Hamming distance from each query tuple.

    Matches are counted by :class:`KeyMatcher` in chunks; each chunk turns its pools into counts ahead of the next.

    Parameters
    ----------
    query_codes : ndarray
        (U, p) codes of the distinct real key tuples.
    ref_codes : ndarray
        (V, p) codes of the distinct synthetic key tuples.
    ref_group : ndarray
        (V,) group of each reference tuple in ``counter``.
    counter : GroupRankCounter
    q_tuple, q_lo, q_hi : ndarray
        Queries (query tuple, sensitive rank range).

    Returns
    -------
    pool_size, min_distance : ndarray
        Per query tuple.
    correct : ndarray
        Per query.
    """
    n_query, n_ref = len(query_codes), len(ref_codes)
    n_attr = query_codes.shape[1]
    matcher = KeyMatcher(query_codes, ref_codes, chunk_elements)
    place = np.empty(n_query, dtype=np.int64)  # each query tuple's position in the order the chunks run
    place[matcher.order] = np.arange(n_query)
    q_place = place[q_tuple]
    order = np.argsort(q_place, kind="stable")
    sorted_place = q_place[order]

    def run(start: int):
        stop = min(n_query, start + matcher.rows_per_chunk)
        rows = stop - start
        chunk_rows, matches = matcher.chunk(start)
        best = matches.max(axis=1)
        owner, ref = np.divmod(np.flatnonzero(matches == best[:, None]), n_ref)
        del matches
        q_from, q_to = np.searchsorted(sorted_place, [start, stop])
        queries = order[q_from:q_to]
        size, correct = pooled_counts(
            owner, ref_group[ref], rows, counter, q_place[queries] - start, q_lo[queries], q_hi[queries],
            chunk_elements,
        )
        return chunk_rows, size, n_attr - best.astype(np.int64), queries, correct

    results = matcher.map_chunks(run, workers)
    pool_size = np.zeros(n_query, dtype=np.int64)
    min_distance = np.zeros(n_query, dtype=np.int64)
    correct = np.zeros(len(q_tuple), dtype=np.int64)
    for chunk_rows, size, distance, queries, hits in results:
        pool_size[chunk_rows] = size
        min_distance[chunk_rows] = distance
        correct[queries] = hits
    return pool_size, min_distance, correct


class KeyMatcher:
    """How many key values each query tuple shares with each reference tuple, a chunk of query tuples at a time.

    Matches are counted on integer codes in chunks of ``chunk × |reference|`` small integers (never the full
    matrix). Keys with few values ("dense") match many pairs: two rows with the same values on all of them (the
    same dense pattern) match every reference row alike, so the dense matches are counted once per pair of distinct
    patterns and copied to the rows (queries run grouped by pattern, so a chunk holds few). Keys with many values
    match few pairs: 1 is added at the equal pairs. At 100,000 distinct Adult key tuples (8 dense keys, 8,419 ×
    20,294 patterns) that is 2-3x less time than comparing every pair key by key, with the same counts.

    Parameters
    ----------
    query_codes, ref_codes : ndarray
        (U, p) and (V, p) codes of distinct key tuples (equal values, equal codes).
    chunk_elements : int
        Bound on a chunk's matrix.

    Attributes
    ----------
    order : ndarray
        The query tuples in the order the chunks take them (grouped by dense pattern).
    rows_per_chunk : int
    """

    def __init__(self, query_codes: np.ndarray, ref_codes: np.ndarray, chunk_elements: int):
        n_query, n_ref = len(query_codes), len(ref_codes)
        n_attr = query_codes.shape[1]
        self.n_ref = n_ref
        self.dtype = np.uint8 if n_attr < 255 else np.uint16
        self.rows_per_chunk = max(1, min(n_query, chunk_elements // max(n_ref, 1)))
        self.query_codes = np.ascontiguousarray(query_codes)
        # A key with many values (a continuous number, a fine code) matches few pairs: adding 1 at those
        # pairs is cheaper than comparing every pair. A pair costs ~40× an elementwise comparison.
        self.dense, self.sparse = [], []
        for j in range(n_attr):
            width = int(max(query_codes[:, j].max(), ref_codes[:, j].max())) + 1
            ref_count = np.bincount(ref_codes[:, j], minlength=width)
            pairs = int(np.dot(np.bincount(query_codes[:, j], minlength=width), ref_count))
            if pairs * 64 < n_query * n_ref:
                by_code = np.argsort(ref_codes[:, j], kind="stable")
                bounds = np.concatenate([[0], np.cumsum(ref_count)])
                self.sparse.append((j, by_code, bounds))
            else:
                self.dense.append(j)
        if self.dense:
            self.q_pattern, self.q_patterns = _patterns(self.query_codes[:, self.dense])
            self.r_pattern, self.r_patterns = _patterns(ref_codes[:, self.dense])
            self.order = np.argsort(self.q_pattern, kind="stable")  # a chunk of rows then holds few patterns
        else:
            self.order = np.arange(n_query)

    def _dense_matches(self, chunk_rows: np.ndarray) -> np.ndarray:
        """(rows, n_ref) matches on the dense keys: per distinct pattern of the chunk, then per row."""
        patterns, local = np.unique(self.q_pattern[chunk_rows], return_inverse=True)
        per_pattern = np.zeros((len(patterns), len(self.r_patterns)), dtype=self.dtype)
        for k in range(len(self.dense)):
            per_pattern += self.q_patterns[patterns, k, None] == self.r_patterns[None, :, k]
        return per_pattern[:, self.r_pattern][local.ravel()]

    def map_chunks(self, run, workers: int | None) -> list:
        """``run(start)`` for the start of every chunk, on ``workers`` threads, results in chunk order."""
        starts = list(range(0, len(self.order), self.rows_per_chunk))
        workers = resolve_workers(workers)
        if workers > 1 and len(starts) > 1:
            with ThreadPoolExecutor(max_workers=workers) as threads:
                return list(threads.map(run, starts))
        return [run(s) for s in starts]

    def chunk(self, start: int) -> tuple[np.ndarray, np.ndarray]:
        """The query tuples ``order[start:start + rows_per_chunk]`` and their (rows, n_ref) match counts."""
        chunk_rows = self.order[start:start + self.rows_per_chunk]
        rows, n_ref = len(chunk_rows), self.n_ref
        matches = self._dense_matches(chunk_rows) if self.dense else np.zeros((rows, n_ref), dtype=self.dtype)
        flat = matches.reshape(-1)
        for j, by_code, bounds in self.sparse:
            code = self.query_codes[chunk_rows, j]
            length = bounds[code + 1] - bounds[code]
            offset = np.repeat(np.cumsum(length) - length - bounds[code], length)
            position = np.arange(len(offset)) - offset
            flat[np.repeat(np.arange(rows) * n_ref, length) + by_code[position]] += 1
        return chunk_rows, matches


def _patterns(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's pattern id (equal rows, equal ids) and the (n_patterns, columns) table of the patterns."""
    ids, n_ids = tuple_ids(codes)
    return ids, np.ascontiguousarray(codes[first_positions(ids, n_ids)])


