"""Command line: ``python -m privcore evaluate|metrics|demo|schema|audit|lab`` (product.md "Python API and
command line").

Exit codes: 0 success, 2 bad input (one line on stderr naming the file and column), 1 internal error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from privcore.base.errors import InputError
from privcore.cli.args import EXIT_BAD_INPUT, EXIT_INTERNAL, Parser
from privcore.cli.audit import add_audit_parser, run_audit
from privcore.cli.evaluate import add_evaluate_parser, run_evaluate
from privcore.cli.lab import add_lab_parser, run_lab
from privcore.cli.listings import add_demo_parser, add_metrics_and_schema_parsers, run_demo, run_metrics, run_schema

#: Sub-command → the function that runs it.
COMMANDS = {
    "evaluate": run_evaluate,
    "metrics": run_metrics,
    "schema": run_schema,
    "audit": run_audit,
    "lab": run_lab,
    "demo": run_demo,
}


def build_parser() -> argparse.ArgumentParser:
    """The parser of every sub-command, in the order ``--help`` lists them.

    Notes
    -----
    Each sub-command is a module of its own (:mod:`~privcore.cli.evaluate`, :mod:`~privcore.cli.listings`,
    :mod:`~privcore.cli.audit`, :mod:`~privcore.cli.lab`) over the shared helpers of :mod:`~privcore.cli.args`;
    this module only builds the parser and dispatches.
    """
    parser = Parser(prog="python -m privcore", description="Privacy-risk metrics for synthetic tabular data.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    add_evaluate_parser(sub)
    add_metrics_and_schema_parsers(sub)
    add_audit_parser(sub)
    add_lab_parser(sub)
    add_demo_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except InputError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return EXIT_INTERNAL
    except Exception as exc:  # anything else is our bug, not the user's input
        print(f"internal error: {type(exc).__name__}: {exc}. Please report it.", file=sys.stderr)
        return EXIT_INTERNAL
