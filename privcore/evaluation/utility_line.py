"""The verdict's line on usefulness: what a synthetic table keeps and loses, relative to a fresh sample."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from privcore.metrics import ColumnShapes, ModelUtility, PairTrends, metric_name, registry

#: What each utility measure keeps, in words ("keeps the columns' shapes").
KEEPS_WORDS = {
    "utility_shapes": "the columns' shapes",
    "utility_pairs": "the relations between columns",
    "utility_mle": "what a model learns from it",
    "utility_discriminator": "rows that pass for real ones",
}


@dataclass(frozen=True)
class MeasureLine:
    """One utility measure in the line: its score relative to a fresh sample, and what it loses most."""

    metric: str
    name: str
    #: What the measure keeps, in words.
    what: str
    score: float
    #: Share of a fresh sample's score (None: no holdout to compare with).
    relative: float | None
    #: What it loses most, in words ("" when it keeps nearly all or gives no breakdown).
    worst: str = ""


@dataclass(frozen=True)
class UtilityLine:
    """What one synthetic table keeps and loses, relative to a fresh sample of real people."""

    measures: tuple[MeasureLine, ...]
    #: Mean over the measures of their relative score, each capped at 1 (None: no measure had a reference).
    relative: float | None
    keeps: tuple[str, ...]
    loses: tuple[str, ...]
    #: The table passes on privacy while a measure keeps less than ``keeps_little_below`` of a fresh sample's.
    keeps_little: bool
    #: The line in one or two plain sentences.
    text: str
    useful_at: float
    keeps_little_below: float

    def to_dict(self) -> dict[str, Any]:
        """The JSON of the line (``verdict.utility`` in the JSON report)."""
        out = asdict(self)
        out["measures"] = [{k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                            for k, v in asdict(m).items()} for m in self.measures]
        return out


def _percent(relative: float) -> str:
    return f"{min(relative, 9.99):.0%}"


def _worst(result) -> str:
    """What a measure loses most, from its details."""
    d = result.details
    if isinstance(d, PairTrends) and d.difference:
        i = int(np.argmax(d.difference))
        a, b = d.pairs[i]
        sign = "ρ" if d.measure[i] == "pearson" else "Cramér's V"
        return f"most of all the relation between {a} and {b} ({sign} {d.real[i]:.2f} real, {d.synthetic[i]:.2f} synthetic)"
    if isinstance(d, ColumnShapes) and d.tvd:
        i = int(np.argmax(d.tvd))
        return f"most of all the distribution of {d.columns[i]} (total variation distance {d.tvd[i]:.2f})"
    if isinstance(d, ModelUtility) and d.scores:
        s = min(d.scores, key=lambda s: s.ratio)
        return (f"most of all predicting {s.target} with {s.learner} ({s.score_name} {s.synthetic:.2f} trained on "
                f"synthetic, {s.real:.2f} on real)")
    return ""


def measure_lines(report) -> tuple[MeasureLine, ...]:
    """The utility measures of ``report`` that ran, in registry order, each read against its fresh sample."""
    lines = []
    for metric_id, result in report.items():
        try:
            info = registry.get(metric_id)
        except KeyError:  # a metric of a plug-in that is not registered here: not a utility measure
            continue
        if not registry.is_utility(info) or not result.applicable:
            continue
        utility = getattr(result, "utility", None)
        if utility is None or utility.score is None or not math.isfinite(utility.score):
            continue
        relative = utility.relative if utility.relative is not None and math.isfinite(utility.relative) else None
        lines.append(MeasureLine(metric_id, metric_name(metric_id), KEEPS_WORDS.get(metric_id, metric_name(metric_id)),
                                 float(utility.score), None if relative is None else float(relative),
                                 _worst(result)))
    return tuple(lines)


def utility_line(report, useful_at: float = 0.9, keeps_little_below: float = 0.5,
                 passes_privacy: bool = True) -> UtilityLine | None:
    """The verdict's utility line for one evaluation, or None when no utility measure ran.

    Parameters
    ----------
    report : privcore.evaluation.outcome.Report
        The evaluation (any metrics; only the utility family is read).
    useful_at : float
        A measure at or above this share of a fresh sample's score "keeps" what it measures.
    keeps_little_below : float
        A measure below this share raises the "private because it keeps little" flag (with ``passes_privacy``).
    passes_privacy : bool
        Whether the privacy answer lets the table go out (anything but "do not release").

    Notes
    -----
    The privacy answer (:mod:`privcore.evaluation.verdict`) says whether a table may leave the building; this line says
    whether it is worth releasing, from the utility measures that ran (metrics.md §6). Each measure is read by its score
    *relative to a fresh sample of real people* (the holdout in place of the synthetic table, at matched size; the model
    trained on the real table for the model utility): 1 = keeps what data about other real people keeps.

    - **Keeps**: the measures at or above ``useful_at`` (0.9 by default), in words ("the columns' shapes").
    - **Loses**: the measures below it, each with what it loses most (the pair whose relation changed most, the column
      whose shape moved most, the prediction that suffers most).
    - **Overall**: the mean of the measures' relative scores, each capped at 1 (a measure that keeps more than a fresh
      sample, which happens by chance, cannot make up for one that keeps less). The Privacy and utility view plots it.
    - **"Private because it keeps little"**: a table that passes on privacy (any answer but "do not release") while one
      of its measures keeps less than ``keeps_little_below`` (0.5 by default) of a fresh sample's. The weakest measure
      decides rather than the mean: a table that keeps every column's shape and no relation between columns is of
      little use to an analyst of relations, however well the shapes average. Its privacy may come from what it throws
      away, which a custodian should know before choosing it over a generator that keeps more.

    Without a holdout there is no fresh sample to compare with: the line gives the scores and raises no flag.

    Examples
    --------
    A table that keeps every column's shape and 3 % of the relations between them is flagged (see
    ``tests/evaluation/test_utility_line.py`` for a full evaluation).
    """
    measures = measure_lines(report)
    if not measures:
        return None
    compared = [m for m in measures if m.relative is not None]
    if not compared:
        scores = "; ".join(f"{m.name} {m.score:.3f}" for m in measures)
        return UtilityLine(measures, None, (), (), False, (
            f"Utility: {scores} (1 = as useful as the real table). Without a holdout there is no fresh sample of real "
            "people to compare with, so whether that is much or little cannot be said."), useful_at, keeps_little_below)
    relative = float(np.mean([min(1.0, m.relative) for m in compared]))
    keeps = tuple(f"{m.what} ({_percent(m.relative)})" for m in compared if m.relative >= useful_at)
    lost = sorted((m for m in compared if m.relative < useful_at), key=lambda m: m.relative)
    loses = tuple(f"{m.what} ({_percent(m.relative)}{'; ' + m.worst if m.worst else ''})" for m in lost)
    weakest = min(compared, key=lambda m: m.relative)
    keeps_little = passes_privacy and weakest.relative < keeps_little_below
    # Worded as what is kept, also below useful_at: "loses the relations between columns (89%)" read as if 89% were
    # lost, where 89% is the share kept.
    less = ["only " + f"{_percent(m.relative)} of {m.what}" + (f", losing {m.worst}" if m.worst else "") for m in lost]
    if keeps:
        kept = "keeps " + "; ".join(keeps) + ("" if not less else ", but " + "; and ".join(less))
    else:
        kept = "keeps " + "; and ".join(less)
    text = "Utility, as a share of what a fresh sample of real people keeps: " + kept + "."
    if keeps_little:
        text += (f" Private because it keeps little? Of {weakest.what} it keeps {_percent(weakest.relative)} of what a "
                 f"fresh sample keeps, below {keeps_little_below:.0%}: its privacy may come from what it throws away, "
                 "so compare it with a generator that keeps more before choosing it.")
    return UtilityLine(measures, relative, keeps, loses, keeps_little, text, useful_at, keeps_little_below)


def audit_utility_sentence(utility: dict[str, Any] | None) -> str:
    """The audit verdict's sentence on usefulness, from the audit summary's ``utility``; "" when it was not measured.

    ``utility`` is measured on one of the generator's outputs by :func:`privcore.audit.one_output.output_checks`.

    Examples
    --------
    >>> print(audit_utility_sentence({"relative": 0.52, "measures": {"utility_shapes": 1.0, "utility_pairs": 0.04}}))
     One of its outputs keeps 52% of what a fresh sample of real people keeps (the columns' shapes 100%, the relations between columns 4%).
    """
    if not utility or utility.get("relative") is None:
        return ""
    parts = ", ".join(f"{KEEPS_WORDS.get(m, m)} {v:.0%}" for m, v in (utility.get("measures") or {}).items()
                      if v is not None)
    return (f" One of its outputs keeps {utility['relative']:.0%} of what a fresh sample of real people keeps"
            f"{f' ({parts})' if parts else ''}.")
