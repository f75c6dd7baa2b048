"""Reading results for people: risk levels, the three questions, record flags.

What the dashboard and the exported report say about a :class:`privcore.Report`'s numbers, in one place so
that both say the same thing. This module imports no Streamlit and no Plotly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from privcore.base import OKABE_ITO
from privcore.metrics import (
    ColumnShapes,
    Discrimination,
    MembershipBattery,
    MembershipScores,
    ModelUtility,
    PairTrends,
    metric_name,
    registry,
    short_name,
)

__all__ = [
    "Level",
    "LEVELS",
    "LEVEL_BANDS",
    "DEFAULT_THRESHOLD",
    "THRESHOLD_REASON",
    "reference_level",
    "CANNOT_TELL_AT",
    "Assessment",
    "UTILITY_LEVELS",
    "UTILITY_BANDS",
    "utility_level",
    "table_useful",
    "what_it_loses",
    "Answer",
    "Check",
    "assess",
    "default_threshold",
    "person_at_risk",
    "dataset_shareable",
    "metric_applies",
    "flag_rule",
    "record_flags",
    "cannot_tell_metrics",
    "disagreements",
    "riskiest_record",
    "worked_computation",
    "nearest_records",
]


# --------------------------------------------------------------------------------------------------
# levels
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Level:
    """A verdict shown with a word, an icon and a colour (never colour alone)."""

    key: str
    word: str
    icon: str
    colour: str
    text_colour: str


_GREY = "#E4E4E4"  # neutral background for "not applicable" / "unknown"; not a data colour

LEVELS: dict[str, Level] = {
    "low": Level("low", "Low", "✓", OKABE_ITO["blue"], "#FFFFFF"),
    "moderate": Level("moderate", "Moderate", "⚠", OKABE_ITO["orange"], "#000000"),
    "high": Level("high", "High", "✖", OKABE_ITO["vermillion"], "#000000"),
    "na": Level("na", "Not applicable", "–", _GREY, "#000000"),
    "cannot_tell": Level("cannot_tell", "Cannot tell on this data", "?", _GREY, "#000000"),
}

#: Levels of a utility measure (metrics.md §6), read from its score relative to a fresh sample of real people.
UTILITY_LEVELS: dict[str, Level] = {
    "keeps": Level("keeps", "Keeps nearly all", "✓", OKABE_ITO["blue"], "#FFFFFF"),
    "part": Level("part", "Keeps part", "⚠", OKABE_ITO["orange"], "#000000"),
    "little": Level("little", "Keeps little", "✖", OKABE_ITO["vermillion"], "#000000"),
    "unknown": Level("unknown", "No fresh sample to compare with", "?", "#E4E4E4", "#000000"),
}

#: Utility relative to a fresh sample: below 0.5 → Keeps little, below 0.9 → Keeps part, else Keeps nearly all (what a fresh
#: sample keeps).
UTILITY_BANDS = (0.5, 0.9)


def utility_level(relative: float | None) -> Level:
    """The level of a utility score relative to its fresh-sample reference (:data:`UTILITY_BANDS`).

    Examples
    --------
    >>> utility_level(0.95).word, utility_level(0.7).word, utility_level(0.1).word
    ('Keeps nearly all', 'Keeps part', 'Keeps little')
    """
    if relative is None or not math.isfinite(relative):
        return UTILITY_LEVELS["unknown"]
    if relative < UTILITY_BANDS[0]:
        return UTILITY_LEVELS["little"]
    if relative < UTILITY_BANDS[1]:
        return UTILITY_LEVELS["part"]
    return UTILITY_LEVELS["keeps"]


#: A fresh-sample baseline at or above this risk is the maximum: the metric cannot tell a leak from none.
CANNOT_TELL_AT = 0.999

#: Risk above the reference: at most 0.05 → Low, at most 0.2 → Moderate, above → High.
LEVEL_BANDS = (0.05, 0.2)

#: Default "shareable" threshold on risk above the reference.
DEFAULT_THRESHOLD = 0.1

THRESHOLD_REASON = (
    "By default a table counts as shareable on a metric when its risk is at most 0.1 above the reference: an "
    "attacker does at most 10 percentage points better with the synthetic data than with data about other people "
    "from the same population (the holdout) or than chance. For SD-IDR and SD-MIA the default is the 0.09 the "
    "SynQP authors use. These are starting points for a discussion with your data-protection officer, not legal "
    "standards: lower them for sensitive data or wide releases."
)


def default_threshold(metric_id: str) -> float:
    """The default shareability threshold of a metric: its declared ``threshold``, else :data:`DEFAULT_THRESHOLD`.

    Examples
    --------
    >>> default_threshold("sd_idr"), default_threshold("crp")
    (0.09, 0.1)
    """
    info = info_of(metric_id)
    return DEFAULT_THRESHOLD if info is None or info.threshold is None else info.threshold


def reference_level(metric_id: str) -> float | None:
    """The risk a perfect generator gets on ``metric_id`` where it is not 0: its declared ``reference_level``, or None.

    This is for same-size tables with no holdout given.

    Examples
    --------
    >>> reference_level("dmlp"), reference_level("crp")
    (0.5, None)
    """
    info = info_of(metric_id)
    return None if info is None else info.reference_level


def level_of(adjusted: float | None) -> Level:
    """The level of a risk already measured against its reference."""
    if adjusted is None or not math.isfinite(adjusted):
        return LEVELS["na"]
    if adjusted <= LEVEL_BANDS[0]:
        return LEVELS["low"]
    if adjusted <= LEVEL_BANDS[1]:
        return LEVELS["moderate"]
    return LEVELS["high"]


@dataclass(frozen=True)
class Assessment:
    """One metric on one synthetic table, read against its reference."""

    metric_id: str
    name: str
    family: str
    applicable: bool
    risk: float | None
    reference: float
    reference_label: str
    adjusted: float | None
    level: Level
    baseline: float | None
    excess: float | None
    interval: tuple[float, float] | None
    reason: str | None
    warnings: tuple[str, ...] = ()
    #: Why the metric cannot tell on this data (its fresh sample scores the maximum too), else None.
    cannot_tell: str | None = None
    #: The score and its baseline compared between like-sized tables (``size_match`` of the result), else None.
    size_match: Any = None
    #: A utility measure's score, fresh-sample reference and ratio (:class:`privcore.metrics.results.UtilityScore`);
    #: None for a privacy metric. A utility measure has no risk: ``risk``, ``adjusted`` and ``excess`` are None.
    utility: Any = None
    #: A membership attack's ROC AUC, its 95 % interval (or None) and whether it was counted on records the attack
    #: was not chosen on (``mia_best``); None for every other metric. The cards lead with it: one number per
    #: attack, the one the answer quotes.
    auc: tuple[float, tuple[float, float] | None, bool] | None = None

    @property
    def is_utility(self) -> bool:
        """Whether this is a utility measure (read ``utility``, higher is better) rather than a risk."""
        return self.family == registry.UTILITY_FAMILY

    @property
    def excess_interval(self) -> tuple[float, float] | None:
        """95 % interval of the excess for a fresh sample of real people (size-matched metrics), else None."""
        return None if self.size_match is None else self.size_match.interval

    @property
    def excess_text(self) -> str:
        """The excess over the reference as the cards lead with it: "+0.012".

        For a utility measure, its score relative to a fresh sample: "96 %" (its score where there is no fresh sample).
        """
        if self.utility is not None:
            if self.utility.relative is None:
                return f"{self.utility.score:.3f}"
            return f"{self.utility.relative:.0%}"
        if self.auc is not None:
            return f"AUC {self.auc[0]:.2f}"
        return "—" if self.adjusted is None else f"{self.adjusted:+.3f}"

    @property
    def against(self) -> str:
        """What the excess is measured against, in words: "above a fresh sample (0.842)"."""
        if self.utility is not None:
            if self.utility.relative is None:
                return "utility (1 = as useful as the real table; no holdout, so no fresh sample to compare with)"
            return (f"of what {self.utility.reference_label} keeps (utility {self.utility.score:.3f} against "
                    f"{self.utility.reference:.3f})")
        if self.auc is not None:
            auc, interval, held_out = self.auc
            where = ", on records the attack was not chosen on" if held_out else ""
            shown = "" if interval is None else f"; 95 % interval {interval[0]:.2f}–{interval[1]:.2f}"
            return f"at telling members from non-members (0.5 = a coin flip, 1 = tells every member{shown}{where})"
        if self.size_match is not None and self.size_match.method == "permutation":
            return f"above its two groups relabelled at random ({self.reference:.3f})"
        if self.size_match is not None and self.size_match.method == "split":
            return (f"above half of the real table against the other half ({self.reference:.3f} at "
                    f"{self.size_match.matched_rows:,} rows; no holdout)")
        if self.size_match is not None and self.size_match.subsampled is not None:
            return (f"above a fresh sample of real people of the same size ({self.reference:.3f} at "
                    f"{self.size_match.matched_rows:,} rows)")
        if self.baseline is not None:
            return f"above a fresh sample of real people ({self.reference:.3f})"
        if self.reference:
            return f"above its chance level ({self.reference:g})"
        if self.reference_label.startswith("zero (no holdout"):
            return "above zero (no holdout, so no fresh sample to compare with)"
        if self.metric_id in HOLDOUT_CONTROLLED:
            return "beyond the holdout's rate (people the generator never saw), as a share of what is left above it"
        return "above zero: the risk itself (this metric has no fresh-sample baseline)"


#: Metrics whose risk is already measured against the holdout inside the metric (a control, as Anonymeter's).
HOLDOUT_CONTROLLED = frozenset({"reproduced_identifiers"})


def info_of(metric_id: str):
    try:
        return registry.get(metric_id)
    except KeyError:
        return None


def assess(metric_id: str, result) -> Assessment:
    """Read ``result`` (a :class:`privcore.metrics.results.MetricResult`) against its reference.

    The reference is the fresh-sample baseline when one was computed, otherwise the metric's chance level
    (:func:`reference_level`), otherwise 0.
    """
    info = info_of(metric_id)
    name = info.name if info else metric_id
    family = info.family if info else "Other"
    if family == registry.UTILITY_FAMILY:
        return _assess_utility(metric_id, name, family, result)
    if not result.applicable or result.risk is None:
        return Assessment(metric_id, name, family, False, None, 0.0, "", None, LEVELS["na"], None, None, None,
                          result.reason, tuple(result.warnings))
    match = getattr(result, "size_match", None)
    if match is not None and match.too_small:
        return Assessment(metric_id, name, family, True, float(result.risk), float(match.baseline),
                          "fresh-sample baseline (holdout in place of the synthetic data)", None, LEVELS["cannot_tell"],
                          result.baseline, None, None, None, tuple(result.warnings), match.too_small, match)
    if match is not None:
        # Compared between like-sized tables: the reference is the holdout's score at the matched size, and the
        # excess the synthetic table's at that size above it (privcore.evaluation.size_match).
        reference = float(match.baseline)
        smaller = "holdout" if match.subsampled == "synthetic" else "synthetic table"
        label = ("fresh-sample baseline (holdout in place of the synthetic data)" if match.subsampled is None else
                 f"fresh-sample baseline at {match.matched_rows:,} rows (the {smaller}'s size)")
        if match.method == "permutation":  # a members-against-non-members test: its groups relabelled at random
            label = "the test with its two groups relabelled at random (what chance gives)"
        elif match.method == "split":  # no holdout: half of the real table against the other half
            label = "half of the real table against the other half (no holdout)"
    elif result.baseline is not None and math.isfinite(result.baseline):
        reference, label = float(result.baseline), "fresh-sample baseline (holdout in place of the synthetic data)"
    elif info is not None and info.reference_level is not None:
        reference, label = info.reference_level, "chance level of a perfect generator"
    else:
        reference, label = 0.0, "zero (no holdout given, so no fresh-sample baseline)" if (
            info is None or info.baseline) else "zero"
    adjusted = float(result.risk) - reference if match is None else float(match.excess)
    cannot_tell = None
    level = level_of(adjusted)
    fresh = reference if match is not None else result.baseline
    if fresh is not None and math.isfinite(fresh) and fresh >= CANNOT_TELL_AT:
        cannot_tell = (f"a fresh sample of real people scores {fresh:.3f} too, the largest risk there is, so "
                       f"{short_name(metric_id)} cannot tell a leak from no leak on this data: its risk of "
                       f"{float(result.risk):.3f} says nothing about the generator.")
        level = LEVELS["cannot_tell"]
    return Assessment(
        metric_id, name, family, True, float(result.risk), reference, label, adjusted, level,
        result.baseline, result.excess, None if result.interval is None else tuple(result.interval), None,
        tuple(result.warnings), cannot_tell, match, auc=_auc(result.details),
    )


def _auc(details) -> tuple[float, tuple[float, float] | None, bool] | None:
    """A membership attack's AUC, its interval and whether it was counted held out (:attr:`Assessment.auc`)."""
    if isinstance(details, MembershipBattery):
        interval = details.held_out_auc_interval
        return float(details.held_out_auc), None if interval is None else tuple(map(float, interval)), True
    if isinstance(details, MembershipScores):
        interval = details.auc_interval
        return float(details.auc), None if interval is None else tuple(map(float, interval)), False
    return None


