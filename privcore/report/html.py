"""The HTML download of one or more evaluations: one self-contained file.

Inline CSS, plotly.js embedded inline (never fetched from a CDN), no remote fonts. What it says comes from
:mod:`privcore.evaluation.interpret` and :mod:`privcore.evaluation.verdict`, so the dashboard and the file
say the same thing; its figures are :mod:`privcore.report.figures`. This module imports no Streamlit.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import math
from typing import Any, Mapping

from privcore.evaluation.interpret import (LEVEL_BANDS, LEVELS, THRESHOLD_REASON, Answer, Level, assess, dataset_shareable,
                                          info_of, metric_applies)
from privcore.evaluation.outcome import combined_json  # noqa: F401  (re-exported: the JSON download)
from privcore.evaluation.verdict import VERDICT_STYLE, verdict
from privcore.metrics import registry
from privcore.report import figures as F

__all__ = ["html_report", "combined_json"]


# --------------------------------------------------------------------------------------------------
# exports
# --------------------------------------------------------------------------------------------------
_CSS = """
:root { --blue: #0072B2; --orange: #E69F00; --verm: #D55E00; --ink: #1b1b1b; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--ink); margin: 0 auto; max-width: 1100px; padding: 1.5rem; line-height: 1.45; }
h1 { font-size: 1.7rem; margin-bottom: .2rem; } h2 { border-bottom: 2px solid #ddd; padding-bottom: .2rem;
     margin-top: 2.2rem; } h3 { margin-bottom: .3rem; }
.muted { color: #555; font-size: .92rem; }
table { border-collapse: collapse; width: 100%; margin: .6rem 0 1rem; font-size: .92rem; }
th, td { border: 1px solid #ccc; padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: .1rem .55rem; border-radius: .8rem; font-weight: 600; font-size: .85rem;
         white-space: nowrap; }
.card { border: 1px solid #ccc; border-radius: .5rem; padding: .8rem 1rem; margin: 1rem 0; }
.card.na { background: #fafafa; }
.warn { border-left: 4px solid var(--orange); background: #fff8e6; padding: .4rem .7rem; margin: .4rem 0; }
.figure { margin: .8rem 0; } .caption { font-size: .9rem; color: #333; margin: .2rem 0; }
details { margin: .3rem 0; } summary { cursor: pointer; }
ol, ul { margin: .3rem 0 .3rem 1.2rem; padding: 0; }
"""


def _badge(word: str, icon: str, colour: str, text_colour: str) -> str:
    return (f'<span class="badge" style="background:{colour};color:{text_colour}">'
            f'<span aria-hidden="true">{html.escape(icon)}</span> {html.escape(word)}</span>')


def _level_badge(level: Level) -> str:
    return _badge(level.word, level.icon, level.colour, level.text_colour)


def _answer_badge(answer: Answer) -> str:
    return _badge(answer.word, answer.icon, answer.colour, answer.text_colour)


def _num(x: float | None, digits: int = 3) -> str:
    if x is None:
        return "—"
    try:
        x = float(x)
    except (TypeError, ValueError):
        return "—"
    return f"{x:.{digits}f}" if math.isfinite(x) else "—"


class _FigureWriter:
    """Embeds Plotly figures; plotly.js goes inline exactly once (the first figure)."""

    def __init__(self):
        self.first = True

    def __call__(self, figure: F.Figure) -> str:
        body = figure.fig.to_html(full_html=False, include_plotlyjs=self.first, include_mathjax=False,
                                  config={"displaylogo": False, "responsive": True})
        self.first = False
        return (f'<figure class="figure" role="group" aria-label="{html.escape(figure.alt)}">{body}'
                f'<figcaption class="caption">{html.escape(figure.caption)}</figcaption>'
                f'<details><summary>Text description</summary><p>{html.escape(figure.alt)}</p></details></figure>')


def _metric_section(report, metric_id: str, write_fig: _FigureWriter, threshold: float | None,
                    include_figures: bool) -> str:
    res = report[metric_id]
    a = assess(metric_id, res)
    info = info_of(metric_id)
    out = [f'<div class="card{"" if a.applicable else " na"}">',
           f"<h3>{html.escape(a.name)} <span class=\"muted\">({html.escape(metric_id)}, {html.escape(a.family)})"
           f"</span></h3>"]
    if not a.applicable:
        out.append(f"<p>{_level_badge(a.level)} {html.escape(a.reason or 'not computed')}</p></div>")
        return "".join(out)
    parts = [f"Risk <strong>{_num(a.risk)}</strong>"]
    if res.interval is not None:
        parts.append(f"95% interval {_num(res.interval[0])}–{_num(res.interval[1])}")
    if a.baseline is not None:
        parts.append(f"fresh-sample baseline {_num(a.baseline)}")
        parts.append(f"excess risk {_num(a.excess)}")
    if res.raw is not None:
        parts.append(f"raw value {_num(res.raw)}")
    out.append(f"<p>{_level_badge(a.level)} {' · '.join(parts)}</p>")
    out.append(f'<p class="muted">Level measured against the {html.escape(a.reference_label)} '
               f"({_num(a.reference)}).</p>")
    share = dataset_shareable(metric_id, res, threshold)
    applies = metric_applies(report, metric_id)
    out.append(f"<p><strong>Is the dataset shareable?</strong> {_answer_badge(share)} {html.escape(share.text)}</p>")
    out.append(f"<p><strong>Does this metric apply here?</strong> {_answer_badge(applies)} "
               f"{html.escape(applies.text)}</p>")
    if applies.checks:
        marks = {"ok": "✓", "warn": "⚠", "fail": "✖"}
        out.append("<ul>" + "".join(f"<li><span aria-hidden=\"true\">{marks[c.status]}</span> "
                                    f"{html.escape(c.text)}</li>" for c in applies.checks) + "</ul>")
    for w in res.warnings:
        out.append(f'<div class="warn">⚠ {html.escape(w)}</div>')
    if info is not None:
        e = info.explanation
        out.append("<details open><summary>What this score means</summary>")
        out.append(f"<p><strong>High:</strong> {html.escape(e.high)}<br><strong>Low:</strong> {html.escape(e.low)}</p>")
        out.append(f"<p><strong>The attack:</strong> {html.escape(e.attack)}</p>")
        out.append("<ol>" + "".join(f"<li>{html.escape(s)}</li>" for s in e.steps) + "</ol>")
        out.append(f"<p><strong>Blind spots:</strong> {html.escape(e.blind_spots)}</p>")
        if e.note:
            out.append(f"<p><strong>Note:</strong> {html.escape(e.note)}</p>")
        out.append(f'<p class="muted">Reference: {html.escape(info.reference)}</p></details>')
    if include_figures:
        for fig in F.metric_figures(report, metric_id):
            if fig.title.startswith("Map of real and synthetic"):
                continue  # one map per table, drawn in the table's section
            out.append(write_fig(fig))
    out.append("</div>")
    return "".join(out)


def _verdict_html(reports: Mapping[str, Any], rule: Any) -> str:
    """The answer for each synthetic table, first thing in the report."""
    parts = ["<h2>The answer</h2>"]
    for name, rep in reports.items():
        v = verdict(rep, rule)
        word, icon, colour, text_colour = VERDICT_STYLE[v.level]
        parts.append(f'<h3>{html.escape(name)}: <span class="badge" style="background:{colour};color:{text_colour}">'
                     f"{icon} {html.escape(word)}</span></h3><p>{html.escape(v.headline)}</p>")
        parts.append("<ul>" + "".join(f"<li>{html.escape(e.text)}</li>" for e in v.evidence) + "</ul>")
        if v.not_tested:
            parts.append("<p class=\"muted\">Not tested: " + html.escape(" ".join(v.not_tested)) + "</p>")
    parts.append('<details><summary>How the answer is reached</summary><ul>'
                 + "".join(f"<li>{html.escape(line)}</li>" for line in verdict(next(iter(reports.values())), rule)
                           .rule.describe()) + "</ul></details>" if reports else "")
    return "".join(parts)


def html_report(
    reports: Mapping[str, Any],
    *,
    title: str = "Privacy report for synthetic data",
    settings: Mapping[str, Any] | None = None,
    threshold: float | None = None,
    include_figures: bool = True,
    rule: Any = None,
) -> str:
    """A self-contained HTML report of one or more evaluations (synthetic table name → Report).

    Inline CSS, plotly.js embedded once inline (``include_plotlyjs=True``), system fonts only: the file
    opens offline and fetches nothing.
    """
    write_fig = _FigureWriter()
    now = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    body = [f"<h1>{html.escape(title)}</h1>",
            f'<p class="muted">Generated {now} by privcore. Risk runs from 0 (complete privacy) to 1 (no privacy). '
            "Levels: " + ", ".join(f"{_level_badge(LEVELS[k])}" for k in ("low", "moderate", "high"))
            + f" — risk at most {LEVEL_BANDS[0]:g}, at most {LEVEL_BANDS[1]:g}, or more above the reference.</p>",
            f'<p class="muted">{html.escape(THRESHOLD_REASON)}</p>']
    body.append(_verdict_html(reports, rule))
    if settings:
        body.append("<details><summary>Settings</summary><pre>"
                    + html.escape(json.dumps(settings, indent=2, default=str)) + "</pre></details>")
    # side-by-side table
    ids = list(dict.fromkeys(mid for rep in reports.values() for mid in rep))
    head = "".join(f"<th>{html.escape(name)}</th>" for name in reports)
    rows = []
    for mid in ids:
        cells = []
        for rep in reports.values():
            if mid not in rep:
                cells.append("<td>—</td>")
                continue
            a = assess(mid, rep[mid])
            cells.append(f'<td class="num">{_level_badge(a.level)} {_num(a.risk)}'
                         + (f"<br><span class=\"muted\">baseline {_num(a.baseline)}</span>" if a.baseline is not None
                            else "") + "</td>")
        rows.append(f"<tr><th>{html.escape(F.metric_name(mid))}</th>{''.join(cells)}</tr>")
    body.append("<h2>All metrics side by side</h2>")
    body.append(f"<table><thead><tr><th>Metric</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")
    if include_figures:
        body.append(write_fig(F.scores_chart(reports)))
    for name, rep in reports.items():
        body.append(f"<h2>Synthetic table: {html.escape(name)}</h2>")
        r = rep.rows
        body.append(f"<p>Rows: {r.get('real')} real, {r.get('synthetic')} synthetic"
                    + (f", {r.get('holdout')} holdout" if r.get("holdout") is not None else ", no holdout")
                    + f". Computed in {rep.seconds:.1f} s.</p>")
        for w in rep.warnings:
            body.append(f'<div class="warn">⚠ {html.escape(w)}</div>')
        if include_figures and rep.data is not None and rep.shared is not None:
            body.append(write_fig(F.famd_map(rep, max_points=1000, max_links=100)))
        by_family: dict[str, list[str]] = {}
        for mid in rep:
            info = info_of(mid)
            by_family.setdefault(info.family if info else "Other", []).append(mid)
        for family in [*registry.FAMILIES, "Other"]:
            if family not in by_family:
                continue
            body.append(f"<h3>{html.escape(family)} metrics</h3>")
            for mid in by_family[family]:
                body.append(_metric_section(rep, mid, write_fig, threshold, include_figures))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
            + "\n".join(body) + "</body></html>")
