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
from browser_support import (
    assert_clean,
    assert_no_error_alert,
    button,
    choose_option,
    go_to,
    missing_page_xfail,
    open_app,
    open_tab,
    run_evaluation,
    screenshot,
    upload_tables,
    uploader,
    wait_idle,
)

from privcore.demo import load_scenario
from privcore.metrics import registry

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(240)]

QUICK = set(registry.presets()["quick"])
#: The default choice with a holdout (the demo's, the uploaded one): the membership attacks too.
QUICK_WITH_HOLDOUT = set(registry.quick_metrics(holdout=True))
METRIC_KEYS = {"risk", "raw", "applicable", "reason", "baseline", "interval", "seconds", "params"}
N_UPLOAD = 300


# ------------------------------------------------------------------------------------------ helpers


def sidebar(page):
    return page.locator("[data-testid=stSidebar]")


def download(page, label) -> tuple[str, bytes]:
    """Click the download button whose text matches ``label``; the file's suggested name and bytes."""
    target = page.locator("[data-testid=stDownloadButton] button").filter(has_text=label).first
    target.wait_for(state="visible")
    with page.expect_download() as info:
        target.click()
    file = info.value
    assert file.failure() is None, file.failure()
    with open(file.path(), "rb") as f:
        return file.suggested_filename, f.read()


#: Elements of an HTML page that make a browser fetch a URL.
FETCHING = re.compile(r"<(?:script|img|iframe|link|source|video|audio)\b[^>]*?\b(?:src|href)\s*=\s*[\"']?"
                      r"((?:https?:)?//[^\"'\s>]+)", re.I)


def check_self_contained(html: str) -> None:
    """The HTML report loads nothing from another machine (scripts, styles, images, fonts)."""
    assert "<html" in html.lower()
    remote = [u for u in FETCHING.findall(html) if "127.0.0.1" not in u]
    remote += re.findall(r"@import\s+url\(\s*[\"']?(https?://[^)\"']+)", html)
    remote += re.findall(r"url\(\s*[\"']?(https?://[^)\"']+\.(?:woff2?|ttf|otf))", html)
    assert not remote, f"the HTML report fetches remote resources: {remote[:10]}"


def run_and_download(page, test_name: str, tour: bool = True, html: bool = False) -> dict:
    """On the Results page: run, wait for the score cards, visit the tabs and download the JSON.

    Returns the parsed JSON of the first synthetic table. With ``tour``, every tab is opened (with a
    screenshot) and must show its content; with ``html``, the HTML report is downloaded and checked
    to be self-contained.
    """
    main = page.locator("[data-testid=stMain]")
    run_evaluation(page)
    assert_no_error_alert(page)
    screenshot(page, f"{test_name}-5-results-score-cards")

    if tour:
        open_tab(page, "Side by side")
        main.locator("[data-testid=stPlotlyChart]").first.wait_for()
        assert main.locator("[data-testid=stDataFrame]").count() >= 1, "no side-by-side table"
        screenshot(page, f"{test_name}-6-results-side-by-side")
        open_tab(page, "Metric in detail")
        main.get_by_text("What this score means").first.wait_for()
        main.get_by_text("Three questions").first.wait_for()
        screenshot(page, f"{test_name}-7-results-metric-detail")
        open_tab(page, "Record explorer")
        main.get_by_text("Metrics disagree").first.wait_for()
        screenshot(page, f"{test_name}-8-results-record-explorer")

    open_tab(page, "Downloads")
    name, data = download(page, re.compile(r"JSON for “"))
    assert name.endswith(".json"), name
    doc = json.loads(data.decode("utf-8"))
    if html:
        name, data = download(page, re.compile(r"HTML report", re.I))
        assert name.endswith(".html"), name
        check_self_contained(data.decode("utf-8"))
    screenshot(page, f"{test_name}-9-results-downloads")
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
    panel = page.locator("[data-testid=stTabPanel]").filter(has_text="Risk level:").first
    panel.wait_for()
    # The attacks the strongest one is chosen from are behind an expander: open it to read their cards.
    chosen_from = panel.locator("[data-testid=stExpander] summary").filter(has_text="the strongest one is chosen from")
    for i in range(chosen_from.count()):
        chosen_from.nth(i).click()
    cards = panel.inner_text()
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

    upload_tables(page, paths["real"], [paths["synthetic"]], paths["holdout"])
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
    assert any("Kind" in h for h in headers), headers
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
    doc = run_and_download(page, name, html=True)
    applicable = check_contract(doc, {"real": N_UPLOAD, "synthetic": N_UPLOAD, "holdout": N_UPLOAD},
                                QUICK_WITH_HOLDOUT)
    check_cards_match(page, doc, applicable)
    assert_clean(page)
    guard.assert_local()


