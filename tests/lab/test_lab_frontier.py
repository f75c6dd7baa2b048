"""The lab's privacy–utility frontier (issue 37 item 3): utility measured beside the privacy metrics on every
ladder table, utility rising with ε on a DP-marginals ladder, the figure, the JSON and the HTML page."""

from __future__ import annotations

import json

import jsonschema
import pytest

from privcore import lab
from privcore.data.schema import Schema
from privcore.demo import load_scenario
from privcore.generators import make_generator
from privcore.lab.frontier import FRONTIER_MEASURES, split_utility
from privcore.report.frontier_figures import frontier_figure
from privcore.report.json_schema import DRAFT, report_schema
from privcore.report.lab_html import lab_html

EPSILONS = (0.1, 1.0, 10.0)
#: The supplied ladder's name (not "dp_marginals", the generated leak type whose levels are in [0, 1]).
LADDER_NAME = "independent DP histograms"
#: Utility may dip by this much between neighbouring ε (two tables per ε); the ends must differ by MARGIN.
TOLERANCE, MARGIN = 0.03, 0.1


@pytest.fixture(scope="module")
def adult():
    demo = load_scenario("fresh_sample", n=600)
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)
    return demo, schema


@pytest.fixture(scope="module")
def dp_ladder(adult):
    """A user's own ladder: independent DP histograms at three ε, two tables each, made from the real table (the
    categories and bounds are public: taken from other Adult people, the demo's fresh sample)."""
    demo, schema = adult
    tables = {}
    for epsilon in EPSILONS:
        generator = make_generator("dp_marginals", epsilon=epsilon, population=demo.synthetic)
        generator.fit(demo.real, dict(demo.types))
        tables[epsilon] = [generator.sample(len(demo.real), seed) for seed in (0, 1)]
    return lab.run_ladder(demo.real, tables, schema, holdout=demo.holdout, metrics="dcr,mia_distance", workers=1,
                          name=LADDER_NAME)


def _validate(document):
    schema = report_schema()
    jsonschema.Draft202012Validator({"$schema": DRAFT, "$defs": schema["$defs"],
                                     "$ref": "#/$defs/lab_report"}).validate(document)


@pytest.mark.slow
def test_utility_rises_with_epsilon_on_a_dp_marginals_ladder(dp_ladder):
    document = dp_ladder.to_dict()
    curve = document["frontier"]["curve"][LADDER_NAME]
    assert [p["level"] for p in curve] == list(EPSILONS) and all(p["runs"] == 2 for p in curve)
    assert all(p["utility_kind"] == "relative" for p in curve)  # read against the holdout, a fresh sample
    utility = [p["utility_mean"] for p in curve]
    assert all(later >= earlier - TOLERANCE for earlier, later in zip(utility, utility[1:])), utility
    assert utility[-1] - utility[0] > MARGIN, utility
    # Independent marginals keep no relation between columns at any ε: utility stays well below a fresh sample's.
    assert utility[-1] < 0.8
    # The privacy evidence is the verdict's strongest attack, the membership inference that ran.
    assert {m for p in curve for m in p["privacy_metrics"]} == {"mia_distance"}


def test_the_frontier_is_in_the_json_and_valid(dp_ladder):
    document = json.loads(dp_ladder.to_json())
    _validate(document)
    frontier = document["frontier"]
    assert frontier["measures"] == list(FRONTIER_MEASURES)
    assert len(frontier["runs"]) == 2 * len(EPSILONS)
    # The utility measures stay out of the detection statistics: they have no risk.
    assert set(document["detection"]) == {"dcr", "mia_distance"} and not document["not_applicable"]


def test_the_figure_draws_one_point_per_level(dp_ladder):
    document = dp_ladder.to_dict()
    figure = frontier_figure(document)
    ladder = next(t for t in figure.fig.data if t.name == LADDER_NAME)
    assert list(ladder.text) == ["0.1", "1", "10"]  # a supplied ladder's labels
    curve = document["frontier"]["curve"][LADDER_NAME]
    assert list(ladder.y) == pytest.approx([p["utility_mean"] for p in curve])
    assert list(ladder.x) == pytest.approx([p["privacy_mean"] for p in curve])
    assert any(t.name.startswith("ideal") for t in figure.fig.data)
    assert "top left" in figure.caption


