"""The listing sub-commands of ``python -m privcore``: ``metrics`` (ids, summaries and parameters),
``schema`` (the JSON Schema of the report) and ``demo`` (the built-in scenarios, or one written as CSV)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from privcore.cli.args import EXIT_OK


def add_metrics_and_schema_parsers(sub) -> None:
    """The ``metrics`` and ``schema`` sub-commands (no options)."""
    sub.add_parser("metrics", help="list metric ids with one-line descriptions and their parameters")
    sub.add_parser("schema", help="print the JSON Schema of the report that evaluate --json writes")


def add_demo_parser(sub) -> None:
    """The ``demo`` sub-command's options."""
    demo = sub.add_parser("demo", help="list demo scenarios, or write one as CSV files")
    demo.add_argument("name", nargs="?", help="scenario to write")
    demo.add_argument("--out", default=".", help="folder for real.csv, synthetic.csv, holdout.csv")
    demo.add_argument("--rows", type=int, default=3000)


def run_metrics(args: argparse.Namespace) -> int:
    """Print every metric id with its summary, needs and parameters."""
    from privcore.metrics import registry

    for info in registry.all_metrics():
        needs = f" [needs {', '.join(sorted(info.needs))}]" if info.needs else ""
        print(f"{info.id:28s} {info.summary}{needs}")
        for param in info.params:
            how = f"--param {info.id}.{param.name}=VALUE" if param.settable else f"--{param.name} FILE"
            print(f"{'':30s}{param.name} ({param.describe_range()}; default {param.describe_default()}; {how}): "
                  f"{param.help}")
    return EXIT_OK


def run_schema(args: argparse.Namespace) -> int:
    """Print the JSON Schema of the report that ``evaluate --json`` writes."""
    from privcore.report.json_schema import report_schema

    print(json.dumps(report_schema(), indent=2, ensure_ascii=False))
    return EXIT_OK


def run_demo(args: argparse.Namespace) -> int:
    """List the demo scenarios, or write one as real.csv, synthetic.csv and holdout.csv."""
    from privcore import demo

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
