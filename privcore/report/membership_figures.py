"""Figures of the membership attack battery (``mia_best``, :class:`privcore.metrics.details.MembershipBattery`)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from privcore.base import DASHES, OKABE_ITO, PALETTE, ROLE_COLOURS, epsilon_words
from privcore.metrics import MembershipBattery, short_attack
from privcore.report.figure_base import Figure, apply_layout, empty_figure
from privcore.report.generic_figures import attack_intervals

__all__ = ["battery_roc_curves", "battery_auc_intervals", "battery_figures", "choice_sentence", "epsilon_sentence",
           "share_words"]

def battery_roc_curves(details: MembershipBattery, *, name: str = "Strongest membership attack") -> Figure:
    """Every attack's ROC curve on all members and non-members, log-log, the strongest highlighted.

    Points with a false- or true-positive rate of 0 cannot be drawn on log axes and are left out; the
    axes start at one non-member (the smallest FPR the sample can show).

    Notes
    -----
    Same conventions as :mod:`privcore.report.figure_base`: a :class:`~privcore.report.figure_base.Figure` with a
    one-sentence caption and an alt text, Okabe–Ito colours only, lines told apart by dash pattern as well as colour. The ROC curves
    are drawn on log-log axes (Carlini et al. 2022): what matters for privacy is how many members an attack
    catches while it almost never accuses a non-member, the bottom-left corner that linear axes squeeze into
    a few pixels. This module imports no Streamlit.
    """
    title = f"{name}: ROC curves of every attack (log-log)"
    if not details.attacks:
        return empty_figure(title, "No membership attack ran.")
    smallest = 1.0 / max(details.n_nonmembers, 1)
    low = math.floor(math.log10(smallest))
    fig = go.Figure()
    diagonal = np.logspace(low, 0, 60)
    fig.add_trace(go.Scatter(x=diagonal, y=diagonal, mode="lines", name="chance (a coin flip)",
                             line={"color": ROLE_COLOURS["chance"], "dash": "dot", "width": 1.5}))
    parts = []
    for i, (attack_id, attack) in enumerate(details.attacks.items()):
        fpr, tpr = np.asarray(attack.roc_fpr, dtype=float), np.asarray(attack.roc_tpr, dtype=float)
        shown = (fpr > 0) & (tpr > 0)
        strongest = attack_id == details.selected_attack
        label = f"{short_attack(attack_id)} (AUC {attack.auc:.3f})" + (" — strongest" if strongest else "")
        fig.add_trace(go.Scatter(
            x=fpr[shown], y=tpr[shown], mode="lines", name=label,
            line={"color": OKABE_ITO["vermillion"] if strongest else PALETTE[i % len(PALETTE)],
                  "dash": "solid" if strongest else DASHES[(i + 1) % len(DASHES)],
                  "width": 4 if strongest else 1.8, "shape": "hv"},
            opacity=1.0 if strongest else 0.75,
        ))
        parts.append(label)
    apply_layout(fig, title, "false-positive rate (non-members wrongly accused, log scale)",
                 "true-positive rate (members caught, log scale)", height=460)
    fig.update_xaxes(type="log", range=[low, 0])
    fig.update_yaxes(type="log", range=[low, 0.02])
    caption = ("Each line is one attack; above the dotted diagonal it catches members more often than it wrongly "
               "accuses non-members. The left part matters most: members caught while almost nobody else is "
               "accused.")
    alt = (f"Log-log ROC curves of {len(details.attacks)} membership attacks: " + "; ".join(parts)
           + f". The strongest, chosen on half the records, is {short_attack(details.selected_attack)}. "
           + choice_sentence(details))
    return Figure(fig, caption, alt, title)


def battery_auc_intervals(details: MembershipBattery, *, name: str = "Strongest membership attack") -> Figure:
    """Every attack's AUC on all records with its 95 % bootstrap interval (one row per attack)."""
    rows = {}
    for attack_id, attack in details.attacks.items():
        low, high = attack.auc_interval if attack.auc_interval is not None else (None, None)
        mark = " (strongest)" if attack_id == details.selected_attack else ""
        rows[f"{short_attack(attack_id)}{mark}"] = (float(attack.auc), low, high)
    return attack_intervals(
        rows, name=name, title=f"{name}: AUC of every attack with 95% bootstrap intervals", x_title="ROC AUC",
        caption="0.5 is a coin flip; an interval wholly to the right of 0.5 means the attack tells members from "
                "non-members beyond chance.")


def epsilon_sentence(details: MembershipBattery) -> str:
    """The ε lower bound in one plain sentence.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> epsilon_sentence(SimpleNamespace(epsilon_lower_bound=2.14, delta=0.0))  # doctest: +NORMALIZE_WHITESPACE
    'No generator that is differentially private with ε below 2.1 could let an attacker do this well (95 %
    confidence; an indication, since members and non-members differ by more than one record).'
    """
    epsilon = float(details.epsilon_lower_bound)
    with_delta = f" and δ = {details.delta:g}" if details.delta else ""
    if epsilon <= 0:
        return ("The strongest attack rules out no level of differential privacy: even a generator with a very "
                "small ε could let an attacker do this well.")
    return (f"No generator that is differentially private with ε below {epsilon_words(epsilon)}"
            f"{with_delta} could let an attacker do this well (95 % confidence; an indication, since members and "
            "non-members differ by more than one record).")


def share_words(value: float) -> str:
    """A share as a whole percentage, the way the reports write it ("70 %")."""
    return f"{100 * value:.0f} %"


def choice_sentence(details: MembershipBattery) -> str:
    """Which attack each half chose and how often the choices agreed, in one or two sentences.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from privcore.metrics.details import HeldOutSplit
    >>> a = HeldOutSplit(chosen_on="A", attack="mia_stacked", choice_auc=0.8, threshold=1.0, auc=0.75,
    ...                  advantage=0.4, true_positives=1, members=2, false_positives=1, nonmembers=2, tpr_at={},
    ...                  epsilon_lower_bound=0.0, default_attack="mia_stacked", choice_votes={"mia_stacked": 0.7})
    >>> choice_sentence(SimpleNamespace(splits=[a, a]))
    'Both halves chose the same attack (stacked attack); on resamples of each half it led 70 % of the time.'
    """
    splits = details.splits
    if not splits:
        return ""
    # Reports made without the choice rule have no resamples to count.
    led = [share_words(s.choice_votes.get(s.attack, 0.0)) for s in splits] if all(s.choice_votes for s in splits) \
        else None
    if len({s.attack for s in splits}) == 1:
        text = f"Both halves chose the same attack ({short_attack(splits[0].attack)})"
        if led:
            text += (f"; on resamples of each half it led {led[0]} of the time" if len(set(led)) == 1 else
                     f"; on resamples of the halves it led {' and '.join(led)} of the time")
        return text + "."
    parts = [f"half {s.chosen_on} chose {short_attack(s.attack)}" + (f" (it led on {v} of its resamples)" if led
                                                                      else "")
             for s, v in zip(splits, led or [""] * len(splits))]
    return ("The halves disagreed: " + " and ".join(parts) + ". No attack is clearly the strongest on these "
            "tables, and each is counted only on the half it was not chosen on.")


def battery_figures(report, result, name: str) -> list[Figure]:
    """The figures of ``mia_best`` for :data:`privcore.report.detail_figures.DETAIL_FIGURES`."""
    details: MembershipBattery = result.details
    return [battery_roc_curves(details, name=name), battery_auc_intervals(details, name=name)]
