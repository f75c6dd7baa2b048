"""The first answer is the right one (issue 23, "Must show"): in a real browser, the demo's first run with the
default choices answers "do not release" for the noisy copy, with the membership attack as its evidence, and
"release" for a fresh sample; DVP, whose fresh sample also scores the maximum, never shows "Low" beside it.

The demo is loaded from the Data page's picker, nothing is chosen on the Metrics page, and "Run evaluation" is
pressed on the Results page: exactly what a newcomer does.
"""

from __future__ import annotations

import re

import pytest
from browser_support import (
    assert_clean,
    assert_no_error_alert,
    button,
    choose_option,
    go_to,
    open_app,
    open_tab,
    run_evaluation,
    screenshot,
    wait_idle,
)

from privcore.demo import load_scenario
from privcore.metrics import registry

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

DVP = registry.get("dvp").name
BEST = registry.get("mia_best").name


def first_run(page, server, scenario: str, name: str):
    """Load ``scenario`` from the Data page, keep the default choice, run; the main area after the run."""
    open_app(page, server, "Data")
    open_tab(page, "Use a built-in demo")
    choose_option(page, "Demo scenario", load_scenario(scenario, n=50).scenario.title)
    button(page, "Load this demo").click()
    page.get_by_text("Demo loaded:").wait_for()
    wait_idle(page)
    main = page.locator("[data-testid=stMain]")
    go_to(page, "Metrics")
    assert_clean(page)
    text = main.inner_text()
    assert "Estimated time:" in text, "the Metrics page must state the default choice's time"
    assert re.search(r"\d+ metric\(s\) selected: [^\n]*mia_best", text), "mia_best is not in the default choice"
    count = int(re.search(r"(\d+) metric\(s\) selected", text).group(1))
    screenshot(page, f"{name}-metrics")
    go_to(page, "Results")
    assert_clean(page)
    assert f"{count} metric(s) on 1 synthetic table(s)" in main.inner_text(), "Metrics and Results count differently"
    run_evaluation(page)
    assert_no_error_alert(page)
    screenshot(page, f"{name}-results")
    return main


def answer_text(main) -> str:
    """What the page says under "The answer", up to the tabs."""
    main.get_by_text("The answer", exact=True).wait_for()
    text = main.inner_text()
    start = text.index("The answer")
    end = text.find("Score cards", start)
    return text[start:end if end > 0 else None]


def card_text(main, metric_name: str) -> str:
    """The text of one metric's score card."""
    title = main.locator("strong", has_text=re.compile(rf"^{re.escape(metric_name)}$")).first
    title.wait_for()
    return title.locator("xpath=ancestor::div[@data-testid='stVerticalBlock'][1]").inner_text()


def assert_dvp_never_low(main) -> None:
    card = card_text(main, DVP)
    assert "Cannot tell on this data" in card, card
    assert "Low" not in card, f"DVP shows Low beside its maximum: {card}"
    assert "fresh sample of real people scores 1.000 too" in card, "the reason must be visible on the card"


def test_the_noisy_copy_demo_first_answer_is_do_not_release_with_the_membership_attack(server, page, guard):
    main = first_run(page, server, "noisy_copy", "first-answer-noisy")
    answer = answer_text(main)
    assert "Do not release:" in answer and "Release with caution" not in answer, answer
    assert BEST in answer and "tells who was in the training data" in answer, answer
    assert_dvp_never_low(main)
    guard.assert_local()


def test_the_fresh_sample_demo_first_answer_is_release(server, page, guard):
    main = first_run(page, server, "fresh_sample", "first-answer-fresh")
    answer = answer_text(main)
    assert "Release: no attack does better" in answer, answer
    assert "Do not release" not in answer and "Release with caution" not in answer, answer
    assert BEST in answer, "the membership attack must be among the evidence"
    assert_dvp_never_low(main)
    guard.assert_local()
