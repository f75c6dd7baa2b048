"""Auditing a generator: membership inference against the generator itself.

Per target (:func:`audit`) or every record of a pool at once (:func:`audit_shared`). The package's face: import from
here; each name loads its module on first use, so importing the face costs nothing until an audit runs.
"""

from privcore.base import lazy_face

#: Each name of the face and the module that defines it (loaded on first access); the audit's verdict is decided
#: where every verdict is (:mod:`privcore.evaluation.verdict`).
_FACE: dict[str, str] = {
    "AuditError": "_base", "FPR_LEVELS": "_base",
    "ATTACKER_KNOWS": "targeted", "EXPLANATION": "targeted", "AuditReport": "targeted", "AuditSettings": "targeted",
    "TargetResult": "targeted", "audit": "targeted", "implied_epsilon": "targeted",
    "DEFAULT_RECORDS": "shared", "RecordResult": "shared", "SharedAuditReport": "shared",
    "SharedSettings": "shared", "audit_shared": "shared", "plan_shared": "shared", "AttackInputs": "shared",
    "crossfit_scores": "crossfit", "null_shares": "crossfit", "record_statistics": "crossfit",
    "GeneratorFactory": "tasks",
    "fine_tuned_factory": "fine_tune",
    "StrongerResult": "stronger", "stronger_attack": "stronger", "attack_shares": "stronger",
    "THREAT_MODEL": "whitebox", "WHITEBOX_FPR_LEVELS": "whitebox", "WhiteBoxResult": "whitebox",
    "has_loss": "whitebox",
    "AuditEstimate": "timing", "ModelTiming": "timing", "estimate_shared": "timing",
    "estimate_targeted": "timing",
    "audit_report_schema": "contract",
    "severity": "privcore.evaluation.verdict:audit_severity", "verdict": "privcore.evaluation.verdict:audit_verdict",
}

__all__ = lazy_face(__name__, _FACE, globals())
