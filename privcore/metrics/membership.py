"""Membership-inference attacks by distance and density: distance, calibrated distance, DOMIAS (metrics.md §3).

The attacker holds a real person's record ``x`` and the synthetic table ``Z`` and must decide whether
``x`` was in the training data ``Y``. We play the game on records whose answer we know: *members* are the
real training rows (``Y``, or an equal-size seeded sample of it) and *non-members* are holdout rows
(``H``, or half of it when the other half serves as the attacker's reference set ``R``). Each attack gives
every record a score (higher = "member"); how well the score separates the two groups is the risk.

Scores:

(a) ``mia_distance``   ``s(x) = −d(x, Z)``, the distance in E to the closest synthetic row;
(b) ``mia_calibrated`` ``s(x) = log max(d(x, R), τ) − log max(d(x, Z), τ)``: how many times closer ``x`` is to ``Z``
    than to real people in general (Chen et al., GAN-Leaks, calibrated attack, calibrated by ratio);
(c) ``mia_domias``     ``s(x) = log p_Z(x) − log p_R(x)``, kernel density estimates in E on every synthetic
    and reference row, heavy-tailed (Cauchy) kernels, bandwidths by held-out likelihood (van Breugel et
    al., DOMIAS).

Reported (:mod:`~privcore.metrics.membership_summary`): ROC AUC (``raw``), TPR at FPR 1 % and 10 %, the
membership advantage ``max(TPR − FPR)`` (``risk``), seeded percentile-bootstrap 95 % intervals (resampling
members and non-members separately), and the ROC curve. Who plays member, non-member and reference, and
from which draws: :mod:`~privcore.metrics.membership_roles`. The optional KDE subsample and the bandwidth
splits of (c) use ``numpy.random.default_rng([seed, 1])``.

The shared machinery of every membership attack lives in :mod:`~privcore.metrics.membership_common`,
:mod:`~privcore.metrics.membership_roles` and :mod:`~privcore.metrics.membership_summary`;
:func:`attack_summary`, :func:`roc_statistics_batch` and :func:`snap_ties` are re-exported from here for
the callers that import them from this module.
"""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np

from privcore.data.params import Param
from privcore.engine.context import MetricContext
from privcore.engine.neighbors import nearest_two
from privcore.metrics.details import MembershipScores
from privcore.metrics.membership_common import (
    COMMON_INFO,
    COMMON_PARAMS,
    MIA_NOTE,
    REFERENCE,
    REFERENCE_MIA,
    SCORERS,
    AttackScores,
    Scorer,
    attack_output,
    attack_steps,
    output_from_scores,
)
from privcore.metrics.membership_roles import MembershipSets, Reference, membership_sets, require_holdout
from privcore.metrics.membership_summary import attack_summary, roc_statistics_batch, snap_ties  # noqa: F401
from privcore.metrics.registry import Explanation, MetricInfo, register
from privcore.metrics.results import MetricOutput, NotApplicable

# ------------------------------------------------------------------------------------------ attacks


def compute_mia_distance(ctx: MetricContext) -> MetricOutput:
    """Distance-to-closest-synthetic membership inference.

    Score ``s(x) = −d_E(x, Z)`` (closer to a synthetic row = more likely a member), on members (``Y`` or
    an equal-size sample) and non-members (``H`` or an equal-size sample). ``risk = max_t (TPR − FPR)``,
    ``raw`` = ROC AUC; scores within 1e-12·d_max are tied. per_record (real) = ``s(y)`` for every real
    row; ``interval`` = bootstrap interval of the advantage.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"x": [0.0, 2.0, 4.0, 6.0]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="mia_distance",
    ...                holdout=real + 1.0, params={"mia_distance": {"n_boot": 0}})
    >>> res["mia_distance"].raw, res["mia_distance"].risk
    (1.0, 1.0)
    """
    require_holdout(ctx, 1)
    sets = membership_sets(len(ctx.real), len(ctx.holdout), ctx.seed, split_holdout=False)
    d_real = ctx.neighbours("E", "real", "synthetic").d1
    d_hold = ctx.neighbours("E", "holdout", "synthetic").d1
    tolerance = ctx.extremes("E", "real", "synthetic").tie_tolerance
    return attack_output(ctx, sets, -d_real[sets.members], -d_hold[sets.nonmembers], -d_real,
                   tolerance=tolerance, details={"tie_tolerance": tolerance}, params={"space": "E"}, warnings=[])


