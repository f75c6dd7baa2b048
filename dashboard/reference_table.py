"""The optional reference table: real records of the same population.

They were neither used for training nor are in the holdout; the table is passed to every metric that declares a
``reference`` parameter while it fits the real table.
"""

from __future__ import annotations

from typing import MutableMapping

from dashboard.session.state import LoadedTable, Tables
from dashboard.table_checks import FitProblem, describe, sentence
from privcore.base import ColumnMismatchError, InputError
from privcore.data import Schema, check_column_kinds_agree, check_no_all_missing, check_same_columns, only, read_columns
from privcore.evaluation import with_reference
from privcore.metrics import registry

#: Metrics that take the reference table as their ``reference`` parameter (every one that declares it, so
#: that all membership attacks and ``mia_best`` play on the same reference set): the list behind
#: ``evaluate(reference=...)`` and the command line's ``--reference`` too.
REFERENCE_METRICS = tuple(registry.reference_metrics())


def reference_problem(tables: Tables, reference: LoadedTable, schema: Schema | None = None) -> str | None:
    """Why ``reference`` cannot serve as the reference table of ``tables`` (None when it fits).

    It must have the real table's columns, no empty column, and numbers or text in the same columns; with
    ``schema``, only in the columns the settings read (:func:`reference_fit_problem`).
    """
    if tables.real is None:
        return (f"The reference table {reference.name} is checked against the real table: load the real "
                "table first, then upload the reference table again.")
    problem = reference_fit_problem(tables, reference, schema)
    return None if problem is None else problem.message


def reference_fit_problem(tables: Tables, reference: LoadedTable,
                          schema: Schema | None = None) -> FitProblem | None:
    """The first way ``reference`` does not fit the real table (with the mismatched columns), or None.

    Parameters
    ----------
    tables : Tables
        The loaded tables (the real one is the yardstick).
    reference : LoadedTable
        The reference table.
    schema : Schema, optional
        The column settings, applied ahead of the checks as for the other tables
        (:func:`dashboard.table_checks.fit_problems`): a column left out may be empty, and one declared
        categorical may hold numbers in one table and text in the other.
    """
    if tables.real is None:
        return None
    real_name, name = describe("real", tables.real.name), describe("reference", reference.name)
    try:
        check_same_columns(tables.real.frame, reference.frame, real_name, name)
    except ColumnMismatchError as exc:
        return FitProblem("reference", reference.name, sentence(str(exc)), list(exc.missing), list(exc.extra))
    read, kinds = (None, None) if schema is None else read_columns(schema)
    try:
        check_no_all_missing(only(reference.frame, read), name)
        check_column_kinds_agree({real_name: only(tables.real.frame, kinds), name: only(reference.frame, kinds)})
    except InputError as exc:
        return FitProblem("reference", reference.name, sentence(str(exc)))
    return None


def set_reference(state: MutableMapping, table: LoadedTable | None) -> None:
    """Store (or, with None, remove) the reference table and update ``metric_params`` accordingly.

    Notes
    -----
    Session-state keys: ``reference`` (:class:`~dashboard.session.state.LoadedTable` or None) and the ``reference`` entries of
    ``metric_params``; the results cache key counts it by its content hash (:func:`dashboard.session.state.run_key`) and
    reports describe it without printing its rows.
    """
    state["reference"] = table
    sync_reference(state)


def sync_reference(state: MutableMapping) -> None:
    """Pass the reference table to :data:`REFERENCE_METRICS` through ``metric_params`` while it fits.

    Without a reference table, or when it no longer fits the real table (which was replaced) under the
    column settings (``schema``; the Configure page calls this after each change), the ``reference`` entries
    are removed and the attacks fall back to half of the holdout. Other parameters in ``metric_params`` are
    left alone.
    """
    reference: LoadedTable | None = state.get("reference")
    tables: Tables | None = state.get("tables")
    usable = (reference is not None and tables is not None and tables.real is not None
              and reference_fit_problem(tables, reference, state.get("schema")) is None)
    params: dict = state.setdefault("metric_params", {})
    for metric_id in REFERENCE_METRICS:  # the previous reference first: it may not fit the tables any more
        own = dict(params.get(metric_id) or {})
        own.pop("reference", None)
        store_overrides(params, metric_id, own)
    if usable:
        # The function evaluate(reference=...) applies for the command line's --reference: the same files
        # give the same parameters, hence the same report. The run key hashes the frame's content.
        own = {metric_id: params.get(metric_id) or {} for metric_id in REFERENCE_METRICS}
        params.update(with_reference(own, reference.frame))


def store_overrides(params: dict, metric_id: str, own: dict) -> None:
    """Keep ``own`` as ``metric_id``'s entry of ``metric_params``; no entry at all when it is empty."""
    if own:
        params[metric_id] = own
    else:
        params.pop(metric_id, None)
