"""``python -m privcore evaluate``: score a synthetic table against the real one.

See product.md "Python API and command line".
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from privcore.base import InputError
from privcore.cli.args import (
    check_output_path,
    checked_device,
    checked_seed,
    checked_workers,
    deliver_report,
    parse_params,
    print_progress,
    schema_from_args,
)
from privcore.data import column_lines, load_table, validate_tables
from privcore.engine import check_address
from privcore.evaluation import Dataset, EvaluationOptions, check_dp_epsilon, evaluate_dataset, resolve_metric_ids


def _one(paths: list[str] | None, option: str) -> str | None:
    """The single path of a table option (repeated only for related tables, with --relation)."""
    if not paths:
        return None
    if len(paths) > 1:
        raise InputError(f"{option} is given {len(paths)} times: several tables are related tables, so give each as "
                         f"{option} NAME=PATH and say how they join with --relation CHILD.COLUMN=PARENT.COLUMN.")
    return paths[0]


def load_inputs(args):
    """The tables ``evaluate`` reads (files or a demo scenario), the demo's types and roles, the file names."""
    args.real, args.synthetic, args.holdout, args.reference = (
        _one(args.real, "--real"), _one(args.synthetic, "--synthetic"), _one(args.holdout, "--holdout"),
        _one(args.reference, "--reference"))
    if args.demo:
        from privcore import demo  # lazy: the demo and the generators behind it only for --demo

        if args.real or args.synthetic:
            raise InputError("Use either --demo or --real/--synthetic, not both.")
        data = demo.load_scenario(args.demo)
        overrides = dict(data.types)
        return data.real, data.synthetic, data.holdout, overrides, data.key, data.sensitive, {}
    if not args.real or not args.synthetic:
        raise InputError("Give both --real and --synthetic (or --demo NAME); see --help.")
    names = {"real": Path(args.real).name, "synthetic": Path(args.synthetic).name}
    real = load_table(args.real)
    synthetic = load_table(args.synthetic)
    holdout = None
    if args.holdout:
        names["holdout"] = Path(args.holdout).name
        holdout = load_table(args.holdout)
    return real, synthetic, holdout, {}, None, None, names


def run_evaluate(args: argparse.Namespace) -> int:
    """Run ``evaluate``; returns the exit code (bad input raises :class:`InputError`, exit 2 in :func:`main`)."""
    params = parse_params(args.param)  # bad ids and names fail before any file is read
    checked_seed(args.seed)
    try:
        dp_epsilon = check_dp_epsilon(args.dp_epsilon)
    except InputError as exc:
        raise InputError(f"--dp-epsilon {args.dp_epsilon}: {exc}") from None
    workers = checked_workers(args.workers)
    if args.dask is not None:
        check_address(args.dask)  # a malformed address fails before any file is read
    device = checked_device(args.device, args.dask)
    for option in ("json", "html"):  # fail fast: an unwritable report path is known before any computation
        check_output_path(getattr(args, option), f"--{option}")
    progress = None if args.quiet or not sys.stderr.isatty() else print_progress
    options = EvaluationOptions(seed=args.seed, progress=progress, params=params, famd_components=args.famd_components,
                                workers=workers, cluster=args.dask, device=device, dp_epsilon=dp_epsilon)
    if args.relation or args.order:
        from privcore.cli.related import run_related  # only for related tables

        return run_related(args, options)
    real, synthetic, holdout, overrides, demo_key, demo_sensitive, names = load_inputs(args)
    # The column settings first: a column declared categorical (--categorical) or left out (--exclude) is then
    # not held to the numbers-in-every-table check, so following a message's advice makes the tables pass.
    schema = schema_from_args(real, args, overrides, demo_key, demo_sensitive)
    validate_tables(
        real,
        {names.get("synthetic", "synthetic"): synthetic},
        holdout,
        names={"real": names.get("real", "real"), "holdout": names.get("holdout", "holdout")},
        schema=schema,
    )
    reference = None
    if args.reference:
        reference_name = Path(args.reference).name
        reference = load_table(args.reference)
        validate_tables(real, {reference_name: reference}, names={"real": names.get("real", "real")}, schema=schema)
    unused = sorted(set(parse_params(args.param)) - set(resolve_metric_ids(args.metrics, holdout=holdout is not None)))
    if unused:
        print(f"note: --param for {', '.join(unused)} has no effect: not among the metrics evaluated (--metrics).",
              file=sys.stderr)
    dataset = Dataset(real, synthetic, holdout, reference, schema, names=names)
    report = evaluate_dataset(dataset, args.metrics, options)
    if progress is not None:
        print(file=sys.stderr)
    return deliver_report(report, args, names.get("synthetic", "synthetic"),
                          [f"columns: {line}" for line in column_lines(report.columns)])
