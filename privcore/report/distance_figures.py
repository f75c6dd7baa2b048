"""Figures that read a report's shared neighbour passes: distance comparisons, the normalised distance and the FAMD map.

Everything they draw comes from the same computation as the scores (:attr:`privcore.Report.shared`): a pass
the metrics did not need is computed on first use and cached for the next figure. Conventions of
:mod:`privcore.report.figure_base`. This module imports no Streamlit.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import plotly.graph_objects as go

from privcore.base import ROLE_COLOURS, NotApplicable
from privcore.engine import nearest_two
from privcore.report.figure_base import (
    MAX_LINKS,
    MAX_POINTS,
    Figure,
    apply_layout,
    empty_figure,
    finite_values,
    sample_indices,
)
from privcore.report.generic_figures import distance_histogram

__all__ = ["distance_comparison", "normalised_distance_histogram", "famd_map"]


def _has_pass(report, space: str, query: str, reference: str) -> bool:
    shared = getattr(report, "shared", None)
    return shared is not None and (space, query, reference) in getattr(shared, "passes", [])


def _neighbours(report, space: str, query: str, reference: str):
    """The shared neighbour pass (computed on first use, then cached for every later figure)."""
    return report.shared.neighbours(space, query, reference)


def distance_comparison(report, space: str = "E", *, name: str | None = None) -> Figure:
    """Distances from each real record to its nearest synthetic record, against its nearest other real record.

    Also against its nearest holdout record; from the report's shared neighbour passes.
    """
    space_word = {"phi": "the FAMD projection", "E_idscore": "IdScore's entropy-weighted space"}.get(
        space, "the encoded space E")
    title = f"{name + ': ' if name else ''}how close synthetic records come to real people"
    if report is None or getattr(report, "shared", None) is None:
        return empty_figure(title, "This report carries no neighbour data.")
    groups = {
        "real → nearest synthetic": _neighbours(report, space, "real", "synthetic").d1,
        "real → nearest other real": _neighbours(report, space, "real", "real").d1,
    }
    colours = {"real → nearest synthetic": ROLE_COLOURS["synthetic"],
               "real → nearest other real": ROLE_COLOURS["real→real"]}
    if report.data is not None and report.data.holdout is not None:
        groups["real → nearest holdout"] = _neighbours(report, space, "real", "holdout").d1
        colours["real → nearest holdout"] = ROLE_COLOURS["holdout"]
    syn = finite_values(groups["real → nearest synthetic"])
    rr = finite_values(groups["real → nearest other real"])
    zero = int(np.sum(syn == 0))
    caption = ("If the synthetic line sits left of the other lines, synthetic records are closer to real people than "
               "real people are to each other: a sign of copying.")
    alt = (f"Step histograms of distances in {space_word}. Median distance from a real record to its nearest synthetic "
           f"record {np.median(syn):.3g}, to its nearest other real record {np.median(rr):.3g}"
           + (f", to its nearest holdout record {np.median(finite_values(groups['real → nearest holdout'])):.3g}"
              if "real → nearest holdout" in groups else "")
           + f"; {zero:,} of {len(syn):,} real records have a synthetic record at distance 0.")
    return distance_histogram(groups, title=title, x_title=f"distance in {space_word}", caption=caption, alt=alt,
                              colours=colours)


def normalised_distance_histogram(report, *, thresholds: Mapping[str, float] | None = None,
                                  name: str | None = None) -> Figure:
    """The review's normalised distance n(y) = (d_YZ − d_min)/(d_max − d_min) with CVP/DVP thresholds."""
    title = f"{name + ': ' if name else ''}normalised distance of each real record to the synthetic data"
    if report is None or getattr(report, "shared", None) is None:
        return empty_figure(title, "This report carries no neighbour data.")
    # The same n(y) as CVP, DVP and NSND (PairExtremes.normalise), not a second rule for the figure.
    n_y = report.shared.extremes("E", "real", "synthetic").normalise(_neighbours(report, "E", "real", "synthetic").d1)
    groups = {"real → synthetic": n_y}
    colours = {"real → synthetic": ROLE_COLOURS["synthetic"]}
    if report.data is not None and report.data.holdout is not None:
        to_holdout = _neighbours(report, "E", "real", "holdout").d1
        groups["real → holdout (fresh sample)"] = report.shared.extremes("E", "real", "holdout").normalise(to_holdout)
        colours["real → holdout (fresh sample)"] = ROLE_COLOURS["holdout"]
    thresholds = dict(thresholds or {"CVP threshold 0.2": 0.2, "DVP threshold 0.8": 0.8})
    v = finite_values(n_y)
    caption = ("Records left of the 0.2 line have a synthetic look-alike unusually close (CVP counts them); records "
               "right of the 0.8 line have none nearby (DVP counts them).")
    alt = (f"Histogram of normalised distances for {len(v):,} real records: {np.mean(v <= 0.2):.1%} at or below 0.2, "
           f"{np.mean(v >= 0.8):.1%} at or above 0.8, median {np.median(v):.3f}.")
    fig = distance_histogram(groups, title=title, x_title="normalised distance n(y) (0 = closest pair, 1 = farthest)",
                             caption=caption, alt=alt, markers=thresholds, colours=colours)
    return fig


