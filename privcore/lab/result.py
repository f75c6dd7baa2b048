"""What a lab returns (:class:`LabResult`), its JSON form and the JSON Schema of that form."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from privcore.lab.frontier import frontier_curve, frontier_schema
from privcore.lab.summary import json_epsilon

__all__ = ["LabRun", "CurvePoint", "LabResult", "lab_report_schema", "json_epsilon"]


@dataclass(frozen=True)
class LabRun:
    """One metric on one synthetic table of the ladder.

    Attributes
    ----------
    leak : str
        The leak type (a :data:`privcore.generators.LADDER` name, ``"fresh_sample"`` for the reference
        runs, or the name of a supplied ladder).
    level : float
        The leak level s in [0, 1] (a supplied ladder's label).
    seed : int
        The seed of the synthetic table and of the evaluation.
    metric : str
        Metric id.
    risk : float or None
        The metric's risk; None when it did not run (see ``LabResult.not_applicable``).
    baseline : float or None
        The fresh-sample baseline (``LabResult.settings["baseline_source"]`` says where it comes from).
    epsilon : float or None
        ε of a ``dp_marginals`` table (``math.inf`` at level 1); None for other leak types.
    """

    leak: str
    level: float
    seed: int
    metric: str
    risk: float | None
    baseline: float | None
    epsilon: float | None = None

    @property
    def excess(self) -> float | None:
        """Risk − baseline, None when either is missing."""
        return None if self.risk is None or self.baseline is None else self.risk - self.baseline

    def to_dict(self) -> dict[str, Any]:
        """The run as plain JSON values (``epsilon`` only for ``dp_marginals``)."""
        out = {"leak": self.leak, "level": self.level, "seed": self.seed, "metric": self.metric,
               "risk": self.risk, "baseline": self.baseline}
        if self.leak == "dp_marginals":
            out["epsilon"] = json_epsilon(self.epsilon)
        return out


@dataclass(frozen=True)
class CurvePoint:
    """One level of a response curve: spread over seeds, excess over the baseline, separation from the reference."""

    level: float
    epsilon: float | None
    runs: int
    risk_mean: float | None
    risk_sd: float | None
    risk_min: float | None
    risk_max: float | None
    excess_mean: float | None
    excess_min: float | None
    excess_max: float | None
    auc: float | None
    separated: bool

    def to_dict(self) -> dict[str, Any]:
        """The point as plain JSON values (``epsilon`` left out when None)."""
        out = asdict(self)
        if self.epsilon is None:
            del out["epsilon"]
        else:
            out["epsilon"] = json_epsilon(self.epsilon)
        return out


@dataclass
class LabResult:
    """The lab's runs and statistics (see :mod:`privcore.lab` for the definitions).

    Attributes
    ----------
    runs : list of LabRun
        Every metric on every synthetic table, reference runs included.
    detection : dict
        metric → leak → the smallest level from which the metric notices the leak, or None.
    agreement : dict
        metric → metric → Spearman's ρ of their risks over all runs, or None.
    summary : dict
        metric → one plain-language sentence.
    curves : dict
        metric → leak → one :class:`CurvePoint` per level.
    monotonicity : dict
        metric → leak → Spearman's ρ of risk against level, or None.
    not_applicable : dict
        metric → why it did not run (metrics that ran on no table).
    settings : dict
        What was run: leaks, levels, seeds, metrics, margin, table sizes, reference, baseline sources…
    seconds : float
        Wall-clock time of the whole lab.
    errors : list of str
        Internal metric errors reported by :func:`privcore.evaluate` (empty when all went well).
    frontier : list of FrontierRun
        Every table as a point of the privacy–utility frontier (:mod:`privcore.lab.frontier`).
    frontier_measures : list of str
        The utility measures behind the frontier (empty: no frontier).

    Notes
    -----
    JSON (``LabResult.to_json()``, ``python -m privcore lab --json``)::

        {"runs": [{"leak", "level", "seed", "metric", "risk", "baseline"[, "epsilon"]}, ...],
         "detection": {metric: {leak: smallest level detected, or null}},
         "agreement": {metric: {metric: Spearman rho or null}},
         "summary": {metric: sentence},
         "curves": {metric: {leak: [{"level", "risk_mean", "risk_sd", ..., "auc", "separated"}, ...]}},
         "monotonicity": {metric: {leak: Spearman rho of risk vs level, or null}},
         "not_applicable": {metric: reason},
         "settings": {...},
         "frontier": {"measures": [...], "runs": [...], "curve": {leak: [...]}}}

    The first four keys are the lab's contract; the others carry the rest of the statistics. A
    ``dp_marginals`` run (and curve point) also has ``"epsilon"``: a number, or the string ``"inf"`` at level 1
    (no noise). Runs of the reference (leak ``"fresh_sample"``, level 0) are listed too. ``"frontier"`` (present when
    utility measures ran beside the privacy metrics) is the privacy–utility frontier of :mod:`privcore.lab.frontier`:
    each table's strongest privacy evidence and utility, and per leak and level their mean, lowest and highest.
    """

    runs: list[LabRun]
    detection: dict[str, dict[str, float | None]]
    agreement: dict[str, dict[str, float | None]]
    summary: dict[str, str]
    curves: dict[str, dict[str, list[CurvePoint]]]
    monotonicity: dict[str, dict[str, float | None]]
    not_applicable: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    frontier: list = field(default_factory=list)
    frontier_measures: list[str] = field(default_factory=list)

    def frame(self):
        """The runs as a pandas DataFrame (columns leak, level, seed, metric, risk, baseline, excess, epsilon)."""
        return pd.DataFrame([{**asdict(r), "excess": r.excess} for r in self.runs],
                            columns=["leak", "level", "seed", "metric", "risk", "baseline", "excess", "epsilon"])

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (see :class:`LabResult`), with plain Python values only."""
        return {
            "runs": [r.to_dict() for r in self.runs],
            "detection": self.detection,
            "agreement": self.agreement,
            "summary": self.summary,
            "curves": {m: {leak: [p.to_dict() for p in points] for leak, points in by_leak.items()}
                       for m, by_leak in self.curves.items()},
            "monotonicity": self.monotonicity,
            "not_applicable": self.not_applicable,
            "settings": {**self.settings, "seconds": round(self.seconds, 3)},
            **({"frontier": self.frontier_dict()} if self.frontier_measures else {}),
        }

    def frontier_dict(self) -> dict[str, Any]:
        """The ``"frontier"`` entry of the JSON document: the measures, every table's point and the curve."""
        return {"measures": list(self.frontier_measures), "runs": [r.to_dict() for r in self.frontier],
                "curve": frontier_curve(self.frontier)}

    def to_json(self, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text (no NaN or infinity)."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False, ensure_ascii=False)


_NUM_OR_NULL = {"type": ["number", "null"]}
_RISK_OR_NULL = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
_RHO = {"type": ["number", "null"], "minimum": -1, "maximum": 1}
_EPSILON = {"anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"const": "inf"}],
            "description": "ε of a dp_marginals table: 0.1·1000^level, \"inf\" (no noise) at level 1"}


def _by_metric(inner: dict[str, Any], description: str) -> dict[str, Any]:
    return {"type": "object", "description": description,
            "additionalProperties": {"type": "object", "additionalProperties": inner}}


def lab_report_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12, self-contained) of :meth:`LabResult.to_dict`."""
    run = {
        "type": "object",
        "properties": {
            "leak": {"type": "string", "description": "leak type, 'fresh_sample' (the reference) or a ladder name"},
            "level": {"type": "number", "description": "leak level s in [0, 1], or the label of a supplied table"},
            "seed": {"type": "integer", "minimum": 0},
            "metric": {"type": "string"},
            "risk": {**_RISK_OR_NULL, "description": "null when the metric did not run"},
            "baseline": {**_RISK_OR_NULL, "description": "the fresh-sample baseline (settings.baseline_source)"},
            "epsilon": _EPSILON,
        },
        "required": ["leak", "level", "seed", "metric", "risk", "baseline"],
        "additionalProperties": False,
        "if": {"properties": {"leak": {"const": "dp_marginals"}}},
        "then": {"required": ["epsilon"]},
        "else": {"not": {"required": ["epsilon"]}},
    }
    point = {
        "type": "object",
        "properties": {
            "level": {"type": "number"},
            "epsilon": _EPSILON,
            "runs": {"type": "integer", "minimum": 0, "description": "seeds on which the metric ran"},
            **{f"risk_{k}": _NUM_OR_NULL for k in ("mean", "sd", "min", "max")},
            **{f"excess_{k}": _NUM_OR_NULL for k in ("mean", "min", "max")},
            "auc": {"type": ["number", "null"], "minimum": 0, "maximum": 1,
                    "description": "P(risk at this level > a reference risk), ties ½"},
            "separated": {"type": "boolean",
                          "description": "every seed's risk above the largest reference risk plus the margin"},
        },
        "required": ["level", "runs", "risk_mean", "risk_sd", "risk_min", "risk_max", "excess_mean", "excess_min",
                     "excess_max", "auc", "separated"],
        "additionalProperties": False,
    }
    return {
        "title": "privcore metric lab",
        "description": "Which metric catches which leak: metrics run on synthetic tables of a leak ladder "
                       "(python -m privcore lab --json, privcore.lab.run).",
        "type": "object",
        "properties": {
            "runs": {"type": "array", "items": run},
            "detection": _by_metric({"type": ["number", "null"]},
                                    "metric → leak → the smallest level from which the metric notices it, or null"),
            "agreement": _by_metric(_RHO, "metric → metric → Spearman's ρ of their risks over all runs"),
            "summary": {"type": "object", "additionalProperties": {"type": "string"}},
            "curves": _by_metric({"type": "array", "items": point}, "metric → leak → one point per level"),
            "monotonicity": _by_metric(_RHO, "metric → leak → Spearman's ρ of risk against level"),
            "not_applicable": {"type": "object", "additionalProperties": {"type": "string"}},
            "settings": {"type": "object"},
            "frontier": frontier_schema(),
        },
        "required": ["runs", "detection", "agreement", "summary"],
        "additionalProperties": False,
    }
