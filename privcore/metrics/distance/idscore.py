"""IdScore (metrics.md §2; review §2.2): Authenticity in a space where rare or unusual columns weigh more.

IdScore registers its own weighted space ``"E_idscore"`` so that its two passes are cached like E's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcore.data import NUMERICAL
from privcore.engine import EuclideanSpace, MetricContext
from privcore.metrics.details import NearestDistances
from privcore.metrics.distance._base import (
    DISTANCE_BLIND_SPOT,
    E_STEP,
    QIAN,
    REVIEW,
    require_space,
    require_two_real,
    share,
)
from privcore.metrics.registry import Explanation, MetricInfo
from privcore.metrics.results import MetricOutput

#: Attributes with at most this many distinct values in Y enter IdScore's entropy with their own values.
IDSCORE_MAX_DISTINCT = 10
#: Equal-width bins for the other numerical attributes (metrics.md §2, IdScore).
IDSCORE_BINS = 10


def attribute_entropy(values: pd.Series, kind: str) -> float:
    """Entropy ``H(a) = −Σ_v p_v ln p_v`` of one attribute over the real table (IdScore).

    A numerical attribute with more than 10 distinct values is cut into 10 equal-width bins over its
    range in Y (``numpy.histogram`` convention: each bin closed on the left, the last one also on the
    right). Every other attribute uses its own values.

    Examples
    --------
    >>> round(attribute_entropy(pd.Series(["a", "a", "b", "b"]), "categorical"), 6)  # ln 2
    0.693147
    >>> attribute_entropy(pd.Series([float(v) for v in range(11)]), "numerical") > 2.0
    True
    """
    if kind == NUMERICAL and values.nunique() > IDSCORE_MAX_DISTINCT:
        numbers = values.to_numpy(dtype=np.float64)
        counts, _ = np.histogram(numbers, bins=IDSCORE_BINS, range=(numbers.min(), numbers.max()))
    else:
        counts = values.value_counts(dropna=False).to_numpy()
    p = counts[counts > 0] / counts.sum()
    # The logarithm's base scales every weight by the same factor, which changes no comparison.
    return float(-(p * np.log(p)).sum())


class WeightedSpace:
    """IdScore's space: E with every coordinate of attribute ``a`` multiplied by ``w(a) = 1/(H(a) + 1e-8)``.

    Parameters
    ----------
    base : EuclideanSpace
        The evaluation's space E (its ``.blocks`` say which coordinates belong to which attribute).
    real : DataFrame
        Prepared real table (the entropies are computed on it).
    types : mapping
        Column name → type.
    """

    def __init__(self, base: EuclideanSpace, real: pd.DataFrame, types: dict[str, str]):
        self.base = base
        self.blocks = base.blocks
        self.dim = base.dim
        self.entropy = {b.column: attribute_entropy(real[b.column], types[b.column]) for b in base.blocks}
        # Erratum (metrics.md §2): eq. 19 divides by the weight; the text and Yoon et al. multiply.
        self.weight = {col: 1.0 / (h + 1e-8) for col, h in self.entropy.items()}
        self.coordinate_weight = np.ones(base.dim)
        for block in base.blocks:
            self.coordinate_weight[block.start : block.stop] = self.weight[block.column]

    def transform(self, df: pd.DataFrame) -> np.ndarray:
        """Weighted E coordinates of a prepared table."""
        return np.ascontiguousarray(self.base.transform(df) * self.coordinate_weight)


def compute_idscore(ctx: MetricContext) -> MetricOutput:
    """Identifiability Score.

    In E weighted per attribute by ``w(a) = 1/(H(a) + 1e-8)`` (each coordinate of ``a`` multiplied by
    ``w(a)``; Erratum: eq. 19 divides), ``risk = |{y : d̂_YZ(y) < d̂_YY(y)}| / |Y|`` (review eq. 20), with
    ``d̂_YY`` the distance to the nearest other weighted real row. A tie is not strictly closer, so it does
    not count. per_record (real) = the indicator.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> real = pd.DataFrame({"x": [0.0, 0.0, 0.0, 10.0], "c": list("ABCD")})
    >>> synthetic = pd.DataFrame({"x": [10.0, 0.0], "c": list("AD")})
    >>> evaluate(real, synthetic, metrics="idscore")["idscore"].risk
    0.25
    """
    require_two_real(ctx)
    base = require_space(ctx)
    types = dict(ctx.schema.types)
    space = ctx.space("E_idscore", lambda data: WeightedSpace(base, data.real, types))
    to_synthetic = ctx.neighbours("E_idscore", "real", "synthetic")
    to_real = ctx.neighbours("E_idscore", "real", "real")
    # Strict, as eq. 20: the synthetic neighbour must be closer by more than the tie tolerance (read only here,
    # so the pass may leave the farthest pair out: privcore.engine.tolerance).
    identified = ctx.tie_tolerance("E_idscore", "real", "synthetic").decide(
        lambda tolerance: to_synthetic.d1 < to_real.d1 - tolerance)
    risk = share(identified)
    return MetricOutput(
        risk=risk,
        raw=risk,
        per_record=identified.astype(float),
        details=NearestDistances(
            d_yz=to_synthetic.d1,
            d_yy=to_real.d1,
            nearest_synthetic=to_synthetic.i1,
            nearest_real=to_real.i1,
            entropy=dict(space.entropy),
            weight=dict(space.weight),
        ),
    )


IDSCORE = MetricInfo(
    id="idscore",
    order=90,
    cost=(0.36, 1.3),
    reference_level=0.5,  # the same, in the weighted space
    assumption="distance",
    one_thread_blas=True,
    size_matched=True,  # a larger table searched scores closer by itself
    name="Identifiability Score (IdScore)",
    family="Distance-based",
    summary="Like Authenticity, but columns whose values are rare or unusual weigh more in the distance.",
    attacker_knows="A real person's full record, the synthetic table and the rest of the real table.",
    needs=frozenset(),
    per_record_unit="real",
    raw_meaning="Same as risk: share of real records whose weighted nearest synthetic record is strictly "
    "closer than their weighted nearest other real record.",
    reference=f"{REVIEW}, §2.2.5; {QIAN}; Yoon et al. (2020), ADS-GAN.",
    explanation=Explanation(
        attack="As in Authenticity, a synthetic record closer to a real person than any other real person "
        "points at that person; here a column with little variety (low entropy) counts more, because "
        "matching it is more telling.",
        steps=(
            E_STEP,
            "Weigh each column by one over its entropy in the real data, so columns with few, lopsided values "
            "weigh more.",
            "For each real record, find its closest synthetic and closest other real record in this weighted "
            "space.",
            "Count the real records whose closest synthetic record is strictly closer.",
        ),
        high="Most real people are closer to a synthetic record than to any other real person, even when "
        "telling columns weigh more.",
        low="Real people are closer to each other than to any synthetic record.",
        blind_spots=f"{DISTANCE_BLIND_SPOT} Weighting by entropy favours columns with few values; a rare value "
        "in a varied column still weighs little.",
        note="Erratum: the review's eq. 19 divides each value by its weight, which contradicts its own text and "
        "the original (Yoon et al.), so we multiply; numerical columns with more than 10 distinct values are "
        "cut into 10 equal-width bins to compute their entropy.",
    ),
    compute=compute_idscore,
    passes=(('E_idscore', 'real', 'synthetic'), ('E_idscore', 'real', 'real')),
    tolerance_only=(('E_idscore', 'real', 'synthetic'),),
    details_type=NearestDistances,
    space="E_idscore", figures=("distances",),
    min_rows=1,
)
