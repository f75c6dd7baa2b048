"""Simulation-based metrics (metrics.md §1; review §2.1): ZCAP, GCAP, AIR, CRP."""

from __future__ import annotations

import math

import numpy as np

from privcore.data import NUMERICAL, Param
from privcore.engine import POOL, TIE_FACTOR, MetricContext, all_within
from privcore.metrics._exact_match import first_positions, joint_tuple_ids, tuple_ids, value_codes
from privcore.metrics.details import AttributeInference, CopyCounts, KeyMatches
from privcore.metrics.key_levels import HammingLevels
from privcore.metrics.key_matching import (
    GroupRankCounter,
    distinct_rows,
    hamming_pool_counts,
    keys_and_sensitive,
    pooled_counts,
    sensitive_ranks,
)
from privcore.metrics.registry import Explanation, MetricInfo, register
from privcore.metrics.results import MetricOutput

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

    Notes
    -----
    Each simulates an attacker who knows a real person's key attributes (quasi-identifiers) and reads the
    synthetic table: the guesses ``G_y`` are the synthetic rows that match ``y`` on the keys (exactly for
    ZCAP, at minimal Hamming distance for GCAP, at minimal Euclidean distance in key space for AIR), and a
    guess is correct when its sensitive value is ``y``'s. CRP looks for whole-row copies.

    How the counting stays fast (:mod:`~privcore.metrics.key_matching`): every value is replaced by an integer
    code over the union of the real and the synthetic table, so "equal on the keys" is "equal codes". Real rows with the same key tuple share
    their guesses, so each distinct key tuple is matched once; synthetic rows with the same key tuple are
    counted together. The number of correct guesses in a pool is a count of synthetic rows whose
    (key group, sensitive rank) falls in a range, answered by binary search in one sorted array. No
    |Y| × |Z| matrix is ever held: GCAP's Hamming pass works on chunks of real key tuples, and AIR reads the
    shared nearest-two pass in key space and runs the chunked :func:`privcore.engine.neighbors.all_within` pass
    only for the real points whose two nearest synthetic rows tie.

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
    keys, sensitive = keys_and_sensitive(ctx)
    (real_key, syn_key), n_keys = joint_tuple_ids([ctx.real, ctx.synthetic], keys)
    syn_rank, lo, hi, n_ranks = sensitive_ranks(ctx.real[sensitive].to_numpy(), ctx.synthetic[sensitive].to_numpy())
    counter = GroupRankCounter(syn_key, syn_rank, n_keys, n_ranks)
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
    keys, sensitive = keys_and_sensitive(ctx)
    in_pool = ctx.shared.pool_rows(ctx.role_of("synthetic"))
    if in_pool is not None:
        pool, correct, hamming = _gcap_levels(ctx, keys, sensitive).pools(
            in_pool, chunk_elements=ctx.shared.chunk_elements, workers=ctx.workers)
    else:
        pool, correct, hamming = _gcap_pools(ctx, keys, sensitive)
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


def _gcap_levels(ctx: MetricContext, keys: list[str], sensitive: str) -> HammingLevels:
    """The real key tuples' nearest pool tuples: one pass for GCAP on every table drawn from the pool.

    The synthetic table, the holdout and their size-matched subsets (:class:`~privcore.metrics.key_levels.HammingLevels`).
    """
    shared = ctx.shared
    return shared.cached(("gcap_levels", tuple(keys), sensitive), lambda: HammingLevels.build(
        ctx.real, shared.table(POOL), keys, sensitive, chunk_elements=shared.chunk_elements, workers=ctx.workers))


