"""The foundation: what every layer above may use and that imports nothing else of privcore.

``errors`` (the user-facing :class:`InputError` and the exceptions metrics raise), ``jsonvalues`` (numbers
made JSON-safe), ``stats`` (ROC, AUC, intervals, bootstrap: the statistics core), ``cores`` (how many
CPU cores this process may use) and ``blas_threads`` (BLAS held to one thread around a block).
"""

from privcore.base.faces import lazy_face

#: Each name of the face and the module that defines it (loaded on first access).
_FACE: dict[str, str] = {
    "one_blas_thread": "blas_threads", "resolve_workers": "cores", "usable_cores": "cores",
    "AllMissingColumnError": "errors", "ColumnMismatchError": "errors", "ColumnTypeConflictError": "errors",
    "DuplicateColumnsError": "errors", "EmptyFileError": "errors", "ExtremeValueError": "errors",
    "FileTooLargeError": "errors", "InputError": "errors", "NoHeaderError": "errors", "NotApplicable": "errors",
    "SchemaError": "errors", "TooFewRowsError": "errors", "UnparseableFileError": "errors",
    "format_bytes": "formatting", "format_duration": "formatting", "format_number": "formatting",
    "format_value": "formatting", "percent": "formatting",
    "finite_or_none": "jsonvalues", "jsonable": "jsonvalues", "without_timings": "jsonvalues",
    "logsumexp_rows": "logsumexp",
    "DASHES": "palette", "OKABE_ITO": "palette", "PALETTE": "palette", "ROLE_COLOURS": "palette", "SYMBOLS": "palette",
    "ProgressCallback": "progress",
    "roc_auc": "roc", "roc_curve": "roc", "roc_statistics": "roc",
    "AttackResult": "stats", "bootstrap_replicates": "stats", "epsilon_lower_bound": "stats", "epsilon_words": "stats",
    "holm_adjust": "stats", "percentile_interval": "stats", "Risk": "stats", "SuccessRate": "stats",
}

__all__ = sorted(["lazy_face", *lazy_face(__name__, _FACE, globals())])
