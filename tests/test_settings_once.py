"""Every setting of a generator, the lab and ``evaluate`` is declared once (a Param) and checked by one function.

A built-in generator made directly refuses an out-of-range setting with the same sentence as ``make_generator``;
``evaluate`` and the lab refuse theirs with the declared sentence; and no module of the generators, the lab or the
evaluation writes a range check of its own, except the few rules listed below with their reason.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from privcore.data.params import Param, ParamError, check_settings
from privcore.evaluation.evaluate import EVALUATE_PARAMS, evaluate
from privcore.generators import (
    AttributeLeak,
    ColumnResample,
    DPMarginals,
    GeneratorSettingError,
    IndependentHistograms,
    NoisyCopy,
    PartialCopy,
    PrivBayes,
    RareLeak,
    RareRecords,
    SequentialCART,
    ValueReuse,
    get_generator_spec,
    level_to_epsilon,
    make_generator,
)
from privcore.generators.registry import GENERATOR_SPECS
from privcore.generators.spec import module_installed
from privcore.lab import LabError
from privcore.lab.runs import lab_workers
from privcore.lab.settings import LAB_PARAMS, check_margin, check_seeds

ROOT = Path(__file__).resolve().parents[1]
POPULATION = pd.DataFrame({"age": [30, 41, 52, 63], "job": ["a", "b", "a", "c"]})


def _tabddpm(**settings):
    from privcore.generators.tabddpm import TabDDPM

    return TabDDPM(**settings)


#: Each built-in generator with settings, made directly (not through the registry) from one setting.
DIRECT = {
    "independent_histograms": lambda **s: IndependentHistograms(**s),
    "dp_marginals": lambda level=None, **s: DPMarginals(**s) if level is None else level_to_epsilon(level),
    "rare_leak": lambda **s: RareLeak(**s),
    "partial_copy": lambda **s: PartialCopy(population=POPULATION, **s),
    "noisy_copy": lambda level: NoisyCopy.at_level(level),
    "rare_records": lambda **s: RareRecords(population=POPULATION, **s),
    "attribute_leak": lambda **s: AttributeLeak(population=POPULATION, **s),
    "value_reuse": lambda **s: ValueReuse(population=POPULATION, **s),
    "column_resample": lambda **s: ColumnResample(population=POPULATION, **s),
    "privbayes": lambda **s: PrivBayes(**s),
    "cart": lambda **s: SequentialCART(**s),
    "tabddpm": _tabddpm,
}
#: Registry settings with no constructor argument of the same name (the registry maps them).
REGISTRY_ONLY = {("tabddpm", "gpu")}  # gpu = 0/1 becomes the constructor's device "cpu"/"cuda"


def _bad_values(param: Param) -> list:
    """Values just outside the declared range, and a fraction for a whole number."""
    bad = []
    if param.minimum is not None:
        bad.append(param.minimum - 1)
    if param.maximum is not None:
        bad.append(param.maximum + 1)
    if param.kind == "int":
        bad.append((param.minimum or 0) + 1.5)
    return bad


CASES = [(name, param.name, value)
         for name, spec in GENERATOR_SPECS.items() if name in DIRECT
         for param in spec.params if param.kind in ("int", "float") and (name, param.name) not in REGISTRY_ONLY
         for value in _bad_values(param)]


def test_every_built_in_generator_with_numeric_settings_is_covered():
    with_numbers = {name for name, spec in GENERATOR_SPECS.items()
                    if any(p.kind in ("int", "float") for p in spec.params) and not name.startswith("sdv_")}
    assert with_numbers <= set(DIRECT)


@pytest.mark.parametrize("name, setting, value", CASES)
def test_made_directly_or_by_name_a_bad_setting_gets_the_same_sentence(name, setting, value):
    if name == "tabddpm" and not module_installed("torch"):
        pytest.skip("torch is not installed")
    with pytest.raises(GeneratorSettingError) as by_name:
        make_generator(name, population=POPULATION, **{setting: value})
    with pytest.raises(GeneratorSettingError) as directly:
        DIRECT[name](**{setting: value})
    assert str(directly.value) == str(by_name.value)
    assert f"({name}.{setting}) must be" in str(by_name.value)


def test_the_registry_reads_each_class_declaration():
    classes = {"independent_histograms": IndependentHistograms, "dp_marginals": DPMarginals, "rare_leak": RareLeak,
               "partial_copy": PartialCopy, "noisy_copy": NoisyCopy, "rare_records": RareRecords,
               "attribute_leak": AttributeLeak, "value_reuse": ValueReuse, "column_resample": ColumnResample,
               "privbayes": PrivBayes, "cart": SequentialCART}
    for name, cls in classes.items():
        assert get_generator_spec(name).params is cls.PARAMS, name
    from privcore.generators.tabddpm import TABDDPM_PARAMS

    tabddpm = get_generator_spec("tabddpm").params
    assert all(p in TABDDPM_PARAMS for p in tabddpm if p.name != "gpu")


def test_privbayes_sentence_is_the_declared_one():
    sentence = "Privacy budget ε (privbayes.epsilon) must be at least 1e-06; got -1."
    for make in (lambda: PrivBayes(epsilon=-1), lambda: make_generator("privbayes", epsilon=-1)):
        with pytest.raises(GeneratorSettingError, match=re.escape(sentence)):
            make()


def test_check_settings_raises_the_owners_error_and_refuses_an_unknown_name():
    with pytest.raises(LabError, match=r"Seeds \(lab\.seeds\) must be between 1 and 100; got 0\."):
        check_settings("lab", LAB_PARAMS, {"seeds": 0}, LabError)
    with pytest.raises(ParamError, match="has no setting 'nope'"):
        check_settings("lab", LAB_PARAMS, {"nope": 1})


# --------------------------------------------------------------------------------------- evaluate and lab
REAL = pd.DataFrame({"a": [1, 2, 3, 4], "b": ["x", "y", "x", "y"]})


@pytest.mark.parametrize("setting, sentence", [
    ("workers", "Workers (evaluate.workers) must be at least 1; got 0."),
    ("famd_components", "FAMD axes (evaluate.famd_components) must be at least 1; got 0."),
])
def test_evaluate_refuses_zero_with_the_declared_sentence(setting, sentence):
    assert setting in {p.name for p in EVALUATE_PARAMS}
    with pytest.raises(ParamError, match=re.escape(sentence)):
        evaluate(REAL, REAL.copy(), metrics="crp", **{setting: 0})


def test_lab_settings_are_refused_with_the_declared_sentence():
    with pytest.raises(LabError, match=re.escape("Workers (lab.workers) must be at least 1; got 0.")):
        lab_workers(0, 10)
    with pytest.raises(LabError, match=re.escape("Seeds (lab.seeds) must be a whole number; got '2.5'.")):
        check_seeds("2.5")
    with pytest.raises(LabError, match=r"Detection margin \(lab\.margin\) must be between 0 and 0.99; got 2"):
        check_margin(2)
    assert check_seeds(" 4") == 4 and check_margin("0.05") == 0.05


# --------------------------------------------------------------------------------------- no hand checks
#: A hand-written range sentence.
HAND_CHECK = re.compile(r"must be (a |an )?(positive |non-negative )?(whole )?numbers?\b|must be between|"
                        r"whole number of at least|must be at least")
#: The rules kept where they are, with the reason a Param cannot hold them.
KEPT = {
    # ``sample(n, seed)``'s n is an argument of each call, not a setting of the generator.
    ("privcore/generators/base.py", "must be a positive whole number"),
    # per_record_loss's timesteps: a call's argument, bounded by the fitted model's T.
    ("privcore/generators/tabddpm.py", "must be whole numbers"),
    # A declared DP ε: text from the command line or the dashboard, above 0 (an open bound), with a sentence
    # that says what to give; no Param range is open at 0.
    ("privcore/evaluation/evaluate.py", "must be a number above 0"),
}


def test_no_hand_written_range_check_outside_the_declarations():
    found = set()
    for folder in ("privcore/generators", "privcore/lab", "privcore/evaluation"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            for line in text.splitlines():
                if "raise " not in line and not re.match(r'\s*f?"(?!"")', line):
                    continue  # prose in docstrings and comments may say "a whole number ≥ 1"
                match = HAND_CHECK.search(line)
                if match:
                    found.add((path.relative_to(ROOT).as_posix(), line.strip()))
    unexplained = [(path, line) for path, line in found
                   if not any(path == kept_path and phrase in line for kept_path, phrase in KEPT)]
    assert not unexplained, unexplained


def test_infinite_epsilon_and_choices_are_declared_not_checked_by_hand():
    # ε = ∞ (no noise) is a declared value of the epsilon settings; words are declared choices.
    import math

    from privcore.generators import DPMarginals, PrivBayes
    from privcore.generators.base import GeneratorSettingError
    from privcore.generators.copies import ExactCopy

    assert PrivBayes(epsilon=math.inf).epsilon is None and DPMarginals(epsilon=math.inf).epsilon == math.inf
    with pytest.raises(GeneratorSettingError, match=re.escape("(privbayes.epsilon) must be a number; got -inf.")):
        PrivBayes(epsilon=-math.inf)
    with pytest.raises(GeneratorSettingError,
                       match=re.escape("When n differs (exact_copy.when_n_differs) must be one of resample, repeat; "
                                       "got 'shuffle'.")):
        ExactCopy(when_n_differs="shuffle")
