"""The Learn page's lesson "Reconstruction, or inference from the population?".

The same reconstruction attack on a noisy copy of the training people and on a fresh sample of real people, with its
numbers in plain words.
"""

from __future__ import annotations

from collections.abc import Mapping

from privcore import Schema, evaluate
from privcore.data import THREAT_MODELS, preset_key
from privcore.demo import load_scenario
from privcore.metrics import Reconstruction
from privcore.report import leak_words, ordered_columns

__all__ = ["LESSON_TABLES", "LESSON_METRIC", "THREAT_MODEL", "lesson_key", "lesson_details", "lesson_lines"]

#: The lesson's tables: the demo scenario of each.
LESSON_TABLES = ("noisy_copy", "fresh_sample")
#: The attack: the nearest synthetic record's values (the simplest to explain; the learned one says the same here).
LESSON_METRIC = "recon_nearest"
#: What the attacker knows.
THREAT_MODEL = next(m for m in THREAT_MODELS if m.id == "demographics_location")

#: How each table is made (true by construction, whatever the numbers).
HOW_MADE = {
    "noisy_copy": "It is the training people, each blurred a little.",
    "fresh_sample": "It is real people who were not in the training data, drawn from the same population.",
}


def lesson_key(columns: list[str], sensitive: str | None) -> list[str]:
    """The key of the lesson: the demo's columns that the "Demographics and location" preset recognises."""
    return preset_key(THREAT_MODEL, columns, sensitive).key


def lesson_details(scenario: str, n: int) -> Reconstruction:
    """The lesson's reconstruction attack on the demo ``scenario`` with ``n`` people per table."""
    demo = load_scenario(scenario, n=n)
    schema = Schema(types=dict(demo.types), key=lesson_key(list(demo.types), demo.sensitive), sensitive=demo.sensitive,
                    seed=demo.seed)
    report = evaluate(demo.real, demo.synthetic, schema, metrics=[LESSON_METRIC], holdout=demo.holdout)
    return report[LESSON_METRIC].details


def _interval(details: Reconstruction) -> str:
    interval = details.advantage_interval
    return "" if interval is None else f" (95 % interval {interval[0]:+.3f} to {interval[1]:+.3f})"


def lesson_lines(details: Mapping[str, Reconstruction], scenarios: tuple[str, ...] = LESSON_TABLES) -> list[str]:
    """One plain paragraph per table (title → details, in the order of ``scenarios``).

    Each says how the table is made, how well the attacker fills in members and non-members, what the advantage's
    interval says, and the column it fills in best beyond the non-members; every claim read off the numbers.

    Notes
    -----
    The attacker knows the demo people's demographics and location (the Configure page's preset "Demographics and
    location", :mod:`privcore.data.threat_models`) and fills in every other column from the nearest synthetic record
    (``recon_nearest``). The noisy copy should let it fill in the training people better than other people (a leak); the
    fresh sample should fill in both equally well (what anyone infers from the population is not a leak). Every sentence
    is read off the numbers: if they said otherwise, so would the lesson.
    """
    lines = []
    for (name, d), scenario in zip(details.items(), scenarios):
        text = (f"**{name}.** {HOW_MADE.get(scenario, '')} The attacker scores {d.members:.3f} on the people the "
                f"table was made from and {d.nonmembers:.3f} on other real people: an advantage of "
                f"{d.advantage:+.3f}{_interval(d)}, so {leak_words(d)}.")
        top = ordered_columns(d)[0] if d.columns else None
        if top is not None and top.advantage_interval is not None and top.advantage_interval[0] > 0:
            text += (f" It gives away most about {top.column}: {top.members:.3f} on members against "
                     f"{top.nonmembers:.3f} on other people.")
        if d.population is not None:
            text += (f" With other real people's data released instead, the attack scores {d.population:.3f} on the "
                     "members: that much is inference from the population.")
        lines.append(text)
    return lines
