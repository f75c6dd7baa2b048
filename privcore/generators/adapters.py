"""Bring outside synthesizers under the generator protocol (no dependency on any of them)."""

from __future__ import annotations

import inspect
import random
import sys
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from privcore.data import check_seed
from privcore.generators.base import BaseGenerator, GeneratorError, check_sample, check_sample_size, check_table

__all__ = ["SDVAdapter", "as_generator"]


def seed_global_state(seed: int) -> None:
    """Seed the global random state SDV-style synthesizers draw from.

    That is Python's, numpy's legacy one and, if it is already imported, torch's.
    """
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)


def table_seed(table: pd.DataFrame) -> int:
    """A seed from a table's content.

    Fitting on the same table thus trains the same model and fitting on another table (an audit's next shadow model)
    draws other initial weights.
    """
    hashes = pd.util.hash_pandas_object(table, index=False).to_numpy()
    return int(np.bitwise_xor.reduce(hashes) % np.uint64(2**31)) if hashes.size else 0


def sdv_tables(synthesizer: Any) -> list[str] | None:
    """The table names an SDV 2 synthesizer fits on and samples (``{name: DataFrame}``).

    None for SDV 1 and other SDV-style objects, which take and return the DataFrame itself.
    """
    if type(synthesizer).__module__.split(".")[0] != "sdv":
        return None
    version = getattr(sys.modules.get("sdv"), "__version__", "1")
    if int(version.split(".")[0]) < 2:
        return None
    tables = getattr(getattr(synthesizer, "metadata", None), "tables", None)
    return list(tables) if isinstance(tables, Mapping) and tables else ["table"]


def fit_sdv(synthesizer: Any, table: pd.DataFrame) -> None:
    """``synthesizer.fit`` on a copy of ``table``, in the form its SDV version wants.

    A copy because SDV may rename columns in place; fitted from global random state seeded by :func:`table_seed`.
    """
    seed_global_state(table_seed(table))
    names = sdv_tables(synthesizer)
    synthesizer.fit(table.copy() if names is None else {names[0]: table.copy()})


def sample_sdv(synthesizer: Any, n: int, seed: int) -> Any:
    """``n`` rows of an SDV-style synthesizer, the same for the same ``seed``.

    The global state is seeded (torch, numpy, ``random``), then the synthesizer's own: ``reset_sampling()``
    rewinds its data processor, and ``_set_random_state(seed)`` seeds the model's own generators, which
    SDV would otherwise set to one fixed seed whatever the global state (its ``FIXED_RNG_SEED``), so that
    different seeds would give the same rows. An SDV 2 result ``{name: DataFrame}`` is unwrapped.
    """
    seed_global_state(seed)
    if hasattr(synthesizer, "reset_sampling"):
        synthesizer.reset_sampling()
    if callable(getattr(synthesizer, "_set_random_state", None)):
        synthesizer._set_random_state(seed)
    out = synthesizer.sample(num_rows=n)
    if isinstance(out, Mapping) and len(out) == 1:
        out = next(iter(out.values()))
    return out


class _Wrapper:
    """Common part of the adapters: table checks, a fit-before-sample check, every output checked."""

    name: str

    def fit(self, table: pd.DataFrame, types: Mapping[str, str] | None = None):
        """Fit the wrapped synthesizer on ``table`` (see the class for what it receives)."""
        table = check_table(table, self.name)
        self._fit_inner(table, types)
        self._like = table.iloc[:0]
        return self

    def sample(self, n: int, seed: int = 0) -> pd.DataFrame:
        """``n`` rows for ``seed``, checked and conformed to the training table by :func:`check_sample`."""
        if getattr(self, "_like", None) is None:
            raise GeneratorError(f"{self.name}: call fit(table, types) before sample(n, seed).")
        n = check_sample_size(n, self.name)
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
        ``reseed(seed)`` makes the synthesizer's next ``sample`` deterministic, after which its
        ``reset_sampling()`` is called if it has one. Default: :func:`sample_sdv`'s seeding of the global
        state (SDV draws from the global numpy/torch state; note that this changes that global state) and
        of the synthesizer's own random state.

    Notes
    -----
    ``fit`` passes a copy of the table (``{table name: copy}`` to an SDV 2 synthesizer) and not the
    ``types``: an SDV synthesizer reads column types from its own metadata; describe them there, or use the
    built-in ``sdv_*`` generators, which do. The global random state is seeded from the table's content
    before ``fit`` (:func:`table_seed`), so one table trains one model. The output is checked and
    conformed by :func:`~privcore.generators.base.check_sample`: columns in the training order, the training dtypes, a
    ``RangeIndex``; a synthesizer that returns other columns or another number of rows raises
    :class:`GeneratorOutputError`.

    :class:`SDVAdapter` wraps an SDV-style single-table synthesizer, i.e. any object with ``fit(df)`` and
    ``sample(num_rows)``, for example SDV's ``GaussianCopulaSynthesizer`` or ``CTGANSynthesizer``::

        from sdv.metadata import Metadata
        from sdv.single_table import GaussianCopulaSynthesizer
        from privcore.generators import SDVAdapter

        metadata = Metadata.detect_from_dataframes({"real": real})
        generator = SDVAdapter(lambda: GaussianCopulaSynthesizer(metadata))   # a new synthesizer per fit
        synthetic = generator.fit(real, types).sample(len(real), seed=0)

    SDV 2 synthesizers take and return ``{table name: DataFrame}`` (SDV 1 took and returned the DataFrame); the
    adapter speaks both. The built-in ``sdv_gaussian_copula``, ``sdv_ctgan`` and ``sdv_tvae``
    (:mod:`privcore.generators.sdv`) build the metadata from privcore's column types for you.
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
        fit_sdv(self.synthesizer, table)

    def _sample_inner(self, n, seed):
        if self.reseed is not seed_global_state:  # a caller's own reseeding replaces ours
            self.reseed(seed)
            if hasattr(self.synthesizer, "reset_sampling"):
                self.synthesizer.reset_sampling()
            out = self.synthesizer.sample(num_rows=n)
            return next(iter(out.values())) if isinstance(out, Mapping) and len(out) == 1 else out
        return sample_sdv(self.synthesizer, n, seed)

    def __repr__(self) -> str:
        return f"SDVAdapter({self.synthesizer if self._factory is None else self._factory!r})"


class _CheckedAdapter(_Wrapper):
    """An outside object with ``fit`` and ``sample(n, seed)``.

    ``types`` is passed on only if its ``fit`` takes them.
    """

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

    Notes
    -----
    :func:`as_generator` accepts any of: a protocol object (``fit(table, types)``, ``sample(n, seed)``), an
    object with ``fit(table)`` and ``sample(n, seed)``, or an SDV-style synthesizer.
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
