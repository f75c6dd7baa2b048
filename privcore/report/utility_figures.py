"""The figures of the utility measures (metrics.md §6).

Column shapes, the pair-difference heatmap, train on synthetic / test on real with intervals, and the discriminator's
folds. Each draws the synthetic table's evidence and, where the §5 baseline ran, the fresh sample's beside it.
Conventions of :mod:`privcore.report.figure_base`. This module imports no Streamlit.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from privcore.base import OKABE_ITO, ROLE_COLOURS
from privcore.metrics import ColumnShapes, Discrimination, ModelUtility, PairTrends
from privcore.report.figure_base import Figure, apply_layout, empty_figure, wrap_category_ticks
from privcore.report.generic_figures import fold_scores

__all__ = ["column_shapes_figure", "pair_trends_figure", "model_utility_figure", "discrimination_figure"]


def _fresh(result, kind):
    """The fresh sample's details of the same kind (the §5 baseline), or None."""
    details = getattr(getattr(result, "baseline_output", None), "details", None)
    return details if isinstance(details, kind) else None


def column_shapes_figure(report, result, name: str) -> list[Figure]:
    """Per column, 1 − TVD and 1 − Hellinger of the synthetic table, and 1 − TVD of a fresh sample."""
    d: ColumnShapes = result.details
    fresh = _fresh(result, ColumnShapes)
    title = f"{name}: how closely each column follows the real table"
    fig = go.Figure()
    fig.add_trace(go.Bar(y=d.columns, x=[1 - v for v in d.tvd], orientation="h", name="synthetic: 1 − TVD",
                         marker={"color": ROLE_COLOURS["synthetic"]}))
    fig.add_trace(go.Bar(y=d.columns, x=[1 - v for v in d.hellinger], orientation="h",
                         name="synthetic: 1 − Hellinger", marker={"color": ROLE_COLOURS["synthetic"],
                                                                  "pattern": {"shape": "/"}, "opacity": 0.6}))
    if fresh is not None:
        fig.add_trace(go.Bar(y=fresh.columns, x=[1 - v for v in fresh.tvd], orientation="h",
                             name="fresh sample (holdout): 1 − TVD",
                             marker={"color": ROLE_COLOURS["holdout"], "pattern": {"shape": "."}}))
    height = max(300, 60 + 26 * len(d.columns) * (3 if fresh is not None else 2))
    apply_layout(fig, title, "1 = the same proportions as in the real table", "", height=height)
    fig.update_layout(barmode="group")
    fig.update_xaxes(range=[0, 1.02])
    fig.update_yaxes(autorange="reversed")
    wrap_category_ticks(fig, list(d.columns))
    worst = int(np.argmax(d.tvd)) if d.tvd else 0
    caption = ("Each bar shows how closely one column's values come in the real table's proportions (1 = exactly); "
               "the fresh sample's bar shows how much chance alone costs.")
    alt = (f"Horizontal bars per column of 1 − TVD for the synthetic table (mean {d.utility:.3f}); the lowest is "
           f"{d.columns[worst]} at {1 - d.tvd[worst]:.3f}" + (
               f"; a fresh sample of real people averages {fresh.utility:.3f}." if fresh is not None else "."))
    return [Figure(fig, caption, alt, title)]