def _assess_utility(metric_id: str, name: str, family: str, result) -> Assessment:
    """A utility measure: no risk; its score relative to a fresh sample of real people, with a utility level."""
    utility = getattr(result, "utility", None)
    if not result.applicable or utility is None:
        return Assessment(metric_id, name, family, False, None, 0.0, "", None, LEVELS["na"], None, None, None,
                          result.reason, tuple(result.warnings))
    reference = 0.0 if utility.reference is None else float(utility.reference)
    return Assessment(metric_id, name, family, True, None, reference, utility.reference_label, None,
                      utility_level(utility.relative), None, None, None, None, tuple(result.warnings), None, None,
                      utility)


def table_useful(metric_id: str, result) -> Answer:
    """"Is the table useful?" by a utility measure: its score relative to a fresh sample (:data:`UTILITY_BANDS`)."""
    a = assess(metric_id, result)
    if not a.applicable:
        return _answer("none", "Cannot say", f"{a.name} could not be computed here: {a.reason or 'no reason given'}")
    u = a.utility
    if u.relative is None:
        return _answer("none", "No reference", f"{u.describe()} Upload a holdout to compare with what a fresh sample "
                       "of real people keeps.")
    low, high = UTILITY_BANDS
    if u.relative >= high:
        return _answer("good", "Useful by this measure", f"{u.describe()} That is at least {high:.0%} of a fresh "
                       "sample's: as useful as data about other real people.")
    if u.relative >= low:
        return _answer("caveat", "Partly useful", f"{u.describe()} Between {low:.0%} and {high:.0%} of a fresh "
                       "sample's: check that what it loses (below) is not what you need.")
    return _answer("bad", "Keeps little", f"{u.describe()} Below {low:.0%} of a fresh sample's: analyses of this kind "
                   "on the synthetic table would mislead.")


