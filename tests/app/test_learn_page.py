"""Learn page: works without data (pointing to the Data page) and renders every lesson."""

from __future__ import annotations

import pandas as pd
import pytest

from .conftest import assert_no_exception, open_page, texts

LEARN = "pages/5_Learn.py"
TIMEOUT = 120


@pytest.fixture(scope="module")
def learn():
    at = open_page(LEARN).run(timeout=TIMEOUT)
    assert_no_exception(at)
    return at


def test_deep_link_without_data_points_to_the_data_page_and_still_teaches(learn):
    assert "Data page" in texts(learn.info)
    assert "Go to the Data page" in [link.value for link in learn.page_link]
    assert learn.get("plotly_chart")  # the first lesson renders without any upload


@pytest.mark.slow
def test_every_lesson_has_text_a_figure_and_a_takeaway(learn):
    lessons = learn.radio(key="learn_lesson").options
    assert len(lessons) >= 3
    headers = []
    for lesson in lessons:
        learn.radio(key="learn_lesson").set_value(lesson).run(timeout=TIMEOUT)
        assert_no_exception(learn)
        charts = learn.get("plotly_chart")
        assert len(charts) == 1 and charts[0].proto.alt
        assert "Takeaway." in texts(learn.success)
        headers.append(texts(learn.header))
    assert any("exact copy" in h for h in headers)
    assert any("singling out" in h.lower() for h in headers)


@pytest.mark.slow
def test_lesson_results_are_cached_in_the_session(learn):
    cache = learn.session_state["learn_cache"]
    assert cache and all(len(key) == 2 for key in cache)
    before = dict(cache)
    learn.radio(key="learn_lesson").set_value(learn.radio(key="learn_lesson").options[1]).run(timeout=TIMEOUT)
    assert all(learn.session_state["learn_cache"][key] is value for key, value in before.items())


@pytest.mark.slow
def test_resampler_lesson_shows_rare_values_and_singling_out(learn):
    lesson = next(o for o in learn.radio(key="learn_lesson").options if o.startswith("3"))
    learn.radio(key="learn_lesson").set_value(lesson).run(timeout=TIMEOUT)
    assert_no_exception(learn)
    body = texts(learn.markdown)
    assert "values that exactly one real person has reappear" in body
    assert "singling-out attack wrote" in body or "singling-out metric" in texts(learn.info).lower() \
        or "not available" in texts(learn.info)


def test_proxy_lesson_explains_why_the_shadow_model_audit_is_stronger(learn):
    lesson = next(o for o in learn.radio(key="learn_lesson").options if o.startswith("4"))
    learn.radio(key="learn_lesson").set_value(lesson).run(timeout=TIMEOUT)
    assert_no_exception(learn)
    body = texts(learn.markdown)
    assert "shadow-model" in body and "DCR delusion" in body and "generator itself" in body
    assert "Audit" in [link.proto.page for link in learn.main.page_link]


@pytest.mark.slow
def test_resampler_lesson_checks_its_effect_against_fresh_samples(learn):
    """The lesson's claim rests on several draws, not one: what it says follows the lab's detection rule."""
    from dashboard.learn_lab import draws_sentence
    from privcore.report.figures import metric_name

    lesson = next(o for o in learn.radio(key="learn_lesson").options if o.startswith("3"))
    learn.radio(key="learn_lesson").set_value(lesson).run(timeout=TIMEOUT)
    assert_no_exception(learn)
    body = texts(learn.markdown)
    draws = learn.session_state["learn_cache"][("resampler_draws", 1000)]
    singling = draws["singling_out_univariate"]
    assert len(singling.resampler) == len(singling.fresh) == 4
    assert "Is that more than chance?" in body
    for metric, metric_draws in draws.items():
        assert draws_sentence(metric_name(metric), metric_draws) in body
    # on this demo (synthetic tables as large as the training data) singling out's effect is beyond chance
    assert singling.detected == (min(singling.resampler) > max(singling.fresh) + 0.01)


@pytest.mark.slow
def test_lab_lesson_shows_the_detection_heatmap_and_walks_through_it(learn):
    lesson = next(o for o in learn.radio(key="learn_lesson").options if o.startswith("5"))
    learn.radio(key="learn_lesson").set_value(lesson).run(timeout=TIMEOUT)
    assert_no_exception(learn)
    assert "Which metric would have caught this?" in texts(learn.header)
    (chart,) = learn.get("plotly_chart")
    assert chart.proto.alt.startswith("Heatmap of 5 metrics by 3 leak type(s)")
    result = learn.session_state["learn_cache"][("lesson_lab", 1000)]
    body = texts(learn.markdown)
    for line in ("**Partial copies**: noticed by", "**The rare-record leak**:", "**The negative control"):
        assert line in body, line
    assert "Compare_metrics" in [link.proto.page for link in learn.main.page_link]
    assert result.settings["seeds"] == 3 and result.detection["crp"]["partial_copy"] is not None