def pair_trends_figure(report, result, name: str) -> list[Figure]:
    """The heatmap of |association in the real table − in the synthetic table| for every pair of columns."""
    d: PairTrends = result.details
    title = f"{name}: change in how columns go together"
    if not d.pairs:
        return [empty_figure(title, f"{name} had no pair of columns to compare.")]
    index = {c: i for i, c in enumerate(d.columns)}
    size = len(d.columns)
    matrix = np.full((size, size), np.nan)
    hover = np.full((size, size), "", dtype=object)
    for (a, b), measure, real, synthetic, diff in zip(d.pairs, d.measure, d.real, d.synthetic, d.difference):
        label = "ρ" if measure == "pearson" else "V"
        for i, j in ((index[a], index[b]), (index[b], index[a])):
            matrix[i, j] = diff
            hover[i, j] = f"{a} × {b}: {label} {real:.2f} real, {synthetic:.2f} synthetic, difference {diff:.2f}"
    fig = go.Figure(go.Heatmap(
        z=matrix, x=d.columns, y=d.columns, zmin=0, zmax=max(0.5, float(np.nanmax(matrix))),
        colorscale=[[0.0, "#FFFFFF"], [0.5, OKABE_ITO["orange"]], [1.0, OKABE_ITO["vermillion"]]],
        text=np.where(np.isnan(matrix), "", np.vectorize(lambda v: f"{v:.2f}")(np.nan_to_num(matrix))),
        texttemplate="%{text}", customdata=hover, hovertemplate="%{customdata}<extra></extra>",
        colorbar={"title": {"text": "difference"}}))
    apply_layout(fig, title, "", "", height=max(380, 120 + 34 * size))
    fig.update_yaxes(autorange="reversed")
    worst = int(np.argmax(d.difference))
    caption = ("Each square compares how strongly two columns go together in the synthetic and in the real table; "
               "white means the relation was kept, dark orange that it was lost or invented.")
    alt = (f"Heatmap of {len(d.pairs)} pairs of columns: the difference in association between the real and the "
           f"synthetic table; the largest is {' × '.join(d.pairs[worst])} at {d.difference[worst]:.2f}; "
           f"{d.utility:.0%} of the real table's association is kept.")
    return [Figure(fig, caption, alt, title)]


def model_utility_figure(report, result, name: str) -> list[Figure]:
    """Per target and learner: the model trained on synthetic and on real, both tested on the holdout.

    With the intervals over the seeds.
    """
    d: ModelUtility = result.details
    title = f"{name}: models trained on synthetic and on real data, tested on real people"
    labels = [f"{s.target}, {s.learner} ({s.score_name})" for s in d.scores]
    fig = go.Figure()
    for role, colour, pattern, label in (("synthetic", ROLE_COLOURS["synthetic"], "", "trained on synthetic"),
                                         ("real", ROLE_COLOURS["real"], "/", "trained on real")):
        values = [getattr(s, role) for s in d.scores]
        intervals = [getattr(s, f"{role}_interval") for s in d.scores]
        fig.add_trace(go.Bar(
            y=labels, x=values, orientation="h", name=label, marker={"color": colour, "pattern": {"shape": pattern}},
            error_x={"type": "data", "symmetric": False, "color": OKABE_ITO["black"],
                     "array": [0.0 if i is None else max(0.0, i[1] - v) for v, i in zip(values, intervals)],
                     "arrayminus": [0.0 if i is None else max(0.0, v - i[0]) for v, i in zip(values, intervals)]}))
    apply_layout(fig, title, "score on the holdout (higher is better)", "", height=max(280, 90 + 60 * len(labels)))
    fig.update_layout(barmode="group")
    fig.update_yaxes(autorange="reversed")
    wrap_category_ticks(fig, labels)
    caption = ("Each pair of bars compares a model trained on the synthetic table with the same model trained on the "
               "real table, both tested on real people neither saw; equal bars mean the synthetic table trains as "
               "good a model.")
    alt = "Grouped bars: " + "; ".join(
        f"{label}: {s.synthetic:.3f} trained on synthetic, {s.real:.3f} on real (ratio {s.ratio:.2f})"
        for label, s in zip(labels, d.scores)) + "."
    return [Figure(fig, caption, alt, title)]


def discrimination_figure(report, result, name: str) -> list[Figure]:
    """The discriminator's AUC on each fold, with the chance level 0.5."""
    d: Discrimination = result.details
    figure = fold_scores(d.fold_aucs, name=name, label="ROC AUC", chance=0.5)
    caption = ("Each bar is how well a classifier tells real from synthetic rows it did not train on; bars at the "
               "dashed line (0.5) mean the synthetic rows pass for real ones.")
    return [Figure(figure.fig, caption, figure.alt, figure.title)]


#: The figures of each utility kind of evidence (joined to :data:`privcore.report.detail_figures.DETAIL_FIGURES`).
UTILITY_FIGURES = {
    ColumnShapes: column_shapes_figure,
    PairTrends: pair_trends_figure,
    ModelUtility: model_utility_figure,
    Discrimination: discrimination_figure,
}