def distance_ratio(to_reference: np.ndarray, to_synthetic: np.ndarray, tolerance: float) -> np.ndarray:
    """``log max(d_R, τ) − log max(d_Z, τ)``, with ``τ`` at least the smallest positive float (so it is finite).

    Examples
    --------
    >>> distance_ratio(np.array([2.0, 1.0]), np.array([1.0, 1.0]), 0.0).round(6).tolist()
    [0.693147, 0.0]
    """
    tau = max(float(tolerance), np.finfo(float).tiny)
    return (np.log(np.maximum(np.asarray(to_reference, dtype=float), tau))
            - np.log(np.maximum(np.asarray(to_synthetic, dtype=float), tau)))


def compute_mia_calibrated(ctx: MetricContext) -> MetricOutput:
    """Calibrated distance membership inference.

    Score ``s(x) = log max(d_E(x, R), τ) − log max(d_E(x, Z), τ)``: how many times closer ``x`` is to the
    synthetic data than to real people in general, with ``τ`` the tie tolerance of the distances (a
    distance within it counts as 0, metrics.md §0; so a record at distance 0 from a synthetic row scores by
    how far it is from the reference). ``R`` = the
    user's reference table (parameter ``reference``, real records disjoint from ``Y`` and ``H``) or,
    without one, a seeded half of ``H`` (the other half are the non-members). ``d(x, R)`` comes from one
    exact pass of :func:`privcore.engine.neighbors.nearest_two` on the shared E encoding. per_record (real) =
    ``s(y)`` for every real row.

    Notes
    -----
    Choice: the calibration is a ratio, not the difference ``d(x, R) − d(x, Z)`` of metrics.md §3. Distances
    differ in scale from dense to sparse regions of the data, so a difference lets a non-member in a sparse
    region outscore a copied member in a dense one (AUC 0.83 on the exact-copy demo); the ratio is free of
    that scale (AUC 0.98, the distance attack's level, and 0.5 on a fresh sample).

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"x": [0.0, 2.0, 4.0, 6.0]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="mia_calibrated",
    ...                holdout=real + 1.0, params={"mia_calibrated": {"n_boot": 0}})
    >>> round(res["mia_calibrated"].raw, 6)  # every member has a synthetic copy, no non-member has one
    1.0
    """
    require_holdout(ctx, 2)
    return output_from_scores(ctx, "mia_calibrated")


def calibrated_scores(ctx: MetricContext, sets: MembershipSets, reference: Reference, params: Mapping) -> AttackScores:
    """The scores of :func:`compute_mia_calibrated` for every real row and each non-member."""
    encoded_reference = reference.encoded(ctx, "E")
    encoded_real, encoded_hold = ctx.encoded("E", "real"), ctx.encoded("E", "holdout")
    chunk = ctx.shared.chunk_elements
    to_reference_real = nearest_two(encoded_real, encoded_reference, chunk_elements=chunk)[0].d1
    to_reference_non = nearest_two(encoded_hold[sets.nonmembers], encoded_reference, chunk_elements=chunk)[0].d1
    d_real = ctx.neighbours("E", "real", "synthetic").d1
    d_hold = ctx.neighbours("E", "holdout", "synthetic").d1
    tolerance = ctx.extremes("E", "real", "synthetic").tie_tolerance
    score_real = distance_ratio(to_reference_real, d_real, tolerance)
    score_non = distance_ratio(to_reference_non, d_hold[sets.nonmembers], tolerance)
    details = {"reference": reference.described, "reference_positions": sets.reference, "tie_tolerance": tolerance}
    return AttackScores(score_real, score_non, tolerance, details, {"space": "E", "reference": reference.described})


