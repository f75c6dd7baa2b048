"""The whole dashboard flow in a real browser: uploaded CSVs and the built-in demo, up to the JSON download.

One server serves the module (each test opens its own browser context, hence its own Streamlit
session). Pages are reached through the app's own links, so session state survives like it does for
a user. Every test ends with the network guard: no request may leave 127.0.0.1.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from conftest import (RUN_TIMEOUT, assert_clean, button, go_to, missing_page_xfail, open_app, screenshot,
                      wait_idle)
from privcore import registry
from privcore.demo import load_scenario

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

QUICK = set(registry.presets()["quick"])
METRIC_KEYS = {"risk", "raw", "applicable", "reason", "baseline", "interval", "seconds", "params"}
N_UPLOAD = 300


# ------------------------------------------------------------------------------------------ helpers


def sidebar(page):
    return page.locator("[data-testid=stSidebar]")


def uploader(page, label: str):
    """The file input of the uploader whose label starts with ``label``."""
    box = page.locator("[data-testid=stFileUploader]").filter(
        has=page.locator("[data-testid=stWidgetLabel]", has_text=re.compile(rf"^\s*{re.escape(label)}")))
    assert box.count() == 1, f"expected one uploader labelled {label!r}, found {box.count()}"
    return box.locator("input[type=file]")


def choose_option(page, label: str, option: str) -> None:
    """Pick ``option`` in the ``st.selectbox`` labelled ``label``."""
    box = page.locator("[data-testid=stSelectbox]").filter(
        has=page.locator("[data-testid=stWidgetLabel]", has_text=label)).first
    wait_idle(page)
    choice = page.get_by_role("option", name=option, exact=True)
    for attempt in range(3):  # a rerun that lands during the click can close the list again
        box.locator("input").click()
        try:
            choice.wait_for(state="visible", timeout=5_000)
            break
        except PlaywrightTimeoutError:
            page.keyboard.press("Escape")
            wait_idle(page)
    choice.click()
    wait_idle(page)
    shown = box.locator("input[role=combobox]").input_value()
    assert shown == option, f"{label!r} shows {shown!r}, not {option!r}"


def assert_no_error_alert(page) -> None:
    errors = page.locator("[data-testid=stAlertContentError]")
    assert errors.count() == 0, f"error message(s) shown: {errors.all_inner_texts()}"


def open_tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()
    page.wait_for_timeout(200)


def run_and_download(page, test_name: str) -> dict:
    """On the Results page: run, wait for the score cards, download and parse the JSON of the first table."""
    main = page.locator("[data-testid=stMain]")
    run = button(page, re.compile(r"Run evaluation", re.I))
    assert run.is_enabled(), "the run button is disabled"
    run.click()
    # The score cards say "Risk level: …" once the run is over.
    main.get_by_text(re.compile(r"Risk level:")).first.wait_for(timeout=RUN_TIMEOUT)
    wait_idle(page, timeout=RUN_TIMEOUT)
    assert_clean(page)
    assert_no_error_alert(page)
    screenshot(page, f"{test_name}-5-results")
    assert page.locator("[data-testid=stPlotlyChart]").count() >= 1, "no Plotly figure on the Results page"

    open_tab(page, "Downloads")
    json_button = page.locator("[data-testid=stDownloadButton] button").filter(
        has_text=re.compile(r"^\s*(download\s*)?JSON for “", re.I)).first
    json_button.wait_for(state="visible")
    with page.expect_download() as info:
        json_button.click()
    download = info.value
    assert download.failure() is None, download.failure()
    assert download.suggested_filename.endswith(".json")
    with open(download.path(), encoding="utf-8") as f:
        doc = json.load(f)
    open_tab(page, "Score cards")
    return doc


def check_contract(doc: dict, rows: dict, allowed: set[str]) -> list[str]:
    """The JSON contract of product.md; returns the applicable metric ids."""
    assert {"metrics", "warnings", "rows"} <= set(doc), f"top-level keys: {sorted(doc)}"
    assert isinstance(doc["warnings"], list)
    assert doc["rows"] == rows, doc["rows"]
    assert doc["metrics"], "no metric in the JSON"
    applicable = []
    for mid, m in doc["metrics"].items():
        assert mid in allowed, f"{mid} was not chosen"
        assert METRIC_KEYS <= set(m), f"{mid}: keys {sorted(m)}"
        assert isinstance(m["applicable"], bool)
        if m["applicable"] and isinstance(m["risk"], (int, float)):
            assert math.isfinite(m["risk"]) and 0.0 <= m["risk"] <= 1.0, (mid, m["risk"])
            applicable.append(mid)
        elif not m["applicable"]:
            assert isinstance(m["reason"], str) and m["reason"], f"{mid} is not applicable but gives no reason"
    assert applicable, "no applicable metric with a numeric risk"
    return applicable


def check_cards_match(page, doc: dict, applicable: list[str]) -> None:
    """Every applicable metric's risk in the JSON is on a score card (3 decimals)."""
    cards = page.locator("[data-testid=stTabPanel]").first.inner_text()
    for mid in applicable:
        shown = f"{doc['metrics'][mid]['risk']:.3f}"
        assert shown in cards, f"risk {shown} of {mid} is not on the score cards"


# -------------------------------------------------------------------------------------------- tests


