"""The metric lab's self-contained HTML page, shared by ``python -m privcore lab --html`` and the Compare-metrics page.

The page is built from the lab's JSON document (:meth:`privcore.lab.LabResult.to_dict`): settings, the
detection table, the figures of :mod:`privcore.report.lab_figures` (each with its caption and text description),
the summary sentences, the monotonicity table and the metrics that did not run. Like
:func:`privcore.report.html.html_report` it is one file: inline CSS, plotly.js embedded inline once, no remote
fonts, nothing fetched. Plotly is imported only when figures are drawn, so the command line starts fast.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

__all__ = ["lab_html"]

_STYLE = """body{font-family:sans-serif;max-width:75rem;margin:2rem auto;padding:0 1rem;color:#000}
table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #bbb;padding:.25rem .5rem}
td{text-align:right}thead th{background:#eee}.muted{color:#444}
figure{margin:1.5rem 0}figcaption{color:#333;margin:.3rem 0}"""


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
    """
    from privcore.metrics import registry
    from privcore.lab.summary import LEAK_PHRASES, format_level, short_name

    esc = html.escape
    settings = document["settings"]
    leaks = list(settings["leaks"])
    labels = settings.get("kind") == "supplied"
    title = title or "Metric lab: which metric notices which leak"

    def name(metric: str) -> str:
        try:
            return short_name(registry.get(metric).name)
        except KeyError:
            return metric

    def level(leak: str, value) -> str:
        return "never" if value is None else format_level(leak, value, labels=labels)

    def rho(value) -> str:
        return "n/a" if value is None else f"{value:+.2f}"

    head = "".join(f"<th>{esc(LEAK_PHRASES.get(leak, leak))}</th>" for leak in leaks)
    detection = "".join(
        f"<tr><th>{esc(name(m))}</th>" + "".join(
            f"<td>{esc(level(leak, by_leak.get(leak)))}</td>" for leak in leaks) + "</tr>"
        for m, by_leak in document["detection"].items())
    monotone = "".join(
        f"<tr><th>{esc(name(m))}</th>" + "".join(f"<td>{rho(by_leak.get(leak))}</td>" for leak in leaks) + "</tr>"
        for m, by_leak in document.get("monotonicity", {}).items())
    summaries = "".join(f"<li>{esc(sentence)}</li>" for sentence in document["summary"].values())
    not_run = "".join(f"<li>{esc(name(m))}: {esc(reason)}</li>"
                      for m, reason in document.get("not_applicable", {}).items())
    rows = settings.get("rows", {})
    sizes = ", ".join(f"{k} {v}" for k, v in rows.items() if v is not None)
    figures = _figures_html(document) if include_figures else ""
    seconds = f" Ran in {settings['seconds']:.1f} s." if isinstance(settings.get("seconds"), (int, float)) else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>
<style>{_STYLE}</style></head><body>
<h1>{esc(title)}</h1>
<p>Real table: {esc(str(settings.get('real') or ''))}; rows: {esc(sizes)}. {settings['seeds']} seed(s) per
level; reference: {esc(settings['reference'])}; margin {settings['margin']:g}.{seconds}</p>
<p>{esc(settings['detection_rule'])} A level without any effect passes by chance with probability at most
{settings['false_alarm_bound']:.3g}.</p>
<h2>Detection level (smallest leak level the metric notices)</h2>
<table><thead><tr><th>metric</th>{head}</tr></thead><tbody>{detection}</tbody></table>
<h2>In words</h2>
<ul>{summaries}</ul>
{f'<h2>Metrics that did not run</h2><ul>{not_run}</ul>' if not_run else ''}
{figures}
<h2>Monotonicity (Spearman ρ of risk against leak level)</h2>
<table><thead><tr><th>metric</th>{head}</tr></thead><tbody>{monotone}</tbody></table>
</body></html>
"""


def _figures_html(document: Mapping[str, Any]) -> str:
    from privcore.report.lab_figures import lab_figures
    from privcore.report.html import _FigureWriter  # the Results report's embedding: plotly.js inline once

    write = _FigureWriter()
    return "<h2>Figures</h2>" + "".join(write(figure) for figure in lab_figures(document))
