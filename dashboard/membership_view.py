"""The membership view of the Results page: every membership attack side by side, and what the strongest implies.

The page calls :func:`membership_view`; :func:`membership_table` and :func:`membership_summary` are plain
functions (no Streamlit) for tests and reports.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from dashboard.components import show_figure
from privcore.metrics import MembershipBattery, short_attack
from privcore.report import (
    battery_auc_intervals,
    battery_roc_curves,
    choice_sentence,
    epsilon_sentence,
    share_words,
)

__all__ = ["membership_view", "membership_table", "membership_summary", "choice_table", "battery_details",
           "LEARN_LOW_FPR", "LEARN_LOW_FPR_TITLE"]

LEARN_LOW_FPR_TITLE = "Why the rare catch matters more than the average: low false-positive rates and ε"

LEARN_LOW_FPR = (
    "A membership attack is usually summarised by its AUC, an average over every way of setting its threshold. "
    "But privacy is lost one person at a time. A generator that copies a handful of unusual records can leave "
    "the AUC at 0.50 (a few copied outliers do not move an average over thousands of people) while an attacker "
    "who accuses only the people the attack is surest about is almost always right about them. That is why "
    "this tool also reports the share of training members an attack catches while wrongly accusing only 0.1 %, "
    "1 % or 10 % of other people (its TPR at low FPR, Carlini et al. 2022), and draws the ROC curves on log-log "
    "axes, where that corner is visible. Differential privacy (DP) puts a hard limit on exactly this: with "
    "privacy level ε, no test can catch members more than e^ε times as often as it wrongly accuses "
    "non-members. Turning an attack's counts around gives an ε lower bound: \"no generator that is "
    "differentially private with ε below 2.1 could let an attacker do this well\". A vendor's claim of ε = 1 "
    "and a measured bound of 2.1 cannot both be true. For an attack on one synthetic table the bound is an "
    "indication, since members and non-members differ by more than one record; the Audit page trains the "
    "generator with and without single records and gives the rigorous bound per person."
)


def battery_details(report) -> MembershipBattery | None:
    """``mia_best``'s details when it ran in ``report``, else None."""
    if report is None or "mia_best" not in report:
        return None
    result = report["mia_best"]
    if not result.applicable or not isinstance(result.details, MembershipBattery):
        return None
    return result.details