def what_it_loses(report, metric_id: str, most: int = 3) -> Answer:
    """"What does it lose most?" by a utility measure: the columns, pairs or targets furthest from the real table.

    The utility counterpart of "is this person at risk?".
    """
    result = report[metric_id]
    name = metric_name(metric_id)
    if not result.applicable or result.details is None:
        return _answer("none", "Cannot say", f"{name} is not applicable here.")
    d = result.details
    if isinstance(d, ColumnShapes):
        order = np.argsort(d.tvd)[::-1][:most]
        items = [f"{d.columns[i]} (1 − TVD {1 - d.tvd[i]:.3f})" for i in order]
        worst = d.tvd[order[0]] if len(order) else 0.0
        text = "Columns furthest from the real table: " + ", ".join(items) + "."
    elif isinstance(d, PairTrends):
        order = np.argsort(d.difference)[::-1][:most]
        items = [f"{' × '.join(d.pairs[i])} ({'ρ' if d.measure[i] == 'pearson' else 'V'} {d.real[i]:.2f} real, "
                 f"{d.synthetic[i]:.2f} synthetic)" for i in order]
        worst = d.difference[order[0]] if len(order) else 0.0
        text = "Pairs whose relation changed most: " + ", ".join(items) + "."
    elif isinstance(d, ModelUtility):
        ranked = sorted(d.scores, key=lambda s: s.ratio)[:most]
        items = [f"{s.target} with {s.learner} ({s.score_name} {s.synthetic:.3f} trained on synthetic, {s.real:.3f} "
                 f"on real)" for s in ranked]
        worst = 1.0 - min(1.0, ranked[0].ratio) if ranked else 0.0
        text = "Predictions that suffer most: " + ", ".join(items) + "."
    elif isinstance(d, Discrimination):
        worst = max(0.0, 2 * d.auc - 1)
        text = (f"A classifier tells synthetic rows from real ones with AUC {d.auc:.3f} (0.5 = not at all); the column "
                "shapes and pair trends show where they differ.")
    else:
        return _answer("none", "No breakdown", f"{name} gives no breakdown.")
    kind = "good" if worst <= 0.05 else "caveat" if worst <= 0.2 else "bad"
    word = {"good": "Loses little", "caveat": "Loses some", "bad": "Loses much"}[kind]
    return _answer(kind, word, text)


