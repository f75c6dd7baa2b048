"""Privacy against utility: each synthetic table as one point, and which one is the best trade-off.

It imports no plotting.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from privcore.evaluation.interpret import assess
from privcore.evaluation.verdict import DO_NOT_RELEASE, VERDICT_STYLE, Evidence, VerdictRule, verdict
from privcore.metrics import MembershipBattery, MembershipScores

__all__ = ["TradeoffPoint", "tradeoff_point", "tradeoff_points", "best_tradeoff", "tradeoff_sentence",
           "UTILITY_TIE_DIGITS", "NO_UTILITY"]

#: Utilities equal when rounded to this many decimals (whole percents) tie; the lower privacy evidence wins.
UTILITY_TIE_DIGITS = 2

#: What to do when no utility measure ran (the view says it instead of drawing an empty plot).
NO_UTILITY = ("No utility measure ran, so there is nothing to set against the privacy evidence. Choose the "
              "\"utility\" preset on the Metrics page (or the \"quick\" one, which includes the cheap column "
              "shapes and column-pair trends) and run the evaluation again.")


@dataclass(frozen=True)
class TradeoffPoint:
    """One synthetic table in the privacy–utility view.

    Attributes
    ----------
    name : str
        The synthetic table's name.
    level : str
        The verdict (``"release"``, ``"release with caution"`` or ``"do not release"``).
    privacy : float or None
        The strongest privacy evidence's excess over its reference (0 = no leak); None when no privacy metric ran.
    privacy_low, privacy_high : float or None
        The ends of that excess's 95 % interval, where the evidence has one.
    privacy_metric : str or None
        The metric id of that evidence.
    privacy_name : str
        Its name ("" when none).
    decisive : bool
        Whether that evidence is an attack (it decides); False when only a supporting proxy ran.
    utility : float or None
        Mean share of a fresh sample's utility kept, each measure capped at 1 (None: no holdout or no measure).
    utility_score : float or None
        Mean raw score of the utility measures that ran (1 = as useful as the real table); None: none ran.
    keeps_little : bool
        The verdict's flag "private because it keeps little".
    auc, auc_low, auc_high : float or None
        Where that evidence is a membership attack: its AUC (0.5 = a coin flip, 1 = tells every member) and the ends of
        its 95 % interval, the number the answer and the attack's card quote; None otherwise.

    Notes
    -----
    A custodian chooses between generators (or privacy budgets) by trading what a table leaks against what it keeps.
    This module reads both off the verdict (:mod:`privcore.evaluation.verdict`) of each evaluation:

    - **Privacy evidence** (:attr:`TradeoffPoint.privacy`): the excess of the verdict's strongest decisive evidence
      over its fresh-sample reference (0 = the attacker does no better than against other real people); the
      strongest membership attack (``mia_best``) when it ran. Where the evidence has a 95 % interval, its ends are
      kept too. Without any attack, the first supporting evidence stands in, and the point says so.
    - **Utility** (:attr:`TradeoffPoint.utility`): :attr:`privcore.evaluation.utility_line.UtilityLine.relative`, the
      mean share of a fresh sample's utility that the table keeps, each measure capped at 1. Without a holdout there
      is no fresh sample: the mean raw score (:attr:`TradeoffPoint.utility_score`) is all there is.
    """

    name: str
    level: str
    privacy: float | None
    privacy_low: float | None
    privacy_high: float | None
    privacy_metric: str | None
    privacy_name: str
    decisive: bool
    utility: float | None
    utility_score: float | None
    keeps_little: bool
    auc: float | None = None
    auc_low: float | None = None
    auc_high: float | None = None

    @property
    def word(self) -> str:
        """The verdict in words ("Release", "Release with caution", "Do not release")."""
        return VERDICT_STYLE[self.level][0]

    @property
    def released(self) -> bool:
        """Whether the verdict lets the table go out (any answer but "do not release")."""
        return self.level != DO_NOT_RELEASE


def _interval(report, evidence: Evidence) -> tuple[float | None, float | None]:
    """The 95 % interval of an attack's excess, on the scale of ``evidence.excess`` (membership: 2·(AUC − ½))."""
    if evidence.lower_excess is None:
        return None, None
    result = report[evidence.metric]
    details = result.details
    if isinstance(details, MembershipBattery):
        interval = details.held_out_auc_interval
    elif isinstance(details, MembershipScores):
        interval = details.auc_interval
    else:
        a = assess(evidence.metric, result)
        if a.interval is None or a.interval[1] is None or not math.isfinite(a.interval[1]):
            return evidence.lower_excess, None
        return evidence.lower_excess, float(a.interval[1]) - a.reference
    if interval is None:
        return evidence.lower_excess, None
    return 2 * (float(interval[0]) - 0.5), 2 * (float(interval[1]) - 0.5)


