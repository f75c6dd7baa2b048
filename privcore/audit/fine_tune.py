"""Shadow models by fine-tuning: one base model trained once on population rows, each audit model fine-tuned from it.

For TabDDPM (:class:`privcore.generators.tabddpm.TabDDPM`, its ``base`` parameter); as the CITADEL/UQAM entry
of the MIDST challenge (SaTML 2025) trained its shadow models.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from privcore.audit.factory import SEED_SETTING, GeneratorFactory
from privcore.generators import TabDDPM

#: The settings a fine-tuned model takes for itself; its architecture (timesteps, width, depth, schedule) is the
#: base's.
FINE_TUNE_SETTINGS = ("steps", "batch_size", "lr", "weight_decay", "device", "threads")


@dataclass(frozen=True)
class FineTunedFactory(GeneratorFactory):
    """A picklable ``make`` that builds each audit model as a fine-tuning of ``base`` (a fitted TabDDPM).

    ``settings`` are those of :data:`FINE_TUNE_SETTINGS` (e.g. ``{"steps": 300}``); each model gets its fit's seed,
    as every audited built-in generator does (:func:`privcore.audit.factory.model_for_fit`).
    """

    base: Any = None

    def __call__(self, population: pd.DataFrame | None, seed: int | None = None) -> Any:
        """An unfitted TabDDPM fine-tuning ``base``, seeded with ``seed`` (a fit's seed); ``population`` unused."""
        base = self.base
        settings = {k: v for k, v in dict(self.settings).items() if k in FINE_TUNE_SETTINGS}
        if seed is not None:
            settings[SEED_SETTING] = int(seed)
        return TabDDPM(timesteps=base.timesteps, width=base.width, depth=base.depth, schedule=base.schedule,
                       base=base, **settings)

    def takes_seed(self) -> bool:
        """Whether a model takes the fit's seed (always: a fine-tuned TabDDPM has a ``seed`` setting)."""
        return True


def fine_tuned_factory(population: pd.DataFrame, types: Mapping[str, str], *, base_settings: Mapping[str, Any],
                       fine_tune: Mapping[str, Any]) -> FineTunedFactory:
    """Fit the base TabDDPM on ``population`` and return the factory whose models fine-tune it.

    ``population`` holds the rows outside the audited pool; the models fine-tune with ``fine_tune`` settings
    (:data:`FINE_TUNE_SETTINGS`).

    Parameters
    ----------
    population : DataFrame
        Rows of the same population that are not in the audited pool.
    types : mapping
        Column → type, as the audit's schema gives them.
    base_settings : mapping
        TabDDPM settings of the base (as :class:`privcore.generators.tabddpm.TabDDPM` takes them).
    fine_tune : mapping
        Settings of each fine-tuning, e.g. ``{"steps": 300, "lr": 1e-3}``.

    Notes
    -----
    An audit trains many models of the generator on random halves of a pool of records. For a neural generator each
    from-scratch fit costs the full training run; fine-tuning a base model that already knows the population (trained
    on rows outside the audited pool, so it has seen none of the audited records) reaches a model of its training set in
    a fraction of the steps.

    What changes for the audit: every model shares the base's starting point and table encoding, so the models differ
    by their training sets and their fine-tuning seeds only. Whether the per-record results agree with from-scratch
    models is measured, not assumed (``bench/bench_finetune_shadows.py``).
    """
    unknown = sorted(set(fine_tune) - set(FINE_TUNE_SETTINGS))
    if unknown:
        raise ValueError(f"fine-tuning takes only {', '.join(FINE_TUNE_SETTINGS)}; got {', '.join(unknown)} (the "
                         "architecture is the base's).")
    base = TabDDPM(**dict(base_settings)).fit(population, dict(types))
    return FineTunedFactory("tabddpm", dict(fine_tune), base=base)
