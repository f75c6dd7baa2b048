"""Where the test suite's time goes: per tier and per test, from the JUnit XML files pytest writes.

``.ci/run`` runs each tier with ``--junitxml`` (``test-artifacts/tier-<name>.xml``) and its wall time in
``test-artifacts/tier-<name>.seconds``; this script reads them and writes one JSON document: the host's CPU
(``lscpu``), each tier's wall seconds (install included for the first tier, as ``.ci/run`` times it), its test
count and outcome counts, the summed seconds of its tests (above the wall time: ``-n auto`` runs them side by side),
every test of at least ``--keep`` seconds, and per-file totals for the rest.

    python bench/test_time.py [--artifacts test-artifacts] [--out test-artifacts/test_time.json]

``bench/results/test_time.json`` is this file from a fresh clone's ``CI=true bash .ci/run``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu_model() -> dict[str, str]:
    """``lscpu``'s model name, family, model and number of CPUs."""
    out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    return {k: fields.get(k, "").strip() for k in ("Model name", "CPU family", "Model", "CPU(s)")}


def read_tier(xml_path: Path, keep: float) -> dict:
    """One tier's counts, summed seconds, slow tests and per-file totals from a JUnit XML file."""
    root = ElementTree.parse(xml_path).getroot()
    outcomes: dict[str, int] = defaultdict(int)
    tests, per_file = [], defaultdict(float)
    for case in root.iter("testcase"):
        seconds = float(case.get("time") or 0.0)
        outcome = next((child.tag for child in case if child.tag in ("failure", "error", "skipped")), "passed")
        outcomes[outcome] += 1
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        per_file[case.get("classname", "").rsplit(".", 1)[0] if "." in case.get("classname", "") else ""] += seconds
        tests.append((name, round(seconds, 2), outcome))
    tests.sort(key=lambda t: -t[1])
    return {
        "tests": len(tests),
        "outcomes": dict(outcomes),
        "summed_test_seconds": round(sum(t[1] for t in tests), 1),
        f"tests_of_at_least_{keep:g}_s": [{"test": n, "seconds": s, "outcome": o} for n, s, o in tests if s >= keep],
        "per_module_seconds": dict(sorted(((k, round(v, 1)) for k, v in per_file.items()), key=lambda kv: -kv[1])),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifacts", default=str(ROOT / "test-artifacts"))
    parser.add_argument("--out", default=None)
    parser.add_argument("--keep", type=float, default=2.0, help="list every test of at least this many seconds")
    args = parser.parse_args()
    artifacts = Path(args.artifacts)
    tiers = {}
    for xml_path in sorted(artifacts.glob("tier-*.xml")):
        name = xml_path.stem.removeprefix("tier-")
        seconds_file = artifacts / f"tier-{name}.seconds"
        wall = float(seconds_file.read_text().strip()) if seconds_file.exists() else None
        tiers[name] = {"wall_seconds": wall, **read_tier(xml_path, args.keep)}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                            check=False).stdout.strip()
    document = {"benchmark": "test_time", "what": __doc__.split("\n\n")[1].replace("\n", " "), "commit": commit,
                "cpu": cpu_model(), "tiers": tiers}
    out = Path(args.out) if args.out else artifacts / "test_time.json"
    out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({name: {k: t[k] for k in ("wall_seconds", "tests", "outcomes")} for name, t in tiers.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
