"""The first visitor of a fresh server against the second and third, this checkout against a baseline commit.

Issue 39 item 4: whatever the first visitor waits for (imports, the demo's preparation) is done when the server
starts, so the first visitor waits no longer than the second. Per repeat and checkout (interleaved, so that load
on the shared 2-core machine falls on both alike): ``streamlit run app.py -- --demo`` on a free port, the seconds
until ``/_stcore/health`` answers (``server_up``), then three visitors one after another, each in a new browser
context, timed from ``page.goto`` of the home page to its title drawn and the script's run finished. The browser
itself is started (and has opened a blank page), and each checkout's server run once untimed (so that neither
pays for compiling its bytecode, as an installed package would not), before any timing.

Usage: python bench/first_visit.py [--baseline 845453a] [--repeats 5]; writes bench/results/first_visit.json.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from server_load import cpu  # the same lscpu fields as the load test's figures (run from bench/)

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking"]
VISITORS = 3
READY = "[data-testid=stApp][data-test-script-state=notRunning]"


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(checkout: Path, log) -> tuple[subprocess.Popen, str, float]:
    """``streamlit run app.py -- --demo`` in ``checkout``; the process, its URL, and the seconds until healthy."""
    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.address",
               "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false", "--", "--demo"]
    began = time.perf_counter()
    proc = subprocess.Popen(command, cwd=checkout, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"), start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    while time.perf_counter() - began < 120:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.status == 200:
                    return proc, url, time.perf_counter() - began
        except OSError:
            time.sleep(0.05)
    stop(proc)
    raise RuntimeError(f"the server in {checkout} did not become healthy")


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the server's process group, SIGKILL if it lingers."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    except ProcessLookupError:
        pass


def visit(browser, url: str) -> float:
    """Seconds from opening the home page in a new context to its title drawn and its script run finished."""
    context = browser.new_context()
    page = context.new_page()
    began = time.perf_counter()
    page.goto(url)
    page.wait_for_selector("h1", timeout=120_000)
    page.wait_for_selector(READY, timeout=120_000)
    seconds = time.perf_counter() - began
    context.close()
    return seconds


def one_server(browser, checkout: Path) -> dict:
    """One fresh server: its start, and its first visitors' loads."""
    with tempfile.TemporaryFile() as log:
        proc, url, up = start(checkout, log)
        try:
            loads = [visit(browser, url) for _ in range(VISITORS)]
        finally:
            stop(proc)
            log.seek(0)
            warmed = [line for line in log.read().decode(errors="replace").splitlines() if "warmed up" in line]
    return {"server_up_s": round(up, 3), "loads_s": [round(x, 3) for x in loads], "log": warmed}


def summary(runs: list[dict]) -> dict:
    """Medians over the repeats: the start, each visitor's load, and the first visitor's load over the second's."""
    out = {"server_up_s": round(statistics.median(r["server_up_s"] for r in runs), 3)}
    for i in range(VISITORS):
        out[f"visitor_{i + 1}_s"] = round(statistics.median(r["loads_s"][i] for r in runs), 3)
    out["first_over_second"] = round(statistics.median(r["loads_s"][0] / r["loads_s"][1] for r in runs), 3)
    out["first_over_later_max"] = round(max(r["loads_s"][0] / max(r["loads_s"][1:]) for r in runs), 3)
    out["first_within_1.2x_of_second"] = out["first_over_second"] <= 1.2  # issue 39's target, on the medians
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="845453a")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "first_visit.json")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                                capture_output=True, text=True).stdout.strip())
    baseline_dir = Path(tempfile.mkdtemp(prefix="first-visit-baseline-"))
    subprocess.run(["git", "worktree", "add", "--detach", str(baseline_dir), args.baseline], cwd=ROOT, check=True,
                   capture_output=True)
    runs: dict[str, list[dict]] = {"baseline": [], "head": []}
    load = [os.getloadavg()]
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            warm = browser.new_page()
            warm.goto("about:blank")
            warm.close()
            for checkout in (baseline_dir, ROOT):  # untimed: each checkout compiles its bytecode once
                one_server(browser, checkout)
            for repeat in range(args.repeats):
                for name, checkout in (("baseline", baseline_dir), ("head", ROOT))[::1 if repeat % 2 else -1]:
                    runs[name].append(one_server(browser, checkout))
                    print(name, runs[name][-1], file=sys.stderr, flush=True)
            browser.close()
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(baseline_dir)], cwd=ROOT, capture_output=True)
    load.append(os.getloadavg())
    result = {
        "benchmark": "first_visit", "issue": "39 item 4", "what": __doc__.split("\n\n")[1].replace("\n", " "),
        "cpu": cpu(), "load_average_before_after": [[round(x, 2) for x in a] for a in load],
        "baseline": args.baseline, "head": head + ("+uncommitted" if dirty else ""), "repeats": args.repeats,
        "summary": {name: summary(r) for name, r in runs.items()}, "runs": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["summary"], indent=2))


if __name__ == "__main__":
    main()
