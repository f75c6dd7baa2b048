"""One answer for the custodian: "release", "release with caution" or "do not release".

A generator audit gets its verdict here too: :func:`audit_severity` and :func:`audit_verdict`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from statistics import NormalDist
from typing import Any, Mapping

from privcore.base import epsilon_words
from privcore.evaluation.interpret import UTILITY_BANDS, Assessment, assess
from privcore.evaluation.utility_line import UtilityLine, audit_utility_sentence, utility_line
from privcore.metrics import MembershipBattery, MembershipScores, ReproducedIdentifiers, battery_ids, short_attack

#: Families whose metrics simulate an attacker and carry an interval: they decide.
DECISIVE_FAMILIES = ("Attack-based", "Membership inference", "Reconstruction")
#: Families that measure usefulness, not privacy (metrics.md §6): the privacy rule leaves them out.
NOT_PRIVACY_FAMILIES = ("Utility",)
#: The kinds of evidence (``Evidence.kind``): an attack decides; similarity and membership support, weighed apart.
ATTACK, SIMILARITY, MEMBERSHIP = "attack", "similarity", "membership"
#: Each kind in words, beside its evidence in the dashboard and the HTML report.
KIND_WORDS = {ATTACK: "attack", SIMILARITY: "supporting: similarity",
              MEMBERSHIP: "supporting: members against non-members"}

#: The reproduced-identifiers check (:mod:`privcore.metrics.identifiers`), read with its own threshold.
IDENTIFIERS = "reproduced_identifiers"
#: The reconstruction attacks that ``recon_best`` chooses among (it alone counts when it ran).
RECONSTRUCTION_ATTACKS = ("recon_nearest", "recon_learned")

RELEASE, CAUTION, DO_NOT_RELEASE = "release", "release with caution", "do not release"
#: Word, icon and Okabe–Ito colour of each verdict (never colour alone).
VERDICT_STYLE = {
    RELEASE: ("Release", "✓", "#0072B2", "#FFFFFF"),
    CAUTION: ("Release with caution", "⚠", "#E69F00", "#000000"),
    DO_NOT_RELEASE: ("Do not release", "✖", "#D55E00", "#000000"),
}


@dataclass(frozen=True)
class VerdictRule:
    """Thresholds of the verdict, on the excess risk (risk minus its reference)."""

    #: An attack whose whole interval lies above this excess: do not release.
    decisive_at: float = 0.10
    #: An attack whose point estimate lies above this excess: release with caution.
    caution_at: float = 0.05
    #: A member-versus-non-member proxy test above this excess: release with caution.
    supporting_at: float = 0.10
    #: A similarity metric above this excess over a like-sized fresh sample, and beyond that sample's interval:
    #: release with caution. 0.05 rather than the 0.10 used for both kinds before size matching: on the
    #: calibration of bench/results/verdict_calibration.json (its "decision") a lower threshold cautions more
    #: leaky tables and no table whose audit finds nothing; 0.05 stays as a guard of materiality above the
    #: interval, whose own false-caution rate 15 clean tables cannot show.
    similarity_at: float = 0.05
    #: Reproduced identifiers (members' full names found in the synthetic table beyond the holdout's rate): do not
    #: release when the lower end of its interval lies above this share. Far below ``decisive_at``: each person
    #: found is disclosed by name, and 1 % of 2,000 members is 20 named people.
    identifiers_at: float = 0.01
    #: Utility (not privacy): a utility measure at or above this share of a fresh sample's score keeps what it
    #: measures (:mod:`privcore.evaluation.utility_line`).
    useful_at: float = UTILITY_BANDS[1]
    #: Utility: a table that passes on privacy while a utility measure keeps less than this share of a fresh
    #: sample's is flagged "private because it keeps little".
    keeps_little_below: float = UTILITY_BANDS[0]

    def describe(self) -> list[str]:
        """The rule in plain sentences, with its current thresholds."""
        return [
            f"Do not release when an attack or membership-inference attack does better with the synthetic data "
            f"than against other real people by more than {self.decisive_at:.2f}, with 95 % confidence (the lower "
            "end of its interval), when members' names or other identifiers are found in the synthetic table more "
            f"often than those of real people the generator never saw by more than {self.identifiers_at:.2f} (the "
            "lower end of its interval), or when it beats the bound of a declared differential-privacy guarantee.",
            f"Release with caution when an attack's estimate exceeds its reference by more than {self.caution_at:.2f} "
            "and its interval, widened to hold for every attack read at once, lies above chance, "
            f"when a member-versus-non-member proxy test exceeds what it gives with its two groups relabelled at random "
            f"by more than {self.supporting_at:.2f} and beyond chance, "
            f"when a similarity metric (distances, exact matches, classifiers) exceeds a fresh sample of real people "
            f"of the same size by more than {self.similarity_at:.2f} and beyond that sample's 95 % interval, or when "
            "no attack could be run. Never \"release\" while a privacy metric stopped on an internal error.",
            "Otherwise release. Supporting metrics never decide on their own: they cannot prove a leak or its absence.",
            f"Beside the answer, when utility measures ran: what the table keeps (at least {self.useful_at:.0%} of what "
            "a fresh sample of real people keeps) and loses, and the flag \"private because it keeps little\" when "
            f"it passes on privacy while one utility measure keeps less than {self.keeps_little_below:.0%} of a fresh "
            "sample's. Usefulness never changes the privacy answer.",
        ]


@dataclass(frozen=True)
class Evidence:
    """One metric's contribution to the verdict."""

    metric: str
    name: str
    weight: str  # "decisive" or "supporting"
    excess: float
    lower_excess: float | None
    pushes_to: str
    text: str
    #: "attack" (decisive), "similarity" or "membership" (supporting, weighed apart).
    kind: str = ATTACK


