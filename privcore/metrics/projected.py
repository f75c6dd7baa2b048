"""Distance metrics in the FAMD projection Φk (metrics.md §0, §2; review §2.2.7, §2.2.8, §2.2.12).

Records are compared in the first ``k`` FAMD components fitted on the real table (space ``"phi"``).
"""

from __future__ import annotations

import numpy as np

from privcore.base import NotApplicable
from privcore.engine import MetricContext
from privcore.metrics.details import PairedRecords, ProjectionDistances
from privcore.metrics.registry import Explanation, MetricInfo, register
from privcore.metrics.results import MetricOutput

REVIEW = "Trudslev et al., A review of privacy metrics for synthetic tabular data (PrivEval)"
GUILLAUDEUX = "original: Guillaudeux et al. (2023), avatar method"

#: Name of the FAMD space in the shared caches.
PHI = "phi"

K_CLAUSE = (
    "k = min(5, r) FAMD components (r = numerical columns + categories − categorical columns, at most "
    "|real| − 1), where the review leaves k open and PrivEval uses 2"
)

DELUSION = (
    "Like every distance score it misses a synthetic row that copies one person's unique value (a rare "
    "diagnosis, an extreme income) while being ordinary elsewhere: that row is not close to the person "
    "overall, so the leak goes unseen (the 'DCR delusion'). "
)

PROJECTION_BLIND_SPOT = (
    "Records are compared on k FAMD summary coordinates only: two records that differ only in what those "
    "components leave out land on the same point, and distances have no unit that carries over to another "
    "dataset."
)


def _phi_space(ctx: MetricContext):
    """The fitted Φk space, or NotApplicable when no column varies in the real table.

    Notes
    -----
    NNDR, DCR and HidR compare records after mapping them to the first ``k`` FAMD components fitted on the
    real table (space ``"phi"``, :class:`privcore.engine.encoding.FAMDProjection`). Every nearest-neighbour query
    goes through the shared engine (``ctx.neighbours``): DCR and HidR share the real→synthetic pass, NNDR
    reads synthetic→real, and the §5 baseline reuses everything that does not involve the synthetic table.
    """
    space = ctx.space(PHI)
    if space.components.shape[0] == 0 or len(space.dropped_constant) == len(ctx.schema.columns):
        raise NotApplicable(
            "every analysed column is constant in the real table, so there is no FAMD space to measure "
            "distances in."
        )
    return space


def _phi_warnings(space) -> list[str]:
    """Say when the first ``k`` FAMD axes are not unique (:attr:`FAMDProjection.tied_axes`)."""
    if not getattr(space, "tied_axes", False):
        return []
    return [f"The {space.n_components}th FAMD axis ties with the next (equal eigenvalues, as a code whose values are "
            "unrelated to the other columns gives): any choice among the tied axes is an equally exact projection, "
            "and distances in it depend on that choice. Read the distance metrics in E (CVP, Auth, NNAA) beside "
            "this one."]


def _phi_params(space) -> dict:
    return {"k": int(space.n_components)}


def _phi_details(space) -> dict:
    """The projection's size, as keyword arguments of :class:`ProjectionDistances` / :class:`PairedRecords`."""
    return {
        "k": int(space.n_components),
        "rank": int(space.rank),
        "explained_inertia": float(space.explained_inertia),
        "dropped_constant": list(space.dropped_constant),
    }


