"""The Privacy and utility tab of the Results page (issue 37 item 3): one point per synthetic table, a caption
that names the best trade-off, the fidelity figures of the table examined; without utility, how to get it."""

from __future__ import annotations

import json

from dashboard.session.state import LoadedTable, Tables
from privcore import Schema
from privcore.demo import load_scenario
from privcore.evaluation.tradeoff import NO_UTILITY

from .conftest import assert_no_exception, open_page, texts

RESULTS = "pages/4_Results.py"
CHEAP = ["mia_distance", "dcr", "utility_shapes", "utility_pairs"]


def seeded(metrics: list[str], scenarios=("noisy_copy", "fresh_sample", "column_resampler")):
    demos = {s: load_scenario(s, n=300) for s in scenarios}
    first = demos[scenarios[0]]
    at = open_page(RESULTS)
    at.session_state["tables"] = Tables(
        real=LoadedTable.from_frame("real", first.real),
        synthetic={s: LoadedTable.from_frame(s, d.synthetic) for s, d in demos.items()},
        holdout=LoadedTable.from_frame("holdout", first.holdout),
    )
    at.session_state["schema"] = Schema(types=first.types, key=first.key, sensitive=first.sensitive)
    at.session_state["selected_metrics"] = metrics
    at.run()
    at.button(key="run_evaluation").click().run(timeout=240)
    at.session_state["results_tab"] = "Privacy and utility"
    return at.run(timeout=120)


def test_one_point_per_table_and_the_caption_names_the_best_trade_off():
    at = seeded(CHEAP)
    assert_no_exception(at)
    charts = at.get("plotly_chart")
    assert len(charts) == 3  # the trade-off, the worst columns, the pair heatmap
    spec = json.loads(charts[0].proto.spec)
    points = [name for trace in spec["data"] if not trace["name"].startswith("ideal") for name in trace["customdata"]]
    assert sorted(points) == ["column_resampler", "fresh_sample", "noisy_copy"]
    assert "“fresh_sample” keeps the most utility" in texts(at.caption)
    assert "How closely “noisy_copy” follows the real table" in texts(at.markdown)


def test_without_utility_the_tab_says_how_to_get_it():
    at = seeded(["dcr"], scenarios=("noisy_copy", "fresh_sample"))
    assert_no_exception(at)
    assert NO_UTILITY in texts(at.info)
    assert not at.get("plotly_chart")
    assert "Choose metrics" in [link.value for link in at.main.page_link]
