"""The Reconstruction view in a real browser, at 1400 px and on a phone-sized screen (issue 40 items 3 and 4).

The demo's noisy copy (300 people, its real table and holdout) is uploaded, the Configure page's preset "Demographics
and location" sets the key, only the honest-best reconstruction and a cheap metric (CRP) are ticked, and the Results
page's "Reconstruction" tab must draw the per-column figure (one row per secret column) and the table of the most
exposed people with their true and reconstructed values, at 1400 px and at 390 px without any figure, text of a figure
or the page running wider than the screen.
"""

from __future__ import annotations

import re

import pytest
from browser_support import (
    assert_clean,
    assert_fits,
    button,
    go_to,
    missing_page_xfail,
    open_app,
    open_tab,
    run_evaluation,
    screenshot,
    upload_tables,
    wait_idle,
)

from privcore.data.threat_models import THREAT_MODELS, preset_key

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

WIDE = {"width": 1400, "height": 1000}
NARROW = {"width": 390, "height": 900}
PRESET = next(m for m in THREAT_MODELS if m.id == "demographics_location")

#: The row labels of the first Plotly figure of the open tab (its traces' y values; plotly.js keeps them on the
#: graph element).
ROWS = """() => {
  const plot = document.querySelector('[data-testid=stMain] .js-plotly-plot');
  return Array.from(plot.data[0].y);
}"""


@pytest.fixture(scope="module")
def csv_files(tmp_path_factory, demo):
    folder = tmp_path_factory.mktemp("reconstruction")
    paths = {"real": folder / "real_people.csv", "synthetic": folder / "noisy_synthetic.csv",
             "holdout": folder / "holdout_people.csv"}
    demo.real.to_csv(paths["real"], index=False)
    demo.synthetic.to_csv(paths["synthetic"], index=False)
    demo.holdout.to_csv(paths["holdout"], index=False)
    return paths


def tick(page, metric_id: str) -> None:
    """Tick the Metrics page's checkbox of ``metric_id`` and wait for the rerun."""
    box = page.locator("[data-testid=stCheckbox]").filter(has_text=re.compile(rf"\({re.escape(metric_id)}\)\s*$"))
    assert box.count() == 1, f"expected one checkbox for {metric_id}, found {box.count()}"
    box.locator("label").click()
    wait_idle(page)
    assert box.locator("input[type=checkbox]").is_checked()


@missing_page_xfail("Results")
def test_the_reconstruction_view_draws_at_1400_and_390_px(server, page, guard, csv_files, demo):
    main = page.locator("[data-testid=stMain]")
    page.set_viewport_size(WIDE)
    open_app(page, server, "Data")
    upload_tables(page, csv_files["real"], [csv_files["synthetic"]], csv_files["holdout"])

    # What the attacker knows: the preset sets the key from the column names and says which columns are secret.
    go_to(page, "Configure")
    main.locator("[data-testid=stDataFrame]").first.wait_for()
    button(page, PRESET.label).click()
    wait_idle(page)
    key = preset_key(PRESET, list(demo.types), demo.sensitive).key
    main.get_by_text(f"“{PRESET.label}”: key set to {', '.join(key)}").wait_for()
    main.get_by_text(re.compile(r"The reconstruction attacks treat every column outside the key as secret")).wait_for()
    assert_clean(page)

    go_to(page, "Metrics")
    button(page, re.compile(r"^\s*Clear\s*$")).click()
    wait_idle(page)
    tick(page, "recon_best")
    tick(page, "crp")
    page.mouse.move(0, 0)

    go_to(page, "Results")
    run_evaluation(page)

    open_tab(page, "Reconstruction", plot=True)
    screenshot(page, "reconstruction-1400")

    # One row per secret column (every analysed column outside the key), and the exposed people's table.
    secret = sorted(c for c in demo.types if c not in key)
    assert sorted(page.evaluate(ROWS)) == secret
    main.get_by_text(re.compile(r"it leaks about them")).first.wait_for()  # the noisy copy leaks
    table = main.locator("[data-testid=stDataFrame]").first
    table.wait_for()
    assert "reconstructed" in table.inner_text() or table.locator("text=reconstructed").count()
    main.get_by_text(re.compile(r"rarest first")).first.wait_for()
    assert_fits(page, WIDE["width"])

    page.set_viewport_size(NARROW)
    wait_idle(page)
    page.wait_for_timeout(1000)  # Plotly redraws at the new width
    screenshot(page, "reconstruction-390")
    main.locator(".js-plotly-plot").first.wait_for()
    assert_fits(page, NARROW["width"])
    guard.assert_local()
