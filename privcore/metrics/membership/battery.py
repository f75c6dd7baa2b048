"""Four more membership attacks for the battery of metrics.md §3 ("Membership attack battery").

Each gives every record ``x`` a score, higher = "member" (see the ``compute_mia_*`` functions).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from privcore.base import NotApplicable, logsumexp_rows
from privcore.data import Param
from privcore.engine import MetricContext, count_within, nearest_k, nearest_two
from privcore.metrics.classifier import make_lgbm
from privcore.metrics.details import MembershipScores
from privcore.metrics.membership._base import (
    COMMON_INFO,
    COMMON_PARAMS,
    DEFAULT_K,
    MIA_NOTE,
    REFERENCE,
    REFERENCE_MIA,
    AttackScores,
    MembershipSets,
    Reference,
    Scorer,
    attack_steps,
    held_out_bandwidth,
    output_from_scores,
    require_holdout,
    scored_records,
    squared_distance_blocks,
    standardised_factors,
    standardised_synthetic_neighbours,
)
from privcore.metrics.registry import Explanation, MetricInfo, register
from privcore.metrics.results import MetricOutput

#: DPI finds this many neighbours beyond its k, so that the rows tied around the k-th distance are usually among
#: them and are counted from the list instead of a second pass (:func:`dpi_counts`).
EXTRA_NEIGHBOURS = 16
#: LightGBM settings of the classifier attack: a random forest of deep trees (rows bagged as in a bootstrap,
#: 60 % of the columns per tree, leaves and histogram bins of a single row allowed), so that it can isolate
#: copied rows.
CLASSIFIER_SETTINGS = {"boosting_type": "rf", "n_estimators": 30, "num_leaves": 1023, "min_child_samples": 1,
                       "min_data_in_bin": 1, "bagging_freq": 1, "bagging_fraction": 0.632, "feature_fraction": 0.6}


def _split(scores: np.ndarray, n_real: int) -> tuple[np.ndarray, np.ndarray]:
    return scores[:n_real], scores[n_real:]


def _require_columns(encoded: np.ndarray, what: str) -> None:
    if encoded.shape[1] == 0:
        raise NotApplicable(f"every column is constant in the real table, so {what} has nothing to compare.")


# --------------------------------------------------------------------------------------------- Gen-LRA


def gaussian_kde_logpdf(data: np.ndarray, query: np.ndarray, bandwidths, *, chunk_elements: int = 2**22
                        ) -> np.ndarray:
    """Log density of isotropic Gaussian kernel density estimates at ``query``, in chunks.

    ``p(x) = (1/n) Σ_i N(x; x_i, h²·I)``, one column per bandwidth ``h``.

    Parameters
    ----------
    data : numpy.ndarray
        Shape (n, D): the rows the density is fitted on.
    query : numpy.ndarray
        Shape (m, D).
    bandwidths : float or sequence of float
        Kernel standard deviations ``h`` (> 0).
    chunk_elements : int
        Distances held at once.

    Returns
    -------
    numpy.ndarray
        Shape (m, len(bandwidths)), natural-log densities.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> got = gaussian_kde_logpdf(np.array([[0.0], [2.0]]), np.array([[1.0]]), [0.5])[0, 0]
    >>> bool(np.isclose(got, np.log(norm.pdf(1.0, scale=0.5))))
    True
    """
    data, query = np.asarray(data, dtype=float), np.asarray(query, dtype=float)
    h = np.atleast_1d(np.asarray(bandwidths, dtype=float))
    n, dims = data.shape
    constant = -np.log(n) - dims / 2 * np.log(2 * np.pi * h * h)
    out = np.empty((len(query), len(h)))
    for rows, d2 in squared_distance_blocks(query, data, chunk_elements):
        for j, scale in enumerate(h):
            # SciPy's logsumexp(…, axis=1), bit for bit, without its overhead (privcore.base.logsumexp).
            out[rows, j] = logsumexp_rows(d2 * (-0.5 / (scale * scale)))
    return out + constant


def compute_mia_gen_lra(ctx: MetricContext) -> MetricOutput:
    """Generative likelihood-ratio membership inference (Gen-LRA).

    With a Gaussian kernel density ``p_R`` fitted on the reference rows ``R`` (``n`` rows) and the same
    kernel on ``R ∪ {x}``, ``p_{R∪x}(z) = (n·p_R(z) + K_h(z − x))/(n + 1)``, the score is

    ``s(x) = Σ_{z ∈ kNN_Z(x)} [log p_{R∪x}(z) − log p_R(z)]``

    over the ``k`` synthetic rows nearest to ``x`` (``k`` default 20, capped at |Z|): if the generator
    saw ``x``, the synthetic rows around ``x`` are better explained once ``x`` joins the population.
    ``h`` maximises the held-out likelihood of ``R``'s distinct rows (one half fitted, the other scored,
    :func:`~privcore.metrics.membership._base.held_out_bandwidth`) and is used for both densities. Neighbours
    are exact (:func:`privcore.engine.neighbors.nearest_k`, lowest index among ties). per_record (real) =
    ``s(y)`` for every real row.

    Notes
    -----
    Choice of space (metrics.md: "a standardised, well-conditioned space"): E with every numerical
    coordinate divided by its standard deviation on ``Y`` and one-hot coordinates 0/1
    (:func:`standardised_factors`), the encoding of the published battery. The isotropic kernel needs no
    covariance, so singular one-hot spaces are no obstacle. The five whitened FAMD axes of Φk that
    were used first keep too little of each record to find its copy: AUC 0.62 on the exact-copy demo and
    0.57 on the noisy copy (3,000 rows), against 0.80 and 0.77 here (0.76 and 0.71 in E itself).

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"x": [float(v) for v in range(0, 40, 2)]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="mia_gen_lra",
    ...                holdout=real + 1.0, params={"mia_gen_lra": {"n_boot": 0, "k": 1}})
    >>> 0.0 <= res["mia_gen_lra"].risk <= 1.0  # twenty rows on a lattice are too few for densities to mean much
    True
    """
    require_holdout(ctx, 8)
    return output_from_scores(ctx, "mia_gen_lra")


def gen_lra_scores(ctx: MetricContext, sets: MembershipSets, reference: Reference, params: Mapping) -> AttackScores:
    """The scores of :func:`compute_mia_gen_lra` for every real row and each non-member.

    Notes
    -----
    They play the same game as the attacks of :mod:`privcore.metrics.membership.distance` and
    :mod:`privcore.metrics.membership.domias` on the same members ``M`` (training rows), non-members ``N`` (holdout
    rows) and reference ``R`` (the user's reference table or the other seeded half of the holdout), and each gives
    every record ``x`` a score, higher = "member":

    - ``mia_gen_lra``  (Gen-LRA, Ward et al. 2025): how much adding ``x`` to ``R`` raises the likelihood of the
      ``k`` synthetic rows nearest to ``x`` under a Gaussian kernel density, in E with numbers standardised;
    - ``mia_classifier``: the probability of "synthetic" from a LightGBM random forest trained to tell ``Z``
      from ``R`` in E;
    - ``mia_density_count`` (Monte-Carlo attack, Hilprecht et al. 2019): the number of synthetic rows within
      radius ``r`` of ``x`` in E;
    - ``mia_dpi`` (data plagiarism index, Ward et al. 2024): ``(k_Z + 1)/(k_R + 1)`` among the ``k`` nearest
      rows of ``x`` in ``Z ∪ R`` (equal sizes).

    Each score is computed once per evaluation (:func:`privcore.metrics.membership._base.attack_scores`), so that
    ``mia_best`` compares the same scores the individual metrics report. Random steps use
    ``numpy.random.default_rng([seed, tag])`` with a tag per attack: Gen-LRA's bandwidth split 11, DPI's
    equal-size sampling 13; the classifier's bagging takes ``seed`` itself.
    """
    factors = standardised_factors(ctx)
    synthetic = ctx.encoded("E", "synthetic") * factors
    fitted = reference.encoded(ctx, "E") * factors
    chunk = ctx.shared.chunk_elements
    k = min(int(params.get("k", DEFAULT_K)), len(synthetic))
    bandwidth, _ = held_out_bandwidth(fitted, np.random.default_rng([ctx.seed, 11]), chunk_elements=chunk,
                                      what="the reference", logpdf=gaussian_kde_logpdf)
    near_distance, near_index = standardised_synthetic_neighbours(ctx, sets, k)
    needed = np.unique(near_index)
    log_p_reference = np.empty(len(synthetic))
    log_p_reference[needed] = gaussian_kde_logpdf(fitted, synthetic[needed], bandwidth, chunk_elements=chunk)[:, 0]
    n = len(fitted)
    dims = synthetic.shape[1]
    log_kernel = -0.5 * (near_distance / bandwidth) ** 2 - dims / 2 * np.log(2 * np.pi * bandwidth**2)
    before = log_p_reference[near_index]
    after = np.logaddexp(np.log(n) + before, log_kernel) - np.log(n + 1)
    score_real, score_non = _split((after - before).sum(axis=1), len(ctx.real))
    details = {"reference": reference.described, "reference_positions": sets.reference,
               "bandwidths": {"reference": bandwidth}}
    settings = {"space": "E, numbers standardised", "k": k, "reference": reference.described}
    return AttackScores(score_real, score_non, 0.0, details, settings)


# ------------------------------------------------------------------------------------------ classifier


def compute_mia_classifier(ctx: MetricContext) -> MetricOutput:
    """Classifier membership inference: LightGBM tells synthetic from reference rows.

    LightGBM is trained on E to tell ``Z`` (label 1) from ``R`` (label 0); ``s(x)`` = its predicted
    probability of "synthetic". A generator that reproduces its training records teaches the model their
    neighbourhoods, so members score high. **Choice** (metrics.md names LightGBM, not its settings):
    LightGBM in random-forest mode (:data:`CLASSIFIER_SETTINGS`: 30 bagged trees of up to 1,023 leaves,
    one row per leaf allowed), because a copied record is only found by trees deep enough to isolate
    single synthetic rows, as the random forest of the published battery does; with LightGBM's default
    boosting (leaves of at least 20 rows) the attack reached AUC 0.63 on the exact-copy demo, with these
    settings 0.85. One model is trained on every row of ``Z ∪ R``: the scored records (members and
    non-members) are never rows of ``Z`` or ``R``, so none is scored by a model that saw it (metrics.md
    asks for cross-fitting only where ``R`` rows are scored). per_record (real) = ``s(y)`` for every real
    row.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"x": [float(v) for v in range(40)]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="mia_classifier",
    ...                holdout=real + 0.5, params={"mia_classifier": {"n_boot": 0}})
    >>> 0.0 <= res["mia_classifier"].risk <= 1.0
    True
    """
    require_holdout(ctx, 2)
    return output_from_scores(ctx, "mia_classifier")


def synthetic_probability(features: np.ndarray, labels: np.ndarray, queries: np.ndarray, seed: int) -> np.ndarray:
    """Predicted probability of label 1 at ``queries`` from one seeded LightGBM random forest.

    The forest (:data:`CLASSIFIER_SETTINGS`) is trained on ``features``/``labels``.
    """
    model = make_lgbm(seed).set_params(**CLASSIFIER_SETTINGS)
    model.fit(features, labels)
    return model.predict_proba(queries)[:, 1]


def classifier_scores(ctx: MetricContext, sets: MembershipSets, reference: Reference, params: Mapping
                      ) -> AttackScores:
    """The scores of :func:`compute_mia_classifier` for every real row and each non-member."""
    synthetic, fitted = ctx.encoded("E", "synthetic"), reference.encoded(ctx, "E")
    _require_columns(synthetic, "a classifier")
    if min(len(synthetic), len(fitted)) < 2:
        raise NotApplicable("needs at least 2 synthetic and 2 reference rows to train a classifier.")
    features = np.vstack([synthetic, fitted])
    labels = np.r_[np.ones(len(synthetic), dtype=int), np.zeros(len(fitted), dtype=int)]
    probability = synthetic_probability(features, labels, scored_records(ctx, "E", sets), ctx.seed)
    score_real, score_non = _split(probability, len(ctx.real))
    details = {"reference": reference.described, "reference_positions": sets.reference}
    settings = {"space": "E", "model": "LightGBM random forest", **CLASSIFIER_SETTINGS,
                "reference": reference.described}
    return AttackScores(score_real, score_non, 0.0, details, settings)


# -------------------------------------------------------------------------------------- density count


def compute_mia_density_count(ctx: MetricContext) -> MetricOutput:
    """Monte-Carlo membership inference (density by counting).

    ``s(x)`` = the number of synthetic rows within distance ``r`` of ``x`` in E (distances within
    1e-12·d_max of ``r`` count as within, metrics.md §0), with ``r`` the ``radius_quantile`` quantile
    (default 0.5, the median) of the distances from each reference row to its nearest synthetic row:
    a generator that reproduces its training records crowds synthetic rows around them. Counted exactly,
    in chunks (:func:`privcore.engine.neighbors.count_within`). per_record (real) = ``s(y)`` for every real row.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"x": [0.0, 2.0, 4.0, 6.0]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="mia_density_count",
    ...                holdout=pd.DataFrame({"x": [1.0, 3.0, 5.0, 7.0]}),
    ...                params={"mia_density_count": {"n_boot": 0}})
    >>> res["mia_density_count"].per_record.tolist()  # r = 1/6: only each row's own copy is within
    [1.0, 1.0, 1.0, 1.0]
    """
    require_holdout(ctx, 2)
    return output_from_scores(ctx, "mia_density_count")


def reference_to_synthetic(ctx: MetricContext, reference: Reference) -> np.ndarray:
    """Distance in E from each reference row to its nearest synthetic row.

    From the shared holdout pass when ``R`` is half of the holdout; one pass per evaluation for a user table.
    """
    if reference.table is None:
        return ctx.neighbours("E", "holdout", "synthetic").d1[reference.positions]
    return ctx.shared.cached(
        ("reference→synthetic in E", id(reference.table), ctx.is_baseline),
        lambda: nearest_two(reference.encoded(ctx, "E"), ctx.encoded("E", "synthetic"),
                            chunk_elements=ctx.shared.chunk_elements)[0].d1,
    )


def density_count_scores(ctx: MetricContext, sets: MembershipSets, reference: Reference, params: Mapping
                         ) -> AttackScores:
    """The scores of :func:`compute_mia_density_count` for every real row and each non-member."""
    quantile = float(params.get("radius_quantile", 0.5))
    radius = float(np.quantile(reference_to_synthetic(ctx, reference), quantile))
    tolerance = ctx.extremes("E", "real", "synthetic").tie_tolerance
    counts = count_within(scored_records(ctx, "E", sets), ctx.encoded("E", "synthetic"), radius + tolerance,
                          chunk_elements=ctx.shared.chunk_elements, label="records→synthetic (counting)")
    score_real, score_non = _split(counts[:, 0, 0].astype(float), len(ctx.real))
    details = {"reference": reference.described, "reference_positions": sets.reference, "tie_tolerance": tolerance}
    settings = {"space": "E", "radius": radius, "radius_quantile": quantile, "reference": reference.described}
    return AttackScores(score_real, score_non, 0.0, details, settings)


# ------------------------------------------------------------------------------------------------ DPI


def compute_mia_dpi(ctx: MetricContext) -> MetricOutput:
    """Data plagiarism index (DPI) membership inference.

    ``Z`` and ``R`` are brought to the same size by a seeded sample of the larger; among the ``k`` nearest
    rows of ``x`` in their union (E, ``k`` default 20, capped at the union's size), ``k_Z`` come from ``Z``
    and ``k_R`` from ``R``, and ``s(x) = (k_Z + 1)/(k_R + 1)``. **Choice** (metrics.md leaves ties open):
    rows tied with the ``k``-th nearest (within 1e-12·d_max) share the remaining places in proportion, so
    ``k_Z`` and ``k_R`` may be fractional and the score does not depend on which table is listed first.
    per_record (real) = ``s(y)`` for every real row.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"x": [0.0, 2.0, 4.0, 6.0]})
    >>> res = evaluate(real, real.copy(), Schema({"x": "numerical"}), metrics="mia_dpi",
    ...                holdout=pd.DataFrame({"x": [1.5, 3.5, 5.5, 7.5, 9.5, 11.5, 13.5, 15.5]}),
    ...                params={"mia_dpi": {"n_boot": 0, "k": 1}})
    >>> res["mia_dpi"].per_record.tolist()  # each member's nearest row is its own synthetic copy: (1 + 1)/(0 + 1)
    [2.0, 2.0, 2.0, 2.0]
    """
    require_holdout(ctx, 2)
    return output_from_scores(ctx, "mia_dpi")


def dpi_counts(queries: np.ndarray, synthetic: np.ndarray, reference: np.ndarray, k: int, tolerance: float, *,
               chunk_elements: int = 2**22) -> tuple[np.ndarray, np.ndarray]:
    """``(k_Z, k_R)`` per query row: synthetic and reference rows among its ``k`` nearest in the union.

    Rows tied with the ``k``-th nearest share the remaining places in proportion.

    Examples
    --------
    >>> kz, kr = dpi_counts(np.array([[0.0]]), np.array([[1.0], [3.0]]), np.array([[1.0], [2.0]]), 1, 0.0)
    >>> kz.tolist(), kr.tolist()  # one Z and one R row tie at distance 1 for the single place
    ([0.5], [0.5])
    """
    union = np.vstack([synthetic, reference])
    labels = np.r_[np.zeros(len(synthetic), dtype=np.int64), np.ones(len(reference), dtype=np.int64)]
    k = min(k, len(union))
    wanted = min(k + EXTRA_NEIGHBOURS, len(union))
    near = nearest_k(queries, union, wanted, chunk_elements=chunk_elements, label="records→synthetic ∪ reference")
    kth = near.distance[:, k - 1]
    # Closer than the k-th: at most just below kth − tolerance (count_within counts distances ≤ a radius).
    radii = np.c_[np.nextafter(kth - tolerance, -np.inf), kth + tolerance]
    # Where the last neighbour found lies beyond the wider radius (or all of the union was found), every row
    # within it is in the list, at the same exact distance count_within computes: counted from the list. The
    # other rows (many ties around their k-th) are counted by a pass of their own.
    listed = near.distance[:, -1] > radii[:, 1] if wanted < len(union) else np.ones(len(queries), dtype=bool)
    counts = np.empty((len(queries), 2, 2), dtype=np.int64)
    found_labels = labels[np.maximum(near.index[listed], 0)]
    for j in range(2):
        inside = near.distance[listed] <= radii[listed, j][:, None]
        counts[listed, j, 0] = np.count_nonzero(inside & (found_labels == 0), axis=1)
        counts[listed, j, 1] = np.count_nonzero(inside & (found_labels == 1), axis=1)
    if not listed.all():
        rest = np.flatnonzero(~listed)
        rest_counts = count_within(queries[rest], union, radii[rest], labels=labels, chunk_elements=chunk_elements,
                                   label="records→synthetic ∪ reference")
        counts[rest] = np.concatenate([rest_counts, np.zeros((len(rest), 2, 2 - rest_counts.shape[2]),
                                                             dtype=np.int64)], axis=2)
    closer, within = counts[:, 0, :].astype(float), counts[:, 1, :].astype(float)  # both labels' columns, always
    tied = within - closer
    places = k - closer.sum(axis=1)
    share = np.divide(places, tied.sum(axis=1), out=np.zeros(len(places)), where=tied.sum(axis=1) > 0)
    taken = closer + tied * share[:, None]
    return taken[:, 0], taken[:, 1]


def dpi_scores(ctx: MetricContext, sets: MembershipSets, reference: Reference, params: Mapping) -> AttackScores:
    """The scores of :func:`compute_mia_dpi` for every real row and each non-member."""
    synthetic, fitted = ctx.encoded("E", "synthetic"), reference.encoded(ctx, "E")
    size = min(len(synthetic), len(fitted))
    if size < 1:
        raise NotApplicable("needs at least one synthetic and one reference row.")
    rng = np.random.default_rng([ctx.seed, 13])
    if len(synthetic) > size:
        synthetic = synthetic[np.sort(rng.choice(len(synthetic), size=size, replace=False))]
    if len(fitted) > size:
        fitted = fitted[np.sort(rng.choice(len(fitted), size=size, replace=False))]
    k = min(int(params.get("k", DEFAULT_K)), 2 * size)
    tolerance = ctx.extremes("E", "real", "synthetic").tie_tolerance
    from_z, from_r = dpi_counts(scored_records(ctx, "E", sets), synthetic, fitted, k, tolerance,
                                chunk_elements=ctx.shared.chunk_elements)
    score_real, score_non = _split((from_z + 1.0) / (from_r + 1.0), len(ctx.real))
    details = {"reference": reference.described, "reference_positions": sets.reference, "tie_tolerance": tolerance}
    settings = {"space": "E", "k": k, "rows_per_table": size, "reference": reference.described}
    return AttackScores(score_real, score_non, 0.0, details, settings)




# -------------------------------------------------------------------------------------- registration

_BATTERY_REFERENCE = "the battery and the strongest attack: Ward et al. 2025 (Synth-MIA)"
_LIMITS = ("Like every data-only attack it gives a lower bound on what stronger (shadow-model) attacks can do; a "
           "leak of a few rare records barely moves an average over many members (look at the TPR at low FPR).")


def _k_param(what: str) -> Param:
    return Param("k", "int", DEFAULT_K, "Neighbours", f"How many nearest {what} the score looks at "
                 "(capped at the table's size).", minimum=1, maximum=1_000, step=1)


register(MetricInfo(
    id="mia_gen_lra",
    scorer=Scorer(gen_lra_scores, ("k",)),
    order=300,
    cost=(0.95, 1.3),
    name="Membership inference: generative likelihood ratio (Gen-LRA)",
    summary="Does adding a person to the population explain the synthetic rows around them better?",
    attacker_knows="The synthetic table, the suspect's record, and a reference sample of other real people from "
                   "the same population.",
    reference=f"Ward, Lin, Wang and Cheng, Gen-LRA (2025); {_BATTERY_REFERENCE}; {REFERENCE_MIA}.",
    explanation=Explanation(
        attack="A generator that learned a person's record places synthetic rows around it; the attacker checks "
               "whether those nearby synthetic rows become more likely once the person is added to a model of the "
               "population.",
        steps=attack_steps("Fit a smooth density on the reference people, find the 20 synthetic rows nearest to the "
                           "person, and score the person by how much adding them to the density raises the "
                           "likelihood of those rows."),
        high="The synthetic rows near training records are explained by those very records: the generator "
             "reproduces its training data locally.",
        low="Adding a training record explains the synthetic data around it no better than adding anyone else.",
        blind_spots="A density over the whole record is smooth by design: it credits a copy less than a plain "
                    "distance does, so on copies the distance attacks are usually stronger. " + _LIMITS,
        note=MIA_NOTE + "; Choice: the Gaussian kernels use one bandwidth for the reference with and without the "
                         "person, chosen by held-out likelihood on the reference, in the distance space with every "
                         "number in units of its standard deviation (categories one-hot), as the published battery "
                         "encodes tables.",
    ),
    compute=compute_mia_gen_lra,
    passes=(('E', 'real', 'synthetic'), ('E', 'holdout', 'synthetic')),
    details_type=MembershipScores,
    params=(*COMMON_PARAMS, REFERENCE, _k_param("synthetic rows")),
    **COMMON_INFO,
))

register(MetricInfo(
    id="mia_classifier",
    scorer=Scorer(classifier_scores),
    order=310,
    cost=(0.38, 1.0),
    name="Membership inference: classifier (synthetic vs reference)",
    summary="Does a model trained to spot synthetic rows take training records for synthetic ones?",
    attacker_knows="The synthetic table, the suspect's record, and a reference sample of other real people from "
                   "the same population.",
    reference=f"Classifier attack of Synth-MIA; {_BATTERY_REFERENCE}; {REFERENCE_MIA}.",
    explanation=Explanation(
        attack="The attacker trains a model to tell synthetic rows from real people; if the generator copies its "
               "training records, the model learns where they are and calls them synthetic.",
        steps=attack_steps("Train a forest of deep decision trees (LightGBM in random-forest mode) to tell synthetic "
                           "rows from reference people, and score each person by the probability of 'synthetic'."),
        high="Training records look like synthetic rows to the model far more than other people do.",
        low="The model cannot tell training records from other people.",
        blind_spots="Thirty trees vote, so a few copied records among many synthetic rows move the probability "
                    "little; it finds broad copying better than single leaked records. " + _LIMITS,
        note=MIA_NOTE + "; Choice: LightGBM as a random forest of 30 deep trees (leaves of one row allowed), so that "
                         "it can isolate a copied record as the published battery's random forest does; one model "
                         "on every synthetic and reference row (the scored people are never among them).",
    ),
    compute=compute_mia_classifier,
    details_type=MembershipScores,
    params=(*COMMON_PARAMS, REFERENCE),
    uses_classifier=True,
    **COMMON_INFO,
))

register(MetricInfo(
    id="mia_density_count",
    scorer=Scorer(density_count_scores, ("radius_quantile",)),
    order=320,
    cost=(0.18, 1.3),
    name="Membership inference: synthetic rows nearby (Monte-Carlo)",
    summary="Are there more synthetic rows near training records than near other people?",
    attacker_knows="The synthetic table, the suspect's record, and a reference sample of other real people from "
                   "the same population (to set the radius).",
    reference=f"Hilprecht, Härterich and Bernau, Monte Carlo and Reconstruction Membership Inference Attacks "
              f"against Generative Models (PoPETs 2019); {_BATTERY_REFERENCE}.",
    explanation=Explanation(
        attack="A generator that overfits crowds synthetic rows around its training records; the attacker counts "
               "the synthetic rows within a small distance of the person.",
        steps=attack_steps("Set the radius to the typical distance from a reference person to the closest synthetic "
                           "row and score each person by the number of synthetic rows within it."),
        high="Synthetic rows crowd around training records: the generator reproduces them.",
        low="Training records have no more synthetic rows nearby than other people.",
        blind_spots="A count is coarse: many people tie at 0 or 1, so it separates little unless the copying is "
                    "heavy. " + _LIMITS,
        note=MIA_NOTE + "; distances in E; the radius is the median distance from the reference rows to their "
                         "closest synthetic row unless another quantile is chosen.",
    ),
    compute=compute_mia_density_count,
    passes=(('E', 'real', 'synthetic'), ('E', 'holdout', 'synthetic')),
    details_type=MembershipScores,
    space="E",
    params=(*COMMON_PARAMS, REFERENCE,
            Param("radius_quantile", "float", 0.5, "Radius (quantile)",
                  "The radius is this quantile of the distances from reference people to their closest synthetic "
                  "row (0.5 = the median).", minimum=0.01, maximum=1.0, step=0.01)),
    **COMMON_INFO,
))

register(MetricInfo(
    id="mia_dpi",
    scorer=Scorer(dpi_scores, ("k",)),
    order=330,
    cost=(0.44, 1.3),
    name="Membership inference: data plagiarism index (DPI)",
    summary="Are a training record's nearest neighbours synthetic rather than real people?",
    attacker_knows="The synthetic table, the suspect's record, and a reference sample of other real people from "
                   "the same population.",
    reference=f"Ward, Wang and Cheng, Data Plagiarism Index (KDD GenAI Evaluation Workshop 2024); "
              f"{_BATTERY_REFERENCE}.",
    explanation=Explanation(
        attack="Mix the synthetic rows with as many reference people; around a record the generator copied, the "
               "nearest neighbours are mostly synthetic.",
        steps=attack_steps("Among the 20 nearest rows of the mixed table, score each person by (synthetic neighbours "
                           "+ 1) / (real neighbours + 1)."),
        high="Training records are surrounded by synthetic rows rather than by real people: the generator copies "
             "them.",
        low="Synthetic and real rows are mixed around training records as around anyone else.",
        blind_spots="Neighbours in E treat every column alike, so a unique value in one column (the DCR-Delusion "
                    "example) hardly moves them. " + _LIMITS,
        note=MIA_NOTE + "; Choice: rows tied with the 20th nearest share the remaining places in proportion, so the "
                         "score does not depend on table order.",
    ),
    compute=compute_mia_dpi,
    passes=(('E', 'real', 'synthetic'),),
    details_type=MembershipScores,
    space="E",
    params=(*COMMON_PARAMS, REFERENCE, _k_param("rows of the mixed synthetic and reference table")),
    **COMMON_INFO,
))
