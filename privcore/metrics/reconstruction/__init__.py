"""Reconstruction attacks (family "Reconstruction").

An attacker who knows a person's key columns reconstructs every other column of their record from the synthetic table.
:mod:`._base` holds the scores, :mod:`.attacks` the two attacks, :mod:`.metrics` what each metric computes and
:mod:`.register` their declarations.
"""

from privcore.metrics.reconstruction import register  # noqa: F401  (the metrics register themselves)
from privcore.metrics.reconstruction._base import RECONSTRUCTION_DETAILS  # noqa: F401
