"""Result types shared by every metric and by the report.

A metric's ``compute`` returns a :class:`MetricOutput` or raises :class:`NotApplicable`;
:func:`privcore.evaluate` wraps it into a :class:`MetricResult`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from privcore.base import finite_or_none, jsonable
from privcore.metrics.details import Details


@dataclass
class MetricOutput:
    """What a metric's compute function returns.

    Attributes
    ----------
    risk : float or None
        Risk in [0, 1]; 1 = no privacy, 0 = complete privacy. None for a utility measure (family "Utility",
        metrics.md §6), whose score is ``details.utility`` (higher is better).
    raw : float or None
        The value in the original author's definition and direction.
    per_record : numpy.ndarray or None
        Risk contribution of each real (or synthetic, see the metric's ``per_record_unit``) record.
    details : Details
        The evidence behind the score, of the kind the metric declares (:mod:`privcore.metrics.details`).
    params : dict
        Every parameter and seed used.
    interval : tuple of float, optional
        95 % interval of ``risk`` where one exists.
    warnings : list of str
        Plain-language warnings for this metric.
    """

    risk: float | None
    raw: float | None = None
    per_record: np.ndarray | None = None
    details: Details | None = None
    params: dict[str, Any] = field(default_factory=dict)
    interval: tuple[float, float] | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class SizeMatch:
    """A metric's synthetic score and its fresh-sample baseline compared at one table size.

    A distance to the closest record shrinks as the table searched grows, so a synthetic table ten times the
    holdout's size looks closer to real people than the holdout whatever it contains. For metrics whose value
    depends on the size of the table searched (``MetricInfo.size_matched``), the larger of the two tables is cut
    to the smaller one's size in ``repeats`` seeded random subsets, and the excess is taken between like-sized
    tables. The interval says how far a fresh sample of real people of that size would stray from the
    holdout's score by chance (:mod:`privcore.evaluation.size_match`).

    Attributes
    ----------
    rows : dict
        Rows of the real, synthetic and holdout tables.
    matched_rows : int
        The size both sides are compared at: the smaller of the synthetic table and the holdout.
    subsampled : str or None
        ``"synthetic"`` or ``"holdout"``: the table cut to ``matched_rows``; None when both have that size.
    repeats : int
        Random subsets drawn (of the larger table; for the spread too when the sizes are close).
    risk : float
        The synthetic score at ``matched_rows`` (mean over the subsets, or the whole table's).
    baseline : float
        The holdout's score at ``matched_rows``.
    excess : float or None
        ``risk - baseline``; None when the holdout is too small to compare (``too_small``).
    interval : tuple of float or None
        95 % interval of ``excess`` for a fresh sample of real people: an excess outside it is beyond chance.
    values : tuple of float
        The score of each subset drawn for ``risk`` or ``baseline``.
    too_small : str or None
        Why no excess is reported (the holdout is too small for this metric), else None.
    method : str
        Where the fresh sample comes from: ``"subsets"`` (the holdout, sizes matched by random subsets),
        ``"permutation"`` (a test of members against non-members: the two groups it compares relabelled at random,
        ``repeats`` times; ``baseline`` is the relabellings' mean) or ``"split"`` (no holdout: half of the real
        table plays the training table and the other half the fresh sample; ``rows`` are those of the split).
    one_scale : bool
        Whether both sides were read on one scale: for the metrics that divide distances by the extremes of all
        pairs (CVP, DVP, NSND), the holdout's ``d_min`` and ``d_max`` (over its pairs with the real table) for the
        synthetic table too, instead of each table's own (``risk`` and ``baseline`` are then on that scale).
    reading : str or None
        How ``risk`` and ``baseline`` were read where not as the metric's own score (MDCR: its median of distances
        read as the mean of the middle 10 % of them, ``MetricInfo.compared_by``), else None.
    """

    rows: dict[str, int | None]
    matched_rows: int
    subsampled: str | None
    repeats: int
    risk: float
    baseline: float
    excess: float | None
    interval: tuple[float, float] | None
    values: tuple[float, ...] = ()
    too_small: str | None = None
    method: str = "subsets"
    one_scale: bool = False
    reading: str | None = None

    @property
    def beyond_chance(self) -> bool:
        """Whether the excess lies above its fresh-sample interval (closer than chance explains)."""
        return self.excess is not None and self.interval is not None and self.interval[0] > 0

    def describe(self) -> str:
        """The comparison in one plain sentence (the score cards and the HTML report show it)."""
        if self.too_small:
            return self.too_small
        synthetic, holdout = self.rows.get("synthetic"), self.rows.get("holdout")
        if self.method == "permutation":
            how = (f"the test scores {self.risk:.3f}; with the two groups it compares relabelled at random "
                   f"({self.repeats} times), as if the synthetic rows were other real people, it scores "
                   f"{self.baseline:.3f} on average")
            if self.interval is None:
                return f"{how[0].upper()}{how[1:]}."
            return (f"{how[0].upper()}{how[1:]}; by chance alone it would differ from that by "
                    f"{self.interval[0] - self.excess:+.3f} to {self.interval[1] - self.excess:+.3f}.")
        if self.method == "split":
            prefix = (f"No holdout: half of the real table ({self.rows.get('real'):,} rows) plays the training "
                      f"records and the other half ({holdout:,} rows) a fresh sample of real people; ")
            rest = SizeMatch(self.rows, self.matched_rows, self.subsampled, self.repeats, self.risk, self.baseline,
                             self.excess, self.interval, self.values, self.too_small,
                             one_scale=self.one_scale, reading=self.reading).describe()
            return prefix + rest[0].lower() + rest[1:]
        if self.subsampled == "synthetic":
            how = (f"compared at the holdout's size: {self.repeats} random subsets of {self.matched_rows:,} of the "
                   f"{synthetic:,} synthetic rows score {self.risk:.3f} on average, the {holdout:,}-row holdout "
                   f"{self.baseline:.3f}")
        elif self.subsampled == "holdout":
            how = (f"compared at the synthetic table's size: the {synthetic:,} synthetic rows score {self.risk:.3f}, "
                   f"{self.repeats} random subsets of {self.matched_rows:,} of the {holdout:,} holdout rows "
                   f"{self.baseline:.3f} on average")
        else:
            how = (f"both tables have {self.matched_rows:,} rows: the synthetic table scores {self.risk:.3f}, the "
                   f"holdout {self.baseline:.3f}")
        if self.one_scale:
            how += (", both with distances rescaled by the holdout's d_min and d_max (over its pairs with the real "
                    "table), so that one far-off synthetic row does not rescale one score and not the other")
        if self.reading:
            how += f", {self.reading}"
        if self.interval is None:
            return f"{how[0].upper()}{how[1:]}."
        return (f"{how[0].upper()}{how[1:]}; a fresh sample of real people of that size would differ by "
                f"{self.interval[0] - self.excess:+.3f} to {self.interval[1] - self.excess:+.3f} by chance.")

    def to_dict(self) -> dict[str, Any]:
        """The JSON of the comparison (``size_match`` of a metric in the JSON report)."""
        return {
            "rows": dict(self.rows),
            "matched_rows": int(self.matched_rows),
            "subsampled": self.subsampled,
            "repeats": int(self.repeats),
            "risk": finite_or_none(self.risk),
            "baseline": finite_or_none(self.baseline),
            "excess": finite_or_none(self.excess),
            "interval": None if self.interval is None else [finite_or_none(v) for v in self.interval],
            "too_small": self.too_small,
            "method": self.method,
            "one_scale": bool(self.one_scale),
            "reading": self.reading,
            "text": self.describe(),
        }


@dataclass
class UtilityScore:
    """A utility measure's score next to what a fresh sample of real people keeps (metrics.md §6).

    Utility measures are "higher is better" and carry no privacy risk: their :class:`MetricResult` has
    ``risk = None`` and this instead. The fresh-sample reference is the same measure with the holdout in place of
    the synthetic table (column shapes, pair trends, discriminator), compared at one size: where the holdout and
    the synthetic table differ in size, the larger is cut to the smaller one's size in ``repeats`` seeded random
    subsets and ``relative`` is taken between like-sized tables. For the model utility (train on synthetic, test on
    the holdout) the reference is the same model trained on the real table, which the score already divides by.

    Attributes
    ----------
    score : float
        The synthetic table's utility in [0, 1] (``details.utility``), on the whole table.
    reference : float or None
        The fresh sample's utility at ``matched_rows`` (None without a holdout).
    relative : float or None
        ``matched_score / reference``: the share of what a fresh sample keeps (may exceed 1; None without a
        reference or when it is 0).
    reference_label : str
        What the reference is, in words.
    matched_rows : int or None
        The size both sides were compared at (None: no resizing was needed or possible).
    matched_score : float or None
        The synthetic table's utility at ``matched_rows`` (``score`` when it was not cut).
    repeats : int
        Random subsets drawn for the resized side (0: none).
    """

    score: float
    reference: float | None = None
    relative: float | None = None
    reference_label: str = "a fresh sample of real people (the holdout in place of the synthetic table)"
    matched_rows: int | None = None
    matched_score: float | None = None
    repeats: int = 0

    def describe(self) -> str:
        """The score against its reference in one plain sentence (cards and the HTML report show it)."""
        if self.reference is None:
            return (f"Utility {self.score:.3f} (1 = as useful as the real table); no holdout, so no fresh sample to "
                    "compare with.")
        if self.relative is None:
            return f"Utility {self.score:.3f}; {self.reference_label} scores {self.reference:.3f}."
        sized = ""
        if self.repeats and self.matched_rows is not None:
            sized = f", compared at {self.matched_rows:,} rows ({self.repeats} random subsets of the larger table)"
        return (f"Utility {self.score:.3f}: {self.relative:.0%} of what {self.reference_label} keeps "
                f"({self.reference:.3f}){sized}.")

    def to_dict(self) -> dict[str, Any]:
        """The JSON of the utility score (``utility`` of a utility measure in the JSON report)."""
        return {
            "score": finite_or_none(self.score),
            "reference": finite_or_none(self.reference),
            "relative": finite_or_none(self.relative),
            "reference_label": self.reference_label,
            "matched_rows": None if self.matched_rows is None else int(self.matched_rows),
            "matched_score": finite_or_none(self.matched_score),
            "repeats": int(self.repeats),
            "text": self.describe(),
        }


@dataclass
class MetricResult:
    """One metric evaluated on one (real, synthetic) pair, as reported to users."""

    id: str
    applicable: bool
    risk: float | None = None
    raw: float | None = None
    reason: str | None = None
    per_record: np.ndarray | None = None
    per_record_unit: str = "real"
    details: Details | None = None
    params: dict[str, Any] = field(default_factory=dict)
    baseline: float | None = None
    baseline_output: MetricOutput | None = None
    interval: tuple[float, float] | None = None
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: The score and its baseline compared at one table size (:class:`SizeMatch`), for metrics that declare
    #: ``size_matched`` and have a baseline; None otherwise.
    size_match: SizeMatch | None = None
    #: "risk" (a privacy metric) or "utility" (a utility measure of metrics.md §6: ``risk`` is None and
    #: ``utility`` holds the score, higher is better).
    scale: str = "risk"
    #: A utility measure's score and its fresh-sample reference (:class:`UtilityScore`); None otherwise.
    utility: UtilityScore | None = None
    #: True when the metric stopped on an internal error (a defect in privcore, not a property of the data): it is
    #: not applicable, and the verdict never answers "release" while a privacy metric failed.
    failed: bool = False

    @property
    def excess(self) -> float | None:
        """Risk above the fresh-sample baseline (metrics.md §5) between like-sized tables (:class:`SizeMatch`).

        None without a baseline or where the holdout is too small to compare.
        """
        if self.risk is None or self.baseline is None:
            return None
        if self.size_match is not None:
            return self.size_match.excess
        return self.risk - self.baseline

    def to_dict(self) -> dict[str, Any]:
        """The JSON-contract view of this result (product.md); a utility measure adds ``scale`` and ``utility``."""
        out = {
            "risk": finite_or_none(self.risk),
            "raw": finite_or_none(self.raw),
            "applicable": self.applicable,
            "reason": self.reason,
            "baseline": finite_or_none(self.baseline),
            "interval": None if self.interval is None else [finite_or_none(v) for v in self.interval],
            "seconds": round(float(self.seconds), 6),
            "params": jsonable(self.params),
            "warnings": list(self.warnings),
            "details": None if self.details is None else self.details.to_json(),
            "size_match": None if self.size_match is None else self.size_match.to_dict(),
            "failed": self.failed,
        }
        if self.scale == "utility":
            out["scale"] = "utility"
            out["utility"] = None if self.utility is None else self.utility.to_dict()
        return out
