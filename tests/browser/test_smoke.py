"""One browser smoke test per page, with the demo loaded: the quick tier's check that every page still draws.

The server starts as the README's first command starts it (``streamlit run app.py -- --demo``), so a new session
that opens on the home page has the demo's tables, holdout and column settings. Each test opens the home page,
follows the app's own link to its page (the same session, data kept) and checks that the page ran to the end
without an exception, a traceback or a JavaScript error, that the browser tab names it, that it shows its own
words, and that nothing left 127.0.0.1. The Results page is drawn before any run: it offers the run. The flows
that run evaluations, audits and the lab are in the slow tier (``pytest -m slow``).
"""

from __future__ import annotations

import pytest
from browser_support import PAGE_PATHS, assert_clean, go_to, open_app, running_server, screenshot, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

#: Words each page shows with the demo loaded (before anything is run).
WORDS = {
    "Home": "How private is your synthetic data?",
    "Data": "Adult sample (real)",
    "Configure": "Pairing and options",
    "Metrics": "Quick",
    "Results": "Run",
    "Learn": "Learn",
    "Audit": "Audit a generator",
    "Compare metrics": "Compare metrics",
}


@pytest.fixture(scope="module")
def demo_app(browser):
    """One server for the module, started with ``--demo``."""
    with running_server("--demo") as srv:
        yield srv


@pytest.mark.parametrize("name", list(PAGE_PATHS))
def test_page_draws_with_the_demo_loaded(demo_app, page, guard, name):
    open_app(page, demo_app, "Home")
    if name != "Home":
        for attempt in range(3):  # the home page reruns once the demo is loaded: its links are redrawn
            try:
                go_to(page, name)
                break
            except AssertionError:
                if attempt == 2:
                    raise
                wait_idle(page)
                page.wait_for_timeout(500)
    assert_clean(page)
    assert name in page.title(), f"browser tab title {page.title()!r} does not name {name}"
    text = page.locator("[data-testid=stMain]").inner_text()
    assert WORDS[name] in text, f"{name}: {WORDS[name]!r} not shown:\n{text[:2000]}"
    # The demo is loaded on every page: none sends the visitor back to the Data page to load tables.
    assert "No data yet" not in text and "No real table yet" not in text
    screenshot(page, f"smoke-{name}")
    guard.assert_local()
