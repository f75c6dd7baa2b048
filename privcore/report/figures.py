"""Plotly figures that show *why* a metric scored what it did, for the dashboard and the HTML report.

Every builder returns a :class:`Figure`: the Plotly figure, a one-sentence caption a non-expert can read
and an alt text for screen readers. Colours come only from the Okabe–Ito palette (distinguishable with
the common colour-vision deficiencies), and no group is told apart by colour alone: lines also differ in
dash pattern, points in marker symbol. Large tables are sampled for plotting (at most
:data:`MAX_POINTS` points and :data:`MAX_LINKS` neighbour links); histograms are binned here, so a figure
carries a few hundred numbers, not the data.

:func:`metric_figures` picks the explanatory figures of one metric from a :class:`privcore.Report`;
everything it draws comes from the same computation as the score (the report's shared neighbour caches,
the metric's ``per_record`` values and ``details``). For a metric whose ``details`` it does not know it
falls back to the distribution of its per-record risks.

This module is the figures' one public face (``from privcore.report import figures as F``); the code lives
in modules by family, each importing only the ones below it:

- :mod:`privcore.report.figure_base`: :class:`Figure` and the shared layout, formats and binning;
- :mod:`privcore.report.generic_figures`: builders from plain arrays (histograms, intervals, ROC...);
- :mod:`privcore.report.record_figures`: which real people are exposed (narrowing, rare values, flags);
- :mod:`privcore.report.distance_figures`: figures from the report's shared neighbour passes;
- :mod:`privcore.report.membership_figures`: the membership attack battery;
- :mod:`privcore.report.detail_figures`: the figures of each ``details`` type;
- :mod:`privcore.report.dispatcher`: :func:`metric_figures` and :func:`scores_chart`.

This module imports no Streamlit.
"""

from __future__ import annotations

from privcore.base.palette import DASHES, OKABE_ITO, PALETTE, ROLE_COLOURS, SYMBOLS
from privcore.metrics.names import SHORT_NAMES, metric_name, short_name
from privcore.report.detail_figures import DETAIL_FIGURES, attack_rates
from privcore.report.dispatcher import metric_figures, scores_chart
from privcore.report.distance_figures import distance_comparison, famd_map, normalised_distance_histogram
from privcore.report.figure_base import BIN_DECIMALS, BINS, MAX_LINKS, MAX_POINTS, Figure
from privcore.report.generic_figures import (
                                             attack_intervals,
                                             distance_histogram,
                                             epsilon_curve,
                                             fold_scores,
                                             per_record_distribution,
                                             roc_curves,
                                             scores_overview,
)
from privcore.report.record_figures import (
                                             flag_counts,
                                             flag_overlap,
                                             narrowing,
                                             narrowing_steps,
                                             rare_values,
                                             rare_values_copied,
)

__all__ = [
    "OKABE_ITO",
    "PALETTE",
    "ROLE_COLOURS",
    "DASHES",
    "SYMBOLS",
    "Figure",
    "MAX_POINTS",
    "MAX_LINKS",
    "BINS",
    "BIN_DECIMALS",
    "distance_histogram",
    "distance_comparison",
    "normalised_distance_histogram",
    "famd_map",
    "per_record_distribution",
    "attack_intervals",
    "roc_curves",
    "epsilon_curve",
    "fold_scores",
    "scores_overview",
    "scores_chart",
    "narrowing",
    "narrowing_steps",
    "rare_values",
    "rare_values_copied",
    "flag_counts",
    "flag_overlap",
    "metric_figures",
    "metric_name",
    "short_name",
    "SHORT_NAMES",
    "attack_rates",
    "DETAIL_FIGURES",
]
