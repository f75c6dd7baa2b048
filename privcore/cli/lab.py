"""``python -m privcore lab``: which metric notices which leak, on a leak ladder built from the real table.

Usage and options: :func:`add_lab_parser`; what is computed: :mod:`privcore.lab`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from privcore.base.errors import InputError
from privcore.cli.args import (
    EXIT_INTERNAL,
    EXIT_OK,
    add_type_flags,
    check_output_path,
    checked_seed,
    checked_workers,
    emit_document,
    parse_params,
    print_progress,
    schema_from_args,
)


def add_lab_parser(sub) -> None:
    """Register the ``lab`` subcommand; its options are added when it parses or shows its help
    (:class:`~privcore.cli.args.Parser`), because their defaults come from the generators and the lab, which
    the other sub-commands do not need (they cost about 0.1 s at start-up).

    Notes
    -----
    Usage::

        python -m privcore lab --real R.csv [--holdout H.csv] [type flags as in evaluate]
            [--leaks partial_copy,noisy_copy,...] [--levels 0,0.25,0.5,0.75,1] [--seeds 3]
            [--metrics crp,dcr,...] [--param ID.NAME=VALUE ...] [--margin 0.01] [--seed 0]
            [--json OUT.json] [--html OUT.html] [--workers N] [--dask ADDRESS] [--no-utility]
        python -m privcore lab --demo NAME [--rows 3000] ...            (a demo's real table and holdout)
        python -m privcore lab --real R.csv [--holdout H.csv] --ladder 0.1=eps01.csv --ladder 1=eps1.csv ...
                                                                        (a supplied ladder: LABEL=FILE, repeatable)

    Beside the privacy metrics, every table is measured for utility (column shapes and column-pair trends, and any
    utility measure named in --metrics) for the privacy–utility frontier (:mod:`privcore.lab.frontier`); --no-utility
    leaves the cheap two out.

    Exit codes as for ``evaluate``: 0 success, 2 bad input or settings (one line on stderr), 1 internal error.
    Settings are checked before any table is read. See :mod:`privcore.lab` for what is computed.
    """
    sub.add_parser("lab", help="which metric notices which leak: metrics on a leak ladder from the real table",
                   add_options=_add_lab_options)


def _add_lab_options(lab: argparse.ArgumentParser) -> None:
    """The ``lab`` sub-command's options."""
    from privcore.generators import LADDER
    from privcore.lab import DEFAULT_LEVELS, DEFAULT_METRICS, DEFAULT_SEEDS

    lab.add_argument("--real", help="the real table: CSV, Parquet or Excel")
    lab.add_argument("--holdout", help="optional real records not in --real (split into the metrics' holdout and "
                     "fresh rows); without it both are split off --real")
    lab.add_argument("--demo", metavar="NAME", help="use a built-in demo scenario's real table and holdout")
    lab.add_argument("--rows", type=int, default=3000, help="rows of the demo's real table and holdout (--demo)")
    add_type_flags(lab)
    # ", " so that the help wraps between names, not inside one (seven names no longer fit on a line).
    lab.add_argument("--leaks", help=f"comma-separated leak types (default all: {', '.join(LADDER)})")
    lab.add_argument("--levels", help="comma-separated leak levels from 0 to 1 (default "
                     f"{','.join(f'{v:g}' for v in DEFAULT_LEVELS)}; 0 is always run)")
    lab.add_argument("--seeds", help=f"synthetic tables per leak type and level (default {DEFAULT_SEEDS})")
    lab.add_argument("--metrics", default=",".join(DEFAULT_METRICS),
                     help="'all', a preset name, or comma-separated metric ids (default: the 15 review metrics "
                     "without a classifier, both singling-out attacks, inference and mia_distance)")
    lab.add_argument("--param", action="append", default=[], metavar="ID.NAME=VALUE",
                     help="set a metric parameter, as for evaluate; repeatable")
    lab.add_argument("--margin", default="0.01", help="detection margin in risk units (default 0.01)")
    lab.add_argument("--ladder", action="append", default=[], metavar="LABEL=FILE",
                     help="a supplied ladder instead of the generated one: a synthetic table made from --real with "
                     "a numeric label (e.g. its ε); repeatable, a label may repeat; the smallest label is the "
                     "reference")
    lab.add_argument("--seed", type=int, default=0)
    lab.add_argument("--no-utility", action="store_true",
                     help="do not measure column shapes and column-pair trends on every table (the privacy-utility "
                     "frontier then rests only on the utility measures named in --metrics, if any)")
    lab.add_argument("--json", metavar="OUT.json", help="write the JSON report here (default: stdout)")
    lab.add_argument("--html", metavar="OUT.html", help="also write a self-contained HTML page")
    lab.add_argument("--quiet", action="store_true", help="no progress on stderr")
    lab.add_argument("--workers", metavar="N", help="processes that evaluate the synthetic tables (default: every "
                     "usable core, one per 4 tables); the result does not change")
    lab.add_argument("--dask", metavar="ADDRESS", help="evaluate the tables as tasks on a Dask cluster: "
                     "tcp://host:8786, or local:N for N worker processes on this machine (needs pip install "
                     "'privcore[dask]'); the result does not change")


def _check_settings(args: argparse.Namespace) -> dict[str, Any]:
    """Every lab setting checked (exit 2 with one line) before any table is read."""
    from privcore.engine.cluster import check_address
    from privcore.lab.settings import check_leaks, check_levels, check_margin, check_metrics, check_seeds

    settings: dict[str, Any] = {"params": parse_params(args.param), "seed": checked_seed(args.seed),
                                "metrics": check_metrics(args.metrics), "margin": check_margin(args.margin),
                                "workers": checked_workers(args.workers),
                                "cluster": None if args.dask is None else check_address(args.dask)}
    if args.ladder:
        given = [option for option in ("leaks", "levels", "seeds") if getattr(args, option) is not None]
        if given:
            raise InputError(f"--{given[0]} does not apply to a supplied ladder (--ladder): its tables are given.")
        settings["ladder"] = [_ladder_item(item) for item in args.ladder]
    else:
        from privcore.generators import LADDER
        from privcore.lab import DEFAULT_LEVELS, DEFAULT_SEEDS

        settings["leaks"] = check_leaks(LADDER if args.leaks is None else args.leaks)
        settings["levels"] = check_levels(DEFAULT_LEVELS if args.levels is None else args.levels)
        settings["seeds"] = check_seeds(DEFAULT_SEEDS if args.seeds is None else args.seeds)
    for option in ("json", "html"):
        check_output_path(getattr(args, option), f"--{option}")
    return settings


def _ladder_item(item: str) -> tuple[float, str]:
    from privcore.lab import LevelError

    label, equals, path = item.partition("=")
    try:
        value = float(label)
    except ValueError:
        value = float("nan")
    if not equals or not path.strip() or value != value or value in (float("inf"), float("-inf")):
        raise LevelError(f"--ladder {item!r} is not of the form LABEL=FILE with a finite numeric label "
                         "(for example --ladder 0.5=synthetic_eps05.csv).")
    return value, path.strip()


def _load(args: argparse.Namespace):
    """The real table, holdout, type overrides, demo key and sensitive column, and names for messages."""
    from privcore.data.io import load_table

    if args.demo:
        from privcore import demo

        if args.real or args.holdout:
            raise InputError("Use either --demo or --real/--holdout, not both.")
        data = demo.load_scenario(args.demo, n=args.rows)
        return data.real, data.holdout, dict(data.types), data.key, data.sensitive, {"real": f"demo {args.demo}"}
    if not args.real:
        raise InputError("Give the real table with --real FILE (or --demo NAME); see --help.")
    names = {"real": Path(args.real).name}
    holdout = None
    if args.holdout:
        names["holdout"] = Path(args.holdout).name
        holdout = load_table(args.holdout)
    return load_table(args.real), holdout, {}, None, None, names


def run_lab(args: argparse.Namespace) -> int:
    """Run ``lab`` (see :func:`add_lab_parser`)."""
    from privcore import lab
    from privcore.data.io import load_table

    settings = _check_settings(args)
    real, holdout, overrides, demo_key, demo_sensitive, names = _load(args)
    schema = schema_from_args(real, args, overrides, demo_key, demo_sensitive)
    show = None if args.quiet or not sys.stderr.isatty() else print_progress

    def progress(done: int, total: int, message: str) -> None:
        if show is not None:
            show(done / max(total, 1), message)

    common = {"holdout": holdout, "metrics": settings["metrics"], "seed": settings["seed"],
              "params": settings["params"], "margin": settings["margin"], "progress": progress, "names": names,
              "workers": settings["workers"], "cluster": settings["cluster"], "utility": not args.no_utility}
    if "ladder" in settings:
        tables: dict[float, list] = {}
        for label, path in settings["ladder"]:
            tables.setdefault(label, []).append(load_table(path))
        result = lab.run_ladder(real, tables, schema, **common)
    else:
        result = lab.run(real, schema, leaks=settings["leaks"], levels=settings["levels"], seeds=settings["seeds"],
                         **common)
    if show is not None:
        print(file=sys.stderr)
    document = result.to_dict()
    document["settings"] = {**document["settings"], "real": names.get("real"), "holdout": names.get("holdout")}
    # Imported here: the lab's HTML pulls in the generators and scikit-learn, which `evaluate` does not need.
    from privcore.report.lab_html import lab_html

    emit_document(args, document, lab_html)
    for error in result.errors:
        print(f"internal error in {error.splitlines()[0]}", file=sys.stderr)
    return EXIT_INTERNAL if result.errors else EXIT_OK