@dataclass
class Verdict:
    """The answer for one synthetic table."""

    level: str
    headline: str
    evidence: list[Evidence]
    not_tested: list[str]
    rule: VerdictRule = field(default_factory=VerdictRule)
    #: One line on what would make the answer decisive (empty when a membership attack ran).
    next_step: str = ""
    #: A declared ε-differential-privacy guarantee read against the attacks (:class:`Guarantee`), else None.
    guarantee: "Guarantee | None" = None
    #: What the table keeps and loses relative to a fresh sample (:class:`UtilityLine`); None: no utility measure ran.
    utility: UtilityLine | None = None
    #: The metrics that stopped on an internal error (names): a defect to report. While a privacy metric is among
    #: them the answer is never "release", because it would rest on what did not run.
    failed: list[str] = field(default_factory=list)

    @property
    def word(self) -> str:
        """The verdict's word ("Release", "Release with caution" or "Do not release")."""
        return VERDICT_STYLE[self.level][0]

    def to_dict(self) -> dict[str, Any]:
        """The JSON of the verdict (heads the JSON report)."""
        return {
            "level": self.level,
            "headline": self.headline,
            "evidence": [_finite(asdict(e)) for e in self.evidence],
            "not_tested": list(self.not_tested),
            "next_step": self.next_step or None,
            "rule": {**asdict(self.rule), "text": self.rule.describe()},
            "guarantee": None if self.guarantee is None else _finite(asdict(self.guarantee)),
            "utility": None if self.utility is None else self.utility.to_dict(),
            "failed": list(self.failed),
        }


@dataclass(frozen=True)
class Guarantee:
    """A declared ε-differential-privacy guarantee, and whether the attacks stayed within what it allows."""

    epsilon: float
    #: The largest AUC any membership attack can reach against an ε-DP generator: e^ε / (1 + e^ε).
    auc_bound: float
    #: The strongest membership attack's measured AUC and the lower end of its 95 % interval (None: none ran).
    measured_auc: float | None
    measured_lower: float | None
    broken: bool
    text: str


def dp_auc_bound(epsilon: float) -> float:
    """The largest ROC AUC of any membership test against an ε-differentially private mechanism.

    ε-DP bounds every test's true-positive rate by ``min(e^ε·FPR, 1 − e^−ε·(1 − FPR))``; the area under that
    curve is ``e^ε / (1 + e^ε)`` (Kairouz et al., 2015, the tight trade-off curve of pure DP).

    Examples
    --------
    >>> round(dp_auc_bound(1.0), 4), dp_auc_bound(0.0)
    (0.7311, 0.5)
    """
    return 1.0 / (1.0 + math.exp(-float(epsilon)))


def number(value: float, digits: int = 2) -> str:
    """A number in a sentence with ``digits`` significant digits, never rounded to a misleading 0.0.

    Examples
    --------
    >>> number(0.0412), number(1.234), number(12.6), number(340.2), number(0.0)
    ('0.041', '1.2', '13', '340', '0')
    """
    value = float(value)
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    if abs(value) >= 10 ** digits:
        return f"{value:.0f}"
    return f"{value:#.{digits}g}".rstrip(".") if abs(value) >= 1 else f"{value:.{digits}g}"


def _finite(values: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in values.items()}


def _lower_excess(a: Assessment) -> float | None:
    if a.interval is None or a.interval[0] is None or not math.isfinite(a.interval[0]):
        return None
    return float(a.interval[0]) - a.reference


def _membership(a: Assessment, details: MembershipScores) -> tuple[float, float | None, str]:
    """Excess, its lower bound and the words of a membership attack, from its AUC."""
    low = None if details.auc_interval is None else 2 * (details.auc_interval[0] - 0.5)
    interval = "" if details.auc_interval is None else \
        f", 95 % interval {details.auc_interval[0]:.2f}–{details.auc_interval[1]:.2f}"
    if _below_chance(details.auc_interval):
        return 2 * (details.auc - 0.5), low, f"{a.name}: {BELOW_CHANCE} (AUC {details.auc:.2f}{interval})."
    if details.auc <= 0.5025:
        return 2 * (details.auc - 0.5), low, f"{a.name}: tells members from non-members no better than a coin flip " \
                                           f"(AUC {details.auc:.2f}{interval})."
    sure = " — beyond chance" if low is not None and low > 0 else ""
    return 2 * (details.auc - 0.5), low, (f"{a.name}: tells who was in the training data better than a coin flip "
                                          f"(AUC {details.auc:.2f}{interval}){sure}.")


