"""The Audit page's logic: generator choice and settings, the budget, the cached run, the result's tables.

No Streamlit import, so the page (``pages/6_Audit.py``) stays short and this logic is tested on its own. The
audit is :func:`privcore.audit.targeted.audit`; its figure :func:`privcore.report.audit_figures.audit_figure`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from dataclasses import asdict
from typing import Any, Callable, Mapping, MutableMapping, Sequence

import pandas as pd

from dashboard import compute, jobs
from dashboard.generator_factory import generator_context
from dashboard.metric_choice import number_format
from privcore.audit import ATTACKER_KNOWS, EXPLANATION, FPR_LEVELS, AuditReport, AuditSettings
from privcore.base import InputError
from privcore.data import Param, Schema
from privcore.evaluation import audit_severity as severity
from privcore.generators import (
    GeneratorContextError,
    GeneratorError,
    GeneratorSpec,
    get_generator_spec,
    list_generators,
    make_generator,
)

LOGGER = logging.getLogger(__name__)

RESULTS = "audit_results"
#: The generator the page opens on: a real synthesizer, so that the first audit teaches something (the exact copy's
#: answer is known before it runs). With the page's default budget (the shared design, 64 models on at most 1,000
#: records) its audit of the demo's 3,000 rows took 17 s in one process on a 2-core machine.
DEFAULT_GENERATOR = "privbayes"
#: Audits kept per session.
MAX_CACHED_AUDITS = 3

#: The budget inputs of the targeted design: privcore's own declarations (the same widgets, ranges and checks).
BUDGET: tuple[Param, ...] = tuple(AuditSettings.param(name) for name in
                                  ("targets", "random_targets", "shadow_models", "eval_models", "seed"))


# ------------------------------------------------------------------------------------------ widgets


def widget_key(*parts: str) -> str:
    """The session-state key of an Audit page widget."""
    return "audit::" + "::".join(parts)


def number_input_args(param: Param) -> dict[str, Any]:
    """``st.number_input`` arguments of an ``int`` or ``float`` declaration: bounds, step and format.

    A float without a declared step steps by a tenth of its default's order of magnitude (a twentieth of
    its range when it has no default), and is shown with as many decimals as it needs.

    Examples
    --------
    >>> number_input_args(Param("bins", "int", 20, "Bins", "…", minimum=2, maximum=1000))
    {'min_value': 2, 'max_value': 1000, 'step': 1, 'format': None}
    >>> number_input_args(Param("epsilon", "float", 1.0, "ε", "…", minimum=1e-6))
    {'min_value': 1e-06, 'max_value': None, 'step': 0.1, 'format': '%g'}
    """
    if param.kind == "int":
        bounds = (None if b is None else int(b) for b in (param.minimum, param.maximum))
        return dict(zip(("min_value", "max_value"), bounds), step=int(param.step or 1), format=None)
    step = param.step
    if step is None and isinstance(param.default, (int, float)) and param.default:
        step = 10.0 ** math.floor(math.log10(abs(param.default))) / 10
    if step is None and param.minimum is not None and param.maximum is not None:
        step = (param.maximum - param.minimum) / 20
    step = float(step or 0.1)
    return {"min_value": None if param.minimum is None else float(param.minimum),
            "max_value": None if param.maximum is None else float(param.maximum), "step": step,
            "format": number_format(param) if param.step is not None else "%g"}


def param_help(param: Param) -> str:
    """A widget's help: what the setting changes, its range and its default."""
    return f"{param.help} {param.describe_range().capitalize()}; default {param.describe_default()}."


# ----------------------------------------------------------------------------------------- generators


def generator_choices(schema: Schema, real: pd.DataFrame) -> tuple[dict[str, GeneratorSpec], dict[str, str]]:
    """The generators to offer on this data, and for the others why not.

    Offered: every generator of :func:`privcore.generators.list_generators` (built-ins, SDV's, those the
    server admin registered in ``PRIVCORE_GENERATORS``). One whose extra is not installed is offered too,
    so that the page shows it with its install command (:func:`generator_problem` says it and the run stays
    disabled). The others are built once with their defaults and the context the audit gives them (the real
    table standing in for the auxiliary data as its population; the schema's key and sensitive column): one
    that cannot be built here (``attribute_leak`` without a sensitive column, a registered module that does
    not import) is left out with its reason.
    """
    available: dict[str, GeneratorSpec] = {}
    unavailable: dict[str, str] = {}
    for spec in list_generators():
        if not spec.installed:
            available[spec.name] = spec
            continue
        try:
            make_generator(spec.name, population=real, **generator_context(schema))
        except GeneratorContextError as error:
            if schema.sensitive is None and "sensitive" in spec.context:
                unavailable[spec.name] = "needs a sensitive column: choose one on the Configure page."
            else:
                unavailable[spec.name] = str(error)
            continue
        except GeneratorError as error:  # a registered generator whose module fails, for example
            unavailable[spec.name] = str(error)
            continue
        available[spec.name] = spec
    return available, unavailable


