"""Holdout proxy tests (metrics.md §3; "The DCR Delusion" §3.1): DCR test, NNDR test, IMS test.

These tests are what many products report, and they are weak (see :func:`compute_dcr_test`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcore.base import NotApplicable
from privcore.data import Param
from privcore.engine import MetricContext, Neighbours
from privcore.metrics._exact_match import joint_tuple_ids
from privcore.metrics.details import IdenticalShares, ProxyTest
from privcore.metrics.registry import Explanation, MetricInfo, register
from privcore.metrics.results import MetricOutput

REFERENCE = (
    "Yao, Krčo, Ganev and de Montjoye, The DCR Delusion: Measuring the Privacy Risk of Synthetic Data "
    "(2025), §3.1; the tests as used in commercial synthetic-data reports"
)

#: The DCR-Delusion caveat, shown with every proxy test.
PROXY_CAVEAT = (
    "Passing this test does not make the data private: the DCR-Delusion study found synthetic data sets that "
    "pass the DCR, NNDR and IMS tests while membership-inference attacks still tell who was in the training "
    "data, for example synthetic rows carrying the country of birth (Holland-Netherlands) of the only real "
    "person born there, which are not close to that person in distance."
)

#: A holdout this many times larger or smaller than the synthetic table triggers a size warning.
SIZE_RATIO_WARNING = 2.0

PERCENTILE = Param(
    "percentile", "float", 5.0, "Percentile",
    "Which percentile of the distances is compared between synthetic and holdout rows (5 = the closest 5 % of "
    "rows).", minimum=0.0, maximum=100.0, step=0.5)



def percentile_ratio(
    synthetic_values: np.ndarray, holdout_values: np.ndarray, q: float
) -> tuple[float, float, float]:
    """The q-th percentiles of two samples and their ratio, as the DCR and NNDR tests compare them.

    Parameters
    ----------
    synthetic_values, holdout_values : numpy.ndarray
        Per-row values (distances or ratios) of the synthetic and the holdout rows.
    q : float
        Percentile in [0, 100] (5 in the DCR-Delusion paper).

    Returns
    -------
    p_synthetic, p_holdout, ratio : float
        ``ratio = p_synthetic / p_holdout``; 1 when both are 0 (equally close), ``inf`` when only the
        holdout's is 0.

    Examples
    --------
    >>> percentile_ratio(np.array([0.0, 1.0, 2.0]), np.array([1.0, 1.0, 3.0]), 50)
    (1.0, 1.0, 1.0)
    """
    p_syn = float(np.percentile(synthetic_values, q))
    p_hold = float(np.percentile(holdout_values, q))
    if p_hold == 0.0:
        ratio = 1.0 if p_syn == 0.0 else float("inf")
    else:
        ratio = p_syn / p_hold
    return p_syn, p_hold, ratio


def nndr_values(neighbours: Neighbours) -> np.ndarray:
    """Nearest/second-nearest distance ratio ``d1/d2`` of each query row, 0 where ``d1 = 0``.

    An exact copy (``d1 = 0``) is the riskiest case, so it gets the smallest ratio even when its second
    neighbour is also at distance 0 (which would make ``d1/d2`` undefined).
    """
    d1, d2 = neighbours.d1, neighbours.d2
    ratio = np.zeros(len(d1))
    positive = d1 > 0
    ratio[positive] = d1[positive] / d2[positive]
    return ratio


def identical_match(query: pd.DataFrame, real: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """For each query row, whether some real row equals it on every listed column.

    Exact equality of the prepared values (numbers as float64, categories as strings), so a column that is
    constant in the real table still counts, unlike in the distance space E.
    """
    (query_id, real_id), _ = joint_tuple_ids([query, real], columns)
    return np.isin(query_id, real_id)


def permuted_labels(n_synthetic: int, n_holdout: int, draws: int, seed: int):
    """Random relabellings of ``n_synthetic + n_holdout`` pooled rows: ``draws`` boolean masks "plays synthetic".

    Each mask marks ``n_synthetic`` rows; seeded, so the same seed gives the same draws.
    """
    rng = np.random.default_rng(seed)
    pool = n_synthetic + n_holdout
    for _ in range(draws):
        mask = np.zeros(pool, dtype=bool)
        mask[rng.choice(pool, size=n_synthetic, replace=False)] = True
        yield mask


def percentile_test_null(ctx: MetricContext, output: MetricOutput, draws: int, seed: int) -> tuple[float, np.ndarray]:
    """The DCR or NNDR test's risk and its values when the synthetic and holdout rows swap labels at random.

    Parameters
    ----------
    ctx : MetricContext
        The context the test ran in.
    output : MetricOutput
        The test's output (its details hold every row's value).
    draws : int
        Random relabellings.
    seed : int
        Seed of the relabellings.

    Returns
    -------
    risk : float
        The test's risk.
    null : numpy.ndarray
        The risk of each relabelling.

    Notes
    -----
    Under "the synthetic rows are other real people of the same population", a synthetic row's value (its
    distance, or distance ratio, to the training table) is exchangeable with a holdout row's: the relabellings are
    what a fresh sample of the synthetic table's size scores against a holdout of the holdout's size. A 5th
    percentile of a few hundred distances on coarse data moves a lot by chance (a fresh Adult sample of 1,000 rows
    scores 0.17), which a fixed threshold alone cannot tell from a leak.
    """
    d = output.details
    values = np.concatenate([np.asarray(d.synthetic_values, float), np.asarray(d.holdout_values, float)])
    n_syn = len(d.synthetic_values)
    null = [_test_risk(percentile_ratio(values[mask], values[~mask], d.percentile)[2])
            for mask in permuted_labels(n_syn, len(values) - n_syn, draws, seed)]
    return float(output.risk), np.asarray(null)


def ims_test_null(ctx: MetricContext, output: MetricOutput, draws: int, seed: int) -> tuple[float, np.ndarray]:
    """The IMS test's risk and its values when the synthetic and holdout rows swap labels at random.

    The identical-match counts of the relabelled tables are hypergeometric draws from the pooled count (see
    :func:`percentile_test_null` for why the relabellings are a fresh sample's reference).
    """
    d = output.details
    n_syn, n_hold = len(ctx.synthetic), len(ctx.holdout)
    matched = d.identical_synthetic + d.identical_holdout
    rng = np.random.default_rng(seed)
    syn_matched = rng.hypergeometric(matched, n_syn + n_hold - matched, n_syn, size=draws)
    null = np.maximum(0.0, syn_matched / n_syn - (matched - syn_matched) / n_hold)
    return float(output.risk), null.astype(float)


def _test_risk(ratio: float) -> float:
    # ratio ≥ 1: synthetic rows are at least as far from Y as fresh real people are; the test passes.
    return float(max(0.0, 1.0 - ratio))


def _size_warnings(ctx: MetricContext) -> list[str]:
    n_syn, n_hold = len(ctx.synthetic), len(ctx.holdout)
    if max(n_syn, n_hold) > SIZE_RATIO_WARNING * min(n_syn, n_hold):
        return [
            f"The holdout ({n_hold} rows) and the synthetic table ({n_syn} rows) differ a lot in size; the test "
            "compares them as if they were alike, so read it with care."
        ]
    return []


def _pass_caveat(passes: bool) -> list[str]:
    # The paper's warning goes with every pass, where it is most likely to be misread as "private".
    return [PROXY_CAVEAT] if passes else []


def _require_holdout(ctx: MetricContext) -> None:
    if ctx.holdout is None or len(ctx.holdout) == 0:
        raise NotApplicable("needs a non-empty holdout table (real records not used to train the generator).")


def _distance_test(ctx: MetricContext, syn_values, hold_values, name: str) -> tuple[dict, float, float, list[str]]:
    """Shared part of the DCR and NNDR tests: percentiles, ratio, per-row values and warnings.

    Returns the :class:`~privcore.metrics.details.ProxyTest` fields (a test may add its own), the ratio, the
    holdout's percentile and the warnings.

    Notes
    -----
    Each test compares how close the synthetic table ``Z`` is to the real training table ``Y`` with how
    close a holdout ``H`` of real people who were *not* in the training data is to ``Y``. ``Z`` "passes"
    when it is no closer than ``H``. These tests are what many products report, and they are weak: the
    DCR-Delusion paper shows data sets that pass all three while membership-inference attacks succeed,
    so every explanation here carries that warning.

    Distances are Euclidean in the shared space E (metrics.md §0) and come from the shared neighbour
    passes ``synthetic→real``, ``holdout→real`` and ``synthetic→holdout``, so other metrics reuse them.
    Percentiles use numpy's default linear interpolation between order statistics.
    """
    q = float(ctx.params.get("percentile", 5.0))  # checked against its Param by check_value
    p_syn, p_hold, ratio = percentile_ratio(syn_values, hold_values, q)
    warnings = _size_warnings(ctx)
    if p_hold == 0.0:
        warnings.append(
            f"At least {q:g} % of the holdout rows have {name} 0 to the real table, so the test cannot tell the "
            "synthetic data apart from fresh real people."
        )
    details = {
        "percentile": q,
        "p_synthetic": p_syn,
        "p_holdout": p_hold,
        "ratio": ratio,
        "passes": bool(ratio >= 1.0),
        "synthetic_values": syn_values,
        "holdout_values": hold_values,
    }
    return details, ratio, p_hold, warnings


def compute_dcr_test(ctx: MetricContext) -> MetricOutput:
    """DCR holdout test.

    ``DCR(Z→Y)``: each synthetic row's distance in E to its closest real row; ``DCR(H→Y)`` likewise for
    holdout rows. With ``p5`` the 5th percentile (numpy's linear interpolation; ``percentile`` parameter),
    ``raw = p5(Z→Y) / p5(H→Y)`` (1 if both are 0, ∞ if only the holdout's is) and
    ``risk = max(0, 1 − raw)``: 0 = the test passes. per_record (synthetic) = 1 when the row is strictly
    closer to ``Y`` than the holdout's percentile (tolerance 1e-12·d_max). ``details`` also holds the share
    of synthetic rows strictly closer to ``Y`` than to ``H`` (about |Y|/(|Y|+|H|) for a fresh sample).

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0, 4.0]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="dcr_test", holdout=real + 0.5)
    >>> res["dcr_test"].risk, res["dcr_test"].raw
    (1.0, 0.0)
    """
    _require_holdout(ctx)
    dcr_syn = ctx.neighbours("E", "synthetic", "real").d1
    dcr_hold = ctx.neighbours("E", "holdout", "real").d1
    tolerance = ctx.extremes("E", "real", "synthetic").tie_tolerance
    fields, ratio, p_hold, warnings = _distance_test(ctx, dcr_syn, dcr_hold, "distance")
    to_holdout = ctx.neighbours("E", "synthetic", "holdout").d1
    closer = dcr_syn < to_holdout - tolerance
    details = ProxyTest(
        **fields,
        closer_to_real_share=float(closer.mean()),
        closer_to_real_count=int(closer.sum()),
        closer_to_real_expected=len(ctx.real) / (len(ctx.real) + len(ctx.holdout)),
        synthetic_to_holdout=to_holdout,
        tie_tolerance=tolerance,
    )
    per_record = (dcr_syn < p_hold - tolerance).astype(float)
    return MetricOutput(
        risk=_test_risk(ratio),
        raw=ratio,
        per_record=per_record,
        details=details,
        params={"percentile": details.percentile, "space": "E"},
        warnings=warnings + _pass_caveat(details.passes),
    )


def compute_nndr_test(ctx: MetricContext) -> MetricOutput:
    """NNDR holdout test.

    For each synthetic row, ``r = d1/d2`` with ``d1``, ``d2`` its distances in E to the nearest and
    second-nearest real rows (``r = 0`` when ``d1 = 0``); likewise for holdout rows.
    ``raw = p5(r_Z) / p5(r_H)`` (1 if both are 0, ∞ if only the holdout's is), ``risk = max(0, 1 − raw)``.
    per_record (synthetic) = 1 when the row's ratio is strictly below the holdout's percentile.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0, 4.0]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="nndr_test", holdout=real + 0.5)
    >>> res["nndr_test"].risk
    1.0
    """
    _require_holdout(ctx)
    if len(ctx.real) < 2:
        raise NotApplicable("needs at least 2 rows in the real table (a nearest and a second-nearest record).")
    r_syn = nndr_values(ctx.neighbours("E", "synthetic", "real"))
    r_hold = nndr_values(ctx.neighbours("E", "holdout", "real"))
    fields, ratio, p_hold, warnings = _distance_test(ctx, r_syn, r_hold, "distance ratio")
    details = ProxyTest(**fields)
    per_record = (r_syn < p_hold).astype(float)
    return MetricOutput(
        risk=_test_risk(ratio),
        raw=ratio,
        per_record=per_record,
        details=details,
        params={"percentile": details.percentile, "space": "E"},
        warnings=warnings + _pass_caveat(details.passes),
    )


def compute_ims_test(ctx: MetricContext) -> MetricOutput:
    """IMS (identical match share) holdout test.

    ``IMS(Z, Y)`` = share of synthetic rows (duplicates counted) equal to some real row on every analysed
    column, exact row matching as in CRP (columns constant in ``Y`` included); ``IMS(H, Y)`` likewise for
    holdout rows. ``raw = IMS(Z, Y)``, ``risk = max(0, IMS(Z, Y) − IMS(H, Y))``. per_record (synthetic) =
    1 if the row has an identical real match.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    >>> synthetic = pd.DataFrame({"x": [0.0, 0.0, 1.0, 12.0]})  # three rows copy a real one
    >>> holdout = pd.DataFrame({"x": [0.5, 2.5]})
    >>> res = evaluate(real, synthetic, Schema({"x": "numerical"}), metrics="ims_test", holdout=holdout)
    >>> res["ims_test"].risk, res["ims_test"].raw
    (0.75, 0.75)
    """
    _require_holdout(ctx)
    columns = ctx.schema.columns
    match_syn = identical_match(ctx.synthetic, ctx.real, columns)
    match_hold = identical_match(ctx.holdout, ctx.real, columns)
    ims_syn, ims_hold = float(match_syn.mean()), float(match_hold.mean())
    warnings = _size_warnings(ctx)
    return MetricOutput(
        risk=max(0.0, ims_syn - ims_hold),
        raw=ims_syn,
        per_record=match_syn.astype(float),
        details=IdenticalShares(
            ims_synthetic=ims_syn,
            ims_holdout=ims_hold,
            identical_synthetic=int(match_syn.sum()),
            identical_holdout=int(match_hold.sum()),
            passes=bool(ims_syn <= ims_hold),
        ),
        params={"columns": list(columns)},
        warnings=warnings + _pass_caveat(ims_syn <= ims_hold),
    )


_ATTACKER = (
    "Nothing specific: these are checks a data publisher runs, comparing the synthetic table with real people "
    "who were not used for training (the holdout)."
)

register(
    MetricInfo(
        id="dcr_test",
        order=240,
        cost=(0.44, 1.3),
        assumption="distance",
        name="DCR holdout test",
        family="Holdout proxy tests",
        summary="Are synthetic rows closer to the training records than fresh real people are (5th percentile of "
        "distance to closest record)?",
        attacker_knows=_ATTACKER,
        needs=frozenset({"holdout"}),
        per_record_unit="synthetic",
        raw_meaning="p5(synthetic→real) / p5(holdout→real); 1 or more passes, below 1 = synthetic rows sit closer "
        "to real people than fresh real people do.",
        reference=REFERENCE,
        explanation=Explanation(
            attack="A proxy, not an attack: if the generator copied or nearly copied training records, the synthetic "
            "rows would sit unusually close to them, closer than real people who were never in the training data.",
            steps=(
                "For each synthetic row, measure the distance to its closest real training record; do the same for "
                "each holdout row.",
                "Take the 5th percentile of each list: how close the closest 5 % of rows come.",
                "Divide the synthetic percentile by the holdout's; the risk is how far that ratio falls short of 1.",
                "The details also give the share of synthetic rows closer to the training table than to the holdout "
                "(about half for a fresh sample of the same size).",
            ),
            high="The closest synthetic rows are much nearer to training records than fresh real people ever get: "
            "near-copies are likely.",
            low="The synthetic rows are no closer to the training records than fresh real people are, which rules out "
            "blatant copying but does not make the data private (see blind spots).",
            blind_spots=PROXY_CAVEAT + " The test looks only at the closest 5 % of rows and at distance, where every "
            "column counts the same, so a unique value leaks without moving any distance.",
            note="Distances in the shared space E (numbers min–max scaled, categories one-hot); percentile with "
            "linear interpolation; the ratio is 1 when both percentiles are 0.",
        ),
        compute=compute_dcr_test,
        null=percentile_test_null,
        passes=(('E', 'synthetic', 'real'), ('E', 'holdout', 'real'), ('E', 'synthetic', 'holdout')),
        details_type=ProxyTest,
        space="E",
        params=(PERCENTILE,),
        min_rows=1,
        baseline=False,
    )
)

register(
    MetricInfo(
        id="nndr_test",
        order=250,
        cost=(0.01, 1.0),
        assumption="distance",
        name="NNDR holdout test",
        family="Holdout proxy tests",
        summary="Are synthetic rows more distinctly attached to one training record than fresh real people are "
        "(5th percentile of nearest/second-nearest distance ratio)?",
        attacker_knows=_ATTACKER,
        needs=frozenset({"holdout"}),
        per_record_unit="synthetic",
        raw_meaning="p5 of the synthetic rows' distance ratio / p5 of the holdout rows'; 1 or more passes.",
        reference=REFERENCE,
        explanation=Explanation(
            attack="A proxy, not an attack: a synthetic row much closer to one training record than to any other "
            "points at that one person; fresh real people rarely do that.",
            steps=(
                "For each synthetic row, divide the distance to its closest real training record by the distance "
                "to the second-closest (0 for an exact copy); do the same for each holdout row.",
                "Take the 5th percentile of each list of ratios.",
                "Divide the synthetic percentile by the holdout's; the risk is how far that ratio falls short of 1.",
            ),
            high="Some synthetic rows single out one training record far more sharply than fresh real people do.",
            low="Synthetic rows are no more attached to single training records than fresh real people are, which "
            "does not make the data private (see blind spots).",
            blind_spots=PROXY_CAVEAT + " The test looks only at the most extreme 5 % of ratios and at distance, where "
            "every column counts the same.",
            note="Ratio 0 when the nearest distance is 0 (an exact copy); distances in E; percentile with linear "
            "interpolation; the test ratio is 1 when both percentiles are 0.",
        ),
        compute=compute_nndr_test,
        null=percentile_test_null,
        passes=(('E', 'synthetic', 'real'), ('E', 'holdout', 'real')),
        details_type=ProxyTest,
        space="E",
        params=(PERCENTILE,),
        min_rows=1,
        baseline=False,
    )
)

register(
    MetricInfo(
        id="ims_test",
        order=260,
        cost=(0.02, 1.0),
        assumption="exact match on every column",
        name="IMS holdout test",
        family="Holdout proxy tests",
        summary="Do more synthetic rows exactly equal a training record than fresh real people do?",
        attacker_knows=_ATTACKER,
        needs=frozenset({"holdout"}),
        per_record_unit="synthetic",
        raw_meaning="IMS(Z, Y): share of synthetic rows identical to some real training record (higher = more "
        "copies).",
        reference=REFERENCE,
        explanation=Explanation(
            attack="A proxy, not an attack: exact copies of training records republish real people; some identical "
            "rows are expected by chance when columns are coarse, which the holdout measures.",
            steps=(
                "Count the synthetic rows that equal some real training record on every column; divide by the "
                "number of synthetic rows.",
                "Do the same for the holdout rows.",
                "The risk is the synthetic share minus the holdout share (0 if smaller).",
            ),
            high="The synthetic table contains many more exact copies of training records than chance explains.",
            low="No more exact copies than fresh real people produce by chance, which does not make the data private "
            "(see blind spots).",
            blind_spots=PROXY_CAVEAT + " The test also misses near-copies (a number off by one) and rare values copied "
            "into otherwise new rows; with continuous columns exact copies are rare even for a leaky generator.",
            note="Identical means equal on every analysed column, including columns that are constant in the real "
            "table (which distance-based tests leave out).",
        ),
        compute=compute_ims_test,
        null=ims_test_null,
        details_type=IdenticalShares,
        space="E",
        min_rows=1,
        baseline=False,
    )
)
