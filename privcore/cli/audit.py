"""``python -m privcore audit``: the shadow-model membership audit of a generator from the command line.

Usage and options: :func:`privcore.cli.parsers.add_audit_parser`. Exit codes as for ``evaluate``.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
from pathlib import Path
from typing import Any, Iterable

from privcore import demo
from privcore.audit import AuditSettings, GeneratorFactory, SharedSettings, audit, audit_shared
from privcore.base import InputError
from privcore.cli.args import (
    check_output_path,
    checked_seed,
    emit_document,
    print_progress,
    schema_from_args,
)
from privcore.cli.parsers import EXIT_OK
from privcore.data import load_table
from privcore.engine import check_address
from privcore.generators import generator_title, list_generators


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
    """Run ``audit`` (see :func:`~privcore.cli.parsers.add_audit_parser`)."""
    if args.list_generators:
        print(list_generators_text())
        return EXIT_OK
    if not args.generator:
        raise InputError("Name the generator to audit with --generator NAME (--list-generators lists them).")
    settings_given = parse_generator_params(args.generator_param)
    checked_seed(args.seed)
    _check_dask(args)  # a malformed address or a clash with --workers fails before any file is read
    for option in ("json", "html"):
        check_output_path(getattr(args, option), f"--{option}")
    real, overrides, demo_key, demo_sensitive, name = _load_real(args)
    schema = schema_from_args(real, args, overrides, demo_key, demo_sensitive)
    # A picklable factory (the shared design may build generators in worker processes); a MODULE:ATTR is
    # imported and checked now (one line and exit 2 when it is not a generator).
    make = GeneratorFactory(args.generator, settings_given, schema.key_columns, schema.sensitive)
    make(real.head(50))  # unknown generator or bad settings fail before any work
    progress = None if args.quiet or not sys.stderr.isatty() else print_progress
    # The JSON's generator field stays the name and settings as typed (for machines); the answer names it in words.
    label = args.generator + "".join(f" {k}={v}" for k, v in settings_given.items())
    title = generator_title(args.generator, settings_given)
    if args.whitebox == "on" and args.design != "shared":
        raise InputError("--whitebox on attacks the models of the shared design: add --design shared.")
    if args.design == "shared":
        if isinstance(args.workers, bool) or args.workers < 1:
            raise InputError(f"--workers must be a whole number of at least 1; got {args.workers}.")
        shared = SharedSettings(models=args.models, records=args.records, seed=args.seed).check()
        report = audit_shared(real, None, schema, settings=shared, generator_name=label, generator_label=title,
                              make=make, progress=progress, workers=args.workers, cluster=args.dask,
                              whitebox={"auto": None, "on": True, "off": False}[args.whitebox],
                              stronger=args.stronger == "on")
        page = shared_audit_html
    else:
        settings = AuditSettings(targets=args.targets, random_targets=args.random_targets,
                                 shadow_models=args.shadow_models, eval_models=args.eval_models,
                                 training_rows=args.training_rows, seed=args.seed).check()
        report = audit(real, None, schema, settings=settings, generator_name=label, generator_label=title, make=make,
                       progress=progress)
        page = audit_html
    if progress is not None:
        print(file=sys.stderr)
    emit_document(args, {**report.to_dict(), "real": name, "generator_settings": settings_given}, page)
    return EXIT_OK


def _check_dask(args: argparse.Namespace) -> None:
    """Raise :class:`InputError` (exit 2) for a ``--dask`` that the run cannot use."""
    if args.dask is None:
        return
    if args.design != "shared":
        raise InputError("--dask runs the shared design's fits on a cluster: add --design shared.")
    if not isinstance(args.workers, bool) and args.workers > 1:
        raise InputError(f"choose either --dask or --workers {args.workers}, not both (the cluster's workers run "
                         "the fits).")
    check_address(args.dask)


def _load_real(args):
    if args.demo:
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
<html lang="en"><head><meta charset="utf-8"><title>Membership audit of {esc(_title(document))}</title>
<style>body{{font-family:sans-serif;max-width:60rem;margin:2rem auto;color:#000}}
table{{border-collapse:collapse}}td,th{{border:1px solid #bbb;padding:.25rem .5rem;text-align:right}}
th{{background:#eee}}</style></head><body>
<h1>Shadow-model membership audit: {esc(_title(document))}</h1>
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


def shared_audit_html(document: dict[str, Any]) -> str:
    """A self-contained HTML page of a shared-design audit: the summary and the exposed records with their evidence."""
    esc = html.escape
    summary, splits = document["summary"], document["splits"]
    exposed = sorted((r for r in document["records"] if r["why"]), key=lambda r: -r["auc"])
    rows = "".join(
        "<tr>" + "".join(f"<td>{esc(str(v))}</td>" for v in (
            r["row"], _num(r["auc"]), f"{_num(r['auc_interval'][0])} – {_num(r['auc_interval'][1])}",
            _num(r["tpr_at"].get("0.1")), _num(r["epsilon_lower_bound"]), _num(r["nearest_real_distance"]),
            _num(r["nearest_synthetic_distance"]))) + f"<td class=why>{esc(r['why'])}</td></tr>" for r in exposed)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Membership audit of {esc(_title(document))}</title>
<style>body{{font-family:sans-serif;max-width:70rem;margin:2rem auto;color:#000}}
table{{border-collapse:collapse}}td,th{{border:1px solid #bbb;padding:.25rem .5rem;text-align:right}}
td.why{{text-align:left}}th{{background:#eee}}</style></head><body>
<h1>Shared-model membership audit: {esc(_title(document))}</h1>
<p><strong>{esc(summary['verdict'])}</strong></p>
<p>Real table: {esc(str(document.get('real', '')))} ({splits['rows']} rows); {splits['records']} records audited at
once with {splits['models']} generators, each trained on a random half of them ({splits['failed_models']} failed).</p>
<ul><li>Records with AUC above 0.6: {_pct(summary.get('share_auc_above_0.6'))} (by chance alone about
{_pct(summary.get('chance_share_above_0.6'))})</li>
<li>Records with a 95 % interval above 0.5: {_pct(summary.get('share_interval_above_0.5'))} (by chance alone about
{_pct(summary.get('chance_share_interval_above_0.5'))})</li>
<li>Largest ε lower bound: {_num(summary.get('max_epsilon_lower_bound'))}</li></ul>
{_stronger_html(summary, document.get("stronger"))}{_per_model_html(document)}{_whitebox_html(document.get("whitebox"))}<h2>Exposed records ({len(exposed)})</h2>
<table><tr><th>real row</th><th>AUC</th><th>95% interval</th><th>TPR at FPR 10%</th><th>ε lower bound</th>
<th>nearest real</th><th>nearest synthetic</th><th>why</th></tr>
{rows}</table>
<p>AUC 0.5 means the attacker cannot tell whether the person was in the training data; 1 means always.
An audit bounds what this attack finds with this budget, not what every attack could.</p>
</body></html>
"""


