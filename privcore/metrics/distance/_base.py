"""What the distance metrics in E share (metrics.md §2).

The nearest synthetic record of each real one and its normalised distance, the checks every distance metric makes, and
the words their explanations share. Ties (metrics.md §0): two distances closer than ``1e-12 · d_max`` (``d_max`` = the
largest real–synthetic distance in the space used) compare as equal; each comparison says which way a tie goes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privcore.base import NotApplicable
from privcore.engine import EuclideanSpace, MetricContext, PairExtremes
from privcore.metrics.details import NormalisedDistances

REVIEW = "Trudslev et al., A review of privacy metrics for synthetic tabular data (PrivEval)"
QIAN = "original: Qian et al. (2023), Synthcity"
LAUTRUP = "Lautrup et al. (2024), SynthEval"

#: The DCR-delusion blind spot shared by every distance metric (metrics.md §4).
DISTANCE_BLIND_SPOT = (
    "Distances average over all columns, so a leak in one column is drowned by the others: in the "
    "'DCR delusion' study, the only person in the Adult census from Holland-Netherlands was revealed "
    "because a generator trained on them produced that country in most of its outputs, yet those "
    "synthetic rows were far from the person's record and every distance metric called them safe."
)

#: The first step of every distance metric's explanation.
E_STEP = "Turn every record into numbers: numerical columns scaled 0–1 on the real data, each category a 0/1 flag."


def require_space(ctx: MetricContext, name: str = "E") -> EuclideanSpace:
    """The space ``name``, or NotApplicable when every column is constant (no distances to measure)."""
    space = ctx.space(name)
    if space.dim == 0:
        raise NotApplicable("every column is constant in the real table, so there are no distances to measure.")
    return space


def require_two_real(ctx: MetricContext) -> None:
    """NotApplicable with fewer than two real rows (a real row's nearest *other* real row is undefined)."""
    if len(ctx.real) < 2:
        raise NotApplicable(
            f"needs at least 2 real rows (the nearest other real record is undefined); the real table has "
            f"{len(ctx.real)}."
        )


@dataclass(frozen=True)
class Closest:
    """Each real record's nearest synthetic record in E and its normalised distance ``n(y)``."""

    distance: np.ndarray
    index: np.ndarray
    extremes: PairExtremes
    normalised: np.ndarray

    @property
    def span(self) -> float:
        return self.extremes.span

    @property
    def degenerate(self) -> bool:
        """All real–synthetic pairs are equally far apart (d_max = d_min): n(y) = 0 for every y."""
        return self.span <= self.extremes.tie_tolerance

    def at_most(self, threshold: float) -> np.ndarray:
        """``n(y) ≤ threshold``; a distance within the tie tolerance of the cut-off counts as at most."""
        if self.degenerate:
            return np.full(len(self.distance), 0.0 <= threshold)
        cut = threshold * self.span + self.extremes.tie_tolerance
        return self.distance - self.extremes.d_min <= cut

    def at_least(self, threshold: float) -> np.ndarray:
        """``n(y) ≥ threshold``; a distance within the tie tolerance of the cut-off counts as at least."""
        if self.degenerate:
            return np.full(len(self.distance), 0.0 >= threshold)
        cut = threshold * self.span - self.extremes.tie_tolerance
        return self.distance - self.extremes.d_min >= cut

    def details(self, threshold: float | None = None) -> NormalisedDistances:
        return NormalisedDistances(
            d_yz=self.distance,
            nearest_synthetic=self.index,
            n=self.normalised,
            d_min=self.extremes.d_min,
            d_max=self.extremes.d_max,
            threshold=threshold,
        )


def closest_synthetic(ctx: MetricContext) -> Closest:
    """d_YZ and n(y) = (d_YZ − d_min)/(d_max − d_min), 0 when d_max = d_min (metrics.md §2)."""
    require_space(ctx)
    nb = ctx.neighbours("E", "real", "synthetic")
    # d_max over all pairs is set by the farthest row of a table: on wide numerical tables one row moves every n(y)
    # of a fresh sample by ±0.15. Compared with a fresh sample, both sides are read on the fresh sample's scale (a
    # scale over both tables would let one far-off synthetic row shrink every n(y), copies' included), and the
    # table's own extremes, which may cost a pass of their own, are not asked for.
    extremes = (ctx.shared.extremes("E", "real", "holdout") if ctx.common_scale
                else ctx.extremes("E", "real", "synthetic"))
    return Closest(nb.d1, nb.i1, extremes, extremes.normalise(nb.d1))


def share(indicator: np.ndarray) -> float:
    """The share of True values (0 for an empty array)."""
    return float(np.mean(indicator)) if len(indicator) else 0.0

