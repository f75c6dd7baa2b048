"""Command line: ``python -m privcore evaluate|metrics|demo|schema|audit|lab`` (product.md "Python API and
command line").

Exit codes: 0 success, 2 bad input (one line on stderr naming the file and column), 1 internal error.
The ``--seed`` and the ``--json``/``--html`` output paths are checked before any table is read, and a
report that cannot be written is bad input too (exit 2, naming the path).

``evaluate --param ID.NAME=VALUE`` (repeatable) sets a metric parameter; VALUE is read as JSON when it
parses (``0.1``, ``[["age", "sex"], ["race"]]``) and as plain text otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterable, Sequence


from privcore.base.errors import InputError

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own usage errors are bad input too
        self.print_usage(sys.stderr)
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def _split(value: str | None) -> list[str]:
    return [] if not value else [v.strip() for v in value.split(",") if v.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m privcore", description="Privacy-risk metrics for synthetic tabular data.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    ev = sub.add_parser("evaluate", help="score a synthetic table against the real one")
    ev.add_argument("--real", help="real (training) table: CSV, Parquet or Excel")
    ev.add_argument("--synthetic", help="synthetic table")
    ev.add_argument("--holdout", help="optional holdout: real records not used for training")
    ev.add_argument("--reference", help="optional reference table of real people outside training and holdout "
                    "(calibrates the mia_calibrated and mia_domias attacks)")
    ev.add_argument("--demo", metavar="NAME", help="use a built-in demo scenario instead of files")
    add_type_flags(ev)
    ev.add_argument("--pairing", help="'row' (same row order) or an id column present in both tables")
    ev.add_argument("--metrics", default="all", help="'all', a preset name, or comma-separated metric ids")
    ev.add_argument("--param", action="append", default=[], metavar="ID.NAME=VALUE",
                    help="set a metric parameter, e.g. cvp.threshold=0.1 or "
                    "'linkability.aux_cols=[[\"age\",\"sex\"],[\"race\"]]'; VALUE is read as JSON when it "
                    "parses, else as text; repeatable ('python -m privcore metrics' lists the parameters)")
    ev.add_argument("--seed", type=int, default=0)
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

    sub.add_parser("metrics", help="list metric ids with one-line descriptions and their parameters")
    sub.add_parser("schema", help="print the JSON Schema of the report that evaluate --json writes")

    from privcore.cli.audit import add_audit_parser

    add_audit_parser(sub)

    from privcore.cli.lab import add_lab_parser

    add_lab_parser(sub)

    demo = sub.add_parser("demo", help="list demo scenarios, or write one as CSV files")
    demo.add_argument("name", nargs="?", help="scenario to write")
    demo.add_argument("--out", default=".", help="folder for real.csv, synthetic.csv, holdout.csv")
    demo.add_argument("--rows", type=int, default=3000)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "metrics":
            return _list_metrics()
        if args.command == "schema":
            from privcore.report.json_schema import report_schema

            print(json.dumps(report_schema(), indent=2, ensure_ascii=False))
            return EXIT_OK
        if args.command == "demo":
            return _demo(args)
        if args.command == "audit":
            from privcore.cli.audit import run_audit

            return run_audit(args)
        if args.command == "lab":
            from privcore.cli.lab import run_lab

            return run_lab(args)
        return _evaluate(args)
    except InputError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return EXIT_INTERNAL
    except Exception as exc:  # anything else is our bug, not the user's input
        print(f"internal error: {type(exc).__name__}: {exc}. Please report it.", file=sys.stderr)
        return EXIT_INTERNAL


def _list_metrics() -> int:
    from privcore.metrics import registry

    for info in registry.all_metrics():
        needs = f" [needs {', '.join(sorted(info.needs))}]" if info.needs else ""
        print(f"{info.id:28s} {info.summary}{needs}")
        for param in info.params:
            how = f"--param {info.id}.{param.name}=VALUE" if param.settable else f"--{param.name} FILE"
            print(f"{'':30s}{param.name} ({param.describe_range()}; default {param.describe_default()}; {how}): "
                  f"{param.help}")
    return EXIT_OK


def _param_value(text: str) -> Any:
    """VALUE of ``--param``: JSON when it parses (``0.1``, ``[["a"], ["b"]]``), else the text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_params(items: Iterable[str]) -> dict[str, dict[str, Any]]:
    """``--param ID.NAME=VALUE`` items as metric id → {name: value} (later items win).

    Raises
    ------
    InputError
        For an item that is not ``ID.NAME=VALUE``, an unknown metric id or parameter name (the message
        lists the valid ones), or a value of the wrong kind or out of range (the sentence the Metrics
        page shows; column names are checked later, against the analysed columns).

    Examples
    --------
    >>> parse_params(["cvp.threshold=0.1", 'linkability.aux_cols=[["age"], ["sex"]]'])
    {'cvp': {'threshold': 0.1}, 'linkability': {'aux_cols': [['age'], ['sex']]}}
    """
    from privcore.metrics import registry
    from privcore.data.params import check_value

    ids = registry.metric_ids()
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        target, equals, text = item.partition("=")
        metric_id, dot, name = target.strip().partition(".")
        metric_id, name = metric_id.strip(), name.strip()
        if not equals or not dot or not metric_id or not name:
            raise InputError(f"--param {item!r} is not of the form ID.NAME=VALUE (for example cvp.threshold=0.1).")
        if metric_id not in ids:
            raise InputError(f"--param {item!r}: unknown metric id {metric_id!r}; valid ids: {', '.join(ids)}.")
        declared = {p.name: p for p in registry.get(metric_id).params}
        settable = [n for n, p in declared.items() if p.settable]
        if name in declared and not declared[name].settable:
            raise InputError(f"--param {item!r}: give the {name} table as a file with --{name} FILE.")
        if name not in settable:
            valid = f"valid names: {', '.join(settable)}" if settable else "it has no parameters"
            raise InputError(f"--param {item!r}: metric {metric_id!r} has no parameter {name!r}; {valid}.")
        try:
            value = check_value(metric_id, declared[name], _param_value(text))
        except InputError as exc:
            raise InputError(f"--param {item!r}: {exc}") from None
        out.setdefault(metric_id, {})[name] = value
    return out


