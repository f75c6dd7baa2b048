"""The metric lab: which privacy metric notices which kind of leak, and from which leak level.

API: :func:`run` (a generated leak ladder), :func:`run_ladder` (a supplied one) and :class:`LabResult`.
Errors are :class:`privcore.base.errors.InputError` subclasses under :class:`LabError`.
"""

from privcore.lab import errors
from privcore.lab.errors import *  # noqa: F403 - the named errors, listed in errors.__all__
from privcore.lab.result import CurvePoint, LabResult, LabRun, lab_report_schema
from privcore.lab.runs import LabProgress, run, run_ladder, split_tables
from privcore.lab.settings import (
    DEFAULT_LEVELS,
    DEFAULT_METRICS,
    DEFAULT_SEEDS,
    MIN_PART_ROWS,
    REFERENCE,
    evaluations_needed,
)
from privcore.lab.statistics import DEFAULT_MARGIN

__all__ = [
    "run", "run_ladder", "LabProgress", "LabResult", "LabRun", "CurvePoint", "lab_report_schema", "split_tables",
    "evaluations_needed", "DEFAULT_LEVELS", "DEFAULT_METRICS", "DEFAULT_SEEDS", "DEFAULT_MARGIN", "MIN_PART_ROWS",
    "REFERENCE", *errors.__all__,
]
