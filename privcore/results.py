"""Result types shared by every metric and by the report.

A metric's ``compute`` function returns a :class:`MetricOutput` (the numbers only) or raises
:class:`NotApplicable` with a one-line reason. :func:`privcore.evaluate` wraps it into a
:class:`MetricResult` (adds identity, timing, the fresh-sample baseline of metrics.md §5) and collects
all results in a :class:`Report`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

import numpy as np

from privcore.details import Details
from privcore.jsonvalues import finite_or_none, jsonable


class NotApplicable(Exception):
    """Raised by a metric whose inputs are missing; the message is the one-line reason shown to users."""


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
        The evidence behind the score, of the kind the metric declares (:mod:`privcore.details`).
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


@dataclass
class Report(Mapping[str, MetricResult]):
    """All metric results of one evaluation, indexable by metric id."""

    results: dict[str, MetricResult]
    rows: dict[str, int | None]
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: Internal errors of individual metrics (with tracebacks), for logs; never shown to users verbatim.
    errors: list[str] = field(default_factory=list)
    #: The prepared tables and shared neighbour caches, for figures and the per-record explorer.
    data: Any = field(default=None, repr=False, compare=False)
    shared: Any = field(default=None, repr=False, compare=False)

    def __getitem__(self, metric_id: str) -> MetricResult:
        return self.results[metric_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def to_dict(self, rule: Any = None) -> dict[str, Any]:
        """The JSON contract (``python -m privcore schema``), headed by the verdict under ``rule``
        (a :class:`privcore.verdict.VerdictRule`; default thresholds when None)."""
        from privcore.verdict import verdict

        return {
            "verdict": verdict(self, rule).to_dict(),
            "metrics": {mid: res.to_dict() for mid, res in self.results.items()},
            "warnings": list(self.warnings),
            "rows": dict(self.rows),
        }

    def to_json(self, indent: int | None = 2, rule: Any = None) -> str:
        """Serialise :meth:`to_dict` as strict JSON (no NaN or Infinity)."""
        return json.dumps(self.to_dict(rule), indent=indent, allow_nan=False)
