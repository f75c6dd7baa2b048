"""The Privacy and utility view: one point per table, the best trade-off, and the fidelity figures."""

from __future__ import annotations

import re

import numpy as np
import pytest

from privcore import Schema, evaluate
from privcore.demo import load_scenario
from privcore.evaluation.interpret import assess
from privcore.evaluation.tradeoff import NO_UTILITY, TradeoffPoint, best_tradeoff, tradeoff_points, tradeoff_sentence
from privcore.evaluation.verdict import verdict
from privcore.report.tradeoff_figures import (
    AUC_AXIS,
    PRIVACY_AXIS,
    PROXY_AXIS,
    SCORE_AXIS,
    UTILITY_AXIS,
    fidelity_figures,
    tradeoff_figure,
    worst_columns_figure,
)

METRICS = ["mia_distance", "dcr", "utility_shapes", "utility_pairs"]


def _point(name, level="release", privacy=0.0, utility=0.9, score=0.8):
    return TradeoffPoint(name, level, privacy, None, None, "mia_distance", "MIA", True, utility, score, False)


@pytest.fixture(scope="module")
def reports():
    out = {}
    for scenario in ("column_resampler", "noisy_copy", "fresh_sample"):
        demo = load_scenario(scenario, n=300)
        schema = Schema(types=demo.types, key=demo.key, sensitive=demo.sensitive, seed=0)
        out[scenario] = evaluate(demo.real, demo.synthetic, schema, metrics=METRICS, holdout=demo.holdout, seed=0)
    return out


def test_best_is_the_most_utility_among_tables_that_may_go_out():
    points = [_point("copy", "do not release", 0.9, 1.0), _point("a", utility=0.6), _point("b", "release with "
                                                                                                 "caution", 0.06, 0.8)]
    assert best_tradeoff(points).name == "b"


def test_a_tie_in_utility_goes_to_the_lower_privacy_evidence():
    points = [_point("leakier", privacy=0.04, utility=0.902), _point("safer", privacy=0.01, utility=0.898)]
    assert best_tradeoff(points).name == "safer"
    # Beyond the tie (whole percents), utility decides, whatever the privacy evidence.
    points = [_point("leakier", privacy=0.04, utility=0.93), _point("safer", privacy=0.01, utility=0.90)]
    assert best_tradeoff(points).name == "leakier"


def test_no_best_when_every_table_is_do_not_release():
    points = [_point("a", "do not release"), _point("b", "do not release")]
    assert best_tradeoff(points) is None
    assert "none" in tradeoff_sentence(points)


def test_without_a_holdout_the_raw_scores_decide():
    points = [_point("a", utility=None, score=0.7), _point("b", utility=None, score=0.8)]
    assert best_tradeoff(points).name == "b"
    assert "mean score 0.80" in tradeoff_sentence(points)


def test_demo_tables_sit_where_they_must(reports):
    points = {p.name: p for p in tradeoff_points(reports)}
    fresh, noisy, resampler = points["fresh_sample"], points["noisy_copy"], points["column_resampler"]
    assert noisy.level == "do not release" and noisy.privacy > 0.3 and noisy.utility > 0.9
    assert fresh.released and abs(fresh.privacy) < 0.1 and fresh.utility > 0.9
    assert resampler.released and resampler.utility < 0.75 and resampler.keeps_little
    assert fresh.privacy_low <= fresh.privacy <= fresh.privacy_high
    assert best_tradeoff(list(points.values())).name == "fresh_sample"


def test_the_figure_draws_one_point_per_table_and_names_the_best(reports):
    figure = tradeoff_figure(tradeoff_points(reports))
    tables = [t for t in figure.fig.data if t.name != "ideal: leaks nothing, keeps all"]
    assert sorted(name for t in tables for name in t.customdata) == sorted(reports)
    assert sum(len(t.x) for t in tables) == len(reports)
    # The verdict in words in the legend, and a marker shape per verdict (never colour alone).
    assert {t.name for t in tables} == {"✓ Release", "✖ Do not release"}
    assert len({t.marker.symbol for t in tables}) == len(tables)
    ideal = next(t for t in figure.fig.data if t.name.startswith("ideal"))
    # Every table's strongest evidence is a membership attack: the x axis is its AUC, the ideal sits at a coin flip.
    assert (ideal.x[0], ideal.y[0]) == (0.5, 1.0)
    axes = [figure.fig.layout[axis].title.text.replace("<br>", " ") for axis in ("xaxis", "yaxis")]
    assert axes == [AUC_AXIS, UTILITY_AXIS]
    assert figure.caption.startswith("“fresh_sample” keeps the most utility")
    # The intervals are error bars that reach the ends of each attack's 95 % interval.
    points = {p.name: p for p in tradeoff_points(reports)}
    for trace in tables:
        for name, x, minus, plus in zip(trace.customdata, trace.x, trace.error_x.arrayminus, trace.error_x.array):
            assert x - minus == pytest.approx(points[name].auc_low)
            assert x + plus == pytest.approx(points[name].auc_high)


