"""privcore: privacy-risk metrics for synthetic tabular data.

The public surface is small: :func:`evaluate`, :class:`Schema`, :func:`infer_schema`, :func:`load_table`
and the result types. Everything else is an implementation module.
"""

from privcore.base.errors import InputError
from privcore.data.schema import Schema, infer_schema
from privcore.evaluation.evaluate import evaluate
from privcore.evaluation.outcome import Report
from privcore.metrics.results import MetricResult

__all__ = ["evaluate", "Schema", "infer_schema", "InputError", "MetricResult", "Report", "load_table"]
__version__ = "0.1.0"


def __getattr__(name):
    # The loader pulls in optional format readers; import it only when asked for.
    if name == "load_table":
        from privcore.data.io import load_table  # lazy: `import privcore` stays light (see above)

        return load_table
    raise AttributeError(name)
