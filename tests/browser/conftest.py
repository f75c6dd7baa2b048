"""Browser tests: the real Streamlit server on 127.0.0.1, driven by Debian's chromium through Playwright.

The fixtures here (built on :mod:`browser_support`)

- start ``streamlit run app.py`` from the repository root on a free loopback port, wait for
  ``/_stcore/health`` and stop the server by its own process group (never by name);
- launch ``/usr/bin/chromium`` headless (skipped when it is missing, but a failure when ``CI=true``:
  in CI the browser tests must run);
- record every request of every page (and every web socket) and fail the test if one leaves
  127.0.0.1 (``data:``, ``blob:`` and ``about:`` URLs are allowed);
- save screenshots under ``test-artifacts/screenshots/`` (git-ignored).

Pages are navigated inside the app (sidebar or ``st.page_link`` links), never with a second
``page.goto``: a new document load opens a new Streamlit session and would forget the loaded data.
"""

from __future__ import annotations

import contextlib
import os

import pytest
from browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    IDLE_TIMEOUT,
    SCREENSHOTS,
    NetworkGuard,
    StreamlitServer,
    in_ci,
    running_server,
    screenshot,
)

# ------------------------------------------------------------------------------------------ server
# Both server fixtures ask for the browser first, so that a missing chromium skips (or, in CI, fails)
# before a server is started for nothing.


@pytest.fixture(scope="module")
def server(browser):
    """One server shared by the flow tests of a module (each test still gets its own session)."""
    with running_server() as srv:
        yield srv


@pytest.fixture
def fresh_server(browser):
    """A server started for this test only, so that the test's first request is the first one it sees."""
    with running_server() as srv:
        yield srv


@pytest.fixture
def demo_server(browser):
    """A server started like the README's first command: ``streamlit run app.py -- --demo``."""
    with running_server("--demo") as srv:
        yield srv


# ----------------------------------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        message = (f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) "
                   "to run the browser tests")
        if in_ci():
            pytest.fail(f"CI=true but {message}; in CI the browser tests must run, not skip.",
                        pytrace=False)
        pytest.skip(message)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - requirements-dev pins playwright
        if in_ci():
            pytest.fail(f"CI=true but playwright cannot be imported: {exc}", pytrace=False)
        pytest.skip(f"playwright is not installed: {exc}")
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # with xdist, workers would delete each other's
        for old in SCREENSHOTS.glob("*.png"):
            old.unlink(missing_ok=True)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def guard():
    """The requests of the test's page; tests call ``guard.assert_local()`` at the end (so does teardown)."""
    return NetworkGuard()


@pytest.fixture
def page(browser, guard, request):
    """A fresh browser context and page whose every request (and web socket) is recorded.

    At teardown the test fails if any request went to a host other than 127.0.0.1; a screenshot of
    the last state is saved when the test failed.
    """
    context = browser.new_context(accept_downloads=True, viewport={"width": 1440, "height": 1000},
                                  locale="en-GB", service_workers="block")
    context.on("request", lambda req: guard.record(req.url))
    tab = context.new_page()
    tab.on("websocket", lambda ws: guard.record(ws.url))
    tab.set_default_timeout(IDLE_TIMEOUT)
    tab.page_errors = []  # JavaScript exceptions, reported when a test fails
    tab.on("pageerror", lambda exc: tab.page_errors.append(str(exc)))
    try:
        yield tab
    finally:
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            with contextlib.suppress(Exception):
                screenshot(tab, f"FAILED-{request.node.name}")
            # Shown by pytest with the failure: JavaScript errors and the end of the server's log.
            print("JavaScript errors:", tab.page_errors or "none")
            for srv in request.node.funcargs.values():
                if isinstance(srv, StreamlitServer):
                    print(f"--- end of the streamlit log ({srv.url}) ---\n{srv.log_tail()}")
        context.close()
    guard.assert_local()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report
