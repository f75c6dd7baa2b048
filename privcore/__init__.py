"""privcore: privacy-risk metrics for synthetic tabular data.

The public surface is small: :func:`evaluate` (and :func:`evaluate_related` for a table of people with child
tables, or :func:`evaluate_dataset` on one :class:`Dataset` for either), :class:`Schema`, :func:`infer_schema`,
:func:`load_table` and the result types. Everything else is an implementation module.
"""

from privcore.base import lazy_face

#: Each public name and where it is defined, loaded on first access so that ``import privcore`` stays light (the
#: evaluation and the loader's optional format readers only when asked for).
_FACE: dict[str, str] = {
    "evaluate": "evaluation.evaluate", "Report": "evaluation", "Schema": "data", "infer_schema": "data",
    "load_table": "data", "InputError": "base", "MetricResult": "metrics",
    "evaluate_related": "evaluation", "Relation": "data",
    "Dataset": "evaluation", "EvaluationOptions": "evaluation", "evaluate_dataset": "evaluation",
}

__all__ = ["evaluate", "evaluate_related", "evaluate_dataset", "Dataset", "EvaluationOptions", "Schema", "infer_schema",
           "InputError", "MetricResult", "Relation", "Report", "load_table"]
__version__ = "0.1.0"

lazy_face(__name__, _FACE, globals())
