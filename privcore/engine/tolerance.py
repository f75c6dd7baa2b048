"""The tie tolerance of metrics.md §0 (1e-12 × d_max) decided from bounds on d_max, exactly where it matters."""

from __future__ import annotations

from typing import Callable

import numpy as np

from privcore.engine.candidates import exact_distances
from privcore.engine.chunks import DEFAULT_CHUNK_ELEMENTS

#: metrics.md §0: distances closer than this × d_max compare as equal (as PairExtremes.tie_tolerance).
TIE_FACTOR = 1e-12
#: Relative slack on the bounds: d_max is computed with rounding (a square root of a sum of squares), and so
#: are the bounds; 1e-9 is far above either error and far below the gap that matters (the bounds differ by a
#: factor of about 2).
BOUND_SLACK = 1e-9


def d_max_bounds(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """A lower and an upper bound on the largest distance between a row of ``a`` and a row of ``b``.

    Upper: ``max |a_i − c| + max |b_j − c|`` for ``c`` the mean of ``a`` (triangle inequality). Lower: the
    farthest row of each table from the row of the other table farthest from ``c`` (distances of actual
    pairs). Both are widened by :data:`BOUND_SLACK`. A few passes over each table; no pair matrix.

    Parameters
    ----------
    a, b : numpy.ndarray
        (n, d) and (m, d) float64, both non-empty.

    Returns
    -------
    (float, float)

    Examples
    --------
    >>> low, high = d_max_bounds(np.array([[0.0], [1.0]]), np.array([[3.0]]))
    >>> low <= 3.0 <= high
    True
    """
    centre = a.mean(axis=0)
    from_a, from_b = _distances_to(a, centre), _distances_to(b, centre)
    far_a, far_b = a[int(np.argmax(from_a))], b[int(np.argmax(from_b))]
    low = max(_distances_to(b, far_a).max(), _distances_to(a, far_b).max())
    high = from_a.max() + from_b.max()
    return float(low) * (1 - BOUND_SLACK), float(high) * (1 + BOUND_SLACK)


def _distances_to(rows: np.ndarray, point: np.ndarray) -> np.ndarray:
    """``|row − point|`` of every row, by the engine's exact distance (in batches)."""
    return exact_distances(rows, point[None, :], np.arange(len(rows)), np.zeros(len(rows), dtype=np.int64),
                           DEFAULT_CHUNK_ELEMENTS)


class TieTolerance:
    """The tie tolerance of a pair of tables, exact or (until needed) bounded.

    Parameters
    ----------
    low, high : float
        Bounds on d_max (equal where d_max is known).
    exact_d_max : callable
        Computes the exact d_max; called at most once, only where the bounds decide a comparison differently.

    Notes
    -----
    A metric that reads d_max only for its tie tolerance (IdScore: the synthetic neighbour must be closer than the
    nearest other real row by more than the tolerance) needs the farthest pair only where a comparison falls between
    what the smallest and the largest possible tolerance decide. Finding the farthest pair costs its pass the key
    groups' shortcut (:mod:`privcore.engine.key_groups`, which settle about half the rows of a pass without it),
    while two distances that differ, yet by less than about 1e-12 × d_max, are rare. :class:`TieTolerance`
    therefore decides a comparison with a lower and an upper bound on d_max first, and asks for the exact d_max
    (one pass with extremes) only where the two decisions differ. The comparison must be monotone in the tolerance
    (``x < y − t``, ``x ≤ y + t``, ``x > t``): then every tolerance between the bounds, the exact one included,
    decides as the bounds do wherever they agree, so the result is the one the exact tolerance gives.

    Examples
    --------
    >>> calls = []
    >>> tolerance = TieTolerance(1.0, 2.0, lambda: calls.append(1) or 1.5)
    >>> tolerance.decide(lambda t: np.array([0.0, 1.0]) < np.array([0.5, 1.0]) - t).tolist(), calls
    ([True, False], [])
    >>> tolerance.decide(lambda t: np.array([0.0]) < np.array([1.6e-12]) - t).tolist(), calls
    ([True], [1])
    """

    def __init__(self, low: float, high: float, exact_d_max: Callable[[], float]):
        self.low, self.high = low, high
        self._exact_d_max = exact_d_max
        self._value: float | None = TIE_FACTOR * low if low == high else None

    @classmethod
    def known(cls, d_max: float) -> TieTolerance:
        """The tolerance of a known d_max."""
        return cls(d_max, d_max, lambda: d_max)

    @property
    def value(self) -> float:
        """The exact tolerance (computes d_max where it is not known yet)."""
        if self._value is None:
            self._value = TIE_FACTOR * self._exact_d_max()
        return self._value

    def decide(self, compare: Callable[[float], np.ndarray]) -> np.ndarray:
        """``compare(tolerance)`` as with the exact tolerance; ``compare`` must be monotone in it.

        Parameters
        ----------
        compare : callable
            Tolerance → boolean array.

        Returns
        -------
        numpy.ndarray
        """
        if self._value is not None:
            return compare(self._value)
        loose, strict = compare(TIE_FACTOR * self.low), compare(TIE_FACTOR * self.high)
        if np.array_equal(loose, strict):
            return loose
        return compare(self.value)