def compute_nndr(ctx: MetricContext) -> MetricOutput:
    """Nearest Neighbour Distance Ratio in Φk.

    For each synthetic row ``z``: ``d1``, ``d2`` = distances to its nearest and second-nearest real rows
    in Φk; ``r(z) = d1/d2``, and ``r(z) = 0`` when ``d1 = 0`` (tested with the §0 tolerance
    ``1e-12·d_max``, which also covers ``d1 = d2 = 0``). ``risk = mean_z (1 − r(z))`` (Erratum: eq. 23
    adds ``r``), ``raw = mean_z r(z)``; per_record (synthetic) = ``1 − r(z)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"a": [0.0, 1.0, 3.0, 7.0]})
    >>> synthetic = pd.DataFrame({"a": [0.0, 2.0]})
    >>> # z=0: d1 = 0 -> r = 0; z=2: d1 = d2 = 1 (scaled alike) -> r = 1; risk = ((1-0) + (1-1)) / 2
    >>> round(evaluate(real, synthetic, Schema({"a": "numerical"}), metrics="nndr")["nndr"].risk, 6)
    0.5
    """
    space = _phi_space(ctx)
    neighbours = ctx.neighbours(PHI, "synthetic", "real")
    tolerance = ctx.extremes(PHI, "real", "synthetic").tie_tolerance
    d1, d2 = neighbours.d1, neighbours.d2
    ratio = np.zeros(len(d1))
    # d1 > tolerance implies d2 >= d1 > 0, so the division is safe; d1 = 0 comes first (d1 = d2 = 0 -> 0).
    far = d1 > tolerance
    ratio[far] = d1[far] / d2[far]
    per_record = 1.0 - ratio
    return MetricOutput(
        risk=float(per_record.mean()),
        raw=float(ratio.mean()),
        per_record=per_record,
        details=ProjectionDistances(
            **_phi_details(space),
            ratio=ratio,
            d1=d1.copy(),
            d2=d2.copy(),
            nearest_real=neighbours.index.copy(),
            tie_tolerance=float(tolerance),
            zero_distance_rows=int((~far).sum()),
        ),
        params=_phi_params(space),
        warnings=_phi_warnings(space),
    )


def compute_dcr(ctx: MetricContext) -> MetricOutput:
    """Distance to Closest Record in Φk.

    ``raw = mean_y d(y)`` with ``d(y)`` the Φk distance from real ``y`` to its nearest synthetic row;
    ``risk = 1 − σ(ln raw) = 1/(1 + raw)`` (eq. 25; 1 when raw = 0); per_record (real) ``= 1/(1 + d(y))``.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> real = pd.DataFrame({"a": [0.0, 1.0, 2.0], "b": ["x", "y", "x"]})
    >>> evaluate(real, real.iloc[::-1], metrics="dcr")["dcr"].risk  # every real record copied
    1.0
    """
    space = _phi_space(ctx)
    neighbours = ctx.neighbours(PHI, "real", "synthetic")
    distance = neighbours.d1
    raw = float(distance.mean())
    return MetricOutput(
        risk=1.0 / (1.0 + raw),
        raw=raw,
        per_record=1.0 / (1.0 + distance),
        details=ProjectionDistances(
            **_phi_details(space),
            distance=distance.copy(),
            nearest_synthetic=neighbours.i1.copy(),
        ),
        params=_phi_params(space),
        warnings=_phi_warnings(space),
    )