def famd_map(report, *, max_points: int = MAX_POINTS, max_links: int = MAX_LINKS, seed: int = 0) -> Figure:
    """Real and synthetic records on the first two FAMD axes, with links to their nearest synthetic record.

    The links go from a sample of real records to their nearest synthetic record, nearest in the full projection Φk, as
    DCR and NNDR see it.
    """
    title = "Map of real and synthetic records (first two FAMD axes)"
    if report is None or getattr(report, "shared", None) is None or report.data is None:
        return empty_figure(title, "This report carries no prepared data.")
    try:
        phi = report.shared.space("phi")
    except NotApplicable as exc:  # CRP, HitR and the attacks run without it; the map cannot
        return empty_figure(title, f"No FAMD map: {exc}")
    if phi.components.shape[1] == 0:
        return empty_figure(title, "No FAMD map: every analysed column is constant in the real table, so there is "
                                   "no axis to draw.")
    real = report.shared.encoded("phi", "real")
    syn = report.shared.encoded("phi", "synthetic")
    if _has_pass(report, "phi", "real", "synthetic"):
        nb = report.shared.neighbours("phi", "real", "synthetic")
        link_rows = sample_indices(len(real), max_links, seed + 1)
        link_to = nb.i1[link_rows]
        link_d = nb.d1[link_rows]
    else:
        link_rows = sample_indices(len(real), max_links, seed + 1)
        nb, _ = nearest_two(real[link_rows], syn)
        link_to, link_d = nb.i1, nb.d1

    def xy(coords: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = coords[:, 0]
        y = coords[:, 1] if coords.shape[1] > 1 else np.zeros(len(coords))
        return x, y

    total = float(phi.eigenvalues.sum() / max(phi.explained_inertia, 1e-300))
    share = [float(e / total) if total > 0 else 0.0 for e in phi.eigenvalues[:2]]
    fig = go.Figure()
    ok = link_to >= 0
    lx, ly = [], []
    rx, ry = xy(real)
    sx, sy = xy(syn)
    for r, s in zip(link_rows[ok], link_to[ok]):
        lx += [rx[r], sx[s], None]
        ly += [ry[r], sy[s], None]
    fig.add_trace(go.Scatter(x=lx, y=ly, mode="lines", name=f"link to nearest synthetic ({int(ok.sum())} sampled)",
                             line={"color": ROLE_COLOURS["link"], "width": 1}, opacity=0.35, hoverinfo="skip"))
    ri = sample_indices(len(real), max_points // 2, seed)
    si = sample_indices(len(syn), max_points // 2, seed + 2)
    fig.add_trace(go.Scattergl(x=rx[ri], y=ry[ri], mode="markers", name=f"real ({len(ri):,} of {len(real):,})",
                               marker={"color": ROLE_COLOURS["real"], "symbol": "circle", "size": 6, "opacity": 0.6},
                               customdata=ri, hovertemplate="real row %{customdata}<extra></extra>"))
    fig.add_trace(go.Scattergl(x=sx[si], y=sy[si], mode="markers",
                               name=f"synthetic ({len(si):,} of {len(syn):,})",
                               marker={"color": ROLE_COLOURS["synthetic"], "symbol": "x", "size": 6, "opacity": 0.7},
                               customdata=si, hovertemplate="synthetic row %{customdata}<extra></extra>"))
    apply_layout(fig, title, f"FAMD axis 1 ({share[0]:.0%} of variation)" if share else "FAMD axis 1",
                 f"FAMD axis 2 ({share[1]:.0%} of variation)" if len(share) > 1 else "(one axis only)", height=480)
    d = finite_values(link_d)
    caption = ("Each dot is a person (blue circles real, orange crosses synthetic) placed so that similar records sit "
               "close together; short black links mean a synthetic record almost duplicates a real one.")
    alt = (f"Scatter plot of {len(ri):,} real and {len(si):,} synthetic records on the first two FAMD axes "
           f"(together {sum(share):.0%} of the variation). {int(ok.sum())} sampled real records are linked to their "
           f"nearest synthetic record; median link length {np.median(d) if len(d) else float('nan'):.3g}, "
           f"{int(np.sum(d == 0))} links of length 0 (exact copies in the projection).")
    return Figure(fig, caption, alt, title)
