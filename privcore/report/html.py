"""The HTML download of one or more evaluations: one self-contained file.

Inline CSS, plotly.js embedded inline, no remote fonts; the page is the template ``templates/report.html.j2``.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from typing import Any, Mapping

from markupsafe import Markup

from privcore.data import column_lines
from privcore.evaluation import (
    KIND_WORDS,
    LEVEL_BANDS,
    LEVELS,
    THRESHOLD_REASON,
    VERDICT_STYLE,
    Answer,
    Assessment,
    assess,
    best_tradeoff,
    dataset_shareable,
    info_of,
    metric_applies,
    tradeoff_points,
    tradeoff_sentence,
    what_it_loses,
)
from privcore.evaluation.verdict import verdict
from privcore.metrics import registry, short_name
from privcore.report import figures as F
from privcore.report.figure_embedding import FigureWriter
from privcore.report.rendering import render
from privcore.report.tradeoff_figures import tradeoff_figure, worst_columns_figure

__all__ = ["html_report"]

#: The mark before each check of "Does this metric apply here?" (its status also in words).
CHECK_MARKS = {"ok": "✓", "warn": "⚠", "fail": "✖"}


@dataclass(frozen=True)
class _MetricCard:
    """What the report shows of one metric (``metric_card`` in ``report_parts.html.j2``)."""

    metric_id: str
    result: Any
    assessment: Assessment
    shareable: Answer | None = None
    applies: Answer | None = None
    info: Any = None
    figures: tuple[Markup, ...] = ()
    #: A utility measure's "what does it lose most?" (:func:`privcore.evaluation.interpret.what_it_loses`).
    loses: Answer | None = None


@dataclass(frozen=True)
class _OverviewCell:
    level: Any
    risk: float | None
    baseline: float | None
    #: A utility measure's score (:class:`privcore.metrics.results.UtilityScore`), else None.
    utility: Any = None


def _metric_card(report, metric_id: str, write_figure: FigureWriter, threshold: float | None,
                 include_figures: bool) -> _MetricCard:
    result = report[metric_id]
    assessment = assess(metric_id, result)
    if not assessment.applicable:
        return _MetricCard(metric_id, result, assessment)
    figures = ()
    if include_figures:
        # One map per table, drawn in the table's section.
        figures = tuple(write_figure(fig) for fig in F.metric_figures(report, metric_id)
                        if not fig.title.startswith("Map of real and synthetic"))
    # For a utility measure "shareable" is "useful" (interpret.table_useful); "at risk" is "what it loses".
    return _MetricCard(metric_id, result, assessment, shareable=dataset_shareable(metric_id, result, threshold),
                       applies=metric_applies(report, metric_id), info=info_of(metric_id), figures=figures,
                       loses=what_it_loses(report, metric_id) if assessment.is_utility else None)


def _overview(reports: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The side-by-side table: one row per metric of any report, one cell per report (None: not run)."""
    rows = []
    for metric_id in dict.fromkeys(mid for rep in reports.values() for mid in rep):
        cells = []
        for rep in reports.values():
            if metric_id not in rep:
                cells.append(None)
                continue
            a = assess(metric_id, rep[metric_id])
            cells.append(_OverviewCell(a.level, a.risk, a.baseline, a.utility))
        rows.append({"name": F.metric_name(metric_id), "cells": cells})
    return rows


def _table_section(name: str, report, write_figure: FigureWriter, threshold: float | None,
                   include_figures: bool) -> dict[str, Any]:
    """One synthetic table's section: rows, warnings, the FAMD map and the metrics by family."""
    famd = None
    if include_figures and report.data is not None and report.shared is not None:
        famd = write_figure(F.famd_map(report, max_points=1000, max_links=100))
    by_family: dict[str, list[str]] = {}
    for metric_id in report:
        info = info_of(metric_id)
        by_family.setdefault(info.family if info else "Other", []).append(metric_id)
    families = [(registry.family_heading(family),
                 [_metric_card(report, mid, write_figure, threshold, include_figures) for mid in by_family[family]])
                for family in [*registry.FAMILIES, "Other"] if family in by_family]
    return {"name": name, "rows": report.rows, "seconds": report.seconds, "warnings": report.warnings,
            "map": famd, "families": families}


