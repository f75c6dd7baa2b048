"""Shared-model membership audit: every record of a pool audited at once (LiRA-style design).

Design after Carlini et al.'s LiRA (2022); steps: :func:`audit_shared`.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from privcore.audit._base import AuditError, AuditReportFace, Budget, nearest_others, random_queries, seed_param
from privcore.audit.crossfit import crossfit_scores, null_shares, record_statistics
from privcore.audit.features import EXACT, SharedFeatures
from privcore.audit.one_output import output_checks
from privcore.audit.per_model import cyclic_shuffle, per_model_entry
from privcore.audit.stronger import StrongerResult, stronger_attack
from privcore.audit.tasks import FitOutcome, FitSetup, run_fits
from privcore.audit.whitebox import WhiteBoxResult, wants_whitebox, whitebox_result
from privcore.audit.why import gather, sentence
from privcore.base import ProgressCallback, TooFewRowsError, holm_adjust, jsonable
from privcore.data import Param, Schema, infer_schema
from privcore.data.prepare import prepare
from privcore.engine import EuclideanSpace, connected
from privcore.evaluation import audit_verdict
from privcore.generators import generator_label as registry_label
from privcore.metrics import value_text

#: Records audited when ``records`` is not set (and the table has that many).
DEFAULT_RECORDS = 1000
#: Fewest other rows that make a population of their own (else the pool serves as population).
MIN_POPULATION = 10


#: The shared design's budget, declared once: the Audit page builds its inputs from these.
SHARED_BUDGET: tuple[Param, ...] = (
    Param("models", "int", 64, "Models",
          "Generators trained, each on a random half of the audited records; every record's attack learns from all "
          "of them.", minimum=8, maximum=1000),
    Param("records", "int", None, "Records audited",
          "Real people drawn at random (by the seed) whose membership is attacked, all at once; more than the table "
          "has means every row.", minimum=20, rule=f"{DEFAULT_RECORDS:,}, or every row of a smaller table"),
    Param("folds", "int", 4, "Folds", "Groups of models: each group's records are attacked by a classifier trained "
          "on the other groups.", minimum=2, maximum=100),
    Param("n_queries", "int", 32, "Column queries",
          "Random sets of columns on which a synthetic row is compared with the record.", minimum=1),
    Param("rare_share", "float", 0.01, "Rare share",
          "A value is rare when at most this share of the pool (or rare_count records) holds it.",
          minimum=0.0, maximum=0.5),
    Param("rare_count", "int", 2, "Rare count", "A value held by at most this many pool records is rare.",
          minimum=1),
    seed_param("Fixes the records drawn, the training sets and every model."),
)
_DEFAULT = {p.name: p.default for p in SHARED_BUDGET}


@dataclass(frozen=True)
class SharedSettings(Budget):
    """Budget of a shared-model audit, declared in :data:`SHARED_BUDGET` and checked by :meth:`~Budget.check`."""

    PARAMS = SHARED_BUDGET

    models: int = _DEFAULT["models"]
    records: int | None = _DEFAULT["records"]
    folds: int = _DEFAULT["folds"]
    n_queries: int = _DEFAULT["n_queries"]
    rare_share: float = _DEFAULT["rare_share"]
    rare_count: int = _DEFAULT["rare_count"]
    seed: int = _DEFAULT["seed"]

    @property
    def folds_or_two(self) -> int:
        """The folds when they are a valid number, else 2 (so that the models' minimum can be stated)."""
        valid = isinstance(self.folds, (int, np.integer)) and not isinstance(self.folds, bool) and self.folds >= 2
        return int(self.folds) if valid else 2

    def declared(self, param: Param) -> Param:
        """Models need two per fold: their minimum follows ``folds``."""
        if param.name == "models":
            return dataclasses.replace(param, minimum=2 * self.folds_or_two)
        return param

    def why(self, name: str) -> str:
        """The models' minimum is two per fold."""
        return f" It takes two models per fold (folds={self.folds})." if name == "models" else ""


@dataclass
class RecordResult:
    """The attack on one pool record; ``row`` is its position in the real table as given."""

    row: int
    auc: float | None
    auc_interval: tuple[float, float] | None
    tpr_at: dict[str, float | None]
    epsilon_lower_bound: float | None
    p_value: float | None
    models_in: int
    models_out: int
    nearest_real_distance: float
    nearest_synthetic_distance: float | None
    nearest_synthetic_distance_out: float | None
    why: str | None = None
    #: The record's ε lower bound at 1 − 0.05/records, so that the maximum over records holds at 95 %.
    epsilon_lower_bound_familywise: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The record's result as plain JSON values."""
        return jsonable(asdict(self))


@dataclass
class AttackInputs:
    """What the shared audit's attacks read, kept on request (``audit_shared(keep_inputs=True)``).

    So that another attack can be tried on the very outputs an audit trained, without training them again: pass
    these to :func:`privcore.audit.stronger.stronger_attack` or :func:`privcore.audit.crossfit.crossfit_scores`.
    Not part of the JSON.
    """

    #: Shape (models, records, features): every model's output read per pool record (:class:`SharedFeatures`).
    features: np.ndarray
    #: Shape (models, records): True where the record trained the model.
    membership: np.ndarray
    #: Shape (models,): False for a model whose fit failed.
    usable: np.ndarray
    #: Where the nearest-row distances are among the features.
    distances: slice
    folds: int
    seed: int
    #: Each pool record's row in the real table as given.
    rows: np.ndarray


@dataclass
class SharedAuditReport(AuditReportFace):
    """Per-record results, the summary and what the audit ran with."""

    design = "shared"
    per_person = "records"

    generator: str
    settings: SharedSettings
    records: list[RecordResult]
    summary: dict[str, Any]
    warnings: list[str]
    seconds: float
    splits: dict[str, Any]
    #: Seconds spent per phase, summed over the models where they ran in workers.
    timings: dict[str, float] = field(default_factory=dict)
    #: The generator in words, as the verdict names it (``generator`` is its name for machines).
    label: str | None = None
    #: The white-box attack on the models' per-record losses (:mod:`privcore.audit.whitebox`); None when not run.
    whitebox: WhiteBoxResult | None = None
    #: RMIA and the meta-classifier beside today's attack (:mod:`privcore.audit.stronger`); None when not run.
    stronger: StrongerResult | None = None
    #: Today's attack read per target model (:mod:`privcore.audit.per_model`): ``models`` and ``summary``.
    per_model: dict[str, Any] | None = None
    #: The attacks' inputs, when asked for (``keep_inputs``); None otherwise.
    attack_inputs: AttackInputs | None = None

    def more_json(self) -> dict[str, Any]:
        """The attacks beyond today's, each None when not run."""
        return {
            # getattr: a report pickled without these attributes (an older one) reads None.
            "whitebox": None if getattr(self, "whitebox", None) is None else self.whitebox.to_dict(),
            "stronger": None if getattr(self, "stronger", None) is None else self.stronger.to_dict(),
            "per_model": getattr(self, "per_model", None),
        }


def audit_shared(
    real: pd.DataFrame,
    generator: Any = None,
    schema: Schema | None = None,
    *,
    settings: SharedSettings | None = None,
    generator_name: str | None = None,
    generator_label: str | None = None,
    make: Callable[[pd.DataFrame], Any] | None = None,
    progress: ProgressCallback | None = None,
    workers: int = 1,
    cluster: Any = None,
    whitebox: bool | None = None,
    stronger: bool = True,
    keep_inputs: bool = False,
) -> SharedAuditReport:
    """Shared-model membership audit of ``generator`` on every record of a pool (see Notes).

    Parameters
    ----------
    real : DataFrame
        The real table.
    generator : object, optional
        Anything with ``fit(table, types)`` (or ``fit(table)``) and ``sample(n, seed)``; refitted per model.
    schema : Schema, optional
        Column types (inferred when omitted); every analysed column is used.
    settings : SharedSettings, optional
        Budget and seed.
    generator_name : str, optional
        How the report names the generator (its ``generator`` field, for machines).
    generator_label : str, optional
        How the answer and the errors name the generator in words (e.g.
        :func:`privcore.generators.generator_title`); by default its label in the generator registry, or
        its name for a generator the registry does not know.
    make : callable, optional
        ``make(population) -> generator``, called for every model (overrides ``generator``); with ``workers > 1``
        or a ``cluster`` it must be picklable (a :class:`privcore.audit.tasks.GeneratorFactory`).
    progress : callable, optional
        ``progress(fraction, message)``, called on this thread.
    workers : int
        Processes that run the fits (1: this one); the result does not depend on it.
    cluster : str or distributed.Client, optional
        Each fit a task on a Dask cluster instead (``tcp://host:port``, ``local:N`` or a Client: see
        :func:`privcore.engine.cluster.connected`); not with ``workers > 1``.
    whitebox : bool, optional
        Also run the white-box attack on each model's per-record loss (:mod:`privcore.audit.whitebox`). None
        (the default): when the generator offers a loss (:func:`privcore.audit.whitebox.has_loss`); True: it
        must; False: never.
    stronger : bool
        Also run the stronger black-box attacks, RMIA and the meta-classifier (:mod:`privcore.audit.stronger`).
    keep_inputs : bool
        Keep what the attacks read on the report (:class:`AttackInputs`), to try other attacks on the same outputs.

    Returns
    -------
    SharedAuditReport

    Raises
    ------
    AuditError, TooFewRowsError, ClusterError
        Bad settings, too few rows, a generator that fails on every model, a white-box audit asked of a
        generator without a loss, or a cluster that cannot be used.

    Notes
    -----
    The targeted audit (:mod:`privcore.audit.targeted`) trains about a hundred models per target, so it can afford ten
    targets. The "DCR delusion" paper (Yao et al. 2025) shows that the people a distance proxy passes can still be exposed,
    and one cannot know in advance who: the shared design attacks *every* record with one set of models, as Carlini et al.'s
    LiRA does for classifiers (2022, "Membership inference attacks from first principles").

    Steps (:func:`audit_shared`):

    1. The pool: ``records`` real records (default min(1,000, the table)) drawn by the seed; the other rows are the
       population that generators needing real people outside the training data draw from (the pool itself when there are
       too few others).
    2. ``models`` generators, each trained on a random half of the pool: every record joins each training set with
       probability ½, independently (the membership matrix, drawn from the seed), so that a model with and a model without a
       record differ by that record being added (the neighbouring tables of DP). Model ``k`` samples as many rows as it was
       trained on, with a seed fixed by ``k`` (:func:`privcore.audit.tasks.fit_seed`), so the result is the same whatever
       ran the fits (``workers`` processes or a Dask ``cluster``).
    3. From each output, for each record: query shares, distances to the nearest synthetic rows, and the share of rows
       holding each of its rare values (categories, and numbers as stored), and its value-reuse score (:mod:`privcore.audit.features`).
    4. A per-record attack cross-fitted over the models (:mod:`privcore.audit.crossfit`): no model is scored by a rule that
       saw it. Per record: AUC with a bootstrap interval, TPR at low FPR, ε lower bound, and a sentence of evidence when it
       is exposed (:mod:`privcore.audit.why`). The same scores read per target model (``per_model``,
       :mod:`privcore.audit.per_model`): each model's members against its non-members, its AUC and TPR at FPR 0.
    5. Beside it, two stronger black-box attacks on the same features (:mod:`privcore.audit.stronger`): RMIA and a
       gradient-boosted meta-classifier, each with its own measured chance level (``stronger``); the summary and the
       verdict stay today's attack's (why: :mod:`privcore.audit.stronger`).
    6. When the generator offers a per-record loss (``tabddpm``, or ``per_record_loss`` on one's own), the white-box
       attack of :mod:`privcore.audit.whitebox` on every model's losses, reported per target model (``whitebox``).

    What chance alone gives is measured, not assumed: the models' training sets are shuffled among the models (each output
    then belongs to another model's training set, so membership carries no information) and the whole attack is rerun
    (:func:`null_shares`). Cross-fitting makes the folds' statistics depend on each other (a fold's labels trained the other
    folds' rules), so under the null a record's AUC spreads wider than a random ranking's: on pure noise with 128 models,
    7-9 % of records land above AUC 0.6 and above an interval of 0.5, not the 2.2 % and 2.5 % a random ranking gives. The
    chance shares of the summary are these measured ones.

    Many records are tested at once, so some intervals clear 0.5 by chance: ``share_clearly_exposed`` counts the records
    with an AUC above 0.8 and an interval above 0.5 (as the targeted audit does) that also stay significant after Holm's
    correction over all the records (a one-sided Mann–Whitney test each), while ``share_interval_above_0.5`` is the raw
    share of intervals above 0.5.
    """
    started = time.perf_counter()
    settings = (settings or SharedSettings()).check()
    if cluster is not None and workers > 1:
        raise AuditError(f"Run the fits either on {workers} processes or on a Dask cluster, not both.")
    if make is None and generator is None:
        raise AuditError("Give the generator to audit (or make, a function that builds one).")
    plan = plan_shared(real, schema, settings, make=make, generator=generator)
    probe = make(plan.setup.population) if make is not None else generator
    whitebox = wants_whitebox(probe, whitebox)
    plan = dataclasses.replace(plan, setup=dataclasses.replace(plan.setup, whitebox=whitebox))
    setup, schema, warnings = plan.setup, plan.schema, list(plan.warnings)
    data, chosen, row_in_table, n_records, space = plan.data, plan.chosen, plan.row_in_table, plan.records, plan.space
    extractor, population, pool, membership = setup.extractor, setup.population, setup.pool, setup.membership
    n = len(data)
    name = generator_name or getattr(probe, "name", None) or type(probe).__name__
    label = generator_label or registry_label(name)
    outcomes: dict[int, FitOutcome] = {}

    def done(outcome: FitOutcome) -> None:
        outcomes[outcome.index] = outcome
        if progress is not None:
            progress(0.95 * len(outcomes) / settings.models, f"model {len(outcomes)} of {settings.models} fitted")

    with connected(cluster) as client:  # None: no cluster (processes or this one)
        run_fits(setup, range(settings.models), workers=workers, on_done=done, client=client)
    failures = [outcomes[k].error for k in range(settings.models) if outcomes[k].features is None]
    if len(failures) == settings.models:
        raise AuditError(f"The generator {label} failed on every model; the first error was: "
                         f"{failures[0].splitlines()[0]}")
    if failures:
        warnings.append(f"{len(failures)} model(s) failed and were left out (first: {failures[0].splitlines()[0]}).")
    timings = {phase: sum(o.seconds.get(phase, 0.0) for o in outcomes.values())
               for phase in ("fit_and_sample", "features", "losses") if whitebox or phase != "losses"}
    began = time.perf_counter()
    usable = np.array([outcomes[k].features is not None for k in range(settings.models)])
    features = np.stack([outcomes[k].features if usable[k] else np.zeros((n_records, extractor.n_features))
                         for k in range(settings.models)])
    scores = crossfit_scores(features, membership, usable, settings.folds)
    timings["attack"] = time.perf_counter() - began
    began = time.perf_counter()
    shuffled = cyclic_shuffle(membership, settings.seed)
    per_model = per_model_entry(scores, crossfit_scores(features, shuffled, usable, settings.folds), membership,
                                shuffled, usable, settings.seed)
    timings["per_model"] = time.perf_counter() - began
    strong = None
    distances = slice(extractor.nearest_index, extractor.rare_index)
    if stronger:
        began = time.perf_counter()
        strong = stronger_attack(features, membership, usable, distances, settings.folds, settings.seed,
                                 row_in_table[chosen], rule=scores)
        timings["stronger_attack"] = time.perf_counter() - began
    white = None
    if whitebox:
        began = time.perf_counter()
        white = whitebox_result([outcomes[k].losses for k in range(settings.models)], membership, usable,
                                settings.folds, settings.seed, row_in_table[chosen])
        timings["whitebox_attack"] = time.perf_counter() - began
    began = time.perf_counter()
    nearest_real = nearest_other(space.transform(data), chosen)
    records = _records(scores, features, membership, usable, extractor, pool, nearest_real, chosen, row_in_table,
                       settings.seed)
    timings["statistics"] = time.perf_counter() - began
    summary = _summary(records, setup, schema, label, null_shares(features, membership, usable, settings))
    if progress is not None:
        progress(1.0, "done")
    return SharedAuditReport(generator=name, settings=settings, records=records, summary=summary, warnings=warnings,
                             seconds=time.perf_counter() - started, label=label,
                             splits={"rows": n, "records": n_records, "population": len(population),
                                     "models": settings.models, "failed_models": len(failures),
                                     "training_rows_mean": round(float(membership.sum(axis=1).mean()), 1)},
                             timings=timings, whitebox=white, stronger=strong, per_model=per_model,
                             attack_inputs=AttackInputs(features, membership, usable, distances, settings.folds,
                                                        settings.seed, row_in_table[chosen]) if keep_inputs else None)


@dataclass(frozen=True)
class SharedPlan:
    """What a shared audit draws before any fit: the prepared table, the pool, the population and the fits' setup."""

    schema: Schema
    data: pd.DataFrame
    row_in_table: np.ndarray
    chosen: np.ndarray
    space: EuclideanSpace
    setup: FitSetup
    warnings: tuple[str, ...]

    @property
    def records(self) -> int:
        """Records audited (the pool's size)."""
        return len(self.chosen)


def plan_shared(real: pd.DataFrame, schema: Schema | None, settings: SharedSettings, *,
                make: Callable[[pd.DataFrame], Any] | None = None, generator: Any = None) -> SharedPlan:
    """The pool, the population, the membership matrix and the features' queries, all drawn from the seed.

    :func:`audit_shared` runs its fits on this plan; :mod:`privcore.audit.timing` times one fit on it, so that
    a trial fit trains on a set exactly like the audit's (about half the pool) and its features cost the same.

    Parameters
    ----------
    real : DataFrame
        The real table.
    schema : Schema or None
        Column types (inferred when None).
    settings : SharedSettings
        Checked budget and seed.
    make, generator
        As for :func:`audit_shared`.

    Returns
    -------
    SharedPlan

    Raises
    ------
    TooFewRowsError
        Fewer than 20 usable rows.
    """
    schema = schema if schema is not None else infer_schema(real)
    prepared = prepare(real, real, schema)
    data = prepared.real[list(schema.columns)].reset_index(drop=True)
    row_in_table, n = prepared.kept["real"], len(data)
    n_records = min(settings.records or DEFAULT_RECORDS, n)
    if n_records < 20:
        raise TooFewRowsError(f"The real table has {n} usable rows: the shared-model audit needs at least 20.")
    rng = np.random.default_rng(settings.seed)
    order = rng.permutation(n)
    chosen, others, warnings = np.sort(order[:n_records]), order[n_records:], []
    if len(others) >= MIN_POPULATION:
        population = data.iloc[others].reset_index(drop=True)
    else:
        population = data
        warnings.append("Every row of the table is audited: generators that draw real people outside their training "
                        "data draw them from the audited records themselves.")
    pool = data.iloc[chosen].reset_index(drop=True)
    membership = rng.random((settings.models, n_records)) < 0.5
    space = EuclideanSpace(data, [], schema)
    extractor = SharedFeatures(data, pool, schema, space, random_queries(len(schema.columns), settings.n_queries, rng),
                               rare_share=settings.rare_share, rare_count=settings.rare_count)
    setup = FitSetup(pool=pool, membership=membership, types={c: schema.types[c] for c in schema.columns},
                     extractor=extractor, population=population, seed=settings.seed, make=make, generator=generator)
    return SharedPlan(schema=schema, data=data, row_in_table=row_in_table, chosen=chosen, space=space, setup=setup,
                      warnings=tuple(warnings))


def nearest_other(encoded: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Distance in E of each of ``rows`` to its nearest other row of ``encoded`` (inf when it is alone).

    Rounded to 9 decimals, and below 1e-6 counted as 0, as the distance features are.

    Examples
    --------
    >>> nearest_other(np.array([[0.0], [1.0], [3.0]]), np.array([0, 2])).tolist()
    [1.0, 2.0]
    """
    nearest = nearest_others(encoded, rows, 1)[:, 0]
    return np.where(nearest < np.sqrt(EXACT), 0.0, np.round(nearest, 9))


def _records(scores, features, membership, usable, extractor, pool, nearest_real, chosen, row_in_table,
             seed) -> list[RecordResult]:
    """Statistics and, for exposed records (interval above 0.5), the sentence of evidence."""
    nearest = features[:, :, extractor.nearest_index]
    rare = features[:, :, extractor.rare_index : extractor.value_reuse_index]
    cats = extractor.rare_columns
    results = []
    for i in range(len(chosen)):
        stats = record_statistics(scores[:, i], membership[:, i], usable, seed, int(chosen[i]), len(chosen))
        inside, outside = usable & membership[:, i], usable & ~membership[:, i]
        result = RecordResult(
            row=int(row_in_table[chosen[i]]), auc=None, auc_interval=None, tpr_at={}, epsilon_lower_bound=None,
            p_value=None, models_in=int(inside.sum()), models_out=int(outside.sum()),
            nearest_real_distance=float(nearest_real[i]),
            nearest_synthetic_distance=float(np.median(nearest[inside, i])) if inside.any() else None,
            nearest_synthetic_distance_out=float(np.median(nearest[outside, i])) if outside.any() else None)
        if stats is not None:
            for key, value in stats.items():
                setattr(result, key, value)
            if stats["auc_interval"][0] > 0.5:
                evidence = gather(membership[:, i], usable, nearest[:, i], rare[:, i, :], cats,
                                  [value_text(pool[c].iloc[i]) for c in cats],
                                  [int(extractor.pool_counts[c][i]) for c in cats],
                                  [bool(extractor.rare[c][i]) for c in cats], nearest_real[i], len(chosen))
                result.why = sentence(evidence)
        results.append(result)
    return results


def _summary(records: list[RecordResult], setup: FitSetup, schema: Schema, label: str,
             null: dict[str, float]) -> dict[str, Any]:
    scored = [r for r in records if r.auc is not None]
    if not scored:
        summary: dict[str, Any] = {"share_auc_above_0.6": None, "records_scored": 0}
        summary["verdict"] = audit_verdict(summary, label)
        return summary
    aucs = np.array([r.auc for r in scored])
    lows = np.array([r.auc_interval[0] for r in scored])
    adjusted = holm_adjust([r.p_value for r in scored])
    summary = {
        "records_scored": len(scored),
        "mean_auc": float(aucs.mean()),
        "share_auc_above_0.6": float(np.mean(aucs > 0.6)),
        # Measured through the same attack with the training sets shuffled among the models (null_shares).
        "chance_share_above_0.6": null["auc_above_0.6"],
        "share_auc_above_0.8": float(np.mean(aucs > 0.8)),
        "chance_share_above_0.8": null["auc_above_0.8"],
        "share_interval_above_0.5": float(np.mean(lows > 0.5)),
        "chance_share_interval_above_0.5": null["interval_above_0.5"],
        # As in the targeted audit (AUC above 0.8, interval above 0.5), and significant after Holm's correction.
        "share_clearly_exposed": float(np.mean((aucs > 0.8) & (lows > 0.5) & (adjusted <= 0.05))),
        # Each record's bound at 1 − 0.05/records: the largest holds at 95 % over all records together.
        "max_epsilon_lower_bound": max(r.epsilon_lower_bound_familywise for r in scored),
        "max_epsilon_lower_bound_per_record": max(r.epsilon_lower_bound for r in scored),
    }
    summary["dcr_test"], summary["utility"] = _one_output(setup, schema)
    summary["verdict"] = audit_verdict(summary, label)  # the answer names the generator in words
    return summary


def _one_output(setup: FitSetup, schema: Schema) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The DCR holdout test and the utility on model 0's output.

    Its training records against the pool records it left out (:func:`privcore.audit.one_output.output_checks`).
    """
    inside = setup.pool[setup.membership[0]].reset_index(drop=True)
    outside = setup.pool[~setup.membership[0]].reset_index(drop=True)
    size = min(len(inside), len(outside))
    if size < 2:
        return None, None
    try:
        output = setup.output(0)
    except Exception:  # noqa: BLE001 - the checks are context, not the audit's result
        return None, None
    return output_checks(inside, output, outside.iloc[:size], schema)
