"""Reconstruction attacks (family "Reconstruction"): an attacker who knows a person's key columns reconstructs every
other column of their record from the synthetic table.

:mod:`._base` holds the scores (rarity-weighted accuracy, normalised error), the advantage of members over
non-members and the details kinds; :mod:`.attacks` the two attacks (nearest records on the shared engine, chained
LightGBM predictors); :mod:`.metrics` what each metric computes; :mod:`.register` their declarations.
"""

from privcore.metrics.reconstruction import register  # noqa: F401  (the metrics register themselves)
from privcore.metrics.reconstruction._base import RECONSTRUCTION_DETAILS  # noqa: F401