def _strongest(a: Assessment, details: MembershipBattery) -> tuple[float, float | None, str]:
    """Excess, its lower bound and the words of ``mia_best``, from its held-out AUC."""
    interval = details.held_out_auc_interval
    low = None if interval is None else 2 * (interval[0] - 0.5)
    shown = "" if interval is None else f", 95 % interval {interval[0]:.2f}–{interval[1]:.2f}"
    attack = short_attack(details.selected_attack)
    if _below_chance(interval):
        return 2 * (details.held_out_auc - 0.5), low, (
            f"{a.name}: the strongest of {len(details.attacks)} attacks ({attack}), measured on records it was not "
            f"chosen on, {BELOW_CHANCE} (AUC {details.held_out_auc:.2f}{shown}).")
    if details.held_out_auc <= 0.5025:
        return 2 * (details.held_out_auc - 0.5), low, (
            f"{a.name}: even the strongest of {len(details.attacks)} attacks ({attack}), measured on records it was "
            f"not chosen on, tells members from non-members no better than a coin flip (AUC "
            f"{details.held_out_auc:.2f}{shown}).")
    sure = " — beyond chance" if low is not None and low > 0 else ""
    bound = (f"; no generator differentially private with ε below {epsilon_words(details.epsilon_lower_bound)} could do this"
             if details.epsilon_lower_bound > 0 else "")
    return 2 * (details.held_out_auc - 0.5), low, (
        f"{a.name}: the strongest of {len(details.attacks)} attacks ({attack}) tells who was in the training data "
        f"better than a coin flip on records it was not chosen on (AUC {details.held_out_auc:.2f}{shown}){sure}"
        f"{bound}.")


#: An AUC interval wholly below 0.5: the attack ranks non-members above members, which is no leak.
BELOW_CHANCE = ("does worse than a coin flip: its whole interval lies below chance, so it ranks the people who were "
                "not in the training data as members more often (a sign of a miscalibrated attack, not of a leak)")


def _below_chance(interval) -> bool:
    return interval is not None and interval[1] is not None and math.isfinite(interval[1]) and interval[1] < 0.5


def _battery_ran(report) -> bool:
    """Whether ``mia_best`` ran in ``report``, so that it stands for the attacks it compares."""
    return "mia_best" in report and report["mia_best"].applicable and isinstance(report["mia_best"].details,
                                                                                  MembershipBattery)


def _describe(a: Assessment, weight: str, lower: float | None) -> str:
    interval = (f" (95 % interval {a.interval[0]:.2f}–{a.interval[1]:.2f})" if a.interval is not None else "")
    if weight == "decisive":
        if a.adjusted <= 0.005:
            return f"{a.name}: the attacker does no better than against other real people (risk {a.risk:.2f}{interval})."
        sure = " — beyond chance" if lower is not None and lower > 0 else ""
        return (f"{a.name}: the attacker succeeds {a.adjusted:.2f} more often against the training records than "
                f"against other real people (risk {a.risk:.2f}{interval}){sure}.")
    against = "a fresh sample of real people" if a.baseline is not None else "its chance level"
    match = a.size_match
    if match is not None and match.subsampled is not None:
        against = f"a fresh sample of real people of the same size ({match.matched_rows:,} rows)"
    if match is not None and match.method == "permutation":
        against = "what it gives when the two groups it compares are relabelled at random"
    elif match is not None and match.method == "split":
        against = (f"half of the real table against the other half (real people of the same population, "
                   f"{match.matched_rows:,} rows; no holdout)")
    chance = ""
    if a.excess_interval is not None:
        width = (a.excess_interval[1] - a.excess_interval[0]) / 2
        chance = f"; chance alone reaches ±{width:.2f}"
    if a.adjusted <= 0.005:
        return f"{a.name}: no higher than for {against} (risk {a.risk:.2f}{chance})."
    if a.excess_interval is not None and a.excess_interval[0] <= 0:
        return (f"{a.name}: {a.adjusted:.2f} above {against}, within what chance gives such a sample "
                f"(±{width:.2f}); a proxy, not proof.")
    return f"{a.name}: {a.adjusted:.2f} above {against} (risk {a.risk:.2f}{interval}{chance}); a proxy, not proof."


def _identifiers_text(a: Assessment, d: ReproducedIdentifiers, lower: float | None) -> str:
    """The evidence of reproduced identifiers in counts of people, members against the holdout."""
    sure = " — beyond chance" if lower is not None and lower > 0 else ""
    interval = "" if a.interval is None else f", 95 % interval {a.interval[0]:.2f}–{a.interval[1]:.2f}"
    return (f"{a.name}: {d.members_found[0]:,} of {d.members_checked[0]:,} members' {d.decisive_check} are in the "
            f"synthetic table, against {d.holdout_found[0]:,} of {d.holdout_checked[0]:,} real people the generator "
            f"never saw (risk {a.risk:.2f}{interval}){sure}.")


def _kind(a: Assessment, metric_id: str) -> str:
    """``"attack"``, ``"membership"`` (members against non-members: it needs the holdout) or ``"similarity"``."""
    if a.family in DECISIVE_FAMILIES:
        return ATTACK
    return MEMBERSHIP if a.family == "Holdout proxy tests" or metric_id == "sd_mia" else SIMILARITY