# --------------------------------------------------------------------------------------------------
# the three questions
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Answer:
    """An answer to one of the three questions, with word + icon + colour and an explanation."""

    verdict: str  # "yes", "no", "caveats", "unknown"
    word: str
    icon: str
    colour: str
    text_colour: str
    text: str
    checks: tuple["Check", ...] = ()


@dataclass(frozen=True)
class Check:
    """One assumption checked against the data: status ``ok``, ``warn`` or ``fail``."""

    status: str
    text: str


def _answer(kind: str, word: str, text: str, checks=()) -> Answer:
    style = {"good": LEVELS["low"], "caveat": LEVELS["moderate"], "bad": LEVELS["high"], "none": LEVELS["na"]}[kind]
    verdict = {"good": "yes", "caveat": "caveats", "bad": "no", "none": "unknown"}[kind]
    return Answer(verdict, word, style.icon, style.colour, style.text_colour, text, tuple(checks))


def dataset_shareable(metric_id: str, result, threshold: float | None = None) -> Answer:
    """Is the table shareable by this metric: risk above the reference against ``threshold``."""
    threshold = default_threshold(metric_id) if threshold is None else float(threshold)
    a = assess(metric_id, result)
    if a.is_utility:  # a utility measure: is the table useful, not is it private
        return table_useful(metric_id, result)
    if not a.applicable:
        return _answer("none", "Cannot say", f"{a.name} could not be computed here: {a.reason or 'no reason given'}")
    if a.cannot_tell:
        return _answer("none", "Cannot tell", f"{a.name} cannot say: {a.cannot_tell}")
    base = f"risk {a.risk:.3f} against the {a.reference_label} {a.reference:.3f}: {a.adjusted:+.3f}"
    if a.adjusted > threshold:
        return _answer("bad", "Not shareable", f"{base}, above your threshold of {threshold:g}.")
    upper = None if a.interval is None else a.interval[1] - a.reference
    if upper is not None and upper > threshold:
        return _answer("caveat", "Uncertain", f"{base}, within your threshold of {threshold:g}, but the upper end of "
                       f"the 95% interval ({a.interval[1]:.3f}) is not.")
    return _answer("good", "Shareable by this metric", f"{base}, within your threshold of {threshold:g}. Other "
                   "metrics may still disagree.")


@dataclass(frozen=True)
class FlagRule:
    """When a per-record value counts as "flagged".

    A value is flagged when it reaches ``cutoff`` (exceeds it when ``strict``) and, when ``baseline``
    holds the same records' values with a fresh sample in place of the synthetic data, is also higher
    than that: the synthetic data must put the person at more risk than data about other people would.
    """

    cutoff: float
    strict: bool
    text: str
    baseline: np.ndarray | None = field(default=None, repr=False, compare=False)

    def apply(self, values: np.ndarray) -> np.ndarray:
        """Boolean flags for every record; NaN values (not measured) stay False."""
        values = np.asarray(values, dtype=float)
        with np.errstate(invalid="ignore"):
            flagged = (values > self.cutoff) if self.strict else (values >= self.cutoff)
            if self.baseline is not None and len(self.baseline) == len(values):
                base = np.nan_to_num(np.asarray(self.baseline, dtype=float), nan=-np.inf)
                flagged &= values > base + 1e-12
        return flagged


