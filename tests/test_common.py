"""Checks every registered metric and generator must pass, run over each of them.

A new metric or generator gets these for free: a missing declaration (its display order, its measured cost, a
text of its explanation) or a setting whose declared range is not enforced fails here, by name.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from privcore.audit import AuditError, AuditSettings, SharedSettings
from privcore.data.params import Param, ParamError, check_value
from privcore.evaluation.evaluate import EVALUATE_PARAMS
from privcore.generators import list_generators
from privcore.generators.copies import ExactCopy
from privcore.generators.tabddpm import TabDDPM
from privcore.lab.settings import LAB_PARAMS
from privcore.metrics import registry

METRICS = registry.all_metrics()
GENERATORS = [g for g in list_generators()]
#: The default of :attr:`MetricInfo.order`: a metric left there has no place in the listing.
UNPLACED = registry.MetricInfo.__dataclass_fields__["order"].default


def declaration_problems(info: registry.MetricInfo) -> list[str]:
    """What ``info`` fails to declare, one sentence each (empty when its declaration is complete)."""
    problems = []
    if info.order == UNPLACED:
        problems.append("no display order (order=)")
    elif [m.id for m in METRICS if m.order == info.order and m.id != info.id]:
        problems.append(f"display order {info.order} shared with another metric")
    if info.cost is None:
        problems.append("no measured cost (cost=(seconds at REFERENCE_ROWS, exponent))")
    elif not (len(info.cost) == 2 and all(isinstance(x, float) and x > 0 for x in info.cost)):
        problems.append(f"cost {info.cost!r} is not two positive numbers")
    texts = {"name": info.name, "summary": info.summary, "attacker_knows": info.attacker_knows,
             "reference": info.reference, "raw_meaning": info.raw_meaning, "explanation.attack": info.explanation.attack,
             "explanation.high": info.explanation.high, "explanation.low": info.explanation.low,
             "explanation.blind_spots": info.explanation.blind_spots}
    problems += [f"empty text {name}" for name, text in texts.items() if not (text and text.strip())]
    if not 2 <= len(info.explanation.steps) <= 4:
        problems.append("the attack is not told in 2-4 steps")
    if info.per_record_unit not in ("real", "synthetic", "none"):
        problems.append(f"per_record_unit {info.per_record_unit!r}")
    for name in ("reference_level", "threshold"):
        value = getattr(info, name)
        if value is not None and not 0 <= value <= 1:
            problems.append(f"{name} {value} outside [0, 1]")
    if info.thread and not info.one_thread_blas:
        problems.append("may run beside a background thread but does not say its BLAS runs on one thread")
    if info.scorer is not None and not callable(getattr(info.scorer, "score", None)):
        problems.append("a scorer without a score function")
    return problems


def out_of_range(param: Param):
    """A value just outside ``param``'s declared range, or None where the range has no bound."""
    if param.kind not in ("int", "float", "numbers"):
        return None
    step = 1 if param.kind == "int" else max(abs(param.minimum or param.maximum or 1) * 0.5, 0.5)
    if param.minimum is not None:
        value = param.minimum - step
    elif param.maximum is not None:
        value = param.maximum + step
    else:
        return None
    return [value] if param.kind == "numbers" else value


def range_words(param: Param) -> str:
    """The part of the refusal that states the declared range."""
    low, high = param.minimum, param.maximum
    number = (lambda x: f"{x:g}" if isinstance(x, float) else str(x))
    if param.kind == "numbers":
        if low is not None and high is not None:
            return f"from {number(low)} to {number(high)}"
        return f"≥ {number(low)}" if low is not None else "number"
    if low is not None and high is not None:
        return f"between {number(low)} and {number(high)}"
    return f"at least {number(low)}" if low is not None else "number"


@pytest.mark.parametrize("info", METRICS, ids=lambda m: m.id)
def test_every_metric_declares_what_the_tool_reads(info):
    assert declaration_problems(info) == [], f"{info.id}: {declaration_problems(info)}"


def test_a_metric_that_misses_a_declaration_fails_the_check():
    crp = registry.get("crp")
    bare = dataclasses.replace(crp, order=UNPLACED, cost=None, explanation=dataclasses.replace(
        crp.explanation, blind_spots=" "))
    problems = declaration_problems(bare)
    assert any("display order" in p for p in problems)
    assert any("measured cost" in p for p in problems)
    assert "empty text explanation.blind_spots" in problems
    assert any("shared with" in p for p in declaration_problems(dataclasses.replace(crp, order=registry.get("gcap").order)))


