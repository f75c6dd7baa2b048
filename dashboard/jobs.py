"""The dashboard's heavy computations as plain, picklable functions.

:mod:`dashboard.compute` runs them in worker processes; no Streamlit import, so a worker starts quickly. The jobs never
import a view: what they share lives in :mod:`dashboard.progress` and :mod:`dashboard.generator_factory`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from dashboard.generator_factory import maker
from dashboard.progress import progress_update
from privcore import Dataset, EvaluationOptions, evaluate_dataset
from privcore.data import Schema
from privcore.evaluation import Report
from privcore.generators import generator_title

LOGGER = logging.getLogger(__name__)


def evaluate_tables(
    real: pd.DataFrame,
    synthetic: Mapping[str, pd.DataFrame],
    schema: Schema,
    metric_ids: list[str],
    *,
    holdout: pd.DataFrame | None,
    params: Mapping[str, Mapping[str, Any]],
    famd_components: int | None,
    names: Mapping[str, str],
    progress: Callable[[float, str], None],
) -> dict[str, Report]:
    """Evaluate every synthetic table against the real one (and the holdout).

    The passes that do not involve a synthetic table are shared; ``progress`` gets the fraction over all tables.

    ``names`` maps ``"real"`` and ``"holdout"`` to the file names used in messages.
    """
    order = list(synthetic)
    reports: dict[str, Report] = {}
    reuse: dict = {}  # real→real and holdout passes, computed once for all synthetic tables
    for position, name in enumerate(order):

        def report_progress(fraction: float, message: str, _pos=position, _name=name) -> None:
            overall = (_pos + min(max(fraction, 0.0), 1.0)) / len(order)
            progress(overall, f"{_name} — {message}")

        dataset = Dataset(real, synthetic[name], holdout, schema=schema, names={**names, "synthetic": name})
        options = EvaluationOptions(seed=schema.seed, progress=report_progress, params=params, reuse=reuse,
                                    famd_components=famd_components)
        reports[name] = evaluate_dataset(dataset, metric_ids, options)
        for error in reports[name].errors:  # internal errors go to the log, users see a short reason
            LOGGER.error("metric failed on %s: %s", name, error)
    return reports


def lab_generated(real: pd.DataFrame, schema: Schema, *, progress: Callable[[float, str], None],
                  **settings: Any):
    """:func:`privcore.lab.run` with a bar-style ``progress(fraction, message)``."""
    from privcore.lab import run  # on the first lab job only: a worker that only evaluates starts sooner

    # One process: the dashboard's pool already spreads users' jobs over the cores.
    return run(real, schema, progress=progress_update(progress), **{"workers": 1, **settings})


def lab_supplied(real: pd.DataFrame, ladder: Mapping[float, list[pd.DataFrame]], schema: Schema, *,
                 progress: Callable[[float, str], None], **settings: Any):
    """:func:`privcore.lab.run_ladder` with a bar-style ``progress(fraction, message)``."""
    from privcore.lab import run_ladder  # on the first lab job only, as above

    return run_ladder(real, ladder, schema, progress=progress_update(progress), **{"workers": 1, **settings})


def audit_generator(real: pd.DataFrame, schema: Schema, name: str, settings: Mapping[str, Any], budget_settings,
                    *, progress: Callable[[float, str], None]):
    """:func:`privcore.audit.targeted.audit` of the built-in generator ``name``, made in the worker.

    Its factory is a closure, which cannot travel between processes.
    """
    from privcore.audit import audit  # on the first audit only (it loads scikit-learn's models)

    return audit(real, None, schema, settings=budget_settings, generator_name=name,
                 generator_label=generator_title(name, settings), make=maker(name, settings, schema),
                 progress=progress)


def audit_generator_shared(real: pd.DataFrame, schema: Schema, name: str, settings: Mapping[str, Any],
                           shared_settings, *, progress: Callable[[float, str], None], whitebox: bool = False,
                           stronger: bool = False):
    """:func:`privcore.audit.shared.audit_shared` of the generator ``name``: every pool record at once.

    Parameters
    ----------
    real : DataFrame
        The real table.
    schema : Schema
        Column types, key and sensitive column (the generator's context).
    name : str
        A generator the Audit page offers (:func:`privcore.generators.list_generators`).
    settings : mapping
        Its settings that differ from their defaults.
    shared_settings : privcore.audit.shared.SharedSettings
        Models, records and seed.
    progress : callable
        ``progress(fraction, message)``; the worker pool stops the job at a report once it is cancelled.
    whitebox : bool
        Also run the white-box attack on the models' per-record losses (a generator with a loss only).
    stronger : bool
        Also run the stronger black-box attacks, RMIA and the meta-classifier (:mod:`privcore.audit.stronger`).

    Returns
    -------
    privcore.audit.shared.SharedAuditReport
    """
    from privcore.audit import GeneratorFactory, audit_shared  # lazy: on the first shared audit (scikit-learn)

    # One process: the dashboard's pool already spreads users' jobs over the cores.
    return audit_shared(real, None, schema, settings=shared_settings, generator_name=name,
                        generator_label=generator_title(name, settings),
                        make=GeneratorFactory(name, dict(settings), schema.key_columns, schema.sensitive),
                        progress=progress, workers=1, whitebox=whitebox, stronger=stronger)


def time_audit(real: pd.DataFrame, schema: Schema, name: str, settings: Mapping[str, Any], budget_settings,
               design: str, *, progress: Callable[[float, str], None], whitebox: bool = False,
               stronger: bool = False):
    """The run-time estimate of the audit the page would run, from trial fits of the generator ``name`` on ``real``.

    Parameters
    ----------
    real : DataFrame
        The real table.
    schema : Schema
        Column types, key and sensitive column (the generator's context).
    name : str
        A generator the Audit page offers.
    settings : mapping
        Its settings that differ from their defaults.
    budget_settings : SharedSettings or AuditSettings
        The budget of the ``design`` chosen.
    design : str
        ``"shared"`` or ``"targeted"``.
    progress : callable
        ``progress(fraction, message)`` while the trial fits run.
    whitebox : bool
        The shared audit runs the white-box attack: each trial model's loss is timed too.
    stronger : bool
        The shared audit runs the stronger black-box attacks: they are timed too.

    Returns
    -------
    privcore.audit.timing.AuditEstimate
        For one worker, as the page's audits run (the pool spreads users' jobs, not one audit's fits).
    """
    from privcore.audit import estimate_shared, estimate_targeted  # on the first estimate only (scikit-learn)

    make = maker(name, settings, schema)
    # generator_name only names the generator in the estimate's errors: in words, as the audit's answer does.
    title = generator_title(name, settings)
    if design == "shared":
        return estimate_shared(real, schema, make, budget_settings, generator_name=title, progress=progress,
                               whitebox=whitebox, stronger=stronger)
    return estimate_targeted(real, schema, make, budget_settings, generator_name=title, progress=progress)
