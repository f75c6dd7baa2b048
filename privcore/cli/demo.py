"""``python -m privcore demo``: the built-in scenarios, listed or one written as CSV files."""

from __future__ import annotations

import argparse
from pathlib import Path

from privcore import demo
from privcore.cli.parsers import EXIT_OK


def run_demo(args: argparse.Namespace) -> int:
    """List the demo scenarios, or write one as real.csv, synthetic.csv and holdout.csv."""
    if not args.name:
        for scenario in demo.list_scenarios():
            print(f"{scenario.name:18s} {scenario.title}")
        return EXIT_OK
    data = demo.load_scenario(args.name, n=args.rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for role in ("real", "synthetic", "holdout"):
        getattr(data, role).to_csv(out / f"{role}.csv", index=False)
    print(f"wrote real.csv, synthetic.csv, holdout.csv to {out} (sensitive column: {data.sensitive})")
    return EXIT_OK
