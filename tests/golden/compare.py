"""Compare two golden snapshots with a tolerance that a change of CPU or BLAS kernel cannot break.

Two machines whose BLAS kernels sum in another order (OpenBLAS picks Haswell, SkylakeX or Zen code by the
CPU) differ in the last digits of a float, so a snapshot compared digit for digit measures the CPU, not the
code. :func:`differences` walks two snapshots and reports only what a real change of a metric shows:

- strings, booleans, integers, dictionary keys and list lengths exactly (titles, ids, captions, shapes);
- floats within a relative tolerance of :data:`RELATIVE` (1e-8: a kernel changes the 15th-16th significant
  digit and the snapshot keeps 10, a change of definition moves far more), with an absolute floor of
  :data:`ABSOLUTE` for values near 0, where a relative error means nothing;
- Plotly's typed arrays (``{"dtype": ..., "bdata": base64}``) decoded and compared element by element in
  the same way, dtype and shape exactly.
"""

from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np

#: Relative tolerance on floats: far above a BLAS kernel's rounding, far below any change of a metric.
RELATIVE = 1e-8
#: Absolute floor for values near 0 (a sum that is 0 on one kernel and 1e-17 on another).
ABSOLUTE = 1e-12


def close(a: float, b: float, relative: float = RELATIVE, absolute: float = ABSOLUTE) -> bool:
    """Whether two floats agree within ``relative`` (of the larger) or ``absolute``."""
    return math.isclose(a, b, rel_tol=relative, abs_tol=absolute)


def _typed_array(value: Any) -> np.ndarray | None:
    """The array behind a Plotly typed-array dict, or None when ``value`` is not one."""
    if not (isinstance(value, dict) and "bdata" in value and "dtype" in value):
        return None
    array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    shape = value.get("shape")
    if shape is not None:
        dims = [int(s) for s in str(shape).split(",")] if isinstance(shape, str) else list(shape)
        array = array.reshape(dims)
    return array


def _array_differences(a: np.ndarray, b: np.ndarray, path: str, relative: float, absolute: float) -> list[str]:
    if a.dtype != b.dtype or a.shape != b.shape:
        return [f"{path}: typed array {a.dtype}{a.shape} → {b.dtype}{b.shape}"]
    if a.dtype.kind != "f":
        return [] if np.array_equal(a, b) else [f"{path}: typed array values differ"]
    same = np.isclose(b, a, rtol=relative, atol=absolute, equal_nan=True) & np.isclose(
        a, b, rtol=relative, atol=absolute, equal_nan=True)
    if same.all():
        return []
    first = int(np.flatnonzero(~same.ravel())[0])
    return [f"{path}[{first}]: {a.ravel()[first]!r} → {b.ravel()[first]!r} "
            f"({int((~same).sum())} of {same.size} values differ)"]


def differences(old: Any, new: Any, path: str = "", relative: float = RELATIVE,
                absolute: float = ABSOLUTE) -> list[str]:
    """Where ``new`` differs from ``old`` beyond the tolerance, as readable paths (empty when the same).

    Parameters
    ----------
    old, new : Any
        Two snapshots (or parts of them) as read from JSON: dicts, lists, strings, numbers, booleans, None.
    path : str
        Where in the snapshot ``old`` sits, for the messages.
    relative, absolute : float
        The float tolerances (see :data:`RELATIVE` and :data:`ABSOLUTE`).

    Returns
    -------
    list of str
        One line per difference: its path and the two values.
    """
    old_array, new_array = _typed_array(old), _typed_array(new)
    if old_array is not None or new_array is not None:
        if old_array is None:
            old_array = np.asarray(old)
        if new_array is None:
            new_array = np.asarray(new)
        return _array_differences(old_array, new_array, path, relative, absolute)
    if isinstance(old, dict) and isinstance(new, dict):
        if set(old) != set(new):
            return [f"{path}: keys {sorted(set(old) - set(new))} gone, {sorted(set(new) - set(old))} new"]
        out: list[str] = []
        for key in old:
            out.extend(differences(old[key], new[key], f"{path}.{key}", relative, absolute))
        return out
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            return [f"{path}: {len(old)} items → {len(new)}"]
        out = []
        for i, (a, b) in enumerate(zip(old, new)):
            out.extend(differences(a, b, f"{path}[{i}]", relative, absolute))
        return out
    is_float = isinstance(old, float) or isinstance(new, float)
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (old, new))
    if is_float and numbers:
        if math.isnan(old) and math.isnan(new):
            return []
        return [] if close(old, new, relative, absolute) else [f"{path}: {old!r} → {new!r}"]
    if type(old) is not type(new) or old != new:
        return [f"{path}: {old!r} → {new!r}"]
    return []
