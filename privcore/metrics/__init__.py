"""Metric implementations, one module per family, and what metrics declare themselves with.

The :mod:`~privcore.metrics.registry`, the :mod:`~privcore.metrics.results` and :mod:`~privcore.metrics.details` types
and their :mod:`~privcore.metrics.names`. :func:`load_all` imports every metric module, which registers its metrics; the
registry calls it on first use.
"""

import importlib
import pkgutil

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
