"""The reconstruction attack shown (issue 40 items 3 and 5): the per-column figure, the words, the exposed
records side by side, and the figure in the score card's figures and the HTML report."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from privcore import Schema, evaluate
from privcore.base.palette import OKABE_ITO
from privcore.demo import load_scenario
from privcore.report import figures as F
from privcore.report.html import html_report
from privcore.report.reconstruction_figures import column_advantage_figure, ordered_columns
from privcore.report.reconstruction_text import exposed_table, reconstruction_result, reconstruction_summary

#: What the attacker knows: demographics (the rest of the record is secret).
DEMOGRAPHICS = ["age", "gender", "race", "marital-status", "native-country", "relationship"]
METRICS = ["recon_nearest", "recon_best"]


def _report(scenario: str, metrics=METRICS):
    demo = load_scenario(scenario, n=400)
    schema = Schema(types=dict(demo.types), key=DEMOGRAPHICS, sensitive=demo.sensitive, seed=0)
    return evaluate(demo.real, demo.synthetic, schema, metrics=metrics, holdout=demo.holdout, seed=0,
                    params={m: {"n_boot": 100} for m in metrics if m.startswith("recon")})


@pytest.fixture(scope="module")
def noisy():
    return _report("noisy_copy")


@pytest.fixture(scope="module")
def fresh():
    return _report("fresh_sample", ["recon_nearest"])


@pytest.mark.slow
def test_the_figure_has_one_row_per_secret_column_with_its_interval_and_the_zero_line(noisy):
    details = noisy["recon_best"].details
    figure = column_advantage_figure(details, name="Reconstruction")
    data = figure.fig.data
    assert [t.name for t in data] == ["members (training people)", "non-members (holdout)", "population reference",
                                      "advantage, 95 % interval"]
    order = [c.column for c in ordered_columns(details)]
    assert sorted(order) == sorted(details.secret) and all(list(t.y) == order for t in data)
    by_name = {c.column: c for c in details.columns}
    advantage = data[3]
    assert list(advantage.x) == pytest.approx([by_name[c].advantage for c in order])
    assert list(advantage.x) == sorted(advantage.x, reverse=True)  # largest advantage first
    for column, x, up, down in zip(order, advantage.x, advantage.error_x.array, advantage.error_x.arrayminus):
        low, high = by_name[column].advantage_interval
        assert (x - down, x + up) == pytest.approx((low, high))
    assert list(data[2].x) == pytest.approx([by_name[c].population for c in order])
    assert {t.xaxis for t in data} == {"x", "x2"} and data[3].xaxis == "x2"
    assert [s.x0 for s in figure.fig.layout.shapes] == [0]  # the 0 line, on the advantage panel
    colours = {t.marker.color for t in data}
    assert colours <= set(OKABE_ITO.values()) and len({t.marker.symbol for t in data}) == 4
    assert figure.caption.count(". ") == 0 and figure.caption.endswith(".")  # one sentence
    assert f"{details.advantage:+.3f}" in figure.alt and order[0] in figure.alt


def test_the_score_card_and_the_html_report_draw_it(noisy):
    titles = [f.title for f in F.metric_figures(noisy, "recon_best")]
    assert titles[0] == "Reconstruction: the strongest attack (honest best): which columns the attacker fills in"
    page = html_report({"noisy": noisy})
    assert "which columns the attacker fills in" in page
    assert page.count("population reference") >= 2  # in the figures of both metrics


def test_the_words_follow_the_interval(noisy, fresh):
    metric_id, details = reconstruction_result(noisy)
    assert metric_id == "recon_best"  # the honest best speaks for the report
    assert details.advantage_interval[0] > 0
    text = reconstruction_summary(details, metric_id)
    assert "it leaks about them" in text and f"{details.advantage:+.3f}" in text
    assert "age, gender, race" in text and f"{details.population:.3f}" in text
    fresh_id, fresh_details = reconstruction_result(fresh)
    assert fresh_id == "recon_nearest"
    low, high = fresh_details.advantage_interval
    expected = "no clear difference" if low <= 0 <= high else "leaks" if low > 0 else "worse"
    assert expected in reconstruction_summary(fresh_details, fresh_id)
    assert reconstruction_result(_report("fresh_sample", ["crp"])) is None


def test_the_exposed_records_show_true_and_reconstructed_values_side_by_side(noisy):
    details = noisy["recon_best"].details
    table = exposed_table(details)
    assert list(table.columns[:4]) == ["real row", "column", "true value", "reconstructed"]
    assert table["real row"].tolist() == [r.row for r in details.exposed for _ in r.columns]
    real = noisy.data.real
    for row in table.itertuples(index=False):
        true = real[row.column].iloc[row[0]]
        shown = f"{true:.4g}" if row[4] == "a number" else str(true)
        assert row[2] == shown  # the true value is the real table's
    exposure = table.drop_duplicates("real row")["exposure"].tolist()
    assert exposure == sorted(exposure, reverse=True)
    document = json.loads(noisy.to_json())
    assert document["metrics"]["recon_best"]["details"]["exposed"][0]["row"] == details.exposed[0].row


def test_one_secret_column_gets_a_figure_sized_for_its_labels(noisy):
    # One secret column (all but the income known): the figure keeps room for a plot between its title, its axis
    # titles and its legend (it was 224 px tall, with axis titles wrapped onto three lines).
    details = noisy["recon_nearest"].details
    one = replace(details, columns=ordered_columns(details)[:1])
    figure = column_advantage_figure(one, name="Reconstruction")
    layout = figure.fig.layout
    assert layout.height >= 340
    for axis in ("xaxis", "xaxis2"):
        assert layout[axis].title.text.count("<br>") <= 1, layout[axis].title.text