# ---- every metric that moves the answer has a fresh-sample reference (metrics.md §5) ----
#: Why a classifier of real against synthetic rows is never evidence of a leak (metrics.md §5).
FIDELITY_NOT_LEAK = ("ran, but is not weighed: it trains a classifier to tell real rows from synthetic ones, which "
                     "measures fidelity, not a leak (every imperfect generator scores high, an exact copy scores 0.5).")
#: Why an Anonymeter attack without a holdout is not weighed.
NO_CONTROL = ("ran without a control, so it is not weighed: without a holdout of real people the generator never saw, "
              "its success rate includes what any data about similar people reveals (a fresh sample of real people "
              "scores as high). A split of the real table cannot be the control: both halves trained the generator. "
              "Upload a holdout to measure what the synthetic data adds.")


#: Why a member-versus-non-member proxy is not weighed beside the strongest membership attack.
STRONGEST_SPEAKS = ("ran, but is not weighed: the strongest membership attack ran and answers the same question (are "
                    "the training records closer to, or matched more often by, the synthetic records than real people "
                    "the generator never saw?) with a stronger test and an honest interval; read beside it, this proxy "
                    "would count the same evidence again, with its own chance of a false alarm.")


def _simultaneous_lower(excess: float, lower: float, attacks: int) -> float:
    """The lower end of a 95 % interval widened to hold for ``attacks`` attacks at once (Bonferroni).

    The per-attack interval is read as symmetric and normal around the estimate (Wilson and bootstrap intervals
    are close to it away from 0 and 1): its half-width grows by z(1 − 2.5 %/k) / z(97.5 %).

    Examples
    --------
    >>> _simultaneous_lower(0.2, 0.1, 1), round(_simultaneous_lower(0.2, 0.1, 6), 3)
    (0.1, 0.065)
    """
    if attacks <= 1:
        return lower
    widen = NormalDist().inv_cdf(1 - 0.025 / attacks) / NormalDist().inv_cdf(0.975)
    return excess - (excess - lower) * widen


def _read_together(evidence: list[Evidence], rule: VerdictRule) -> list[Evidence]:
    """Attacks read at once: "beyond chance", for a caution, holds for all of them together.

    With each attack's own 95 % interval, a fresh sample of real people crosses one of ``k`` attacks' intervals in
    about 1 − 0.975^k of evaluations (six attacks under all metrics: 14 %), where the verdict promises 2.5 %. The
    caution of an attack therefore needs its interval widened to hold for the ``k`` attacks weighed together
    (:func:`_simultaneous_lower`), as the similarity metrics' intervals hold for ten at once
    (:data:`privcore.evaluation.size_match.SIMULTANEOUS`). "Do not release" keeps each attack's own interval: its
    margin (``decisive_at`` above chance) already dwarfs the widening, and a leak must not hide behind other attacks.
    """
    read = [e for e in evidence if e.kind == ATTACK and e.lower_excess is not None]
    if len(read) <= 1:
        return evidence
    out = []
    for e in evidence:
        if e in read and e.pushes_to == CAUTION and _simultaneous_lower(e.excess, e.lower_excess, len(read)) <= 0:
            e = replace(e, pushes_to=RELEASE, text=f"{e.text} Read together with the other {len(read) - 1} attacks, "
                        "this is within what chance gives a fresh sample of real people.")
        out.append(e)
    return out


def _not_weighed(a: Assessment, kind: str, report) -> str:
    """Why the verdict leaves a metric that ran out of the answer ("" when it weighs it).

    A metric moves the answer only against a reference of real people: a fresh sample (of the same size, with its
    interval, where the value depends on the size; NNDR's does not) for similarity, the random relabellings of its
    two groups for a members-against-non-members test, the control attack on the holdout for Anonymeter's attacks.
    Without one, its value says nothing about the generator: SD-IDR of a fresh sample of coarse data is 0.42, DVP is
    1 on every table.
    """
    has_holdout = (getattr(report, "rows", None) or {}).get("holdout") is not None
    if a.family == "Classifier-based":
        return FIDELITY_NOT_LEAK
    if kind == MEMBERSHIP and _battery_ran(report):
        return STRONGEST_SPEAKS
    if a.family == "Attack-based" and a.metric_id != IDENTIFIERS and not has_holdout:  # Anonymeter's attacks
        return NO_CONTROL
    if kind == MEMBERSHIP and a.excess_interval is None or kind == SIMILARITY and a.size_match is None and (
            a.baseline is None or not math.isfinite(a.baseline)):
        if not has_holdout:
            return ("not weighed: without a holdout it could not be compared with a fresh sample of real people (the "
                    "real table is too small to split in two, or the metric needs a holdout).")
        return ("not weighed: it could not be compared with a fresh sample of real people of the same size, and its "
                "value alone says nothing about the generator.")
    return ""
# ---- end of the fresh-sample references ----


