"""Built-in generators made as the Audit page's audit makes them: with the schema's key and sensitive column.

Used by the Audit page's view (:mod:`dashboard.audit.view`, to check a generator's settings) and by the
worker job (:mod:`dashboard.jobs`, to build the generators of an audit); below both, so the job never
imports a view. No Streamlit import.
"""

from __future__ import annotations

from typing import Any, Mapping

from privcore.audit import GeneratorFactory
from privcore.data import Schema


def generator_context(schema: Schema) -> dict[str, Any]:
    """The context a built-in generator gets from the schema: its key columns and sensitive column.

    Parameters
    ----------
    schema : Schema
        The current column types, key and sensitive column.

    Returns
    -------
    dict
        ``{"key": [...], "sensitive": name or None}``, keyword arguments of
        :func:`privcore.generators.make_generator`.
    """
    return {"key": list(schema.key_columns), "sensitive": schema.sensitive}


def maker(name: str, settings: Mapping[str, Any], schema: Schema) -> GeneratorFactory:
    """``make(population)`` for :func:`privcore.audit.targeted.audit`: a fresh built-in generator per model.

    Parameters
    ----------
    name : str
        A built-in generator's name (:func:`privcore.generators.list_generators`).
    settings : mapping
        Its settings, as :func:`dashboard.audit.view.changed_settings` gives them.
    schema : Schema
        Gives the generator's context (:func:`generator_context`).

    Returns
    -------
    GeneratorFactory
        ``make(population[, seed])``: an unfitted generator; each model gets its fit's seed
        (:mod:`privcore.audit.factory`).
    """
    return GeneratorFactory(name, dict(settings), **generator_context(schema))