def test_lesson_one_shows_every_column_that_makes_up_the_distance(learn):
    """The 'closest' record visibly is closest: every analysed column with its share of the squared distance,
    summing to the distance the neighbour search found."""
    import math

    learn.radio(key="learn_lesson").set_value(learn.radio(key="learn_lesson").options[0]).run(timeout=TIMEOUT)
    assert_no_exception(learn)
    demo, report = next(v for k, v in learn.session_state["learn_cache"].items() if k[0] == "noisy_copy")
    table = next(df.value for df in learn.dataframe if "distance d" in df.value.index)
    assert set(demo.types) <= set(table.index)  # every column, not five of fourteen
    shares = [c for c in table.columns if c.endswith(": adds to d²")]
    assert len(shares) == 2
    distances = []
    for column in shares:
        total = pd.to_numeric(table[column].iloc[:-1], errors="coerce").fillna(0).sum()
        shown = float(table.loc["distance d", column.removesuffix(": adds to d²")])
        assert math.isclose(math.sqrt(total), shown, rel_tol=1e-2)
        distances.append(shown)
    assert distances[0] <= distances[1]  # the first is the closest
    assert "mostly because of" in texts(learn.caption)


@pytest.mark.slow
def test_private_because_useless_lesson_names_the_three_tables_with_their_numbers(learn):
    lesson = next(o for o in learn.radio(key="learn_lesson").options if "Private because useless" in o)
    learn.radio(key="learn_lesson").set_value(lesson).run(timeout=TIMEOUT)
    assert_no_exception(learn)
    assert "Private because useless" in texts(learn.header)
    body = texts(learn.markdown)
    titles = ["Column-by-column resampler", "Fresh sample (ideal reference)", "Noisy copy"]
    for title in titles:
        assert f"**{title}.**" in body
    # Computed numbers, not fixed words: the verdicts and the shares kept of a fresh sample's utility.
    lines = {title: next(line for line in body.splitlines() if f"**{title}.**" in line) for title in titles}
    assert "verdict **Release**" in lines["Column-by-column resampler"]
    assert "passes the distance metrics" in lines["Column-by-column resampler"]
    assert "Private because it keeps little" in lines["Column-by-column resampler"]
    assert "verdict **Do not release**" in lines["Noisy copy"]
    assert "verdict **Release**" in lines["Fresh sample (ideal reference)"]
    chart = learn.get("plotly_chart")[0]
    assert all(title in chart.proto.alt for title in titles)
    # The words carry the evaluation's own numbers: the resampler keeps little of the relations between columns.
    from dashboard.learn_tradeoff import LESSON_METRICS

    _, report = learn.session_state["learn_cache"][("column_resampler", tuple(LESSON_METRICS))]
    pairs = report["utility_pairs"].utility.relative
    assert pairs < 0.5 and f"{pairs:.0%} of its relations between columns" in lines["Column-by-column resampler"]


def test_reconstruction_lesson_tells_a_leak_from_inference_from_the_population(learn):
    """Lesson 7 (issue 40): the noisy copy's members are filled in better than other people, the fresh sample's
    equally well; the words are the numbers'."""
    from dashboard.learn_reconstruction import LESSON_TABLES

    lesson = next(o for o in learn.radio(key="learn_lesson").options if o.startswith("7"))
    learn.radio(key="learn_lesson").set_value(lesson).run(timeout=TIMEOUT)
    assert_no_exception(learn)
    cache = learn.session_state["learn_cache"]
    noisy, fresh = (cache[(f"reconstruction::{s}", 1000)] for s in LESSON_TABLES)
    assert noisy.advantage_interval[0] > 0  # the demo's noisy copy leaks ...
    assert fresh.advantage_interval[0] <= 0 <= fresh.advantage_interval[1]  # ... and a fresh sample does not
    body = texts(learn.markdown)
    assert "age, marital-status, relationship, race, gender, native-country" in body  # the preset's key
    lines = next(m.value for m in learn.markdown if str(m.value).startswith("- **")).split("\n- ")
    noisy_line = next(line for line in lines if f"{noisy.members:.3f}" in line and f"{noisy.advantage:+.3f}" in line)
    assert "it leaks about them" in noisy_line
    fresh_line = next(line for line in lines if f"{fresh.members:.3f}" in line and f"{fresh.advantage:+.3f}" in line)
    assert "no clear difference" in fresh_line and "leaks about them" not in fresh_line
    chart = learn.get("plotly_chart")[0]
    assert "members against other people" in chart.proto.alt


def test_the_people_not_rows_lesson_in_words_and_its_figure():
    from dashboard.learn_related import Outcome, lesson_figure, lesson_lines

    results = {"fresh per person": Outcome("release", 0.0, 400), "copied per person": Outcome("do not release", 0.19, 400),
               "fresh joined": Outcome("do not release", 0.62, 2550)}
    lines = lesson_lines(results)
    assert "400 players" in lines[0] and "*release*" in lines[0]
    assert "0.19 above a coin flip" in lines[1] and "2,550 seasons" in lines[2]
    figure = lesson_figure(results)
    assert list(figure.fig.data[0].y) == [0.0, 0.19, 0.62] and "joined row by row" in figure.alt


@pytest.mark.slow
def test_the_people_not_rows_lesson_runs_the_league_per_person_and_joined(learn):
    lesson = next(o for o in learn.radio(key="learn_lesson").options if o.startswith("8"))
    learn.radio(key="learn_lesson").set_value(lesson).run(timeout=TIMEOUT)
    assert_no_exception(learn)
    text = texts(learn.markdown)
    assert "per person** (400 players): *release*" in text
    assert "Copied careers, per person**: *do not release*" in text
    assert "joined row by row**" in text and "*release*" not in text.split("joined row by row**")[1].split(".")[0]
