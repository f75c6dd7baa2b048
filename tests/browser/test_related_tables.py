"""Related tables in a real browser: the players' league loaded per person on the Data page, then answered per person."""

from __future__ import annotations

import re

import pytest
from browser_support import (
    RUN_TIMEOUT,
    assert_clean,
    button,
    choose_option,
    go_to,
    open_app,
    open_tab,
    run_evaluation,
    wait_idle,
)

from privcore.demo import RELATED_TITLES

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(400)]


@pytest.mark.parametrize("scenario, answer", [("people_leak", "Do not release"), ("people_fresh", "Release")])
def test_a_league_loaded_per_person_is_answered_per_person(server, page, guard, scenario, answer):
    page.set_viewport_size({"width": 1400, "height": 1000})
    main = page.locator("[data-testid=stMain]")
    open_app(page, server, "Data")
    page.get_by_role("tab", name="Related tables (people and their rows)").click()
    wait_idle(page)
    choose_option(page, "Built-in related tables", RELATED_TITLES[scenario])
    button(page, "Load these related tables").click()
    main.get_by_text(re.compile("Evaluated per person")).first.wait_for()
    page.locator("[data-testid=stSidebar]").get_by_text(re.compile("players per person")).first.wait_for()
    assert_clean(page)
    go_to(page, "Results")
    assert "Evaluated per person" in main.inner_text()
    run_evaluation(page, timeout=RUN_TIMEOUT)
    text = main.inner_text()
    # The answer's headline starts a line with the level and a colon ("Release:" is not "Release with caution:").
    assert re.search(rf"(^|\n){answer}:", text), text[:1500]
    assert_clean(page)
    open_tab(page, "Record explorer")
    main.get_by_text("This person's rows of seasons").wait_for()
    assert_clean(page)
    guard.assert_local()
