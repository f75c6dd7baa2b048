"""Where the page loads of the load test go: the server's share against the browser's, near a run's end and away.

Reads ``test-artifacts/load.json`` (written by ``pytest -m load -n 0 tests/browser/test_load.py``) and writes
``bench/results/server_load.json``: for the probe's page loads while eight users evaluate the demo, the server's
share (request to the end of the run, from the server's own log) and the browser's full load, split by whether
the load started within ``--near`` seconds after one of the eight runs ended (when the server sends the finished
run's figures) or not, with the CPU it ran on.

Usage: python bench/server_load.py [--artifact test-artifacts/load.json] [--near 5]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboard.run_timing import spread  # noqa: E402


def cpu() -> dict:
    """The CPU model and family, as lscpu gives them."""
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
    except OSError:
        return {"machine": platform.machine()}
    wanted = ("Model name", "CPU family", "CPU(s)")
    return {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in text.splitlines() if ":" in line)
            if k.strip() in wanted}


def split(figures: dict, near: float) -> dict:
    """The loads started within ``near`` seconds after a run's end, and the others."""
    ends = figures["runs_finished_at_s"]
    groups: dict[str, dict[str, list[float]]] = {"near_a_run_end": {"server": [], "full": []},
                                                 "elsewhere": {"server": [], "full": []}}
    for at, full, server in figures["page_loads_at_s"]:
        group = "near_a_run_end" if any(0 <= at - end <= near for end in ends) else "elsewhere"
        groups[group]["full"].append(full)
        if server is not None:
            groups[group]["server"].append(server)
    return {name: {"server_share_s": spread(g["server"]), "full_load_s": spread(g["full"])}
            for name, g in groups.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifact", type=Path, default=ROOT / "test-artifacts" / "load.json")
    parser.add_argument("--near", type=float, default=5.0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "server_load.json")
    parser.add_argument("--note", default="", help="what the run shows, in words (stored with the figures)")
    args = parser.parse_args()
    figures = json.loads(args.artifact.read_text())
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    result = {
        "commit": commit,
        "cpu": cpu(),
        "sessions": figures["sessions"],
        "near_s": args.near,
        "cores_used_during_runs": figures["cores_used_during_runs"],
        "server_share_s": figures["server_share_s"],
        "server_script_s": figures.get("server_script_s"),
        "full_load_s": figures["page_load_s"],
        "ttfb_s": figures["ttfb_s"],
        "idle": {"server_share_s": figures["server_share_idle_s"], "full_load_s": figures["page_load_idle_s"]},
        "by_time": split(figures, args.near),
        "note": args.note,
    }
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
