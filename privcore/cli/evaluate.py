"""``python -m privcore evaluate``: score a synthetic table against the real one (product.md "Python API and
command line").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from privcore.base.errors import InputError
from privcore.cli.args import (
    EXIT_INTERNAL,
    EXIT_OK,
    add_type_flags,
    check_output_path,
    checked_device,
    checked_seed,
    checked_workers,
    parse_params,
    print_progress,
    schema_from_args,
    write_report,
)


def add_evaluate_parser(sub) -> None:
    """The ``evaluate`` sub-command's options.

    Notes
    -----
    The ``--seed``, ``--workers``, ``--device``, ``--dask`` and the ``--json``/``--html`` output paths are checked
    before any table is read, and a report that cannot be written is bad input too (exit 2, naming the path).
    ``--param ID.NAME=VALUE`` (repeatable) sets a metric parameter; VALUE is read as JSON when it parses
    (``0.1``, ``[["age", "sex"], ["race"]]``) and as plain text otherwise.
    """
    ev = sub.add_parser("evaluate", help="score a synthetic table against the real one")
    ev.add_argument("--real", help="real (training) table: CSV, Parquet or Excel")
    ev.add_argument("--synthetic", help="synthetic table")
    ev.add_argument("--holdout", help="optional holdout: real records not used for training")
    ev.add_argument("--reference", help="optional reference table of real people outside training and holdout: "
                    "every membership attack that can use one (mia_best and mia_stacked too) compares with it "
                    "instead of with half of the holdout, as in the dashboard")
    ev.add_argument("--demo", metavar="NAME", help="use a built-in demo scenario instead of files")
    add_type_flags(ev)
    ev.add_argument("--pairing", help="'row' (same row order) or an id column present in both tables")
    ev.add_argument("--metrics", default="all", help="'all', a preset name, or comma-separated metric ids "
                    "('quick' includes the membership attacks when --holdout is given)")
    ev.add_argument("--param", action="append", default=[], metavar="ID.NAME=VALUE",
                    help="set a metric parameter, e.g. cvp.threshold=0.1 or "
                    "'linkability.aux_cols=[[\"age\",\"sex\"],[\"race\"]]'; VALUE is read as JSON when it "
                    "parses, else as text; repeatable ('python -m privcore metrics' lists the parameters)")
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--dp-epsilon", metavar="EPSILON",
                    help="the ε of a differential-privacy guarantee the generator is declared to give: the answer "
                         "shows the bound it places on any membership attack and flags an attack beyond it")
    ev.add_argument("--famd-components", type=int, metavar="K",
                    help="axes of the FAMD projection used by dcr, nndr, hidr (default min(5, r))")
    # Read as text and checked in _evaluate, so that a bad value gets one line (argparse adds its usage).
    ev.add_argument("--workers", metavar="N",
                    help="threads for the neighbour passes and the classifiers' folds, a whole number >= 1 "
                    "(default: every usable core); the report does not depend on it")
    ev.add_argument("--dask", metavar="ADDRESS",
                    help="compute the neighbour passes and the classifiers' fits on a Dask cluster: tcp://host:8786, "
                    "or local:N for N worker "
                    "processes on this machine (needs pip install 'privcore[dask]'); the report does not change")
    ev.add_argument("--device", metavar="{auto,cpu,gpu}", default="auto",
                    help="where the neighbour passes run: gpu needs pip install 'privcore[gpu]' and an NVIDIA GPU; "
                    "auto (default) uses a GPU only when one is usable and the tables are large; the report does "
                    "not change")
    ev.add_argument("--json", metavar="OUT.json", help="write the JSON report here (default: stdout)")
    ev.add_argument("--html", metavar="OUT.html", help="also write a self-contained HTML report")
    ev.add_argument("--quiet", action="store_true", help="no progress on stderr")


def load_inputs(args):
    """The tables ``evaluate`` reads (files or a demo scenario), the demo's types and roles, the file names."""
    # The readers and the demo are imported when the command runs, not when the parser is built.
    from privcore.data.io import load_table

    if args.demo:
        from privcore import demo

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
    from privcore.data.io import load_table, validate_tables
    from privcore.evaluation.evaluate import check_dp_epsilon, evaluate, resolve_metric_ids

    params = parse_params(args.param)  # bad ids and names fail before any file is read
    checked_seed(args.seed)
    try:
        dp_epsilon = check_dp_epsilon(args.dp_epsilon)
    except InputError as exc:
        raise InputError(f"--dp-epsilon {args.dp_epsilon}: {exc}") from None
    workers = checked_workers(args.workers)
    if args.dask is not None:
        from privcore.engine.cluster import check_address

        check_address(args.dask)  # a malformed address fails before any file is read
    device = checked_device(args.device, args.dask)
    for option in ("json", "html"):  # fail fast: an unwritable report path is known before any computation
        check_output_path(getattr(args, option), f"--{option}")
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
    progress = None if args.quiet or not sys.stderr.isatty() else print_progress
    report = evaluate(real, synthetic, schema, metrics=args.metrics, holdout=holdout, seed=args.seed,
                      progress=progress, names=names, params=params, reference=reference,
                      famd_components=args.famd_components,
                      workers=workers, cluster=args.dask, device=device, dp_epsilon=dp_epsilon)
    if progress is not None:
        print(file=sys.stderr)
    text = report.to_json()
    if args.json:
        write_report(args.json, "--json", text + "\n")
    else:
        print(text)
    if args.html:
        from privcore.report.html import html_report

        write_report(args.html, "--html", html_report({names.get("synthetic", "synthetic"): report}))
    if report.errors:
        for error in report.errors:
            print(f"internal error in {error.splitlines()[0]}", file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_OK
