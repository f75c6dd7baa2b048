"""One evaluation's tables and how to run it, declared once: what the command line and the API build."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Union

import pandas as pd

from privcore.base import InputError, ProgressCallback
from privcore.data import Relation, Schema
from privcore.engine import DEFAULT_CHUNK_ELEMENTS

#: A role's data: one table, or (for related tables) tables by name.
Tables = Union[pd.DataFrame, Mapping[str, pd.DataFrame]]
ROLES = ("real", "synthetic", "holdout", "reference")


@dataclass(frozen=True)
class EvaluationOptions:
    """How an evaluation runs, beside its tables and metrics (see :func:`privcore.evaluation.evaluate.evaluate`).

    Attributes
    ----------
    seed : int, optional
        Seed of every random step (default the schema's).
    progress : callable, optional
        ``progress(fraction, message)``.
    params : mapping, optional
        Metric id → parameter overrides.
    famd_components, chunk_elements, strict, reuse, workers, cluster, device, dp_epsilon, split_reference
        As the keywords of :func:`~privcore.evaluation.evaluate.evaluate`.
    """

    seed: int | None = None
    progress: ProgressCallback | None = None
    params: Mapping[str, Mapping[str, Any]] | None = None
    famd_components: int | None = None
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS
    strict: bool = False
    reuse: dict | None = None
    workers: int | None = None
    cluster: Any = None
    device: str = "auto"
    dp_epsilon: float | None = None
    split_reference: bool = True


@dataclass(frozen=True)
class Dataset:
    """The tables of one evaluation by role, with their column settings and relations.

    One table per role, or, with ``relations``, several related tables per role by name (a table of people and the
    child tables that point to it); then the evaluation is per person (:mod:`privcore.evaluation.related`).

    Attributes
    ----------
    real, synthetic : DataFrame or mapping of str to DataFrame
        The training records and the release.
    holdout, reference : DataFrame or mapping, optional
        Real people not used for training (the membership attacks and the fresh-sample references), and more such
        people for the attacks' reference models.
    schema : Schema, optional
        One table's column settings (inferred from ``real`` when omitted). Related tables' schema is inferred on
        the person table.
    relations : tuple of Relation
        How each child table points to the people table.
    sensitive : str, optional
        Related tables: a column of the person table to treat as sensitive.
    names : mapping
        Role → file name (one table), or role → table name → file name (related tables), for messages.

    Raises
    ------
    InputError
        When a role's data does not have the shape the others have (one table where related tables are declared,
        or the other way round), naming the role and what to give.

    Examples
    --------
    >>> real = pd.DataFrame({"a": [1, 2, 3]})
    >>> Dataset(real, real.copy()).related
    False
    >>> Dataset(real, {"people": real})
    Traceback (most recent call last):
    ...
    privcore.base.errors.InputError: The synthetic data is several tables by name while the real data is one table: give one table per role, or declare the relations between named tables (Relation) and give every role as tables by name.
    """

    real: Tables
    synthetic: Tables
    holdout: Tables | None = None
    reference: Tables | None = None
    schema: Schema | None = None
    relations: tuple[Relation, ...] = ()
    sensitive: str | None = None
    names: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "relations", tuple(self.relations))
        for role in ROLES:
            value = getattr(self, role)
            if value is None:
                continue
            if self.related and isinstance(value, pd.DataFrame):
                raise InputError(f"The {role} data is one table, but relations between tables are declared: give "
                                 f"the {role} tables by name, one per table of the relations (e.g. "
                                 "{'patients': ..., 'visits': ...}).")
            if not self.related and isinstance(value, Mapping):
                raise InputError(f"The {role} data is several tables by name while the real data is one table: give "
                                 "one table per role, or declare the relations between named tables (Relation) and "
                                 "give every role as tables by name.")
        if self.related and self.schema is not None:
            raise InputError("Related tables take no schema: their columns are read on the person table (name the "
                             "sensitive column with sensitive=...).")

    @property
    def related(self) -> bool:
        """Whether the tables are related tables evaluated per person."""
        return bool(self.relations)
