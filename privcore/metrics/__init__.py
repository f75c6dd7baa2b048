"""Metric implementations, one module per family, and what metrics declare themselves with: the
:mod:`~privcore.metrics.registry`, the :mod:`~privcore.metrics.results` and :mod:`~privcore.metrics.details`
types and their :mod:`~privcore.metrics.names`.

:func:`load_all` imports every family, which registers its metrics; the registry calls it on first use.
"""

import importlib

# One module (or package) per family; each registers its metrics on import.
_MODULES = (
    "privcore.metrics.simulation",
    "privcore.metrics.distance",
    "privcore.metrics.projected",
    "privcore.metrics.classifier",
    "privcore.metrics.attacks.register",
    "privcore.metrics.proxy",
    "privcore.metrics.membership",
    "privcore.metrics.synqp",
    "privcore.metrics.utility",
    "privcore.metrics.reconstruction",
)



def load_all() -> None:
    """Import every metric family, which registers its metrics (a no-op after the first call)."""
    for name in _MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a family not written yet; every other family still registers
            if exc.name != name and not name.startswith(str(exc.name)):
                raise
