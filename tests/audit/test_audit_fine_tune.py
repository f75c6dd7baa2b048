"""Shadow models by fine-tuning (issue 38 item 4): the factory builds each audit model from one base model."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pytest.importorskip("torch", reason="privcore[tabddpm] (torch) is installed by requirements-dev.txt")

from privcore.audit.factory import model_for_fit  # noqa: E402
from privcore.audit.fine_tune import FineTunedFactory, fine_tuned_factory  # noqa: E402
from privcore.audit.shared import SharedSettings, audit_shared  # noqa: E402
from privcore.data.schema import Schema  # noqa: E402
from privcore.demo import load_scenario  # noqa: E402

TINY = {"timesteps": 10, "width": 32, "depth": 2, "batch_size": 64, "threads": 1}
COLUMNS = ["age", "education", "hours-per-week", "income"]


@pytest.fixture(scope="module")
def tables():
    demo = load_scenario("fresh_sample", n=300)
    types = {c: demo.types[c] for c in COLUMNS}
    return demo.real[COLUMNS], demo.holdout[COLUMNS], types


def test_each_model_is_a_seeded_fine_tuning_of_the_base(tables):
    pool, population, types = tables
    factory = fine_tuned_factory(population, types, base_settings={**TINY, "steps": 30}, fine_tune={"steps": 5})
    assert isinstance(factory, FineTunedFactory) and factory.base.model is not None
    a, b = model_for_fit(factory, None, seed=3), model_for_fit(factory, None, seed=4)
    assert (a.seed, b.seed, a.steps, a.width) == (3, 4, 5, 32) and a.base is factory.base
    # picklable, as the audit's workers need it
    again = pickle.loads(pickle.dumps(factory))
    assert np.allclose(again.base.per_record_loss(pool), factory.base.per_record_loss(pool))
    with pytest.raises(ValueError, match="architecture is the base's"):
        fine_tuned_factory(population, types, base_settings={**TINY, "steps": 1}, fine_tune={"width": 8})


@pytest.mark.slow
def test_a_shared_audit_runs_on_fine_tuned_models(tables):
    pool, population, types = tables
    factory = fine_tuned_factory(population, types, base_settings={**TINY, "steps": 30}, fine_tune={"steps": 10})
    schema = Schema(types=types, sensitive="income")
    report = audit_shared(pool.iloc[:80], None, schema, stronger=False,
                          settings=SharedSettings(models=8, records=80, seed=0),
                          make=factory, generator_name="tabddpm")
    assert report.summary["records_scored"] > 0
    assert report.whitebox is not None and len(report.whitebox.models) == 8