def distance_scores(ctx: MetricContext, sets: MembershipSets, reference: Reference, params: Mapping) -> AttackScores:
    """The distance attack's scores ``−d_E(x, Z)`` on the battery's members and non-members (read from the
    shared real→synthetic and holdout→synthetic passes, which ``mia_distance`` reads too)."""
    d_real = ctx.neighbours("E", "real", "synthetic").d1
    d_hold = ctx.neighbours("E", "holdout", "synthetic").d1
    tolerance = ctx.extremes("E", "real", "synthetic").tie_tolerance
    return AttackScores(-d_real, -d_hold[sets.nonmembers], tolerance, {"tie_tolerance": tolerance}, {"space": "E"})


# ------------------------------------------------------------------------------------------- DOMIAS


#: Degrees of freedom of the Student-t kernel: 1 = Cauchy. Heavy tails keep the density ratio free of the
#: local scale of the data (a Gaussian kernel turns it into a difference of squared distances, which
#: lets a non-member in a sparse region outscore a copied member in a dense one).
KERNEL_TAIL = 1.0
#: Coarse candidate bandwidths, as multiples of the median nearest-neighbour distance between distinct
#: rows; the best one is then refined on a finer grid between its two neighbours.
BANDWIDTH_GRID = np.logspace(-4.0, 0.5, 10)
REFINE_POINTS = 9
#: Held-out rows scored when a bandwidth is chosen.
MAX_HELD_OUT = 1000


def t_kde_logpdf(data: np.ndarray, query: np.ndarray, bandwidths, *, tail: float = KERNEL_TAIL,
                 chunk_elements: int = 2**22) -> np.ndarray:
    """Log density of isotropic Student-t kernel density estimates at ``query``, in chunks.

    ``p(x) = (1/n) Σ_i t_ν(‖x − x_i‖ / h) / h^D`` with the D-variate Student-t density
    ``t_ν(u) = Γ((ν+D)/2) / (Γ(ν/2) (νπ)^{D/2}) · (1 + u²/ν)^{−(ν+D)/2}``, one column per bandwidth.

    Parameters
    ----------
    data : numpy.ndarray
        Shape (n, D): the rows the density is fitted on.
    query : numpy.ndarray
        Shape (m, D).
    bandwidths : float or sequence of float
        Kernel scales ``h`` (> 0).
    tail : float
        Degrees of freedom ν of the kernel.
    chunk_elements : int
        Distances held at once.

    Returns
    -------
    numpy.ndarray
        Shape (m, len(bandwidths)), natural-log densities.

    Examples
    --------
    >>> from scipy.stats import cauchy
    >>> x = np.array([[0.0], [2.0]])
    >>> got = t_kde_logpdf(x, np.array([[1.0]]), [0.5])[0, 0]
    >>> bool(np.isclose(got, np.log(0.5 * cauchy.pdf(1.0, scale=0.5) + 0.5 * cauchy.pdf(-1.0, scale=0.5))))
    True
    """
    data, query = np.asarray(data, dtype=float), np.asarray(query, dtype=float)
    h = np.atleast_1d(np.asarray(bandwidths, dtype=float))
    # Imported here: scipy (even scipy.special alone) costs about 0.2 s at start-up and the module is imported by
    # every evaluation to register its metrics.
    from scipy.special import gammaln

    n, dims = data.shape
    power = -(tail + dims) / 2
    constant = (gammaln((tail + dims) / 2) - gammaln(tail / 2) - dims / 2 * np.log(tail * np.pi) - np.log(n)
                - dims * np.log(h))
    out = np.empty((len(query), len(h)))
    for rows, d2 in squared_distance_blocks(query, data, chunk_elements):
        nearest = d2.min(axis=1)
        for j, scale in enumerate(h):
            out[rows, j] = _log_kernel_sum(d2, nearest, 1.0 / (tail * scale * scale), power)
    return out + constant


