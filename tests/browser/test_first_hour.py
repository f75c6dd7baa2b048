"""A non-expert's first hour in a real browser: the upload and no-holdout paths say what they are, no tab stays empty.

- Uploading a real and a synthetic table over the demo says which of the demo's tables were dropped (its holdout
  too); the run that follows has no holdout, so no text and no axis compares with a fresh sample or speaks of an
  attacker's advantage.
- After the default run on the demo, the Reconstruction tab offers its attack in one click, with its time, and the
  click fills the tab with its figure.
- No text of a page (button, label, caption, uploader hint) is cut with an ellipsis, at 1,400 px or at 390 px.
"""

from __future__ import annotations

import re

import pytest
from browser_support import (
    RUN_TIMEOUT,
    assert_clean,
    button,
    go_to,
    open_app,
    open_tab,
    run_evaluation,
    screenshot,
    uploader,
    wait_idle,
)

from privcore.demo import load_scenario
from privcore.report.tradeoff_figures import PRIVACY_AXIS, PROXY_AXIS

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(400)]

#: The x axis title of the first Plotly figure of the open tab.
X_AXIS = """() => {
  const plot = document.querySelector('[data-testid=stMain] .js-plotly-plot');
  return plot.layout.xaxis.title.text;
}"""


#: Elements whose own text runs past their box where the box hides it (an ellipsis or a clipped line).
CUT_TEXT = """() => {
  const out = [];
  for (const el of document.querySelectorAll('[data-testid=stMain] *, [data-testid=stSidebar] *')) {
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const s = getComputedStyle(el);
    const hides = s.overflow === 'hidden' || s.overflowX === 'hidden' || s.textOverflow === 'ellipsis';
    if (hides && el.scrollWidth > el.clientWidth + 1) out.push(el.textContent.trim().slice(0, 60));
  }
  return out;
}"""
PAGES = ("Data", "Configure", "Metrics", "Results", "Learn", "Audit", "Compare metrics")


@pytest.fixture(scope="module")
def csv_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("first-hour")
    demo = load_scenario("column_resampler", n=300)
    paths = {"real": folder / "my_people.csv", "synthetic": folder / "my_synthetic.csv"}
    demo.real.to_csv(paths["real"], index=False)
    demo.synthetic.to_csv(paths["synthetic"], index=False)
    return paths


def test_an_upload_over_the_demo_names_what_it_dropped_and_no_holdout_means_no_fresh_sample(server, page, guard,
                                                                                           csv_files):
    page.set_viewport_size({"width": 1400, "height": 1000})
    main = page.locator("[data-testid=stMain]")
    open_app(page, server, "Home")
    button(page, "Start with demo data").click()
    page.wait_for_url(re.compile(r"/Results/?(\?.*)?$"))
    wait_idle(page)

    go_to(page, "Data")
    uploader(page, "Real table").set_input_files(csv_files["real"])
    page.locator("[data-testid=stSidebar]").get_by_text(csv_files["real"].name).wait_for()
    wait_idle(page)
    notice = main.get_by_text(re.compile(r"replaced the demo")).first
    notice.wait_for()
    said = notice.inner_text()
    assert "my_people.csv replaced the demo" in said and "holdout" in said, said
    uploader(page, "Synthetic tables").set_input_files([csv_files["synthetic"]])
    page.locator("[data-testid=stSidebar]").get_by_text(re.compile("my_synthetic")).first.wait_for()
    wait_idle(page)
    assert_clean(page)

    go_to(page, "Metrics")
    button(page, re.compile(r"^\s*Quick\s*$")).click()
    main.get_by_text("Preset “quick”").wait_for()
    wait_idle(page)
    page.mouse.move(0, 0)
    go_to(page, "Results")
    wait_idle(page)
    run_evaluation(page, timeout=RUN_TIMEOUT)
    text = main.inner_text()
    # Without a holdout there is no fresh sample: nothing is "above a fresh sample", no attacker's advantage.
    assert "above a fresh sample" not in text and "advantage over a fresh sample" not in text

    open_tab(page, "Privacy and utility", plot=True)
    screenshot(page, "first-hour-no-holdout-tradeoff")
    axis = page.evaluate(X_AXIS).replace("<br>", " ")
    assert axis == PROXY_AXIS and axis != PRIVACY_AXIS, axis
    assert "fresh sample" not in axis and "advantage" not in axis
    guard.assert_local()


def test_after_the_default_run_the_reconstruction_tab_fills_in_one_click(server, page, guard):
    page.set_viewport_size({"width": 1400, "height": 1000})
    main = page.locator("[data-testid=stMain]")
    open_app(page, server, "Home")
    button(page, "Start with demo data").click()
    page.wait_for_url(re.compile(r"/Results/?(\?.*)?$"))
    wait_idle(page)
    run_evaluation(page, timeout=RUN_TIMEOUT)

    open_tab(page, "Reconstruction")
    offer = main.locator("[data-testid=stButton] button:visible").filter(
        has_text=re.compile(r"Add the reconstruction attack and run again \(.+\)"))
    assert offer.count() == 1, main.inner_text()[:2000]
    assert re.search(r"\((about |under |\d).*\)", offer.inner_text()), offer.inner_text()  # its estimated time
    assert main.locator(".js-plotly-plot").count() == 0  # nothing drawn before the click
    offer.click()
    main.locator(".js-plotly-plot").first.wait_for(timeout=RUN_TIMEOUT)
    wait_idle(page, timeout=RUN_TIMEOUT)
    assert_clean(page)
    assert "No reconstruction metric ran" not in main.inner_text()
    screenshot(page, "first-hour-reconstruction-filled")
    guard.assert_local()


@pytest.mark.parametrize("width", [1400, 390])
def test_no_text_is_cut_on_any_page(server, page, guard, width):
    page.set_viewport_size({"width": width, "height": 900})
    open_app(page, server, "Home")
    button(page, "Start with demo data").click()
    page.wait_for_url(re.compile(r"/Results/?(\?.*)?$"))
    wait_idle(page)
    cut = {}
    for name in PAGES:
        page.goto(server.page_url(name))
        wait_idle(page)
        page.wait_for_timeout(500)  # fonts and widths settle after the script run
        found = page.evaluate(CUT_TEXT)
        if found:
            cut[name] = found
    assert not cut, f"text cut at {width} px: {cut}"
    guard.assert_local()
