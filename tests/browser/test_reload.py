"""Work survives a reload (issue 11, case 5) in a real browser: the session id in the URL and in a cookie
brings back tables and results after a reload and on a page URL typed into the same browser; another
browser (a new context: no cookie, no URL) sees nothing; "Forget my data now" deletes it."""

from __future__ import annotations

import re

import pytest
from browser_support import (
    IDLE_TIMEOUT,
    RUN_TIMEOUT,
    assert_clean,
    button,
    open_app,
    screenshot,
    wait_idle,
    without_query,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(240)]

RISK_LEVEL = re.compile(r"Risk level:")


def main(page):
    return page.locator("[data-testid=stMain]")


def sidebar(page):
    return page.locator("[data-testid=stSidebar]")


def session_param(url: str) -> str | None:
    match = re.search(r"[?&]session=([A-Za-z0-9_-]+)", url)
    return match[1] if match else None


def start_demo_and_run(page, server) -> None:
    open_app(page, server)
    button(page, "Start with demo data").click()
    page.wait_for_url(re.compile(r"/Results/?(\?.*)?$"))
    wait_idle(page)
    button(page, re.compile(r"Run evaluation", re.I)).click()
    main(page).get_by_text(RISK_LEVEL).first.wait_for(timeout=RUN_TIMEOUT)
    wait_idle(page, timeout=RUN_TIMEOUT)
    assert_clean(page)


def test_reload_typed_url_other_browser_and_forget(server, page, guard, browser):
    start_demo_and_run(page, server)
    sid = session_param(page.url)
    assert sid and len(sid) >= 43, page.url
    cards = main(page).get_by_text(RISK_LEVEL).count()
    screenshot(page, "reload-0-results")

    # 1. A reload: the same URL, a new Streamlit session; the results are back without pressing Run.
    page.reload(wait_until="domcontentloaded")
    wait_idle(page)
    assert_clean(page)
    main(page).get_by_text(RISK_LEVEL).first.wait_for()
    assert main(page).get_by_text(RISK_LEVEL).count() == cards
    assert "Demo scenario" in sidebar(page).inner_text()
    assert session_param(page.url) == sid
    screenshot(page, "reload-1-after-reload")

    # 2. A page URL typed into the same browser (no query string): the cookie finds the work.
    page.goto(server.page_url("Results"), wait_until="domcontentloaded")
    wait_idle(page)
    main(page).get_by_text(RISK_LEVEL).first.wait_for()
    assert session_param(page.url) == sid
    assert without_query(page.url).rstrip("/") == server.page_url("Results")

    # 3. Another browser (a new context: its own cookies) on the same page URL sees nothing of it, and
    #    not even with a guessed id.
    other = browser.new_context()
    try:
        stranger = other.new_page()
        stranger.set_default_timeout(IDLE_TIMEOUT)
        stranger.on("request", lambda req: guard.record(req.url))
        for url in (server.page_url("Results"), server.page_url("Results") + "?session=" + sid[:-2] + "xx"):
            stranger.goto(url, wait_until="domcontentloaded")
            wait_idle(stranger)
            text = main(stranger).inner_text()
            assert "Data page" in text and not RISK_LEVEL.search(text)
            assert "Demo scenario" not in sidebar(stranger).inner_text()
            assert session_param(stranger.url) not in (None, sid)
    finally:
        other.close()

    # 4. Forget my data now: gone here, and the old link brings nothing back.
    button(page, "Forget my data now", "[data-testid=stSidebar] [data-testid=stButton]").click()
    sidebar(page).get_by_text("deleted from the server").wait_for()
    wait_idle(page)
    assert "Demo scenario" not in sidebar(page).inner_text()
    new_sid = session_param(page.url)
    assert new_sid and new_sid != sid
    page.goto(server.page_url("Results") + "?session=" + sid, wait_until="domcontentloaded")
    wait_idle(page)
    assert not RISK_LEVEL.search(main(page).inner_text())
    assert "No data is kept under this link" in sidebar(page).inner_text()
    screenshot(page, "reload-2-after-forget")
    guard.assert_local()