def _demo(args) -> int:
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


def add_type_flags(parser: argparse.ArgumentParser) -> None:
    """The column-type and role options shared by ``evaluate`` and ``audit``."""
    parser.add_argument("--numerical", help="comma-separated numerical columns (others are inferred)")
    parser.add_argument("--categorical", help="comma-separated categorical columns")
    parser.add_argument("--binary", help="comma-separated binary columns")
    parser.add_argument("--exclude", help="comma-separated columns to leave out")
    parser.add_argument("--key", help="comma-separated key (quasi-identifier) columns; default all but the sensitive one")
    parser.add_argument("--sensitive", help="the sensitive column")
    parser.add_argument("--missing", choices=("drop", "impute"), default="drop", help="missing numerical values")


def schema_from_args(real, args, overrides: dict, demo_key=None, demo_sensitive=None):
    """The schema the type and role options describe (columns not named are inferred)."""
    from privcore.data.schema import infer_schema

    overrides = dict(overrides)
    for kind in ("numerical", "categorical", "binary"):
        for col in _split(getattr(args, kind)):
            overrides[col] = kind
    sensitive = args.sensitive or demo_sensitive
    key = _split(args.key) or demo_key
    if key and sensitive in key and args.sensitive:
        key = [c for c in key if c != sensitive]
    return infer_schema(real, sensitive=sensitive, key=key or None, pairing=getattr(args, "pairing", None),
                        overrides=overrides, exclude=_split(args.exclude), missing=args.missing, seed=args.seed)


def checked_seed(seed: int) -> int:
    """``--seed`` validated (exit 2 with the rule)."""
    from privcore.data.schema import check_seed

    try:
        check_seed(seed)
    except InputError as exc:
        raise InputError(f"--seed {seed}: {exc}") from None
    return seed


def checked_workers(text: str | None) -> int | None:
    """``--workers`` as a whole number ≥ 1, or None when not given.

    Raises
    ------
    InputError
        For anything else (exit 2, one line).

    Examples
    --------
    >>> checked_workers("3"), checked_workers(None)
    (3, None)
    """
    if text is None:
        return None
    stripped = text.strip()
    if not stripped.isdigit() or int(stripped) < 1:
        raise InputError(f"--workers {text}: the number of workers must be a whole number of at least 1 (leave it "
                         "out to use every usable core).")
    return int(stripped)


