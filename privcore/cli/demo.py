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
        for name, description in demo.RELATED_SCENARIOS.items():
            print(f"{name:18s} related tables (players and seasons): {description}")
        return EXIT_OK
    if args.name in demo.RELATED_SCENARIOS:
        return _write_related(args)
    data = demo.load_scenario(args.name, n=args.rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for role in ("real", "synthetic", "holdout"):
        getattr(data, role).to_csv(out / f"{role}.csv", index=False)
    print(f"wrote real.csv, synthetic.csv, holdout.csv to {out} (sensitive column: {data.sensitive})")
    return EXIT_OK


def _write_related(args: argparse.Namespace) -> int:
    """Write a related scenario as ROLE_TABLE.csv files and print the command that evaluates them."""
    scenario = demo.load_related(args.name, players=args.rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for role in ("real", "synthetic", "holdout"):
        for table, frame in getattr(scenario, role).items():
            frame.to_csv(out / f"{role}_{table}.csv", index=False)
            written.append(f"{role}_{table}.csv")
    r = scenario.relation
    flags = " ".join(f"--{role} {table}={out / f'{role}_{table}.csv'}" for role in ("real", "synthetic", "holdout")
                     for table in getattr(scenario, role))
    print(f"wrote {', '.join(written)} to {out}\nevaluate per person: python -m privcore evaluate {flags} "
          f"--relation {r.child}.{r.column}={r.parent}.{r.parent_column} --order {r.child}.{r.order} --metrics quick")
    return EXIT_OK