def test_one_number_per_finding_the_plot_places_each_table_at_the_auc_its_answer_quotes(reports):
    """The answer, the attack's card and the plot quote one AUC for the same finding (never 2·(AUC − ½) beside it)."""
    figure = tradeoff_figure(tradeoff_points(reports))
    placed = {name: x for t in figure.fig.data if t.customdata is not None for name, x in zip(t.customdata, t.x)}
    for name, report in reports.items():
        v = verdict(report)
        strongest = next(e for e in v.evidence if e.weight == "decisive")
        card = assess(strongest.metric, report[strongest.metric])
        quoted = card.excess_text
        assert quoted == f"AUC {placed[name]:.2f}", (name, quoted, placed[name])
        assert f"AUC {placed[name]:.2f}" in figure.alt
        assert f"AUC {placed[name]:.2f}" in strongest.text, strongest.text


def test_without_an_attack_auc_the_axis_stays_the_excess():
    figure = tradeoff_figure([_point("a", privacy=0.02), _point("b", privacy=0.3)])
    assert figure.fig.layout.xaxis.title.text.replace("<br>", " ") == PRIVACY_AXIS
    ideal = next(t for t in figure.fig.data if t.name.startswith("ideal"))
    assert ideal.x[0] == 0.0


def test_without_utility_the_view_says_how_to_get_it():
    figure = tradeoff_figure(tradeoff_points({"t": _without_utility()}))
    assert figure.caption == NO_UTILITY and "utility" in NO_UTILITY and "quick" in NO_UTILITY
    assert not figure.fig.data


def test_worst_columns_are_those_whose_shape_moved_most(reports):
    report = reports["noisy_copy"]
    details = report["utility_shapes"].details
    figure = worst_columns_figure(report, "noisy")
    worst = [details.columns[i] for i in np.argsort(details.tvd)[::-1][:3]]
    titles = [a.text for a in figure.fig.layout.annotations]
    assert [t.split(" (")[0] for t in titles] == worst
    # Each role's bars are shares of its rows: they sum to 1 in every panel.
    for trace in figure.fig.data:
        assert sum(trace.y) == pytest.approx(1.0)
    assert len(figure.fig.data) == 3 * 3  # real, synthetic and the fresh sample, per column
    assert [f.title for f in fidelity_figures(report, "noisy")] == ["noisy: the columns whose shape moved most",
                                                                    "noisy: change in how columns go together"]


@pytest.mark.slow
def test_the_html_report_shows_the_view_when_utility_ran(reports):
    from privcore.report.html import html_report

    page = html_report(reports, include_figures=False)
    assert "<h2>Privacy and utility</h2>" in page
    assert "“fresh_sample” keeps the most utility" in page and "fresh_sample (best trade-off)" in page
    assert page.count("private because it keeps little") >= 1  # the column resampler's row
    with_figures = html_report(reports)
    section = with_figures[with_figures.index("<h2>Privacy and utility</h2>"):
                           with_figures.index("<h2>All metrics side by side</h2>")]
    # The trade-off and each table's worst columns.
    assert len(re.findall(r'Plotly\.newPlot\(\s*"[0-9a-f-]+",', section)) == 1 + len(reports)
    without = html_report({"x": _without_utility()}, include_figures=False)
    assert "Privacy and utility" not in without


def _without_utility():
    demo = load_scenario("fresh_sample", n=200)
    schema = Schema(types=demo.types, key=demo.key, sensitive=demo.sensitive, seed=0)
    return evaluate(demo.real, demo.synthetic, schema, metrics=["dcr"], holdout=demo.holdout, seed=0)


def test_without_a_holdout_the_view_never_speaks_of_an_attacker_or_a_fresh_sample():
    # An upload with no holdout: no attack can run, the evidence is a proxy read against half of the real table,
    # and there is no fresh sample for the utility either. Neither axis may compare with one.
    demo = load_scenario("column_resampler", n=300)
    schema = Schema(types=demo.types, key=demo.key, sensitive=demo.sensitive, seed=0)
    report = evaluate(demo.real, demo.synthetic, schema, metrics=METRICS, seed=0)
    (point,) = tradeoff_points({"upload": report})
    assert not point.decisive and point.utility is None
    figure = tradeoff_figure([point])
    axes = [figure.fig.layout[axis].title.text.replace("<br>", " ") for axis in ("xaxis", "yaxis")]
    assert axes == [PROXY_AXIS, SCORE_AXIS]
    assert "attacker" not in axes[0] and "fresh sample" not in axes[0]
    assert all("advantage" not in text for trace in figure.fig.data if trace.hovertext for text in trace.hovertext)


def test_the_html_report_quotes_each_table_at_its_attacks_auc(reports):
    from privcore.report.html import html_report

    page = html_report(reports, include_figures=False)
    section = page.split("<h2>Privacy and utility</h2>", 1)[1].split("</table>", 1)[0]
    for point in tradeoff_points(reports):
        assert f"AUC {point.auc:.2f}" in section, point.name
        assert f"{point.auc_low:.2f}–{point.auc_high:.2f}" in section
    assert "+0." not in section.split("<tbody>", 1)[1]  # no 2·(AUC − ½) beside the AUC