def _stronger_html(summary: dict[str, Any], stronger: dict[str, Any] | None) -> str:
    """The stronger black-box attacks beside today's, one line each with its chance share (empty when not run)."""
    if not stronger:
        return ""
    esc = html.escape
    lines = [("Today's attack (each record's best feature; the verdict's)", summary)]
    lines += [(stronger["attacks"][name], stronger["summary"][name]) for name in ("rmia", "meta")]
    rows = "".join("<tr>" + f"<td class=why>{esc(label)}</td>" + "".join(f"<td>{v}</td>" for v in (
        _pct(s.get("share_interval_above_0.5")), _pct(s.get("chance_share_interval_above_0.5")),
        _pct(s.get("share_auc_above_0.6")), _pct(s.get("chance_share_above_0.6")), _num(s.get("mean_auc"))))
        + "</tr>" for label, s in lines)
    return f"""<h2>Stronger black-box attacks, beside today's</h2>
<p>The same synthetic outputs, the same models, each attack cross-fitted over them; the verdict above stays today's
attack's, so that no share is compared with chance twice.</p>
<table><tr><th>attack</th><th>interval above 0.5</th><th>by chance</th><th>AUC above 0.6</th><th>by chance</th>
<th>mean AUC</th></tr>
{rows}</table>
"""


