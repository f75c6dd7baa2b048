"""Plotly figures that show *why* a metric scored what it did, for the dashboard and the HTML report.

The figures' one public face (``from privcore.report import figures as F``); the code lives in modules by family
(figure_base, generic, record, distance, membership, detail figures and the dispatcher). No Streamlit import.
"""

from __future__ import annotations

from privcore.base import DASHES, OKABE_ITO, PALETTE, ROLE_COLOURS, SYMBOLS
from privcore.metrics import SHORT_NAMES, metric_name, short_name
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
