"""One plain-language sentence per metric: which leaks it notices, from which level, and which it misses.

Example: "DCR notices partial copies from 25 % and noisy copies already at level 0 (noise of one σ); it
never notices the rare-record leak up to 100 %; the negative control (per-column resampling) leaves it
quiet."
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence

from privcore.generators import level_to_epsilon

__all__ = ["LEAK_PHRASES", "LEAK_LABELS", "short_name", "format_level", "metric_sentence", "leak_label", "json_epsilon"]

#: How each leak type is named in a sentence.
LEAK_PHRASES = {
    "partial_copy": "partial copies",
    "noisy_copy": "noisy copies",
    "rare_records": "the rare-record leak",
    "attribute_leak": "the attribute leak",
    "value_reuse": "the reused unique values",
    "column_resample": "the negative control (per-column resampling)",
    "dp_marginals": "DP marginals",
}

#: What level 0 is for the two leak types whose level 0 is not a fresh sample.
_LEVEL0_MEANING = {"noisy_copy": "noise of one σ", "dp_marginals": "ε = 0.1"}


def short_name(name: str) -> str:
    """A metric's abbreviation when its name ends in one, e.g. "Distance to Closest Record (DCR)" → "DCR".

    The text in the closing parentheses is an abbreviation when its letters appear, in order, in the name
    before it ("Authenticity (Auth)"), not when it names a source ("Attribute inference (Anonymeter)").

    >>> short_name("Distance to Closest Record (DCR)"), short_name("Attribute inference (Anonymeter)")
    ('DCR', 'Attribute inference (Anonymeter)')
    """
    found = re.fullmatch(r"(.*\S)\s*\(([^\s(),]+)\)", name)
    if not found:
        return name
    letters, rest = [c for c in found.group(2).lower() if c.isalnum()], iter(found.group(1).lower())
    return found.group(2) if letters and all(c in rest for c in letters) else name


def format_level(leak: str, level: float, *, labels: bool = False) -> str:
    """A level as the user typed it: "level 0.25", "level 1 (ε = ∞)", or "label 3" for a supplied ladder.

    >>> format_level("partial_copy", 0.25), format_level("dp_marginals", 1.0), format_level("x", 3.0, labels=True)
    ('level 0.25', 'level 1 (ε = ∞)', 'label 3')
    """
    if labels:
        return f"label {level:g}"
    text = f"level {level:.4g}"
    if leak == "dp_marginals":
        epsilon = level_to_epsilon(level)
        text += " (ε = ∞)" if math.isinf(epsilon) else f" (ε = {epsilon:.3g})"
    return text


def _join(items: Sequence[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def metric_sentence(name: str, detection: Mapping[str, float | None], levels: Mapping[str, Sequence[float]], *,
                    rising: Collection[str] = (), reason: str | None = None,
                    labels: bool = False, phrases: Mapping[str, str] | None = None) -> str:
    """The summary sentence of one metric.

    Parameters
    ----------
    name : str
        The metric's name (shortened with :func:`short_name`).
    detection : mapping
        Leak type → detection level or None.
    levels : mapping
        Leak type → its grid (the highest level is "up to").
    rising : collection of str
        Leak types not detected that still raise the metric at their highest level
        (:func:`privcore.lab.statistics.rises`): said to raise it "at 100 %, but not beyond seed noise".
    reason : str, optional
        Why the metric did not run at all (the sentence then says so).
    labels : bool
        Levels are labels of a supplied ladder.
    phrases : mapping, optional
        Leak type → how to name it (default :data:`LEAK_PHRASES`).

    Examples
    --------
    >>> metric_sentence("Distance to Closest Record (DCR)", {"partial_copy": 0.25, "rare_records": None,
    ...                 "column_resample": None}, {k: [0, 0.25, 1] for k in ("partial_copy", "rare_records",
    ...                 "column_resample")})  # doctest: +NORMALIZE_WHITESPACE
    'DCR notices partial copies from level 0.25; it never notices the rare-record leak up to level 1;
    the negative control (per-column resampling) leaves it quiet.'
    """
    short = short_name(name)
    if reason is not None:
        return f"{short} did not run here: {reason.rstrip('.')}."
    phrases = {**LEAK_PHRASES, **(phrases or {})}
    top = max((max(grid) for leak, grid in levels.items() if leak in detection and grid), default=1.0)
    at_top = format_level("", top, labels=labels)
    noticed, up, missed, clauses = [], [], [], []
    for leak, level in detection.items():
        phrase = phrases.get(leak, leak)
        if leak == "column_resample":
            continue
        if level is None:
            (up if leak in rising else missed).append(phrase)
        elif level == 0 and leak in _LEVEL0_MEANING:
            noticed.append(f"{phrase} already at level 0 ({_LEVEL0_MEANING[leak]})")
        else:
            noticed.append(f"{phrase} from {format_level(leak, level, labels=labels)}")
    if noticed:
        clauses.append(f"{short} notices {_join(noticed)}")
    subject = "it" if clauses else short
    if up:
        clauses.append(f"{subject} rises with {_join(up)} at {at_top}, but not beyond seed noise")
        subject = "it"
    if missed:
        clauses.append(f"{subject} never notices {_join(missed)} up to {at_top}")
    if "column_resample" in detection:
        phrase, level = phrases["column_resample"], detection["column_resample"]
        phrase = phrase[0].upper() + phrase[1:] if not clauses else phrase
        if level is not None:
            clauses.append(f"{phrase} raises it from {format_level('column_resample', level, labels=labels)}, "
                           "though no training row is kept together there, only single values")
        elif "column_resample" in rising:
            clauses.append(f"{phrase} raises it at {at_top}, but not beyond seed noise")
        else:
            clauses.append(f"{phrase} leaves it quiet")
    return "; ".join(clauses) + "."


#: Column and legend labels of the leak types (short: they head heatmap columns).
LEAK_LABELS = {
    "partial_copy": "partial copy",
    "noisy_copy": "noisy copy",
    "rare_records": "rare records",
    "attribute_leak": "attribute leak",
    "value_reuse": "value reuse",
    "column_resample": "column resample (control)",
    "dp_marginals": "DP marginals",
}


def leak_label(leak: str) -> str:
    """A leak type's short label (a supplied ladder keeps its own name)."""
    return LEAK_LABELS.get(leak, leak)


def json_epsilon(epsilon: float | None) -> float | str | None:
    """ε as JSON: a number, ``"inf"`` for ∞, None when there is none."""
    if epsilon is None:
        return None
    return "inf" if math.isinf(epsilon) else float(epsilon)
