"""Load test (issues 11 and 25): eight signed-in browser sessions run the demo evaluation at once on one
loopback server with sign-in on (a real OpenID Connect provider on loopback, eight distinct users).

- While they run, a ninth browser (a ninth user, signed in) opens the home page again and again. Each load is
  measured three ways: the HTTP time to first byte of the page, the browser's full load (the app drawn, its
  script run over), and the server's share: from the moment the probe's request for a script run reached the
  server to the end of its last run, as the server itself logs it (``dashboard.run_timing``, on when the server
  starts with ``PRIVCORE_RUN_TIMING``). The limits are on the server's share (at most 1 s at the 95th percentile
  and 2 s at the slowest) and on the full load of the idle server (2 s): the full loads during the runs count
  the harness's own browsers on the same two cores, so they are recorded, not limited.
- The eight users' browser runs under Linux's ``SCHED_IDLE`` policy (through ``chrt --idle 0``). On a team
  server their browsers run on their own machines; here they share the server's two cores, and the
  browsers took about one of them (0.96 cores on average while the runs went on), so the slowest page loads
  (1.6 to 2.05 s in five runs) measured the harness's browsers as much as the server. Under ``SCHED_IDLE``
  they get the time the server, its workers and the probe leave (slowest load then 1.33 s, HTTP answers
  0.05 s instead of up to 1 s); everything the server does for them keeps its priority. The figures record
  the cores each part used and when each load and each run ended.
- Each session sees only its own data: each loaded a different demo scenario and shows that one.
- No leak: over 20 further evaluations in one session (each a cache miss), the server's resident memory grows by
  at most 10 %, measured as the trend of the readings after each run (:func:`memory_trend.memory_growth`), not as
  two single readings, which differ by up to 10 % with no leak at all.

Marked ``load``: it is left out of the default run (it needs the machine to itself to measure page
loads) and run alone by ``.ci/run``. It stops by itself (timeouts on every wait) and talks to
127.0.0.1 only. The figures are printed and written to ``test-artifacts/load.json``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import urllib.request
from pathlib import Path

import pytest
from browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    IDLE_TIMEOUT,
    ROOT,
    RUN_TIMEOUT,
    assert_clean,
    button,
    go_to,
    open_app,
    wait_idle,
)
from memory_trend import memory_growth
from sign_in_support import MockProvider, sign_in, signed_in_server

from dashboard import run_timing
from dashboard.runner import MAX_CACHED_RUNS
from privcore.demo import SCENARIOS

pytestmark = [pytest.mark.browser, pytest.mark.load, pytest.mark.timeout(1200)]

SESSIONS = 8
SUCCESSIVE_RUNS = 20
PAGE_LOAD_LIMIT_S = 2.0  # the idle server's full page load
SERVER_SHARE_P95_LIMIT_S = 1.0
SERVER_SHARE_MAX_LIMIT_S = 2.0
PROBE = "probe@team.example"
MEMORY_TOLERANCE = 0.10
RISK_LEVEL = re.compile(r"Risk level:")
# Scenarios a session can load from the Data page (the fresh sample is the reference, not a demo to load).
NAMES = [name for name in SCENARIOS if name != "fresh_sample"] + ["fresh_sample"]
WARM_UP_RUNS = max(MAX_CACHED_RUNS, len(NAMES))  # every scenario loaded once, the results cache full


@pytest.fixture(scope="module")
def server(browser, tmp_path_factory):
    """The server as a team runs it: sign-in on, against a real OpenID Connect provider on loopback (the
    sign-in, the owner checks and the per-user limits are part of every page run measured)."""
    timing = tmp_path_factory.mktemp("timing") / "runs.jsonl"
    with MockProvider() as provider, signed_in_server(tmp_path_factory.mktemp("secrets"), provider,
                                                      env={run_timing.ENV: str(timing)}) as srv:
        srv.run_timing = timing
        yield srv


@pytest.fixture(scope="module")
def users_browser(browser, tmp_path_factory):
    """The eight users' chromium, started under ``SCHED_IDLE`` (see the module's docstring); the probe keeps the
    ordinary ``browser``. Chromium sets its processes' nice values itself, so ``nice`` would not hold; the
    scheduling policy is inherited by every process and thread it starts."""
    if not shutil.which("chrt"):
        pytest.fail("chrt (util-linux) is missing: the load test runs the users' browser under SCHED_IDLE")
    wrapper = tmp_path_factory.mktemp("chromium") / "chromium-when-idle"
    wrapper.write_text(f'#!/bin/sh\nexec chrt --idle 0 "{CHROMIUM}" "$@"\n')
    wrapper.chmod(0o755)
    users = browser.browser_type.launch(executable_path=str(wrapper), args=CHROMIUM_ARGS)
    try:
        yield users
    finally:
        users.close()


def _processes() -> dict[int, tuple[int, str, float]]:
    """Every process: its parent, its name and the CPU seconds it has used."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # a process that ended while we looked
            continue
        name, fields = text.split("(", 1)[1].rsplit(")", 1)[0], text.rsplit(")", 1)[1].split()
        found[int(stat.parent.name)] = (int(fields[1]), name, (int(fields[11]) + int(fields[12])) / tick)
    return found


