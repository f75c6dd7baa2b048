"""The figures of each kind of evidence a metric reports (its ``details`` type).

Attack rates, ROC curves, per-ε curves, per-fold scores, holdout tests, identical shares, the membership battery and
reconstruction.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from privcore.base import ROLE_COLOURS, format_value, percent
from privcore.metrics import (
    AttackRates,
    ClassifierScores,
    EpsilonSeries,
    IdenticalShares,
    MembershipBattery,
    MembershipScores,
    ProxyTest,
    Reconstruction,
    ReproducedIdentifiers,
)
from privcore.report.figure_base import Figure, apply_layout, finite_values
from privcore.report.generic_figures import attack_intervals, distance_histogram, epsilon_curve, fold_scores, roc_curves
from privcore.report.membership_figures import battery_figures
from privcore.report.reconstruction_figures import reconstruction_figures
from privcore.report.utility_figures import UTILITY_FIGURES

__all__ = ["attack_rates", "DETAIL_FIGURES", "figures_of_details"]


def attack_rates(details: AttackRates) -> dict[str, tuple[float, float, float]]:
    """Main, baseline and control success rates of an attack as (value, low, high)."""
    out = {}
    for label in ("main", "baseline", "control"):
        rate = getattr(details, label)
        if rate is not None and math.isfinite(rate.value):
            out[label] = (rate.value, *rate.interval)
    return out


def _attack_figures(report, result, name: str) -> list[Figure]:
    risk = None
    if result.risk is not None and result.interval is not None:
        risk = (result.risk, result.interval[0], result.interval[1])
    return [attack_intervals(attack_rates(result.details), name=name, risk=risk)]


#: Rows of the membership statistics figure: label and the statistic's value and interval.
_MEMBERSHIP_STATS = (
    ("ROC AUC (0.5 = chance)", lambda d: (d.auc, d.auc_interval)),
    ("advantage max(TPR − FPR)", lambda d: (d.advantage, d.advantage_interval)),
    ("TPR at FPR 1%", lambda d: (d.tpr_at.get("0.01"), d.tpr_at_interval.get("0.01"))),
    ("TPR at FPR 10%", lambda d: (d.tpr_at.get("0.1"), d.tpr_at_interval.get("0.1"))),
)


def _membership_figures(report, result, name: str) -> list[Figure]:
    details: MembershipScores = result.details
    figs = [roc_curves({"attack": (np.asarray(details.roc_fpr, dtype=float), np.asarray(details.roc_tpr, dtype=float))},
                       name=name, aucs={"attack": float(details.auc)}),
            _membership_scores(details, name)]
    if details.auc_interval is not None or details.advantage_interval is not None:
        rows = {}
        for label, read in _MEMBERSHIP_STATS:
            value, interval = read(details)
            if value is not None:
                rows[label] = (float(value), *(interval if interval is not None else (None, None)))
        figs.append(attack_intervals(
            rows, name=name, title=f"{name}: attack statistics with 95% bootstrap intervals", x_title="value",
            caption="An AUC near 0.5 and an advantage near 0 mean the attacker does no better than a coin flip; "
                    "TPR at FPR 1% is the share of training members caught while wrongly accusing only 1 in 100 "
                    "non-members."))
    return figs


def _epsilon_figures(report, result, name: str) -> list[Figure]:
    details: EpsilonSeries = result.details
    series = {details.label: {float(e): float(v) for e, v in zip(details.epsilons, details.values)}}
    for term, label in details.shown_terms.items():
        series[label] = {float(e): float(v) for e, v in zip(details.epsilons, details.terms[term])}
    return [epsilon_curve(series, name=name, threshold=float(details.threshold))]


def _classifier_figures(report, result, name: str) -> list[Figure]:
    details: ClassifierScores = result.details
    return [fold_scores([float(x) for x in details.scores], name=name, label=details.score_label, chance=0.5)]


def _proxy_figures(report, result, name: str) -> list[Figure]:
    return [_proxy_histogram(result.details, result.id, name)]


def _ims_figures(report, result, name: str) -> list[Figure]:
    return [_ims_bars(result.details, name)]


def _membership_scores(details: MembershipScores, name: str) -> Figure:
    members = finite_values(details.member_scores)
    non = finite_values(details.nonmember_scores)
    groups = {"members (training records)": members, "non-members (holdout)": non}
    q99 = float(np.quantile(non, 0.99)) if len(non) else None
    caption = ("The attacker scores each person; if training records (members) score higher than people who were "
               "not in the training data, the attacker can tell who was in it.")
    alt = (f"Histograms of {name} attack scores: {len(members):,} members (median {np.median(members):.3g}) and "
           f"{len(non):,} non-members (median {np.median(non):.3g})"
           + (f"; {np.mean(members > q99):.1%} of members score above the level only 1% of non-members exceed."
              if q99 is not None else "."))
    return distance_histogram(groups, title=f"{name}: attack scores of members and non-members",
                              x_title="attack score (higher = judged more likely a member)", caption=caption, alt=alt,
                              markers={"1% of non-members above": q99} if q99 is not None else None,
                              colours={"members (training records)": ROLE_COLOURS["real"],
                                       "non-members (holdout)": ROLE_COLOURS["holdout"]})


def _ims_bars(details: IdenticalShares, name: str) -> Figure:
    title = f"{name}: identical copies of real records"
    syn, hold = details.ims_synthetic, details.ims_holdout
    fig = go.Figure(go.Bar(x=["synthetic rows", "holdout rows (fresh real people)"], y=[syn, hold],
                           marker={"color": [ROLE_COLOURS["synthetic"], ROLE_COLOURS["holdout"]],
                                   "pattern": {"shape": ["", "/"]}},
                           text=[percent(float(syn)), percent(float(hold))], textposition="outside"))
    apply_layout(fig, title, "", "share identical to a real training record")
    fig.update_yaxes(tickformat=".0%", range=[0, max(0.05, 1.25 * max(float(syn), float(hold)))])
    caption = ("Some fresh real people match a training record exactly by coincidence; synthetic rows should not "
               "match more often than that.")
    alt = (f"Bar chart: {float(syn):.1%} of synthetic rows and {float(hold):.1%} of holdout rows are identical to a "
           "real training record.")
    return Figure(fig, caption, alt, title)


def _proxy_histogram(details: ProxyTest, metric_id: str, name: str) -> Figure:
    """DCR/NNDR holdout tests: synthetic→real against holdout→real, with both percentiles."""
    q = float(details.percentile)
    groups = {"synthetic → real": details.synthetic_values, "holdout → real": details.holdout_values}
    x_title = ("nearest / second-nearest distance ratio" if metric_id == "nndr_test"
               else "distance to the closest real record (E)")
    marks = {f"{q:g}th percentile, synthetic": details.p_synthetic,
             f"{q:g}th percentile, holdout": details.p_holdout}
    caption = ("The test passes when synthetic records are not markedly closer to real ones than fresh real people "
               "are; passing does not prove privacy (a copied rare value can hide in the tail).")
    alt = (f"Histograms of {x_title} for synthetic→real and holdout→real rows; {q:g}th percentiles "
           + ", ".join(f"{k.split(', ')[1]} {format_value(v)}" for k, v in marks.items())
           + f"; the test {'passes' if details.passes else 'fails'}."
           + (f" {details.closer_to_real_share:.1%} of synthetic rows are closer to the training table than to "
              f"the holdout (about {details.closer_to_real_expected:.0%} expected for a fresh sample)."
              if details.closer_to_real_share is not None and details.closer_to_real_expected is not None else ""))
    return distance_histogram(groups, title=f"{name}: synthetic versus fresh real records", x_title=x_title,
                              caption=caption, alt=alt, markers=marks,
                              colours={"synthetic → real": ROLE_COLOURS["synthetic"],
                                       "holdout → real": ROLE_COLOURS["holdout"]})


def _identifier_figures(report, result, name: str) -> list[Figure]:
    """Members found against the holdout (chance), check by check, as shares of the people checked."""
    d = result.details
    title = f"{name}: members' identifiers found in the synthetic table"

    def shares(found, checked):
        return [f / c if c else 0.0 for f, c in zip(found, checked)]

    members = shares(d.members_found, d.members_checked)
    holdout = shares(d.holdout_found, d.holdout_checked)
    fig = go.Figure()
    for label, values, found, checked, role, pattern in (
            ("members (training records)", members, d.members_found, d.members_checked, "real", ""),
            ("holdout (chance: people the generator never saw)", holdout, d.holdout_found, d.holdout_checked,
             "holdout", "/")):
        fig.add_trace(go.Bar(y=d.checks, x=values, orientation="h", name=label,
                             marker={"color": ROLE_COLOURS[role], "pattern": {"shape": pattern}},
                             text=[f"{f:,} of {c:,}" for f, c in zip(found, checked)], textposition="outside"))
    apply_layout(fig, title, "share of people found", "")
    fig.update_xaxes(tickformat=".0%", range=[0, min(1.0, 1.3 * max([*members, *holdout, 0.02]))])
    fig.update_layout(barmode="group", height=140 + 70 * len(d.checks))
    fig.update_yaxes(autorange="reversed")
    caption = ("Each bar pair compares how often a member's values are in the synthetic table with how often those of "
               "people the generator never saw are: a members' bar well beyond the holdout's means real people are "
               "named in the release.")
    alt = ("Horizontal bars per check: " + "; ".join(
        f"{check}: {f:,} of {c:,} members, {hf:,} of {hc:,} holdout" for check, f, c, hf, hc in
        zip(d.checks, d.members_found, d.members_checked, d.holdout_found, d.holdout_checked)) + ".")
    return [Figure(fig, caption, alt, title)]


#: The figures of each kind of evidence (looked up along the details type's MRO).
DETAIL_FIGURES = {
    AttackRates: _attack_figures,
    MembershipScores: _membership_figures,
    MembershipBattery: battery_figures,
    EpsilonSeries: _epsilon_figures,
    ClassifierScores: _classifier_figures,
    ProxyTest: _proxy_figures,
    IdenticalShares: _ims_figures,
    Reconstruction: reconstruction_figures,  # per secret column: scores, advantage with its interval
    ReproducedIdentifiers: _identifier_figures,  # members found against the holdout, check by check
    **UTILITY_FIGURES,  # column shapes, the pair-difference heatmap, train on synthetic / test on real, discriminator
}


def figures_of_details(report, result, name: str) -> list[Figure]:
    """The figures of ``result.details`` by its type (:data:`DETAIL_FIGURES`, looked up along its MRO).

    Parameters
    ----------
    report : privcore.Report
        The evaluation ``result`` belongs to.
    result : privcore.metrics.results.MetricResult
        One metric's result, with ``details``.
    name : str
        The metric's display name, for titles and alt texts.

    Returns
    -------
    list of Figure
        Empty when no type of the details' MRO has figures.

    Notes
    -----
    :data:`DETAIL_FIGURES` maps each type of :mod:`privcore.metrics.details` to the function that draws it;
    :func:`privcore.report.dispatcher.metric_figures` starts with these figures. The membership battery's own
    figures live in :mod:`privcore.report.membership_figures`. Conventions of :mod:`privcore.report.figure_base`.
    This module imports no Streamlit.
    """
    for kind in type(result.details).__mro__:
        if kind in DETAIL_FIGURES:
            return DETAIL_FIGURES[kind](report, result, name)
    return []
