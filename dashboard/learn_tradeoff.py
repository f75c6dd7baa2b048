"""The Learn page's lesson "Private because useless".

Three demo tables as points of the Privacy and utility view, with their numbers in plain words.
"""

from __future__ import annotations

from collections.abc import Mapping

from privcore.evaluation import TradeoffPoint, VerdictRule, assess, tradeoff_points
from privcore.metrics import short_name

#: The lesson's tables: the demo scenario of each.
LESSON_TABLES = ("column_resampler", "fresh_sample", "noisy_copy")
#: What the lesson runs on each: two distance metrics, the distance membership attack, the two cheap utility measures.
LESSON_METRICS = ["dcr", "nndr", "mia_distance", "utility_shapes", "utility_pairs"]


def _kept(report, metric_id: str) -> str:
    utility = report[metric_id].utility if metric_id in report and report[metric_id].applicable else None
    if utility is None or utility.relative is None:
        return "n/a"
    return f"{min(utility.relative, 9.99):.0%}"


#: Why each table sits where it does: how it is made (true by construction, whatever the numbers).
HOW_MADE = {
    "column_resampler": "Each value is drawn from its column on its own, so no training row is copied and no relation "
                        "between columns survives.",
    "fresh_sample": "It is real people who were not in the training data: what a release should look like.",
    "noisy_copy": "It is the training people, each blurred a little: everything is kept, the people included.",
}


def _distance(report, rule: VerdictRule) -> str:
    """Whether the distance metrics pass (no more than ``rule.similarity_at`` above a fresh sample), with numbers."""
    parts, passed = [], True
    for metric_id in ("dcr", "nndr"):
        if metric_id in report and report[metric_id].applicable:
            a = assess(metric_id, report[metric_id])
            parts.append(f"{short_name(metric_id)} {a.adjusted:+.2f}")
            passed = passed and a.adjusted <= rule.similarity_at
    if not parts:
        return "no distance metric ran"
    verb = "passes" if passed else "fails"
    return f"{verb} the distance metrics ({', '.join(parts)} above a fresh sample of real people)"


def lesson_points(reports: Mapping[str, object]) -> list[TradeoffPoint]:
    """The lesson's tables (title → report) as points of the Privacy and utility view.

    Notes
    -----
    The column-by-column resampler passes the distance metrics and keeps no relation between columns; a fresh sample of
    real people keeps everything and leaks nothing; the noisy copy keeps everything and leaks. The points and the figure
    come from :mod:`privcore.evaluation.tradeoff` and :mod:`privcore.report.tradeoff_figures`; this module only words
    them.
    """
    return tradeoff_points(reports)


def lesson_lines(reports: Mapping[str, object], points: list[TradeoffPoint],
                 rule: VerdictRule | None = None) -> list[str]:
    """One plain paragraph per table, in the order of :data:`LESSON_TABLES`.

    Each says how the table is made, then what the evaluation found (distance metrics, the verdict and its strongest
    evidence, the utility kept), every claim read off the numbers.
    """
    rule = rule or VerdictRule()
    by_name = {p.name: p for p in points}
    lines = []
    for (name, report), scenario in zip(reports.items(), LESSON_TABLES):
        p = by_name[name]
        evidence = short_name(p.privacy_metric) if p.privacy_metric else "no privacy metric"
        leak = ("an attacker tells who was in the training data" if not p.released else
                "no attack does better than against other real people" if p.privacy is not None and p.privacy
                <= rule.caution_at else "an attack does somewhat better than against other real people")
        text = (f"**{name}.** {HOW_MADE[scenario]} It {_distance(report, rule)}; {leak} (verdict **{p.word}**, "
                f"{evidence} " + (f"AUC {p.auc:.2f}, 0.5 = a coin flip" if p.auc is not None else f"{p.privacy:+.2f}")
                + f"); it keeps {_kept(report, 'utility_shapes')} of a fresh sample's column "
                f"shapes and {_kept(report, 'utility_pairs')} of its relations between columns.")
        if p.keeps_little:
            text += (" Private because it keeps little: the verdict lets it out, but of one kind of utility it keeps "
                     f"less than {rule.keeps_little_below:.0%} of what a fresh sample keeps, so its privacy comes with "
                     "little use.")
        lines.append(text)
    return lines
