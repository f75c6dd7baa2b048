"""Metric implementations. Importing this package registers every metric in :mod:`privcore.registry`."""

import importlib

# One module per family; each registers its metrics on import.
_MODULES = (
    "privcore.metrics.simulation",
    "privcore.metrics.distance",
    "privcore.metrics.projected",
    "privcore.metrics.classifier",
    "privcore.metrics.attacks.register",
    "privcore.metrics.proxy",
    "privcore.metrics.membership",
    "privcore.metrics.membership_battery",
    "privcore.metrics.membership_best",
    "privcore.metrics.membership_learned",
    "privcore.metrics.synqp",
)

for _name in _MODULES:
    try:
        importlib.import_module(_name)
    except ModuleNotFoundError as _exc:  # a family not written yet; every other family still registers
        if _exc.name != _name and not _name.startswith(str(_exc.name)):
            raise