def default_generator_index(names: Sequence[str]) -> int:
    """Where the generator list starts: at :data:`DEFAULT_GENERATOR`, or at the first one when it is not offered.

    >>> default_generator_index(["exact_copy", "fresh_sample", "privbayes"]), default_generator_index(["exact_copy"])
    (2, 0)
    """
    names = list(names)
    return names.index(DEFAULT_GENERATOR) if DEFAULT_GENERATOR in names else 0


def choice_label(spec: GeneratorSpec) -> str:
    """How the generator list shows a generator: its name in words, and "not installed" when its extra is missing.

    >>> from privcore.generators import get_generator_spec
    >>> choice_label(get_generator_spec("exact_copy"))
    'Exact copy (worst case)'
    """
    return spec.label if spec.installed else f"{spec.label} (not installed)"


def not_installed(spec: GeneratorSpec) -> str | None:
    """For a generator whose extra is missing, the sentence with the one command that installs it; else None."""
    if spec.installed:
        return None
    return f"{spec.label} is not installed on this server. To offer it, install it with: {spec.install}"


def changed_settings(spec: GeneratorSpec, values: Mapping[str, Any]) -> dict[str, Any]:
    """The settings to pass: the values given that are set and differ from the declared default.

    A setting left at its default is not passed, so ``dp_marginals``' ε at its default does not clash with
    a leak strength that is set.

    >>> from privcore.generators import get_generator_spec
    >>> changed_settings(get_generator_spec("dp_marginals"), {"epsilon": 1.0, "level": 0.5, "bins": 20})
    {'level': 0.5}
    """
    out = {}
    for param in spec.params:
        value = values.get(param.name)
        if value is None or (param.default is not None and value == param.default):
            continue
        out[param.name] = value
    return out


def generator_problem(name: str, settings: Mapping[str, Any], schema: Schema, real: pd.DataFrame) -> str | None:
    """The named error a generator's settings give, the install command of a missing extra, or None.

    A named error is a value out of range or two values that exclude each other; the install command is for a generator
    whose extra is missing.
    """
    missing = not_installed(get_generator_spec(name))
    if missing:
        return missing
    try:
        make_generator(name, population=real, **generator_context(schema), **settings)
    except GeneratorError as error:
        return str(error)
    return None


# ---------------------------------------------------------------------------------------------- budget


def budget(values: Mapping[str, Any]) -> tuple[AuditSettings | None, str | None]:
    """:class:`~privcore.audit.targeted.AuditSettings` from the budget inputs, checked; or None and the named error.

    >>> budget({"targets": 0, "random_targets": 0, "shadow_models": 4, "eval_models": 4, "seed": 0})[1]
    'The audit needs at least one target: set targets or random_targets above 0.'
    """
    try:
        return AuditSettings(**{p.name: values.get(p.name, p.default) for p in BUDGET}).check(), None
    except InputError as error:
        return None, str(error)


# ------------------------------------------------------------------------------------------------ runs


def audit_key(content_hash: str, schema: Schema, name: str, settings: Mapping[str, Any],
              budget_settings: AuditSettings) -> str:
    """Cache key of one audit: the real table's content hash, the schema, the generator and every setting."""
    parts = json.dumps([content_hash, schema.to_dict(), name, dict(settings), asdict(budget_settings)],
                       sort_keys=True, default=str)
    return hashlib.sha256(parts.encode()).hexdigest()[:16]


def cached(state: Mapping, key: str) -> AuditReport | None:
    """The report of this audit when it was run in this session."""
    return (state.get(RESULTS) or {}).get(key)


