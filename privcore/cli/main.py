"""Command line: ``python -m privcore evaluate|metrics|demo|schema|audit|lab``.

See product.md "Python API and command line". Exit codes: 0 success, 2 bad input (one line on stderr naming the file and
column), 1 internal error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from privcore.base import InputError
from privcore.cli.parsers import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    Parser,
    add_audit_parser,
    add_demo_parser,
    add_evaluate_parser,
    add_lab_parser,
    add_metrics_and_schema_parsers,
)

#: Sub-command → the module whose ``run_<sub-command>(args)`` runs it, imported only when that sub-command runs.
COMMANDS = {
    "evaluate": "privcore.cli.evaluate",
    "metrics": "privcore.cli.listings",
    "schema": "privcore.cli.schema",
    "audit": "privcore.cli.audit",
    "lab": "privcore.cli.lab",
    "demo": "privcore.cli.demo",
}


def build_parser() -> argparse.ArgumentParser:
    """The parser of every sub-command, in the order ``--help`` lists them.

    Notes
    -----
    The options are defined in :mod:`~privcore.cli.parsers` (argparse only); each sub-command runs in a module of
    its own (:mod:`~privcore.cli.evaluate`, :mod:`~privcore.cli.listings`, :mod:`~privcore.cli.schema`,
    :mod:`~privcore.cli.demo`, :mod:`~privcore.cli.audit`, :mod:`~privcore.cli.lab`, over the shared helpers of
    :mod:`~privcore.cli.args`),
    which :func:`main` imports only when that sub-command runs (:data:`COMMANDS`), so that ``--help`` and a usage
    error load none of them.
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
        run = getattr(importlib.import_module(COMMANDS[args.command]), f"run_{args.command}")
        return run(args)
    except InputError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return EXIT_INTERNAL
    except Exception as exc:  # anything else is our bug, not the user's input
        print(f"internal error: {type(exc).__name__}: {exc}. Please report it.", file=sys.stderr)
        return EXIT_INTERNAL