def _gcap_pools(ctx: MetricContext, keys: list[str], sensitive: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GCAP's pool size, correct guesses and minimal Hamming distance per real row, by a pass over the synthetic table."""
    n_real = len(ctx.real)
    real_codes, syn_codes = value_codes([ctx.real, ctx.synthetic], keys)
    key_id, n_keys = tuple_ids(np.vstack([real_codes, syn_codes]))
    real_key, syn_key = key_id[:n_real], key_id[n_real:]
    syn_rank, lo, hi, n_ranks = sensitive_ranks(ctx.real[sensitive].to_numpy(), ctx.synthetic[sensitive].to_numpy())
    counter = GroupRankCounter(syn_key, syn_rank, n_keys, n_ranks)

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
        tuple_pool, tuple_distance, q_correct = hamming_pool_counts(
            query_codes, ref_codes, syn_tuples, counter, q_tuple, q_lo, q_hi,
            chunk_elements=ctx.shared.chunk_elements, workers=ctx.workers,
        )
        pool[rows] = tuple_pool[tuple_of_row]
        hamming[rows] = tuple_distance[tuple_of_row]
        correct[rows] = q_correct[q_id]
    return pool, correct, hamming


# --------------------------------------------------------------------------------------------------
# AIR
# --------------------------------------------------------------------------------------------------


def _air_pools(ctx: MetricContext, nearest, real_points: np.ndarray, syn_points: np.ndarray, real_first: np.ndarray,
               syn_point: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """AIR's pools: per distinct real key point, the distinct synthetic points within d1 + the tie tolerance.

    Returns the tolerance and the pools as (owner, synthetic point) pairs sorted by owner. Where the second-nearest
    synthetic row is beyond the tolerance the pool is the nearest row alone; only the other points need the pass that
    collects every row within d1 + tolerance.

    The tolerance is 1e-12 × d_max (metrics.md §0). On the whole synthetic table d_max is computed (it is reported).
    On a size-matched subset, whose details are never shown, the pools are first taken with the tolerance of an upper
    bound on d_max (:class:`privcore.engine.tolerance.TieTolerance`); they are the exact tolerance's pools unless a
    distance falls between what the lower and the upper bound allow, and only then is the subset's d_max computed:
    its farthest pairs cost a pass of their own per subset.
    """
    d1, d2 = nearest.d1[real_first], nearest.d2[real_first]

    def pools(tie: float):
        radius = d1 + tie
        tied = np.flatnonzero(d2 <= radius)
        within = all_within(real_points[tied], syn_points, radius[tied], chunk_elements=ctx.shared.chunk_elements,
                            workers=ctx.workers)
        return tied, within

    if ctx.shared.subsample_of(ctx.role_of("synthetic")) is None:
        extremes = ctx.extremes("E_keys")
        tie = extremes.tie_tolerance if np.isfinite(extremes.d_max) else 0.0
        tied, within = pools(tie)
    else:
        bounded = ctx.tie_tolerance("E_keys")
        low, tie = TIE_FACTOR * bounded.low, TIE_FACTOR * bounded.high
        tied, within = pools(tie)
        between = (d2 > d1 + low) & (d2 <= d1 + tie)
        if not np.isfinite(tie) or between.any() or (within.distance > (d1[tied] + low)[within.rows()]).any():
            tie = bounded.value if np.isfinite(bounded.value) else 0.0
            tied, within = pools(tie)
    alone = np.setdiff1d(np.arange(len(real_first)), tied, assume_unique=True)
    owner = np.concatenate([tied[within.rows()], alone])
    group = np.concatenate([within.indices, syn_point[nearest.i1[real_first[alone]]]])
    order = np.argsort(owner, kind="stable")
    return tie, owner[order], group[order]


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
    keys, sensitive = keys_and_sensitive(ctx, categorical=False)
    tolerance = float(ctx.params.get("tolerance", 0.1))  # checked against its Param by check_value
    real_enc = ctx.encoded("E_keys", "real")
    syn_enc = ctx.encoded("E_keys", "synthetic")
    nearest = ctx.neighbours("E_keys", "real", "synthetic")

    # Pools depend only on the key encoding: match distinct real key points to distinct synthetic ones.
    real_point, real_first = distinct_rows(real_enc)
    syn_point, syn_first = distinct_rows(syn_enc)
    real_points, syn_points = real_enc[real_first], syn_enc[syn_first]
    # Read-only, as the evaluation's encodings: the engine then keeps what it derives from them between its passes.
    real_points.flags.writeable = syn_points.flags.writeable = False
    tie, owner, group = _air_pools(ctx, nearest, real_points, syn_points, real_first, syn_point)

    numerical = ctx.schema.types[sensitive] == NUMERICAL
    real_s, syn_s = ctx.real[sensitive].to_numpy(), ctx.synthetic[sensitive].to_numpy()
    syn_rank, lo, hi, n_ranks = sensitive_ranks(real_s, syn_s, tolerance if numerical else None)
    counter = GroupRankCounter(syn_point, syn_rank, len(syn_first), n_ranks)
    q_id, n_q = tuple_ids(np.column_stack([real_point, lo, hi]))
    q_first = first_positions(q_id, n_q)
    point_pool, q_correct = pooled_counts(
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
        # math.fsum, not np.dot: BLAS splits long dot products among its threads, so the last bits of the
        # risk depended on the machine's cores (measured: 5e-15 at 100,000 rows between one and two threads).
        risk = math.fsum(weight * tuple_f1)
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
# Registration
# --------------------------------------------------------------------------------------------------

_CAP_ATTACKER = (
    "A real person's key attributes (quasi-identifiers such as age, sex, postcode) and the whole synthetic "
    "table; not their sensitive value."
)

register(
    MetricInfo(
        id="zcap",
        order=10,
        cost=(0.01, 1.1),
        assumption="exact match on the key columns",
        one_thread_blas=True,
        size_matched=True,  # a larger table searched scores closer by itself
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
        order=20,
        cost=(0.1, 1.3),
        assumption="exact match on the key columns",
        one_thread_blas=True,
        size_matched=True,  # a larger table searched scores closer by itself
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
        order=30,
        cost=(0.32, 1.2),
        assumption="distance",
        one_thread_blas=True,
        size_matched=True,  # a larger table searched scores closer by itself
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
        order=40,
        cost=(0.02, 0.9),
        assumption="exact match on every column",
        one_thread_blas=True,
        size_matched=True,  # a larger table searched scores closer by itself
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
