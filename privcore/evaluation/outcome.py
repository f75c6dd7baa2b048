"""The outcome of one evaluation: a :class:`Report` of every metric's result, and its JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from privcore.evaluation.verdict import verdict
from privcore.metrics import MetricResult

__all__ = ["Report", "combined_json"]


@dataclass
class Report(Mapping[str, MetricResult]):
    """All metric results of one evaluation, indexable by metric id.

    Notes
    -----
    :func:`privcore.evaluation.evaluate.evaluate` collects the :class:`~privcore.metrics.results.MetricResult`
    of each metric here. The JSON contract (``python -m privcore schema``) is headed by the verdict, which is
    why the report type sits in the evaluation layer, beside :mod:`privcore.evaluation.verdict`, and not with
    the per-metric result types below it.
    """

    results: dict[str, MetricResult]
    rows: dict[str, int | None]
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: Internal errors of individual metrics (with tracebacks), for logs; never shown to users verbatim.
    errors: list[str] = field(default_factory=list)
    #: The prepared tables and shared neighbour caches, for figures and the per-record explorer.
    data: Any = field(default=None, repr=False, compare=False)
    shared: Any = field(default=None, repr=False, compare=False)
    #: A declared ε-differential-privacy guarantee of the generator (``evaluate(dp_epsilon=…)``): the verdict
    #: reads the attacks against the bound it places on them. None: nothing declared.
    dp_epsilon: float | None = None
    #: Every column of the real table as uploaded: analysed with its kind, checked, or left out with the reason
    #: (:class:`privcore.data.column_report.ColumnEntry`); empty for a report built without :func:`evaluate`.
    columns: list = field(default_factory=list)
    #: For related tables evaluated per person (:func:`privcore.evaluation.related.evaluate_related`): the tables,
    #: relations, rows per role and rows per person; None for one table.
    related: dict | None = None

    def __getitem__(self, metric_id: str) -> MetricResult:
        return self.results[metric_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def to_dict(self, rule: Any = None) -> dict[str, Any]:
        """The JSON contract (``python -m privcore schema``), headed by the verdict under ``rule``.

        ``rule`` is a :class:`privcore.evaluation.verdict.VerdictRule`; default thresholds when None.
        """
        out = {
            "verdict": verdict(self, rule).to_dict(),
            "metrics": {mid: res.to_dict() for mid, res in self.results.items()},
            "warnings": list(self.warnings),
            "rows": dict(self.rows),
            "dp_epsilon": self.dp_epsilon,
            "columns": [entry.to_dict() for entry in self.columns],
        }
        if self.related is not None:
            out["related"] = self.related
        return out

    def to_json(self, indent: int | None = 2, rule: Any = None) -> str:
        """Serialise :meth:`to_dict` as strict JSON (no NaN or Infinity)."""
        return json.dumps(self.to_dict(rule), indent=indent, allow_nan=False)


def combined_json(reports: Mapping[str, Any], *, indent: int | None = 2, settings: Mapping[str, Any] | None = None,
                  rule: Any = None) -> str:
    """One JSON document with every synthetic table's report.

    Each report is in the JSON contract, its verdict under ``rule``.
    """
    doc: dict[str, Any] = {"tables": {name: rep.to_dict(rule) for name, rep in reports.items()}}
    if settings:
        doc["settings"] = json.loads(json.dumps(settings, default=str))
    return json.dumps(doc, indent=indent, allow_nan=False)
