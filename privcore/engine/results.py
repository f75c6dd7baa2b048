"""What a nearest-neighbour pass returns: each query row's nearest reference rows and the pair extremes.

Kept apart from the passes so that every pass module (the plain engine, the one-block sweeps, the k-d tree,
the distinct-row expansion) and every metric can name these results without importing a pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Neighbours:
    """Nearest and second-nearest reference rows of each query row.

    Attributes
    ----------
    distance : numpy.ndarray
        Shape (n, 2), exact Euclidean distances, ``distance[:, 0] <= distance[:, 1]``; ``inf`` where the
        reference has too few (other) rows.
    index : numpy.ndarray
        Shape (n, 2), reference row positions (lowest index among exact ties); −1 where missing.
    """

    distance: np.ndarray
    index: np.ndarray

    @property
    def d1(self) -> np.ndarray:
        """Distance to the nearest reference row."""
        return self.distance[:, 0]

    @property
    def d2(self) -> np.ndarray:
        """Distance to the second-nearest reference row."""
        return self.distance[:, 1]

    @property
    def i1(self) -> np.ndarray:
        """Position of the nearest reference row."""
        return self.index[:, 0]


@dataclass(frozen=True)
class PairExtremes:
    """Smallest and largest distance over all query × reference pairs (the review's eq. 12–13)."""

    d_min: float
    d_max: float

    @property
    def tie_tolerance(self) -> float:
        """Distances closer than this compare as equal (metrics.md §0: 1e-12 × d_max)."""
        return 1e-12 * self.d_max

    @property
    def span(self) -> float:
        """``d_max − d_min``."""
        return self.d_max - self.d_min

    def normalise(self, distance: np.ndarray) -> np.ndarray:
        """``n = (d − d_min)/(d_max − d_min)`` (metrics.md §2), 0 everywhere when d_max = d_min.

        The span counts as zero within the tie tolerance.

        Examples
        --------
        >>> PairExtremes(d_min=1.0, d_max=3.0).normalise(np.array([1.0, 2.0, 3.0])).tolist()
        [0.0, 0.5, 1.0]
        """
        distance = np.asarray(distance, dtype=np.float64)
        if self.span <= self.tie_tolerance:
            return np.zeros(len(distance))
        # d ≥ d_min and ≤ d_max by definition; the clip only removes rounding of d_max's refinement.
        return np.clip((distance - self.d_min) / self.span, 0.0, 1.0)
