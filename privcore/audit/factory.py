"""How an audit builds one generator per model: by name and settings, picklable, with the fit's own seed."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from privcore.generators import get_generator_spec, is_reference, make_generator, reference_maker

#: The setting through which a built-in generator takes its own randomness.
SEED_SETTING = "seed"


@dataclass(frozen=True)
class GeneratorFactory:
    """A generator by name (built-in, or ``MODULE:ATTR``) and settings, built for a population.

    A picklable ``make``.

    Examples
    --------
    >>> factory = GeneratorFactory("dp_marginals", {"epsilon": 2.0})
    >>> factory(None).epsilon
    2.0
    >>> GeneratorFactory("privbayes", {"seed": 5})(None, seed=11).seed
    11
    """

    name: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    key: Sequence[str] | None = None
    sensitive: str | None = None

    def __call__(self, population: pd.DataFrame | None, seed: int | None = None) -> Any:
        """An unfitted generator; ``seed`` (a fit's seed) replaces a seed setting of a built-in generator."""
        if is_reference(self.name):  # MODULE:ATTR: imported where it runs (a worker imports it again)
            return reference_maker(self.name, self.settings, check=False)(population)
        settings = dict(self.settings)
        if seed is not None and self.takes_seed():
            settings[SEED_SETTING] = int(seed)
        return make_generator(self.name, population=population, key=self.key, sensitive=self.sensitive, **settings)

    def takes_seed(self) -> bool:
        """Whether the generator draws its randomness from a ``seed`` setting."""
        return any(p.name == SEED_SETTING for p in get_generator_spec(self.name).params)


def model_for_fit(make: Callable[..., Any], population: pd.DataFrame | None, seed: int) -> Any:
    """One model's unfitted generator.

    A :class:`GeneratorFactory` gets the fit's ``seed``; any other ``make(population)`` is called as it is (its
    randomness is its own affair).

    Notes
    -----
    An audit compares outputs of models trained with and without a record. A generator whose randomness is a
    setting (``privbayes``'s ``seed``: its noise and structure choices) would, built with one fixed seed, repeat
    the same noise in every model; the difference between the two worlds would then show through exactly and
    the audit would measure a de-randomised generator, not the one released (a DP guarantee holds over the
    generator's own randomness). So every model gets the seed of its fit (:func:`model_for_fit`), whatever
    seed the settings named.
    """
    if isinstance(make, GeneratorFactory):
        return make(population, seed=seed)
    return make(population)
