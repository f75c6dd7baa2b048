"""A deep link to every page as the very first request after the server starts.

Streamlit maps ``pages/N_Name.py`` to the URL path ``/Name``. Each test starts its own server, so the
deep link is the first page request that server ever sees (the situation in which Streamlit used to
skip page registration). The page must render without an exception or traceback; pages that need
data must say what to do and link to the Data page.
"""

from __future__ import annotations

import re

import pytest

from browser_support import PAGE_PATHS, assert_clean, missing_page_xfail, open_app, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

#: Pages that cannot show anything useful before data is loaded.
NEEDS_DATA = {"Configure", "Metrics", "Results"}
#: A distinctive heading or text each page shows on a fresh session.
EXPECTED_TEXT = {
    "Home": "How private is your synthetic data?",
    "Data": "Data",
    "Configure": None,
    "Metrics": None,
    "Results": None,
    "Learn": "Learn",
}


@pytest.mark.parametrize(
    "name",
    [pytest.param(name, marks=missing_page_xfail(name)) for name in PAGE_PATHS],
)
def test_deep_link_on_fresh_server(fresh_server, page, guard, name):
    open_app(page, fresh_server, name)
    screenshot(page, f"deep-link-{name}")

    assert_clean(page)
    # The app really is on the requested page (not silently on the home page).
    assert page.url.rstrip("/") == fresh_server.page_url(name).rstrip("/")
    # The requested page's script ran: its set_page_config title names it.
    assert name in page.title(), f"browser tab title {page.title()!r} does not name {name}"
    main = page.locator("[data-testid=stMain]")
    if EXPECTED_TEXT[name]:
        assert EXPECTED_TEXT[name] in main.inner_text()
    if name != "Home":
        # A page that fell back to the home page (page not registered) would show the home title.
        assert "How private is your synthetic data?" not in main.inner_text()

    if name in NEEDS_DATA:
        text = main.inner_text()
        assert re.search(r"Data page", text), f"no guidance towards the Data page on {name}:\n{text}"
        links = main.locator("[data-testid=stPageLink] a")
        hrefs = links.evaluate_all("links => links.map(a => a.href)")  # resolved, absolute URLs
        assert any(re.search(r"/Data/?$", h) for h in hrefs), f"no link to the Data page on {name}: {hrefs}"

    guard.assert_local()
    assert guard.urls, "the network guard recorded nothing"