def flag_rule(result) -> FlagRule | None:
    """How a metric's per-record values turn into "this record is flagged".

    Membership-inference metrics (per-record attack scores) flag a member scored above the 99th
    percentile of the non-members' scores: the attacker could accuse them while rarely being wrong.
    Indicator metrics flag a value of 1 (the person's own fresh-sample value is reported alongside, not
    used: an exact copy must stay flagged even where a fresh sample happens to flag too). Continuous
    per-record risks are flagged from the 95th percentile of the baseline values (at least 0.5) when
    they also exceed the person's own baseline value; without a baseline, from 0.8.
    """
    if result.per_record is None or not result.applicable:
        return None
    values = np.asarray(result.per_record, dtype=float)
    finite = values[np.isfinite(values)]
    if len(finite) == 0:
        return None
    if isinstance(result.details, MembershipScores):
        non = np.asarray(result.details.nonmember_scores, dtype=float)
        non = non[np.isfinite(non)]
        if len(non):
            cutoff = float(np.quantile(non, 0.99))
            return FlagRule(cutoff, True, "flagged when the attack scores this person above the level only 1% of "
                            "non-members (holdout) exceed, so the attacker could accuse them while rarely being wrong")
    if result.per_record_unit == "synthetic":
        return FlagRule(0.8, False, "flagged when that synthetic record's risk is at least 0.8")
    indicator = bool(np.all(np.isin(finite, (0.0, 1.0))))
    base = getattr(result.baseline_output, "per_record", None)
    if indicator:
        return FlagRule(0.5, False, "flagged when its per-record value is 1")
    if base is not None and len(base) == len(values):
        base = np.asarray(base, dtype=float)
        finite_base = base[np.isfinite(base)]
        cutoff = max(0.5, float(np.quantile(finite_base, 0.95))) if len(finite_base) else 0.5
        return FlagRule(cutoff, False, f"flagged when its per-record risk is at least {cutoff:.3f} (a level only 5% of "
                        "people reach with a fresh sample of other real people in place of the synthetic data) and "
                        "higher than this person's own value with that fresh sample", base)
    return FlagRule(0.8, False, "flagged when its per-record risk is at least 0.8 (no holdout to compare with)")


def _record_value(report, metric_id: str, row: int) -> tuple[float | None, str]:
    """The per-record value of ``metric_id`` for real record ``row`` and how it was obtained."""
    result = report[metric_id]
    pr = result.per_record
    if pr is None:
        return None, "gives no per-record value"
    pr = np.asarray(pr, dtype=float)
    if result.per_record_unit == "synthetic":
        space = registry.get(metric_id).space or "phi"
        shared = getattr(report, "shared", None)
        if shared is None or len(pr) != len(report.data.synthetic):
            return None, "is measured per synthetic record"
        nb = shared.neighbours(space, "synthetic", "real")
        mine = np.flatnonzero(nb.i1 == row)
        if len(mine) == 0:
            return 0.0, "no synthetic record has this person as its nearest real record"
        return float(np.nanmax(pr[mine])), (f"the riskiest of the {len(mine)} synthetic record(s) whose nearest "
                                            "real record is this person")
    if row >= len(pr):
        return None, "has no value for this record"
    value = pr[row]
    if not math.isfinite(value):
        return None, "did not measure this record (it was not among the records attacked or tested)"
    return float(value), "per-record value"


def person_at_risk(report, metric_id: str, row: int) -> Answer:
    """"Is this person at risk?" for real record ``row`` by ``metric_id``, from the metric's own per-record values."""
    result = report[metric_id]
    name = metric_name(metric_id)
    if not result.applicable:
        return _answer("none", "Cannot say", f"{name} is not applicable here.")
    cannot_tell = assess(metric_id, result).cannot_tell
    if cannot_tell:
        return _answer("none", "Cannot tell", f"{name} flags people no more than a fresh sample does: {cannot_tell}")
    value, how = _record_value(report, metric_id, row)
    if value is None:
        return _answer("none", "No per-person answer", f"{name} {how}.")
    rule = flag_rule(result)
    if rule is None:
        return _answer("none", "No per-person answer", f"{name} gives no per-record values.")
    flagged = bool(rule.apply(np.array([value]))[0]) if result.per_record_unit == "synthetic" \
        else bool(rule.apply(np.asarray(result.per_record, dtype=float))[row])
    text = f"{how}: {value:.3f}"
    base = getattr(result.baseline_output, "per_record", None)
    if base is not None and result.per_record_unit != "synthetic" and row < len(base):
        text += f" (with a fresh sample of other people instead: {float(base[row]):.3f})"
    text += f"; {rule.text}."
    reason = _reason(result, row)
    if reason:
        text += f" What gave the score: {reason}"
    return _answer("bad", "At risk", text) if flagged else _answer("good", "Not flagged", text)


def _reason(result, row: int) -> str | None:
    """The metric's own sentence on what in real record ``row`` gave it its score, or None when the metric gives none.

    For example, the value-reuse attack names the reused value that weighed most.
    """
    reasons = getattr(result.details, "reasons", None) if result.details is not None else None
    if reasons is None or result.per_record_unit != "real" or row >= len(reasons):
        return None
    return str(reasons[row]) or None