def _per_model_html(document: dict[str, Any]) -> str:
    """Each attack read per trained model: its TPR at FPR 0 over the models, and its median AUC.

    The median and range of its TPR at FPR 0 over the models, beside what chance gives, and its median AUC (empty for a
    document without the per-model reading).
    """
    stronger = document.get("stronger") or {}
    white = document.get("whitebox")
    attacks = [("Today's attack (the verdict's)", document.get("per_model"))]
    attacks += [((stronger.get("attacks") or {}).get(name, name), (stronger.get("per_model") or {}).get(name))
                for name in ("rmia", "meta")]
    attacks.append(("White box: the model's loss", white and {"summary": white["summary"]}))
    rows = ""
    for label, entry in attacks:
        if not entry:
            continue
        s = entry["summary"]
        tpr, chance = s["tpr_at_fpr_0"], (s.get("chance") or {}).get("tpr_at_fpr_0") or {}
        rows += (f"<tr><td class=why>{html.escape(label)}</td><td>{_pct(tpr['median'])}</td>"
                 f"<td>{_pct(tpr['min'])} to {_pct(tpr['max'])}</td><td>{_pct(chance.get('median'))}</td>"
                 f"<td>{_num(s['auc']['median'])}</td></tr>")
    if not rows:
        return ""
    return f"""<h2>Per trained model</h2>
<p>Each trained model is a target: its members among the audited records against its non-members. TPR at FPR 0 is
the share of members an attack names without wrongly naming one non-member.</p>
<table><tr><th>attack</th><th>TPR at FPR 0, median</th><th>range over the models</th><th>by chance</th>
<th>AUC, median</th></tr>
{rows}</table>
"""


def _whitebox_html(white: dict[str, Any] | None) -> str:
    """The white-box attack's section of the shared audit's page (empty without the attack).

    The threat model, the rates over the models and one line per model.
    """
    if not white:
        return ""
    esc, s = html.escape, white["summary"]
    tpr, auc = s["tpr_at_fpr_0"], s["auc"]
    chance = (s.get("chance") or {}).get("tpr_at_fpr_0", {}).get("median")
    rows = "".join("<tr>" + "".join(f"<td>{esc(str(v))}</td>" for v in (
        m["model"], m["members"], m["non_members"], _num(m["auc"]), _pct(m["tpr_at"].get("0")),
        _pct(m["tpr_at"].get("0.001")), _pct(m["tpr_at"].get("0.01")))) + "</tr>" for m in white["models"])
    return f"""<h2>White-box attack: the model's loss</h2>
<p><em>{esc(white['threat_model'])}</em></p>
<ul><li>TPR at FPR 0 (members picked out without one false accusation), median over {s['models_scored']} models:
{_pct(tpr['median'])} (from {_pct(tpr['min'])} to {_pct(tpr['max'])}; by chance alone about {_pct(chance)})</li>
<li>AUC over each model's members and non-members, median: {_num(auc['median'])}</li></ul>
<table><tr><th>model</th><th>members</th><th>non-members</th><th>AUC</th><th>TPR at FPR 0</th><th>at 0.1%</th>
<th>at 1%</th></tr>
{rows}</table>
"""


def _title(document: dict[str, Any]) -> str:
    """The generator in words (the document's ``generator_label``), or its name in a document without one."""
    return document.get("generator_label") or document["generator"]


def _num(value) -> str:
    return "n/a" if value is None else f"{float(value):.3f}"


def _pct(value) -> str:
    return "n/a" if value is None else f"{float(value):.0%}"
