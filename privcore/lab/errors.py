"""Named errors of the metric lab: bad lab settings and tables too small to split.

All are :class:`privcore.base.errors.InputError` subclasses (the command line exits with status 2 and prints
the message on one line; the dashboard shows it next to the setting).
"""

from __future__ import annotations

from privcore.base import InputError, TooFewRowsError

__all__ = [
    "LabError",
    "UnknownLeakError",
    "LevelError",
    "SeedsError",
    "UnknownLabMetricError",
    "LabTableTooSmallError",
]


class LabError(InputError):
    """A lab setting or lab input that cannot be used."""


class UnknownLeakError(LabError):
    """A leak type that is not on the ladder (:data:`privcore.generators.LADDER`)."""


class LevelError(LabError):
    """A leak level outside [0, 1], not a number, or no level at all (or a bad label of a supplied ladder)."""


class SeedsError(LabError):
    """The number of seeds is not a whole number of at least 1."""


class UnknownLabMetricError(LabError):
    """A metric id or preset that is not registered (``python -m privcore metrics`` lists them)."""


class LabTableTooSmallError(LabError, TooFewRowsError):
    """The real table (or the holdout) has too few rows to split off a holdout and a fresh population."""