def _descendants(pid: int, processes: dict[int, tuple[int, str, float]]) -> set[int]:
    """``pid`` and every process under it."""
    children: dict[int, list[int]] = {}
    for child, (parent, _, _) in processes.items():
        children.setdefault(parent, []).append(child)
    found, todo = set(), [pid]
    while todo:
        current = todo.pop()
        found.add(current)
        todo += children.get(current, [])
    return found


def cpu_seconds(server_pid: int) -> dict[str, float]:
    """CPU seconds used so far by the server process, its compute workers and the browsers."""
    processes = _processes()
    workers = _descendants(server_pid, processes) - {server_pid}
    used = {"server": processes.get(server_pid, (0, "", 0.0))[2], "workers": 0.0, "browsers": 0.0}
    for pid, (_, name, seconds) in processes.items():
        if pid in workers:
            used["workers"] += seconds
        elif "chrom" in name:
            used["browsers"] += seconds
    return used


def resident_bytes(pid: int) -> int:
    """Resident memory of the server and every process under it (its compute workers)."""
    total = 0
    for current in _descendants(pid, _processes()):
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


def load_demo(page, name: str) -> None:
    """On the Data page: choose the scenario ``name`` and load it."""
    title = SCENARIOS[name].title
    tab = page.get_by_role("tab", name="Use a built-in demo")
    if tab.get_attribute("aria-selected") != "true":
        tab.click()
        wait_idle(page)
    box = page.locator("[data-testid=stSelectbox]").filter(
        has=page.locator("[data-testid=stWidgetLabel]", has_text="Demo scenario")).first
    for _ in range(3):  # a rerun landing during the click can close the list again
        wait_idle(page)
        box.locator("input").click()
        option = page.get_by_role("option", name=title, exact=True)
        try:
            option.wait_for(state="visible", timeout=5_000)
            option.click()
            break
        except Exception:
            page.keyboard.press("Escape")
    wait_idle(page)
    button(page, "Load this demo").click()
    page.locator("[data-testid=stMain]").get_by_text("Demo loaded:").wait_for()
    wait_idle(page)


def sidebar_text(page) -> str:
    return page.locator("[data-testid=stSidebar]").inner_text()


def start_run(page) -> None:
    button(page, re.compile(r"Run evaluation", re.I)).click()


def finished(page) -> bool:
    return page.locator("[data-testid=stMain]").get_by_text(RISK_LEVEL).count() > 0 and \
        page.locator("[data-testid=stApp][data-test-script-state=notRunning]").count() == 1


def record_requests(probe) -> list[float]:
    """The wall-clock times at which the probe's page sends a message to the server over Streamlit's websocket (its
    requests for a script run among them), appended as they happen."""
    sent: list[float] = []

    def on_websocket(socket):
        if "_stcore/stream" in socket.url:
            socket.on("framesent", lambda _payload: sent.append(time.time()))

    probe.on("websocket", on_websocket)
    return sent