def _pushes(kind: str, a: Assessment, excess: float, lower: float | None, rule: VerdictRule) -> str:
    if a.metric_id == IDENTIFIERS:
        if lower is not None and lower > rule.identifiers_at:
            return DO_NOT_RELEASE
        return CAUTION if excess > rule.identifiers_at / 2 and (lower is None or lower > 0) else RELEASE
    if kind == ATTACK:
        if lower is not None and lower > rule.decisive_at:
            return DO_NOT_RELEASE
        # An estimate above caution_at whose interval still reaches chance is what a fresh sample gets now and
        # then (the strongest attack on a fresh sample of 1,000 Adult rows: AUC 0.53, interval from 0.49).
        beyond_chance = lower is None or lower > 0
        return CAUTION if excess > rule.caution_at and beyond_chance else RELEASE
    if kind == MEMBERSHIP:
        # Like similarity: only beyond what the test gives when its two groups are relabelled at random.
        beyond = a.excess_interval is None or a.excess_interval[0] > 0
        return CAUTION if a.adjusted > rule.supporting_at and beyond else RELEASE
    # Similarity moves the answer only beyond what a fresh sample of the same size reaches by chance.
    if a.adjusted <= rule.similarity_at or (a.excess_interval is not None and a.excess_interval[0] <= 0):
        return RELEASE
    return CAUTION


