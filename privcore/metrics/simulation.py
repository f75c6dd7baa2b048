"""Simulation-based metrics (metrics.md §1; review §2.1): ZCAP, GCAP, AIR, CRP.

Each simulates an attacker who knows a real person's key attributes (quasi-identifiers) and reads the
synthetic table: the guesses ``G_y`` are the synthetic rows that match ``y`` on the keys (exactly for
ZCAP, at minimal Hamming distance for GCAP, at minimal Euclidean distance in key space for AIR), and a
guess is correct when its sensitive value is ``y``'s. CRP looks for whole-row copies.

How the counting stays fast: every value is replaced by an integer code over the union of the real and
the synthetic table, so "equal on the keys" is "equal codes". Real rows with the same key tuple share
their guesses, so each distinct key tuple is matched once; synthetic rows with the same key tuple are
counted together. The number of correct guesses in a pool is a count of synthetic rows whose
(key group, sensitive rank) falls in a range, answered by binary search in one sorted array. No
|Y| × |Z| matrix is ever held: GCAP's Hamming pass works on chunks of real key tuples, and AIR reads the
shared nearest-two pass in key space and runs the chunked :func:`privcore.engine.neighbors.all_within` pass
only for the real points whose two nearest synthetic rows tie.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
import numpy as np
import pandas as pd

from privcore.engine.context import MetricContext
from privcore.base.cores import resolve_workers
from privcore.metrics.details import AttributeInference, CopyCounts, KeyMatches
from privcore.base.errors import InputError
from privcore.metrics._exact_match import first_positions, joint_tuple_ids, tuple_ids, value_codes
from privcore.engine.neighbors import DEFAULT_CHUNK_ELEMENTS, all_within
from privcore.data.params import Param
from privcore.metrics.registry import NEEDS_REASONS, Explanation, MetricInfo, register
from privcore.metrics.results import MetricOutput, NotApplicable
from privcore.data.schema import NUMERICAL

REVIEW = "Trudslev et al., A review of privacy metrics for synthetic tabular data (PrivEval)"


# --------------------------------------------------------------------------------------------------
# ZCAP
# --------------------------------------------------------------------------------------------------


def compute_zcap(ctx: MetricContext) -> MetricOutput:
    """Categorical Zero Correct Attribution Probability.

    ``zcap(y) = |{z ∈ G_y : z[a_S] = y[a_S]}| / max(1, |G_y|)`` with ``G_y`` the synthetic rows equal to
    ``y`` on every key attribute (exact equality, numerical keys included); risk = mean over ``Y``.
    per_record (real) = ``zcap(y)``.

    ``details``: per real row ``pool_size`` (|G_y|) and ``correct`` (guesses with the true value);
    ``matched_share`` and ``real_rows_matched`` (rows with |G_y| > 0).

    Examples
    --------
    >>> from privcore import Schema, evaluate
    >>> import pandas as pd
    >>> real = pd.DataFrame({"k": ["a", "a", "b"], "s": ["x", "y", "x"]})
    >>> syn = pd.DataFrame({"k": ["a", "a", "a", "c"], "s": ["x", "x", "y", "x"]})
    >>> schema = Schema({"k": "categorical", "s": "categorical"}, sensitive="s")
    >>> evaluate(real, syn, schema, metrics="zcap")["zcap"].per_record.round(4).tolist()
    [0.6667, 0.3333, 0.0]
    """
    keys, sensitive = _keys_and_sensitive(ctx)
    (real_key, syn_key), n_keys = joint_tuple_ids([ctx.real, ctx.synthetic], keys)
    syn_rank, lo, hi, n_ranks = _sensitive_ranks(ctx.real[sensitive].to_numpy(), ctx.synthetic[sensitive].to_numpy())
    counter = _GroupRankCounter(syn_key, syn_rank, n_keys, n_ranks)
    pool = counter.group_size[real_key]
    correct = counter.count(real_key, lo, hi)
    per_record = correct / np.maximum(1, pool)
    risk = float(per_record.mean())
    warnings = []
    if not (pool > 0).any():
        warnings.append(
            "No synthetic row equals any real record on all key attributes (exact equality, numerical keys "
            "included), so ZCAP is 0 by construction; GCAP and AIR relax the match."
        )
    return MetricOutput(
        risk=risk,
        raw=risk,
        per_record=per_record,
        details=KeyMatches(
            pool_size=pool,
            correct=correct,
            matched_share=float((pool > 0).mean()),
            real_rows_matched=int((pool > 0).sum()),
        ),
        params={"key_columns": keys, "sensitive": sensitive},
        warnings=warnings,
    )


# --------------------------------------------------------------------------------------------------
# GCAP
# --------------------------------------------------------------------------------------------------


def compute_gcap(ctx: MetricContext) -> MetricOutput:
    """Categorical Generalised Correct Attribution Probability.

    ``gcap(y) = |{z ∈ G_y : z[a_S] = y[a_S]}| / |G_y|`` with ``G_y`` *every* synthetic row at the minimal
    Hamming distance to ``y`` on the key attributes (ties pooled, so ``G_y`` is never empty); risk = mean
    over ``Y``. per_record (real) = ``gcap(y)``.

    ``details``: per real row ``pool_size`` (|G_y|), ``correct`` and ``hamming_distance`` (the minimal
    number of differing keys); ``n_keys`` and ``exact_match_share`` (rows at distance 0).

    Notes
    -----
    The Hamming distance counts key attributes that differ (exact equality of prepared values, numerical
    keys included). Real rows whose key tuple occurs in the synthetic table are at distance 0 and get
    ZCAP's pool; only the other distinct real key tuples are compared with every distinct synthetic key
    tuple, in chunks on integer codes.

    Examples
    --------
    >>> from privcore import Schema, evaluate
    >>> import pandas as pd
    >>> real = pd.DataFrame({"k1": ["a", "b"], "k2": ["p", "q"], "s": ["x", "y"]})
    >>> syn = pd.DataFrame({"k1": ["a", "b", "c"], "k2": ["q", "p", "q"], "s": ["x", "x", "y"]})
    >>> schema = Schema({"k1": "categorical", "k2": "categorical", "s": "categorical"}, sensitive="s")
    >>> evaluate(real, syn, schema, metrics="gcap")["gcap"].per_record.round(4).tolist()
    [1.0, 0.3333]
    """
    keys, sensitive = _keys_and_sensitive(ctx)
    n_real = len(ctx.real)
    real_codes, syn_codes = value_codes([ctx.real, ctx.synthetic], keys)
    key_id, n_keys = tuple_ids(np.vstack([real_codes, syn_codes]))
    real_key, syn_key = key_id[:n_real], key_id[n_real:]
    syn_rank, lo, hi, n_ranks = _sensitive_ranks(ctx.real[sensitive].to_numpy(), ctx.synthetic[sensitive].to_numpy())
    counter = _GroupRankCounter(syn_key, syn_rank, n_keys, n_ranks)

    # Distance 0: the real key tuple occurs in the synthetic table; the pool is ZCAP's.
    pool = counter.group_size[real_key].astype(np.int64)
    correct = counter.count(real_key, lo, hi)
    hamming = np.zeros(n_real, dtype=np.int64)
    unmatched = pool == 0
    if unmatched.any():
        # Distinct unmatched real key tuples against distinct synthetic key tuples.
        rows = np.flatnonzero(unmatched)
        _, first_row, tuple_of_row = np.unique(real_key[rows], return_index=True, return_inverse=True)
        query_codes = real_codes[rows[first_row]]
        syn_tuples, syn_first = np.unique(syn_key, return_index=True)
        ref_codes = syn_codes[syn_first]
        # One query per distinct (unmatched tuple, sensitive range).
        q_id, n_q = tuple_ids(np.column_stack([tuple_of_row, lo[rows], hi[rows]]))
        q_first = first_positions(q_id, n_q)
        q_tuple, q_lo, q_hi = tuple_of_row[q_first], lo[rows][q_first], hi[rows][q_first]
        tuple_pool, tuple_distance, q_correct = _hamming_pool_counts(
            query_codes, ref_codes, syn_tuples, counter, q_tuple, q_lo, q_hi,
            chunk_elements=ctx.shared.chunk_elements, workers=ctx.workers,
        )
        pool[rows] = tuple_pool[tuple_of_row]
        hamming[rows] = tuple_distance[tuple_of_row]
        correct[rows] = q_correct[q_id]
    per_record = correct / pool
    risk = float(per_record.mean())
    return MetricOutput(
        risk=risk,
        raw=risk,
        per_record=per_record,
        details=KeyMatches(
            pool_size=pool,
            correct=correct,
            hamming_distance=hamming,
            n_keys=len(keys),
            exact_match_share=float((hamming == 0).mean()),
        ),
        params={"key_columns": keys, "sensitive": sensitive},
    )


# --------------------------------------------------------------------------------------------------
# AIR
# --------------------------------------------------------------------------------------------------


def compute_air(ctx: MetricContext) -> MetricOutput:
    """Attribute Inference Risk.

    ``G_y`` = synthetic rows at the minimal ``d_E`` to ``y`` in key space (E restricted to the keys; ties
    within 1e-12·d_max pooled). ``TP`` / ``FP`` = correct / wrong guesses in ``G_y`` (numerical sensitive:
    correct when ``|z[a_S] − y[a_S]| ≤ tolerance·|y[a_S]|``); ``FN = 1`` if ``TP = 0`` and some synthetic
    row anywhere is correct. ``F1(y) = 2TP / (2TP + FP + FN)``; risk = ``Σ_{distinct y} w(y)·F1(y)`` with
    ``w(y) = −P(y) log P(y) / H(Y)`` over distinct full real tuples (mean F1 when ``H(Y) = 0``).
    per_record (real) = ``F1(y)``.

    ``details``: per real row ``pool_size``, ``true_positives``, ``false_positives``,
    ``false_negatives``, ``f1``, ``weight`` (``w`` of the row's full tuple, so each distinct tuple counts
    once in the sum) and ``nearest_distance`` (d1 in key space); ``tie_tolerance``, ``entropy`` (H(Y),
    natural log) and ``distinct_tuples``.

    Examples
    --------
    >>> from privcore import Schema, evaluate
    >>> import pandas as pd
    >>> real = pd.DataFrame({"k": [0.0, 10.0], "s": ["x", "y"]})
    >>> syn = pd.DataFrame({"k": [1.0, 1.0, 9.0], "s": ["x", "y", "x"]})
    >>> schema = Schema({"k": "numerical", "s": "categorical"}, sensitive="s")
    >>> result = evaluate(real, syn, schema, metrics="air")["air"]
    >>> result.per_record.round(4).tolist(), round(result.risk, 4)
    ([0.6667, 0.0], 0.3333)
    """
    keys, sensitive = _keys_and_sensitive(ctx, categorical=False)
    tolerance = _tolerance(ctx.params.get("tolerance", 0.1))
    real_enc = ctx.encoded("E_keys", "real")
    syn_enc = ctx.encoded("E_keys", "synthetic")
    extremes = ctx.extremes("E_keys")
    nearest = ctx.neighbours("E_keys", "real", "synthetic")
    tie = extremes.tie_tolerance if np.isfinite(extremes.d_max) else 0.0

    # Pools depend only on the key encoding: match distinct real key points to distinct synthetic ones.
    # Where the second-nearest synthetic row is beyond the tie tolerance the pool is the nearest row
    # alone; only the other points need the pass that collects every row within d1 + tolerance.
    real_point, real_first = _distinct_rows(real_enc)
    syn_point, syn_first = _distinct_rows(syn_enc)
    radius = nearest.d1[real_first] + tie
    tied = np.flatnonzero(nearest.d2[real_first] <= radius)
    within = all_within(real_enc[real_first[tied]], syn_enc[syn_first], radius[tied],
                        chunk_elements=ctx.shared.chunk_elements, workers=ctx.workers)
    alone = np.setdiff1d(np.arange(len(real_first)), tied, assume_unique=True)
    owner = np.concatenate([tied[within.rows()], alone])
    group = np.concatenate([within.indices, syn_point[nearest.i1[real_first[alone]]]])
    order = np.argsort(owner, kind="stable")
    owner, group = owner[order], group[order]

    numerical = ctx.schema.types[sensitive] == NUMERICAL
    real_s, syn_s = ctx.real[sensitive].to_numpy(), ctx.synthetic[sensitive].to_numpy()
    syn_rank, lo, hi, n_ranks = _sensitive_ranks(real_s, syn_s, tolerance if numerical else None)
    counter = _GroupRankCounter(syn_point, syn_rank, len(syn_first), n_ranks)
    q_id, n_q = tuple_ids(np.column_stack([real_point, lo, hi]))
    q_first = first_positions(q_id, n_q)
    point_pool, q_correct = _pooled_counts(
        owner, group, len(real_first), counter, real_point[q_first], lo[q_first], hi[q_first],
        ctx.shared.chunk_elements,
    )
    pool = point_pool[real_point]
    tp = q_correct[q_id]
    fp = pool - tp
    anywhere = np.concatenate([[0], np.cumsum(np.bincount(syn_rank, minlength=n_ranks))])
    fn = ((tp == 0) & (anywhere[hi] - anywhere[lo] > 0)).astype(np.int64)
    denominator = 2 * tp + fp + fn
    f1 = np.divide(2.0 * tp, denominator, out=np.zeros(len(tp)), where=denominator > 0)

    # Entropy weights over distinct full real tuples.
    (tuple_id,), n_tuples = joint_tuple_ids([ctx.real], ctx.schema.columns)
    p = np.bincount(tuple_id, minlength=n_tuples) / len(tuple_id)
    plogp = -p * np.log(p)
    entropy = float(plogp.sum())
    tuple_f1 = f1[first_positions(tuple_id, n_tuples)]
    if entropy > 0:
        weight = plogp / entropy
        risk = float(np.dot(weight, tuple_f1))
    else:
        weight = np.ones(n_tuples)
        risk = float(f1.mean())
    risk = min(1.0, max(0.0, risk))
    return MetricOutput(
        risk=risk,
        raw=risk,
        per_record=f1,
        details=AttributeInference(
            pool_size=pool,
            true_positives=tp,
            false_positives=fp,
            false_negatives=fn,
            f1=f1,
            weight=weight[tuple_id],
            nearest_distance=nearest.d1,
            tie_tolerance=tie,
            entropy=entropy,
            distinct_tuples=int(n_tuples),
        ),
        params={
            "tolerance": tolerance,
            "key_columns": keys,
            "sensitive": sensitive,
            "space": "E restricted to the key attributes",
        },
    )


# --------------------------------------------------------------------------------------------------
# CRP
# --------------------------------------------------------------------------------------------------


def compute_crp(ctx: MetricContext) -> MetricOutput:
    """Common Row Proportion.

    ``risk = |{distinct z ∈ Z : z = y for some y ∈ Y}| / (|Y| + 1e-8)``, equality on every analysed
    attribute (constant columns included). per_record (real) = 1 if an exact synthetic copy exists.

    ``details``: ``copied_distinct_rows`` (the numerator), ``real_rows_copied`` and
    ``synthetic_rows_copies`` (rows, duplicates included, on each side that have a twin on the other).

    Examples
    --------
    >>> from privcore import evaluate
    >>> import pandas as pd
    >>> real = pd.DataFrame({"a": [1, 2, 3, 4], "b": list("xyxy")})
    >>> round(evaluate(real, real.iloc[[0, 0, 1]], metrics="crp")["crp"].risk, 6)
    0.5
    """
    columns = ctx.schema.columns
    n_real = len(ctx.real)
    (real_id, syn_id), _ = joint_tuple_ids([ctx.real, ctx.synthetic], columns)
    copied = np.intersect1d(syn_id, real_id)  # distinct synthetic rows equal to some real row
    per_record = np.isin(real_id, syn_id).astype(float)
    risk = len(copied) / (n_real + 1e-8)
    return MetricOutput(
        risk=risk,
        raw=risk,
        per_record=per_record,
        details=CopyCounts(
            copied_distinct_rows=int(len(copied)),
            real_rows_copied=int(per_record.sum()),
            synthetic_rows_copies=int(np.isin(syn_id, real_id).sum()),
        ),
    )


# --------------------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------------------


def _tolerance(value) -> float:
    """AIR's relative tolerance as a float ≥ 0 (InputError otherwise)."""
    try:
        tolerance = float(value)
    except (TypeError, ValueError):
        tolerance = float("nan")
    if isinstance(value, bool) or not math.isfinite(tolerance) or tolerance < 0:
        raise InputError(f"AIR's tolerance must be a number ≥ 0 (a share of the true value); got {value!r}.")
    return tolerance


