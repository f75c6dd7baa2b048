"""``python -m privcore lab``: which metric notices which leak, on a leak ladder built from the real table.

Usage and options: :func:`privcore.cli.parsers.add_lab_parser`; what is computed: :mod:`privcore.lab`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from privcore import demo, lab
from privcore.base import InputError
from privcore.cli.args import (
    check_output_path,
    checked_seed,
    checked_workers,
    emit_document,
    parse_params,
    print_progress,
    schema_from_args,
)
from privcore.cli.parsers import EXIT_INTERNAL, EXIT_OK
from privcore.data import load_table
from privcore.engine import check_address
from privcore.generators import LADDER
from privcore.lab import (
    DEFAULT_LEVELS,
    DEFAULT_SEEDS,
    LevelError,
    check_leaks,
    check_levels,
    check_margin,
    check_metrics,
    check_seeds,
)
from privcore.report.lab_html import lab_html


def _check_settings(args: argparse.Namespace) -> dict[str, Any]:
    """Every lab setting checked (exit 2 with one line) before any table is read."""
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
        settings["leaks"] = check_leaks(LADDER if args.leaks is None else args.leaks)
        settings["levels"] = check_levels(DEFAULT_LEVELS if args.levels is None else args.levels)
        settings["seeds"] = check_seeds(DEFAULT_SEEDS if args.seeds is None else args.seeds)
    for option in ("json", "html"):
        check_output_path(getattr(args, option), f"--{option}")
    return settings


def _ladder_item(item: str) -> tuple[float, str]:
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
    if args.demo:
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
    """Run ``lab`` (see :func:`~privcore.cli.parsers.add_lab_parser`)."""
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
    emit_document(args, document, lab_html)
    for error in result.errors:
        print(f"internal error in {error.splitlines()[0]}", file=sys.stderr)
    return EXIT_INTERNAL if result.errors else EXIT_OK
