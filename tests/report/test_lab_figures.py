"""The metric lab's figures (privcore.report.lab_figures) and its HTML page (privcore.report.lab_html)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from markupsafe import escape

from privcore import lab
from privcore.data.schema import Schema
from privcore.demo import load_scenario
from privcore.report.lab_figures import (
    AGREEMENT_SCALE,
    DETECTION_SCALE,
    NOT_DETECTED_COLOUR,
    agreement_heatmap,
    detection_heatmap,
    lab_figures,
    response_curves,
)
from privcore.report.lab_html import lab_html


def point(level, risk, spread=0.01, separated=False, baseline=0.0, runs=2):
    """One curve point with mean ``risk`` and a seed range of ± ``spread``."""
    return {"level": level, "runs": runs, "risk_mean": risk, "risk_sd": spread, "risk_min": risk - spread,
            "risk_max": risk + spread, "excess_mean": risk - baseline, "excess_min": risk - baseline - spread,
            "excess_max": risk - baseline + spread, "auc": 1.0 if separated else 0.5, "separated": separated}


def document(**changes):
    """A hand-made lab document: CRP notices partial copies from 0.5, DCR never, singling out did not run."""
    doc = {
        "runs": [{"leak": "fresh_sample", "level": 0.0, "seed": s, "metric": m, "risk": r, "baseline": 0.0}
                 for s in (0, 1) for m, r in (("crp", 0.02), ("dcr", 0.40))],
        "detection": {"crp": {"partial_copy": 0.5, "rare_records": None},
                      "dcr": {"partial_copy": None, "rare_records": None},
                      "singling_out_univariate": {"partial_copy": None, "rare_records": None}},
        "agreement": {"crp": {"crp": 1.0, "dcr": 0.25, "singling_out_univariate": None},
                      "dcr": {"crp": 0.25, "dcr": 1.0, "singling_out_univariate": None},
                      "singling_out_univariate": {"crp": None, "dcr": None, "singling_out_univariate": None}},
        "summary": {"crp": "CRP notices partial copies from 50 %.", "dcr": "DCR never notices anything.",
                    "singling_out_univariate": "Singling out did not run here."},
        "curves": {
            "crp": {"partial_copy": [point(0, 0.02), point(0.5, 0.3, separated=True), point(1, 0.6, separated=True)],
                    "rare_records": [point(0, 0.02), point(0.5, 0.03), point(1, 0.04)]},
            "dcr": {"partial_copy": [point(0, 0.40, baseline=0.4), point(0.5, 0.41, baseline=0.4),
                                     point(1, 0.42, baseline=0.4)],
                    "rare_records": [point(0, 0.40), point(0.5, 0.40), point(1, 0.40)]},
            "singling_out_univariate": {
                leak: [{**point(level, 0), **{k: None for k in ("risk_mean", "risk_sd", "risk_min", "risk_max",
                                                                 "excess_mean", "excess_min", "excess_max", "auc")},
                        "runs": 0} for level in (0, 0.5, 1)] for leak in ("partial_copy", "rare_records")},
        },
        "monotonicity": {"crp": {"partial_copy": 0.9, "rare_records": 0.5}, "dcr": {"partial_copy": 0.3,
                                                                                  "rare_records": None},
                         "singling_out_univariate": {"partial_copy": None, "rare_records": None}},
        "not_applicable": {"singling_out_univariate": "it needs a holdout"},
        "settings": {"kind": "generated", "leaks": ["partial_copy", "rare_records"], "levels": [0.0, 0.5, 1.0],
                     "metrics": ["crp", "dcr", "singling_out_univariate"], "seeds": 2, "margin": 0.01,
                     "reference": "fresh_sample at level 0", "detection_rule": "Level k is separated when ….",
                     "false_alarm_bound": 1 / 6, "rows": {"training": 200, "holdout": 66}, "seconds": 1.5},
    }
    doc.update(changes)
    return doc


def one_sentence(text: str) -> bool:
    return text.endswith(".") and text.count(". ") == 0 and len(text) < 400


# ---------------------------------------------------------------------------------------- detection
def test_detection_heatmap_writes_the_level_in_every_detected_cell_and_marks_the_others():
    figure = detection_heatmap(document())
    detected, special = figure.fig.data
    assert detected.type == special.type == "heatmap"
    assert list(detected.y) == ["CRP", "DCR", "Singling out (1 column)"]
    assert list(detected.x) == ["partial copy", "rare records"]
    z = np.asarray(detected.z, dtype=float)
    assert z[0, 0] == 0.5 and np.isnan(z[0, 1]) and np.isnan(z[1]).all()
    assert detected.text[0][0] == "level 0.5" and detected.texttemplate == "%{text}"
    # not detected (DCR, CRP on rare records) and did not run (singling out): their own trace, labelled
    assert special.text[0][1] == "not detected" and list(special.text[1]) == ["not detected", "not detected"]
    assert list(special.text[2]) == ["did not run", "did not run"]
    assert special.text[0][0] == ""  # a detected cell carries no text from the overlay
    assert [c[1] for c in detected.colorscale] == [c[1] for c in DETECTION_SCALE]
    assert special.colorscale[0][1] == NOT_DETECTED_COLOUR
    assert one_sentence(figure.caption) and "not detected" in figure.caption
    assert "partial copy: noticed by 1 of 2 metrics, earliest (level 0.5) by CRP; not detected by DCR" in figure.alt
    assert "rare records: noticed by none of 2 metrics" in figure.alt
    assert "Did not run: Singling out (1 column)" in figure.alt


def test_detection_heatmap_of_a_supplied_ladder_writes_labels():
    doc = document(detection={"crp": {"ladder": 3.0}, "dcr": {"ladder": None}}, not_applicable={},
                   settings={**document()["settings"], "kind": "supplied", "leaks": ["ladder"], "levels": [1.0, 3.0],
                             "metrics": ["crp", "dcr"]})
    detected, special = detection_heatmap(doc).fig.data
    assert detected.text[0][0] == "label 3" and special.text[1][0] == "not detected"
    assert (detected.zmin, detected.zmax) == (1.0, 3.0)


# ---------------------------------------------------------------------------------------- agreement
def test_agreement_heatmap_has_rho_in_every_cell_on_a_diverging_scale():
    figure = agreement_heatmap(document())
    (trace,) = figure.fig.data
    assert trace.type == "heatmap" and (trace.zmin, trace.zmid, trace.zmax) == (-1, 0, 1)
    assert list(trace.text[0]) == ["+1.00", "+0.25", "n/a"] and trace.text[2][2] == "n/a"
    assert np.asarray(trace.z, dtype=float)[0, 1] == 0.25
    assert [c[1] for c in trace.colorscale] == [c[1] for c in AGREEMENT_SCALE]
    assert one_sentence(figure.caption)
    assert "Strongest agreement: CRP and DCR, ρ = +0.25" in figure.alt and "2 pair(s) undefined" in figure.alt


def test_agreement_needs_two_metrics():
    doc = document(settings={**document()["settings"], "metrics": ["crp"]})
    figure = agreement_heatmap(doc)
    assert not figure.fig.data and "two metrics" in figure.alt


# ---------------------------------------------------------------------------------------- response curves
def test_response_curves_one_chart_per_metric_one_line_per_leak_with_the_seed_spread():
    figure = response_curves(document(), columns=2)
    lines = [t for t in figure.fig.data if t.type == "scatter"]
    assert len(lines) == 4  # CRP and DCR × two leak types; singling out did not run and has none
    crp_copy = lines[0]
    assert crp_copy.name == "partial copy" and list(crp_copy.x) == [0, 0.5, 1]
    assert list(crp_copy.y) == [0.02, 0.3, 0.6]
    assert np.allclose(crp_copy.error_y.array, 0.01) and np.allclose(crp_copy.error_y.arrayminus, 0.01)
    # separated levels filled, the others open
    assert list(crp_copy.marker.symbol) == ["circle-open", "circle", "circle"]
    assert lines[1].line.dash != crp_copy.line.dash and lines[1].marker.symbol[0] != "circle-open"
    assert [t.showlegend for t in lines] == [True, True, False, False]
    titles = [a.text for a in figure.fig.layout.annotations]
    assert titles[:3] == ["CRP", "DCR", "Singling out (1 column)"] and "did not run" in titles
    # the dotted reference lines: the fresh samples' mean risk of each metric that ran
    refs = sorted(round(s.y0, 6) for s in figure.fig.layout.shapes)
    assert refs == [0.02, 0.4]
    assert one_sentence(figure.caption)
    assert "CRP rises most with partial copy (0.020 at level 0 to 0.600 at level 1)" in figure.alt
    assert "Singling out (1 column) did not run" in figure.alt


def test_response_curves_of_excess_risk_use_the_excess_and_zero():
    figure = response_curves(document(), value="excess", metrics=["dcr"])
    lines = [t for t in figure.fig.data if t.type == "scatter"]
    assert list(lines[0].y) == pytest.approx([0.0, 0.01, 0.02])
    assert [s.y0 for s in figure.fig.layout.shapes] == [0.0]
    assert "Excess risk" in figure.title
    with pytest.raises(ValueError, match="risk"):
        response_curves(document(), value="auc")


# ---------------------------------------------------------------------------------------- a real lab
@pytest.fixture(scope="module")
def real_document():
    demo = load_scenario("fresh_sample", n=200)
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)
    result = lab.run(demo.real, schema, holdout=demo.holdout, leaks="partial_copy,column_resample", levels=(0, 1),
                     seeds=2, metrics="crp,dcr")
    return result.to_dict()


@pytest.mark.slow
def test_figures_of_a_real_lab_agree_with_its_numbers(real_document):
    figures = lab_figures(real_document)
    assert [f.title for f in figures] == [
        "Which metric notices which leak, and from which level", "Risk against leak level, one chart per metric",
        "Excess risk against leak level, one chart per metric",
        "How far the metrics agree: rank correlation of their risks over all runs",
        "Privacy and utility across the levels"]  # the lab measures utility beside privacy (issue 37)
    detected = figures[0].fig.data[0]
    assert detected.text[0][0] == ("level 1" if real_document["detection"]["crp"]["partial_copy"] == 1 else "")
    rho = real_document["agreement"]["crp"]["dcr"]
    assert figures[3].fig.data[0].text[0][1] == ("n/a" if rho is None else f"{rho:+.2f}")
    for figure in figures:
        assert figure.caption and figure.alt and figure.title


@pytest.mark.slow
def test_html_page_embeds_the_figures_once_and_fetches_nothing(real_document):
    page = lab_html(real_document)
    assert page.startswith("<!DOCTYPE html>")
    assert len(re.findall(r"\* plotly\.js v\d", page)) == 1 and page.count("Plotly.newPlot(") >= 4
    assert not re.search(r"<(script|img|iframe|link)\b[^>]*\b(src|href)\s*=", page, flags=re.I)
    for figure in lab_figures(real_document):  # escaped as the page's templates escape (' as &#39;)
        assert escape(figure.caption) in page and escape(figure.alt) in page
    small = lab_html(real_document, include_figures=False)
    assert "Plotly" not in small and "Detection level" in small


def test_html_page_lists_metrics_that_did_not_run():
    page = lab_html(document(), include_figures=False)
    assert "Metrics that did not run" in page and "it needs a holdout" in page