def _keys_and_sensitive(ctx: MetricContext, categorical: bool = True) -> tuple[list[str], str]:
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


def _distinct_rows(encoded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row the id of its distinct encoded point, and the first row of each point."""
    if encoded.shape[1] == 0:  # every key attribute constant in Y: one point
        return np.zeros(len(encoded), dtype=np.int64), np.zeros(min(1, len(encoded)), dtype=np.int64)
    codes = np.column_stack([pd.factorize(encoded[:, j] + 0.0)[0] for j in range(encoded.shape[1])])
    point, n_points = tuple_ids(codes)
    return point, first_positions(point, n_points)


def _sensitive_ranks(
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


class _GroupRankCounter:
    """Counts synthetic rows by (group, sensitive rank range) with one sorted array and binary search.

    Parameters
    ----------
    group, rank : ndarray
        Per synthetic row: its group (key tuple or key point) and its sensitive rank.
    n_groups, n_ranks : int
    """

    def __init__(self, group: np.ndarray, rank: np.ndarray, n_groups: int, n_ranks: int):
        self.n_ranks = int(n_ranks)
        self.keys = np.sort(group.astype(np.int64) * self.n_ranks + rank)
        self.group_size = np.bincount(group, minlength=n_groups).astype(np.int64)

    def count(self, group: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Number of synthetic rows in ``group`` with a rank in ``[lo, hi)`` (elementwise)."""
        base = group.astype(np.int64) * self.n_ranks
        return np.searchsorted(self.keys, base + hi) - np.searchsorted(self.keys, base + lo)


def _pooled_counts(
    pair_owner: np.ndarray,
    pair_group: np.ndarray,
    n_owners: int,
    counter: _GroupRankCounter,
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
    counter : _GroupRankCounter
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


def _hamming_pool_counts(
    query_codes: np.ndarray,
    ref_codes: np.ndarray,
    ref_group: np.ndarray,
    counter: _GroupRankCounter,
    q_tuple: np.ndarray,
    q_lo: np.ndarray,
    q_hi: np.ndarray,
    *,
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
    workers: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GCAP's pools: every reference key tuple at minimal Hamming distance from each query tuple.

    Matches are counted attribute by attribute on integer codes in chunks of ``chunk × |reference|``
    small integers (never the full matrix): by comparing every pair for keys with few values, by adding
    1 at the equal pairs for keys with many; each chunk turns its pools into counts before the next.

    Parameters
    ----------
    query_codes : ndarray
        (U, p) codes of the distinct real key tuples.
    ref_codes : ndarray
        (V, p) codes of the distinct synthetic key tuples.
    ref_group : ndarray
        (V,) group of each reference tuple in ``counter``.
    counter : _GroupRankCounter
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
    dtype = np.uint8 if n_attr < 255 else np.uint16
    rows_per_chunk = max(1, min(n_query, chunk_elements // max(n_ref, 1)))
    order = np.argsort(q_tuple, kind="stable")
    sorted_tuple = q_tuple[order]
    query_codes = np.ascontiguousarray(query_codes)
    # A key with many values (a continuous number, a fine code) matches few pairs: adding 1 at those
    # pairs is cheaper than comparing every pair. A pair costs ~40× an elementwise comparison.
    dense, sparse = [], []
    for j in range(n_attr):
        width = int(max(query_codes[:, j].max(), ref_codes[:, j].max())) + 1
        ref_count = np.bincount(ref_codes[:, j], minlength=width)
        pairs = int(np.dot(np.bincount(query_codes[:, j], minlength=width), ref_count))
        if pairs * 64 < n_query * n_ref:
            by_code = np.argsort(ref_codes[:, j], kind="stable")
            bounds = np.concatenate([[0], np.cumsum(ref_count)])
            sparse.append((j, by_code, bounds))
        else:
            dense.append((j, np.ascontiguousarray(ref_codes[:, j])))

    def run(start: int):
        stop = min(n_query, start + rows_per_chunk)
        rows = stop - start
        matches = np.zeros((rows, n_ref), dtype=dtype)
        if dense:
            equal = np.empty((rows, n_ref), dtype=bool)
            for j, ref_column in dense:
                np.equal(query_codes[start:stop, j, None], ref_column[None, :], out=equal)
                np.add(matches, equal, out=matches)
            del equal
        flat = matches.reshape(-1)
        for j, by_code, bounds in sparse:
            code = query_codes[start:stop, j]
            length = bounds[code + 1] - bounds[code]
            offset = np.repeat(np.cumsum(length) - length - bounds[code], length)
            position = np.arange(len(offset)) - offset
            flat[np.repeat(np.arange(rows) * n_ref, length) + by_code[position]] += 1
        best = matches.max(axis=1)
        owner, ref = np.divmod(np.flatnonzero(matches == best[:, None]), n_ref)
        del matches, flat
        q_from, q_to = np.searchsorted(sorted_tuple, [start, stop])
        queries = order[q_from:q_to]
        size, correct = _pooled_counts(
            owner, ref_group[ref], rows, counter, q_tuple[queries] - start, q_lo[queries], q_hi[queries],
            chunk_elements,
        )
        return start, stop, size, n_attr - best.astype(np.int64), queries, correct

    starts = list(range(0, n_query, rows_per_chunk))
    workers = resolve_workers(workers)
    if workers > 1 and len(starts) > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(run, starts))
    else:
        results = [run(s) for s in starts]
    pool_size = np.zeros(n_query, dtype=np.int64)
    min_distance = np.zeros(n_query, dtype=np.int64)
    correct = np.zeros(len(q_tuple), dtype=np.int64)
    for start, stop, size, distance, queries, hits in results:
        pool_size[start:stop] = size
        min_distance[start:stop] = distance
        correct[queries] = hits
    return pool_size, min_distance, correct


# --------------------------------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------------------------------

_CAP_ATTACKER = (
    "A real person's key attributes (quasi-identifiers such as age, sex, postcode) and the whole synthetic "
    "table; not their sensitive value."
)

register(
    MetricInfo(
        id="zcap",
        name="Zero Correct Attribution Probability (ZCAP)",
        family="Simulation-based",
        summary="How often synthetic rows with exactly a real person's key values reveal their sensitive value.",
        attacker_knows=_CAP_ATTACKER,
        needs=frozenset({"categorical_sensitive"}),
        per_record_unit="real",
        raw_meaning="Same as risk: the mean share of correct guesses (1 = every match reveals the value).",
        reference=f"{REVIEW}, §2.1.1; Hittmeir et al. (2020).",
        explanation=Explanation(
            attack="Someone who knows a real person's key attributes looks up the synthetic rows with exactly "
            "those key values and reads off their sensitive value, guessing that the person has it too.",
            steps=(
                "For each real person, take the synthetic rows equal to them on every key attribute.",
                "Count how many of these rows carry the person's true sensitive value.",
                "Divide by the number of matching rows (a person with no match scores 0).",
                "Average over all real people.",
            ),
            high="Synthetic rows that share a person's key values usually also share their sensitive value: "
            "knowing the keys reveals it.",
            low="Exact key matches are rare or point to other sensitive values, so the lookup teaches the "
            "attacker little.",
            blind_spots="Only exact matches count: with continuous or many key attributes almost nobody is "
            "matched and the score is near 0 even when near-matches leak (GCAP and AIR relax this); it also "
            "ignores how common the sensitive value is anyway.",
            note="",
        ),
        compute=compute_zcap,
        details_type=KeyMatches,
        min_rows=1,
    )
)

register(
    MetricInfo(
        id="gcap",
        name="Generalised Correct Attribution Probability (GCAP)",
        family="Simulation-based",
        summary="Like ZCAP, but every person is matched to the synthetic rows closest to them on the keys.",
        attacker_knows=_CAP_ATTACKER,
        needs=frozenset({"categorical_sensitive"}),
        per_record_unit="real",
        raw_meaning="Same as risk: the mean share of correct guesses among the closest rows.",
        reference=f"{REVIEW}, §2.1.2; Hittmeir et al. (2020).",
        explanation=Explanation(
            attack="Someone who knows a real person's key attributes takes the synthetic rows that agree with "
            "them on as many key attributes as possible and guesses the sensitive value those rows carry.",
            steps=(
                "For each real person, count on how many key attributes each synthetic row differs from them "
                "(the Hamming distance).",
                "Keep every synthetic row at the smallest such count (all ties).",
                "The person's score is the share of these rows that carry their true sensitive value.",
                "Average over all real people.",
            ),
            high="The synthetic rows most similar to a person on the keys usually carry their true sensitive "
            "value: the keys give it away.",
            low="Even the most similar synthetic rows rarely carry the person's sensitive value.",
            blind_spots="Every differing attribute counts the same whatever the size of the difference (age 30 "
            "vs 31 is as different as 30 vs 80), numerical keys match only when exactly equal, and a sensitive "
            "value that is common anyway scores high without any leak.",
            note="",
        ),
        compute=compute_gcap,
        details_type=KeyMatches,
        min_rows=1,
    )
)

register(
    MetricInfo(
        id="air",
        name="Attribute Inference Risk (AIR)",
        family="Simulation-based",
        summary="F1 score of guessing a person's sensitive value from the synthetic rows nearest to them on the keys.",
        attacker_knows=_CAP_ATTACKER,
        needs=frozenset({"sensitive"}),
        per_record_unit="real",
        raw_meaning="Same as risk: the entropy-weighted F1 score of the attack (1 = always right).",
        reference=f"{REVIEW}, §2.1.3; Yan et al. (2022).",
        params=(Param("tolerance", "float", 0.1, "Relative tolerance",
                      "A guessed numerical sensitive value counts as correct when it is within this share of the "
                      "true value (0.1 = within 10 %); unused for a categorical sensitive column.",
                      minimum=0.0, step=0.01),),
        explanation=Explanation(
            attack="Someone who knows a real person's key attributes finds the synthetic rows nearest to them "
            "(Euclidean distance on scaled, one-hot encoded keys) and guesses their sensitive value from them; "
            "the attack is scored as a prediction task.",
            steps=(
                "For each real person, take every synthetic row at the smallest distance on the key attributes.",
                "Count correct guesses (same category; for a number, within 10 % of the true value) and wrong "
                "ones; a miss counts when no guess is right but some synthetic row somewhere would have been.",
                "Turn these counts into an F1 score per person.",
                "Average the F1 scores with weights that favour common records (entropy weights).",
            ),
            high="The synthetic rows closest to a person on the keys reveal their sensitive value.",
            low="The nearest synthetic rows seldom carry the person's sensitive value.",
            blind_spots="The entropy weights give a record seen once a small weight, so leaks about rare, "
            "unusual people (the most exposed) barely move the score; distances depend on the scaling, so a "
            "key with a wide range dominates; a common sensitive value scores high without any leak.",
            note="Choice: for a numerical sensitive attribute a guess is correct within 10 % of the true value "
            "(the review divides by the guess); the 10 % is settable.",
        ),
        compute=compute_air,
        passes=(('E_keys', 'real', 'synthetic'),),
        details_type=AttributeInference,
        min_rows=1,
    )
)

register(
    MetricInfo(
        id="crp",
        name="Common Row Proportion (CRP)",
        family="Simulation-based",
        summary="Share of real records that appear verbatim in the synthetic data.",
        attacker_knows="Nothing beyond the synthetic table: anyone can look for exact copies of real people.",
        needs=frozenset(),
        per_record_unit="real",
        raw_meaning="Same as risk: higher = more real rows copied.",
        reference=f"{REVIEW}, §2.1.4; Qian et al. (2023).",
        explanation=Explanation(
            attack="Someone who holds a real person's full record checks whether that exact record occurs in the "
            "synthetic table; a copy confirms the person was in the training data and reveals every attribute.",
            steps=(
                "Take the distinct rows of the synthetic table.",
                "Count how many of them equal some real record on every column.",
                "Divide by the number of real records.",
            ),
            high="Many real records were copied verbatim: the synthetic table republishes real people.",
            low="No synthetic row is an exact copy of a real record.",
            blind_spots="Misses near-copies (one value changed or a number off by one) and copies of rare values "
            "inside otherwise new rows; with continuous columns exact copies are rare even for a leaky generator.",
            note="",
        ),
        compute=compute_crp,
        details_type=CopyCounts,
        figures=("famd_map",),
        min_rows=1,
    )
)
