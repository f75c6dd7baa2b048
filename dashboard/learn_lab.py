"""The Learn page's computations: chance, which metric catches which leak, and lesson 1's distance.

They tell whether a lesson's effect is more than chance, which metric catches which leak, and (lesson 1) what the
distance to the closest record is made of. No Streamlit here: the page caches the results per session.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from privcore import lab
from privcore.data import Schema
from privcore.demo import load_adult, load_scenario, sample_positions
from privcore.lab import LEAK_PHRASES, LabResult, format_level
from privcore.report import short_name

#: The lesson lab: three leak types a learner has met in the earlier lessons, three levels, three seeds.
LESSON_LEAKS = ("partial_copy", "rare_records", "column_resample")
LESSON_LEVELS = (0.0, 0.5, 1.0)
LESSON_SEEDS = 3
LESSON_METRICS = ("crp", "dcr", "dcr_test", "mia_distance", "singling_out_univariate")
#: Metrics compared on the resampler's draws in lesson 3.
RESAMPLER_METRICS = ("singling_out_univariate", "dcr", "mia_distance")


def demo_schema(n: int) -> tuple[Schema, object]:
    """The column-resampler demo at ``n`` rows and its schema."""
    demo = load_scenario("column_resampler", n=n)
    return Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive, seed=int(demo.seed)), demo


def lesson_lab(n: int, *, seed: int = 0) -> LabResult:
    """The lesson's metric lab on the demo's ``n`` real people and holdout (seeded: the same on every run)."""
    schema, demo = demo_schema(n)
    return lab.run(demo.real, schema, holdout=demo.holdout, leaks=LESSON_LEAKS, levels=LESSON_LEVELS,
                   seeds=LESSON_SEEDS, metrics=LESSON_METRICS, seed=seed)


@dataclass(frozen=True)
class Draws:
    """Risks of one metric on several resampler draws and on as many fresh samples of real people."""

    metric: str
    resampler: list[float]
    fresh: list[float]
    detected: bool

    @property
    def above_every_fresh(self) -> int:
        """Resampler draws whose risk exceeds every fresh sample's."""
        return sum(r > max(self.fresh) for r in self.resampler)


def resampler_draws(n: int, draws: int = 4) -> dict[str, Draws]:
    """The demo's per-column resampler at ``draws`` generator seeds against ``draws`` fresh samples.

    The fresh samples are the next disjoint samples of the Adult table after the demo's real table and
    holdout (people the generator never saw), each as large as the resampler's output. The comparison is
    :func:`privcore.lab.run_ladder` with the fresh samples as the reference (label 0) and the resampler's
    draws as label 1, so ``detected`` is the lab's rule: every draw above every fresh sample by more than
    the margin.

    Notes
    -----
    One synthetic table is one draw. Lesson 3 compares several draws of the demo's per-column resampler
    with several fresh samples of real people; lesson 5 runs a small, seeded metric lab on the demo
    (:func:`lesson_lab`). Both use :mod:`privcore.lab`, so their detection rule is the Compare-metrics page's.
    """
    schema, demo = demo_schema(n)
    adult = load_adult()
    fresh = [adult.iloc[p].reset_index(drop=True) for p in sample_positions(n, parts=2 + draws)[2:]]
    resampled = [load_scenario("column_resampler", n=n, seed=s).synthetic for s in range(draws)]
    result = lab.run_ladder(demo.real, {0.0: fresh, 1.0: resampled}, schema, holdout=demo.holdout,
                            metrics=RESAMPLER_METRICS, name="column_resampler")
    out = {}
    for metric in RESAMPLER_METRICS:
        runs = [r for r in result.runs if r.metric == metric and r.risk is not None]
        out[metric] = Draws(metric, [r.risk for r in runs if r.level == 1.0], [r.risk for r in runs if r.level == 0.0],
                            result.detection[metric]["column_resampler"] is not None)
    return out


def draws_sentence(name: str, draws: Draws) -> str:
    """What the draws show for one metric, in words.

    >>> draws_sentence("Singling out", Draws("so", [0.4, 0.5], [0.0, 0.1], True))
    'Singling out: 0.40 to 0.50 on the resampler, 0.00 to 0.10 on fresh real samples; every draw is above every fresh sample, so here the effect is more than chance.'
    """
    spread = (f"{name}: {min(draws.resampler):.2f} to {max(draws.resampler):.2f} on the resampler, "
              f"{min(draws.fresh):.2f} to {max(draws.fresh):.2f} on fresh real samples; ")
    if draws.detected:
        return spread + "every draw is above every fresh sample, so here the effect is more than chance."
    if draws.above_every_fresh:
        return spread + (f"only {draws.above_every_fresh} of {len(draws.resampler)} draws are above every fresh "
                         "sample, so one table could have shown it by chance.")
    if max(draws.resampler) < min(draws.fresh):
        return spread + "the resampler scores lower than every fresh sample: this metric finds it safer than real data."
    return spread + "the two overlap: this metric does not tell the resampler from fresh real data."


def walkthrough(result: LabResult) -> list[str]:
    """One plain sentence per leak type of the lesson lab: which metrics noticed it, from which level, which never.

    >>> from privcore.lab import LabResult
    >>> r = LabResult(runs=[], detection={"crp": {"partial_copy": 0.5}, "dcr": {"partial_copy": None}},
    ...               agreement={}, summary={}, curves={}, monotonicity={},
    ...               settings={"leaks": ["partial_copy"], "metrics": ["crp", "dcr"]})
    >>> walkthrough(r)
    ['**Partial copies**: noticed by CRP from level 0.5; never noticed by DCR.']
    """
    lines = []
    for leak in result.settings["leaks"]:
        ran = [m for m in result.settings["metrics"] if m not in result.not_applicable]
        by_level: dict[float, list[str]] = {}
        for metric in ran:
            level = result.detection[metric][leak]
            if level is not None:
                by_level.setdefault(level, []).append(short_name(metric))
        missed = [short_name(m) for m in ran if result.detection[m][leak] is None]
        phrase = LEAK_PHRASES.get(leak, leak)
        parts = [f"noticed by {', '.join(names)} from {format_level(leak, level)}"
                 for level, names in sorted(by_level.items())]
        if missed:
            parts.append(f"never noticed by {', '.join(missed)}" if parts
                         else f"none of the metrics noticed it ({', '.join(missed)})")
        lines.append(f"**{phrase[0].upper() + phrase[1:]}**: " + "; ".join(parts) + ".")
    return lines


def closest_sentence(breakdown: pd.DataFrame) -> str:
    """Lesson 1's reading of :func:`privcore.evaluation.interpret.distance_breakdown`.

    It tells which columns make the closest and the next synthetic record as far as they are.
    """
    shares = [c for c in breakdown.columns if c.endswith(": adds to d²")]
    parts = []
    for column in shares:
        values = pd.to_numeric(breakdown[column].iloc[:-1], errors="coerce").dropna()
        record = column.removesuffix(": adds to d²")
        distance = breakdown.loc["distance d", record]
        if values.sum() == 0:
            parts.append(f"{record} is at distance 0: every column is the same")
            continue
        top = values.sort_values(ascending=False)
        top = top[top > 0].head(2)
        names = " and ".join(f"{name} ({value:.3g})" for name, value in top.items())
        parts.append(f"{record} is at distance {distance}, mostly because of {names}")
    return ("; ".join(parts) + ". A column that differs a lot counts for more than several that differ a little, "
            "which is why the closest record need not look closest on the first few columns.") if parts else ""
