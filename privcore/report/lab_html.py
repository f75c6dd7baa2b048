"""The metric lab's self-contained HTML page, shared by ``python -m privcore lab --html`` and the Compare-metrics page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from privcore.lab import LEAK_PHRASES, format_level, short_name
from privcore.metrics import registry
from privcore.report.figure_embedding import FigureWriter
from privcore.report.rendering import render

__all__ = ["lab_html"]


def lab_html(document: Mapping[str, Any], *, include_figures: bool = True, title: str | None = None) -> str:
    """A self-contained HTML page of a lab report.

    Parameters
    ----------
    document : mapping
        The lab's JSON document (``LabResult.to_dict()``, optionally with ``settings["real"]`` and
        ``settings["holdout"]`` naming the tables).
    include_figures : bool
        Embed the detection heatmap, the response curves and the agreement heatmap (plotly.js inline).
    title : str, optional
        The page's heading (default: "Metric lab: which metric notices which leak").

    Returns
    -------
    str
        The HTML page.

    Notes
    -----
    The page is built from the lab's JSON document (:meth:`privcore.lab.LabResult.to_dict`): settings, the
    detection table, the figures of :mod:`privcore.report.lab_figures` (each with its caption and text description),
    the summary sentences, the monotonicity table and the metrics that did not run. Like
    :func:`privcore.report.html.html_report` it is one file: inline CSS, plotly.js embedded inline once, no remote
    fonts, nothing fetched. The page is the template ``templates/lab.html.j2`` (with ``lab.css``).
    """
    settings = document["settings"]
    leaks = list(settings["leaks"])
    labels = settings.get("kind") == "supplied"

    def level(leak: str, value) -> str:
        return "never" if value is None else format_level(leak, value, labels=labels)

    def rho(value) -> str:
        return "n/a" if value is None else f"{value:+.2f}"

    seconds = settings.get("seconds")
    return render(
        "lab.html.j2",
        title=title or "Metric lab: which metric notices which leak",
        settings=settings,
        real=str(settings.get("real") or ""),
        sizes=", ".join(f"{k} {v}" for k, v in settings.get("rows", {}).items() if v is not None),
        seconds=seconds if isinstance(seconds, (int, float)) else None,
        leak_phrases=[LEAK_PHRASES.get(leak, leak) for leak in leaks],
        detection=[(_metric_label(m), [level(leak, by_leak.get(leak)) for leak in leaks])
                   for m, by_leak in document["detection"].items()],
        monotonicity=[(_metric_label(m), [rho(by_leak.get(leak)) for leak in leaks])
                      for m, by_leak in document.get("monotonicity", {}).items()],
        summaries=list(document["summary"].values()),
        not_run=[(_metric_label(m), reason) for m, reason in document.get("not_applicable", {}).items()],
        figures=_figures(document) if include_figures else None,
    )


def _metric_label(metric: str) -> str:
    """The metric's short name, or its id when the registry does not know it."""
    try:
        return short_name(registry.get(metric).name)
    except KeyError:
        return metric


def _figures(document: Mapping[str, Any]) -> list[Markup]:
    # Imported here, not at the top: the lab's figures load Plotly, which ``lab --json`` and a page without
    # figures never need, so the command line starts fast.
    from privcore.report.lab_figures import lab_figures

    write = FigureWriter()
    return [write(figure) for figure in lab_figures(document)]