def store(state: MutableMapping, key: str, report: AuditReport) -> None:
    """Keep ``report`` under ``key``, dropping the oldest audits beyond :data:`MAX_CACHED_AUDITS`.

    Notes
    -----
    Session-state key used here besides the contract of :mod:`dashboard.session.state`: ``audit_results``, audit key
    (:func:`audit_key`) → :class:`privcore.audit.targeted.AuditReport`, the most recent :data:`MAX_CACHED_AUDITS`
    only; in the session's memory, never written to disk. (The page's widgets keep their values across
    page switches themselves, with ``persist_state="session"``.)
    """
    results = state.setdefault(RESULTS, {})
    results.pop(key, None)
    results[key] = report
    while len(results) > MAX_CACHED_AUDITS:
        results.pop(next(iter(results)))


def throttled(update: Callable[[float, str], None], steps: int = 100) -> Callable[[float, str], None]:
    """``update`` called only when the fraction reaches another of ``steps`` steps.

    That is about ``steps`` messages to the browser at most, however many models an audit trains.

    >>> seen = []
    >>> tick = throttled(lambda f, m: seen.append(f), steps=4)
    >>> for i in range(1, 9): tick(i / 8, "")
    >>> seen
    [0.125, 0.25, 0.5, 0.75, 1.0]
    """
    last = [-1]

    def tick(fraction: float, message: str) -> None:
        step = int(min(max(fraction, 0.0), 1.0) * steps)
        if step != last[0]:
            last[0] = step
            update(min(max(float(fraction), 0.0), 1.0), message)

    return tick


def run_audit(real: pd.DataFrame, schema: Schema, name: str, settings: Mapping[str, Any],
              budget_settings: AuditSettings,
              progress: Callable[[float, str], None] | None = None) -> tuple[AuditReport | None, str | None]:
    """Run the audit; ``(report, None)``, or ``(None, message)`` for the user (never a traceback).

    Named input errors (too few rows, a generator that fails on every model…) keep their message; any
    other failure goes to the server log and the user gets a short sentence.
    """
    try:
        # In a worker process (dashboard.compute): other sessions stay responsive during a long audit.
        report = compute.run_job(jobs.audit_generator, real, schema, name, dict(settings), budget_settings,
                                 progress=progress)
    except InputError as error:
        return None, str(error)
    except MemoryError:
        return None, "The audit needs more memory than this machine has. Try fewer targets or models."
    except Exception:  # noqa: BLE001 - a bug must not show a traceback to users; it goes to the server log
        LOGGER.exception("audit failed")
        return None, ("The audit stopped because of an internal error. Please report it with your settings (the "
                      "server log has the details).")
    return report, None


# --------------------------------------------------------------------------------------------- results


def explanation_markdown(write: Callable[[str], Any]) -> None:
    """Write the audit's explanation (:data:`privcore.audit.targeted.EXPLANATION`) as the metrics' panels do."""
    e = EXPLANATION
    write(f"**The attack.** {e.attack}")
    write(f"**What the attacker is assumed to know.** {ATTACKER_KNOWS}")
    write("\n".join(f"{i}. {step}" for i, step in enumerate(e.steps, start=1)))
    write(f"**High AUC:** {e.high}  \n**Low AUC:** {e.low}")
    write(f"**Blind spots.** {e.blind_spots}")
    write(f"**Note.** {e.note}")


def verdict_level(summary: Mapping[str, Any]) -> str:
    """How to show the verdict: ``"error"``, ``"warning"`` or ``"success"``.

    ``"error"`` when a target is clearly exposed, ``"warning"`` when one is suspect or there was no attack at all, and
    ``"success"`` when no target stood out; from :func:`privcore.evaluation.verdict.audit_severity`.

    >>> verdict_level({"share_auc_above_0.8": 0.0, "share_auc_above_0.6": 0.2, "chance_share_above_0.6": 0.22})
    'success'
    """
    return {"exposed": "error", "suspect": "warning", "unknown": "warning", "none": "success"}[severity(summary)]


def _share(x: float | None) -> str:
    return "—" if x is None else f"{x:.0%}"


