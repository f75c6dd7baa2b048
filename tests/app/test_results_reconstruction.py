"""The Reconstruction tab of the Results page (issue 40 item 3): the words, the per-column figure and the most exposed
people's true and reconstructed values side by side; without a reconstruction metric, how to get one."""

from __future__ import annotations

import json

from dashboard.reconstruction_view import OFFER_TEXT, OFFERED
from dashboard.session.state import LoadedTable, Tables
from privcore import Schema
from privcore.demo import load_scenario
from privcore.report.reconstruction_text import NO_RECONSTRUCTION

from .conftest import assert_no_exception, open_page, texts

RESULTS = "pages/4_Results.py"
#: What the attacker knows: demographics; the other eight columns are secret.
DEMOGRAPHICS = ["age", "gender", "race", "marital-status", "native-country", "relationship"]


def seeded(metrics: list[str], scenario: str = "noisy_copy", holdout: bool = True):
    demo = load_scenario(scenario, n=300)
    at = open_page(RESULTS)
    at.session_state["tables"] = Tables(
        real=LoadedTable.from_frame("real", demo.real),
        synthetic={"noisy": LoadedTable.from_frame("noisy", demo.synthetic)},
        holdout=LoadedTable.from_frame("holdout", demo.holdout) if holdout else None,
    )
    at.session_state["schema"] = Schema(types=demo.types, key=DEMOGRAPHICS, sensitive=demo.sensitive)
    at.session_state["selected_metrics"] = metrics
    at.run()
    at.button(key="run_evaluation").click().run(timeout=240)
    at.session_state["results_tab"] = "Reconstruction"
    return at.run(timeout=120)


def test_the_reconstruction_tab_shows_words_figure_and_the_exposed_people():
    at = seeded(["recon_nearest", "dcr"])
    assert_no_exception(at)
    shown = texts(at.markdown)
    assert "Reconstruction from the nearest records" in shown and "it leaks about them" in shown
    charts = at.get("plotly_chart")
    assert len(charts) == 1 and "advantage" in charts[0].proto.alt
    spec = json.loads(charts[0].proto.spec)
    assert sorted(spec["data"][0]["y"]) == sorted(c for c in load_scenario("noisy_copy", n=10).types
                                                  if c not in DEMOGRAPHICS)
    table = at.dataframe[0].value
    assert list(table.columns[:4]) == ["real row", "column", "true value", "reconstructed"] and len(table)
    assert "rarest first" in texts(at.caption)


def test_without_a_holdout_the_tab_says_what_the_attack_needs():
    at = seeded(["dcr"], holdout=False)
    assert_no_exception(at)
    assert NO_RECONSTRUCTION in texts(at.info)
    assert not at.get("plotly_chart")
    assert "Choose metrics" in [link.value for link in at.main.page_link]


def test_after_a_run_without_it_one_click_adds_the_attack_and_fills_the_tab():
    # The default run has no reconstruction metric: the tab was empty ("No reconstruction metric ran").
    at = seeded(["dcr"])
    assert_no_exception(at)
    assert OFFER_TEXT in texts(at.info) and not at.get("plotly_chart")
    offer = [b for b in at.button if b.key and b.key.startswith("offer-reconstruction::")]
    assert len(offer) == 1
    assert "Add the reconstruction attack and run again (" in offer[0].label and "second" in offer[0].label
    offer[0].click().run(timeout=240)
    assert_no_exception(at)
    assert at.session_state["selected_metrics"] == ["dcr", OFFERED]
    assert at.session_state["metric::" + OFFERED] is True
    assert "it leaks about them" in texts(at.markdown)
    assert len(at.get("plotly_chart")) == 1