def squared_distance_blocks(query: np.ndarray, data: np.ndarray, chunk_elements: int):
    """Yield ``(rows, d2)``: a slice of query rows and their squared Euclidean distances to every data row
    (clipped at 0 against rounding), at most about ``chunk_elements`` distances at a time. Shared by the
    kernel density estimates, which need every distance, not only the nearest."""
    sq_data = np.einsum("ij,ij->i", data, data)
    step = max(1, chunk_elements // max(len(data), 1))
    for start in range(0, len(query), step):
        block = query[start : start + step]
        # (|q|² + |x|²) − 2·q·x with the same roundings as that expression, in two blocks instead of four
        # (doubling is exact, so doubling the product in place changes no value).
        twice = block @ data.T
        twice *= 2.0
        d2 = np.einsum("ij,ij->i", block, block)[:, None] + sq_data[None, :]
        d2 -= twice
        del twice
        np.maximum(d2, 0.0, out=d2)
        yield slice(start, start + len(block)), d2


#: Kernel terms below e^−40 times a row's largest term are left out of its sum: with at most 10^4·n terms
#: that changes no density by more than a relative 10^−13, and with many dimensions it skips most terms.
NEGLIGIBLE_LOG_RATIO = 40.0


def _log_kernel_sum(d2: np.ndarray, nearest: np.ndarray, inverse_scale: float, power: float) -> np.ndarray:
    """``log Σ_j (1 + d2[i, j]·c)^power`` per row, summing only the terms that are not negligible.

    The largest term of a row is the nearest point's; a term is kept when its log is within
    :data:`NEGLIGIBLE_LOG_RATIO` of it, i.e. when ``1 + d2·c ≤ (1 + nearest·c)·e^{40/|power|}``.
    """
    peak = power * np.log1p(nearest * inverse_scale)
    limit = ((1.0 + nearest * inverse_scale) * np.exp(NEGLIGIBLE_LOG_RATIO / -power) - 1.0) / inverse_scale
    # The kept terms row by row, as a boolean mask takes them (the order of nonzero's pairs), with the same
    # operations in place: 2,000 × 5,000 distances 0.72 -> 0.14 s against pairs of positions and their gather.
    kept = d2 <= limit[:, None]
    counts = np.count_nonzero(kept, axis=1)
    terms = d2[kept]
    terms *= inverse_scale
    np.log1p(terms, out=terms)
    terms *= power
    terms -= np.repeat(peak, counts)
    np.exp(terms, out=terms)
    return np.log(np.bincount(np.repeat(np.arange(len(d2)), counts), weights=terms, minlength=len(d2))) + peak


def held_out_bandwidth(data: np.ndarray, rng: np.random.Generator, *, chunk_elements: int = 2**22,
                       what: str = "the synthetic", logpdf: Callable = t_kde_logpdf) -> tuple[float, float]:
    """The kernel bandwidth of ``logpdf`` (default :func:`t_kde_logpdf`) with the largest held-out log-likelihood.

    The distinct rows of ``data`` are split at random in two halves; the density is fitted on one and
    scored on (at most :data:`MAX_HELD_OUT` rows of) the other, for every bandwidth of
    :data:`BANDWIDTH_GRID` times the median distance from a held-out row to its nearest fitted row, then
    on :data:`REFINE_POINTS` bandwidths between the best one's two neighbours.
    Distinct rows, because an exact duplicate across the halves makes the held-out likelihood grow
    without bound as the bandwidth shrinks.

    Returns
    -------
    bandwidth : float
    log_likelihood : float
        Its held-out log-likelihood.

    Raises
    ------
    NotApplicable
        With fewer than four distinct rows.
    """
    distinct = np.unique(np.asarray(data, dtype=float), axis=0)
    if len(distinct) < 4:
        raise NotApplicable(f"needs at least 4 distinct rows in {what} table to choose a density bandwidth.")
    perm = rng.permutation(len(distinct))
    half = len(distinct) // 2
    fit, held = distinct[perm[:half]], distinct[perm[half:]][:MAX_HELD_OUT]
    nearest = nearest_two(held, fit, chunk_elements=chunk_elements)[0].d1
    base = float(np.median(nearest[nearest > 0])) if np.any(nearest > 0) else 1.0
    coarse = base * BANDWIDTH_GRID
    scores = logpdf(fit, held, coarse, chunk_elements=chunk_elements).sum(axis=0)
    best = int(np.argmax(scores))
    low, high = coarse[max(best - 1, 0)], coarse[min(best + 1, len(coarse) - 1)]
    fine = np.geomspace(low, high, REFINE_POINTS)
    fine_scores = logpdf(fit, held, fine, chunk_elements=chunk_elements).sum(axis=0)
    pick = int(np.argmax(fine_scores))
    return float(fine[pick]), float(fine_scores[pick])


def _subsample(rng: np.random.Generator, table: np.ndarray, limit: int) -> np.ndarray:
    if limit <= 0 or len(table) <= limit:
        return table
    return table[np.sort(rng.choice(len(table), size=limit, replace=False))]


def compute_mia_domias(ctx: MetricContext) -> MetricOutput:
    """DOMIAS-style density-ratio membership inference.

    Score ``s(x) = log p_Z(x) − log p_R(x)`` (the log of DOMIAS's ``p_Z(x)/p_R(x)``; same ROC), with kernel
    density estimates in the encoded space E (the space of the distance metrics: numbers scaled to
    [0, 1], one column per category) fitted on every synthetic and every reference row (parameter
    ``kde_max_points`` caps them for very large tables). Kernels are isotropic Student-t with ν = 1
    (:func:`t_kde_logpdf`); each density's bandwidth maximises its own held-out likelihood
    (:func:`held_out_bandwidth`) unless the parameter ``bandwidth`` fixes it as a multiple of the median
    nearest-neighbour distance. ``R`` as in ``mia_calibrated``. per_record (real) = ``s(y)`` for every
    real row.

    Notes
    -----
    Choice: metrics.md §3 names Gaussian kernels on a low-dimensional projection; with Scott's rule on five
    FAMD coordinates and a 1,000-row sample that attack reached AUC 0.58 on the exact-copy demo. A
    Gaussian kernel with a small bandwidth turns the ratio into a difference of squared distances, which
    depends on the local scale of the data; a heavy-tailed kernel keeps it scale-free, and the full space
    keeps what the projection drops (AUC 0.96 on the exact copy, 0.5 on a fresh sample).

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"x": [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="mia_domias",
    ...                holdout=real + 1.0, params={"mia_domias": {"n_boot": 0}})
    >>> 0.0 <= res["mia_domias"].risk <= 1.0  # eight rows are too few for densities to mean much
    True
    """
    require_holdout(ctx, 2)
    return output_from_scores(ctx, "mia_domias")


def domias_scores(ctx: MetricContext, sets: MembershipSets, reference: Reference, params: Mapping) -> AttackScores:
    """The scores of :func:`compute_mia_domias` for every real row and each non-member."""
    encoded_reference = reference.encoded(ctx, "E")
    encoded_real, encoded_syn, encoded_hold = (ctx.encoded("E", r) for r in ("real", "synthetic", "holdout"))
    rng = np.random.default_rng([ctx.seed, 1])
    limit = int(params.get("kde_max_points", 0))
    fit_syn = _subsample(rng, encoded_syn, limit)
    fit_ref = _subsample(rng, encoded_reference, limit)
    chunk = ctx.shared.chunk_elements
    fixed = float(params.get("bandwidth", 0.0) or 0.0)
    bandwidths = {}
    for role, table, what in (("synthetic", fit_syn, "the synthetic"), ("reference", fit_ref, "the reference")):
        if fixed > 0:
            distinct = np.unique(table, axis=0)
            nearest = nearest_two(distinct, distinct, exclude_self=True, chunk_elements=chunk)[0].d1 \
                if len(distinct) > 1 else np.zeros(1)
            positive = nearest[nearest > 0]
            bandwidths[role] = fixed * (float(np.median(positive)) if len(positive) else 1.0)
        else:
            bandwidths[role] = held_out_bandwidth(table, rng, chunk_elements=chunk, what=what)[0]
    queries = np.vstack([encoded_real, encoded_hold[sets.nonmembers]])
    log_ratio = (t_kde_logpdf(fit_syn, queries, bandwidths["synthetic"], chunk_elements=chunk)[:, 0]
                 - t_kde_logpdf(fit_ref, queries, bandwidths["reference"], chunk_elements=chunk)[:, 0])
    score_real, score_non = log_ratio[: len(encoded_real)], log_ratio[len(encoded_real) :]
    details = {
        "reference": reference.described,
        "reference_positions": sets.reference,
        "kde_points": {"synthetic": len(fit_syn), "reference": len(fit_ref)},
        "bandwidths": bandwidths,
    }
    warnings = []
    if len(fit_syn) < len(encoded_syn) or len(fit_ref) < len(encoded_reference):
        warnings.append(f"The densities were estimated on a random sample of at most {limit} rows each.")
    settings = {"space": "E", "kde_max_points": limit, "bandwidth": fixed, "reference": reference.described}
    return AttackScores(score_real, score_non, 0.0, details, settings, tuple(warnings))


SCORERS["mia_distance"] = Scorer(distance_scores)
SCORERS["mia_calibrated"] = Scorer(calibrated_scores)
SCORERS["mia_domias"] = Scorer(domias_scores, ("bandwidth", "kde_max_points"))


# -------------------------------------------------------------------------------------- registration

_BLIND_DISTANCE = (
    "Distance treats every column alike, so a unique value (the DCR-Delusion example: the only person born in "
    "Holland-Netherlands, reproduced in synthetic rows that are not close to that person) leaks membership "
    "without moving the distance; a single attack also only gives a lower bound on what stronger attacks "
    "(shadow models, TAPAS) can do."
)

register(
    MetricInfo(
        id="mia_distance",
        name="Membership inference: distance to closest synthetic record",
        summary="Can an attacker tell training records from other real people by how close they are to the "
        "synthetic data?",
        attacker_knows="The synthetic table and the full record of the person under suspicion.",
        reference=f"{REFERENCE_MIA}; distance attack as in Chen et al., GAN-Leaks (CCS 2020); the DCR-Delusion "
        "paper (Yao et al. 2025) on why attacks, not distance tests, measure privacy.",
        explanation=Explanation(
            attack="The attacker guesses that a person was in the training data when some synthetic row is very "
            "close to their record.",
            steps=attack_steps("Score each person by minus the distance from their record to the closest synthetic "
                               "row."),
            high="Training records sit much closer to the synthetic rows than other real people do: the synthetic "
            "data gives away who was in the training data.",
            low="Close synthetic rows are no more common for training records than for other people: this attack "
            "learns nothing about membership.",
            blind_spots=_BLIND_DISTANCE,
            note=MIA_NOTE + "; distances in E; risk is the advantage max(TPR − FPR) and raw the ROC AUC.",
        ),
        compute=compute_mia_distance,
        passes=(('E', 'real', 'synthetic'), ('E', 'holdout', 'synthetic')),
        details_type=MembershipScores,
        space="E",
        figures=("famd_map",),
        params=COMMON_PARAMS,
        **COMMON_INFO,
    )
)

register(
    MetricInfo(
        id="mia_calibrated",
        name="Membership inference: calibrated distance",
        summary="Like the distance attack, but discounting people who are close to everyone (typical records).",
        attacker_knows="The synthetic table, the suspect's record, and a reference sample of other real people "
        "from the same population.",
        reference=f"{REFERENCE_MIA}; calibrated attack of Chen et al., GAN-Leaks (CCS 2020).",
        explanation=Explanation(
            attack="Typical people are close to many records, synthetic or not; the attacker only suspects "
            "membership when a record is closer to the synthetic data than to comparable real people.",
            steps=attack_steps("Score each person by their distance to the closest reference person minus their "
                               "distance to the closest synthetic row."),
            high="Training records are close to the synthetic data in a way real people in general are not: the "
            "generator reproduces its training records.",
            low="Once typicality is accounted for, training records are not closer to the synthetic data than "
            "other people.",
            blind_spots=_BLIND_DISTANCE,
            note=MIA_NOTE + "; without a user reference table the holdout is split into two seeded halves, "
            "non-members and reference.",
        ),
        compute=compute_mia_calibrated,
        passes=(('E', 'real', 'synthetic'), ('E', 'holdout', 'synthetic')),
        details_type=MembershipScores,
        space="E",
        params=(*COMMON_PARAMS, REFERENCE),
        **COMMON_INFO,
    )
)

register(
    MetricInfo(
        id="mia_domias",
        name="Membership inference: density ratio (DOMIAS)",
        summary="Can an attacker find training records where the synthetic data is denser than the real "
        "population?",
        attacker_knows="The synthetic table, the suspect's record, and a reference sample of other real people "
        "from the same population.",
        reference=f"van Breugel, Sun, Qian and van der Schaar, Membership Inference Attacks against Synthetic Data "
        f"through Overfitting Detection (DOMIAS, AISTATS 2023); {REFERENCE_MIA}.",
        explanation=Explanation(
            attack="A generator that overfits puts extra probability mass around its training records; the attacker "
            "compares how dense the synthetic data is around a record with how dense real people are there.",
            steps=attack_steps("Estimate both densities (kernels around every synthetic and every reference record, "
                               "their width fitted to the data) and score each person by the ratio synthetic density "
                               "/ reference density."),
            high="The synthetic data piles up around training records more than the population does: the generator "
            "overfits and gives away membership.",
            low="The synthetic density follows the population, not the training records.",
            blind_spots="Densities in many dimensions are rough: a leak of a few records barely moves them, and a "
            "generator that spreads probability evenly over its training records' neighbourhoods can look like "
            "the population; like every data-only attack it only bounds what shadow-model attacks can do.",
            note=MIA_NOTE + "; Choice: Student-t (Cauchy) kernels in E on every synthetic and reference row, "
            "bandwidths by held-out likelihood on distinct rows (metrics.md names Gaussian kernels on a projection, "
            "which miss an exact copy); without a user reference table the holdout is split into two seeded halves.",
        ),
        compute=compute_mia_domias,
        details_type=MembershipScores,
        params=(
            *COMMON_PARAMS, REFERENCE,
            Param("bandwidth", "float", 0.0, "Kernel bandwidth",
                  "0 = each density's bandwidth is chosen by held-out likelihood; otherwise a multiple of the "
                  "median distance between neighbouring records, used for both densities.",
                  minimum=0.0, maximum=10.0, step=0.01),
            Param("kde_max_points", "int", 0, "Density estimate rows",
                  "0 = every row fits the density estimates (the default); otherwise at most this many rows, a "
                  "seeded sample, for very large tables.", minimum=0, maximum=1_000_000, step=1_000),
        ),
        **COMMON_INFO,
    )
)
