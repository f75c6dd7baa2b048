"""Bring your own generator: ``MODULE:ATTR`` from the command line and in Python, and ``PRIVCORE_GENERATORS``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from privcore.generators import (
    ENV_VARIABLE,
    GeneratorError,
    as_generator,
    get_generator_spec,
    list_generators,
    make_generator,
    reference_maker,
)

REPO = Path(__file__).resolve().parents[2]
MODULE = textwrap.dedent('''
    """A generator of the user's own: resampled training rows."""

    made = 0


    class Resampler:
        def __init__(self, replace=True):
            global made
            made += 1
            self.replace = replace

        def fit(self, table, types):
            self.table = table
            return self

        def sample(self, n, seed):
            return self.table.sample(n, replace=self.replace, random_state=seed)


    def factory():
        return Resampler()


    instance = Resampler()
    number = 42


    class Empty:
        pass
''')
#: The budget of tests/audit/test_audit.py's CLI test: two targets, a few models each.
TINY = ["--targets", "1", "--random-targets", "1", "--shadow-models", "4", "--eval-models", "4", "--quiet"]


@pytest.fixture()
def module_dir(tmp_path, monkeypatch):
    (tmp_path / "own_gens.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "own_gens", raising=False)
    return tmp_path


def audit_cli(module_dir: Path, generator: str, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(module_dir), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "privcore", "audit", "--demo", "exact_copy", "--generator", generator,
                           *TINY, *extra], capture_output=True, text=True, cwd=REPO, env=env, timeout=300)


@pytest.mark.slow
def test_the_cli_audits_a_class_from_a_module_on_pythonpath(module_dir):
    proc = audit_cli(module_dir, "own_gens:Resampler", "--generator-param", "replace=true")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["generator"] == "own_gens:Resampler replace=True"
    assert report["generator_settings"] == {"replace": True}
    assert len(report["targets"]) == 2
    # A resampler copies its training rows: the most vulnerable target is exposed.
    assert max(t["auc"] for t in report["targets"]) >= 0.9


@pytest.mark.slow
@pytest.mark.parametrize("generator, fragment", [
    ("no_such_module:Gen", "Cannot import module 'no_such_module'"),
    ("own_gens:Missing", "has no attribute 'Missing'"),
    ("own_gens:number", "is of type int, not a generator"),
    ("own_gens:Empty", "class without fit(table, types) and sample(n, seed)"),
    ("own_gens:", "not of the form MODULE:ATTR"),
])
def test_a_reference_that_is_no_generator_exits_2_with_one_line(module_dir, generator, fragment):
    proc = audit_cli(module_dir, generator)
    assert proc.returncode == 2, proc.stderr
    assert fragment in proc.stderr and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_a_factory_is_called_once_per_fit_and_an_object_is_refitted(module_dir):
    import own_gens

    make = reference_maker("own_gens:factory")
    before = own_gens.made
    first, second = make(None), make(None)
    assert first is not second and own_gens.made == before + 2
    table = pd.DataFrame({"a": [1, 2, 3]})
    assert first.fit(table, {"a": "numerical"}).sample(5, 1).equals(first.sample(5, 1))
    same = reference_maker("own_gens:instance")
    assert same() is same()
    with pytest.raises(GeneratorError, match="takes no settings"):
        reference_maker("own_gens:instance", {"replace": False})
    with pytest.raises(GeneratorError, match="failed"):
        reference_maker("own_gens:Resampler", {"nope": 1})


def test_any_object_with_fit_and_sample_is_a_generator():
    class Mine:
        def fit(self, table):
            self.table = table

        def sample(self, n, seed):
            return self.table.iloc[[seed % len(self.table)] * n]

    table = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]})
    out = as_generator(Mine()).fit(table, {"a": "numerical"}).sample(4, 1)
    assert out.index.equals(pd.RangeIndex(4)) and list(out["b"]) == ["y"] * 4
    with pytest.raises(GeneratorError, match="needs fit"):
        as_generator(object())


def test_the_server_admin_registers_generators_by_environment(module_dir, monkeypatch):
    monkeypatch.setenv(ENV_VARIABLE, "resampler=own_gens:Resampler, exact_copy=own_gens:factory, broken")
    names = [spec.name for spec in list_generators()]
    assert names[-1] == "resampler" and names.count("exact_copy") == 1  # a built-in's name is never taken
    spec = get_generator_spec("resampler")
    assert spec.label == "resampler" and "own_gens:Resampler" in spec.description
    table = pd.DataFrame({"a": [1, 2, 3]})
    assert make_generator("resampler").fit(table, {}).sample(3, 0).shape == (3, 1)
    monkeypatch.delenv(ENV_VARIABLE)
    assert "resampler" not in [spec.name for spec in list_generators()]
