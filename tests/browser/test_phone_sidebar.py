"""On a phone the sidebar closes once a page is chosen from it, and stays as the visitor left it on a rerun."""

from __future__ import annotations

import pytest
from browser_support import PAGE_PATHS, assert_clean, open_app, running_server, wait_idle
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(180)]

PHONE = {"width": 390, "height": 844}
EXPANDED = "[data-testid=stSidebarCollapseButton] button"
COLLAPSED = "[data-testid=stExpandSidebarButton]"


@pytest.fixture(scope="module")
def demo_app(browser):
    with running_server("--demo") as srv:
        yield srv


def _open_sidebar(page) -> None:
    page.locator(COLLAPSED).click()
    page.locator(EXPANDED).wait_for(state="attached")


def _rerun_with_r_key(page) -> None:
    """Press Streamlit's "R" key until the script reruns: on a loaded 2-core host one key press was missed (CI)."""
    link = page.locator("[data-testid=stSidebar]").get_by_role("link", name="Metrics", exact=True)
    for _ in range(4):
        link.focus()
        page.keyboard.press("r")
        try:
            page.wait_for_function("() => window.__reran === true", timeout=8_000)
            return
        except PlaywrightTimeoutError:
            continue
    raise AssertionError("four presses of Streamlit's R key did not rerun the page")


def test_choosing_a_page_in_the_sidebar_closes_it_on_a_phone(demo_app, page):
    page.set_viewport_size(PHONE)
    open_app(page, demo_app, "Data")
    assert page.locator(EXPANDED).count() == 0  # a phone opens with the sidebar closed
    _open_sidebar(page)
    page.locator("[data-testid=stSidebar]").get_by_role("link", name="Metrics", exact=True).click()
    page.wait_for_url(lambda url: f"/{PAGE_PATHS['Metrics']}" in url)
    wait_idle(page)
    page.locator(COLLAPSED).wait_for(state="visible", timeout=5000)
    assert page.locator(EXPANDED).count() == 0
    assert_clean(page)
    # Opened again on the same page, a rerun of that page (Streamlit's "R" key) leaves it open.
    _open_sidebar(page)
    # A rerun can be over before a check for it runs: an observer notes that the script ran.
    page.evaluate("""() => { window.__reran = false; new MutationObserver(() => {
        if (document.querySelector('[data-testid=stApp]').dataset.testScriptState === 'running') window.__reran = true;
    }).observe(document.querySelector('[data-testid=stApp]'), {attributes: true}); }""")
    _rerun_with_r_key(page)
    wait_idle(page)
    page.wait_for_timeout(800)
    assert page.locator(EXPANDED).count() == 1


def test_a_wide_screen_keeps_the_sidebar_open_after_a_page_change(demo_app, page):
    page.set_viewport_size({"width": 1400, "height": 900})
    open_app(page, demo_app, "Data")
    page.locator("[data-testid=stSidebar]").get_by_role("link", name="Metrics", exact=True).click()
    page.wait_for_url(lambda url: f"/{PAGE_PATHS['Metrics']}" in url)
    wait_idle(page)
    page.wait_for_timeout(800)
    assert page.locator(EXPANDED).count() == 1