NEW_METRIC = textwrap.dedent('''
    """A metric added as one new module: nothing else in the package is edited."""

    import dataclasses

    from privcore.metrics.registry import get, register


    def compute(ctx):
        return get("crp").compute(ctx)  # a new metric's own formula would go here


    register(dataclasses.replace(get("crp"), id="new_metric", name="A new metric (NEW)", order=999_990,
                                 cost=(0.01, 1.0), compute=compute))
''')


def test_a_new_metric_module_registers_without_any_list_to_edit(tmp_path):
    # CONTRIBUTING.md's promise: one new module (plus its tests) is the whole change. In a copy of the package, a
    # module dropped into privcore/metrics/ is listed, placed by its order, and evaluated.
    root = Path(__file__).resolve().parents[1]
    shutil.copytree(root / "privcore", tmp_path / "privcore",
                    ignore=lambda folder, names: {n for n in names if n == "__pycache__"})
    (tmp_path / "privcore" / "metrics" / "new_metric.py").write_text(NEW_METRIC)
    code = ("from privcore import Schema, evaluate\n"
            "from privcore.demo import load_scenario\n"
            "from privcore.metrics import registry\n"
            "assert registry.metric_ids()[-1] == 'new_metric', registry.metric_ids()\n"
            "d = load_scenario('noisy_copy', n=60)\n"
            "report = evaluate(d.real, d.synthetic, Schema(types=dict(d.types)), metrics=['new_metric', 'crp'])\n"
            "print(report['new_metric'].risk == report['crp'].risk, report['new_metric'].applicable)\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


def _params():
    for info in METRICS:
        for param in info.params:
            yield pytest.param(info.id, param, id=f"{info.id}.{param.name}")
    for spec in GENERATORS:
        for param in spec.params:
            yield pytest.param(spec.name, param, id=f"{spec.name}.{param.name}")
    # Settings the classes declare beyond what the registry offers (TabDDPM's schedule and device, ExactCopy's rule).
    for cls in (TabDDPM, ExactCopy):
        for param in cls.PARAMS:
            yield pytest.param(cls.name, param, id=f"{cls.name}.class.{param.name}")
    for owner, params in (("lab", LAB_PARAMS), ("evaluate", EVALUATE_PARAMS)):
        for param in params:
            yield pytest.param(owner, param, id=f"{owner}.{param.name}")


@pytest.mark.parametrize("owner, param", list(_params()))
def test_every_setting_takes_its_default_and_refuses_a_value_out_of_its_range(owner, param):
    default = param.default_for(None)
    if default is not None and param.kind in ("int", "float", "numbers"):
        assert check_value(owner, param, default) == (sorted(set(map(float, default))) if param.kind == "numbers"
                                                      else default)
    if param.kind == "choice":
        assert check_value(owner, param, param.default) == param.default
        with pytest.raises(ParamError, match=rf"must be one of {', '.join(param.choices)}; got 'none of them'"):
            check_value(owner, param, "none of them")
        return
    bad = out_of_range(param)
    if bad is None:
        return
    with pytest.raises(ParamError) as refused:
        check_value(owner, param, bad)
    message = str(refused.value)
    assert message.startswith(f"{param.label} ({owner}.{param.name})"), message
    assert range_words(param) in message, message
    if param.kind == "int":
        with pytest.raises(ParamError, match="whole number"):
            check_value(owner, param, (param.minimum if param.minimum is not None else 0) + 0.5)


def _budgets():
    for design in (AuditSettings, SharedSettings):
        for param in design.PARAMS:
            yield pytest.param(design, param, id=f"{design.__name__}.{param.name}")


@pytest.mark.parametrize("design, param", list(_budgets()))
def test_every_audit_budget_setting_is_checked_against_its_declaration(design, param):
    # The budget's defaults are its declarations' defaults, and the audit refuses a value outside the declared
    # range with the declared sentence (the Audit page builds its inputs from the same declarations).
    assert getattr(design(), param.name) == param.default
    bad = out_of_range(param)
    with pytest.raises(AuditError) as refused:
        design(**{param.name: bad}).check()
    message = str(refused.value)
    assert message.startswith(f"{param.label} (audit.{param.name})") and range_words(param) in message, message


@pytest.mark.parametrize("spec", GENERATORS, ids=lambda g: g.name)
def test_every_generator_names_its_settings_once(spec):
    names = [p.name for p in spec.params]
    assert len(names) == len(set(names)), spec.name
    assert spec.label and spec.description.strip(), spec.name
