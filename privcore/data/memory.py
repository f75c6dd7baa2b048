"""Refuse, before encoding, tables whose encoded form would not fit the memory budget."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from privcore.base import InputError, format_bytes
from privcore.data.schema import NUMERICAL, Schema

BUDGET_VARIABLE = "PRIVCORE_MEMORY_BUDGET"
#: E itself, the key-column copy, and the working copies of the model-based metrics.
WORKING_COPIES = 3
BYTES_PER_VALUE = 8
_UNITS = {"": 1, "b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
          "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4, "k": 1024, "m": 1024**2, "g": 1024**3}
_CGROUP_LIMITS = (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"))


class MemoryBudgetError(InputError):
    """The encoded tables would need more memory than the budget allows."""


def machine_memory() -> int | None:
    """Bytes of memory this process may use: physical memory, lowered by a cgroup limit if there is one."""
    sizes = []
    try:
        sizes.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # not a POSIX system
        pass
    for path in _CGROUP_LIMITS:
        try:
            text = path.read_text().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < 2**60:  # "max" or a huge number means no limit
            sizes.append(int(text))
    return min(sizes) if sizes else None


def parse_size(text: str) -> int:
    """Bytes of a size such as ``"8GB"``, ``"512 MiB"`` or ``"1000000"``.

    >>> parse_size("8GB"), parse_size("1.5 GiB"), parse_size("2048")
    (8000000000, 1610612736, 2048)
    """
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", str(text))
    unit = match[2].lower() if match else None
    if not match or unit not in _UNITS or float(match[1]) <= 0:
        raise InputError(f"{BUDGET_VARIABLE} must be a positive size such as 8GB or 512MiB; got {text!r}.")
    return int(float(match[1]) * _UNITS[unit])


def memory_budget() -> tuple[int | None, str]:
    """The budget in bytes (None: unknown machine, no limit) and where it comes from, in words."""
    configured = os.environ.get(BUDGET_VARIABLE, "").strip()
    if configured:
        return parse_size(configured), f"set by {BUDGET_VARIABLE}"
    total = machine_memory()
    if total is None:
        return None, "unknown"
    return total // 2, f"half of this machine's {format_bytes(total)}; set {BUDGET_VARIABLE} to change it"


def encoded_columns(tables: Mapping[str, pd.DataFrame], schema: Schema) -> tuple[int, str | None, int]:
    """Width of E for these tables, and the categorical column with the most categories (name, count)."""
    width, widest, widest_count = 0, None, 0
    for column in schema.columns:
        if schema.types[column] == NUMERICAL:
            width += 1
            continue
        values = np.concatenate([df[column].to_numpy() for df in tables.values() if df is not None])
        count = len(pd.unique(values))  # a missing value counts as one more category
        width += 1 if count <= 2 else count
        if count > widest_count:
            widest, widest_count = column, count
    return width, widest, widest_count


def estimate_bytes(tables: Mapping[str, pd.DataFrame], schema: Schema) -> tuple[int, int, int]:
    """Estimated bytes of an evaluation of these tables, with the rows and encoded columns it is based on."""
    rows = sum(len(df) for df in tables.values() if df is not None)
    width = encoded_columns(tables, schema)[0]
    return rows * width * BYTES_PER_VALUE * WORKING_COPIES, rows, width


def check_memory(tables: Mapping[str, pd.DataFrame], schema: Schema, budget: int | None = None) -> None:
    """Raise :class:`MemoryBudgetError` when the estimate exceeds the budget (``budget`` overrides it).

    The message gives the estimate, what it is made of, the budget and what to do.

    Notes
    -----
    An evaluation holds every table in the vector space E (float64, one coordinate per numerical or binary
    column and one per category of a categorical column), a copy restricted to the key columns, and working
    copies in the metrics that train models. Running out of memory half-way kills the server for every
    user; a clear message first is better.

    Estimate
        ``rows × encoded columns × 8 bytes × WORKING_COPIES``, with rows summed over the real, synthetic and
        holdout tables and the encoded columns counted from the data (categories of all tables together).
    Budget
        ``PRIVCORE_MEMORY_BUDGET`` (bytes, or a number with a unit: ``"8GB"``, ``"512 MiB"``), else half of the
        machine's memory (the smaller of the physical memory and a cgroup limit, as in a container).
    """
    if budget is None:
        budget, source = memory_budget()
    else:
        source = "given"
    if budget is None:
        return
    needed, rows, width = estimate_bytes(tables, schema)
    if needed <= budget:
        return
    _, widest, widest_count = encoded_columns(tables, schema)
    advice = "Use a sample of the rows"
    if widest is not None and widest_count > 50:
        advice += (f", or leave out column '{widest}' ({widest_count:,} categories, one encoded column each) "
                   "if it is an identifier or free text")
    raise MemoryBudgetError(
        f"These tables would need about {format_bytes(needed)} of memory once encoded ({rows:,} rows × {width:,} "
        f"encoded columns × {BYTES_PER_VALUE} bytes × {WORKING_COPIES} working copies), more than the memory "
        f"budget of {format_bytes(budget)} ({source}). {advice}."
    )
