"""``python -m privcore evaluate --real NAME=PATH ... --relation CHILD.COLUMN=PARENT.COLUMN``: related tables per person."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from privcore.base import InputError
from privcore.cli.args import deliver_report
from privcore.data import Relation, column_lines, load_table
from privcore.evaluation import Dataset, EvaluationOptions, evaluate_dataset


def named_tables(values: list[str] | None, option: str) -> tuple[dict, dict]:
    """Tables and file names from ``NAME=PATH`` values of one option."""
    tables, names = {}, {}
    for value in values or []:
        name, sep, path = value.partition("=")
        if not sep or not name.strip() or not path.strip() or os.path.exists(value):
            raise InputError(f"{option} {value!r}: with --relation, give each table as {option} NAME=PATH (the NAME "
                             "as in --relation), e.g. --real patients=patients.csv --real visits=visits.csv.")
        if name in tables:
            raise InputError(f"{option} names the table {name!r} twice.")
        tables[name.strip()], names[name.strip()] = load_table(path.strip()), Path(path.strip()).name
    return tables, names


def relations_from_args(args: argparse.Namespace) -> list[Relation]:
    """The ``--relation`` values, each with its ``--order`` column where one names its child table."""
    if not args.relation:
        raise InputError("--order needs --relation CHILD.COLUMN=PARENT.COLUMN for its child table.")
    relations = [Relation.parse(text) for text in args.relation]
    orders = {}
    for text in args.order:
        child, sep, column = text.partition(".")
        if not sep or not column:
            raise InputError(f"--order {text!r}: write CHILD.COLUMN, e.g. visits.date.")
        if child not in {r.child for r in relations}:
            raise InputError(f"--order {text!r}: {child!r} is the child of no --relation.")
        orders[child] = column
    return [Relation(r.child, r.column, r.parent, r.parent_column, orders.get(r.child)) for r in relations]


def run_related(args: argparse.Namespace, options: EvaluationOptions) -> int:
    """Evaluate related tables per person; the report's JSON carries ``related`` (exit codes as ``evaluate``)."""
    if args.demo:
        raise InputError("--demo takes no --relation; for the built-in related tables run "
                         "python -m privcore demo people_leak (or people_fresh) and evaluate its files.")
    relations = relations_from_args(args)
    real, real_names = named_tables(args.real, "--real")
    synthetic, synthetic_names = named_tables(args.synthetic, "--synthetic")
    holdout, holdout_names = named_tables(args.holdout, "--holdout")
    reference, reference_names = named_tables(args.reference, "--reference")
    if not real or not synthetic:
        raise InputError("Give the real and the synthetic tables, each as --real NAME=PATH and --synthetic NAME=PATH.")
    names = {"real": real_names, "synthetic": synthetic_names, "holdout": holdout_names, "reference": reference_names}
    dataset = Dataset(real, synthetic, holdout or None, reference or None, relations=tuple(relations), names=names)
    report = evaluate_dataset(dataset, args.metrics, options)
    if options.progress is not None:
        print(file=sys.stderr)
    return deliver_report(report, args, "synthetic (per person)",
                          [f"related: {report.related['text']}",
                           *(f"columns: {line}" for line in column_lines(report.columns))])
