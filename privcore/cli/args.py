"""What the sub-commands share when they run.

``--param``, the schema of the type and role options, ``--seed``, ``--workers`` and ``--device`` checked ahead of
reading any table, the report paths and the progress line. Only a running sub-command imports it (not ``--help``), so it
imports what it needs at its top; exit codes, parser class and options are in :mod:`privcore.cli.parsers`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Iterable

from privcore.base import InputError
from privcore.cli.parsers import EXIT_INTERNAL, EXIT_OK
from privcore.data import COLUMN_KINDS, check_seed, check_value, infer_schema
from privcore.engine import check_device, require_gpu
from privcore.evaluation.verdict import verdict
from privcore.metrics import registry


def split_list(value: str | None) -> list[str]:
    """A comma-separated option as a list of its non-empty, stripped items."""
    return [] if not value else [v.strip() for v in value.split(",") if v.strip()]


def param_value(text: str) -> Any:
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
            value = check_value(metric_id, declared[name], param_value(text))
        except InputError as exc:
            raise InputError(f"--param {item!r}: {exc}") from None
        out.setdefault(metric_id, {})[name] = value
    return out


def schema_from_args(real, args, overrides: dict, demo_key=None, demo_sensitive=None):
    """The schema the type and role options describe (columns not named are inferred)."""
    overrides = dict(overrides)
    given: dict[str, str] = {}
    for kind in COLUMN_KINDS:
        for col in split_list(getattr(args, kind, None)):
            if given.get(col, kind) != kind:
                # Which flag should win is not for us to guess: a message's advice ("declare it categorical")
                # is followed by changing the column's one type, and this says so.
                raise InputError(f"Column '{col}' is given two types, --{given[col]} and --{kind}: keep the one "
                                 f"you mean and take '{col}' out of the other.", column=col)
            given[col] = overrides[col] = kind
    sensitive = args.sensitive or demo_sensitive
    key = split_list(args.key) or demo_key
    if key and sensitive in key and args.sensitive:
        key = [c for c in key if c != sensitive]
    return infer_schema(real, sensitive=sensitive, key=key or None, pairing=getattr(args, "pairing", None),
                        overrides=overrides, exclude=split_list(args.exclude), missing=args.missing, seed=args.seed)


def checked_seed(seed: int) -> int:
    """``--seed`` validated (exit 2 with the rule)."""
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


def check_output_path(path: str | None, option: str) -> None:
    """Raise :class:`InputError` unless a report can be written to ``path`` (``None``: nothing to check).

    The folder must exist and be writable and the path must not be a folder, so that a typo in
    ``--json``/``--html`` is reported ahead of the evaluation rather than after it.
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


def deliver_report(report, args, title: str, notes: list[str]) -> int:
    """Write the report (``--json``, stdout, ``--html``), say ``notes`` on stderr, and return the exit code.

    ``EXIT_OK``, or ``EXIT_INTERNAL`` when a metric stopped on an internal error.
    """
    answer = verdict(report)
    if answer.failed:  # the first line said, ahead of the report: an answer that rests on what failed is no answer
        print(f"privcore: {answer.headline}", file=sys.stderr)
    text = report.to_json()
    if args.json:
        write_report(args.json, "--json", text + "\n")
    else:
        print(text)
    if args.html:
        from privcore.report import html_report  # lazy: heavy, Plotly only for --html

        write_report(args.html, "--html", html_report({title: report}))
    if not args.quiet:  # every uploaded column said: analysed, checked or left out, and why
        for line in notes:
            print(line, file=sys.stderr)
    if report.errors:
        for error in report.errors:
            print(f"internal error in {error.splitlines()[0]}", file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_OK
