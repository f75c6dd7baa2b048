"""Auditing a generator: membership inference against the generator itself.

Per target (:func:`audit`) or every record of a pool at once (:func:`audit_shared`). The package's face: import from
here; each name loads its module on first use, so importing the face costs nothing until an audit runs.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Each name of the face and the module that defines it (loaded on first access).
_FACE: dict[str, str] = {
    "AuditError": "_base", "FPR_LEVELS": "_base",
    "ATTACKER_KNOWS": "targeted", "EXPLANATION": "targeted", "AuditReport": "targeted", "AuditSettings": "targeted",
    "TargetResult": "targeted", "audit": "targeted", "implied_epsilon": "targeted",
    "DEFAULT_RECORDS": "shared", "RecordResult": "shared", "SharedAuditReport": "shared",
    "SharedSettings": "shared", "audit_shared": "shared", "plan_shared": "shared",
    "GeneratorFactory": "tasks",
    "fine_tuned_factory": "fine_tune",
    "StrongerResult": "stronger",
    "THREAT_MODEL": "whitebox", "WHITEBOX_FPR_LEVELS": "whitebox", "WhiteBoxResult": "whitebox",
    "has_loss": "whitebox",
    "AuditEstimate": "timing", "ModelTiming": "timing", "estimate_shared": "timing",
    "estimate_targeted": "timing",
    "audit_report_schema": "contract",
}
#: The audit's verdict, decided where every verdict is (:mod:`privcore.evaluation.verdict`).
_VERDICT = {"severity": "audit_severity", "verdict": "audit_verdict"}

__all__ = sorted([*_FACE, *_VERDICT])


def __getattr__(name: str) -> Any:
    if name in _FACE:
        value = getattr(importlib.import_module(f"{__name__}.{_FACE[name]}"), name)
    elif name in _VERDICT:
        value = getattr(importlib.import_module("privcore.evaluation.verdict"), _VERDICT[name])
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