def metric_applies(report, metric_id: str) -> Answer:
    """Does this metric apply here? Its assumptions checked against the data, as a list of checks."""
    result = report[metric_id]
    info = info_of(metric_id)
    name = info.name if info else metric_id
    checks: list[Check] = []
    if not result.applicable:
        checks.append(Check("fail", f"Not computed: {result.reason or 'no reason given'}"))
        return _answer("bad", "Does not apply", f"{name} cannot run on this data.", checks)
    data = report.data
    schema = data.schema if data is not None else None
    n_real = report.rows.get("real") or 0
    n_syn = report.rows.get("synthetic") or 0
    n_hold = report.rows.get("holdout")
    # data size
    if min(n_real, n_syn) < 100:
        checks.append(Check("warn", f"Few rows ({n_real:,} real, {n_syn:,} synthetic): the score can change a lot from "
                                    "one sample to the next."))
    else:
        checks.append(Check("ok", f"{n_real:,} real and {n_syn:,} synthetic rows: enough for a stable score."))
    # exact-match metrics on continuous columns
    assumption = info.assumption if info else ""
    if assumption.startswith("exact match") and schema is not None:
        cols = schema.columns if assumption == "exact match on every column" else schema.key_columns
        continuous = {c: int(data.real[c].nunique()) for c in cols if schema.types.get(c) == "numerical"
                      and data.real[c].nunique() > 20}
        if continuous:
            listed = ", ".join(f"{c} ({k} distinct values)" for c, k in continuous.items())
            checks.append(Check("warn", f"Exact matching on numerical column(s) with many values: {listed}. Exact "
                                        "copies are rare even for a leaky generator, so a low score proves little; "
                                        "HitR and the distance metrics allow a tolerance."))
        else:
            checks.append(Check("ok", "No continuous column enters the exact matching."))
    # pairing for HidR
    if metric_id == "hidr" and data is not None and data.pair_index is not None:
        missing = int(np.sum(np.asarray(data.pair_index) < 0))
        if missing:
            checks.append(Check("warn", f"{missing:,} synthetic rows have no real twin in the pairing."))
        else:
            checks.append(Check("ok", "Every synthetic row is paired with its real twin."))
    # dimensionality
    if assumption == "distance" and getattr(report, "shared", None) is not None:
        try:
            dim = report.shared.space("E").dim
        except Exception:  # pragma: no cover - a space that cannot be built is reported by the metric itself
            dim = None
        if dim is not None:
            if dim > 50 or dim > n_real / 10:
                checks.append(Check("warn", f"The encoded space has {dim} dimensions for {n_real:,} records: in high "
                                            "dimensions nearest and farthest distances become alike."))
            else:
                checks.append(Check("ok", f"The encoded space has {dim} dimensions: distances are informative."))
    if assumption == "projection" and getattr(report, "shared", None) is not None:
        phi = report.shared.space("phi")
        share = float(phi.explained_inertia)
        status = "warn" if share < 0.5 else "ok"
        checks.append(Check(status, f"The {phi.n_components}-axis FAMD projection keeps {share:.0%} of the variation"
                            + ("; records can look close on the kept axes and differ on the others." if status == "warn"
                               else ".")))
    # sensitive column dominated by one value
    needs = info.needs if info else frozenset()
    if ("sensitive" in needs or "categorical_sensitive" in needs) and schema is not None and schema.sensitive:
        col = data.real[schema.sensitive]
        if schema.types.get(schema.sensitive) != "numerical":
            top = float(col.value_counts(normalize=True).iloc[0])
            if top > 0.9:
                checks.append(Check("warn", f"{top:.0%} of real people share the most common '{schema.sensitive}' value: "
                                            "guessing it is right most of the time anyway; compare with the baseline."))
            else:
                checks.append(Check("ok", f"The most common '{schema.sensitive}' value covers {top:.0%} of people."))
    # a baseline to compare with
    if info is not None and info.baseline and family_needs_baseline(info):
        if n_hold is None:
            checks.append(Check("warn", "No holdout: the score cannot be compared with what a fresh sample of other "
                                        "people would get."))
        elif result.baseline is not None and result.risk is not None and result.baseline >= result.risk - 1e-12:
            checks.append(Check("warn", "A fresh sample scores as high as the synthetic data: this metric says nothing "
                                        "about the generator on this data."))
        else:
            checks.append(Check("ok", "Compared with a fresh sample of real people (the holdout)."))
    if info is not None and registry.is_utility(info):
        utility = getattr(result, "utility", None)
        if utility is None or utility.relative is None:
            checks.append(Check("warn", "No fresh sample to compare with (no holdout): the score alone cannot say how "
                                        "much of it is chance."))
        else:
            checks.append(Check("ok", f"Compared with {utility.reference_label}."))
    if "holdout" in needs and n_hold is not None and n_real and n_hold < 0.5 * n_real:
        checks.append(Check("warn", f"The holdout ({n_hold:,} rows) is much smaller than the real table ({n_real:,}): "
                                    "the comparison is less reliable."))
    if info is not None and info.family == "Attack-based":
        if result.interval is not None and result.interval[1] - result.interval[0] > 0.2:
            checks.append(Check("warn", f"Wide 95% interval ({result.interval[0]:.2f} to {result.interval[1]:.2f}): too "
                                        "few attacks to pin the risk down; more rows or attacks would narrow it."))
        if n_hold is None:
            checks.append(Check("warn", "No holdout: without the control attack the risk is the main attack's success "
                                        "rate, which includes what any data about similar people would reveal."))
        else:
            checks.append(Check("ok", "Measured against the control attack on the holdout (residual risk)."))
    if info is not None and info.uses_classifier and n_real < 500:
        checks.append(Check("warn", "A classifier trained on fewer than 500 real rows gives a noisy score."))
    worst = "fail" if any(c.status == "fail" for c in checks) else "warn" if any(c.status == "warn" for c in checks) \
        else "ok"
    if worst == "ok":
        return _answer("good", "Applies", f"{name}'s assumptions hold on this data.", checks)
    return _answer("caveat", "Applies with caveats", f"Read {name} with the caveats below.", checks)


