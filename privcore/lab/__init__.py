"""The metric lab: which privacy metric notices which kind of leak, and from which leak level.

API: :func:`run` (a generated leak ladder), :func:`run_ladder` (a supplied one) and :class:`LabResult`.
Errors are :class:`privcore.base.errors.InputError` subclasses under :class:`LabError`.
"""

from privcore.base import lazy_face

#: Each name of the face and the module that defines it (loaded on first access).
_FACE: dict[str, str] = {
    "LabError": "errors", "LabTableTooSmallError": "errors", "LevelError": "errors", "SeedsError": "errors",
    "UnknownLabMetricError": "errors", "UnknownLeakError": "errors",
    "CurvePoint": "result", "lab_report_schema": "result", "LabResult": "result", "LabRun": "result",
    "LabProgress": "runs", "run": "runs", "run_ladder": "runs", "split_tables": "runs",
    "check_label": "settings", "check_leaks": "settings", "check_levels": "settings", "check_margin": "settings",
    "check_metrics": "settings", "check_seeds": "settings", "DEFAULT_LEVELS": "settings",
    "DEFAULT_METRICS": "settings", "DEFAULT_SEEDS": "settings", "evaluations_needed": "settings",
    "MIN_PART_ROWS": "settings", "REFERENCE": "settings", "run_seeds": "settings",
    "DEFAULT_MARGIN": "statistics",
    "format_level": "summary", "leak_label": "summary", "LEAK_LABELS": "summary", "LEAK_PHRASES": "summary",
    "short_name": "summary",
}

__all__ = lazy_face(__name__, _FACE, globals())
