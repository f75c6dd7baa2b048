"""SynQP identity-disclosure metrics (metrics.md §3; Hu et al. 2026): SD-IDR(ε) and SD-MIA(ε).

SD-IDR(ε) = IDR(Y, Z; ε); SD-MIA(ε) = IDR(Y, Z; ε) − IDR(H, Z; ε) (see :func:`identity_disclosure`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privcore.base import NotApplicable
from privcore.data import NUMERICAL, Param
from privcore.engine import MetricContext
from privcore.metrics._exact_match import first_positions, joint_tuple_ids
from privcore.metrics.details import EpsilonSeries
from privcore.metrics.registry import Explanation, MetricInfo, register
from privcore.metrics.results import MetricOutput

#: The disclosure threshold the SynQP paper reports against.
THRESHOLD = 0.09

DEFAULT_EPSILONS = (0.0, 1.0, 2.0, 3.0)

#: At most this many relabellings for SD-MIA's fresh-sample reference (:func:`sd_mia_null`): each matches the
#: tables again, where the proxy tests only reshuffle values already computed.
NULL_DRAWS = 10

EPSILONS = Param(
    "epsilons", "numbers", list(DEFAULT_EPSILONS), "Budgets ε",
    "Numbers ≥ 0: a real and a synthetic record match when their categorical key values are equal and their "
    "numerical key values differ by at most ε in total (in the columns' own units); the score is the one at the "
    "smallest non-zero ε.", minimum=0.0)

REFERENCE = (
    "Hu, Li, Bahamyirou and Chen, SynQP: A Framework and Metrics for Evaluating the Quality and Privacy Risk "
    "of Synthetic Data (arXiv 2601.12124), SD-IDR and SD-MIA"
)


@dataclass
class DisclosureCurve:
    """IDR(Y, Z; ε) for a list of ε.

    Attributes
    ----------
    epsilons : list of float
    idr : numpy.ndarray
        ``max(synthetic_term, real_term)`` per ε.
    synthetic_term : numpy.ndarray
        ``Σ_{z matching some y} 1/f_Z(z) / |Y|`` per ε.
    real_term : numpy.ndarray
        ``Σ_{y matching some z} 1/f_Y(y) / |Z|`` per ε.
    real_min_l1 : numpy.ndarray
        Per real row, the smallest summed absolute numerical-key difference to a synthetic row with the same
        categorical keys (``inf`` when none is within the largest ε; exact only up to it).
    """

    epsilons: list[float]
    idr: np.ndarray
    synthetic_term: np.ndarray
    real_term: np.ndarray
    real_min_l1: np.ndarray

    def at(self, epsilon: float) -> float:
        """IDR at ``epsilon`` (one of :attr:`epsilons`)."""
        return float(self.idr[self.epsilons.index(epsilon)])


def _distinct_tuples(df: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """Tuple id of each row and the distinct tuples (row ``i`` of the result is tuple id ``i``)."""
    (ids,), n_ids = joint_tuple_ids([df], columns)
    return ids, df.iloc[first_positions(ids, n_ids)].reset_index(drop=True)


def _group_min_l1(
    a: np.ndarray, b: np.ndarray, max_eps: float, chunk_elements: int
) -> tuple[np.ndarray, np.ndarray]:
    """Smallest L1 distance of each row of ``a`` to ``b`` and of ``b`` to ``a`` (exact up to ``max_eps``).

    Rows are sorted on the first coordinate; a chunk of ``a`` is only compared with the ``b`` rows whose
    first coordinate lies within ``max_eps`` of the chunk's range, since any pair farther apart on it has an
    L1 distance above every ε of interest.
    """
    min_a, min_b = np.full(len(a), np.inf), np.full(len(b), np.inf)
    if a.shape[1] == 0:  # no numerical key: equal categorical keys are a match
        min_a[:], min_b[:] = 0.0, 0.0
        return min_a, min_b
    order_a, order_b = np.argsort(a[:, 0], kind="stable"), np.argsort(b[:, 0], kind="stable")
    sa, sb = a[order_a], b[order_b]
    first_b = sb[:, 0]
    margin = max_eps * (1 + 1e-9) + 1e-12  # widened a hair so rounding cannot drop a pair at exactly ε
    rows = max(1, chunk_elements // max(1, len(b) * a.shape[1]))
    sorted_min_a, sorted_min_b = np.full(len(a), np.inf), np.full(len(b), np.inf)
    for start in range(0, len(a), rows):
        chunk = sa[start : start + rows]
        lo = np.searchsorted(first_b, chunk[0, 0] - margin - 1e-12 * abs(chunk[0, 0]), "left")
        hi = np.searchsorted(first_b, chunk[-1, 0] + margin + 1e-12 * abs(chunk[-1, 0]), "right")
        if lo >= hi:
            continue
        block = np.abs(chunk[:, None, :] - sb[None, lo:hi, :]).sum(axis=2)
        sorted_min_a[start : start + rows] = block.min(axis=1)
        np.minimum(sorted_min_b[lo:hi], block.min(axis=0), out=sorted_min_b[lo:hi])
    min_a[order_a], min_b[order_b] = sorted_min_a, sorted_min_b
    return min_a, min_b


def _tuple_min_l1(real_t: pd.DataFrame, syn_t: pd.DataFrame, categorical: list[str], numerical: list[str],
                  max_eps: float, chunk_elements: int) -> tuple[np.ndarray, np.ndarray]:
    """Per distinct real and synthetic tuple, the smallest L1 numerical difference to the other side.

    Among tuples with equal categorical keys.
    """
    n_real = len(real_t)
    (group_real, group_syn), _ = joint_tuple_ids([real_t, syn_t], categorical)
    num_real = real_t[numerical].to_numpy(dtype=np.float64)
    num_syn = syn_t[numerical].to_numpy(dtype=np.float64)
    min_real, min_syn = np.full(n_real, np.inf), np.full(len(syn_t), np.inf)
    order_r, order_s = np.argsort(group_real, kind="stable"), np.argsort(group_syn, kind="stable")
    sorted_r, sorted_s = group_real[order_r], group_syn[order_s]
    common = np.intersect1d(sorted_r, sorted_s)
    lo_r, hi_r = np.searchsorted(sorted_r, common, "left"), np.searchsorted(sorted_r, common, "right")
    lo_s, hi_s = np.searchsorted(sorted_s, common, "left"), np.searchsorted(sorted_s, common, "right")
    for k in range(len(common)):
        rows_r, rows_s = order_r[lo_r[k] : hi_r[k]], order_s[lo_s[k] : hi_s[k]]
        min_real[rows_r], min_syn[rows_s] = _group_min_l1(
            num_real[rows_r], num_syn[rows_s], max_eps, chunk_elements
        )
    return min_real, min_syn


def identity_disclosure(real: pd.DataFrame, synthetic: pd.DataFrame, categorical: list[str], numerical: list[str],
                        epsilons, chunk_elements: int = 2**22) -> DisclosureCurve:
    """IDR(Y, Z; ε) of metrics.md §3 for every ε in ``epsilons``.

    Parameters
    ----------
    real, synthetic : DataFrame
        Prepared tables holding at least the key columns.
    categorical, numerical : list of str
        Categorical/binary and numerical key columns.
    epsilons : sequence of float
        Budgets, ≥ 0, in the numerical keys' units.
    chunk_elements : int
        Differences held at once.

    Returns
    -------
    DisclosureCurve

    Notes
    -----
    A real record ``y`` and a synthetic record ``z`` *match* when their categorical and binary key values are
    equal and the summed absolute difference of their numerical key values is at most ε (ε = 0: exact
    match), in the numerical keys' own units. With ``f_Z(z)`` the number of synthetic rows with exactly
    ``z``'s key values and ``f_Y(y)`` likewise in the real table,

        IDR(Y, Z; ε) = max( Σ_{z matching some y} 1/f_Z(z) / |Y| ,  Σ_{y matching some z} 1/f_Y(y) / |Z| ).

    Because every row of a key tuple matches or fails together, each sum is the number of *distinct* key
    tuples on that side that match something. The matching therefore runs on distinct tuples only, grouped
    by their categorical key values; within a group, numerical keys are compared in chunks, sorted on the
    first numerical key so that only rows within ε of each other on it are compared. No |Y| × |Z| matrix is
    ever built.

    Examples
    --------
    >>> real = pd.DataFrame({"sex": ["f", "f", "m"], "age": [30.0, 30.0, 40.0]})
    >>> synthetic = pd.DataFrame({"sex": ["f", "m", "m"], "age": [31.0, 40.0, 40.0]})
    >>> identity_disclosure(real, synthetic, ["sex"], ["age"], [0, 1]).idr.tolist()
    [0.3333333333333333, 0.6666666666666666]
    """
    epsilons = [float(e) for e in epsilons]
    columns = categorical + numerical
    ids_real, real_t = _distinct_tuples(real, columns)
    _, syn_t = _distinct_tuples(synthetic, columns)
    min_real, min_syn = _tuple_min_l1(real_t, syn_t, categorical, numerical, max(epsilons), chunk_elements)
    eps = np.asarray(epsilons)[:, None]
    # Each distinct tuple stands for its f rows, each weighted 1/f: the sums count matched distinct tuples.
    synthetic_term = (min_syn[None, :] <= eps).sum(axis=1) / len(real)
    real_term = (min_real[None, :] <= eps).sum(axis=1) / len(synthetic)
    return DisclosureCurve(epsilons, np.maximum(synthetic_term, real_term), synthetic_term, real_term,
                           min_real[ids_real])


def _key_columns(ctx: MetricContext) -> tuple[list[str], list[str]]:
    keys = ctx.schema.key_columns
    numerical = [c for c in keys if ctx.schema.types[c] == NUMERICAL]
    return [c for c in keys if c not in numerical], numerical


def _epsilons(ctx: MetricContext) -> tuple[list[float], float]:
    """The ε list and the default ε (smallest non-zero; 0 if the list holds only 0).

    The list was checked against its Param by :func:`privcore.data.params.check_value`, which also sorts it and
    drops repeats.
    """
    epsilons = [float(e) for e in ctx.params.get("epsilons", DEFAULT_EPSILONS)]
    positive = [e for e in epsilons if e > 0]
    return epsilons, (positive[0] if positive else 0.0)


def compute_sd_idr(ctx: MetricContext) -> MetricOutput:
    """SD-IDR(ε) = IDR(Y, Z; ε) for each ε (default 0, 1, 2, 3).

    ``risk`` = SD-IDR at the smallest non-zero ε, clipped to [0, 1]; ``raw`` = the unclipped value.
    per_record (real) = 1 if the real record matches some synthetic record at that ε.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"sex": ["f", "f", "m"], "age": [30.0, 30.0, 40.0]})
    >>> synthetic = pd.DataFrame({"sex": ["f", "m", "m"], "age": [31.0, 40.0, 40.0]})
    >>> schema = Schema({"sex": "binary", "age": "numerical"})
    >>> round(evaluate(real, synthetic, schema, metrics="sd_idr")["sd_idr"].raw, 6)
    0.666667
    """
    epsilons, default = _epsilons(ctx)
    categorical, numerical = _key_columns(ctx)
    chunk = ctx.shared.chunk_elements
    curve = identity_disclosure(ctx.real, ctx.synthetic, categorical, numerical, epsilons, chunk)
    value = curve.at(default)
    return MetricOutput(
        risk=float(np.clip(value, 0.0, 1.0)),
        raw=value,
        per_record=(curve.real_min_l1 <= default).astype(float),
        details=EpsilonSeries(
            epsilons=epsilons,
            default_epsilon=default,
            values=curve.idr,
            label="SD-IDR: synthetic vs training records",
            threshold=THRESHOLD,
            above_threshold=(curve.idr > THRESHOLD).tolist(),
            categorical_keys=categorical,
            numerical_keys=numerical,
            terms={"synthetic_term": curve.synthetic_term, "real_term": curve.real_term},
            shown_terms={},
        ),
        params={"epsilons": epsilons, "epsilon": default},
    )


def compute_sd_mia(ctx: MetricContext) -> MetricOutput:
    """SD-MIA(ε) = IDR(Y, Z; ε) − IDR(H, Z; ε) for each ε (default 0, 1, 2, 3).

    ``risk`` = SD-MIA at the smallest non-zero ε clipped to [0, 1] (negative, i.e. the holdout is matched
    more often than the training records, gives 0); ``raw`` = the unclipped value. per_record (real) = 1 if
    the real record matches some synthetic record at that ε.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"sex": ["f", "f", "m"], "age": [30.0, 30.0, 40.0]})
    >>> synthetic = pd.DataFrame({"sex": ["f", "m", "m"], "age": [31.0, 40.0, 40.0]})
    >>> holdout = pd.DataFrame({"sex": ["m", "f", "f"], "age": [50.0, 20.0, 60.0]})
    >>> schema = Schema({"sex": "binary", "age": "numerical"})
    >>> res = evaluate(real, synthetic, schema, metrics="sd_mia", holdout=holdout)
    >>> round(res["sd_mia"].raw, 6)
    0.666667
    """
    if ctx.holdout is None or len(ctx.holdout) == 0:
        raise NotApplicable("needs a non-empty holdout table (real records not used to train the generator).")
    epsilons, default = _epsilons(ctx)
    categorical, numerical = _key_columns(ctx)
    chunk = ctx.shared.chunk_elements
    real_curve = identity_disclosure(ctx.real, ctx.synthetic, categorical, numerical, epsilons, chunk)
    hold_curve = identity_disclosure(ctx.holdout, ctx.synthetic, categorical, numerical, epsilons, chunk)
    values = real_curve.idr - hold_curve.idr
    value = float(values[epsilons.index(default)])
    return MetricOutput(
        risk=float(np.clip(value, 0.0, 1.0)),
        raw=value,
        per_record=(real_curve.real_min_l1 <= default).astype(float),
        details=EpsilonSeries(
            epsilons=epsilons,
            default_epsilon=default,
            values=values,
            label="SD-MIA: excess over a fresh sample",
            threshold=THRESHOLD,
            above_threshold=(values > THRESHOLD).tolist(),
            categorical_keys=categorical,
            numerical_keys=numerical,
            terms={"idr_real": real_curve.idr, "idr_holdout": hold_curve.idr},
            shown_terms={"idr_real": "IDR of the training records", "idr_holdout": "IDR of the holdout (fresh sample)"},
        ),
        params={"epsilons": epsilons, "epsilon": default},
    )


def sd_mia_null(ctx: MetricContext, output: MetricOutput, draws: int, seed: int) -> tuple[float, np.ndarray]:
    """SD-MIA at the default ε, and its values when the training and holdout records swap labels at random.

    Parameters
    ----------
    ctx : MetricContext
        The context SD-MIA ran in (real, holdout and synthetic tables, parameters).
    output : MetricOutput
        SD-MIA's output.
    draws : int
        Random relabellings of the training and holdout records (at most :data:`NULL_DRAWS`).
    seed : int
        Seed of the relabellings.

    Returns
    -------
    value : float
        SD-MIA's risk (at the default ε, clipped to [0, 1]).
    null : numpy.ndarray
        The same for each relabelling: the real table and the holdout pooled and split again at their sizes.

    Notes
    -----
    Under "the synthetic table says nothing about who was in the training data", the training records and the
    holdout are exchangeable: a relabelling gives what SD-MIA scores by chance. Where the holdout and the real table
    differ in size the two IDR terms divide by different sizes, so SD-MIA of a fresh sample is not 0; the
    relabellings keep the sizes and so measure that offset too.
    """
    epsilons, default = _epsilons(ctx)
    categorical, numerical = _key_columns(ctx)
    chunk = ctx.shared.chunk_elements
    pool = pd.concat([ctx.real, ctx.holdout], ignore_index=True)
    rng = np.random.default_rng(seed)
    n_real = len(ctx.real)
    null = []
    for _ in range(min(draws, NULL_DRAWS)):
        order = rng.permutation(len(pool))
        members, others = pool.iloc[order[:n_real]], pool.iloc[order[n_real:]]
        null.append(identity_disclosure(members, ctx.synthetic, categorical, numerical, [default], chunk).idr[0]
                    - identity_disclosure(others, ctx.synthetic, categorical, numerical, [default], chunk).idr[0])
    # On the risk's own scale (clipped to [0, 1]): the permutation interval is read on the skewed, clipped values.
    return float(output.risk), np.clip(np.asarray(null, dtype=float), 0.0, 1.0)


_MATCH = ("A synthetic record matches a real one when all its categorical key values are equal and its numerical "
          "key values differ by at most ε in total (ε = 0: exactly equal).")

register(
    MetricInfo(
        id="sd_idr",
        order=380,
        cost=(0.05, 1.0),
        threshold=0.09,  # SynQP's own
        name="SD-IDR: identity disclosure with a variation budget (SynQP)",
        family="SynQP",
        summary="How many real people can be matched to synthetic records on their quasi-identifiers, allowing "
        "small numerical differences?",
        attacker_knows="The quasi-identifiers (key columns) of real people, for example from a register.",
        needs=frozenset(),
        per_record_unit="real",
        raw_meaning="IDR(Y, Z; ε) at the smallest non-zero ε, unclipped; SynQP compares it with 0.09.",
        reference=REFERENCE,
        explanation=Explanation(
            attack="The attacker looks up a real person's quasi-identifiers in the synthetic table; a record that "
            "matches (allowing small numerical noise such as an age off by one) may be that person.",
            steps=(
                _MATCH,
                "Count the distinct key combinations of synthetic records that match some real record, divided by "
                "the number of real records; and the distinct real key combinations that match some synthetic "
                "record, divided by the number of synthetic records.",
                "The disclosure rate is the larger of the two, computed for each ε (0, 1, 2, 3 by default); the "
                "risk is the value at the smallest non-zero ε.",
            ),
            high="Many synthetic records match real people on their quasi-identifiers: above SynQP's 0.09 "
            "threshold, records may be re-identified.",
            low="Few synthetic records match a real person's quasi-identifiers even allowing small differences.",
            blind_spots="Counts matches, not whether the match is right: with coarse keys (few categories, rounded "
            "numbers) even a fresh sample of other people matches a lot, which SD-MIA corrects for; ε is in the "
            "columns' own units, so it means different things for age and for income.",
            note="Choice: the risk is the value at the smallest non-zero ε of the list, clipped to [0, 1]; matching "
            "uses the key columns, ε in the numerical keys' own units.",
        ),
        compute=compute_sd_idr,
        details_type=EpsilonSeries,
        params=(EPSILONS,),
        min_rows=1,
        # Its fresh-sample reference (metrics.md §5): IDR(Y, H; ε), the holdout in place of the synthetic table.
        # With coarse keys a fresh sample matches a lot (0.42 on a 4-column table of 1,500 rows), so the raw value
        # alone says nothing about the generator. Both terms of IDR divide by the other table's size, so the
        # excess is taken between like-sized tables.
        baseline=True,
        size_matched=True,
    )
)

register(
    MetricInfo(
        id="sd_mia",
        order=390,
        cost=(0.11, 1.0),
        threshold=0.09,  # SynQP's own
        name="SD-MIA: identity disclosure beyond a fresh sample (SynQP)",
        family="SynQP",
        summary="How much more often are training records matched by synthetic records than real people who were "
        "not in the training data?",
        attacker_knows="The quasi-identifiers (key columns) of real people, for example from a register.",
        needs=frozenset({"holdout"}),
        per_record_unit="real",
        raw_meaning="IDR(Y, Z; ε) − IDR(H, Z; ε) at the smallest non-zero ε, unclipped (negative: the holdout "
        "is matched more often).",
        reference=REFERENCE,
        explanation=Explanation(
            attack="The same matching as SD-IDR, run twice: on the training records and on the holdout. Matches "
            "that a fresh sample of people also gets are chance; the difference is what the generator itself "
            "gives away about its training records.",
            steps=(
                _MATCH,
                "Compute the identity-disclosure rate of the training records and of the holdout records against "
                "the synthetic table.",
                "SD-MIA is the training rate minus the holdout rate, for each ε; the risk is the value at the "
                "smallest non-zero ε (0 if negative).",
            ),
            high="Training records are matched clearly more often than comparable people who were not used for "
            "training: the generator reproduces its training records' quasi-identifiers.",
            low="Training records are matched no more often than other people: matches are due to chance, not to "
            "the generator.",
            blind_spots="Only quasi-identifier matches count; a rare value in another column, or a leak an attack "
            "learns (as in the DCR-Delusion example), is not seen. Negative values suggest an underfitting generator.",
            note="Choice: the risk is the value at the smallest non-zero ε, clipped to [0, 1] (negative values give "
            "0); the paper's 0.09 threshold is shown for reference.",
        ),
        compute=compute_sd_mia,
        null=sd_mia_null,
        details_type=EpsilonSeries,
        params=(EPSILONS,),
        min_rows=1,
        baseline=False,
    )
)
