"""The Learn page's lesson "People, not rows": a league of players evaluated per person and joined row by row."""

from __future__ import annotations

from dataclasses import dataclass

from privcore import evaluate, evaluate_related, infer_schema
from privcore.demo import joined, load_related
from privcore.evaluation.verdict import verdict
from privcore.report import people_or_rows_figure

#: Players per table: enough people for the attacks to tell a copied career apart (at 200 they could not).
LESSON_PLAYERS = 400


@dataclass(frozen=True)
class Outcome:
    """One evaluation of the lesson: the answer and the strongest attack's excess over chance."""

    answer: str
    excess: float | None
    records: int


def _outcome(report) -> Outcome:
    best = report.results.get("mia_best")
    excess = None if best is None or best.risk is None else float(best.risk)
    return Outcome(verdict(report).level, excess, int(report.rows["real"]))


def lesson_results(players: int = LESSON_PLAYERS) -> dict[str, Outcome]:
    """The fresh and the copied league per person, and the fresh league joined into one row per season."""
    fresh, leak = load_related("people_fresh", players), load_related("people_leak", players)
    out = {name: _outcome(evaluate_related(s.real, s.synthetic, [s.relation], holdout=s.holdout, metrics="quick"))
           for name, s in (("fresh per person", fresh), ("copied per person", leak))}
    real = joined(fresh.real)
    out["fresh joined"] = _outcome(evaluate(real, joined(fresh.synthetic), infer_schema(real), metrics="quick",
                                            holdout=joined(fresh.holdout)))
    return out


def lesson_lines(results: dict[str, Outcome]) -> list[str]:
    """The lesson's numbers in plain words."""
    def attack(outcome: Outcome) -> str:
        return "" if outcome.excess is None else f", the strongest attack {outcome.excess:.2f} above a coin flip"

    fresh, copied, rows = results["fresh per person"], results["copied per person"], results["fresh joined"]
    return [
        f"**Other real players, per person** ({fresh.records:,} players): *{fresh.answer}*{attack(fresh)}.",
        f"**Copied careers, per person**: *{copied.answer}*{attack(copied)}: each synthetic player's seasons, "
        "together, are a training player's career.",
        f"**Other real players, joined row by row** ({rows.records:,} seasons): *{rows.answer}*{attack(rows)}. "
        "Each player's birth year, country and build repeat on every one of their seasons, and one player's seasons "
        "fall on both sides of the attacks' splits: the attacks learn the players, not the generator, and call a "
        "league of other real players a leak.",
    ]


#: The lesson's three evaluations, in the figure's order, with their labels.
LABELS = {"fresh per person": "Other real players, per person", "copied per person": "Copied careers, per person",
          "fresh joined": "Other real players, joined row by row"}


def lesson_figure(results: dict[str, Outcome]):
    """The strongest attack's excess over a coin flip in each of the lesson's three evaluations, with the answer."""
    names = list(LABELS)
    return people_or_rows_figure([LABELS[name] for name in names], [results[name].excess for name in names],
                                 [results[name].answer for name in names])
