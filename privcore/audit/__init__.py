"""Auditing a generator: shadow-model membership inference against the generator itself.

``privcore.audit.audit`` and its settings and result types are importable from here
(:mod:`privcore.audit.targeted`). The shared-model design, every record of a pool audited
with one set of models, is :func:`audit_shared` (:mod:`privcore.audit.shared`).
"""

from privcore.audit._base import FPR_LEVELS, AuditError
from privcore.audit.shared import RecordResult, SharedAuditReport, SharedSettings, audit_shared
from privcore.audit.targeted import (
    ATTACKER_KNOWS,
    EXPLANATION,
    AuditReport,
    AuditSettings,
    TargetResult,
    audit,
    implied_epsilon,
)
from privcore.audit.tasks import GeneratorFactory
from privcore.evaluation.verdict import audit_severity as severity
from privcore.evaluation.verdict import audit_verdict as verdict

__all__ = ["ATTACKER_KNOWS", "EXPLANATION", "FPR_LEVELS", "AuditError", "AuditReport", "AuditSettings",
           "TargetResult", "audit", "implied_epsilon", "severity", "verdict",
           "GeneratorFactory", "RecordResult", "SharedAuditReport", "SharedSettings", "audit_shared"]