def summary_numbers(summary: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The summary's numbers as (label, value, help) for the page's metric tiles."""
    chance = summary.get("chance_share_above_0.6")
    mean = summary.get("mean_auc") or {}
    fmt = lambda x: "—" if x is None else f"{x:.2f}"  # noqa: E731
    return [
        ("Targets with AUC above 0.6", _share(summary.get("share_auc_above_0.6")),
         f"Share of the targets whose membership the attack tells better than AUC 0.6. An attack that guesses at "
         f"random gets there for about {_share(chance)} of them with this many evaluation models."),
        ("Targets with AUC above 0.8", _share(summary.get("share_auc_above_0.8")),
         "Share of the targets whose membership the attack tells with AUC above 0.8: clearly exposed."),
        ("Mean AUC, most vulnerable", fmt(mean.get("vulnerable")),
         "Average AUC over the targets chosen for their unusual records."),
        ("Mean AUC, random targets", fmt(mean.get("random")),
         "Average AUC over the targets drawn at random: the typical person."),
    ]


def proxy_and_attack(summary: Mapping[str, Any]) -> tuple[str, str]:
    """What the DCR proxy says and what the attack says, one sentence each, to show side by side."""
    dcr = summary.get("dcr_test")
    if not dcr:
        proxy = "The DCR test could not be run on an output of this generator."
    elif dcr.get("passes"):
        proxy = "**Passes.** The synthetic rows are no closer to their training rows than real people outside " \
                "the training data are"
    else:
        proxy = "**Fails.** The synthetic rows sit closer to their training rows than real people outside the " \
                "training data do"
    if dcr:
        proxy += (f" (5th percentile of the distance to the closest training row: {dcr['p_synthetic']:.3g} for "
                  f"synthetic rows, {dcr['p_holdout']:.3g} for the others).")
    share6, share8 = summary.get("share_auc_above_0.6"), summary.get("share_auc_above_0.8")
    chance = summary.get("chance_share_above_0.6") or 0.0
    if share6 is None:
        attack = "No attack could be trained and evaluated."
    else:
        level = verdict_level(summary)
        word = {"error": "**Leaks.**", "warning": "**Leaks for some.**", "success": "**No leak found.**"}[level]
        attack = (f"{word} {_share(share6)} of the targets give the attack an AUC above 0.6 (chance alone: about "
                  f"{_share(chance)}); {_share(share8)} above 0.8.")
    return proxy, attack


def _interval(pair: Any) -> str:
    return "—" if pair is None else f"{pair[0]:.2f} – {pair[1]:.2f}"


def targets_frame(report: AuditReport) -> pd.DataFrame:
    """One line per target, with its real row, numbers and model counts.

    Each line gives the real row, how it was chosen, the vulnerability, the AUC with its interval, the TPR at each FPR
    level, the ε the attack rules out, and the model counts.
    """
    lines = []
    for t in report.targets:
        line = {"real row": int(t.row), "chosen": t.chosen, "vulnerability": round(t.vulnerability, 4),
                "AUC": None if t.auc is None else round(t.auc, 3), "AUC 95% interval": _interval(t.auc_interval)}
        for key, level in FPR_LEVELS.items():
            tpr = t.tpr_at.get(key)
            line[f"TPR at FPR {level:.0%}"] = None if tpr is None else round(tpr, 3)
        bound = getattr(t, "epsilon_lower_bound", None)
        line["ε lower bound"] = None if bound is None else round(bound, 2)
        line["models (shadow/eval/failed)"] = f"{t.shadow_models} / {t.eval_models} / {t.failed_models}"
        lines.append(line)
    return pd.DataFrame(lines)


def target_order(report: AuditReport) -> list[int]:
    """Indices of the targets, the most exposed first (highest AUC, then most vulnerable)."""
    def exposure(i: int) -> tuple[float, float]:
        t = report.targets[i]
        return -(t.auc if t.auc is not None else -1.0), -t.vulnerability

    return sorted(range(len(report.targets)), key=exposure)


def target_label(report: AuditReport, index: int) -> str:
    """``"real row 1234 · most vulnerable · AUC 0.97"``."""
    t = report.targets[index]
    how = "most vulnerable" if t.chosen == "vulnerable" else "random"
    auc = "no AUC" if t.auc is None else f"AUC {t.auc:.2f}"
    return f"real row {int(t.row)} · {how} · {auc}"


def report_json(report: AuditReport) -> str:
    """The JSON download: :meth:`privcore.audit.targeted.AuditReport.to_dict`, indented."""
    return json.dumps(report.to_dict(), indent=2)
