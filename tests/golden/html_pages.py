"""Snapshots of the HTML downloads (Results report and metric lab page), to prove a rewrite changed nothing.

A page is reduced to what it says and draws, not how its markup is laid out, so that rendering it from a
template (other line breaks, another way of escaping ``'``) passes and a changed word or number fails:

- ``text``: every run of visible text (``<script>`` and ``<style>`` left out, entities decoded, whitespace
  collapsed), in order, with the accessible names (``aria-label``) in their place; the time of the
  "Generated ..." line is replaced by ``<time>``, the only thing that changes from run to run;
- ``figures``: each embedded Plotly figure's ``data`` and ``layout`` as plotly.js receives them (the random
  ``<div>`` id and the config left out), compared with :func:`tests.golden.compare.differences`;
- ``plotly_js``: how many times the plotly.js bundle is inlined (once when there are figures).

``python tests/golden/html_pages.py [OUT.json.gz]`` rewrites ``tests/golden/html_pages.json.gz`` from the current code;
``tests/report/test_html_golden.py`` compares the current pages with it. The stored snapshot was taken before the
pages were rendered from Jinja2 templates (issue 21).
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

#: Where the snapshot is stored.
SNAPSHOT = Path(__file__).with_name("html_pages.json.gz")
#: Rows per demo table: small, so the test stays quick, but every quick metric applies.
ROWS = 200
#: The Results report's metrics: the quick ones of tests/report/test_report.py (figures of every kind of evidence).
METRICS = ["crp", "cvp", "dcr", "auth", "hitr", "zcap", "mia_distance", "singling_out_univariate", "hidr"]

_GENERATED = re.compile(r"Generated \d{4}-\d{2}-\d{2} \d{2}:\d{2} by")
#: The call that draws one embedded figure (the plotly.js bundle has other "Plotly.newPlot(" in its code).
_NEW_PLOT = re.compile(r'Plotly\.newPlot\(\s*(?="[0-9a-f-]+",)')
_PLOTLY_JS = re.compile(r"\* plotly\.js v\d")


class _Text(HTMLParser):
    """Collects the visible text runs of a page and its ``aria-label`` attributes, in document order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.runs: list[str] = []
        self._hidden = 0  # depth inside <script> or <style>

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._hidden += 1
        label = dict(attrs).get("aria-label")
        if label:
            self.runs.append(f"[aria-label] {' '.join(label.split())}")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._hidden -= 1

    def handle_data(self, data):
        words = " ".join(data.split())
        if words and not self._hidden:
            self.runs.append(words)


def visible_text(page: str) -> list[str]:
    """The page's visible text runs (and accessible names), whitespace collapsed, the generation time masked."""
    parser = _Text()
    parser.feed(page)
    parser.close()
    return [_GENERATED.sub("Generated <time> by", run) for run in parser.runs]


def embedded_figures(page: str) -> list[dict[str, Any]]:
    """``data`` and ``layout`` of every ``Plotly.newPlot(id, data, layout, config)`` call in the page."""
    decoder = json.JSONDecoder()
    figures = []
    for call in _NEW_PLOT.finditer(page):
        position = call.end()
        arguments = []
        for _ in range(3):  # the div id, the data, the layout
            position = len(page) - len(page[position:].lstrip(" \t\r\n,"))
            value, position = decoder.raw_decode(page, position)
            arguments.append(value)
        figures.append({"data": arguments[1], "layout": arguments[2]})
    return figures


def page_snapshot(page: str) -> dict[str, Any]:
    """What one page says and draws (see the module docstring)."""
    return {"text": visible_text(page), "figures": embedded_figures(page),
            "plotly_js": len(_PLOTLY_JS.findall(page)), "doctype": page.startswith("<!DOCTYPE html>")}


def _report(scenario: str):
    from privcore import Schema, evaluate
    from privcore.demo import load_scenario

    demo = load_scenario(scenario, n=ROWS)
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive, seed=0)
    report = evaluate(demo.real, demo.synthetic, schema, metrics=METRICS, holdout=demo.holdout, seed=0)
    report.seconds = 1.25  # the run time changes from run to run; the page prints it, so it is fixed here
    return report


def _lab_document() -> dict[str, Any]:
    from privcore import lab
    from privcore.data.schema import Schema
    from privcore.demo import load_scenario

    demo = load_scenario("fresh_sample", n=ROWS)
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)
    result = lab.run(demo.real, schema, holdout=demo.holdout, leaks="partial_copy,column_resample", levels=(0, 1),
                     seeds=2, metrics="crp,dcr", seed=0)
    document = result.to_dict()
    # The run time changes from run to run; the page prints it, so it is fixed here.
    document["settings"]["seconds"] = 12.34
    document["settings"]["real"] = "adult <demo> & co's"  # a name that must be escaped
    return document


def pages() -> dict[str, str]:
    """The pages of the snapshot, by name: the Results report of two scenarios with and without figures
    (with settings and a threshold), and the lab page with and without figures."""
    from privcore.report.html import html_report
    from privcore.report.lab_html import lab_html

    reports = {"exact copy": _report("exact_copy"), "fresh <sample>": _report("fresh_sample")}
    document = _lab_document()
    return {
        "report": html_report(reports, settings={"metrics": METRICS, "note": "a <b>bold</b> & 'quoted' value"}),
        "report_without_figures": html_report({"exact copy": reports["exact copy"]}, include_figures=False,
                                              threshold=0.3, title="Copy's report <draft>"),
        "lab": lab_html(document),
        "lab_without_figures": lab_html(document, include_figures=False, title="Lab & co"),
    }


def snapshot() -> dict[str, Any]:
    """:func:`page_snapshot` of every page of :func:`pages`."""
    return {name: page_snapshot(page) for name, page in pages().items()}


def write(path: str | Path = SNAPSHOT) -> None:
    """Write :func:`snapshot` as gzipped JSON."""
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        json.dump(snapshot(), handle, sort_keys=True)


def read(path: str | Path = SNAPSHOT) -> dict[str, Any]:
    """Read a snapshot written by :func:`write`."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


if __name__ == "__main__":  # pragma: no cover
    # Run as a script, this folder is first on the path; the privcore to snapshot is the checkout's own.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    write(sys.argv[1] if len(sys.argv) > 1 else SNAPSHOT)
