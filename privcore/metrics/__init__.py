"""Metric implementations, one module per family, and what metrics declare themselves with.

The :mod:`~privcore.metrics.registry`, the :mod:`~privcore.metrics.results` and :mod:`~privcore.metrics.details` types
and their :mod:`~privcore.metrics.names`. :func:`load_all` imports every metric module, which registers its metrics; the
registry calls it on first use.
"""

import importlib
import pkgutil

from privcore.base import lazy_face

#: Each name of the face and the module that defines it (loaded on first access).
_FACE: dict[str, str] = {
    "inference": "attacks", "linkability": "attacks", "singling_out_multivariate": "attacks",
    "singling_out_univariate": "attacks",
    "AttackRates": "details", "ClassifierScores": "details", "ColumnShapes": "details", "DETAILS_TYPES": "details",
    "Discrimination": "details", "EpsilonSeries": "details", "IdenticalShares": "details",
    "InferenceAttack": "details", "LinkabilityAttack": "details", "MembershipBattery": "details",
    "NormalisedDistances": "details",
    "MembershipScores": "details", "ModelUtility": "details", "PairTrends": "details", "ProxyTest": "details",
    "ReproducedIdentifiers": "details", "SinglingOutAttack": "details",
    "membership_sets": "membership", "seeded_halves": "membership", "value_reuse": "membership",
    "value_text": "membership",
    "metric_name": "names", "short_attack": "names", "short_name": "names", "SHORT_NAMES": "names",
    "RECONSTRUCTION_DETAILS": "reconstruction",
    "Reconstruction": "reconstruction._base",
    "battery_ids": "registry", "Explanation": "registry",
    "MetricOutput": "results", "MetricResult": "results", "SizeMatch": "results", "UtilityScore": "results",
    "bin_column": "utility._base", "column_kinds": "utility._base", "FRESH_SAMPLE": "utility._base",
    "MATCH_REPEATS": "utility._base", "shares": "utility._base", "tvd": "utility._base",
    "discriminate": "utility.discriminator",
}

__all__ = sorted(["load_all", *lazy_face(__name__, _FACE, globals())])

_LOADED: list[bool] = []


def load_all() -> None:
    """Import every public module under ``privcore.metrics``, which registers their metrics.

    A no-op after the first call.

    Notes
    -----
    Every module is found by walking the package, so a new metric module registers without any list to edit;
    modules whose name starts with an underscore (a family's ``_base``, helpers) are imported by their users.
    The order of import does not matter: each metric declares its place in the listings (``MetricInfo.order``).
    """
    if _LOADED:
        return
    for module in pkgutil.walk_packages(__path__, prefix=__name__ + "."):
        if not any(part.startswith("_") for part in module.name.split(".")):
            importlib.import_module(module.name)
    _LOADED.append(True)