def family_needs_baseline(info) -> bool:
    """Metrics of the review (§1–2) are calibrated against the holdout (metrics.md §5)."""
    return info.family in ("Simulation-based", "Distance-based", "Classifier-based")


# --------------------------------------------------------------------------------------------------
# which records are flagged by which metrics
# --------------------------------------------------------------------------------------------------
def record_flags(report, metric_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """Real records × metrics: True where the metric flags the record (real-unit metrics only).

    Columns are the metrics' short names (:func:`privcore.report.figures.short_name`).

    Metrics without per-record values on real records are left out, and so are those that cannot tell on
    this data (their fresh sample scores the maximum: they would flag everyone, a fresh sample as much;
    :func:`cannot_tell_metrics` names them); values a metric did not measure are False.
    """
    n = len(report.data.real) if report.data is not None else report.rows.get("real", 0)
    cols = {}
    for mid in metric_ids if metric_ids is not None else list(report):
        if mid not in report:
            continue
        res = report[mid]
        if not res.applicable or res.per_record is None or res.per_record_unit != "real":
            continue
        pr = np.asarray(res.per_record, dtype=float)
        if len(pr) != n:
            continue
        rule = flag_rule(res)
        if rule is None or assess(mid, res).cannot_tell:
            continue
        cols[short_name(mid)] = rule.apply(pr)
    return pd.DataFrame(cols, index=pd.RangeIndex(n, name="real row"))


def cannot_tell_metrics(report) -> dict[str, str]:
    """Metric id → why it cannot tell on this data, for each metric of ``report`` whose fresh sample scores the maximum.

    These are left out of :func:`record_flags`.
    """
    out = {}
    for mid in report:
        a = assess(mid, report[mid])
        if a.applicable and a.cannot_tell:
            out[mid] = a.cannot_tell
    return out


def disagreements(flags: pd.DataFrame, *, max_rows: int = 10) -> pd.DataFrame:
    """Patterns of records flagged by some metrics and not others, with counts and example rows."""
    if flags.shape[1] < 2:
        return pd.DataFrame(columns=["flagged by", "not flagged by", "records", "example rows"])
    some = flags.any(axis=1) & ~flags.all(axis=1)
    sub = flags[some]
    if sub.empty:
        return pd.DataFrame(columns=["flagged by", "not flagged by", "records", "example rows"])
    names = np.array(flags.columns)
    keys = sub.apply(lambda r: tuple(bool(x) for x in r), axis=1)
    rows = []
    for pattern, idx in sub.groupby(keys).groups.items():
        mask = np.array(pattern)
        rows.append({
            "flagged by": ", ".join(names[mask]),
            "not flagged by": ", ".join(names[~mask]),
            "records": len(idx),
            "example rows": ", ".join(str(i) for i in list(idx)[:max_rows]),
        })
    return pd.DataFrame(rows).sort_values("records", ascending=False, kind="stable").reset_index(drop=True)


def riskiest_record(report, metric_ids: Sequence[str] | None = None) -> int:
    """The real record flagged by the most metrics (ties: highest mean per-record risk, then lowest row)."""
    flags = record_flags(report, metric_ids)
    n = len(flags)
    if n == 0:
        return 0
    count = flags.sum(axis=1).to_numpy(dtype=float) if flags.shape[1] else np.zeros(n)
    risks = []
    for mid in metric_ids if metric_ids is not None else list(report):
        if mid in report:
            res = report[mid]
            if res.applicable and res.per_record is not None and res.per_record_unit == "real" \
                    and len(res.per_record) == n:
                risks.append(np.nan_to_num(np.asarray(res.per_record, dtype=float), nan=0.0))
    mean = np.mean(risks, axis=0) if risks else np.zeros(n)
    order = np.lexsort((np.arange(n), -mean, -count))
    return int(order[0])


def nearest_records(report, row: int, space: str = "E") -> pd.DataFrame:
    """Real record ``row`` next to its nearest synthetic and nearest other real records in ``space``.

    Read from the report's shared neighbour passes (the same ones the distance metrics used; computed
    once on first use otherwise). Columns: the person, then each neighbour labelled with its row and
    distance; rows: the analysed attributes.

    Raises
    ------
    NotApplicable
        When ``space`` cannot be built for these tables (the message says why).
    """
    data = report.data
    nb_syn = report.shared.neighbours(space, "real", "synthetic")
    nb_real = report.shared.neighbours(space, "real", "real")
    cols = {f"real row {row} (this person)": data.real.iloc[row]}
    for k in range(2):
        j = int(nb_syn.index[row, k])
        if j >= 0:
            cols[f"synthetic row {j} (distance {nb_syn.distance[row, k]:.4g})"] = data.synthetic.iloc[j]
    j = int(nb_real.index[row, 0])
    if j >= 0:
        cols[f"nearest other real row {j} (distance {nb_real.distance[row, 0]:.4g})"] = data.real.iloc[j]
    return pd.DataFrame(cols).astype(str)


def distance_breakdown(report, row: int, space: str = "E", neighbours: int = 2) -> pd.DataFrame:
    """What the distance from real record ``row`` to its nearest synthetic records is made of, column by column.

    Every analysed column of ``space`` (``"E"`` or ``"E_idscore"``: min–max scaled numbers, one-hot
    categories) gets a row with the person's value and, for each of the ``neighbours`` nearest synthetic
    records, its value and the column's share of the squared distance: (difference / range)² for a number,
    2 for a different category (two one-hot coordinates differ by 1), 1 for a different binary value, 0 when
    equal. The last row is the distance itself, the square root of the sum, read from the same neighbour
    pass as :func:`nearest_records` (so a lesson shows the very numbers the metrics used). Columns constant in
    the real table are left out of the space and say so.

    Raises
    ------
    NotApplicable
        When ``space`` cannot be built for these tables.
    """
    data = report.data
    fitted = report.shared.space(space)
    nb_syn = report.shared.neighbours(space, "real", "synthetic")
    person = report.shared.encoded(space, "real")[row]
    synthetic = report.shared.encoded(space, "synthetic")
    out = {"this person": [str(data.real.iloc[row][b.column]) for b in fitted.blocks] + [""]}
    for k in range(min(neighbours, nb_syn.index.shape[1])):
        j = int(nb_syn.index[row, k])
        if j < 0:
            continue
        gaps = [float(np.sum((person[b.start:b.stop] - synthetic[j, b.start:b.stop]) ** 2)) for b in fitted.blocks]
        label = f"synthetic row {j}"
        out[label] = [str(data.synthetic.iloc[j][b.column]) for b in fitted.blocks] + [f"{nb_syn.distance[row, k]:.4g}"]
        out[f"{label}: adds to d²"] = [f"{g:.3g}" for g in gaps] + [f"d = √{sum(gaps):.4g} = {math.sqrt(sum(gaps)):.4g}"]
    index = [b.column for b in fitted.blocks] + ["distance d"]
    frame = pd.DataFrame(out, index=index)
    for column in getattr(fitted, "dropped_constant", []):
        frame.loc[column] = [str(data.real.iloc[row][column])] + ["(same for everyone: not part of d)"] * (
            frame.shape[1] - 1)
    order = [c for c in data.real.columns if c in frame.index] + ["distance d"]
    return frame.loc[order]


def worked_computation(report, metric_id: str, row: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The numbers behind ``metric_id``'s value for real record ``row``, from the metric's own output.

    Returns
    -------
    per_record : DataFrame
        Every per-record quantity the metric computed (its ``per_record`` value and each per-real-record
        array in ``details``: distances, pool sizes, hits...) at ``row``.
    constants : DataFrame
        The scalar quantities of the same computation (thresholds, d_min, d_max, medians...).
    """
    result = report[metric_id]
    n = report.rows.get("real") or 0
    items: list[tuple[str, str]] = []
    constants: list[tuple[str, str]] = []
    if result.per_record is not None and result.per_record_unit == "real" and len(result.per_record) == n:
        items.append(("per-record value (feeds the score)", _plain(result.per_record[row])))
    details = result.details
    per_person = set() if details is None else set(details.record_fields("real"))
    for key, value in ([] if details is None else details.items()):
        if key in per_person and isinstance(value, np.ndarray) and value.ndim >= 1 and len(value) == n:
            items.append((key.replace("_", " "), _plain(value[row])))
        elif isinstance(value, (int, float, np.integer, np.floating, bool, np.bool_, str)):
            constants.append((key.replace("_", " "), _plain(value)))
        elif isinstance(value, dict) and value and all(
                isinstance(v, (int, float, np.integer, np.floating)) for v in value.values()):
            constants += [(f"{key.replace('_', ' ')} {k}", _plain(v)) for k, v in value.items()]
    for key, value in (result.params or {}).items():
        if isinstance(value, (int, float, np.integer, np.floating, str)) and not isinstance(value, bool):
            constants.append((f"parameter {key}", _plain(value)))
    if result.risk is not None:
        constants.append(("score (risk)", _plain(result.risk)))
    return (pd.DataFrame(items, columns=["quantity", "value for this record"]),
            pd.DataFrame(constants, columns=["quantity", "value"]))


def _plain(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.4g}" if math.isfinite(float(value)) else str(float(value))
    if isinstance(value, np.ndarray):
        return ", ".join(_plain(v) for v in value.ravel()[:6])
    return str(value)
