"""Membership-inference attacks with the holdout as non-members (metrics.md §3).

The attacker holds a real person's record ``x`` and the synthetic table ``Z`` and must decide whether
``x`` was in the training data ``Y``. We play the game on records whose answer we know: *members* are the
real training rows (``Y``, or an equal-size seeded sample of it) and *non-members* are holdout rows
(``H``, or half of it when the other half serves as the attacker's reference set ``R``). Each attack gives
every record a score (higher = "member"); how well the score separates the two groups is the risk.

Scores:

(a) ``mia_distance``   ``s(x) = −d(x, Z)``, the distance in E to the closest synthetic row;
(b) ``mia_calibrated`` ``s(x) = d(x, R) − d(x, Z)``: closeness to ``Z`` beyond closeness to real people in
    general (Chen et al., GAN-Leaks, calibrated attack);
(c) ``mia_domias``     ``s(x) = log p_Z(x) − log p_R(x)``, Gaussian kernel density estimates on the first
    (at most 5) coordinates of the FAMD projection Φk (van Breugel et al., DOMIAS).

Reported: ROC AUC (``raw``), TPR at FPR 1 % and 10 %, the membership advantage ``max(TPR − FPR)``
(``risk``), seeded percentile-bootstrap 95 % intervals (resampling members and non-members separately),
and the ROC curve.

Sampling, all from ``numpy.random.default_rng(seed)`` in this order: (1) when ``R`` comes from the holdout,
``rng.permutation(|H|)``: the first ``|H| // 2`` positions are non-members, the rest ``R``; (2) when the
member and non-member pools differ in size, the larger pool is cut to the smaller size with
``rng.choice(pool, size, replace=False)`` (positions then sorted). The KDE subsample of (c) uses
``numpy.random.default_rng([seed, 1])`` and the bootstrap ``seed``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.linalg
from scipy.stats import gaussian_kde
from sklearn.metrics import roc_auc_score, roc_curve

from privcore.context import MetricContext
from privcore.details import MembershipScores
from privcore.errors import InputError
from privcore.neighbors import nearest_two
from privcore.params import Param
from privcore.registry import Explanation, MetricInfo, register
from privcore.results import MetricOutput, NotApplicable
from privcore.stats import bootstrap_interval

#: False-positive rates at which the true-positive rate is reported.
FPR_TARGETS = (0.01, 0.1)

#: Points kept of the ROC curve for the dashboard.
MAX_CURVE_POINTS = 500

DEFAULT_PARAMS = {"n_boot": 1000, "confidence": 0.95}

#: The parameters every membership attack takes.
COMMON_PARAMS = (
    Param("n_boot", "int", DEFAULT_PARAMS["n_boot"], "Bootstrap replicates",
          "Resamples behind the confidence intervals of the AUC, TPR and advantage; 0 skips the intervals "
          "(faster).", minimum=0, maximum=20_000, step=100),
    Param("confidence", "float", DEFAULT_PARAMS["confidence"], "Confidence level",
          "Coverage of the bootstrap intervals (0.95 = 95 % intervals).", minimum=0.5, maximum=0.999, step=0.005),
)
REFERENCE = Param("reference", "table", None, "Reference table",
                  "Real people of the same population who are neither training nor holdout records; without it, "
                  "half of the holdout serves as the reference.")

_MIA_NOTE = (
    "Choice: members are the training rows and non-members the holdout rows, the larger group cut at random to "
    "the size of the smaller one"
)


# --------------------------------------------------------------------------------------------- sets


@dataclass
class MembershipSets:
    """Who plays member, non-member and reference in one attack.

    Attributes
    ----------
    members : numpy.ndarray
        Positions in the real table.
    nonmembers : numpy.ndarray
        Positions in the holdout.
    reference : numpy.ndarray or None
        Positions in the holdout used as the reference set ``R`` (None: no reference or a user table).
    warnings : list of str
    """

    members: np.ndarray
    nonmembers: np.ndarray
    reference: np.ndarray | None = None
    warnings: list[str] = field(default_factory=list)


def membership_sets(n_real: int, n_holdout: int, seed: int, split_holdout: bool) -> MembershipSets:
    """Seeded choice of members, non-members and (optionally) a holdout-half reference set.

    Parameters
    ----------
    n_real, n_holdout : int
        Rows of ``Y`` and ``H``.
    seed : int
        Seed of ``numpy.random.default_rng``.
    split_holdout : bool
        Split ``H`` into non-members (first ``n_holdout // 2`` positions of a permutation) and ``R``.

    Returns
    -------
    MembershipSets
        Members and non-members of equal size (the larger pool sampled without replacement).

    Examples
    --------
    >>> s = membership_sets(4, 4, 0, split_holdout=True)
    >>> len(s.members), len(s.nonmembers), len(s.reference)
    (2, 2, 2)
    """
    rng = np.random.default_rng(seed)
    reference = None
    nonmembers = np.arange(n_holdout)
    if split_holdout:
        perm = rng.permutation(n_holdout)
        half = n_holdout // 2
        nonmembers, reference = np.sort(perm[:half]), np.sort(perm[half:])
    members = np.arange(n_real)
    size = min(len(members), len(nonmembers))
    warnings = []
    if len(members) > size:
        members = np.sort(rng.choice(members, size=size, replace=False))
        warnings.append(f"{size} of the {n_real} training rows, drawn at random, play the members (as many as "
                        "there are non-members).")
    elif len(nonmembers) > size:
        total = len(nonmembers)
        nonmembers = np.sort(rng.choice(nonmembers, size=size, replace=False))
        warnings.append(f"{size} of the {total} holdout rows available as non-members, drawn at random, play the "
                        "non-members (as many as there are training rows).")
    return MembershipSets(members, nonmembers, reference, warnings)


# ----------------------------------------------------------------------------------------- ROC stats


def snap_ties(scores: np.ndarray, tolerance: float) -> np.ndarray:
    """Make scores that differ by at most ``tolerance`` exactly equal (metrics.md §0 tie rule).

    Sorted scores are chained into groups wherever consecutive gaps are ≤ ``tolerance``; each group takes its
    smallest value, so rounding noise in distances cannot split a tie.

    Examples
    --------
    >>> snap_ties(np.array([1.0, 1.0 + 1e-15, 2.0]), 1e-12).tolist()
    [1.0, 1.0, 2.0]
    """
    scores = np.asarray(scores, dtype=float)
    if tolerance <= 0 or len(scores) < 2:
        return scores.copy()
    order = np.argsort(scores, kind="stable")
    ordered = scores[order]
    starts = np.r_[True, np.diff(ordered) > tolerance]
    out = np.empty_like(scores)
    out[order] = ordered[starts][np.cumsum(starts) - 1]
    return out


def roc_statistics_batch(ranks: np.ndarray, labels: np.ndarray, n_levels: int) -> dict[str, np.ndarray]:
    """AUC, advantage and TPR at fixed FPRs for many resamples at once.

    Parameters
    ----------
    ranks : numpy.ndarray
        Shape (b, n): dense rank of each record's score (0 = lowest; equal scores, equal rank).
    labels : numpy.ndarray
        Shape (b, n): 1 = member, 0 = non-member; every row must hold both.
    n_levels : int
        Number of distinct ranks.

    Returns
    -------
    dict
        ``auc``, ``advantage`` and ``tpr_at_<fpr>`` arrays of length b. Thresholds sweep the distinct score
        levels from the top, so tied scores move together, exactly as sklearn's ``roc_curve`` and
        ``roc_auc_score`` (a tied member/non-member pair counts ½ in the AUC).
    """
    ranks = np.atleast_2d(ranks)
    labels = np.atleast_2d(labels).astype(bool)
    b = ranks.shape[0]
    # One bincount per class over (replicate, level) pairs; reversed so column 0 is the highest score.
    flat = ranks + (np.arange(b) * n_levels)[:, None]
    pos = np.bincount(flat[labels], minlength=b * n_levels).reshape(b, n_levels)[:, ::-1]
    neg = np.bincount(flat[~labels], minlength=b * n_levels).reshape(b, n_levels)[:, ::-1]
    tp, fp = np.cumsum(pos, axis=1), np.cumsum(neg, axis=1)
    n_pos, n_neg = tp[:, -1:].astype(float), fp[:, -1:].astype(float)
    tpr, fpr = tp / n_pos, fp / n_neg
    out = {
        "auc": ((tp - pos + 0.5 * pos) * neg).sum(axis=1) / (n_pos[:, 0] * n_neg[:, 0]),
        "advantage": np.maximum(0.0, (tpr - fpr).max(axis=1)),
    }
    for target in FPR_TARGETS:
        # tpr rises along the sweep, so the best TPR with FPR ≤ target is the last such point (0 if none).
        out[f"tpr_at_{target:g}"] = np.where(fpr <= target, tpr, 0.0).max(axis=1)
    return out


def _downsample_curve(fpr: np.ndarray, tpr: np.ndarray, keep: int) -> tuple[np.ndarray, np.ndarray]:
    """At most ``MAX_CURVE_POINTS`` points, keeping the ends and the point of maximal advantage."""
    if len(fpr) <= MAX_CURVE_POINTS:
        return fpr, tpr
    picks = np.unique(np.r_[np.linspace(0, len(fpr) - 1, MAX_CURVE_POINTS - 1).round().astype(int), keep])
    return fpr[picks], tpr[picks]


def attack_summary(
    member_scores: np.ndarray,
    nonmember_scores: np.ndarray,
    *,
    tolerance: float = 0.0,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict:
    """ROC AUC, TPR at FPR 1 % and 10 %, advantage, bootstrap intervals and the ROC curve of one attack.

    Parameters
    ----------
    member_scores, nonmember_scores : numpy.ndarray
        Attack scores (higher = "member").
    tolerance : float
        Scores closer than this are tied (:func:`snap_ties`).
    n_boot : int
        Bootstrap replicates (0: no intervals).
    confidence : float
        Coverage of the intervals.
    seed : int
        Bootstrap seed.

    Returns
    -------
    dict
        ``auc``, ``advantage``, ``tpr_at_0.01``, ``tpr_at_0.1``, each with an ``<name>_interval``; ``roc_fpr``,
        ``roc_tpr`` (≤ 500 points), ``n_boot``, ``confidence``.

    Examples
    --------
    >>> s = attack_summary(np.array([3.0, 2.0]), np.array([2.0, 1.0]), n_boot=0)
    >>> s["auc"], s["advantage"]
    (0.875, 0.5)
    """
    scores = snap_ties(np.r_[member_scores, nonmember_scores], tolerance)
    labels = np.r_[np.ones(len(member_scores), dtype=np.int8), np.zeros(len(nonmember_scores), dtype=np.int8)]
    if len(member_scores) == 0 or len(nonmember_scores) == 0:
        raise NotApplicable("needs at least one member and one non-member record.")
    # Point estimates from sklearn (ties averaged); all thresholds kept so TPR at FPR is exact.
    fpr, tpr, _ = roc_curve(labels, scores, drop_intermediate=False)
    gap = tpr - fpr
    summary = {
        "auc": float(roc_auc_score(labels, scores)),
        "advantage": float(max(0.0, gap.max())),
        "roc_fpr": None,
        "roc_tpr": None,
    }
    for target in FPR_TARGETS:
        summary[f"tpr_at_{target:g}"] = float(tpr[fpr <= target].max())
    summary["roc_fpr"], summary["roc_tpr"] = _downsample_curve(fpr, tpr, int(np.argmax(gap)))
    summary["n_boot"] = int(n_boot)
    summary["confidence"] = float(confidence)
    names = ["auc", "advantage", *(f"tpr_at_{t:g}" for t in FPR_TARGETS)]
    if n_boot <= 0:
        for name in names:
            summary[f"{name}_interval"] = None
        return summary
    _, ranks = np.unique(scores, return_inverse=True)
    intervals = _bootstrap_intervals(ranks, labels, int(ranks.max()) + 1, names, n_boot, seed, confidence)
    for name in names:
        summary[f"{name}_interval"] = intervals[name]
    return summary


def _bootstrap_intervals(
    ranks, labels, n_levels, names, n_boot, seed, confidence
) -> dict[str, tuple[float, float]]:
    """Percentile-bootstrap intervals of every ROC statistic from ONE set of resamples.

    :func:`privcore.stats.bootstrap_interval` resamples members and non-members separately (strata) for the
    advantage; the other statistics of the same replicates are recorded on the way, which costs one pass
    instead of one per statistic. Should the recording ever fall out of step with the replicates
    ``bootstrap_interval`` reports, each statistic gets its own call with the same seed (same resamples).
    """
    recorded: list[dict[str, np.ndarray]] = []

    def advantage(r, y):
        stats = roc_statistics_batch(r, y, n_levels)
        recorded.append(stats)
        return stats["advantage"]

    main = bootstrap_interval(advantage, ranks, labels, n_boot=n_boot, seed=seed, confidence=confidence,
                              vectorized=True, strata=labels)
    replicates = {name: np.concatenate([rec[name] for rec in recorded[1:]]) for name in names} if recorded else {}
    in_step = len(replicates.get("advantage", ())) == n_boot and np.array_equal(
        replicates["advantage"], main.samples
    )
    out = {}
    for name in names:
        if in_step:
            low, high = np.quantile(replicates[name], [(1 - confidence) / 2, (1 + confidence) / 2])
        else:
            low, high = bootstrap_interval(
                lambda r, y, _name=name: roc_statistics_batch(r, y, n_levels)[_name], ranks, labels,
                n_boot=n_boot, seed=seed, confidence=confidence, vectorized=True, strata=labels,
            ).interval
        out[name] = (float(low), float(high))
    return out


def _int_param(ctx: MetricContext, name: str, default: int, minimum: int) -> int:
    value = ctx.params.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"The parameter {name} must be a whole number of at least {minimum}; got {value!r}.")
    return int(value)


def _output(ctx: MetricContext, sets: MembershipSets, member_scores, nonmember_scores, per_record, *,
            tolerance: float, details: dict, params: dict, warnings: list[str]) -> MetricOutput:
    n_boot = _int_param(ctx, "n_boot", DEFAULT_PARAMS["n_boot"], 0)
    confidence = ctx.params.get("confidence", DEFAULT_PARAMS["confidence"])
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise InputError(f"The confidence level must be a number between 0 and 1 (e.g. 0.95); got {confidence!r}.")
    confidence = float(confidence)
    summary = attack_summary(member_scores, nonmember_scores, tolerance=tolerance, n_boot=n_boot,
                             confidence=confidence, seed=ctx.seed)
    details = MembershipScores(
        **_summary_fields(summary),
        **details,
        member_scores=np.asarray(member_scores, dtype=float),
        nonmember_scores=np.asarray(nonmember_scores, dtype=float),
        member_positions=sets.members,
        nonmember_positions=sets.nonmembers,
        n_members=len(sets.members),
        n_nonmembers=len(sets.nonmembers),
        per_record_meaning="the attack score of each real training row (higher = judged more likely a member)",
    )
    return MetricOutput(
        risk=details.advantage,
        raw=details.auc,
        per_record=np.asarray(per_record, dtype=float),
        details=details,
        params={**params, "n_boot": n_boot, "confidence": confidence, "seed": ctx.seed},
        interval=details.advantage_interval,
        warnings=sets.warnings + warnings,
    )


def _summary_fields(summary: dict) -> dict:
    """:func:`attack_summary`'s flat keys as :class:`~privcore.details.MembershipScores` fields: the
    ``tpr_at_<fpr>`` values and their ``tpr_at_<fpr>_interval`` go into ``tpr_at`` and ``tpr_at_interval``,
    keyed by the FPR as written in the key (``"0.01"``, ``"0.1"``)."""
    fields: dict = {"tpr_at": {}, "tpr_at_interval": {}}
    for key, value in summary.items():
        if key.startswith("tpr_at_") and key.endswith("_interval"):
            fields["tpr_at_interval"][key[len("tpr_at_"):-len("_interval")]] = value
        elif key.startswith("tpr_at_"):
            fields["tpr_at"][key[len("tpr_at_"):]] = value
        else:
            fields[key] = value
    return fields


def _require_holdout(ctx: MetricContext, minimum: int) -> None:
    if ctx.holdout is None or len(ctx.holdout) < minimum:
        raise NotApplicable(
            f"needs a holdout table with at least {minimum} rows (real records not used for training)."
        )


# ----------------------------------------------------------------------------------------- reference


def _user_reference(ctx: MetricContext) -> pd.DataFrame | None:
    """The user's reference table, prepared like the others (None when not given)."""
    table = ctx.params.get("reference")
    if table is None:
        return None
    if not isinstance(table, pd.DataFrame):
        raise InputError("The reference table must be a table of real records with the analysed columns.")
    from privcore.prepare import prepare

    schema = ctx.schema.with_changes(pairing=None)
    prepared = prepare(table, table, schema, names={"real": "reference", "synthetic": "reference"}).real
    if len(prepared) == 0:
        raise NotApplicable("the reference table has no usable rows.")
    return prepared


def _reference_sets(ctx: MetricContext, space: str):
    """Members/non-members, the reference rows encoded in ``space`` and a description of ``R``."""
    user = _user_reference(ctx)
    sets = membership_sets(len(ctx.real), len(ctx.holdout), ctx.seed, split_holdout=user is None)
    if user is None:
        encoded_reference = ctx.encoded(space, "holdout")[sets.reference]
        described = f"half of the holdout ({len(sets.reference)} rows, seeded split)"
    else:
        encoded_reference = ctx.space(space).transform(user)
        described = f"user reference table ({len(user)} rows)"
    return sets, encoded_reference, described


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
    >>> from privcore.schema import Schema
    >>> real = pd.DataFrame({"x": [0.0, 2.0, 4.0, 6.0]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="mia_distance",
    ...                holdout=real + 1.0, params={"mia_distance": {"n_boot": 0}})
    >>> res["mia_distance"].raw, res["mia_distance"].risk
    (1.0, 1.0)
    """
    _require_holdout(ctx, 1)
    sets = membership_sets(len(ctx.real), len(ctx.holdout), ctx.seed, split_holdout=False)
    d_real = ctx.neighbours("E", "real", "synthetic").d1
    d_hold = ctx.neighbours("E", "holdout", "synthetic").d1
    tolerance = ctx.extremes("E", "real", "synthetic").tie_tolerance
    return _output(ctx, sets, -d_real[sets.members], -d_hold[sets.nonmembers], -d_real,
                   tolerance=tolerance, details={"tie_tolerance": tolerance}, params={"space": "E"}, warnings=[])


def compute_mia_calibrated(ctx: MetricContext) -> MetricOutput:
    """Calibrated distance membership inference.

    Score ``s(x) = d_E(x, R) − d_E(x, Z)``: how much closer ``x`` is to the synthetic data than to real
    people in general. ``R`` = the user's reference table (parameter ``reference``, real records disjoint
    from ``Y`` and ``H``) or, without one, a seeded half of ``H`` (the other half are the non-members).
    ``d(x, R)`` comes from one exact pass of :func:`privcore.neighbors.nearest_two` on the shared E
    encoding. per_record (real) = ``s(y)`` for every real row.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.schema import Schema
    >>> real = pd.DataFrame({"x": [0.0, 2.0, 4.0, 6.0]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="mia_calibrated",
    ...                holdout=real + 1.0, params={"mia_calibrated": {"n_boot": 0}})
    >>> round(res["mia_calibrated"].raw, 6)  # members' reference distances vary with the seeded split
    0.75
    """
    _require_holdout(ctx, 2)
    sets, reference, described = _reference_sets(ctx, "E")
    encoded_real, encoded_hold = ctx.encoded("E", "real"), ctx.encoded("E", "holdout")
    chunk = ctx.shared.chunk_elements
    to_reference_real = nearest_two(encoded_real, reference, chunk_elements=chunk)[0].d1
    to_reference_non = nearest_two(encoded_hold[sets.nonmembers], reference, chunk_elements=chunk)[0].d1
    d_real = ctx.neighbours("E", "real", "synthetic").d1
    d_hold = ctx.neighbours("E", "holdout", "synthetic").d1
    score_real = to_reference_real - d_real
    score_non = to_reference_non - d_hold[sets.nonmembers]
    tolerance = ctx.extremes("E", "real", "synthetic").tie_tolerance
    details = {"reference": described, "reference_positions": sets.reference, "tie_tolerance": tolerance}
    return _output(ctx, sets, score_real[sets.members], score_non, score_real, tolerance=tolerance,
                   details=details, params={"space": "E", "reference": described}, warnings=[])


# ------------------------------------------------------------------------------------------- DOMIAS


def kde_logpdf(data: np.ndarray, query: np.ndarray, chunk_elements: int = 2**22) -> np.ndarray:
    """Log density of a Gaussian KDE (scipy's ``gaussian_kde``: Scott's rule) at ``query``, in chunks.

    Equals ``scipy.stats.gaussian_kde(data.T).logpdf(query.T)`` but holds at most ``chunk_elements``
    kernel values at once and uses one matrix product per chunk, which is much faster.

    Parameters
    ----------
    data : numpy.ndarray
        Shape (n, d): the points the density is fitted on.
    query : numpy.ndarray
        Shape (m, d).
    chunk_elements : int
        Kernel values held at once.

    Returns
    -------
    numpy.ndarray
        Shape (m,), natural-log densities (finite: the sum of kernels is taken in log space).

    Examples
    --------
    >>> x = np.array([[0.0], [1.0], [3.0]])
    >>> bool(np.allclose(kde_logpdf(x, x), gaussian_kde(x.T).logpdf(x.T)))
    True
    """
    kde = gaussian_kde(data.T)  # raises LinAlgError on a singular covariance
    chol = getattr(kde, "cho_cov", None)  # scipy ≥ 1.10 keeps the Cholesky factor of the kernel covariance
    chol = np.linalg.cholesky(kde.covariance) if chol is None else np.asarray(chol, dtype=np.float64)
    # In whitened coordinates every kernel is a standard normal.
    white_data = scipy.linalg.solve_triangular(chol, data.T, lower=True).T
    white_query = scipy.linalg.solve_triangular(chol, query.T, lower=True).T
    n, d = white_data.shape
    # exponent = q·x − |q|²/2 − |x|²/2 from a single product of augmented matrices.
    half_sq_query = -0.5 * np.einsum("ij,ij->i", white_query, white_query)[:, None]
    half_sq_data = -0.5 * np.einsum("ij,ij->i", white_data, white_data)[:, None]
    left = np.hstack([white_query, np.ones((len(query), 1)), half_sq_query])
    right = np.hstack([white_data, half_sq_data, np.ones((n, 1))])
    constant = -np.log(n) - 0.5 * d * np.log(2 * np.pi) - np.log(np.diag(chol)).sum()
    out = np.empty(len(query))
    rows = max(1, chunk_elements // n)
    for start in range(0, len(query), rows):
        block = left[start : start + rows] @ right.T
        peak = block.max(axis=1)  # log-sum-exp: a query far from every point still gets a finite log density
        block -= peak[:, None]
        np.exp(block, out=block)
        out[start : start + rows] = np.log(block.sum(axis=1)) + peak + constant
    return out


def _kde_dimensions(synthetic: np.ndarray, reference: np.ndarray, wanted: int) -> list[int]:
    """The first coordinates (at most ``wanted``) on which both KDEs have a non-singular covariance.

    A coordinate is kept when scipy's ``gaussian_kde`` accepts both tables restricted to the coordinates kept
    so far plus this one (its own singularity test, so :func:`kde_logpdf` cannot fail later).
    """
    chosen: list[int] = []
    for j in range(synthetic.shape[1]):
        if len(chosen) == wanted:
            break
        trial = chosen + [j]
        try:
            for table in (synthetic, reference):
                if len(table) <= len(trial):
                    raise np.linalg.LinAlgError("too few rows for a covariance")
                gaussian_kde(table[:, trial].T)
        except (np.linalg.LinAlgError, ValueError):
            continue  # (nearly) constant or collinear in Z or R: skip this coordinate
        chosen.append(j)
    return chosen


def _subsample(rng: np.random.Generator, table: np.ndarray, limit: int) -> np.ndarray:
    if limit <= 0 or len(table) <= limit:
        return table
    return table[np.sort(rng.choice(len(table), size=limit, replace=False))]


def compute_mia_domias(ctx: MetricContext) -> MetricOutput:
    """DOMIAS-style density-ratio membership inference.

    Score ``s(x) = log p_Z(x) − log p_R(x)`` (the log of DOMIAS's ``p_Z(x)/p_R(x)``; same ROC), with
    Gaussian KDEs (Scott's rule, full covariance, as ``scipy.stats.gaussian_kde``) on the first ≤ ``dims``
    (default 5) coordinates of Φk, standardised with ``Y``'s mean and standard deviation. Coordinates on
    which ``Z`` or ``R`` have a singular covariance are skipped. Each KDE is fitted on at most
    ``kde_max_points`` rows (seeded subsample; 0 = all rows) so the cost stays bounded. ``R`` as in ``mia_calibrated``.
    per_record (real) = ``s(y)`` for every real row.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.schema import Schema
    >>> real = pd.DataFrame({"x": [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="mia_domias",
    ...                holdout=real + 1.0, params={"mia_domias": {"n_boot": 0}})
    >>> 0.0 <= res["mia_domias"].risk <= 1.0
    True
    """
    _require_holdout(ctx, 2)
    sets, reference, described = _reference_sets(ctx, "phi")
    phi_real, phi_syn, phi_hold = (ctx.encoded("phi", r) for r in ("real", "synthetic", "holdout"))
    mean, std = phi_real.mean(axis=0), phi_real.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    scale = lambda a: (a - mean) / std  # noqa: E731 - one affine map for every table
    rng = np.random.default_rng([ctx.seed, 1])
    limit = _int_param(ctx, "kde_max_points", 10_000, 0)
    fit_syn = _subsample(rng, scale(phi_syn), limit)
    fit_ref = _subsample(rng, scale(reference), limit)
    requested_dims = _int_param(ctx, "dims", 5, 1)
    dims = _kde_dimensions(fit_syn, fit_ref, requested_dims)
    if not dims:
        raise NotApplicable(
            "the synthetic or reference data vary too little in the projection for a density estimate."
        )
    chunk = ctx.shared.chunk_elements
    queries = np.vstack([scale(phi_real), scale(phi_hold[sets.nonmembers])])[:, dims]
    log_ratio = kde_logpdf(fit_syn[:, dims], queries, chunk) - kde_logpdf(fit_ref[:, dims], queries, chunk)
    score_real, score_non = log_ratio[: len(phi_real)], log_ratio[len(phi_real) :]
    details = {
        "reference": described,
        "reference_positions": sets.reference,
        "dimensions": dims,
        "kde_points": {"synthetic": len(fit_syn), "reference": len(fit_ref)},
    }
    warnings = []
    if len(fit_syn) < len(phi_syn) or len(fit_ref) < len(reference):
        warnings.append(f"The densities were estimated on a random sample of at most {limit} rows each.")
    # params keep the declared int; the coordinates actually used are details.dimensions.
    params = {"space": "phi", "dims": requested_dims, "kde_max_points": limit, "reference": described}
    return _output(ctx, sets, score_real[sets.members], score_non, score_real, tolerance=0.0,
                   details=details, params=params, warnings=warnings)


# -------------------------------------------------------------------------------------- registration

_REFERENCE_MIA = "Shokri et al. 2017 (membership inference); for synthetic data Stadler et al. 2022"
_BLIND_DISTANCE = (
    "Distance treats every column alike, so a unique value (the DCR-Delusion example: the only person born in "
    "Holland-Netherlands, reproduced in synthetic rows that are not close to that person) leaks membership "
    "without moving the distance; a single attack also only gives a lower bound on what stronger attacks "
    "(shadow models, TAPAS) can do."
)


def _steps(score: str) -> tuple[str, ...]:
    return (
        "Take real people whose answer is known: training records (members) and holdout records (non-members).",
        score,
        "Rank everyone by the score and check how well the ranking puts members first: ROC AUC, and the largest "
        "gap between the share of members caught and of non-members wrongly accused (the advantage).",
    )


_COMMON = dict(
    family="Membership inference",
    needs=frozenset({"holdout"}),
    per_record_unit="real",
    raw_meaning="ROC AUC of the attack: 0.5 = no better than guessing, 1 = tells every member from every "
    "non-member.",
    min_rows=1,
    baseline=False,
    interval_kind="bootstrap",
)

register(
    MetricInfo(
        id="mia_distance",
        name="Membership inference: distance to closest synthetic record",
        summary="Can an attacker tell training records from other real people by how close they are to the "
        "synthetic data?",
        attacker_knows="The synthetic table and the full record of the person under suspicion.",
        reference=f"{_REFERENCE_MIA}; distance attack as in Chen et al., GAN-Leaks (CCS 2020); the DCR-Delusion "
        "paper (Yao et al. 2025) on why attacks, not distance tests, measure privacy.",
        explanation=Explanation(
            attack="The attacker guesses that a person was in the training data when some synthetic row is very "
            "close to their record.",
            steps=_steps("Score each person by minus the distance from their record to the closest synthetic row."),
            high="Training records sit much closer to the synthetic rows than other real people do: the synthetic "
            "data gives away who was in the training data.",
            low="Close synthetic rows are no more common for training records than for other people: this attack "
            "learns nothing about membership.",
            blind_spots=_BLIND_DISTANCE,
            note=_MIA_NOTE + "; distances in E; risk is the advantage max(TPR − FPR) and raw the ROC AUC.",
        ),
        compute=compute_mia_distance,
        details_type=MembershipScores,
        space="E",
        figures=("famd_map",),
        params=COMMON_PARAMS,
        **_COMMON,
    )
)

register(
    MetricInfo(
        id="mia_calibrated",
        name="Membership inference: calibrated distance",
        summary="Like the distance attack, but discounting people who are close to everyone (typical records).",
        attacker_knows="The synthetic table, the suspect's record, and a reference sample of other real people "
        "from the same population.",
        reference=f"{_REFERENCE_MIA}; calibrated attack of Chen et al., GAN-Leaks (CCS 2020).",
        explanation=Explanation(
            attack="Typical people are close to many records, synthetic or not; the attacker only suspects "
            "membership when a record is closer to the synthetic data than to comparable real people.",
            steps=_steps("Score each person by their distance to the closest reference person minus their distance "
                         "to the closest synthetic row."),
            high="Training records are close to the synthetic data in a way real people in general are not: the "
            "generator reproduces its training records.",
            low="Once typicality is accounted for, training records are not closer to the synthetic data than "
            "other people.",
            blind_spots=_BLIND_DISTANCE,
            note=_MIA_NOTE + "; without a user reference table the holdout is split into two seeded halves, "
            "non-members and reference.",
        ),
        compute=compute_mia_calibrated,
        details_type=MembershipScores,
        space="E",
        params=(*COMMON_PARAMS, REFERENCE),
        **_COMMON,
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
        f"through Overfitting Detection (DOMIAS, AISTATS 2023); {_REFERENCE_MIA}.",
        explanation=Explanation(
            attack="A generator that overfits puts extra probability mass around its training records; the attacker "
            "compares how dense the synthetic data is around a record with how dense real people are there.",
            steps=_steps("Estimate both densities (Gaussian kernels on a few summary coordinates of the records) and "
                         "score each person by the ratio synthetic density / reference density."),
            high="The synthetic data piles up around training records more than the population does: the generator "
            "overfits and gives away membership.",
            low="The synthetic density follows the population, not the training records.",
            blind_spots="Works on at most 5 summary coordinates (the FAMD projection), so leaks in columns the "
            "projection barely reflects, such as one rare category, go unseen; kernel densities blur detail in "
            "small tables.",
            note=_MIA_NOTE + "; Gaussian KDE with Scott's rule on the first ≤5 FAMD coordinates, each fitted on "
            "at most 10,000 rows; without a user reference table the holdout is split into two seeded halves.",
        ),
        compute=compute_mia_domias,
        details_type=MembershipScores,
        params=(
            *COMMON_PARAMS, REFERENCE,
            Param("dims", "int", 5, "Projection dimensions",
                  "How many coordinates of the low-dimensional projection the density estimates use.",
                  minimum=1, maximum=20, step=1),
            Param("kde_max_points", "int", 10_000, "Density estimate rows",
                  "At most this many rows (a seeded sample) fit each density estimate; 0 = every row (slow on "
                  "large tables).", minimum=0, maximum=1_000_000, step=1_000),
        ),
        **_COMMON,
    )
)