def verdict(report, rule: VerdictRule | None = None, dp_epsilon: float | None = None) -> Verdict:
    """The verdict of one evaluation (a :class:`privcore.evaluation.outcome.Report`) under ``rule``.

    ``dp_epsilon`` is a declared ε-differential-privacy guarantee of the generator (default: the report's own,
    ``Report.dp_epsilon``, as given to :func:`privcore.evaluate`).

    Notes
    -----
    The rule (:class:`VerdictRule`, every threshold adjustable, shown on the Results page and in the reports):

    1. Every metric is read against its reference (:func:`privcore.evaluation.interpret.assess`): the fresh-sample
       baseline when a holdout gave one, else the metric's chance level, else 0. The verdict looks at that
       *excess*, never at the raw risk, which a fresh sample of real people can score high too.
    2. **Attacks decide.** Attack-based metrics (singling out, linkability, inference) and membership-inference
       attacks simulate an attacker and come with 95 % intervals. One whose interval lies wholly above
       ``decisive_at`` (its lower end minus the reference) means **do not release**: the attacker does better
       with the synthetic data, beyond chance. One whose point estimate is above ``caution_at`` means
       **release with caution**. A membership attack is read by its AUC, as ``2·(AUC − 0.5)`` (0 = chance,
       1 = tells every member), with its bootstrap interval: the advantage max(TPR − FPR) that it reports as
       its risk is biased upwards on small tables (a maximum over thresholds), so a fresh sample would look
       like a leak.
    3. **Proxies support, never decide, and come in two kinds, weighed apart.** Distance, classifier, exact-match
       and holdout-proxy metrics cannot prove a leak or its absence (the DCR-delusion paper, ../seeds); they lower
       "release" to "release with caution", never further.

       - *Similarity* (simulation-, distance- and classifier-based metrics, SynQP's identity disclosure): how close
         the synthetic records come to the training records, against a fresh sample of real people **of the same
         size** (:mod:`privcore.evaluation.size_match`: a larger table searched scores closer by itself). It moves
         the answer only when its excess exceeds ``similarity_at`` *and* lies beyond the interval a fresh sample of
         that size would reach by chance. A caution from similarity alone says so in its headline, with what would
         settle it (an audit of the generator; a holdout where there is none).
       - *Membership* (the holdout proxy tests, SynQP's MIA): members against non-members. An excess above
         ``supporting_at`` lowers "release" to "release with caution" when it also lies beyond what the test gives
         with its two groups relabelled at random (:func:`privcore.evaluation.size_match.permutation_match`).
       - *Not weighed*: a metric without a reference of real people (:func:`_not_weighed`): D-MLP and MIR
         (fidelity, not a leak), Anonymeter's attacks without a holdout (no control), a similarity metric with neither
         a fresh-sample baseline nor a split of the real table to compare with; and the member-versus-non-member
         proxies when ``mia_best`` ran (it speaks for the membership evidence, as in rule 4). Each is listed in ``not_tested``
         with why. Without a holdout the size-matched similarity metrics are read against half of the real table
         against the other half (:func:`privcore.evaluation.evaluate.split_reference_ids`).
       - *Attacks read at once*: a caution from an attack needs its interval above chance when widened
         to hold for every attack weighed (:func:`_read_together`).
    4. **The strongest membership attack speaks for the battery.** When ``mia_best`` ran, it alone stands for
       the membership attacks it compares (read by its held-out AUC and that AUC's interval, like one attack):
       the eight attacks separately would count the same evidence eight times, and their largest AUC is
       inflated by the choice (the winner's curse). Without it, each membership attack counts on its own.
    5. **No attack, no release.** Without an attack or membership-inference result (no holdout, or none
       chosen), the best answer is "release with caution", because the strongest evidence was not gathered.
       Whenever no membership attack ran, the verdict's ``next_step`` says in one line what would make the answer
       decisive: upload a holdout (real records not used to train the generator), or, with one loaded, run the
       membership attacks. Without a holdout no attack can be weighed, so the answer is "release with caution" for
       every table; for one where nothing points at a leak, the headline says only why it cannot be cleared.

    6. **A declared guarantee.** Where the user states that the generator is ε-differentially private
       (``evaluate(dp_epsilon=…)``, ``--dp-epsilon``, the Data page), no membership attack can reach an AUC above
       ``e^ε / (1 + e^ε)`` (:func:`dp_auc_bound`): the answer shows that bound beside what the attacks measured, and
       an attack whose 95 % interval lies wholly above it (or whose ε lower bound exceeds ε) is a **broken
       guarantee**: do not release.

    The decisive evidence is always listed first, including when it found nothing (the strongest attack at chance,
    with its interval), then the strongest supporting evidence, in plain words; and so is what was not tested.
    """
    rule = rule or VerdictRule()
    if dp_epsilon is None:
        dp_epsilon = getattr(report, "dp_epsilon", None)
    evidence: list[Evidence] = []
    not_tested: list[str] = []
    counted_by_best = set(battery_ids()) if _battery_ran(report) else set()
    if "recon_best" in report and report["recon_best"].applicable:
        counted_by_best |= set(RECONSTRUCTION_ATTACKS)  # the honest best speaks for the attacks it chose among
    for metric_id, result in report.items():
        if metric_id in counted_by_best:
            continue
        a = assess(metric_id, result)
        if a.family in NOT_PRIVACY_FAMILIES:  # usefulness is weighed beside the privacy answer, not in it
            continue
        if not a.applicable:
            not_tested.append(f"{a.name}: {a.reason or 'did not run'}")
            continue
        if a.cannot_tell:  # its fresh sample scores the maximum too, or the holdout is too small to compare
            not_tested.append(f"{a.name}: {a.cannot_tell[0].upper()}{a.cannot_tell[1:]}")
            continue
        kind = _kind(a, metric_id)
        unweighed = _not_weighed(a, kind, report)
        if unweighed:  # it ran, but has no reference of real people to be read against (metrics.md §5)
            not_tested.append(f"{a.name}: {unweighed}")
            continue
        weight = "decisive" if kind == ATTACK else "supporting"
        lower = _lower_excess(a) if weight == "decisive" else None
        excess, text = a.adjusted, None
        if isinstance(result.details, ReproducedIdentifiers):
            text = _identifiers_text(a, result.details, lower)
        if isinstance(result.details, MembershipScores):
            excess, lower, text = _membership(a, result.details)
        elif isinstance(result.details, MembershipBattery):
            excess, lower, text = _strongest(a, result.details)
        pushes = _pushes(kind, a, excess, lower, rule)
        evidence.append(Evidence(metric_id, a.name, weight, excess, lower, pushes,
                                 text or _describe(a, weight, lower), kind))
    evidence = _read_together(evidence, rule)  # several attacks read at once
    order = {DO_NOT_RELEASE: 0, CAUTION: 1, RELEASE: 2}
    evidence.sort(key=lambda e: (order[e.pushes_to], e.weight != "decisive", -(e.lower_excess if e.lower_excess
                                                                              is not None else e.excess)))
    decisive_ran = any(e.weight == "decisive" for e in evidence)
    level = min((e.pushes_to for e in evidence), key=order.get, default=CAUTION)
    has_holdout = (getattr(report, "rows", None) or {}).get("holdout") is not None
    if not decisive_ran and not has_holdout:  # say why it cannot clear the table, and what to upload
        level = min(level, CAUTION, key=order.get)
        not_tested.insert(0, "No attack could be weighed, so the table cannot be cleared: Anonymeter's attacks need a "
                             "control and membership inference needs non-members, both real people the generator "
                             "never saw (a holdout).")
    elif not decisive_ran:
        level = min(level, CAUTION, key=order.get)
        not_tested.insert(0, "No attack or membership-inference attack ran, so the strongest evidence is missing: "
                             "choose the attack metrics on the Metrics page (membership inference needs a holdout).")
    elif not any(e.metric.startswith("mia_") for e in evidence):
        not_tested.insert(0, "No membership-inference attack ran (it needs a holdout of real records the "
                             "generator never saw): whether someone's presence in the training data shows was not "
                             "tested.")
    guarantee = None if dp_epsilon is None else _guarantee(float(dp_epsilon), report)
    if guarantee is not None and guarantee.broken:
        level = DO_NOT_RELEASE
    failed = failed_metrics(report)
    privacy_failed = [name for name, family in failed if family not in NOT_PRIVACY_FAMILIES]
    if privacy_failed:  # no answer may rest on a metric that did not run: it could have found the leak
        level = min(level, CAUTION, key=order.get)
    headline = _headline(level, evidence, decisive_ran, has_holdout)
    if guarantee is not None and guarantee.broken:
        headline = f"Do not release: {guarantee.text}"
    elif privacy_failed and level != DO_NOT_RELEASE:
        headline = failed_headline(privacy_failed)
    utility = utility_line(report, rule.useful_at, rule.keeps_little_below, passes_privacy=level != DO_NOT_RELEASE)
    return Verdict(level, headline, _shown(evidence), not_tested, rule, _next_step(report, evidence), guarantee,
                   utility, [name for name, _ in failed])


