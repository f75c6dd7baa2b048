"""The lab's statistics: response curves, detection power, AUC, monotonicity and metric agreement.

Everything here works on the list of :class:`~privcore.lab.result.LabRun` records (one per leak type ×
level × seed × metric) and one *reference* group per leak type: the runs a level is compared with.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from privcore.lab.result import CurvePoint, LabRun

__all__ = ["DEFAULT_MARGIN", "RISING_AUC", "false_alarm_bound", "auc", "spearman", "separated", "detection_level",
           "rises", "analyse"]

#: The margin (risk units) by which every value at a level must exceed the largest reference value.
DEFAULT_MARGIN = 0.01
#: See :func:`rises`.
RISING_AUC = 0.8


def false_alarm_bound(seeds: int, reference_runs: int | None = None) -> float:
    """The chance that a level with no effect passes the separation rule: ``1 / C(a + b, a)``.

    >>> round(false_alarm_bound(3), 3), round(false_alarm_bound(1), 3)
    (0.05, 0.5)
    """
    b = seeds if reference_runs is None else reference_runs
    if seeds < 1 or b < 1:
        return 1.0
    return 1.0 / math.comb(seeds + b, seeds)


def auc(values: Sequence[float], reference: Sequence[float]) -> float | None:
    """P(value > reference value) + ½ P(equal) over all pairs; ``None`` if either side is empty.

    >>> auc([0.3, 0.4], [0.1, 0.2]), auc([0.1], [0.1, 0.2])
    (1.0, 0.25)
    """
    a, b = np.asarray(values, dtype=float), np.asarray(reference, dtype=float)
    if not a.size or not b.size:
        return None
    diff = a[:, None] - b[None, :]
    return float(np.mean((diff > 0) + 0.5 * (diff == 0)))


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's ρ (average ranks for ties); ``None`` below three pairs or when one side is constant.

    >>> spearman([0, 0.5, 1], [0.1, 0.2, 0.9]), spearman([0, 1, 2], [1, 1, 1]) is None
    (1.0, True)
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.size < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    from scipy.stats import rankdata  # on first use: scipy.stats takes about 0.3 s to import

    ra, rb = rankdata(a), rankdata(b)
    rho = float(np.corrcoef(ra, rb)[0, 1])
    return None if not math.isfinite(rho) else max(-1.0, min(1.0, rho))


def separated(values: Sequence[float], reference: Sequence[float], margin: float = DEFAULT_MARGIN) -> bool:
    """Whether every value exceeds the largest reference value by more than ``margin``.

    >>> separated([0.5, 0.6], [0.1, 0.2]), separated([0.5, 0.205], [0.1, 0.2])
    (True, False)
    """
    return bool(len(values) and len(reference) and min(values) > max(reference) + margin)


def detection_level(levels: Sequence[float], passed: Sequence[bool]) -> float | None:
    """The smallest level from which every level of the (ascending) grid passed; ``None`` if the top did not.

    >>> detection_level([0, 0.25, 0.5, 1], [False, False, True, True])
    0.5
    >>> detection_level([0, 0.25, 0.5, 1], [False, True, False, True])  # a pass at 0.25 alone does not count
    1
    >>> detection_level([0, 0.5, 1], [False, True, False]) is None
    True

    Notes
    -----
    Level k of a leak type is **separated** for a metric when every seed's risk at k exceeds the largest
    risk of the reference runs by more than ``margin`` (default :data:`DEFAULT_MARGIN` = 0.01 on the
    [0, 1] risk scale): ``min(risk at k) > max(reference risks) + margin``. With s seeds at k and s
    reference runs of exchangeable values this is the exact one-sided Mann–Whitney test with U = 0: a level
    without any effect passes with probability at most ``1 / C(2s, s)`` (:func:`false_alarm_bound`; 0.05 for
    3 seeds, 0.17 for 2, 0.5 for 1); the margin keeps ties and differences too small to matter from passing.

    The **detection level** of a metric for a leak type is the smallest level k of the grid such that k and
    every higher level of the grid are separated ("notices it from k on"), or ``None`` when the highest level
    is not separated. Requiring every higher level keeps a chance pass at one low level from counting, so the
    chance of a false detection is no larger than that of the highest level alone.
    """
    found = None
    for level, ok in zip(reversed(list(levels)), reversed(list(passed))):
        if not ok:
            break
        found = level
    return found


def rises(values: Sequence[float], reference: Sequence[float], margin: float = DEFAULT_MARGIN) -> bool:
    """A rise that does not separate.

    The mean exceeds the reference mean by more than ``margin`` and the AUC is at least :data:`RISING_AUC`, but some
    value is within the reference's spread (:func:`separated` fails).

    The summary sentence says such a leak raises the metric "but not beyond seed noise": a consistent shift
    smaller than the margin is no rise, and a rise that separates is a detection.

    >>> rises([0.3, 0.5, 0.6], [0.1, 0.2, 0.35]), rises([0.3, 0.5, 0.6], [0.1, 0.2, 0.25])
    (True, False)

    Notes
    -----
    A leak that is not detected but whose highest level :func:`rises` (mean above the reference mean by more
    than the margin, AUC ≥ 0.8) is said in the summary to raise the metric "but not beyond seed noise".
    """
    a = auc(values, reference)
    return bool(a is not None and a >= RISING_AUC and np.mean(values) > np.mean(reference) + margin
                and not separated(values, reference, margin))


def _summary(values: Sequence[float]) -> dict[str, float | None]:
    if not values:
        return {"mean": None, "sd": None, "min": None, "max": None}
    a = np.asarray(values, dtype=float)
    return {"mean": float(a.mean()), "sd": float(a.std(ddof=1)) if a.size > 1 else 0.0,
            "min": float(a.min()), "max": float(a.max())}


def analyse(
    runs: Iterable[LabRun],
    metrics: Sequence[str],
    leaks: Sequence[str],
    levels: dict[str, Sequence[float]],
    reference: Callable[[str], tuple[str, float]],
    *,
    margin: float = DEFAULT_MARGIN,
    epsilon: Callable[[str, float], Any] | None = None,
) -> dict[str, Any]:
    """Curves, detection levels, monotonicity and agreement (the rules: :func:`detection_level`, :func:`rises` and Notes).

    Parameters
    ----------
    runs : iterable of LabRun
        Every run, reference runs included.
    metrics, leaks : sequence of str
        The metric ids and leak types to report, in order.
    levels : dict
        Leak type → its ascending grid of levels.
    reference : callable
        Leak type → the (leak, level) of the runs it is compared with.
    margin : float
        See :func:`separated`.
    epsilon : callable, optional
        (leak, level) → the ε to show beside a level, or None.

    Returns
    -------
    dict
        ``curves`` (metric → leak → list of :class:`CurvePoint`), ``detection`` (metric → leak → level or
        None), ``monotonicity`` (metric → leak → ρ or None), ``rising`` (metric → the leak types that
        :func:`rises` at their highest level without being detected) and ``agreement`` (metric → metric →
        ρ or None).

    Notes
    -----
    The **AUC** at level k is the Mann–Whitney probability that a risk at k exceeds a reference risk (ties
    count ½): 0.5 = indistinguishable, 1 = every value at k above every reference value. **Monotonicity** is
    Spearman's ρ between level and risk over all runs of the leak type (levels × seeds). **Agreement** is
    Spearman's ρ between two metrics' risks over every run of the lab (all leak types, levels and seeds, the
    reference runs not counted twice) where both ran. ρ is ``None`` when fewer than three pairs exist or
    one side is constant.
    """
    runs = list(runs)
    by_cell: dict[tuple[str, str, float], list[LabRun]] = defaultdict(list)
    for r in runs:
        by_cell[(r.metric, r.leak, r.level)].append(r)

    def risks(metric, leak, level):
        return [r.risk for r in by_cell.get((metric, leak, level), []) if r.risk is not None]

    curves: dict[str, dict[str, list[CurvePoint]]] = {}
    rising: dict[str, list[str]] = {}
    detection: dict[str, dict[str, float | None]] = {}
    monotonicity: dict[str, dict[str, float | None]] = {}
    for metric in metrics:
        curves[metric], detection[metric], monotonicity[metric], rising[metric] = {}, {}, {}, []
        for leak in leaks:
            ref_leak, ref_level = reference(leak)
            ref = risks(metric, ref_leak, ref_level)
            points, passed, xs, ys = [], [], [], []
            for level in levels[leak]:
                cell = by_cell.get((metric, leak, level), [])
                values = [r.risk for r in cell if r.risk is not None]
                excess = [r.risk - r.baseline for r in cell if r.risk is not None and r.baseline is not None]
                is_reference = (leak, level) == (ref_leak, ref_level)
                ok = not is_reference and separated(values, ref, margin)
                passed.append(ok)
                xs += [level] * len(values)
                ys += values
                risk, extra = _summary(values), _summary(excess)
                points.append(CurvePoint(
                    level=level, epsilon=None if epsilon is None else epsilon(leak, level), runs=len(values),
                    risk_mean=risk["mean"], risk_sd=risk["sd"], risk_min=risk["min"], risk_max=risk["max"],
                    excess_mean=extra["mean"], excess_min=extra["min"], excess_max=extra["max"],
                    auc=auc(values, ref), separated=ok))
            curves[metric][leak] = points
            detection[metric][leak] = detection_level(levels[leak], passed)
            if detection[metric][leak] is None and rises(values, ref, margin):  # values: the highest level's
                rising[metric].append(leak)
            monotonicity[metric][leak] = spearman(xs, ys)
    return {"curves": curves, "detection": detection, "monotonicity": monotonicity, "rising": rising,
            "agreement": agreement(runs, metrics, leaks)}


def agreement(runs: Iterable[LabRun], metrics: Sequence[str],
              leaks: Sequence[str]) -> dict[str, dict[str, float | None]]:
    """Spearman's ρ between every two metrics' risks over the runs of ``leaks`` where both ran."""
    table: dict[str, dict[tuple[str, float, int], float]] = defaultdict(dict)
    wanted = set(leaks)
    for r in runs:
        if r.leak in wanted and r.risk is not None:
            table[r.metric][(r.leak, r.level, r.seed)] = r.risk
    out: dict[str, dict[str, float | None]] = {}
    for a in metrics:
        out[a] = {}
        for b in metrics:
            common = sorted(set(table[a]) & set(table[b]))
            out[a][b] = spearman([table[a][k] for k in common], [table[b][k] for k in common])
    return out
