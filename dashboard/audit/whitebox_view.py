"""The Audit page's logic for the white-box attack (:mod:`privcore.audit.whitebox`).

It says whether a generator offers it, and gives its results in words and as a table. Never imports Streamlit; the
page's section is :mod:`dashboard.audit.whitebox_panel`.
"""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd

from dashboard.generator_factory import generator_context
from privcore.audit import WHITEBOX_FPR_LEVELS, WhiteBoxResult, has_loss
from privcore.data import Schema
from privcore.generators import GeneratorError, GeneratorSpec, make_generator

#: The option's label and help on the page.
OPTION_LABEL = "Also attack with the model's loss (white box)"
OPTION_HELP = ("This generator can score each record with its trained model's loss. The white-box attack assumes "
               "an attacker who holds the trained model, not only its synthetic output: a stronger attacker than "
               "the default one. It adds one loss computation per model and per audited record.")


def offers_loss(spec: GeneratorSpec, settings: Mapping[str, Any], schema: Schema, real: pd.DataFrame) -> bool:
    """Whether the generator, built with these settings, offers the per-record loss the white-box attack needs.

    A generator whose extra is missing, or that cannot be built here, offers none (the page says why elsewhere).

    Examples
    --------
    >>> from privcore.data.schema import Schema
    >>> from privcore.generators import get_generator_spec
    >>> offers_loss(get_generator_spec("exact_copy"), {}, Schema(types={"a": "numerical"}), pd.DataFrame({"a": [1.0]}))
    False
    """
    if not spec.installed:
        return False
    try:
        return has_loss(make_generator(spec.name, population=real, **generator_context(schema), **settings))
    except GeneratorError:
        return False


def _percent(x: float | None) -> str:
    return "—" if x is None else f"{x:.0%}"


def summary_lines(result: WhiteBoxResult) -> list[str]:
    """The white-box attack's results over the target models, in words, beside what chance gives.

    Examples
    --------
    >>> from privcore.audit import WhiteBoxResult
    >>> spread = lambda m: {"median": m, "min": m / 2, "max": min(1.0, 2 * m)}
    >>> summary = {"models_scored": 64, "auc": spread(0.7), "tpr_at_fpr_0": spread(0.25),
    ...            "share_models_interval_above_0.5": 0.9, "chance": {"tpr_at_fpr_0": spread(0.01)}}
    >>> summary_lines(WhiteBoxResult(10, [], [], summary))[0]
    'On the median model, the attack picks out **25%** of its training records without one false accusation (from 12% to 50% over 64 models); chance alone gives about **1%**.'
    """
    s = result.summary
    if not s.get("models_scored"):
        return ["No target model could be attacked with its loss."]
    tpr, auc = s["tpr_at_fpr_0"], s["auc"]
    chance = (s.get("chance") or {}).get("tpr_at_fpr_0", {}).get("median")
    return [
        f"On the median model, the attack picks out **{_percent(tpr['median'])}** of its training records without "
        f"one false accusation (from {_percent(tpr['min'])} to {_percent(tpr['max'])} over {s['models_scored']} "
        f"models); chance alone gives about **{_percent(chance)}**.",
        f"Its AUC over each model's members and non-members: median **{auc['median']:.2f}** (from {auc['min']:.2f} "
        f"to {auc['max']:.2f}); {_percent(s.get('share_models_interval_above_0.5'))} of the models have a 95% "
        "interval wholly above 0.5.",
    ]


def models_frame(result: WhiteBoxResult) -> pd.DataFrame:
    """One line per target model, with its AUC and the TPR at each FPR.

    Each line gives the model's members and non-members, the AUC with its interval and the TPR at each FPR (empty where
    too few non-members measure it).
    """
    lines = []
    for m in result.models:
        line: dict[str, Any] = {"model": m.model, "members": m.members, "non-members": m.non_members,
                                "AUC": None if m.auc is None else round(m.auc, 3),
                                "AUC 95% interval": "—" if m.auc_interval is None
                                else f"{m.auc_interval[0]:.2f} – {m.auc_interval[1]:.2f}"}
        for key, level in WHITEBOX_FPR_LEVELS.items():
            value = m.tpr_at.get(key)
            line[f"TPR at FPR {level:.1%}" if level else "TPR at FPR 0"] = None if value is None else round(value, 3)
        lines.append(line)
    return pd.DataFrame(lines)
