"""A deep link to every page as the very first request after the server starts.

Streamlit maps ``pages/N_Name.py`` to the URL path ``/Name``. Each test starts its own server, so the
deep link is the first page request that server ever sees (the situation in which Streamlit used to
skip page registration). The page must render without an exception or traceback; pages that need
data must say what to do and link to the Data page.
"""

from __future__ import annotations

import re

import pytest
from browser_support import PAGE_PATHS, assert_clean, missing_page_xfail, open_app, screenshot, wait_idle, without_query

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(120)]

#: Pages that cannot show anything useful before data is loaded.
NEEDS_DATA = {"Configure", "Metrics", "Results", "Audit", "Compare metrics"}
#: A distinctive heading or text each page shows on a fresh session.
EXPECTED_TEXT = {
    "Home": "How private is your synthetic data?",
    "Data": "Data",
    "Configure": None,
    "Metrics": None,
    "Results": None,
    "Learn": "Learn",
    "Audit": "Audit a generator",
    "Compare metrics": "Compare metrics",
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
    assert without_query(page.url).rstrip("/") == fresh_server.page_url(name).rstrip("/")
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
        assert any(re.search(r"/Data/?$", without_query(h)) for h in hrefs), \
            f"no link to the Data page on {name}: {hrefs}"

    guard.assert_local()
    assert guard.urls, "the network guard recorded nothing"


@pytest.mark.parametrize("name", ["Home", "Learn"])
def test_navigation_names_the_home_page_home(fresh_server, page, guard, name):
    # Streamlit's pages/ list would name the home page "app" (its file name); the app's own list says "Home",
    # with the same URLs, so deep links and the links in the list agree (issue 11).
    open_app(page, fresh_server, name)
    sidebar = page.locator("[data-testid=stSidebar]")
    assert page.locator("[data-testid=stSidebarNav]").count() == 0, "Streamlit's own page list is shown too"
    links = sidebar.locator("[data-testid=stPageLink] a")
    labels = [text.strip() for text in links.all_inner_texts()]
    assert labels == list(PAGE_PATHS), labels
    assert "app" not in sidebar.inner_text().split()
    # The other pages' links carry their URLs. st.page_link gives the home page an empty href (the current
    # address); a click still opens the home page, checked below.
    hrefs = links.evaluate_all("links => links.map(a => a.href)")
    assert [without_query(h) for h in hrefs[1:]] == [fresh_server.page_url(n) for n in list(PAGE_PATHS)[1:]]
    # ... and the session id, so that following a link and then reloading keeps the user's work.
    assert all("session=" in h for h in hrefs[1:]), hrefs
    screenshot(page, f"navigation-from-{name}")

    sidebar.get_by_role("link", name="Home", exact=True).click()
    page.wait_for_url(re.compile(rf"^{re.escape(fresh_server.url)}/?(\?.*)?$"))
    wait_idle(page)
    assert "How private is your synthetic data?" in page.locator("[data-testid=stMain]").inner_text()
    assert "Home" in page.title()
    assert_clean(page)
    guard.assert_local()