def checked_device(text: str, dask: str | None = None) -> str:
    """``--device`` as "auto", "cpu" or "gpu"; "gpu" only where a GPU is usable and without ``--dask``.

    Raises
    ------
    InputError
        For another value, for ``gpu`` without CuPy or a GPU, or with ``--dask`` (exit 2, one line,
        before any table is read).

    Examples
    --------
    >>> checked_device("CPU")
    'cpu'
    """
    from privcore.engine.gpu import check_device, require_gpu

    try:
        device = check_device(text)
        if device == "gpu":
            if dask is not None:
                raise InputError("choose either --dask or --device gpu, not both (the cluster's workers compute on "
                                 "their CPUs).")
            require_gpu()
    except InputError as exc:
        raise InputError(f"--device {text}: {exc}") from None
    return device


def _load_inputs(args):
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


def _evaluate(args) -> int:
    from privcore.evaluation.evaluate import evaluate, resolve_metric_ids
    from privcore.data.io import load_table, validate_tables

    params = parse_params(args.param)  # bad ids and names fail before any file is read
    checked_seed(args.seed)
    workers = checked_workers(args.workers)
    if args.dask is not None:
        from privcore.engine.cluster import check_address

        check_address(args.dask)  # a malformed address fails before any file is read
    device = checked_device(args.device, args.dask)
    for option in ("json", "html"):  # fail fast: an unwritable report path is known before any computation
        check_output_path(getattr(args, option), f"--{option}")
    real, synthetic, holdout, overrides, demo_key, demo_sensitive, names = _load_inputs(args)
    validate_tables(
        real,
        {names.get("synthetic", "synthetic"): synthetic},
        holdout,
        names={"real": names.get("real", "real"), "holdout": names.get("holdout", "holdout")},
    )
    schema = schema_from_args(real, args, overrides, demo_key, demo_sensitive)
    if args.reference:
        reference_name = Path(args.reference).name
        reference = load_table(args.reference)
        validate_tables(real, {reference_name: reference}, names={"real": names.get("real", "real")})
        for metric_id in ("mia_calibrated", "mia_domias"):
            params.setdefault(metric_id, {})["reference"] = reference
    unused = sorted(set(parse_params(args.param)) - set(resolve_metric_ids(args.metrics)))
    if unused:
        print(f"note: --param for {', '.join(unused)} has no effect: not among the metrics evaluated (--metrics).",
              file=sys.stderr)
    progress = None if args.quiet or not sys.stderr.isatty() else print_progress
    report = evaluate(real, synthetic, schema, metrics=args.metrics, holdout=holdout, seed=args.seed,
                      progress=progress, names=names, params=params, famd_components=args.famd_components,
                      workers=workers, cluster=args.dask, device=device)
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


def check_output_path(path: str | None, option: str) -> None:
    """Raise :class:`InputError` unless a report can be written to ``path`` (``None``: nothing to check).

    The folder must exist and be writable and the path must not be a folder, so that a typo in
    ``--json``/``--html`` is reported before the evaluation runs rather than after it.
    """
    if not path:
        return
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        problem = "is a folder, not a file"
        todo = f"add a file name, e.g. {option} {target / ('report' + (target.suffix or '.' + option[2:]))}"
    elif not folder.exists():
        problem = f"is in a folder that does not exist ({folder})"
        todo = f"create it first (mkdir -p {folder}) or choose another path"
    elif not folder.is_dir():
        problem = f"is inside {folder}, which is a file, not a folder"
        todo = "choose a path inside an existing folder"
    elif not os.access(target if target.exists() else folder, os.W_OK):
        problem = "cannot be written (no write permission)"
        todo = "choose a path in a folder you can write to"
    else:
        return
    raise InputError(f"{option} {path} {problem}: {todo}.", file=str(path))


def write_report(path: str, option: str, text: str) -> None:
    """Write a report, or raise :class:`InputError` naming the path (exit 2)."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(
            f"{option} {path} could not be written ({exc.strerror or exc}): check that its folder exists and is "
            f"writable and that the disk has room, or choose another path with {option}.",
            file=str(path),
        ) from exc


def emit_document(args, document: dict, html_page) -> None:
    """``document`` as JSON to ``--json`` (stdout without it) and, with ``--html``, ``html_page(document)`` there."""
    text = json.dumps(document, indent=2, allow_nan=False, ensure_ascii=False)
    if args.json:
        write_report(args.json, "--json", text + "\n")
    else:
        print(text)
    if args.html:
        write_report(args.html, "--html", html_page(document))


def print_progress(fraction: float, message: str) -> None:
    """One self-overwriting progress line on stderr."""
    print(f"\r{fraction:6.1%}  {message[:70]:70s}", end="", file=sys.stderr, flush=True)