def _rate(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{100 * value:.1f} %"


def membership_table(details: MembershipBattery) -> pd.DataFrame:
    """One row per attack: AUC, interval, Holm-adjusted p-value, TPR at FPR 0.1 %, 1 %, 10 %, strongest.

    Examples
    --------
    >>> from privcore.metrics.details import BatteryAttack
    >>> d = MembershipBattery(selected_attack="mia_distance", attacks={"mia_distance": BatteryAttack(
    ...     auc=0.9, auc_interval=(0.88, 0.92), p_value=1e-9, p_value_holm=7e-9,
    ...     tpr_at={"0.001": None, "0.01": 0.25, "0.1": 0.8}, advantage=0.7)}, splits=[], held_out_auc=0.9,
    ...     held_out_auc_interval=None, held_out_advantage=0.7, held_out_advantage_interval=None, tpr_at={},
    ...     epsilon_lower_bound=2.0, delta=0.0, epsilon_confidence=0.95, n_boot=0, confidence=0.95, n_members=500,
    ...     n_nonmembers=500, reference="half of the holdout")
    >>> membership_table(d).iloc[0].to_dict()["TPR at FPR 0.1 %"], membership_table(d).iloc[0]["strongest"]
    ('n/a', '★ strongest')
    """
    rows = []
    for attack_id, attack in details.attacks.items():
        low, high = attack.auc_interval if attack.auc_interval is not None else (None, None)
        rows.append({
            "attack": short_attack(attack_id),
            "AUC": round(float(attack.auc), 3),
            "95 % interval": "n/a" if low is None else f"{low:.3f}–{high:.3f}",
            "p (Holm)": f"{attack.p_value_holm:.2g}",
            "TPR at FPR 0.1 %": _rate(attack.tpr_at.get("0.001")),
            "TPR at FPR 1 %": _rate(attack.tpr_at.get("0.01")),
            "TPR at FPR 10 %": _rate(attack.tpr_at.get("0.1")),
            "strongest": "★ strongest" if attack_id == details.selected_attack else "",
        })
    return pd.DataFrame(rows)


def choice_table(details: MembershipBattery) -> pd.DataFrame:
    """One row per half: the attack chosen there and how it fared.

    Each row gives what the attack had to beat, how often it led on the half's resamples, its AUC on that half and on
    the other half (where it is counted).

    Examples
    --------
    >>> from privcore.metrics.details import HeldOutSplit
    >>> split = HeldOutSplit(chosen_on="A", attack="mia_stacked", choice_auc=0.8, threshold=1.0, auc=0.75,
    ...                      advantage=0.4, true_positives=1, members=2, false_positives=1, nonmembers=2, tpr_at={},
    ...                      epsilon_lower_bound=0.0, default_attack="mia_stacked",
    ...                      choice_votes={"mia_stacked": 0.6, "mia_distance": 0.4})
    >>> choice_table(_example(split)).iloc[0].to_dict()["led on resamples"]
    '60 %'
    """
    rows = []
    for split in details.splits:
        counted = "B" if split.chosen_on == "A" else "A"
        rows.append({
            "chosen on half": split.chosen_on,
            "attack chosen": short_attack(split.attack),
            "why": _why(split),
            "led on resamples": share_words(split.choice_votes.get(split.attack, 0.0)) if split.choice_votes else "n/a",
            "AUC where chosen": round(float(split.choice_auc), 3),
            "AUC counted (other half)": round(float(split.auc), 3),
            "counted on half": counted,
        })
    return pd.DataFrame(rows)


def _why(split) -> str:
    if split.default_attack is None:  # a report made without the choice rule
        return "highest AUC"
    if split.attack == split.default_attack:
        return "the default: no attack beat it clearly"
    return (f"beat the {short_attack(split.default_attack)} on "
            f"{share_words(split.wins_over_default.get(split.attack, 0.0))} of resamples")


def _example(*splits) -> MembershipBattery:
    """A battery with the given splits (for the examples above)."""
    splits = list(splits) if len(splits) > 1 else [splits[0], splits[0]]
    return MembershipBattery(selected_attack=splits[0].attack, attacks={}, splits=splits, held_out_auc=0.75,
                             held_out_auc_interval=None, held_out_advantage=0.4, held_out_advantage_interval=None,
                             tpr_at={}, epsilon_lower_bound=0.0, delta=0.0, epsilon_confidence=0.95, n_boot=0,
                             confidence=0.95, n_members=4, n_nonmembers=4, reference="half of the holdout")


def membership_summary(details: MembershipBattery) -> str:
    """The strongest attack and the ε bound in plain words (Markdown).

    Examples
    --------
    >>> from privcore.metrics.details import HeldOutSplit
    >>> split = HeldOutSplit(chosen_on="A", attack="mia_dpi", choice_auc=0.5, threshold=1.0, auc=0.5, advantage=0.0,
    ...                      true_positives=1, members=2, false_positives=1, nonmembers=2, tpr_at={},
    ...                      epsilon_lower_bound=0.0)
    >>> d = MembershipBattery(selected_attack="mia_dpi", attacks={}, splits=[split, split], held_out_auc=0.5,
    ...     held_out_auc_interval=(0.45, 0.55), held_out_advantage=0.0, held_out_advantage_interval=None, tpr_at={},
    ...     epsilon_lower_bound=0.0, delta=0.0, epsilon_confidence=0.95, n_boot=0, confidence=0.95, n_members=4,
    ...     n_nonmembers=4, reference="half of the holdout")
    >>> "no better than a coin flip" in membership_summary(d)
    True
    """
    chosen = " and ".join(dict.fromkeys(short_attack(s.attack) for s in details.splits))
    interval = details.held_out_auc_interval
    shown = "" if interval is None else f" (95 % interval {interval[0]:.2f}–{interval[1]:.2f})"
    n = len(details.attacks)
    if details.held_out_auc <= 0.5025 or (interval is not None and interval[0] <= 0.5):
        verdict = ("tells training records from other people **no better than a coin flip**" if
                   details.held_out_auc <= 0.5025 else "is **not clearly better than a coin flip**")
    else:
        verdict = "tells training records from other people **better than a coin flip**"
    text = (f"The strongest of {n} membership attacks (**{short_attack(details.selected_attack)}**, chosen on half "
            f"of the people: {chosen}) {verdict} on the other half: AUC {details.held_out_auc:.2f}{shown}. "
            f"{choice_sentence(details)} {epsilon_sentence(details)}")
    if details.not_applicable:
        text += " Not run: " + "; ".join(f"{short_attack(a)} ({why})" for a, why in details.not_applicable.items())
    return text


def membership_view(report, key: str) -> None:
    """Render the membership view of one report (the Results page calls it once per synthetic table).

    Notes
    -----
    Shown when ``mia_best`` ran (it carries every attack of the battery, :class:`privcore.metrics.details.MembershipBattery`):

    - one plain paragraph: the strongest attack, its AUC measured on records it was not chosen on, and the ε
      lower bound in one sentence (:func:`privcore.report.membership_figures.epsilon_sentence`);
    - which attack each half chose and how often the choices agreed (:func:`choice_table`, and
      :func:`privcore.report.membership_figures.choice_sentence` in the paragraph), with the choice rule in words;
    - a table of all attacks: AUC with its 95 % interval, the Holm-adjusted p-value, TPR at FPR 0.1 %, 1 %, 10 %
      ("n/a" where the non-members are too few to measure that FPR), the strongest marked;
    - the ROC curves of every attack on log-log axes with the chance line, the strongest highlighted, and the
      AUCs with their intervals.

    :data:`LEARN_LOW_FPR` is the Learn page's paragraph on why low-FPR evidence and ε bounds matter.
    """
    details = battery_details(report)
    st.markdown("#### Membership: every attack side by side")
    if details is None:
        st.caption("Choose *Membership inference: strongest attack (held out)* on the Metrics page (it needs a "
                   "holdout) to compare every membership attack and see the ε bound it implies.")
        return
    st.markdown(membership_summary(details))
    st.dataframe(membership_table(details), hide_index=True, width="stretch")
    st.caption(f"{details.n_members:,} members and {details.n_nonmembers:,} non-members; reference: "
               f"{details.reference}. TPR at FPR x = share of members caught while wrongly accusing at most x of the "
               "non-members (n/a where there are too few non-members to measure x). p (Holm) = one-sided p-value "
               "for AUC > 0.5, adjusted for testing every attack.")
    st.markdown("**How the strongest attack was chosen**")
    st.dataframe(choice_table(details), hide_index=True, width="stretch")
    st.caption(details.choice_rule or "On each half, the attack with the highest AUC was chosen and counted on the "
               "other half.")
    show_figure(battery_roc_curves(details), key=f"{key}-battery-roc")
    show_figure(battery_auc_intervals(details), key=f"{key}-battery-auc")
