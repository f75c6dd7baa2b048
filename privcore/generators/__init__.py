"""Synthetic-data generators under one protocol: for the metric lab, the shadow-model audit and the demo.

Protocol (:class:`Generator`)
-----------------------------
Plain objects with ``fit(table, types) -> self`` and ``sample(n, seed) -> DataFrame``. ``types`` (column
→ ``"numerical"``, ``"categorical"``, ``"binary"``) go to ``fit`` because they describe the table, and
one generator object is refitted on many tables; settings and context (population, key, sensitive
column) go to the constructor. ``sample`` returns ``n`` rows with the training table's columns in order
and its dtypes, a fresh ``RangeIndex``, the same rows for the same seed. Outside synthesizers: wrap an
SDV-style one (``fit(df)``, ``sample(num_rows)``) in :class:`SDVAdapter`, or pass any object through
:func:`as_generator`; :func:`check_sample` checks what any generator returned.

Built-ins (:func:`list_generators`, :func:`make_generator`)
------------------------------------------------------------
``exact_copy``, ``fresh_sample``, ``independent_histograms``, ``dp_marginals``, ``gaussian_copula``,
``rare_leak``, two real synthesizers, ``privbayes`` (a Bayesian network, ε-DP when ε is set;
:mod:`privcore.generators.privbayes`) and ``cart`` (synthpop's sequential CART; :mod:`privcore.generators.cart`),
and the leak ladder (:data:`LADDER`): ``partial_copy``, ``noisy_copy``, ``rare_records``,
``attribute_leak``, ``value_reuse`` (a nearly unique column's values reused), ``column_resample`` (negative
control) and ``dp_marginals``, each with a ``level``
s ∈ [0, 1]: 0 = a fresh real sample, 1 = the strongest leak. Choices:

- Fresh rows come from a ``population`` table given to the constructor (``make_generator(...,
  population=holdout)``): real people not in the training table. At level 0, ``partial_copy``,
  ``rare_records``, ``attribute_leak``, ``value_reuse`` and ``column_resample`` return exactly
  ``fresh_sample``'s rows for the same seed, and for one seed a higher level extends the leak of a lower
  one (common random numbers). Two ladder types have no fresh sample at level 0, by their definition in
  the issue: ``noisy_copy`` at 0 is training rows with one σ of noise and every category redrawn, and
  ``dp_marginals`` at 0 is the ε = 0.1 model.
- ``dp_marginals`` level → ε: ``0.1 · 1000**s``, ∞ (no noise) at s = 1 (:func:`level_to_epsilon`). Its grids
  come from public information only (given bounds/categories or the population; a DP range otherwise),
  its noise from the sample's seed; see :mod:`privcore.generators.models`.
- Key and sensitive columns (``rare_records``, ``attribute_leak``): ``key`` defaults to every column but
  ``sensitive`` (metrics.md §0); ``attribute_leak`` needs ``sensitive``.

TabDDPM (:mod:`privcore.generators.tabddpm`, the extra ``pip install 'privcore[tabddpm]'``, i.e. torch):
``tabddpm``, a diffusion model of Gaussian noise for the numbers and multinomial noise for the categories
(Kotelnikov et al. 2023); it also offers the optional white-box interface, each record's denoising loss
(:func:`per_record_loss`, :class:`PerRecordLoss`).

SDV (:mod:`privcore.generators.sdv`, the extra ``pip install 'privcore[sdv]'``): ``sdv_gaussian_copula``,
``sdv_ctgan``, ``sdv_tvae``, listed even when SDV is missing (:attr:`GeneratorSpec.installed`); making one
then raises a :class:`GeneratorError` naming that command.

Your own (:mod:`privcore.generators.outside`): any object with ``fit`` and ``sample`` through
:func:`as_generator`; ``MODULE:ATTR`` references (``python -m privcore audit --generator MODULE:ATTR``,
:func:`reference_maker`); and generators the server admin registers in ``PRIVCORE_GENERATORS``
(``name=module:attr,...``), which :func:`list_generators` includes.

Errors are :class:`privcore.base.errors.InputError` subclasses: :class:`UnknownGeneratorError`,
:class:`GeneratorSettingError` (also a :class:`privcore.data.params.ParamError`), :class:`GeneratorContextError`,
:class:`GeneratorOutputError`, all under :class:`GeneratorError`.

Example
-------
>>> import pandas as pd
>>> real = pd.DataFrame({"age": [30, 41, 52, 63], "job": ["a", "b", "a", "c"]})
>>> holdout = pd.DataFrame({"age": [35, 47, 58, 70], "job": ["b", "b", "c", "a"]})
>>> gen = make_generator("partial_copy", level=0.5, population=holdout)
>>> gen.fit(real, {"age": "numerical", "job": "categorical"}).sample(4, seed=0).shape
(4, 2)
"""

from privcore.generators import adapters, base, cart, copies, models, outside, privbayes, registry, sdv, spec
from privcore.generators.adapters import *  # noqa: F403 - the public names of each part, listed there
from privcore.generators.base import *  # noqa: F403
from privcore.generators.cart import *  # noqa: F403
from privcore.generators.copies import *  # noqa: F403
from privcore.generators.models import *  # noqa: F403
from privcore.generators.outside import *  # noqa: F403
from privcore.generators.privbayes import *  # noqa: F403
from privcore.generators.registry import *  # noqa: F403
from privcore.generators.sdv import *  # noqa: F403
from privcore.generators.spec import *  # noqa: F403

__all__ = list(dict.fromkeys([*base.__all__, *registry.__all__, *adapters.__all__, *copies.__all__, *models.__all__,
                              *outside.__all__, *sdv.__all__, *spec.__all__, *privbayes.__all__, *cart.__all__]))
