"""Bring outside synthesizers under the generator protocol (no dependency on any of them).

:class:`SDVAdapter` wraps an SDV-style single-table synthesizer, i.e. any object with ``fit(df)`` and
``sample(num_rows)``, for example SDV's ``GaussianCopulaSynthesizer`` or ``CTGANSynthesizer``::

    from sdv.metadata import Metadata
    from sdv.single_table import GaussianCopulaSynthesizer
    from privcore.generators import SDVAdapter

    metadata = Metadata.detect_from_dataframe(real)
    generator = SDVAdapter(lambda: GaussianCopulaSynthesizer(metadata))   # a new synthesizer per fit
    synthetic = generator.fit(real, types).sample(len(real), seed=0)

:func:`as_generator` accepts any of: a protocol object (``fit(table, types)``, ``sample(n, seed)``), an
object with ``fit(table)`` and ``sample(n, seed)``, or an SDV-style synthesizer.
"""

from __future__ import annotations

import inspect
import random
import sys
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from privcore.generators.base import BaseGenerator, GeneratorError, _check_n, _check_table, check_sample
from privcore.data.schema import check_seed

__all__ = ["SDVAdapter", "as_generator"]


def seed_global_state(seed: int) -> None:
    """Seed the global random state SDV-style synthesizers draw from: Python's, numpy's legacy one and,
    if it is already imported, torch's."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)


class _Wrapper:
    """Common part of the adapters: table checks, a fit-before-sample check, every output checked."""

    name: str

    def fit(self, table: pd.DataFrame, types: Mapping[str, str] | None = None):
        """Fit the wrapped synthesizer on ``table`` (see the class for what it receives)."""
        table = _check_table(table, self.name)
        self._fit_inner(table, types)
        self._like = table.iloc[:0]
        return self

    def sample(self, n: int, seed: int = 0) -> pd.DataFrame:
        """``n`` rows for ``seed``, checked and conformed to the training table by :func:`check_sample`."""
        if getattr(self, "_like", None) is None:
            raise GeneratorError(f"{self.name}: call fit(table, types) before sample(n, seed).")
        n = _check_n(n, self.name)
        return check_sample(self._sample_inner(n, check_seed(seed)), self._like, n, self.name)


class SDVAdapter(_Wrapper):
    """An SDV-style synthesizer (``fit(df)``, ``sample(num_rows)``) as a generator.

    Parameters
    ----------
    synthesizer : object or callable
        An object with ``fit(df)`` and ``sample(num_rows)``; or a zero-argument callable (a class, a
        ``lambda``) that returns one, called anew on every ``fit`` so that each fit starts untrained
        (what an audit's shadow models need).
    name : str, default "sdv"
        Name in messages and reports.
    reseed : callable, optional
        ``reseed(seed)`` makes the synthesizer's next ``sample`` deterministic. Default
        :func:`seed_global_state` (SDV draws from the global numpy/torch state; note that this changes
        that global state), after which the synthesizer's ``reset_sampling()`` is called if it has one.

    Notes
    -----
    ``fit`` passes a copy of the table and not the ``types``: an SDV synthesizer reads column types from
    its own metadata; describe them there. The output is checked and conformed by
    :func:`~privcore.generators.base.check_sample`: columns in the training order, the training dtypes, a
    ``RangeIndex``; a synthesizer that returns other columns or another number of rows raises
    :class:`GeneratorOutputError`.
    """

    def __init__(self, synthesizer: Any, *, name: str = "sdv", reseed: Callable[[int], None] | None = None):
        instance = hasattr(synthesizer, "fit") and hasattr(synthesizer, "sample") and not inspect.isclass(synthesizer)
        if not instance and not callable(synthesizer):
            raise GeneratorError(f"{name}: expected a synthesizer with fit(df) and sample(num_rows), or a "
                                 f"callable that makes one; got {type(synthesizer).__name__}.")
        self._factory = None if instance else synthesizer
        self.synthesizer = None if self._factory is not None else synthesizer
        self.name = name
        self.reseed = reseed or seed_global_state

    def _fit_inner(self, table, types):
        if self._factory is not None:
            self.synthesizer = self._factory()
        self.synthesizer.fit(table.copy())

    def _sample_inner(self, n, seed):
        self.reseed(seed)
        if hasattr(self.synthesizer, "reset_sampling"):
            self.synthesizer.reset_sampling()
        return self.synthesizer.sample(num_rows=n)

    def __repr__(self) -> str:
        return f"SDVAdapter({self.synthesizer if self._factory is None else self._factory!r})"


class _CheckedAdapter(_Wrapper):
    """An outside object with ``fit`` and ``sample(n, seed)``; ``types`` passed on only if its ``fit`` takes
    them."""

    def __init__(self, inner: Any, name: str, pass_types: bool):
        self.inner, self.name, self.pass_types = inner, name, pass_types

    def _fit_inner(self, table, types):
        self.inner.fit(table, types) if self.pass_types else self.inner.fit(table)

    def _sample_inner(self, n, seed):
        return self.inner.sample(n, seed)

    def __repr__(self) -> str:
        return f"as_generator({self.inner!r})"


def _positional(method) -> list[inspect.Parameter] | None:
    try:
        params = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return None
    return [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def as_generator(obj: Any, name: str | None = None):
    """``obj`` under the generator protocol.

    Built-in generators and adapters come back as they are; an object whose ``sample`` takes
    ``num_rows`` is wrapped in :class:`SDVAdapter`; any other object with ``fit`` and ``sample(n, seed)``
    is wrapped so that its output is checked and conformed by :func:`check_sample` (a wrong table
    raises :class:`GeneratorOutputError`), with ``types`` passed to its ``fit`` only if it takes two
    arguments.

    Raises
    ------
    GeneratorError
        ``obj`` lacks ``fit`` or ``sample``.
    """
    name = name or type(obj).__name__
    if isinstance(obj, (BaseGenerator, _Wrapper)):
        return obj
    if not (callable(getattr(obj, "fit", None)) and callable(getattr(obj, "sample", None))):
        raise GeneratorError(f"{name} is not a generator: it needs fit(table, types) and sample(n, seed) "
                             f"methods (or an SDV-style fit(df) and sample(num_rows)).")
    sample_params = _positional(obj.sample) or []
    if any(p.name == "num_rows" for p in sample_params):
        return SDVAdapter(obj, name=name)
    fit_params = _positional(obj.fit)
    return _CheckedAdapter(obj, name, pass_types=fit_params is None or len(fit_params) != 1)