def failed_metrics(report) -> list[tuple[str, str]]:
    """(name, family) of each metric of ``report`` that stopped on an internal error, in the report's order.

    A metric counts when its result is marked ``failed`` or when its fresh-sample baseline or size-matched comparison
    failed (``report.errors`` names the metric first): its reading would then rest on a missing reference.
    """
    errors = getattr(report, "errors", None) or []
    erred = {error.split(":", 1)[0].split(" (", 1)[0] for error in errors}
    found = []
    for metric_id, result in report.items():
        if getattr(result, "failed", False) or metric_id in erred:
            a = assess(metric_id, result)
            found.append((a.name, a.family))
    return found


def failed_headline(names: list[str]) -> str:
    """The answer's headline when privacy metrics failed: no answer, what failed, and that it is a defect."""
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return (f"No answer: {len(names)} privacy metric{'s' if len(names) != 1 else ''} stopped on an internal error "
            f"({shown}), so the table cannot be cleared on what ran. This is a defect in privcore, not a property of "
            "your data: please report it with your settings.")


def _shown(evidence: list[Evidence]) -> list[Evidence]:
    """The evidence listed with the answer: the decisive evidence first, then the strongest of the rest; three in all.

    The decisive evidence comes first always, including when it found nothing: the strongest membership attack where it
    ran, then the other attacks that point at a leak.
    """
    decisive = [e for e in evidence if e.weight == "decisive"]
    strongest = [e for e in decisive if e.metric == "mia_best"] or decisive[:1]
    lead = strongest + [e for e in decisive if e.pushes_to != RELEASE and e not in strongest]
    rest = [e for e in evidence if e not in lead]
    return (lead + rest)[:3]


def _guarantee(epsilon: float, report) -> Guarantee:
    """The declared ε-DP guarantee against the strongest membership attack measured in ``report``."""
    bound = dp_auc_bound(epsilon)
    measured: list[tuple[str, float, float | None, float]] = []  # (name, AUC, lower end, ε lower bound)
    for metric_id, result in report.items():
        if not result.applicable:
            continue
        details = result.details
        if isinstance(details, MembershipBattery):
            lower = None if details.held_out_auc_interval is None else details.held_out_auc_interval[0]
            measured.append((assess(metric_id, result).name, details.held_out_auc, lower,
                             details.epsilon_lower_bound))
        elif isinstance(details, MembershipScores):
            lower = None if details.auc_interval is None else details.auc_interval[0]
            measured.append((assess(metric_id, result).name, details.auc, lower, 0.0))
    shown_bound = f"a generator ε-differentially private with ε = {number(epsilon)} allows no membership attack an " \
                  f"AUC above {bound:.3f}"
    if not measured:
        return Guarantee(epsilon, bound, None, None, False,
                         f"The declared guarantee: {shown_bound}. No membership attack ran to check it.")
    broken = [m for m in measured if (m[2] is not None and m[2] > bound) or m[3] > epsilon]
    name, auc, lower, eps_low = max(broken or measured, key=lambda m: (m[2] if m[2] is not None else m[1]))
    low_text = "" if lower is None else f", 95 % interval from {lower:.3f}"
    if broken:
        why = (f"the ε lower bound it implies is {epsilon_words(eps_low)}" if eps_low > epsilon and not
               (lower is not None and lower > bound) else "beyond chance")
        return Guarantee(epsilon, bound, auc, lower, True, (
            f"the declared guarantee is broken: {shown_bound}, but {name} reaches AUC {auc:.3f}{low_text} ({why}). "
            "The generator is not differentially private with that ε, or it was not the one that made this table."))
    return Guarantee(epsilon, bound, auc, lower, False, (
        f"The declared guarantee holds as far as the attacks can tell: {shown_bound}; the strongest measured, "
        f"{name}, reaches AUC {auc:.3f}{low_text}."))


#: What to upload for a decisive answer, in one line (the verdict's ``next_step`` without a holdout).
UPLOAD_HOLDOUT = ("For a decisive answer, upload a holdout: real records from the same population that were not "
                  "used to train the generator (about as many as the real table). The membership attacks then test "
                  "whether the people in the training data can be told apart.")
#: The same with a holdout loaded but no membership attack chosen.
RUN_MEMBERSHIP = ("For a decisive answer, also run the membership-inference attacks, which use the loaded holdout "
                  "(the quick preset includes them).")


def _next_step(report, evidence: list[Evidence]) -> str:
    """What would make the answer decisive, or "" when a membership attack ran."""
    if any(e.metric.startswith("mia_") for e in evidence):
        return ""
    rows = getattr(report, "rows", None) or {}
    return UPLOAD_HOLDOUT if rows.get("holdout") is None else RUN_MEMBERSHIP