def _twin_distances(ctx: MetricContext, pair_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Φk distance of each paired synthetic row to its own real twin (no distance matrix).

    Returns the positions of the paired synthetic rows and their twin distances. The formula is the
    neighbour engine's exact one, so a twin that is also the engine's nearest gets the same number.
    """
    paired = np.flatnonzero(pair_index >= 0)
    real = ctx.encoded(PHI, "real")
    synthetic = ctx.encoded(PHI, "synthetic")
    diff = real[pair_index[paired]] - synthetic[paired]
    return paired, np.sqrt(np.einsum("ij,ij->i", diff, diff))


def compute_hidr(ctx: MetricContext) -> MetricOutput:
    """Hidden Rate in Φk (Euclidean, i.e. Minkowski p = 2).

    A real ``y`` with a synthetic twin ``g(y)`` is a hit when ``d(y, g(y)) ≤ d_YZ(y) + 1e-12·d_max``:
    its twin is (one of) its nearest synthetic rows, ties counting as a hit. ``risk = raw = hits / |Z|``
    (eq. 29). A real row with several twins (id pairing with repeated ids) is one hit when any twin is
    nearest. per_record (real) = hit indicator (0 for rows without a twin). This is the only metric
    that depends on the real table's row order, through the pairing.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> from privcore.data.schema import Schema
    >>> real = pd.DataFrame({"a": [0.0, 1.0, 5.0]})
    >>> schema = Schema({"a": "numerical"}, pairing="row")
    >>> # 0's twin 0.1 is its nearest (hit); 1's twin 4.0 is farther than 0.1 (miss); 5's twin 4.9 (hit)
    >>> round(evaluate(real, pd.DataFrame({"a": [0.1, 4.0, 4.9]}), schema, metrics="hidr")["hidr"].risk, 6)
    0.666667
    """
    if ctx.pair_index is None:
        raise NotApplicable("needs a pairing between synthetic and real rows (same row order or an id column).")
    space = _phi_space(ctx)
    pair_index = np.asarray(ctx.pair_index, dtype=np.int64)
    nearest = ctx.neighbours(PHI, "real", "synthetic").d1
    tolerance = ctx.extremes(PHI, "real", "synthetic").tie_tolerance
    paired, twin_distance = _twin_distances(ctx, pair_index)
    twins_of = pair_index[paired]
    n_real, n_synthetic = len(nearest), len(pair_index)

    closest_twin = np.full(n_real, np.inf)
    np.minimum.at(closest_twin, twins_of, twin_distance)
    has_twin = np.isfinite(closest_twin)
    hit = has_twin & (closest_twin <= nearest + tolerance)
    hits = int(hit.sum())

    warnings = _phi_warnings(space)
    unpaired = n_synthetic - len(paired)
    if unpaired:
        warnings.append(
            f"{unpaired} synthetic row(s) have no real twin (id not found or the twin was dropped); they "
            "still count in |Z|, so they lower the rate."
        )
    shared_twins = len(twins_of) - int(has_twin.sum())
    if shared_twins:
        warnings.append(
            f"{shared_twins} synthetic row(s) share a real twin with another synthetic row; each real record "
            "counts at most once."
        )
    return MetricOutput(
        risk=hits / n_synthetic,
        raw=hits / n_synthetic,
        per_record=hit.astype(np.float64),
        details=PairedRecords(
            **_phi_details(space),
            pairs=int(len(paired)),
            twin_distance=np.where(has_twin, closest_twin, np.nan),
            nearest_synthetic_distance=nearest.copy(),
            has_twin=has_twin,
            hits=hits,
            paired_real_rows=int(has_twin.sum()),
            synthetic_rows=int(n_synthetic),
            tie_tolerance=float(tolerance),
        ),
        params=_phi_params(space),
        warnings=warnings,
    )


register(
    MetricInfo(
        id="nndr",
        order=110,
        cost=(0.4, 1.0),
        assumption="projection",
        one_thread_blas=True,
        size_matched=False,  # a mean over the synthetic rows of distances to the real table: not its size
        name="Nearest Neighbour Distance Ratio (NNDR)",
        family="Distance-based",
        summary="How much closer each synthetic row is to its nearest real record than to the second-nearest.",
        attacker_knows="The synthetic table and the records of real people (to map both into the same space).",
        needs=frozenset(),
        per_record_unit="synthetic",
        raw_meaning="Mean ratio nearest / second-nearest distance over synthetic rows: 0 = every synthetic row "
        "sits on a real record (risky), 1 = always equidistant from two real records (safe).",
        reference=f"{REVIEW}, §2.2.7; {GUILLAUDEUX}.",
        explanation=Explanation(
            attack="An attacker maps real and synthetic records into a compact summary space and, for each "
            "synthetic row, checks whether one real person stands out as much closer than anybody else: a "
            "synthetic row that sits on one person and not on the next points to that person.",
            steps=(
                "Summarise every record by its first k FAMD coordinates, fitted on the real table.",
                "For each synthetic row, find its nearest and second-nearest real record and divide the two "
                "distances (the ratio is 0 when the nearest is at distance 0).",
                "The risk is the average of 1 − ratio over all synthetic rows.",
            ),
            high="Synthetic rows sit much closer to one particular real person than to anyone else, so each "
            "points to an individual (1 = every synthetic row lies exactly on a real record).",
            low="Each synthetic row is about as close to its second-nearest real person as to its nearest, so "
            "none singles a person out.",
            blind_spots=DELUSION + PROJECTION_BLIND_SPOT + " Two real people with identical records share "
            "the risk: a copy of one of them has ratio 0 either way.",
            note="Erratum: the review's eq. 23 averages the ratio itself although a small ratio is the risky "
            "case, so the risk averages 1 − ratio (a synthetic row at distance 0 scores 1); Choice: "
            + K_CLAUSE + ".",
        ),
        compute=compute_nndr,
        passes=(('phi', 'synthetic', 'real'),),
        details_type=ProjectionDistances,
        space="phi", figures=("distances", "famd_map"),
    )
)

register(
    MetricInfo(
        id="dcr",
        order=120,
        cost=(0.14, 1.0),
        assumption="projection",
        one_thread_blas=True,
        size_matched=True,  # a larger table searched scores closer by itself
        name="Distance to Closest Record (DCR)",
        family="Distance-based",
        summary="Average distance from each real record to the closest synthetic row, in the FAMD space.",
        attacker_knows="The synthetic table and the records of real people (to map both into the same space).",
        needs=frozenset(),
        per_record_unit="real",
        raw_meaning="Mean distance to the closest synthetic row in FAMD units: 0 = every real record is "
        "copied, larger = farther = safer (no upper bound).",
        reference=f"{REVIEW}, §2.2.8; {GUILLAUDEUX}.",
        explanation=Explanation(
            attack="An attacker looks, for each real person, for the synthetic row closest to them: synthetic "
            "rows lying on or right next to real people suggest the generator reproduced those people.",
            steps=(
                "Summarise every record by its first k FAMD coordinates, fitted on the real table.",
                "For each real record, measure the distance to its closest synthetic row.",
                "Average these distances (raw DCR) and turn the average into a risk as 1 / (1 + DCR).",
            ),
            high="Real people have synthetic rows very close to them on average (1 = every real record has an "
            "exact copy in the projection).",
            low="Synthetic rows stay far from every real person on average.",
            blind_spots=DELUSION + "An average can hide a few exact copies among many distant rows; see the "
            "per-record view. " + PROJECTION_BLIND_SPOT,
            note="Choice: " + K_CLAUSE + "; the risk is the review's eq. 25, 1 − σ(ln DCR) = 1 / (1 + DCR).",
        ),
        compute=compute_dcr,
        passes=(('phi', 'real', 'synthetic'),),
        # DCR reads no extremes at all (a fortiori only for the tie tolerance): alone, or beside metrics that
        # read none either, its pass leaves the farthest pair out (two convex hulls in Φk and their pairs). NNDR and HidR read the exact d_max for their details, so beside them nothing changes.
        tolerance_only=(('phi', 'real', 'synthetic'),),
        details_type=ProjectionDistances,
        space="phi", figures=("distances", "famd_map"),
    )
)

register(
    MetricInfo(
        id="hidr",
        order=160,
        cost=(0.01, 1.0),
        assumption="projection",
        one_thread_blas=True,
        size_matched=True,  # a larger table searched scores closer by itself
        name="Hidden Rate (HidR)",
        family="Distance-based",
        summary="Share of real records whose own synthetic twin is the synthetic row closest to them.",
        attacker_knows="Which real record each synthetic row was generated from (the pairing), as a generator's "
        "own log would tell.",
        needs=frozenset({"pairing"}),
        per_record_unit="real",
        raw_meaning="Same as risk: hits divided by the number of synthetic rows; 1 = every twin is traceable.",
        reference=f"{REVIEW}, §2.2.12; {GUILLAUDEUX}.",
        explanation=Explanation(
            attack="Each synthetic row was generated from one real person. An attacker checks whether the "
            "synthetic row closest to a person is that person's own twin: if so, the twin can be traced back "
            "to the person it was made from.",
            steps=(
                "Summarise every record by its first k FAMD coordinates, fitted on the real table.",
                "For each real record with a twin, compare the distance to its twin with the distance to its "
                "closest synthetic row; equal (a tie) counts as a hit.",
                "The risk is the number of hits divided by the number of synthetic rows.",
            ),
            high="Most people's own twin is the synthetic row closest to them, so twins can be traced back to "
            "the people they were generated from.",
            low="Twins are hidden among other synthetic rows: the row closest to a person is usually "
            "generated from someone else.",
            blind_spots="Needs the pairing and depends on it (and so on the real table's row order). A twin "
            "that is far from its person still counts as a hit when no other synthetic row is closer, and a "
            "real record with several twins counts once. " + DELUSION + PROJECTION_BLIND_SPOT,
            note="Choice: the review's Minkowski distance is taken with p = 2 (Euclidean), ties with the "
            "nearest synthetic row count as hits, and we use " + K_CLAUSE + ".",
        ),
        compute=compute_hidr,
        passes=(('phi', 'real', 'synthetic'),),
        details_type=PairedRecords,
        space="phi", figures=("distances", "famd_map"),
    )
)
