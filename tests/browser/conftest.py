"""Browser tests: the real Streamlit server on 127.0.0.1, driven by Debian's chromium through Playwright.

The fixtures here

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
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = Path(os.environ.get("PRIVACY_DASHBOARD_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking"]

HOST = "127.0.0.1"
START_TIMEOUT = 60  # seconds until /_stcore/health answers 200
STOP_TIMEOUT = 10  # seconds between SIGTERM and SIGKILL
IDLE_TIMEOUT = 60_000  # ms: a script run (page load, widget change) must finish within this
RUN_TIMEOUT = 150_000  # ms: running the metrics on the Results page
ALLOWED_SCHEMES = {"data", "blob", "about"}

IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
RUNNING = "[data-testid=stApp][data-test-script-state=running]"

#: URL path of each page: Streamlit strips the ``N_`` prefix of ``pages/N_Name.py`` files.
PAGE_PATHS = {
    "Home": "",
    "Data": "Data",
    "Configure": "Configure",
    "Metrics": "Metrics",
    "Results": "Results",
    "Learn": "Learn",
}
PAGE_FILES = {
    "Home": ROOT / "app.py",
    "Data": ROOT / "pages" / "1_Data.py",
    "Configure": ROOT / "pages" / "2_Configure.py",
    "Metrics": ROOT / "pages" / "3_Metrics.py",
    "Results": ROOT / "pages" / "4_Results.py",
    "Learn": ROOT / "pages" / "5_Learn.py",
}


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() == "true"


def missing_page_xfail(name: str):
    """``xfail(strict=False)`` when the page file does not exist yet, else no mark."""
    path = PAGE_FILES[name]
    return pytest.mark.xfail(not path.exists(), strict=False,
                             reason=f"{path.relative_to(ROOT)} does not exist yet")


# ------------------------------------------------------------------------------------------ server


def free_port() -> int:
    """A port the kernel says is free on the loopback interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class StreamlitServer:
    """``streamlit run app.py`` on a free port of 127.0.0.1, in its own process group."""

    def __init__(self, extra_args: tuple[str, ...] = ()):
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.extra_args = tuple(extra_args)
        self.proc: subprocess.Popen | None = None
        self._log = tempfile.NamedTemporaryFile(prefix="streamlit-", suffix=".log", delete=False)

    @property
    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "streamlit", "run", "app.py",
               "--server.port", str(self.port), "--server.address", HOST,
               "--server.headless", "true", "--browser.gatherUsageStats", "false"]
        if self.extra_args:
            cmd += ["--", *self.extra_args]
        return cmd

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return Path(self._log.name).read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def start(self) -> "StreamlitServer":
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(self.command, cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT
        health = f"{self.url}/_stcore/health"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {self.proc.returncode} before it was "
                                   f"ready:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(health, timeout=2) as response:
                    if response.status == 200:
                        return self
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"streamlit did not answer {health} within {START_TIMEOUT} s:\n{self.log_tail()}")

    def stop(self) -> None:
        """SIGTERM to the server's own process group, SIGKILL if it is still there after a while."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)  # pid == pgid: started with start_new_session
            try:
                proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=STOP_TIMEOUT)
        self._log.close()
        with contextlib.suppress(OSError):
            os.unlink(self._log.name)

    def page_url(self, name: str) -> str:
        return f"{self.url}/{PAGE_PATHS[name]}"


@contextlib.contextmanager
def running_server(*extra_args: str):
    server = StreamlitServer(extra_args).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def server():
    """One server shared by the flow tests of a module (each test still gets its own session)."""
    with running_server() as srv:
        yield srv


@pytest.fixture
def fresh_server():
    """A server started for this test only, so that the test's first request is the first one it sees."""
    with running_server() as srv:
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


class NetworkGuard:
    """Every URL the browser asked for, and the ones whose host is not 127.0.0.1."""

    def __init__(self):
        self.urls: list[str] = []

    def record(self, url: str) -> None:
        self.urls.append(url)

    @staticmethod
    def is_local(url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme in ALLOWED_SCHEMES:
            return True
        return parts.scheme in {"http", "https", "ws", "wss"} and parts.hostname == HOST

    def outside(self) -> list[str]:
        return [u for u in self.urls if not self.is_local(u)]

    def assert_local(self) -> None:
        outside = self.outside()
        assert not outside, (f"{len(outside)} request(s) left {HOST}: " + ", ".join(sorted(set(outside))[:20]))


@pytest.fixture
def guard():
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


# ----------------------------------------------------------------------------------------- helpers


def screenshot(page, name: str) -> Path:
    """A full-page screenshot in ``test-artifacts/screenshots/<name>.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / (re.sub(r"[^A-Za-z0-9_.-]+", "_", name) + ".png")
    page.screenshot(path=str(path), full_page=True)
    return path


def wait_idle(page, timeout: float = IDLE_TIMEOUT, settle: float = 0.4) -> None:
    """Wait until the app's script run is over and stays over for ``settle`` seconds.

    A widget change starts a rerun a moment after the click, so a single check could see the state
    of the previous run; checking twice, ``settle`` apart, avoids that race.
    """
    deadline = time.monotonic() + timeout / 1000
    while True:
        left = max(deadline - time.monotonic(), 0.1) * 1000
        page.wait_for_selector(IDLE, state="attached", timeout=left)
        page.wait_for_timeout(settle * 1000)
        if page.locator(IDLE).count() == 1:
            return
        if time.monotonic() > deadline:
            raise TimeoutError("the Streamlit script kept running")


def open_app(page, server: StreamlitServer, name: str = "Home") -> None:
    """Load a page of the app as a new document (a new session) and wait for its first run."""
    response = page.goto(server.page_url(name), wait_until="domcontentloaded")
    assert response is not None and response.ok, f"GET {server.page_url(name)} -> {response and response.status}"
    wait_idle(page)


def nav_link(page, name: str):
    """The link to a page: an ``st.page_link`` on the page if there is one, else the sidebar entry."""
    href = re.compile(rf"/{re.escape(PAGE_PATHS[name])}/?$")
    for selector in ("[data-testid=stPageLink] a", "[data-testid=stSidebarNav] a"):
        links = page.locator(selector)
        for i in range(links.count()):
            link = links.nth(i)
            if href.search(link.evaluate("a => a.href") or "") and link.is_visible():
                return link
    raise AssertionError(f"no visible link to the {name} page")


def go_to(page, name: str) -> None:
    """Navigate to a page inside the app (same session) and wait for its script run to finish."""
    nav_link(page, name).click()
    page.wait_for_url(re.compile(rf"/{re.escape(PAGE_PATHS[name])}/?(\?.*)?$"))
    wait_idle(page)


def button(page, text, container: str = "[data-testid=stButton]"):
    """The visible Streamlit button whose text matches ``text`` (a string or a regex)."""
    return page.locator(f"{container} button").filter(has_text=text).first


def assert_clean(page) -> None:
    """No Streamlit exception box and no traceback text anywhere on the page."""
    exceptions = page.locator("[data-testid=stException]")
    assert exceptions.count() == 0, f"exception shown on the page: {exceptions.first.inner_text()[:2000]}"
    text = page.locator("body").inner_text()
    assert "Traceback" not in text, f"traceback text on the page:\n{text[:3000]}"
    assert page.locator("[data-testid=stApp]").count() == 1