def test_the_lab_page_carries_the_frontier(dp_ladder):
    page = lab_html(dp_ladder.to_dict())
    assert "Privacy and utility across the levels" in page
    assert "Privacy and utility across the levels" not in lab_html(dp_ladder.to_dict(), include_figures=False)


def test_a_generated_lab_labels_dp_levels_by_epsilon_and_marks_the_reference(adult):
    demo, schema = adult
    result = lab.run(demo.real, schema, holdout=demo.holdout, leaks="dp_marginals", levels=(0, 1), seeds=1,
                     metrics="dcr", workers=1)
    document = result.to_dict()
    _validate(document)
    assert set(document["frontier"]["curve"]) == {"fresh_sample", "dp_marginals"}
    fresh = document["frontier"]["curve"]["fresh_sample"][0]
    assert fresh["utility_mean"] > 0.9  # a fresh sample keeps (about) what a fresh sample keeps
    figure = frontier_figure(document)
    assert list(next(t for t in figure.fig.data if t.name == "DP marginals").text) == ["ε = 0.1", "ε = ∞"]
    assert any(t.name == "fresh sample (reference)" for t in figure.fig.data)


def test_without_utility_there_is_no_frontier(adult):
    demo, schema = adult
    result = lab.run(demo.real, schema, holdout=demo.holdout, leaks="column_resample", levels=(0, 1), seeds=1,
                     metrics="dcr", workers=1, utility=False)
    document = result.to_dict()
    assert "frontier" not in document and not result.frontier
    assert frontier_figure(document).fig.layout.annotations  # an empty figure that says why


def test_utility_measures_chosen_join_the_frontier_not_the_detection():
    assert split_utility(["dcr", "utility_pairs"]) == (["dcr"], ["utility_pairs", "utility_shapes"])
    with pytest.raises(lab.LabError, match="only utility measures"):
        lab.run(load_scenario("fresh_sample", n=200).real, metrics="utility_shapes", leaks="column_resample",
                levels=(0, 1), seeds=1)


@pytest.mark.slow
def test_the_command_line_gives_a_users_own_ladder_its_frontier(adult, tmp_path):
    from privcore.cli.main import main

    demo, _ = adult
    paths = {"real": tmp_path / "real.csv", "holdout": tmp_path / "holdout.csv"}
    demo.real.to_csv(paths["real"], index=False)
    demo.holdout.to_csv(paths["holdout"], index=False)
    ladder = []
    for epsilon in (0.1, 10.0):
        generator = make_generator("dp_marginals", epsilon=epsilon, population=demo.synthetic)
        generator.fit(demo.real, dict(demo.types))
        path = tmp_path / f"eps{epsilon:g}.csv"
        generator.sample(len(demo.real), 0).to_csv(path, index=False)
        ladder += ["--ladder", f"{epsilon:g}={path}"]
    common = ["lab", "--real", str(paths["real"]), "--holdout", str(paths["holdout"]), *ladder, "--metrics", "dcr",
              "--quiet", "--workers", "1"]
    assert main([*common, "--json", str(tmp_path / "lab.json"), "--html", str(tmp_path / "lab.html")]) == 0
    document = json.loads((tmp_path / "lab.json").read_text())
    _validate(document)
    utility = [p["utility_mean"] for p in document["frontier"]["curve"]["uploaded"]]
    assert len(utility) == 2 and utility[1] - utility[0] > MARGIN
    assert "Privacy and utility across the levels" in (tmp_path / "lab.html").read_text()
    assert main([*common, "--no-utility", "--json", str(tmp_path / "plain.json")]) == 0
    assert "frontier" not in json.loads((tmp_path / "plain.json").read_text())
