"""The lab's privacy–utility frontier: what each level of a ladder leaks against what it keeps."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from privcore.evaluation import tradeoff_point
from privcore.lab.summary import json_epsilon
from privcore.metrics import registry

__all__ = ["FRONTIER_MEASURES", "TablePoint", "FrontierRun", "split_utility", "table_point", "frontier_curve",
           "frontier_schema"]

#: The utility measures the lab evaluates on every table by default: those cheap enough for the quick preset.
FRONTIER_MEASURES: tuple[str, ...] = tuple(registry.QUICK_UTILITY)


@dataclass(frozen=True)
class TablePoint:
    """One evaluated table's privacy evidence and utility (see :func:`table_point`)."""

    privacy: float | None
    privacy_metric: str | None
    utility: float | None
    utility_score: float | None
    verdict: str


@dataclass(frozen=True)
class FrontierRun:
    """One synthetic table of the lab as a point of the frontier."""

    leak: str
    level: float
    seed: int
    epsilon: float | None
    privacy: float | None
    privacy_metric: str | None
    utility: float | None
    utility_score: float | None
    verdict: str

    def to_dict(self) -> dict[str, Any]:
        """The run as plain JSON values (ε as :func:`json_epsilon`, a non-finite float as None)."""
        out = asdict(self)
        out["epsilon"] = json_epsilon(self.epsilon)
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in out.items()}


def split_utility(metric_ids: Iterable[str], utility: bool = True) -> tuple[list[str], list[str]]:
    """The lab's privacy metrics and the utility measures of its frontier.

    Parameters
    ----------
    metric_ids : iterable of str
        The metrics chosen for the lab (already checked).
    utility : bool
        Add :data:`FRONTIER_MEASURES` to the utility measures chosen.

    Returns
    -------
    tuple of (list of str, list of str)
        The privacy metrics (for the detection statistics) and the utility measures (for the frontier).

    Examples
    --------
    >>> split_utility(["dcr", "utility_mle"])
    (['dcr'], ['utility_mle', 'utility_shapes', 'utility_pairs'])
    >>> split_utility(["dcr"], utility=False)
    (['dcr'], [])
    """
    ids = list(metric_ids)
    chosen = [m for m in ids if registry.is_utility(registry.get(m))]
    privacy = [m for m in ids if m not in chosen]
    measures = list(dict.fromkeys([*chosen, *(FRONTIER_MEASURES if utility else ())]))
    return privacy, measures


def table_point(report) -> TablePoint:
    """The frontier's point of one evaluation (:func:`privcore.evaluation.tradeoff.tradeoff_point`).

    Notes
    -----
    A ladder's levels (a leak's strength, or the ε of one generator in a supplied ladder) trade privacy for utility.
    Beside the privacy metrics it compares, the lab evaluates **the cheap utility measures**
    (:data:`FRONTIER_MEASURES`, column shapes and column-pair trends: no model is trained) on every table, so that
    the frontier costs little, and reads each table as one point of the Results page's Privacy and utility view
    (:func:`privcore.evaluation.tradeoff.tradeoff_point`):

    - **privacy**: the excess of the verdict's strongest decisive evidence over its fresh-sample reference
      (0 = no leak), among the privacy metrics the lab runs; a proxy's when no attack runs;
    - **utility**: the mean share of a fresh sample's utility kept (the lab's holdout is the fresh sample), each
      measure capped at 1; without a holdout (a supplied ladder given none), the mean raw score.
    """
    point = tradeoff_point("", report)
    return TablePoint(point.privacy, point.privacy_metric, point.utility, point.utility_score, point.level)


def _spread(values: Sequence[float | None]) -> tuple[float | None, float | None, float | None]:
    finite = [float(v) for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return None, None, None
    return float(np.mean(finite)), min(finite), max(finite)


def frontier_curve(runs: Sequence[FrontierRun]) -> dict[str, list[dict[str, Any]]]:
    """Per leak (and the fresh-sample reference), one point per level.

    Each point has the mean, lowest and highest privacy evidence and utility over the seeds, in the order the levels
    were first met.

    The utility is relative to a fresh sample when every run of the lab has one, else the raw score
    (``"utility_kind"``: ``"relative"`` or ``"score"``).

    Notes
    -----
    Utility measures named in the lab's ``metrics`` join the frontier instead of the detection statistics (they have no
    risk to detect a leak with); ``utility=False`` (``--no-utility``) leaves the frontier out.
    The frontier's curve gives per leak and level the mean, lowest and highest of both over the seeds.
    """
    relative = bool(runs) and all(r.utility is not None for r in runs if r.utility_score is not None)
    groups: dict[str, dict[float, list[FrontierRun]]] = {}
    for r in runs:
        groups.setdefault(r.leak, {}).setdefault(r.level, []).append(r)
    curve = {}
    for leak, levels in groups.items():
        points = []
        for level, group in levels.items():
            privacy = _spread([r.privacy for r in group])
            utility = _spread([(r.utility if relative else r.utility_score) for r in group])
            verdicts = [r.verdict for r in group]
            points.append({
                "level": level, "epsilon": FrontierRun.to_dict(group[0])["epsilon"], "runs": len(group),
                "privacy_mean": privacy[0], "privacy_min": privacy[1], "privacy_max": privacy[2],
                "utility_mean": utility[0], "utility_min": utility[1], "utility_max": utility[2],
                "utility_kind": "relative" if relative else "score",
                "privacy_metrics": sorted({r.privacy_metric for r in group if r.privacy_metric}),
                "verdicts": {v: verdicts.count(v) for v in dict.fromkeys(verdicts)},
            })
        curve[leak] = sorted(points, key=lambda p: p["level"])
    return curve


def frontier_schema() -> dict[str, Any]:
    """JSON Schema of the ``"frontier"`` entry of the lab's JSON document."""
    number = {"type": ["number", "null"]}
    run = {"type": "object", "properties": {
        "leak": {"type": "string"}, "level": {"type": "number"}, "seed": {"type": "integer", "minimum": 0},
        "epsilon": {"type": ["number", "string", "null"]}, "privacy": number,
        "privacy_metric": {"type": ["string", "null"]}, "utility": number, "utility_score": number,
        "verdict": {"type": "string"}},
        "required": ["leak", "level", "seed", "privacy", "utility", "utility_score", "verdict"],
        "additionalProperties": False}
    point = {"type": "object", "properties": {
        "level": {"type": "number"}, "epsilon": {"type": ["number", "string", "null"]},
        "runs": {"type": "integer", "minimum": 0},
        **{f"{what}_{k}": number for what in ("privacy", "utility") for k in ("mean", "min", "max")},
        "utility_kind": {"enum": ["relative", "score"]},
        "privacy_metrics": {"type": "array", "items": {"type": "string"}},
        "verdicts": {"type": "object", "additionalProperties": {"type": "integer"}}},
        "required": ["level", "runs", "privacy_mean", "utility_mean", "utility_kind"], "additionalProperties": False}
    return {
        "type": "object",
        "description": "The privacy-utility frontier: each table's strongest privacy evidence (the verdict's, an "
                       "excess over a fresh sample, 0 = no leak) and utility (share of a fresh sample's, or the raw "
                       "score without a holdout), from the utility measures listed",
        "properties": {"measures": {"type": "array", "items": {"type": "string"}},
                       "runs": {"type": "array", "items": run},
                       "curve": {"type": "object", "additionalProperties": {"type": "array", "items": point}}},
        "required": ["measures", "runs", "curve"],
        "additionalProperties": False,
    }
