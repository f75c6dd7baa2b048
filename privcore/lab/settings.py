"""The lab's settings: defaults and the checks that turn a bad setting into a named error."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from privcore.base import InputError
from privcore.data import MAX_SEED, Param, check_seed, check_settings
from privcore.evaluation import resolve_metric_ids
from privcore.generators import LADDER
from privcore.lab.errors import LabError, LevelError, SeedsError, UnknownLabMetricError, UnknownLeakError
from privcore.lab.statistics import DEFAULT_MARGIN

__all__ = ["DEFAULT_LEVELS", "DEFAULT_SEEDS", "DEFAULT_METRICS", "MIN_PART_ROWS", "MAX_SEEDS", "REFERENCE",
           "check_leaks", "check_levels", "check_seeds", "check_metrics", "check_margin", "check_label",
           "run_seeds", "evaluations_needed", "LAB_PARAMS", "check_lab_settings"]

#: The default grid of leak levels.
DEFAULT_LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)
#: The default number of seeds (synthetic tables per leak type and level).
DEFAULT_SEEDS = 3
#: Most seeds a lab accepts.
MAX_SEEDS = 100
#: The default metrics: the 15 review metrics without a classifier, both singling-out attacks, the
#: inference attack and the distance membership attack.
DEFAULT_METRICS = ("zcap", "gcap", "air", "crp", "cvp", "dvp", "auth", "idscore", "nsnd", "nndr", "dcr", "mdcr",
                   "nnaa", "hidr", "hitr", "singling_out_univariate", "singling_out_multivariate", "inference",
                   "mia_distance")
#: Fewest rows of each part of a split (training table, holdout, fresh population).
MIN_PART_ROWS = 20
#: The leak name of the reference runs: fresh samples of the population.
REFERENCE = "fresh_sample"

#: The lab's numeric settings, each declared once and checked by :func:`check_lab_settings`. The run seed is the
#: schema's (:func:`privcore.data.schema.check_seed`); the leak levels' one rule between values (one above 0) is
#: :func:`check_levels`'s.
LAB_PARAMS = (
    Param("levels", "numbers", list(DEFAULT_LEVELS), "Leak levels", "Leak strengths of the ladder, from 0 (no leak) "
          "to 1 (the strongest leak); 0, the fresh-sample reference, is always added.", minimum=0.0, maximum=1.0),
    Param("seeds", "int", DEFAULT_SEEDS, "Seeds", "Synthetic tables per leak type and level (3 or more for the "
          "detection rule to mean something).", minimum=1, maximum=MAX_SEEDS),
    Param("workers", "int", None, "Workers", "Processes that evaluate the synthetic tables.", minimum=1,
          rule="not set: every usable core, at most one per 4 tables (1 inside a daemonic process)"),
    Param("margin", "float", DEFAULT_MARGIN, "Detection margin", "Risk units by which a leaked table's risk must "
          "exceed the fresh samples'.", minimum=0.0, maximum=0.99),
)


def check_lab_settings(error: type[Exception] = LabError, **values: Any) -> dict[str, Any]:
    """The given lab settings checked against :data:`LAB_PARAMS`; ``error`` (a :class:`LabError`) otherwise.

    >>> check_lab_settings(seeds=3, workers=2)
    {'seeds': 3, 'workers': 2}
    >>> check_lab_settings(workers=0)
    Traceback (most recent call last):
    ...
    privcore.lab.errors.LabError: Workers (lab.workers) must be at least 1; got 0.
    """
    return check_settings("lab", LAB_PARAMS, values, error)


def _items(value: str | Iterable[Any]) -> list[Any]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return list(value)


def check_leaks(leaks: str | Iterable[str]) -> list[str]:
    """Leak types as a list in the given order, duplicates dropped; :class:`UnknownLeakError` otherwise.

    >>> check_leaks("partial_copy,noisy_copy")
    ['partial_copy', 'noisy_copy']
    """
    chosen = list(dict.fromkeys(_items(leaks)))
    unknown = [leak for leak in chosen if leak not in LADDER]
    if unknown or not chosen:
        what = f"Unknown leak type(s): {', '.join(map(str, unknown))}." if unknown else "No leak type chosen."
        raise UnknownLeakError(f"{what} Leak types: {', '.join(LADDER)}.")
    return chosen


def check_label(value: Any, what: str = "The ladder label") -> float:
    """A finite number (a level or a supplied ladder's label); :class:`LevelError` otherwise."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise LevelError(f"{what} {value!r} is not a number.") from None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(value)):
        raise LevelError(f"{what} {value!r} is not a finite number.")
    return float(value)


def check_levels(levels: str | Iterable[Any]) -> list[float]:
    """Leak levels in [0, 1], ascending, without duplicates, with 0 (the reference grid point) added.

    >>> check_levels("1, 0.25")
    [0.0, 0.25, 1.0]
    """
    values = check_lab_settings(LevelError, levels=levels)["levels"]
    grid = sorted(set(values) | {0.0})
    if len(grid) < 2:
        raise LevelError("Give at least one leak level above 0 (levels are numbers from 0 to 1, e.g. 0,0.25,0.5,1).")
    return grid


def check_seeds(seeds: Any) -> int:
    """The number of seeds, a whole number from 1 to :data:`MAX_SEEDS`; :class:`SeedsError` otherwise.

    A text of one is accepted too.

    >>> check_seeds(" 3"), check_seeds(3)
    (3, 3)
    """
    if isinstance(seeds, str):  # the command line and the Lab page give text; a text that is no int is refused below
        try:
            seeds = int(seeds.strip())
        except ValueError:
            pass
    return check_lab_settings(SeedsError, seeds=seeds)["seeds"]


def check_metrics(metrics: str | Iterable[str]) -> list[str]:
    """Metric ids (or ``"all"``, a preset, ``"id,id"``); :class:`UnknownLabMetricError` otherwise."""
    try:
        return resolve_metric_ids(metrics)
    except InputError as exc:
        raise UnknownLabMetricError(str(exc)) from None


def check_margin(margin: Any) -> float:
    """The detection margin, a number from 0 to below 1 (risk units); :class:`LabError` otherwise."""
    return check_lab_settings(margin=check_label(margin, "The detection margin"))["margin"]


def run_seeds(seed: Any, count: int) -> list[int]:
    """The runs' seeds ``seed + i`` for i < ``count`` (modulo 2**31); :class:`LabError` for a bad ``seed``."""
    try:
        seed = check_seed(seed)
    except InputError as exc:
        raise LabError(f"The lab's seed: {exc}") from None
    return [(seed + i) % (MAX_SEED + 1) for i in range(count)]


def evaluations_needed(leaks: Sequence[str], levels: Sequence[float], seeds: int) -> int:
    """Synthetic tables a lab evaluates (the level-0 tables that equal the fresh reference counted once).

    >>> evaluations_needed(LADDER, [0, 0.25, 0.5, 0.75, 1], 3)
    93
    """
    fresh_at_zero = {"partial_copy", "rare_records", "attribute_leak", "value_reuse", "column_resample"}
    grid = sorted(set(levels) | {0.0})
    tables = 1 + sum(len(grid) - (leak in fresh_at_zero) for leak in leaks)
    return tables * seeds