@missing_page_xfail("Results")
def test_bad_uploads_are_explained(server, page, guard, csv_files, tmp_path):
    """A file that is not a table, and a synthetic table missing a column: friendly messages, no traceback."""
    paths, _ = csv_files
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"\x00\x01 this is not a workbook \xff\xfe" * 20)
    short = tmp_path / "short_synthetic.csv"
    frame = load_scenario("noisy_copy", n=50).synthetic.drop(columns=["occupation"])
    frame.to_csv(short, index=False)

    open_app(page, server, "Data")
    uploader(page, "Real table").set_input_files(broken)
    alert = page.locator("[data-testid=stAlertContentError]").filter(has_text="broken.xlsx")
    alert.first.wait_for()
    wait_idle(page)
    assert_clean(page)
    assert "Nothing loaded yet." in sidebar(page).inner_text()

    uploader(page, "Real table").set_input_files(paths["real"])
    sidebar(page).get_by_text("real_people.csv").wait_for()
    wait_idle(page)
    uploader(page, "Synthetic tables").set_input_files(short)
    sidebar(page).get_by_text(re.compile(r"Synthetic: short_synthetic")).wait_for()
    wait_idle(page)
    mismatch = page.locator("[data-testid=stAlertContentError]").filter(has_text="occupation")
    mismatch.first.wait_for()
    assert_clean(page)
    screenshot(page, "bad-uploads-data")

    # Going on anyway: the Configure page must explain the problem rather than fail.
    go_to(page, "Configure")
    assert_clean(page)
    page.locator("[data-testid=stAlertContentError]").filter(has_text="occupation").first.wait_for()
    screenshot(page, "bad-uploads-configure")
    for name in ("Metrics", "Results"):  # both name the file that blocks them and its fix (issue 23)
        go_to(page, name)
        assert_clean(page)
        text = page.locator("[data-testid=stMain]").inner_text()
        assert "The synthetic table 'short_synthetic' cannot be evaluated" in text
        assert "remove it on the Data page" in text
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
        doc, {"real": len(demo.real), "synthetic": len(demo.synthetic), "holdout": len(demo.holdout)},
        QUICK_WITH_HOLDOUT)
    # The demo has a holdout: the score cards must show the baseline and the excess risk.
    assert any(doc["metrics"][m]["baseline"] is not None for m in applicable), "no baseline with a holdout"
    check_cards_match(page, doc, applicable)
    # Each card leads with the excess "above a fresh sample (baseline)"; the raw numbers are behind its details.
    assert re.search(r"above a fresh sample \(0\.\d{3}", page.locator("[data-testid=stMain]").inner_text())

    # The settings the demo chose are on the Configure and Metrics pages of the same session.
    go_to(page, "Configure")
    assert_clean(page)
    page.locator("[data-testid=stMain]").get_by_text(f"sensitive column: {demo.sensitive}").wait_for()
    screenshot(page, f"{name}-2-configure")
    go_to(page, "Metrics")
    assert_clean(page)
    main = page.locator("[data-testid=stMain]")
    main.get_by_text("Estimated time:").first.wait_for()  # the default choice's time, stated before a run
    count = re.search(r"(\d+) metric\(s\) selected", main.inner_text()).group(1)
    assert int(count) == len(doc["metrics"]), "the Metrics page counts other metrics than the run"
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
    doc = run_and_download(page, name, tour=False)
    applicable = check_contract(
        doc, {"real": len(scenario.real), "synthetic": len(scenario.synthetic),
              "holdout": len(scenario.holdout)}, QUICK_WITH_HOLDOUT)
    assert max(doc["metrics"][m]["risk"] for m in applicable) >= 0.9, "an exact copy should score high"
    guard.assert_local()


@missing_page_xfail("Results")
def test_server_started_with_demo_flag(demo_server, page, guard):
    """``streamlit run app.py -- --demo``: a session opened on the home page has the demo loaded."""
    # The server warmed up (imports, the demo's tables) before it answered its health check (issue 39 item 4).
    assert "privcore: warmed up in" in demo_server.log_tail() and "the demo 'noisy_copy'" in demo_server.log_tail()
    open_app(page, demo_server, "Home")
    assert_clean(page)
    summary = sidebar(page)
    summary.get_by_text("Demo scenario").wait_for()
    assert "Holdout:" in summary.inner_text()
    go_to(page, "Results")
    assert_clean(page)
    run = button(page, re.compile(r"Run evaluation", re.I))
    run.wait_for()
    assert run.is_enabled(), "with the demo loaded, the quick preset should be chosen and runnable"
    screenshot(page, "demo-flag-results-before-run")
    guard.assert_local()