def tradeoff_point(name: str, report, rule: VerdictRule | None = None) -> TradeoffPoint:
    """One evaluation as a point of the privacy–utility view.

    Parameters
    ----------
    name : str
        The synthetic table's name.
    report : privcore.evaluation.outcome.Report
        Its evaluation.
    rule : VerdictRule, optional
        The verdict's rule (default thresholds when None).

    Returns
    -------
    TradeoffPoint
    """
    v = verdict(report, rule)
    decisive = [e for e in v.evidence if e.weight == "decisive"]
    strongest = (decisive or v.evidence or [None])[0]
    low = high = None
    if strongest is not None:
        low, high = _interval(report, strongest)
    line = v.utility
    score = None if line is None or not line.measures else float(np.mean([m.score for m in line.measures]))
    auc = None
    if strongest is not None and strongest.weight == "decisive":
        auc = assess(strongest.metric, report[strongest.metric]).auc
    auc_interval = None if auc is None else auc[1]
    return TradeoffPoint(
        name=name, level=v.level,
        privacy=None if strongest is None else float(strongest.excess),
        privacy_low=low, privacy_high=high,
        privacy_metric=None if strongest is None else strongest.metric,
        privacy_name="" if strongest is None else strongest.name,
        decisive=bool(decisive),
        utility=None if line is None else line.relative,
        utility_score=score,
        keeps_little=bool(line is not None and line.keeps_little),
        auc=None if auc is None else float(auc[0]),
        auc_low=None if auc_interval is None else float(auc_interval[0]),
        auc_high=None if auc_interval is None else float(auc_interval[1]),
    )


def tradeoff_points(reports: Mapping[str, object], rule: VerdictRule | None = None) -> list[TradeoffPoint]:
    """:func:`tradeoff_point` of every evaluation, in the order given (synthetic table name → report)."""
    return [tradeoff_point(name, report, rule) for name, report in reports.items()]


def _utility(point: TradeoffPoint, relative: bool) -> float | None:
    return point.utility if relative else point.utility_score


def best_tradeoff(points: Sequence[TradeoffPoint]) -> TradeoffPoint | None:
    """The best trade-off: the most utility among the tables the verdict lets go out.

    Among the points whose verdict is not "do not release" and that have a utility, the one with the highest
    utility relative to a fresh sample (the mean raw score when no point has a relative utility); utilities
    equal to :data:`UTILITY_TIE_DIGITS` decimals tie, and the lower privacy evidence wins the tie (a point
    without privacy evidence loses it). None when no table may go out or none has a utility.

    Parameters
    ----------
    points : sequence of TradeoffPoint

    Returns
    -------
    TradeoffPoint or None

    Notes
    -----
    :func:`best_tradeoff` names the best trade-off: the table that keeps the most utility among those the verdict lets
    go out (any answer but "do not release"), ties broken by the lower privacy evidence. It imports no plotting.

    Examples
    --------
    >>> a = TradeoffPoint("a", "release", 0.01, None, None, "mia_best", "", True, 0.95, 0.9, False)
    >>> b = TradeoffPoint("b", "release", 0.00, None, None, "mia_best", "", True, 0.954, 0.9, False)
    >>> c = TradeoffPoint("c", "do not release", 0.8, None, None, "mia_best", "", True, 1.0, 1.0, False)
    >>> best_tradeoff([a, b, c]).name
    'b'
    """
    relative = any(p.utility is not None for p in points)
    candidates = [p for p in points if p.released and _utility(p, relative) is not None]
    if not candidates:
        return None
    return min(candidates, key=lambda p: (-round(_utility(p, relative), UTILITY_TIE_DIGITS),
                                          math.inf if p.privacy is None else p.privacy))


def tradeoff_sentence(points: Sequence[TradeoffPoint]) -> str:
    """One sentence that names the best trade-off (:func:`best_tradeoff`), or says why there is none.

    Examples
    --------
    >>> a = TradeoffPoint("fresh", "release", 0.0, None, None, "mia_best", "", True, 0.98, 0.9, False)
    >>> tradeoff_sentence([a])
    '“fresh” keeps the most utility (98 % of what a fresh sample keeps) among the tables the verdict lets go out.'
    """
    if not any(p.utility_score is not None for p in points):
        return NO_UTILITY
    best = best_tradeoff(points)
    if best is None:
        return ("The verdict lets none of the tables go out, so none is a trade-off worth making: each leaks more "
                "than other real people would.")
    if best.utility is not None:
        kept = f"{min(best.utility, 9.99):.0%}".replace("%", " %")
        return (f"“{best.name}” keeps the most utility ({kept} of what a fresh sample keeps) among the tables the "
                "verdict lets go out.")
    return (f"“{best.name}” keeps the most utility (mean score {best.utility_score:.2f}, 1 = as the real table) "
            "among the tables the verdict lets go out.")
