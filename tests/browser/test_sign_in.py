"""A team server with sign-in (issue 25) in a real browser, against a real OpenID Connect provider on loopback
(oidc-provider-mock): user A signs in and loads the demo; user B, signed in in another browser, and a browser
where nobody is signed in, open A's link and see that the session belongs to someone else, and none of its
data; after A signs out, the data is gone for A too. Every request stays on 127.0.0.1 (the network guard).

Without the ``[auth]`` settings the app works as before, with no sign-in: every other browser test runs so.
"""

from __future__ import annotations

import re

import pytest
from browser_support import IDLE_TIMEOUT, assert_clean, button, screenshot, wait_idle
from sign_in_support import SIGN_IN, MockProvider, sign_in, sign_out, signed_in_server

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

DEMO_TABLE = "Adult sample (real)"
FOREIGN = "This session belongs to someone else"


@pytest.fixture(scope="module")
def provider():
    with MockProvider() as running:
        yield running


@pytest.fixture(scope="module")
def auth_server(browser, provider, tmp_path_factory):
    with signed_in_server(tmp_path_factory.mktemp("secrets"), provider) as server:
        yield server


def sidebar(page):
    return page.locator("[data-testid=stSidebar]")


def session_param(url: str) -> str | None:
    match = re.search(r"[?&]session=([A-Za-z0-9_-]+)", url)
    return match[1] if match else None


def new_page(browser, guard):
    """Another browser (a context of its own: no cookies of the first), its requests guarded too."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, locale="en-GB",
                                  service_workers="block")
    context.on("request", lambda req: guard.record(req.url))
    tab = context.new_page()
    tab.on("websocket", lambda ws: guard.record(ws.url))
    tab.set_default_timeout(IDLE_TIMEOUT)
    tab.page_errors = []
    tab.on("pageerror", lambda exc: tab.page_errors.append(str(exc)))
    return context, tab


def load_demo(page) -> str:
    """Start with the demo on the home page; the URL of the Results page it leads to (with the session id)."""
    button(page, "Start with demo data").click()
    page.wait_for_url(re.compile(r"/Results/?\?(.*&)?session="))
    wait_idle(page)
    sidebar(page).get_by_text(DEMO_TABLE).wait_for()
    assert_clean(page)
    return page.url


def assert_no_data(page) -> None:
    text = page.locator("body").inner_text()
    assert DEMO_TABLE not in text and "Demo scenario" not in text, text[:2000]
    assert not page.locator("[data-testid=stSidebar]").get_by_text("Real:").count()


def test_without_sign_in_nothing_opens(auth_server, page):
    page.goto(auth_server.page_url("Results"), wait_until="domcontentloaded")
    wait_idle(page)
    assert button(page, SIGN_IN).is_visible()
    body = page.locator("body").inner_text()
    assert "sign in" in body.lower() and "Run evaluation" not in body
    assert page.locator("[data-testid=stSidebar]").count() == 0 or "Signed in as" not in body
    assert_clean(page)


def test_another_user_and_nobody_see_no_data_of_a_signed_in_users_link(auth_server, page, browser, guard):
    sign_in(page, auth_server, "alice@team.example")
    assert "alice@team.example" in sidebar(page).inner_text()
    link = load_demo(page)
    sid = session_param(link)
    assert sid and len(sid) >= 43
    screenshot(page, "sign-in-0-alice-demo")

    # Alice's own reload of the link brings her data back (the owner's sign-in opens it).
    page.goto(link, wait_until="domcontentloaded")
    wait_idle(page)
    sidebar(page).get_by_text(DEMO_TABLE).wait_for()
    assert session_param(page.url) == sid

    # Bob, signed in in another browser, opens Alice's link: a clear notice, none of her data, a new id.
    context, bob = new_page(browser, guard)
    try:
        sign_in(bob, auth_server, "bob@team.example")
        bob.goto(link, wait_until="domcontentloaded")
        wait_idle(bob)
        bob.get_by_text(FOREIGN).wait_for()
        assert_no_data(bob)
        assert session_param(bob.url) not in (None, sid)
        assert_clean(bob)
        screenshot(bob, "sign-in-1-bob-opens-alices-link")
        # A reload of Bob's page does not turn Alice's session into his either.
        bob.goto(link, wait_until="domcontentloaded")
        wait_idle(bob)
        bob.get_by_text(FOREIGN).wait_for()
        assert_no_data(bob)
    finally:
        context.close()

    # Nobody signed in (a third browser) opens the link: the sign-in page, the notice, no data.
    context, nobody = new_page(browser, guard)
    try:
        nobody.goto(link, wait_until="domcontentloaded")
        wait_idle(nobody)
        nobody.get_by_text(FOREIGN).wait_for()
        assert button(nobody, SIGN_IN).is_visible()
        assert_no_data(nobody)
        assert_clean(nobody)
        screenshot(nobody, "sign-in-2-nobody-opens-alices-link")
    finally:
        context.close()

    # Alice still has her data after both attempts.
    page.goto(link, wait_until="domcontentloaded")
    wait_idle(page)
    sidebar(page).get_by_text(DEMO_TABLE).wait_for()


def test_after_signing_out_the_users_link_shows_no_data_even_to_them(auth_server, page):
    sign_in(page, auth_server, "carol@team.example")
    link = load_demo(page)
    sign_out(page, auth_server)
    assert_no_data(page)

    # Signed out, the link shows the sign-in page and nothing of the data.
    page.goto(link, wait_until="domcontentloaded")
    wait_idle(page)
    assert button(page, SIGN_IN).is_visible()
    assert_no_data(page)

    # Signed in again, the same user's old link holds nothing: signing out deleted the data on the server.
    sign_in(page, auth_server, "carol@team.example", url=link)
    page.goto(link, wait_until="domcontentloaded")
    wait_idle(page)
    assert_no_data(page)
    assert "Nothing loaded yet" in sidebar(page).inner_text()
    assert session_param(page.url) != session_param(link)
    assert_clean(page)
    screenshot(page, "sign-in-3-after-sign-out")
