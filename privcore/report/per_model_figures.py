"""The shared audit's attacks per target model (:mod:`privcore.audit.per_model`).

How many of each model's members each attack picks out without one false accusation (TPR at FPR 0), the benchmark
reading of "The DCR Delusion". A :class:`~privcore.report.figure_base.Figure` with a one-sentence caption and an alt
text, Okabe–Ito colours, a distinct marker per attack. This module imports no Streamlit.
"""

from __future__ import annotations

from dataclasses import asdict, is_dataclass
from typing import Any

import plotly.graph_objects as go

from privcore.base import OKABE_ITO, SYMBOLS
from privcore.report.figure_base import Figure, apply_layout, empty_figure

__all__ = ["ATTACK_NAMES", "attacks_per_model", "per_model_figure"]

#: The attacks in words, in the order drawn, each with its colour.
ATTACK_NAMES = {"today": ("the audit's attack", OKABE_ITO["blue"]),
                "rmia": ("RMIA", OKABE_ITO["bluish_green"]),
                "meta": ("meta-classifier", OKABE_ITO["orange"]),
                "whitebox": ("white box (the model's loss)", OKABE_ITO["vermillion"])}


def attacks_per_model(report: Any) -> dict[str, dict[str, Any]]:
    """Every attack of a shared audit that was read per target model.

    ``{attack: {"models": [...], "summary": {...}}}`` with the keys of :data:`ATTACK_NAMES` (only those that ran; a
    report made without the per-model reading has none).
    """
    out: dict[str, dict[str, Any]] = {}
    if getattr(report, "per_model", None):
        out["today"] = report.per_model
    strong = getattr(report, "stronger", None)
    out.update({name: entry for name, entry in (getattr(strong, "models", None) or {}).items() if entry})
    white = getattr(report, "whitebox", None)
    if white is not None:
        out["whitebox"] = {"models": [asdict(m) if is_dataclass(m) else m for m in white.models],
                           "summary": white.summary}
    return out


def per_model_figure(report: Any) -> Figure:
    """Per target model, each attack's TPR at FPR 0, one marker per attack.

    Parameters
    ----------
    report : privcore.audit.shared.SharedAuditReport
        A shared audit (its ``per_model``, and its ``stronger`` and ``whitebox`` when they ran).

    Returns
    -------
    Figure
        Markers at (target model, TPR at FPR 0), one colour and symbol per attack; the legend gives each
        attack's median over the models beside its chance median (the attack with membership shuffled).
    """
    name = report.title
    title = f"{name}: members picked out with no false accusation, per trained model"
    attacks = attacks_per_model(report)
    drawn = {key: [m for m in entry["models"] if m["tpr_at"].get("0") is not None]
             for key, entry in attacks.items()}
    drawn = {key: models for key, models in drawn.items() if models}
    if not drawn:
        return empty_figure(title, "No attack was read per trained model, or no model had both members and "
                                   "non-members among the audited records.")
    fig = go.Figure()
    lines = []
    for i, key in enumerate(k for k in ATTACK_NAMES if k in drawn):
        label, colour = ATTACK_NAMES[key]
        models = drawn[key]
        summary = attacks[key]["summary"]
        median = (summary.get("tpr_at_fpr_0") or {}).get("median")
        chance = ((summary.get("chance") or {}).get("tpr_at_fpr_0") or {}).get("median")
        legend = label + ("" if median is None else f": median {median:.1%}") + (
            "" if chance is None else f" (chance {chance:.1%})")
        fig.add_trace(go.Scatter(
            x=[m["model"] for m in models], y=[m["tpr_at"]["0"] for m in models], mode="markers", name=legend,
            marker={"color": colour, "symbol": SYMBOLS[i % len(SYMBOLS)], "size": 9,
                    "line": {"color": OKABE_ITO["black"], "width": 0.5}},
            customdata=[[m["members"], m["non_members"], m["auc"] if m["auc"] is not None else float("nan")]
                        for m in models],
            hovertemplate=f"{label}, model %{{x}}: %{{y:.1%}} of its %{{customdata[0]}} members picked out, none of "
                          "its %{customdata[1]} non-members accused<br>AUC %{customdata[2]:.2f}<extra></extra>"))
        lines.append(f"{label} median {median:.1%}" if median is not None else label)
    apply_layout(fig, title, "trained model (each one a target)", "TPR at FPR 0", height=400)
    # Ticks at whole percents or finer steps as the data need: ".0%" on a 0-3 % axis wrote "0%, 1%, 1%, 2%".
    top = max((m["tpr_at"]["0"] for models in drawn.values() for m in models), default=0.0)
    fig.update_yaxes(rangemode="tozero", tickformat=".0%" if top >= 0.1 else ".1%")
    caption = ("Each marker is one trained model and one attack: the share of the people the model was trained on "
               "whom the attack names without wrongly naming anyone who was not, so markers well above zero mean "
               "some people can be named with certainty, even when the DCR test passes.")
    models = len({m["model"] for entry in drawn.values() for m in entry})
    alt = (f"Scatter plot of each attack's true-positive rate at a false-positive rate of 0 on {models} trained "
           f"model(s) of the generator {name}: " + "; ".join(lines) + ".")
    return Figure(fig, caption, alt, title)
