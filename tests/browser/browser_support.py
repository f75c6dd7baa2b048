"""What the browser tests share: the live server, the network guard, page helpers and screenshots.

A module with a name of its own (not ``conftest``), so that test modules can import it without
clashing with the other ``conftest.py`` files of the test suite. The pytest fixtures built on it live
in ``conftest.py``.
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
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = Path(os.environ.get("PRIVACY_DASHBOARD_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking"]

HOST = "127.0.0.1"
START_TIMEOUT = 60  # seconds until /_stcore/health answers 200
STOP_TIMEOUT = 10  # seconds between SIGTERM and SIGKILL
IDLE_TIMEOUT = 60_000  # ms: a script run (page load, widget change) must finish within this
NAV_WAIT_SECONDS = 10  # a link to another page must be drawn within this
RUN_TIMEOUT = 150_000  # ms: running the metrics on the Results page
ALLOWED_SCHEMES = {"data", "blob", "about"}
MAX_SHOT_HEIGHT = 12_000  # px: screenshots of very long pages are cut here

IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"

#: URL path of each page: Streamlit strips the ``N_`` prefix of ``pages/N_Name.py`` files.
PAGE_PATHS = {
    "Home": "",
    "Data": "Data",
    "Configure": "Configure",
    "Metrics": "Metrics",
    "Results": "Results",
    "Learn": "Learn",
    "Audit": "Audit",
    "Compare metrics": "Compare_metrics",
}
PAGE_FILES = {
    "Home": ROOT / "app.py",
    "Data": ROOT / "pages" / "1_Data.py",
    "Configure": ROOT / "pages" / "2_Configure.py",
    "Metrics": ROOT / "pages" / "3_Metrics.py",
    "Results": ROOT / "pages" / "4_Results.py",
    "Learn": ROOT / "pages" / "5_Learn.py",
    "Audit": ROOT / "pages" / "6_Audit.py",
    "Compare metrics": ROOT / "pages" / "7_Compare_metrics.py",
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

    def __init__(self, extra_args: tuple[str, ...] = (), options: tuple[str, ...] = (),
                 env: dict[str, str] | None = None, port: int | None = None):
        self.port = port or free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.extra_args = tuple(extra_args)
        self.options = tuple(options)  # Streamlit flags, e.g. ("--secrets.files", path) for sign-in
        self.env = dict(env or {})
        self.proc: subprocess.Popen | None = None
        self._log = tempfile.NamedTemporaryFile(prefix="streamlit-", suffix=".log", delete=False)

    @property
    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "streamlit", "run", "app.py",
               "--server.port", str(self.port), "--server.address", HOST,
               "--server.headless", "true", "--browser.gatherUsageStats", "false", *self.options]
        if self.extra_args:
            cmd += ["--", *self.extra_args]
        return cmd

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return Path(self._log.name).read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def start(self) -> "StreamlitServer":
        env = dict(os.environ, PYTHONUNBUFFERED="1", **self.env)
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


# ----------------------------------------------------------------------------------------- helpers


def screenshot(page, name: str) -> Path:
    """A screenshot of the whole page in ``test-artifacts/screenshots/<name>.png``.

    Streamlit scrolls inside its main container, not the document, so ``full_page=True`` alone would
    stop at the window; the viewport is stretched to the content's height for the shot.
    """
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / (re.sub(r"[^A-Za-z0-9_.-]+", "_", name) + ".png")
    page.mouse.move(0, 0)  # no tooltip of the last hovered widget in the picture
    size = page.viewport_size
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=stMain], [data-testid=stSidebarContent]')]"
        ".map(e => e.scrollHeight), window.innerHeight)")
    try:
        if size and height > size["height"]:
            page.set_viewport_size({"width": size["width"], "height": min(int(height), MAX_SHOT_HEIGHT)})
            page.wait_for_timeout(300)
        page.screenshot(path=str(path), full_page=True)
    finally:
        if size:
            page.set_viewport_size(size)
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


def choose_option(page, label: str, option: str) -> None:
    """Pick ``option`` in the ``st.selectbox`` labelled ``label`` and check that it shows."""
    box = page.locator("[data-testid=stSelectbox]").filter(
        has=page.locator("[data-testid=stWidgetLabel]", has_text=label)).first
    wait_idle(page)
    choice = page.get_by_role("option", name=option, exact=True)
    for attempt in range(3):  # a rerun that lands during the click can close the list again
        box.locator("input").click()
        try:
            choice.wait_for(state="visible", timeout=5_000)
            break
        except PlaywrightTimeoutError:
            page.keyboard.press("Escape")
            wait_idle(page)
    choice.click()
    wait_idle(page)
    shown = box.locator("input[role=combobox]").input_value()
    assert shown == option, f"{label!r} shows {shown!r}, not {option!r}"


def open_app(page, server: StreamlitServer, name: str = "Home") -> None:
    """Load a page of the app as a new document (a new session) and wait for its first run."""
    response = page.goto(server.page_url(name), wait_until="domcontentloaded")
    assert response is not None and response.ok, f"GET {server.page_url(name)} -> {response and response.status}"
    wait_idle(page)


def nav_link(page, name: str):
    """The link to a page: an ``st.page_link`` on the page if there is one, else the sidebar entry."""
    # The sidebar's links carry the session id (?session=…) so that a reload keeps the user's work.
    href = re.compile(rf"/{re.escape(PAGE_PATHS[name])}/?(\?[^#]*)?$")
    # On a loaded machine the sidebar's links are drawn a moment after the page's first run ends (CI once found
    # none right after the home page had run): look again for a few seconds before saying there is none.
    deadline = time.monotonic() + NAV_WAIT_SECONDS
    while True:
        for selector in ("[data-testid=stPageLink] a", "[data-testid=stSidebarNav] a"):
            links = page.locator(selector)
            for i in range(links.count()):
                link = links.nth(i)
                if href.search(link.evaluate("a => a.href") or "") and link.is_visible():
                    return link
        if time.monotonic() > deadline:
            raise AssertionError(f"no visible link to the {name} page")
        page.wait_for_timeout(250)


def go_to(page, name: str) -> None:
    """Navigate to a page inside the app (same session) and wait for its script run to finish."""
    nav_link(page, name).click()
    page.wait_for_url(re.compile(rf"/{re.escape(PAGE_PATHS[name])}/?(\?.*)?$"))
    wait_idle(page)


def button(page, text, container: str = "[data-testid=stButton]"):
    """The visible Streamlit button whose text matches ``text`` (a string or a regex)."""
    return page.locator(f"{container} button").filter(has_text=text).first


def without_query(url: str) -> str:
    """The URL without its query string (the app adds ``?session=…`` to every page's address)."""
    return url.split("?", 1)[0]


def assert_clean(page) -> None:
    """No Streamlit exception box and no traceback text anywhere on the page."""
    exceptions = page.locator("[data-testid=stException]")
    assert exceptions.count() == 0, f"exception shown on the page: {exceptions.first.inner_text()[:2000]}"
    text = page.locator("body").inner_text()
    assert "Traceback" not in text, f"traceback text on the page:\n{text[:3000]}"
    assert page.locator("[data-testid=stApp]").count() == 1
    errors = getattr(page, "page_errors", [])
    assert not errors, f"uncaught JavaScript error(s) in the page: {errors[:5]}"


#: Every text of every Plotly figure on the page that lies outside its figure's box or the screen, and every
#: figure wider than the screen.
OUTSIDE = """() => {
  const width = window.innerWidth, out = [];
  for (const plot of document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')) {
    const box = plot.getBoundingClientRect();
    if (box.width === 0) continue;
    if (box.left < -1 || box.right > width + 1) out.push(`figure ${Math.round(box.left)}..${Math.round(box.right)}`);
    for (const t of plot.querySelectorAll('svg text')) {
      const r = t.getBoundingClientRect();
      if (!t.textContent.trim() || r.width === 0) continue;
      if (r.left < Math.max(box.left, 0) - 1 || r.right > Math.min(box.right, width) + 1 || r.top < box.top - 1
          || r.bottom > box.bottom + 1) out.push(`text '${t.textContent.slice(0, 40)}' cut`);
    }
  }
  return out;
}"""


# ------------------------------------------------------------------------------- steps of a flow in the app
# The steps the flow tests repeat: upload the tables on the Data page, run the evaluation on the Results page,
# open one of its tabs, check that a narrow screen holds the page.


def assert_no_error_alert(page) -> None:
    """No ``st.error`` box on the page."""
    errors = page.locator("[data-testid=stAlertContentError]")
    assert errors.count() == 0, f"error message(s) shown: {errors.all_inner_texts()}"


def uploader(page, label: str):
    """The file input of the Data page's uploader whose label starts with ``label``.

    On a slow CI host :func:`open_app`'s idle check returned before the Data page had drawn its uploaders (the count
    read 0, then 1), so the uploader is waited for (up to ``IDLE_TIMEOUT``) and the run let finish before counting."""
    box = page.locator("[data-testid=stFileUploader]").filter(
        has=page.locator("[data-testid=stWidgetLabel]", has_text=re.compile(rf"^\s*{re.escape(label)}")))
    box.first.wait_for(state="attached", timeout=IDLE_TIMEOUT)
    wait_idle(page)
    assert box.count() == 1, f"expected one uploader labelled {label!r}, found {box.count()}"
    return box.locator("input[type=file]")


def upload_tables(page, real: Path, synthetic: list[Path], holdout: Path | None = None) -> None:
    """On the Data page: upload the real table, the synthetic tables and the holdout, each time waiting until the
    sidebar names the file (on a busy machine the upload's rerun can start after a first idle check)."""
    sidebar = page.locator("[data-testid=stSidebar]")
    uploader(page, "Real table").set_input_files(real)
    sidebar.get_by_text(Path(real).name).wait_for()
    wait_idle(page)
    uploader(page, "Synthetic tables").set_input_files(synthetic)
    for path in synthetic:
        sidebar.get_by_text(re.compile(re.escape(Path(path).stem))).first.wait_for()
    wait_idle(page)
    if holdout is not None:
        uploader(page, "Holdout table").set_input_files(holdout)
        sidebar.get_by_text(re.compile(rf"Holdout: {re.escape(Path(holdout).stem)}")).wait_for()
        wait_idle(page)
    assert_clean(page)


def run_evaluation(page, timeout: float = RUN_TIMEOUT) -> None:
    """On the Results page: click "Run evaluation" and wait (``timeout`` ms) until the score cards ("Risk level: …")
    are drawn and the run is over. The button is the visible one of the main area: at 390 px a hidden copy can come
    first."""
    run = page.locator("[data-testid=stMain] [data-testid=stButton] button:visible").filter(
        has_text=re.compile(r"Run evaluation", re.I)).first
    assert run.is_enabled(), "the run button is disabled"
    run.click()
    page.locator("[data-testid=stMain]").get_by_text(re.compile(r"Risk level:")).first.wait_for(timeout=timeout)
    wait_idle(page, timeout=timeout)
    assert_clean(page)


def open_tab(page, name: str, *, plot: bool = False) -> None:
    """Select the tab ``name`` (stateful tabs: selecting one reruns the page), wait for the rerun and check the page;
    with ``plot``, also until its first Plotly figure is drawn and laid out."""
    tab = page.get_by_role("tab", name=name)
    tab.click()
    page.wait_for_function("el => el.getAttribute('aria-selected') === 'true'", arg=tab.element_handle())
    wait_idle(page)
    if plot:
        page.locator("[data-testid=stMain] .js-plotly-plot").first.wait_for(timeout=IDLE_TIMEOUT)
        page.wait_for_timeout(1000)  # Plotly lays out after the element appears
    assert_clean(page)


def assert_fits(page, width: int) -> None:
    """No figure wider than ``width``, no text of a figure cut and no sideways scroll."""
    problems = page.evaluate(OUTSIDE)
    assert not problems, problems[:10]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
