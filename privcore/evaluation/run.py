"""Evaluate a :class:`~privcore.evaluation.dataset.Dataset`: one table per role, or related tables per person."""

from __future__ import annotations

from typing import Iterable

from privcore.evaluation.dataset import Dataset, EvaluationOptions
from privcore.evaluation.evaluate import evaluate_tables
from privcore.evaluation.outcome import Report
from privcore.evaluation.related import evaluate_people


def evaluate_dataset(dataset: Dataset, metrics: str | Iterable[str] = "all",
                     options: EvaluationOptions | None = None) -> Report:
    """The evaluation of ``dataset`` under ``options``: what the command line runs for one table or several.

    Parameters
    ----------
    dataset : Dataset
        The tables by role, their column settings and relations, checked when it was built.
    metrics : str or iterable of str
        ``"all"``, a preset name or metric ids (:func:`privcore.evaluation.evaluate.resolve_metric_ids`).
    options : EvaluationOptions, optional
        Seed, progress, parameters and engine settings.

    Returns
    -------
    Report
        Per row (:func:`~privcore.evaluation.evaluate.evaluate_tables`), or per person with ``related`` set
        (:func:`~privcore.evaluation.related.evaluate_people`).

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "x"]})
    >>> report = evaluate_dataset(Dataset(real, real.copy()), "crp", EvaluationOptions(seed=1))
    >>> round(report["crp"].risk, 6), report.related
    (1.0, None)
    """
    run = evaluate_people if dataset.related else evaluate_tables
    return run(dataset, metrics, options)