@pytest.fixture(scope="module")
def csv_files(tmp_path_factory):
    """Small real, synthetic and holdout CSVs from the noisy-copy demo scenario."""
    folder = tmp_path_factory.mktemp("upload")
    demo = load_scenario("noisy_copy", n=N_UPLOAD)
    paths = {}
    for role, frame in [("real", demo.real), ("synthetic", demo.synthetic), ("holdout", demo.holdout)]:
        paths[role] = folder / f"{role}_people.csv"
        frame.to_csv(paths[role], index=False)
    return paths, demo.sensitive


@missing_page_xfail("Results")
def test_whole_flow_on_uploaded_csvs(server, page, guard, csv_files):
    paths, sensitive = csv_files
    name = "upload"
    open_app(page, server, "Data")
    assert_clean(page)

    uploader(page, "Real table").set_input_files(paths["real"])
    sidebar(page).get_by_text("real_people.csv").wait_for()
    wait_idle(page)
    uploader(page, "Synthetic tables").set_input_files(paths["synthetic"])
    sidebar(page).get_by_text(re.compile(r"Synthetic: synthetic_people")).wait_for()
    wait_idle(page)
    uploader(page, "Holdout table").set_input_files(paths["holdout"])
    sidebar(page).get_by_text(re.compile(r"Holdout: holdout_people")).wait_for()
    wait_idle(page)
    main = page.locator("[data-testid=stMain]")
    assert_no_error_alert(page)
    assert "same columns as the real table" in main.inner_text()
    assert_clean(page)
    screenshot(page, f"{name}-1-data")

    go_to(page, "Configure")
    assert_clean(page)
    grid = main.locator("[data-testid=stDataFrame]").first
    grid.wait_for()
    headers = grid.locator("[role=columnheader]").all_inner_texts()
    assert any("Type" in h for h in headers), headers
    cells = grid.locator("[role=gridcell]").all_inner_texts()
    assert "age" in cells and "numerical" in cells and "categorical" in cells, cells[:30]
    choose_option(page, "Sensitive column", sensitive)
    main.get_by_text(f"sensitive column: {sensitive}").wait_for()
    assert_clean(page)
    screenshot(page, f"{name}-2-configure")

    go_to(page, "Metrics")
    assert_clean(page)
    button(page, re.compile(r"^\s*Quick\s*$")).click()
    main.get_by_text("Preset “quick”").wait_for()
    wait_idle(page)
    assert_clean(page)
    screenshot(page, f"{name}-3-metrics")

    go_to(page, "Results")
    assert_clean(page)
    screenshot(page, f"{name}-4-results-before-run")
    doc = run_and_download(page, name)
    applicable = check_contract(doc, {"real": N_UPLOAD, "synthetic": N_UPLOAD, "holdout": N_UPLOAD}, QUICK)
    check_cards_match(page, doc, applicable)
    assert_clean(page)
    guard.assert_local()


@missing_page_xfail("Results")
def test_whole_flow_on_demo_from_home(server, page, guard):
    name = "demo-home"
    open_app(page, server, "Home")
    assert_clean(page)
    screenshot(page, f"{name}-0-home")

    button(page, "Start with demo data").click()
    page.wait_for_url(re.compile(r"/Results/?(\?.*)?$"))
    wait_idle(page)
    assert_clean(page)
    assert "Demo scenario" in sidebar(page).inner_text()
    screenshot(page, f"{name}-4-results-before-run")

    demo = load_scenario("noisy_copy")
    doc = run_and_download(page, name)
    applicable = check_contract(
        doc, {"real": len(demo.real), "synthetic": len(demo.synthetic), "holdout": len(demo.holdout)}, QUICK)
    # The demo has a holdout: the score cards must show the baseline and the excess risk.
    assert any(doc["metrics"][m]["baseline"] is not None for m in applicable), "no baseline with a holdout"
    assert "Fresh-sample baseline" in page.locator("[data-testid=stMain]").inner_text()
    check_cards_match(page, doc, applicable)

    # The settings the demo chose are on the Configure and Metrics pages of the same session.
    go_to(page, "Configure")
    assert_clean(page)
    page.locator("[data-testid=stMain]").get_by_text(f"sensitive column: {demo.sensitive}").wait_for()
    screenshot(page, f"{name}-2-configure")
    go_to(page, "Metrics")
    assert_clean(page)
    screenshot(page, f"{name}-3-metrics")
    guard.assert_local()


@missing_page_xfail("Results")
def test_demo_picker_on_data_page_exact_copy(server, page, guard):
    """The Data page's demo picker: an exact copy of the real table must be caught."""
    name = "demo-picker"
    open_app(page, server, "Data")
    open_tab(page, "Use a built-in demo")
    scenario = load_scenario("exact_copy")
    choose_option(page, "Demo scenario", scenario.scenario.title)
    button(page, "Load this demo").click()
    page.get_by_text("Demo loaded:").wait_for()
    wait_idle(page)
    assert_clean(page)
    screenshot(page, f"{name}-1-data")

    go_to(page, "Configure")  # the "Next" link of the Data page
    assert_clean(page)
    go_to(page, "Metrics")
    assert_clean(page)
    go_to(page, "Results")
    assert_clean(page)
    doc = run_and_download(page, name)
    applicable = check_contract(
        doc, {"real": len(scenario.real), "synthetic": len(scenario.synthetic),
              "holdout": len(scenario.holdout)}, QUICK)
    assert max(doc["metrics"][m]["risk"] for m in applicable) >= 0.9, "an exact copy should score high"
    guard.assert_local()
