"""``python -m privcore audit``: the shadow-model membership audit of a generator from the command line.

::

    python -m privcore audit --real R.csv [type flags as in evaluate] --generator NAME|MODULE:ATTR
        [--generator-param KEY=VALUE ...] [--targets 5] [--random-targets 5] [--shadow-models 50]
        [--eval-models 20] [--training-rows M] [--seed 0] [--json OUT.json] [--html OUT.html]
    python -m privcore audit --list-generators

``--generator MODULE:ATTR`` audits your own generator: ATTR is a class or factory (called once per fit, with
the ``--generator-param`` settings as keyword arguments) or an object with ``fit`` and ``sample``
(:mod:`privcore.generators.outside`); MODULE must be importable (on ``PYTHONPATH``).

Exit codes as for ``evaluate``: 0 success, 2 bad input or settings (a reference that cannot be imported or is
no generator included), 1 internal error.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
from pathlib import Path
from typing import Any, Iterable

from privcore.base.errors import InputError
from privcore.cli.args import (EXIT_OK, add_type_flags, check_output_path, checked_seed, emit_document, print_progress,
                               schema_from_args)


def add_audit_parser(sub) -> None:
    """Register the ``audit`` subcommand."""
    au = sub.add_parser("audit", help="shadow-model membership audit of a generator (per-target AUC)")
    au.add_argument("--real", help="the real table: CSV, Parquet or Excel")
    au.add_argument("--demo", metavar="NAME", help="use the real table of a built-in demo scenario instead")
    add_type_flags(au)
    au.add_argument("--generator", metavar="NAME|MODULE:ATTR",
                    help="a built-in generator ('--list-generators' lists them), or your own: MODULE:ATTR names a "
                    "class or factory (called once per fit) or an object with fit and sample")
    au.add_argument("--generator-param", action="append", default=[], metavar="KEY=VALUE",
                    help="a generator setting, e.g. epsilon=1 for dp_marginals; VALUE is read as JSON when it "
                    "parses, else as text; repeatable")
    au.add_argument("--list-generators", action="store_true", help="list the built-in generators and their settings")
    au.add_argument("--targets", type=int, default=5, help="most vulnerable records attacked (default 5)")
    au.add_argument("--random-targets", type=int, default=5, help="random records attacked (default 5)")
    au.add_argument("--shadow-models", type=int, default=50,
                    help="shadow generators per side, with and without the target (default 50)")
    au.add_argument("--eval-models", type=int, default=20, help="evaluation generators, half with the target")
    au.add_argument("--training-rows", type=int, help="rows of each training set (default min(1000, half a split))")
    au.add_argument("--seed", type=int, default=0)
    au.add_argument("--json", metavar="OUT.json", help="write the JSON report here (default: stdout)")
    au.add_argument("--html", metavar="OUT.html", help="also write a self-contained HTML report")
    au.add_argument("--quiet", action="store_true", help="no progress on stderr")


def parse_generator_params(items: Iterable[str]) -> dict[str, Any]:
    """``--generator-param KEY=VALUE`` items as a settings dict (later items win).

    Examples
    --------
    >>> parse_generator_params(["epsilon=1", "bins=20", "name=x"])
    {'epsilon': 1, 'bins': 20, 'name': 'x'}
    """
    out: dict[str, Any] = {}
    for item in items:
        key, equals, text = item.partition("=")
        if not equals or not key.strip():
            raise InputError(f"--generator-param {item!r} is not of the form KEY=VALUE (for example epsilon=1).")
        try:
            out[key.strip()] = json.loads(text)
        except ValueError:
            out[key.strip()] = text
    return out


def list_generators_text() -> str:
    """The built-in generators with their settings, one block each."""
    from privcore.generators import list_generators

    lines = []
    for spec in list_generators():
        lines.append(f"{spec.name:24s} {spec.description}")
        if not spec.installed:
            lines.append(f"{'':26s}not installed: {spec.install}")
        for param in spec.params:
            lines.append(f"{'':26s}{param.name} ({param.describe_range()}; default {param.describe_default()}): "
                         f"{param.help}")
    return "\n".join(lines)


def run_audit(args: argparse.Namespace) -> int:
    """Run ``audit`` (see the module docstring)."""
    from privcore.audit.shadow import AuditSettings, audit
    from privcore.generators import is_reference, make_generator, reference_maker

    if args.list_generators:
        print(list_generators_text())
        return EXIT_OK
    if not args.generator:
        raise InputError("Name the generator to audit with --generator NAME (--list-generators lists them).")
    settings_given = parse_generator_params(args.generator_param)
    checked_seed(args.seed)
    for option in ("json", "html"):
        check_output_path(getattr(args, option), f"--{option}")
    real, overrides, demo_key, demo_sensitive, name = _load_real(args)
    schema = schema_from_args(real, args, overrides, demo_key, demo_sensitive)
    settings = AuditSettings(targets=args.targets, random_targets=args.random_targets,
                             shadow_models=args.shadow_models, eval_models=args.eval_models,
                             training_rows=args.training_rows, seed=args.seed).check()
    key, sensitive = schema.key_columns, schema.sensitive
    if is_reference(args.generator):
        # Imported and checked now (one line and exit 2 when it is not a generator), made once per model.
        make = reference_maker(args.generator, settings_given)
    else:
        def make(population):
            return make_generator(args.generator, population=population, key=key, sensitive=sensitive,
                                  **settings_given)

        make(real.head(50))  # unknown generator or bad settings fail before any work
    progress = None if args.quiet or not sys.stderr.isatty() else print_progress
    label = args.generator + "".join(f" {k}={v}" for k, v in settings_given.items())
    report = audit(real, None, schema, settings=settings, generator_name=label, make=make, progress=progress)
    if progress is not None:
        print(file=sys.stderr)
    emit_document(args, {**report.to_dict(), "real": name, "generator_settings": settings_given}, audit_html)
    return EXIT_OK


def _load_real(args):
    from privcore.data.io import load_table

    if args.demo:
        from privcore import demo

        if args.real:
            raise InputError("Use either --demo or --real, not both.")
        data = demo.load_scenario(args.demo)
        return data.real, dict(data.types), data.key, data.sensitive, f"demo {args.demo}"
    if not args.real:
        raise InputError("Give the real table with --real FILE (or --demo NAME); see --help.")
    return load_table(args.real), {}, None, None, Path(args.real).name


def audit_html(document: dict[str, Any]) -> str:
    """A self-contained HTML page of an audit report (no scripts, no remote assets)."""
    esc = html.escape
    summary = document["summary"]
    rows = []
    for t in document["targets"]:
        interval = t["auc_interval"] or [None, None]
        rows.append("<tr>" + "".join(f"<td>{esc(str(v))}</td>" for v in (
            t["row"], t["chosen"], f"{t['vulnerability']:.3g}", _num(t["auc"]),
            f"{_num(interval[0])} – {_num(interval[1])}", *(_num(t["tpr_at"][k]) for k in ("0", "0.01", "0.1")),
            _num(t["epsilon_lower_bound"]), t["failed_models"])) + "</tr>")
    dcr = summary.get("dcr_test")
    proxy = ("not available" if not dcr else f"{'passes' if dcr['passes'] else 'fails'} (risk {_num(dcr['risk'])})")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Membership audit of {esc(document['generator'])}</title>
<style>body{{font-family:sans-serif;max-width:60rem;margin:2rem auto;color:#000}}
table{{border-collapse:collapse}}td,th{{border:1px solid #bbb;padding:.25rem .5rem;text-align:right}}
th{{background:#eee}}</style></head><body>
<h1>Shadow-model membership audit: {esc(document['generator'])}</h1>
<p><strong>{esc(summary['verdict'])}</strong></p>
<p>Real table: {esc(str(document.get('real', '')))} ({document['splits']['rows']} rows); training sets of
{document['splits']['training_rows']} rows; {document['settings']['shadow_models']} shadow models per side and
{document['settings']['eval_models']} evaluation models per target.</p>
<ul><li>Targets with AUC above 0.6: {_pct(summary['share_auc_above_0.6'])} (by chance alone about
{_pct(summary['chance_share_above_0.6'])})</li>
<li>Targets with AUC above 0.8: {_pct(summary['share_auc_above_0.8'])}</li>
<li>DCR holdout test on one output (the distance proxy): {esc(proxy)}</li></ul>
<table><tr><th>real row</th><th>chosen</th><th>vulnerability</th><th>AUC</th><th>95% interval</th>
<th>TPR at FPR 0</th><th>at 1%</th><th>at 10%</th><th>ε lower bound</th><th>failed models</th></tr>
{''.join(rows)}</table>
<p>AUC 0.5 means the attacker cannot tell whether the person was in the training data; 1 means always.
The ε lower bound: no generator that is ε-differentially private for that person, with ε below it, could let
the attack do this well (95 % confidence).
An audit bounds what this attack finds with this budget, not what every attack could.</p>
</body></html>
"""


def _num(value) -> str:
    return "n/a" if value is None else f"{float(value):.3f}"


def _pct(value) -> str:
    return "n/a" if value is None else f"{float(value):.0%}"
