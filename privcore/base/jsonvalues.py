"""Plain JSON values from what metrics return (numpy scalars and arrays, tuples, dataclasses, tables)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping

import numpy as np
import pandas as pd


def finite_or_none(value: Any) -> float | None:
    """``value`` as a float, or None when it is None, NaN or infinite (JSON has no such numbers)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def without_timings(value: Any) -> Any:
    """A JSON document (report, lab, audit) with every ``"seconds"`` entry left out, recursively.

    Those are the only values that differ between two runs of the same computation, so that reports can be compared.

    Examples
    --------
    >>> without_timings({"seconds": 1.5, "metrics": [{"risk": 0.2, "seconds": 0.1}]})
    {'metrics': [{'risk': 0.2}]}
    """
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON values, recursively; non-finite floats become None.

    A details object becomes its own JSON (``to_json``), other dataclasses a mapping of their fields; a
    table given as a parameter is described, never printed row by row; anything else unknown becomes
    its text.

    Examples
    --------
    >>> jsonable({"a": np.float64("nan"), "b": (np.int64(1), True), "c": np.array([0.5])})
    {'a': None, 'b': [1, True], 'c': [0.5]}
    """
    if hasattr(value, "to_json") and dataclasses.is_dataclass(value):
        return value.to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, pd.DataFrame):
        return f"table of {len(value)} rows × {value.shape[1]} columns"
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return finite_or_none(value)
    if value is None or isinstance(value, str):
        return value
    return str(value)
