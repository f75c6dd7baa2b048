"""Simple built-in synthetic-data generators for the demo scenarios."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from privcore.generators import (
    LEAK_ATTR,
    BaseGenerator,
    ColumnResample,
    ExactCopy,
    GaussianCopula,
    NoisyCopy,
    RareLeak,
    rarest_categorical_rows,
)

__all__ = [
    "exact_copy",
    "noisy_copy",
    "column_resampler",
    "gaussian_copula",
    "rare_leak",
    "rarest_rows",
    "demo_generator",
    "DEMO_GENERATORS",
    "GENERATORS",
    "LEAK_ATTR",
]

#: Makers of each scenario's generator (a new, unfitted protocol object per call).
DEMO_GENERATORS: Mapping[str, Callable[[], BaseGenerator]] = {
    "exact_copy": lambda: ExactCopy(when_n_differs="repeat"),
    "noisy_copy": NoisyCopy,
    "column_resampler": lambda: ColumnResample(level=1.0),
    "gaussian_copula": GaussianCopula,
    "rare_leak": RareLeak,
}


def demo_generator(name: str) -> BaseGenerator:
    """A new, unfitted generator of the demo scenario ``name`` (a key of :data:`DEMO_GENERATORS`).

    Notes
    -----
    Each scenario's generator is an instance of the generator protocol of :mod:`privcore.generators`
    (``fit(table, types)``, ``sample(n, seed)``), made by :func:`demo_generator`. Every generator is also a
    function with the signature ``generator(real, types, n, rng) -> DataFrame``:

    real : pandas.DataFrame
        The real (training) table.
    types : dict
        Column name -> ``"numerical"``, ``"categorical"`` or ``"binary"``. Binary columns are treated
        like categorical ones.
    n : int
        Number of synthetic rows.
    rng : numpy.random.Generator
        Source of randomness; the output is a deterministic function of the inputs and the generator's
        state (use ``numpy.random.default_rng(seed)``).

    They return a table with the same columns, in the same order and with the same dtypes as ``real``
    (integer columns stay integers; missing categorical values can appear, as in the data) and a fresh
    ``RangeIndex``. ``demo_generator(name).fit(real, types).sample(n, seed)`` equals
    ``generator(real, types, n, numpy.random.default_rng(seed))`` row for row. They are deliberately simple,
    pure numpy/pandas and fast (20,000 rows well under a second); they are teaching props, not serious
    synthesizers.
    """
    return DEMO_GENERATORS[name]()


def exact_copy(real: pd.DataFrame, types: Mapping[str, str], n: int,
               rng: np.random.Generator) -> pd.DataFrame:
    """The real table itself, in the same row order.

    If ``n`` differs from ``len(real)`` the first ``n`` rows are returned (``n`` smaller) or the table is
    repeated (``n`` larger). ``types`` and ``rng`` are unused. Every privacy metric should flag this.
    """
    return demo_generator("exact_copy").fit(real, types).sample_with(n, rng)


def noisy_copy(real: pd.DataFrame, types: Mapping[str, str], n: int, rng: np.random.Generator,
               *, noise: float = 0.05, swap_probability: float = 0.1) -> pd.DataFrame:
    """Each real row with a little noise, in shuffled order (see :class:`privcore.generators.NoisyCopy`)."""
    return NoisyCopy(noise=noise, swap_probability=swap_probability).fit(real, types).sample_with(n, rng)


def column_resampler(real: pd.DataFrame, types: Mapping[str, str], n: int,
                     rng: np.random.Generator) -> pd.DataFrame:
    """Each column sampled independently, with replacement, from the real column's values.

    Every column keeps its marginal distribution but all relationships between columns are destroyed.
    Rare real values (a country seen once) are copied as they are, whole real rows almost never are.
    ``types`` is unused. The ladder's ``column_resample`` at level 1.
    """
    return demo_generator("column_resampler").fit(real, types).sample_with(n, rng)


def gaussian_copula(real: pd.DataFrame, types: Mapping[str, str], n: int,
                    rng: np.random.Generator) -> pd.DataFrame:
    """A Gaussian-copula-style model of the real table (see :class:`privcore.generators.GaussianCopula`)."""
    return demo_generator("gaussian_copula").fit(real, types).sample_with(n, rng)


def rarest_rows(real: pd.DataFrame, types: Mapping[str, str], k: int) -> np.ndarray:
    """Positions of the ``k`` most unique rows of ``real``.

    Uniqueness is judged on the categorical and binary columns only: a row is rarer the fewer real rows
    share its exact combination of those values (missing counts as a value). Ties are broken by row
    position, lowest first.
    """
    return rarest_categorical_rows(real, types, k)


def rare_leak(real: pd.DataFrame, types: Mapping[str, str], n: int, rng: np.random.Generator,
              *, leak_fraction: float = 0.01, min_leaks: int = 5) -> pd.DataFrame:
    """The :func:`gaussian_copula` output with a few of the rarest real rows copied in verbatim.

    ``max(min_leaks, round(leak_fraction * n))`` synthetic rows (capped at ``n`` and ``len(real)``),
    at random positions, are replaced by exact copies of the real rows returned by
    :func:`rarest_rows`. The real row positions and the synthetic row positions of the leak are
    recorded in ``result.attrs["leaked_real_rows"]`` and ``result.attrs["leaked_synthetic_rows"]``
    (for teaching and tests; ``attrs`` may not survive every pandas operation).
    """
    gen = RareLeak(leak_fraction=leak_fraction, min_leaks=min_leaks)
    return gen.fit(real, types).sample_with(n, rng)


#: Generators by scenario name (``fresh_sample`` is not a generator: it needs the source population).
GENERATORS = {
    "exact_copy": exact_copy,
    "noisy_copy": noisy_copy,
    "column_resampler": column_resampler,
    "gaussian_copula": gaussian_copula,
    "rare_leak": rare_leak,
}
