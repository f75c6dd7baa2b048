"""An audit's run time, estimated from fits timed on the user's own table ahead of the audit.

``seconds = per model × models / workers + overhead``. What is measured reads :data:`CLOCK`, so tests can
run a fake generator on a fake clock.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcore.audit._base import NEIGHBOURS, AuditError, random_queries
from privcore.audit.crossfit import NULL_SHUFFLES, crossfit_scores, record_statistics
from privcore.audit.factory import GeneratorFactory, model_for_fit
from privcore.audit.shared import SharedSettings, nearest_other, plan_shared
from privcore.audit.stronger import stronger_scores
from privcore.audit.targeted import (
    AuditSettings,
    FeatureExtractor,
    achilles_scores,
    chance_share_above,
    fit_model,
    meta_classifier,
    split_sizes,
)
from privcore.audit.tasks import fit_seed
from privcore.audit.whitebox import loss_matrix, wants_whitebox, whitebox_result
from privcore.base import InputError, ProgressCallback, one_blas_thread
from privcore.data import Schema, infer_schema
from privcore.data.prepare import prepare
from privcore.engine import EuclideanSpace
from privcore.evaluation.evaluate import evaluate
from privcore.generators import get_generator_spec, is_reference

__all__ = ["AuditEstimate", "ModelTiming", "estimate_shared", "estimate_targeted", "PROBE_EPOCHS", "PROBE_STEPS"]

#: The clock every measurement reads (a test may replace it).
CLOCK: Callable[[], float] = time.perf_counter
#: The setting through which a generator trains in epochs; timed at :data:`PROBE_EPOCHS` and extrapolated.
EPOCHS_SETTING = "epochs"
#: Epochs of the probe fits (the fewer fitted twice). Far enough apart for the slope to stand out of the noise
#: of a busy machine, few enough that CTGAN's probes take seconds.
PROBE_EPOCHS = (2, 8)
#: TabDDPM's training steps of the probe fits: one step is one batch (20-25 ms at the defaults on one core of
#: the shared 2-core machine), so 250 more steps (about 6 s) stand out of the noise of a busy machine; probes
#: of 25 and 100 steps differed by 0.3 s where 2 s were expected, and foretold 11 s for a 54.5 s fit.
PROBE_STEPS = (50, 300)
#: Each setting through which a generator trains in rounds, its probe values, and its unit in words.
ROUND_PROBES: dict[str, tuple[tuple[int, int], str]] = {EPOCHS_SETTING: (PROBE_EPOCHS, "epochs"),
                                                        "steps": (PROBE_STEPS, "training steps")}
#: Trial fits of a generator timed as it is: the first pays for imports and caches, the mean of the others counts.
QUICK_FITS = 3
#: A fit slower than this is not repeated: another one would not change the estimate's order.
REPEAT_BELOW_SECONDS = 5.0
#: Records whose attack and statistics are timed (the rest scaled linearly).
ATTACK_RECORDS = 100
#: Rows whose vulnerability scores are timed (scaled by the square of the rows: every pair of rows).
ACHILLES_ROWS = 2000


@dataclass(frozen=True)
class ModelTiming:
    """What one audit model costs on this table, and how it was measured.

    Attributes
    ----------
    seconds : float
        One model: fit, sample and features (for an epoch generator, at the epochs asked for).
    training_rows : int
        Rows of the training sets timed (those of the audit's models).
    fits : tuple of float
        Seconds of each trial fit with its sample, in the order run.
    features : float
        Seconds of one output's features.
    epochs : int or None
        The epochs extrapolated to; None when the fit was timed as it is.
    probe_epochs : tuple of int
        Epochs of each trial fit when extrapolated (as ``fits``), else empty.
    unit : str
        What ``epochs`` and ``probe_epochs`` count, in words (``"training steps"`` for TabDDPM).
    """

    seconds: float
    training_rows: int
    fits: tuple[float, ...]
    features: float
    epochs: int | None = None
    probe_epochs: tuple[int, ...] = ()
    unit: str = "epochs"

    @property
    def extrapolated(self) -> bool:
        """Whether the fit's time was extrapolated in epochs rather than measured at the setting asked for."""
        return self.epochs is not None

    def describe(self) -> str:
        """How it was measured, in words.

        Examples
        --------
        >>> ModelTiming(0.84, 500, (1.2, 0.8), 0.04).describe()
        'one fit on 500 rows of your table took 0.8 s (with its output and features: 0.84 s a model)'
        >>> ModelTiming(60.5, 500, (3.1, 4.6, 3.0), 0.05, 300, (2, 8, 2)).describe()
        'fits of 2 and 8 epochs on 500 rows of your table took 3 s and 4.6 s; extrapolated linearly to 300 epochs: 60 s a model'
        >>> ModelTiming(30.0, 500, (2.0, 3.5, 2.1), 0.1, 2000, (50, 300, 50), "training steps").describe()[:40]
        'fits of 50 and 300 training steps on 500'
        """
        if self.extrapolated:
            low, high = min(self.probe_epochs), max(self.probe_epochs)
            at_low = min(t for t, e in zip(self.fits, self.probe_epochs) if e == low)
            at_high = min(t for t, e in zip(self.fits, self.probe_epochs) if e == high)
            return (f"fits of {low} and {high} {self.unit} on {self.training_rows:,} rows of your table took "
                    f"{_seconds(at_low)} and {_seconds(at_high)}; extrapolated linearly to {self.epochs:,} "
                    f"{self.unit}: {_seconds(self.seconds)} a model")
        fit = _seconds(self.seconds - self.features)
        return (f"one fit on {self.training_rows:,} rows of your table took {fit} (with its output and features: "
                f"{_seconds(self.seconds)} a model)")


@dataclass(frozen=True)
class AuditEstimate:
    """An audit's estimated seconds: ``model.seconds × models / workers + overhead``.

    Attributes
    ----------
    design : str
        ``"shared"`` or ``"targeted"``.
    models : int
        Generator fits the audit trains for its attack.
    workers : int
        Processes the fits are spread over.
    model : ModelTiming
        One model's cost, measured on this table.
    overhead : float
        Seconds outside those fits: set-up, attack, statistics, the DCR test (its extra fit included).
    whitebox : bool
        Whether the audit timed runs the white-box attack (each model's losses are in ``model.features``).
    """

    design: str
    models: int
    workers: int
    model: ModelTiming
    overhead: float
    whitebox: bool = False

    @property
    def seconds(self) -> float:
        """The estimated run time of the whole audit."""
        return self.model.seconds * self.models / max(1, self.workers) + self.overhead


def _seconds(x: float) -> str:
    return f"{x:.2g} s" if x < 10 else f"{x:.0f} s"


# ------------------------------------------------------------------------------------ one model's fits


def _rounds_asked(make: Any) -> tuple[str, int] | None:
    """The setting a built-in generator trains in rounds through (:data:`ROUND_PROBES`) and its value; else None."""
    if not isinstance(make, GeneratorFactory) or is_reference(make.name):
        return None
    params = {p.name: p for p in get_generator_spec(make.name).params}
    for setting in ROUND_PROBES:
        if setting in params:
            return setting, int(make.settings.get(setting, params[setting].default))
    return None


def time_model(trial: Callable[[Any, int], tuple[float, float]], make: Any, training_rows: int, name: str,
               progress: ProgressCallback | None = None) -> ModelTiming:
    """Time one audit model through ``trial(make, index) -> (fit and sample seconds, features seconds)``.

    Parameters
    ----------
    trial : callable
        Fits ``make``'s generator on the ``index``-th trial training set, samples and computes the features.
    make : callable
        The audit's ``make`` (a :class:`~privcore.audit.factory.GeneratorFactory` for an epoch generator).
    training_rows : int
        Rows of each trial training set (for the description).
    name : str
        The generator's name, for the error.
    progress : callable, optional
        ``progress(fraction, message)`` after each trial fit.

    Returns
    -------
    ModelTiming

    Raises
    ------
    AuditError
        The generator failed on a trial fit: the error the audit would meet, in one line.

    Notes
    -----
    A constant per model misjudges every generator but one: a histogram fits in milliseconds, a Bayesian network
    in a second, CTGAN in a minute. So the estimate times the chosen generator, with its settings, on the user's
    table, on a training set of the size each audit model trains on (:func:`estimate_shared`: about half of the
    audited records, the very first training set of the audit's plan; :func:`estimate_targeted`: the ``m`` rows of
    :func:`privcore.audit.targeted.split_sizes`), sampling an output of the same size and computing its features,
    as one audit model does. A first fit also pays for imports and caches, so a quick generator is fitted
    :data:`QUICK_FITS` times and the mean of the fits after the first counts (a slow one, over
    :data:`REPEAT_BELOW_SECONDS`, once).

    Generators trained in rounds (a setting named ``epochs``: SDV's CTGAN and TVAE; or ``steps``, the training
    batches of TabDDPM) would make the page wait as long as one model takes. They are timed at two probe values
    of that setting instead (:data:`ROUND_PROBES`; the fewer twice, for the same reason) and the time is
    extrapolated linearly: intercept (preparing the data, sampling) plus slope times the rounds asked for. The
    result says so (:attr:`ModelTiming.extrapolated`). A white-box audit (:mod:`privcore.audit.whitebox`) also
    times each trial model's loss on every audited record, and its attack.
    """
    asked = _rounds_asked(make)
    setting, epochs = asked if asked is not None else (EPOCHS_SETTING, None)
    probes, unit = ROUND_PROBES[setting]
    extrapolate = epochs is not None and epochs > probes[1]
    # Fewer rounds first and last: the first fit pays the imports, and the faster of the two counts.
    plan = [probes[0], probes[1], probes[0]] if extrapolate else [None] * QUICK_FITS
    fits, features = [], []
    for index, probe in enumerate(plan):
        if progress is not None:
            what = f"{probe} {unit}" if probe is not None else "a fit"
            progress(index / len(plan), f"timing {what} on {training_rows:,} rows of your table…")
        maker = dataclasses.replace(make, settings={**make.settings, setting: probe}) if probe else make
        try:
            with one_blas_thread():  # as every audit model runs
                fit_seconds, feature_seconds = trial(maker, index)
        except Exception as exc:  # noqa: BLE001 - any failure of the generator is the user's to see, in words
            reason = str(exc) if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"
            first = reason.strip().splitlines()[0] if reason.strip() else type(exc).__name__
            raise AuditError(f"The generator {name} failed when timed on {training_rows:,} rows of your table, as "
                             f"the audit would: {first}") from exc
        fits.append(fit_seconds)
        features.append(feature_seconds)
        if not extrapolate and fit_seconds + feature_seconds >= REPEAT_BELOW_SECONDS:
            break
    if not extrapolate:
        # Past the first fit (imports, caches), the mean of the others: the minimum would flatter a busy machine.
        typical = slice(1, None) if len(fits) > 1 else slice(None)
        fit_seconds, feature_seconds = float(np.mean(fits[typical])), float(np.mean(features[typical]))
        return ModelTiming(fit_seconds + feature_seconds, training_rows, tuple(fits), feature_seconds)
    feature_seconds = float(np.mean(features[1:]))
    low, high = min(fits[0], fits[2]), fits[1]
    # A slope lost in noise (the probes' difference below zero) leaves the intercept: never a negative time.
    slope = max(0.0, (high - low) / (probes[1] - probes[0]))
    intercept = max(0.0, low - slope * probes[0])
    return ModelTiming(intercept + slope * epochs + feature_seconds, training_rows, tuple(fits), feature_seconds,
                       epochs, tuple(plan), unit)


def _fit_sample(model: Any, training: pd.DataFrame, types: dict[str, str], seed: int) -> tuple[pd.DataFrame, float]:
    began = CLOCK()
    fit_model(model, training, types)
    output = model.sample(max(1, len(training)), seed=seed)
    seconds = CLOCK() - began
    if not isinstance(output, pd.DataFrame):
        raise AuditError(f"The generator returned a {type(output).__name__}, not a table.")
    missing = [c for c in training.columns if c not in output.columns]
    if missing:
        raise AuditError(f"The generator returned a table without the column(s) {', '.join(map(str, missing))}.")
    return output[list(training.columns)], seconds


def _timed(call: Callable[[], Any]) -> tuple[Any, float]:
    began = CLOCK()
    out = call()
    return out, CLOCK() - began


def _dcr_seconds(training: pd.DataFrame, output: pd.DataFrame, holdout: pd.DataFrame, schema: Schema) -> float:
    """Seconds of the DCR test the audit runs beside its attack (on a trial output: the same sizes)."""
    size = min(len(training), len(holdout))
    if size < 2:
        return 0.0
    try:
        return _timed(lambda: evaluate(training, output, schema, metrics="dcr_test",
                                       holdout=holdout.iloc[:size]))[1]
    except Exception:  # noqa: BLE001 - the audit skips a DCR test that fails; so does its estimate
        return 0.0


def _name(make: Any, name: str | None) -> str:
    return name or getattr(make, "name", None) or type(make).__name__


# ------------------------------------------------------------------------------------------ the designs


def estimate_shared(real: pd.DataFrame, schema: Schema | None, make: Callable[..., Any],
                    settings: SharedSettings | None = None, *, workers: int = 1, generator_name: str | None = None,
                    progress: ProgressCallback | None = None, whitebox: bool | None = None,
                    stronger: bool = True) -> AuditEstimate:
    """The run time of :func:`privcore.audit.shared.audit_shared` with these arguments, from trial fits.

    Parameters
    ----------
    real : DataFrame
        The real table.
    schema : Schema or None
        Column types (inferred when None).
    make : callable
        ``make(population[, seed])``, as the audit gets it (a :class:`~privcore.audit.factory.GeneratorFactory`).
    settings : SharedSettings, optional
        The audit's budget.
    workers : int
        Processes the audit spreads its fits over.
    generator_name : str, optional
        How errors name the generator.
    progress : callable, optional
        ``progress(fraction, message)``.
    whitebox : bool, optional
        As for the audit: with the white-box attack (None: when the generator offers a loss).
    stronger : bool
        As for the audit: with the stronger black-box attacks (RMIA and the meta-classifier).

    Returns
    -------
    AuditEstimate

    Raises
    ------
    AuditError, TooFewRowsError
        Bad settings, too few rows, a white-box attack asked of a generator without a loss, or a generator that
        fails on its trial fit (its error, in one line).

    Notes
    -----
    Besides the fits, an audit has work of its own, measured here too rather than taken from constants:

    - shared design: the plan (prepared table, encoded space, features' set-up), the cross-fitted attack and
      every record's statistics, once on the real membership and :data:`~privcore.audit.crossfit.NULL_SHUFFLES`
      more times on shuffled ones (timed on random features of the audit's shape for a subset of the records,
      then scaled, since both grow linearly with the records), the stronger attacks of :mod:`privcore.audit.stronger`
      (timed and scaled the same way), and the DCR test (one more fit and its test);
    - targeted design: the split and the vulnerability scores (timed on a subset of at most
      :data:`ACHILLES_ROWS` rows and scaled by the square of the rows), one meta-classifier per target (timed once
      on random features of its shape), the chance level and the DCR test.
    """
    settings = (settings or SharedSettings()).check()
    plan, plan_seconds = _timed(lambda: plan_shared(real, schema, settings, make=make))
    setup, schema = plan.setup, plan.schema
    whitebox = wants_whitebox(make(setup.population), whitebox)
    outputs: list[pd.DataFrame] = []
    losses: list[np.ndarray] = []

    def trial(maker: Any, index: int) -> tuple[float, float]:
        # The audit's own first training sets, seeds and features: this is model ``index`` of the audit.
        k = index % settings.models
        training = setup.pool[setup.membership[k]].reset_index(drop=True)
        model = model_for_fit(maker, setup.population, fit_seed(settings.seed, k))
        output, seconds = _fit_sample(model, training, dict(setup.types), fit_seed(settings.seed, k))
        outputs.append(output)
        features = _timed(lambda: setup.extractor.features(output))[1]
        if whitebox:  # the model's loss on every audited record, as each audit model computes it
            loss, loss_seconds = _timed(lambda: loss_matrix(model, setup.pool, settings.seed))
            losses.append(loss)
            features += loss_seconds
        return seconds, features

    rows = int(setup.membership[0].sum())
    model = time_model(trial, make, rows, _name(make, generator_name), _scaled(progress, 0.0, 0.9))
    if progress is not None:
        progress(0.9, "timing the attack on a few records…")
    attack = _attack_seconds(settings, plan.records, setup.extractor.n_features, setup.membership)
    if stronger:
        attack += _stronger_seconds(settings, plan.records, setup.extractor, setup.membership)
    if whitebox:
        attack += _whitebox_seconds(settings, plan.records, losses[0].shape[1], setup.membership)
    nearest = _timed(lambda: nearest_other(plan.space.transform(plan.data), plan.chosen[:ATTACK_RECORDS]))[1]
    inside = setup.pool[setup.membership[0]].reset_index(drop=True)
    outside = setup.pool[~setup.membership[0]].reset_index(drop=True)
    dcr = _dcr_seconds(inside, outputs[0], outside, schema)
    scale = plan.records / min(plan.records, ATTACK_RECORDS)
    # The DCR test refits model 0 (no features); the attack runs once on the real membership and on each shuffle.
    overhead = plan_seconds + (model.seconds - model.features) + dcr + attack + nearest * scale
    if progress is not None:
        progress(1.0, "timed")
    return AuditEstimate("shared", settings.models, workers, model, overhead, whitebox)


def _attack_seconds(settings: SharedSettings, records: int, n_features: int, membership: np.ndarray) -> float:
    """Seconds of the cross-fitted attack and the records' statistics, on the real membership and each shuffle.

    Both grow linearly with the records, and neither depends much on the features' values: they are timed on
    random features of the audit's shape for at most :data:`ATTACK_RECORDS` records, then scaled.
    """
    sample = min(records, ATTACK_RECORDS)
    rng = np.random.default_rng(settings.seed)
    features = rng.random((settings.models, sample, n_features))
    member = membership[:, :sample]
    usable = np.ones(settings.models, dtype=bool)

    def attack() -> None:
        scores = crossfit_scores(features, member, usable, settings.folds)
        for i in range(sample):
            record_statistics(scores[:, i], member[:, i], usable, settings.seed, i)

    return _timed(attack)[1] * (records / sample) * (1 + NULL_SHUFFLES)


def _stronger_seconds(settings: SharedSettings, records: int, extractor: Any, membership: np.ndarray) -> float:
    """Seconds of the stronger attacks (RMIA, the meta-classifier, their statistics).

    They run on the real membership and each shuffle. One run is timed on random features of the audit's shape for at
    most :data:`ATTACK_RECORDS` records, then scaled (the classifier's pairs grow linearly with the records).
    """
    sample = min(records, ATTACK_RECORDS)
    rng = np.random.default_rng(settings.seed)
    features = rng.random((settings.models, sample, extractor.n_features))
    distances = slice(extractor.nearest_index, extractor.rare_index)
    member = membership[:, :sample]
    usable = np.ones(settings.models, dtype=bool)
    # The chance level reruns the same work on each shuffle: one run is timed, not three.
    seconds = _timed(lambda: stronger_scores(features, member, usable, settings.folds, distances, settings.seed,
                                             np.arange(sample)))[1]
    return seconds * (records / sample) * (1 + NULL_SHUFFLES)


def _whitebox_seconds(settings: SharedSettings, records: int, columns: int, membership: np.ndarray) -> float:
    """Seconds of the white-box attack (classifiers, per-model and per-record statistics, its chance level).

    Timed on random losses of the audit's shape for at most :data:`ATTACK_RECORDS` records, then scaled.
    """
    sample = min(records, ATTACK_RECORDS)
    rng = np.random.default_rng(settings.seed)
    losses = list(rng.random((settings.models, sample, columns)))
    usable = np.ones(settings.models, dtype=bool)
    seconds = _timed(lambda: whitebox_result(losses, membership[:, :sample], usable, settings.folds, settings.seed,
                                             np.arange(sample)))[1]
    return seconds * records / sample


def estimate_targeted(real: pd.DataFrame, schema: Schema | None, make: Callable[..., Any],
                      settings: AuditSettings | None = None, *, generator_name: str | None = None,
                      progress: ProgressCallback | None = None) -> AuditEstimate:
    """The run time of :func:`privcore.audit.targeted.audit` with these arguments (it runs in one process).

    ``targets × (2 × shadow_models + eval_models)`` fits on training sets of ``m`` rows, one meta-classifier per
    target, and the fixed work (split, vulnerability scores, chance level, DCR test). Parameters, result and
    errors as for :func:`estimate_shared`.
    """
    settings = (settings or AuditSettings()).check()
    began = CLOCK()
    schema = schema if schema is not None else infer_schema(real)
    data = prepare(real, real, schema).real[list(schema.columns)].reset_index(drop=True)
    n = len(data)
    n_pool, n_aux, _, m = split_sizes(n, settings)  # too few rows: the audit's own error, before any fit
    rng = np.random.default_rng(settings.seed)
    order = rng.permutation(n)
    aux, evaluation = order[n_pool : n_pool + n_aux], order[n_pool + n_aux :]
    space = EuclideanSpace(data, [], schema)
    encoded = space.transform(data)
    extractor = FeatureExtractor(data, schema, space)
    setup_seconds = CLOCK() - began
    sub = min(n, ACHILLES_ROWS)
    achilles = _timed(lambda: achilles_scores(encoded[:sub]))[1] * (n / sub) ** 2
    population = data.iloc[aux].reset_index(drop=True)
    types = {c: schema.types[c] for c in schema.columns}
    queries = random_queries(len(schema.columns), settings.n_queries, rng)
    outputs: list[tuple[pd.DataFrame, pd.DataFrame]] = []

    def trial(maker: Any, index: int) -> tuple[float, float]:
        training = data.iloc[rng.choice(aux, size=m, replace=False)].reset_index(drop=True)
        seed = int(rng.integers(2**31))
        output, seconds = _fit_sample(model_for_fit(maker, population, seed), training, types, seed)
        outputs.append((training, output))
        target = int(rng.choice(n))
        return seconds, _timed(lambda: extractor.features(data.iloc[target], encoded[target], output, queries))[1]

    model = time_model(trial, make, m, _name(make, generator_name), _scaled(progress, 0.0, 0.9))
    if progress is not None:
        progress(0.9, "timing the attack's classifier…")
    n_targets = settings.targets + settings.random_targets
    width = settings.n_queries + NEIGHBOURS
    shadow_x = rng.random((2 * settings.shadow_models, width))
    shadow_y = np.arange(2 * settings.shadow_models) % 2
    eval_x = rng.random((settings.eval_models, width))
    forest = _timed(lambda: meta_classifier(settings.seed).fit(shadow_x, shadow_y).predict_proba(eval_x))[1]
    chance = _timed(lambda: chance_share_above(0.6, (settings.eval_models + 1) // 2, settings.eval_models // 2,
                                               seed=settings.seed))[1]
    holdout = data.iloc[evaluation[:m]].reset_index(drop=True)
    dcr = _dcr_seconds(outputs[0][0], outputs[0][1], holdout, schema)
    overhead = setup_seconds + achilles + n_targets * forest + chance + (model.seconds - model.features) + dcr
    if progress is not None:
        progress(1.0, "timed")
    return AuditEstimate("targeted", n_targets * (2 * settings.shadow_models + settings.eval_models), 1, model,
                         overhead)


def _scaled(progress: ProgressCallback | None, start: float, stop: float) -> ProgressCallback | None:
    """``progress`` for a part of the work that spans ``start`` to ``stop`` of the whole."""
    if progress is None:
        return None
    return lambda fraction, message: progress(start + (stop - start) * fraction, message)