def _headline(level: str, evidence: list[Evidence], decisive_ran: bool, has_holdout: bool = True) -> str:
    if level == DO_NOT_RELEASE:
        worst = evidence[0]
        return (f"Do not release: {worst.name} shows the synthetic data gives an attacker a real advantage "
                f"about the people in the training data.")
    if level == CAUTION:
        if not decisive_ran and not has_holdout and not any(e.pushes_to == CAUTION for e in evidence):
            return ("Release with caution: the table cannot be cleared without a holdout. No attack can be measured "
                    "against real people the generator never saw, and nothing else can show that a table is safe; "
                    "no metric that ran points at a leak.")
        if not decisive_ran and not has_holdout:
            return ("Release with caution, from similarity alone: the synthetic records come closer to the training "
                    "records than half of the real table comes to the other half, and without a holdout no attack can "
                    "be weighed, so the table cannot be cleared. Closeness is not proof of a leak; a holdout of real "
                    "records the generator never saw, for the membership attacks, would settle it.")
        if not decisive_ran:
            return ("Release with caution: no attack was run, so the table cannot be cleared; the supporting "
                    "metrics are a starting point, not proof.")
        cautions = [e for e in evidence if e.pushes_to == CAUTION]
        if cautions and all(e.kind == SIMILARITY for e in cautions):
            settle = ("an audit of the generator (the Audit page trains it again on known records) would settle it"
                      if has_holdout else "a holdout of real records the generator never saw, for the membership "
                      "attacks, or an audit of the generator would settle it")
            return ("Release with caution, from similarity alone: the synthetic records come closer to the training "
                    "records than a fresh sample of real people of the same size, but no attack shows an advantage. "
                    f"Closeness is not proof of a leak; {settle}.")
        return ("Release with caution: some evidence points at a leak, but no attack shows a clear advantage "
                "beyond chance; look at the evidence below before deciding.")
    return ("Release: no attack does better with the synthetic data than against other real people, and no "
            "supporting metric stands out. This bounds only the attacks that ran.")


# --------------------------------------------------------------------------------------------------
# the verdict of a generator audit (privcore.audit), from its summary: the same module, so that the
# words of both verdicts are kept side by side
# --------------------------------------------------------------------------------------------------
def audit_severity(summary: Mapping[str, Any]) -> str:
    """What the audit found, in one word.

    ``"exposed"`` (a target above AUC 0.8 with its interval above 0.5), ``"suspect"`` (above 0.8 but within reach of
    chance, or more targets above 0.6 than chance explains), ``"none"`` (no target stood out) or ``"unknown"`` (no
    attack could be trained).
    """
    share6, chance = summary.get("share_auc_above_0.6"), summary.get("chance_share_above_0.6") or 0.0
    if share6 is None:
        return "unknown"
    if summary.get("share_clearly_exposed"):
        return "exposed"
    if summary.get("share_auc_above_0.8") or share6 > chance + 0.1:
        return "suspect"
    return "none"


def _percent(share: float) -> str:
    """A share in words: "17%", but "2.6%" below 10% and "under 0.1%" for a few.

    So a handful of exposed people out of thousands does not read as 0%.
    """
    if share == 0:
        return "0%"
    if share < 0.001:
        return "under 0.1%"
    return f"{share:.1%}" if share < 0.1 else f"{share:.0%}"


def audit_verdict(summary: Mapping[str, Any], name: str) -> str:
    """One plain sentence on what the audit found (see :func:`audit_severity`).

    The shared design (its summary counts ``records_scored``) speaks of the records of the pool, the
    targeted design of its targets.

    Examples
    --------
    >>> audit_verdict({"share_auc_above_0.6": 0.49, "chance_share_above_0.6": 0.08, "share_auc_above_0.8": 0.03,
    ...                "share_clearly_exposed": 0.026, "records_scored": 2000}, "privbayes")[:110]
    'privbayes is not private for the people it was tested on: for 2.6% of the records an attacker tells with AUC a'
    """
    who = "records" if "records_scored" in summary else "targets"
    share8, share6, chance = summary.get("share_auc_above_0.8"), summary.get("share_auc_above_0.6"), \
        summary.get("chance_share_above_0.6")
    found = audit_severity(summary)
    useful = audit_utility_sentence(summary.get("utility"))
    if found == "unknown":
        return f"The audit of {name} could not train or evaluate an attack."
    dcr = summary.get("dcr_test") or {}
    proxy = ""
    if dcr:
        proxy = (" The DCR test on one of its outputs passes, which shows how little that proxy says."
                 if dcr.get("passes") and share6 > chance + 0.1 else
                 f" The DCR test on one of its outputs {'passes' if dcr.get('passes') else 'fails'}.")
    if found == "exposed":
        return (f"{name} is not private for the people it was tested on: for {_percent(summary['share_clearly_exposed'])} "
                f"of the {who} an attacker tells with AUC above 0.8, and beyond chance (95 % interval above 0.5), "
                f"whether they were in the training data.{proxy}{useful}")
    if share8:
        return (f"{name} may leak membership: {_percent(share8)} of the {who} give the attack an AUC above 0.8, but "
                f"with intervals that still reach chance; run more models to settle it.{proxy}{useful}")
    if found == "suspect":
        return (f"{name} leaks membership of some people: {_percent(share6)} of the {who} give the attack an AUC above "
                f"0.6, where chance alone would give about {_percent(chance)}.{proxy}{useful}")
    singular = who[:-1]
    return (f"No {singular} stood out: the attack did no better than chance would ({_percent(share6)} of {who} above "
            f"AUC 0.6, about {_percent(chance)} expected by chance). This bounds only this attack and this budget."
            f"{proxy}{useful}")