def timed_page_load(probe, server) -> tuple[float, float, tuple[float, float]]:
    """Seconds until the first byte of the home page's HTML arrives, until the app is drawn in the probe browser (a
    new document, hence a new Streamlit session, whose script run is over), and the wall-clock window of that load
    (to find its runs in the server's log). The probe keeps its cache, as a user's browser does between loads."""
    started = time.perf_counter()
    with urllib.request.urlopen(server.url + "/", timeout=30) as response:
        response.read(1)
        ttfb_s = time.perf_counter() - started
        response.read()
    opened = time.time()
    started = time.perf_counter()
    probe.goto(server.url + "/", wait_until="domcontentloaded")
    probe.get_by_text("How private is your synthetic data?").wait_for(timeout=IDLE_TIMEOUT)
    probe.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=IDLE_TIMEOUT)
    return ttfb_s, time.perf_counter() - started, (opened, time.time())


def server_log(server) -> list[dict]:
    """The server's run log (``dashboard.run_timing``), one dict per line."""
    text = server.run_timing.read_text() if server.run_timing.exists() else ""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_eight_sessions_at_once_stay_responsive_separate_and_leak_free(server, browser, users_browser):
    contexts, pages = [], []
    figures: dict = {"sessions": SESSIONS}
    try:
        for i in range(SESSIONS):
            context = users_browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.set_default_timeout(IDLE_TIMEOUT)
            page.page_errors = []  # read by assert_clean, as for the page fixture
            page.on("pageerror", lambda exc, errors=page.page_errors: errors.append(str(exc)))
            contexts.append(context)
            pages.append(page)
            sign_in(page, server, f"analyst-{i}@team.example")  # eight distinct users
            open_app(page, server, "Data")
            load_demo(page, NAMES[i % len(NAMES)])
            go_to(page, "Results")

        # 0. The page load on an idle server, for comparison.
        probe_context = browser.new_context()
        contexts.append(probe_context)
        probe = probe_context.new_page()
        probe.set_default_timeout(IDLE_TIMEOUT)
        sign_in(probe, server, PROBE)
        sent = record_requests(probe)
        idle = [timed_page_load(probe, server) for _ in range(3)]
        figures["page_load_idle_s"] = run_timing.spread([load for _, load, _ in idle])

        # 1. All eight start their evaluation; a ninth browser keeps loading the home page meanwhile.
        started, cpu_before = time.perf_counter(), cpu_seconds(server.proc.pid)
        for page in pages:
            start_run(page)
        http_loads, page_loads, windows, finished_at = [], [], [], {}
        deadline = started + RUN_TIMEOUT / 1000 * 2
        while True:
            for i, p in enumerate(pages):
                if i not in finished_at and finished(p):
                    finished_at[i] = round(time.perf_counter() - started, 1)
            if len(finished_at) == len(pages):
                break
            if time.perf_counter() >= deadline:
                pending = {i: p.locator("[data-testid=stMain]").inner_text()[:600] for i, p in enumerate(pages)
                           if not finished(p)}
                raise AssertionError(f"the eight evaluations did not finish in time; unfinished: {pending}")
            at = time.perf_counter() - started
            http_s, page_s, window = timed_page_load(probe, server)
            http_loads.append(http_s)
            page_loads.append(page_s)
            windows.append(window)
            # When each load started and how long it took: slow ones can be matched to the runs' ends.
            figures.setdefault("page_loads_at_s", []).append([round(at, 1), round(page_s, 3)])
            time.sleep(0.25)
        figures["eight_runs_s"] = round(time.perf_counter() - started, 2)
        figures["runs_finished_at_s"] = sorted(finished_at.values())
        cpu_after = cpu_seconds(server.proc.pid)
        figures["cores_used_during_runs"] = {
            part: round((cpu_after[part] - cpu_before[part]) / figures["eight_runs_s"], 2) for part in cpu_after}
        figures["page_loads_during_runs"] = len(page_loads)
        figures["page_load_s"] = run_timing.spread(page_loads)
        figures["ttfb_s"] = run_timing.spread(http_loads)
        log = server_log(server)
        shares = run_timing.server_shares(log, PROBE, windows, sent)
        figures["server_share_s"] = run_timing.spread([s for s in shares if s is not None])
        figures["server_share_idle_s"] = run_timing.spread([s for s in run_timing.server_shares(
            log, PROBE, [w for *_, w in idle], sent) if s is not None])
        # From the request's arrival on the server's event loop, leaving out any time it waited to be read there.
        from_arrival = run_timing.server_shares(log, PROBE, windows)
        figures["server_script_s"] = run_timing.spread([s for s in from_arrival if s is not None])
        figures["loads_without_a_logged_run"] = sum(s is None for s in shares)
        figures["page_loads_at_s"] = [[at, load, None if share is None else round(share, 3)]
                                      for (at, load), share in zip(figures.get("page_loads_at_s", []), shares)]
        assert page_loads, "the evaluations finished before a single page load could be measured"

        # 2. Each session sees its own scenario, its own results and its own session id.
        ids = set()
        for i, page in enumerate(pages):
            wait_idle(page)
            assert_clean(page)
            text = sidebar_text(page)
            assert f"Demo scenario: {NAMES[i % len(NAMES)]}" in text, (i, text)
            for other in set(NAMES) - {NAMES[i % len(NAMES)]}:
                assert f"Demo scenario: {other}" not in text
            ids.add(re.search(r"session=([A-Za-z0-9_-]+)", page.url).group(1))
        assert len(ids) == SESSIONS

        # 3. No leak: twenty more evaluations in one session, every one a cache miss (the scenarios cycle
        #    through more tables than the session keeps results of). Memory is compared from the steady
        #    state on: after as many warm-up runs as the session keeps results of (runner.MAX_CACHED_RUNS),
        #    so that the bounded results cache is full before "before" is taken.
        for context in contexts[1:]:
            context.close()
        contexts = contexts[:1]
        page = pages[0]
        run_seconds = []
        memory_trace = figures["memory_after_each_run_mb"] = []
        for run in range(WARM_UP_RUNS + SUCCESSIVE_RUNS):
            if run == WARM_UP_RUNS:
                time.sleep(1.0)
                before = resident_bytes(server.proc.pid)
            go_to(page, "Data")
            load_demo(page, NAMES[(run + 1) % len(NAMES)])
            go_to(page, "Results")
            started = time.perf_counter()
            start_run(page)
            page.locator("[data-testid=stMain]").get_by_text(RISK_LEVEL).first.wait_for(timeout=RUN_TIMEOUT)
            wait_idle(page, timeout=RUN_TIMEOUT)
            memory_trace.append(round(resident_bytes(server.proc.pid) / 1024**2, 1))
            if run >= WARM_UP_RUNS:
                run_seconds.append(time.perf_counter() - started)
        time.sleep(1.0)
        after = resident_bytes(server.proc.pid)
        figures["memory_before_mb"] = round(before / 1024**2, 1)
        figures["memory_after_20_runs_mb"] = round(after / 1024**2, 1)
        figures["memory_change"] = round(after / before - 1, 4)
        figures["memory_growth_over_20_runs"] = round(
            memory_growth(memory_trace[WARM_UP_RUNS - 1:], len(NAMES), SUCCESSIVE_RUNS), 4)
        figures["successive_run_median_s"] = round(sorted(run_seconds)[len(run_seconds) // 2], 2)
    finally:
        for context in contexts:
            context.close()
        artifacts = ROOT / "test-artifacts"
        artifacts.mkdir(exist_ok=True)
        (artifacts / "load.json").write_text(json.dumps(figures, indent=2))
        print("load test figures:", json.dumps(figures))

    assert figures["loads_without_a_logged_run"] == 0, figures  # every load's runs were found in the server's log
    assert figures["server_share_s"]["p95"] <= SERVER_SHARE_P95_LIMIT_S, figures
    assert figures["server_share_s"]["max"] <= SERVER_SHARE_MAX_LIMIT_S, figures
    assert figures["page_load_idle_s"]["max"] <= PAGE_LOAD_LIMIT_S, figures
    assert figures["memory_growth_over_20_runs"] <= MEMORY_TOLERANCE, figures
