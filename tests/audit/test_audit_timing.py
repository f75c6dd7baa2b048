"""The audit's run-time estimate from trial fits (privcore.audit.timing): a built-in generator really timed, and
a fake slow generator on a fake clock, so that the arithmetic is checked exactly (no timing assertions here; the
estimate's accuracy is bench/bench_audit_estimate.py's)."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from privcore.audit import AuditError, AuditSettings, timing
from privcore.audit.factory import GeneratorFactory
from privcore.audit.shared import SharedSettings
from privcore.base.errors import TooFewRowsError
from privcore.data.params import Param
from privcore.data.schema import Schema
from privcore.demo import load_scenario
from privcore.generators import registry
from privcore.generators.spec import GeneratorSpec

SHARED = SharedSettings(models=8, records=60)
TARGETED = AuditSettings(targets=1, random_targets=1, shadow_models=3, eval_models=4)


@pytest.fixture(scope="module")
def small_demo():
    """The demo's noisy copy at 200 people, with its schema (not the shared 300-people ``demo``: these
    timings were set on 200)."""
    data = load_scenario("noisy_copy", n=200)
    return data.real, Schema(types=dict(data.types), key=list(data.key), sensitive=data.sensitive)


class FakeClock:
    """Seconds pass only when a fake generator says so: every measurement is then exact."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class SlowInEpochs:
    """A generator whose fit "takes" 1 s plus 0.5 s per epoch on the fake clock; its output resamples its input."""

    def __init__(self, clock: FakeClock, epochs: int, fail: int = 0):
        self.clock, self.epochs, self.fail = clock, epochs, fail

    def fit(self, table: pd.DataFrame, types) -> "SlowInEpochs":
        if self.fail:
            raise ValueError("the network diverged (nan loss)\nsecond line of detail")
        self.clock.now += 1.0 + 0.5 * self.epochs
        self.table = table
        return self

    def sample(self, n: int, seed: int) -> pd.DataFrame:
        return self.table.sample(n, replace=True, random_state=seed).reset_index(drop=True)


@pytest.fixture
def clock(monkeypatch):
    """A fake clock for privcore.audit.timing, and the generator ``slow_epochs`` registered as if built in."""
    fake = FakeClock()
    monkeypatch.setattr(timing, "CLOCK", fake)
    spec = GeneratorSpec(
        "slow_epochs", "A stand-in for CTGAN: slow, trained in epochs.",
        (Param("epochs", "int", 300, "Epochs", "Passes over the training table.", minimum=1),
         Param("fail", "int", 0, "Fail", "1: raise in fit.", minimum=0, maximum=1)),
        lambda epochs, fail: SlowInEpochs(fake, epochs, fail), label="Slow in epochs")
    monkeypatch.setitem(registry.GENERATOR_SPECS, "slow_epochs", spec)
    return fake


def test_a_built_in_generator_is_timed_on_training_sets_of_the_audits_size(small_demo):
    real, schema = small_demo
    estimate = timing.estimate_shared(real, schema, GeneratorFactory("independent_histograms"), SHARED)
    model = estimate.model
    assert estimate.design == "shared" and estimate.models == 8 and estimate.workers == 1
    assert estimate.seconds > 0 and model.seconds > 0 and estimate.overhead > 0
    assert len(model.fits) == 3 and not model.extrapolated  # a quick fit: three times, the first not counted
    assert model.seconds == pytest.approx((model.fits[1] + model.fits[2]) / 2 + model.features)
    assert 15 <= model.training_rows <= 45  # about half of the 60 records audited
    assert f"one fit on {model.training_rows} rows of your table took" in model.describe()


def test_the_estimate_is_proportional_to_the_models_beyond_the_fixed_work(small_demo):
    real, schema = small_demo
    estimate = timing.estimate_targeted(real, schema, GeneratorFactory("independent_histograms"), TARGETED)
    assert estimate.models == 2 * (2 * 3 + 4) and estimate.seconds > 0
    for factor in (2, 10):
        more = dataclasses.replace(estimate, models=factor * estimate.models)
        assert more.seconds - more.overhead == pytest.approx(factor * (estimate.seconds - estimate.overhead))
    two_workers = dataclasses.replace(estimate, workers=2)
    assert two_workers.seconds - two_workers.overhead == pytest.approx((estimate.seconds - estimate.overhead) / 2)


