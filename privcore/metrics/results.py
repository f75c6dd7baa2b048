"""Result types shared by every metric and by the report.

A metric's ``compute`` function returns a :class:`MetricOutput` (the numbers only) or raises
:class:`NotApplicable` with a one-line reason. :func:`privcore.evaluate` wraps it into a
:class:`MetricResult` (adds identity, timing, the fresh-sample baseline of metrics.md §5) and collects
all results in a :class:`privcore.evaluation.outcome.Report`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from privcore.metrics.details import Details
from privcore.base.errors import NotApplicable  # noqa: F401  (metrics raise it from here)
from privcore.base.jsonvalues import finite_or_none, jsonable


@dataclass
class MetricOutput:
    """What a metric's compute function returns.

    Attributes
    ----------
    risk : float
        Risk in [0, 1]; 1 = no privacy, 0 = complete privacy.
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

    risk: float
    raw: float | None = None
    per_record: np.ndarray | None = None
    details: Details | None = None
    params: dict[str, Any] = field(default_factory=dict)
    interval: tuple[float, float] | None = None
    warnings: list[str] = field(default_factory=list)


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

    @property
    def excess(self) -> float | None:
        """Risk above the fresh-sample baseline (metrics.md §5), or None without a baseline."""
        if self.risk is None or self.baseline is None:
            return None
        return self.risk - self.baseline

    def to_dict(self) -> dict[str, Any]:
        """The JSON-contract view of this result (product.md)."""
        return {
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
        }