def _tradeoff_section(reports: Mapping[str, Any], rule: Any, write_figure: FigureWriter,
                      include_figures: bool) -> dict[str, Any] | None:
    """The "Privacy and utility" section; None when no utility measure ran.

    One row (and one point) per table, the best trade-off in one sentence, and the worst columns of each table.
    """
    points = tradeoff_points(reports, rule)
    if not any(p.utility_score is not None for p in points):
        return None

    figures = []
    if include_figures:
        figures.append(write_figure(tradeoff_figure(points)))
        for name, report in reports.items():
            columns = worst_columns_figure(report, name)
            if columns is not None:
                figures.append(write_figure(columns))
    best = best_tradeoff(points)
    rows = [(p, short_name(p.privacy_metric) if p.privacy_metric else "") for p in points]
    return {"sentence": tradeoff_sentence(points), "rows": rows, "best": None if best is None else best.name,
            "figures": figures}


def html_report(
    reports: Mapping[str, Any],
    *,
    title: str = "Privacy report for synthetic data",
    settings: Mapping[str, Any] | None = None,
    threshold: float | None = None,
    include_figures: bool = True,
    rule: Any = None,
) -> str:
    """A self-contained HTML report of one or more evaluations.

    Inline CSS, plotly.js embedded once inline (``include_plotlyjs=True``), system fonts only: the file
    opens offline and fetches nothing.

    Parameters
    ----------
    reports : mapping
        Synthetic table name → :class:`privcore.Report`.
    title : str
        The page's title and heading.
    settings : mapping, optional
        Shown as JSON under "Settings".
    threshold : float, optional
        The excess risk up to which a table counts as shareable (default: each metric's own).
    include_figures : bool
        Embed the explanatory figures (plotly.js inline once).
    rule : privcore.evaluation.verdict.VerdictRule, optional
        The rule of "The answer" (default rule when None).

    Returns
    -------
    str
        The HTML page.

    Notes
    -----
    Inline CSS, plotly.js embedded inline (never fetched from a CDN), no remote fonts. What it says comes from
    :mod:`privcore.evaluation.interpret` and :mod:`privcore.evaluation.verdict`, so the dashboard and the file
    say the same thing; its figures are :mod:`privcore.report.figures`. The page is the template
    ``templates/report.html.j2`` (with ``report_parts.html.j2`` and ``report.css``); this module gathers what
    it shows, in the order it shows it. This module imports no Streamlit.
    """
    write_figure = FigureWriter()
    verdicts = [(name, verdict(rep, rule)) for name, rep in reports.items()]
    # Figures are written in page order: the first one written carries plotly.js.
    tradeoff = _tradeoff_section(reports, rule, write_figure, include_figures)
    # The chart of risks (utility measures have none: with only those, there is nothing to draw).
    has_risk = any(res.risk is not None for rep in reports.values() for res in rep.values())
    scores_figure = write_figure(F.scores_chart(reports)) if include_figures and has_risk else None
    tables = [_table_section(name, rep, write_figure, threshold, include_figures) for name, rep in reports.items()]
    return render(
        "report.html.j2",
        title=title,
        generated=_dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        levels=[LEVELS[k] for k in ("low", "moderate", "high")],
        bands=LEVEL_BANDS,
        threshold_reason=THRESHOLD_REASON,
        verdicts=verdicts,
        columns={name: column_lines(getattr(rep, "columns", None) or []) for name, rep in reports.items()},
        verdict_styles=VERDICT_STYLE,
        tradeoff=tradeoff,
        kind_words=KIND_WORDS,
        rule_lines=verdicts[0][1].rule.describe() if verdicts else None,
        settings_json=json.dumps(settings, indent=2, default=str) if settings else None,
        table_names=list(reports),
        overview=_overview(reports),
        scores_figure=scores_figure,
        tables=tables,
        CHECK_MARKS=CHECK_MARKS,
    )