@pytest.mark.slow
def test_a_generator_trained_in_epochs_is_extrapolated_linearly(small_demo, clock):
    real, schema = small_demo
    estimate = timing.estimate_shared(real, schema, GeneratorFactory("slow_epochs"), SHARED)
    model = estimate.model
    # Probes at 2, 8 and again 2 epochs: 2 s, 5 s, 2 s on the fake clock; 1 s + 0.5 s × 300 epochs a model.
    assert model.extrapolated and model.epochs == 300 and model.probe_epochs == (2, 8, 2)
    assert model.fits == (2.0, 5.0, 2.0) and model.features == 0.0
    assert model.seconds == pytest.approx(151.0)
    # The fixed work takes no fake time but the DCR test's extra fit, at the epochs asked for.
    assert estimate.overhead == pytest.approx(151.0)
    assert estimate.seconds == pytest.approx(151.0 * 8 + 151.0)
    assert "fits of 2 and 8 epochs" in model.describe() and "extrapolated linearly to 300 epochs" in model.describe()
    doubled = timing.estimate_shared(real, schema, GeneratorFactory("slow_epochs"),
                                     dataclasses.replace(SHARED, models=16))
    assert doubled.seconds - doubled.overhead == pytest.approx(2 * (estimate.seconds - estimate.overhead))


def test_the_epochs_asked_for_are_followed_and_few_epochs_are_timed_as_they_are(small_demo, clock):
    real, schema = small_demo
    longer = timing.estimate_targeted(real, schema, GeneratorFactory("slow_epochs", {"epochs": 1000}), TARGETED)
    assert longer.model.seconds == pytest.approx(501.0) and longer.models == 20
    assert longer.seconds == pytest.approx(501.0 * 20 + 501.0)  # the DCR test's fit; the forest takes no fake time
    few = timing.estimate_shared(real, schema, GeneratorFactory("slow_epochs", {"epochs": 4}), SHARED)
    assert not few.model.extrapolated and few.model.fits == (3.0, 3.0, 3.0) and few.model.seconds == pytest.approx(3.0)


def test_a_generator_that_fails_gives_its_own_error_in_one_line(small_demo, clock):
    real, schema = small_demo
    for estimate, budget in ((timing.estimate_shared, SHARED), (timing.estimate_targeted, TARGETED)):
        with pytest.raises(AuditError) as caught:
            estimate(real, schema, GeneratorFactory("slow_epochs", {"fail": 1}), budget, generator_name="Slow")
        message = str(caught.value)
        assert message.startswith("The generator Slow failed when timed on ")
        assert message.endswith("ValueError: the network diverged (nan loss)") and "\n" not in message


def test_too_few_rows_is_the_audits_own_error(small_demo):
    real, schema = small_demo
    with pytest.raises(TooFewRowsError, match="too few to split"):
        timing.estimate_targeted(real.head(40), schema, GeneratorFactory("exact_copy"), TARGETED)


class SlowInSteps(SlowInEpochs):
    """A stand-in for TabDDPM: 1 s plus 0.01 s per training step, and a per-record loss that takes 0.25 s."""

    def __init__(self, clock: FakeClock, steps: int):
        super().__init__(clock, 0)
        self.steps = steps

    def fit(self, table: pd.DataFrame, types) -> "SlowInSteps":
        self.clock.now += 1.0 + 0.01 * self.steps
        self.table = table
        return self

    def per_record_loss(self, table: pd.DataFrame, *, seed: int = 0):
        self.clock.now += 0.25
        return table.index.to_numpy(dtype=float)


@pytest.mark.slow
def test_a_generator_trained_in_steps_is_extrapolated_and_its_loss_timed(small_demo, monkeypatch):
    real, schema = small_demo
    fake = FakeClock()
    monkeypatch.setattr(timing, "CLOCK", fake)
    spec = GeneratorSpec("slow_steps", "A stand-in for TabDDPM.",
                         (Param("steps", "int", 2000, "Training steps", "Batches.", minimum=1),),
                         lambda steps: SlowInSteps(fake, steps), label="Slow in steps")
    monkeypatch.setitem(registry.GENERATOR_SPECS, "slow_steps", spec)
    estimate = timing.estimate_shared(real, schema, GeneratorFactory("slow_steps"), SHARED)
    model = estimate.model
    assert estimate.whitebox  # auto: the generator has a loss
    low, high = timing.PROBE_STEPS
    # Probes at low, high and low steps (1 s + 0.01 s a step each); the loss on every record 0.25 s a model.
    assert model.extrapolated and model.probe_epochs == (low, high, low)
    assert model.fits == pytest.approx((1 + 0.01 * low, 1 + 0.01 * high, 1 + 0.01 * low))
    assert model.features == pytest.approx(0.25)
    assert model.seconds == pytest.approx(1.0 + 0.01 * 2000 + 0.25)
    assert f"fits of {low} and {high} training steps" in model.describe()
    assert "to 2,000 training steps" in model.describe()
    # Without the white-box attack the loss is not computed, so not timed.
    black = timing.estimate_shared(real, schema, GeneratorFactory("slow_steps"), SHARED, whitebox=False)
    assert not black.whitebox and black.model.features == 0.0 and black.model.seconds == pytest.approx(21.0)
