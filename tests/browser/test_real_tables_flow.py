"""A table people hold, in a real browser (issue 56 item 8): names, dates and a 300-value code, end to end.

Upload, the new kinds on the Configure page (each explained in one sentence), the quick preset, the answer with
every column said, and the JSON download with the reproduced-identifiers check that found the planted names.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from browser_support import (
    assert_clean,
    assert_no_error_alert,
    button,
    choose_option,
    go_to,
    open_app,
    screenshot,
    upload_tables,
    wait_idle,
)
from test_flows import run_and_download

from privcore.data import KIND_MEANINGS

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

ROWS = 300


def patients(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    born = pd.Timestamp("1940-01-01") + pd.to_timedelta(rng.integers(0, 25_000, ROWS), unit="D")
    return pd.DataFrame({
        "diagnosis": [f"D{c:03d}" for c in rng.integers(0, 300, ROWS)],  # a code of 300 values, first
        "first_name": [f"Fn{c}" for c in rng.integers(0, 120, ROWS)],
        "last_name": [f"Ln{c}" for c in rng.integers(0, 5_000, ROWS)],
        "birth_date": born.strftime("%Y-%m-%d"),
        "weight": rng.integers(45, 120, ROWS),
        "smoker": rng.choice(["yes", "no"], ROWS),
    })


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("patients")
    real, synthetic, holdout = patients(1), patients(2), patients(3)
    copied = np.arange(40)  # the first 40 patients' names written out by the "generator"
    synthetic.loc[copied, ["first_name", "last_name"]] = real.loc[copied, ["first_name", "last_name"]].to_numpy()
    paths = {}
    for role, frame in (("real", real), ("synthetic", synthetic), ("holdout", holdout)):
        paths[role] = folder / f"{role}_patients.csv"
        frame.to_csv(paths[role], index=False)
    return paths


def test_names_dates_and_a_300_value_code_work_end_to_end(server, page, guard, files):
    name = "real-tables"
    open_app(page, server, "Data")
    upload_tables(page, files["real"], [files["synthetic"]], files["holdout"])
    assert_no_error_alert(page)
    assert_clean(page)

    go_to(page, "Configure")
    main = page.locator("[data-testid=stMain]")
    for kind, meaning in KIND_MEANINGS.items():  # every kind, with what it means in one sentence
        main.get_by_text(meaning.split(":")[0][:40]).first.wait_for()
    grid = main.locator("[data-testid=stDataFrame]").first
    grid.wait_for()
    cells = grid.locator("[role=gridcell]").all_inner_texts()
    for column, kind in (("first_name", "identifier"), ("birth_date", "date"), ("diagnosis", "categorical")):
        assert column in cells and kind in cells, (column, kind, cells[:40])
    choose_option(page, "Sensitive column", "smoker")
    main.get_by_text("sensitive column: smoker").wait_for()
    assert_clean(page)
    screenshot(page, f"{name}-configure")

    go_to(page, "Metrics")
    button(page, re.compile(r"^\s*Quick\s*$")).click()
    main.get_by_text("Preset “quick”").wait_for()
    page.mouse.move(0, 0)  # the preset's tooltip would lie over the sidebar's links
    wait_idle(page)

    go_to(page, "Results")
    doc = run_and_download(page, name, tour=False)
    assert_no_error_alert(page)
    assert not [m for m, r in doc["metrics"].items() if r.get("failed")]
    said = {e["column"]: (e["status"], e["kind"]) for e in doc["columns"]}
    assert said["first_name"] == ("checked", "identifier") and said["birth_date"] == ("analysed", "date")
    assert said["diagnosis"] == ("analysed", "categorical")
    found = doc["metrics"]["reproduced_identifiers"]["details"]
    assert found["members_found"][0] >= 40 > found["holdout_found"][0]
    main.get_by_text(re.compile(r"Columns \(4 analysed, 2 checked\)")).first.wait_for()
    assert doc["verdict"]["level"] == "do not release", doc["verdict"]["headline"]
    screenshot(page, f"{name}-results")
    assert_clean(page)
    guard.assert_local()
