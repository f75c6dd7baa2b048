"""The built-in generators by name, with a one-line description and typed settings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from privcore.data import check_settings
from privcore.generators.base import Generator, GeneratorSettingError, UnknownGeneratorError
from privcore.generators.cart import SequentialCART
from privcore.generators.copies import (
    AttributeLeak,
    ColumnResample,
    ExactCopy,
    FreshSample,
    NoisyCopy,
    PartialCopy,
    RareRecords,
    ValueReuse,
)
from privcore.generators.models import DPMarginals, GaussianCopula, IndependentHistograms, RareLeak, level_to_epsilon
from privcore.generators.outside import registered_specs
from privcore.generators.privbayes import PrivBayes
from privcore.generators.sdv import SDV_SPECS
from privcore.generators.spec import GeneratorSpec
from privcore.generators.tabddpm import TABDDPM_SPEC

__all__ = ["GeneratorSpec", "GENERATOR_SPECS", "LADDER", "list_generators", "get_generator_spec", "make_generator",
           "generator_label", "generator_title"]

#: The context keywords :func:`make_generator` understands.
CONTEXT = ("population", "key", "sensitive")


def _build_dp(epsilon: float, level: float | None, bins: int, range_share: float, population=None) -> DPMarginals:
    return DPMarginals(level_to_epsilon(level) if level is not None else epsilon, bins=bins,
                       range_share=range_share, population=population)


# Each spec's settings are the class's own declarations (its PARAMS), which its constructor checks too.
_SPECS = [
    GeneratorSpec("exact_copy", "Returns its training rows (drawn with replacement when n differs): the worst case.",
                  (), lambda: ExactCopy()),
    GeneratorSpec("fresh_sample", "Ignores its training rows and returns real rows of the population: the null.",
                  (), FreshSample, context=("population",)),
    GeneratorSpec("independent_histograms",
                  "Each column drawn independently from its training histogram (no privacy protection).",
                  IndependentHistograms.PARAMS, lambda bins: IndependentHistograms(bins=bins)),
    GeneratorSpec("dp_marginals", "ε-differentially private independent marginals (Laplace noise on histograms).",
                  DPMarginals.PARAMS, _build_dp, context=("population",), ladder=True,
                  exclusive=(("epsilon", "level"),)),
    GeneratorSpec("gaussian_copula", "A Gaussian copula: marginals and pairwise rank correlations, new rows.",
                  (), lambda: GaussianCopula()),
    GeneratorSpec("rare_leak", "The Gaussian copula with the rarest training rows copied in verbatim (demo).",
                  RareLeak.PARAMS,
                  lambda leak_fraction, min_leaks: RareLeak(leak_fraction=leak_fraction, min_leaks=min_leaks)),
    GeneratorSpec("partial_copy", "Ladder: a share s of the rows are verbatim training rows, the rest fresh.",
                  PartialCopy.PARAMS, PartialCopy, context=("population",), ladder=True),
    GeneratorSpec("noisy_copy", "Ladder: training rows with noise (1 − s)·σ, categories redrawn with "
                  "probability 1 − s.", NoisyCopy.PARAMS, NoisyCopy.at_level, ladder=True),
    GeneratorSpec("rare_records", "Ladder: the s-share of the rarest training records copied into a fresh "
                  "sample.", RareRecords.PARAMS, RareRecords, context=CONTEXT, ladder=True),
    GeneratorSpec("attribute_leak", "Ladder: fresh records whose sensitive value is, with probability s, that "
                  "of the nearest training record.", AttributeLeak.PARAMS, AttributeLeak, context=CONTEXT,
                  ladder=True),
    GeneratorSpec("value_reuse", "Ladder: a fresh sample whose most varied number is, in an s-share of rows, a "
                  "training record's.", ValueReuse.PARAMS,
                  lambda level, columns, population=None: ValueReuse(level, population, columns=columns),
                  context=("population",), ladder=True),
    GeneratorSpec("column_resample", "Ladder (negative control): a share s of the columns resampled from "
                  "the training data.", ColumnResample.PARAMS, ColumnResample, context=("population",), ladder=True),
    GeneratorSpec("privbayes", "PrivBayes: a Bayesian network of at most k parents per column, ε-DP when ε is "
                  "set.", PrivBayes.PARAMS,
                  lambda k, bins, epsilon, beta, seed, population=None: PrivBayes(
                      k=k, bins=bins, epsilon=epsilon, beta=beta, seed=seed, population=population),
                  context=("population",)),
    GeneratorSpec("cart", "Sequential CART (synthpop): each column drawn from a tree leaf of training rows.",
                  SequentialCART.PARAMS,
                  lambda min_leaf, column_order: SequentialCART(min_leaf=min_leaf, column_order=column_order)),
]

#: Names in words (the Audit page's list), kept apart from the specs above so that adding a spec touches one
#: place; a spec that sets its own label (the SDV ones) keeps it, one with neither shows its name.
_LABELS = {
    "exact_copy": "Exact copy (worst case)",
    "fresh_sample": "Fresh real sample (the null)",
    "independent_histograms": "Independent histograms",
    "dp_marginals": "Differentially private marginals",
    "gaussian_copula": "Gaussian copula",
    "rare_leak": "Gaussian copula leaking rare rows (demo)",
    "partial_copy": "Ladder: partial copy",
    "noisy_copy": "Ladder: noisy copy",
    "rare_records": "Ladder: rare records copied",
    "attribute_leak": "Ladder: sensitive attribute leak",
    "value_reuse": "Ladder: a nearly unique column's values reused",
    "column_resample": "Ladder: columns resampled (negative control)",
    "privbayes": "Bayesian network (PrivBayes)",
    "cart": "Decision trees (CART)",
}


def _labelled(spec: GeneratorSpec) -> GeneratorSpec:
    return spec if spec.label else replace(spec, label=_LABELS.get(spec.name, spec.name))


#: Built-in generators by name, in listing order.
GENERATOR_SPECS: dict[str, GeneratorSpec] = {spec.name: _labelled(spec)
                                             for spec in (*_SPECS, TABDDPM_SPEC, *SDV_SPECS)}

#: The lab's leak types, in listing order.
LADDER = ("partial_copy", "noisy_copy", "rare_records", "attribute_leak", "value_reuse", "column_resample",
          "dp_marginals")


def _all_specs() -> dict[str, GeneratorSpec]:
    # Read on every call: the server admin's PRIVCORE_GENERATORS may be set after import (and in tests).
    return {**GENERATOR_SPECS, **{spec.name: spec for spec in registered_specs(GENERATOR_SPECS)}}


def list_generators() -> list[GeneratorSpec]:
    """Every generator by name: the built-ins in listing order, then the server admin's.

    The built-ins include those whose extra is missing (see :attr:`GeneratorSpec.installed`); then come those the server
    admin registered in ``PRIVCORE_GENERATORS``.

    >>> [g.name for g in list_generators()][:4]
    ['exact_copy', 'fresh_sample', 'independent_histograms', 'dp_marginals']
    """
    return list(_all_specs().values())


def get_generator_spec(name: str) -> GeneratorSpec:
    """The spec of a generator by name; :class:`UnknownGeneratorError` (listing the names) otherwise."""
    specs = _all_specs()
    if not isinstance(name, str) or name not in specs:
        raise UnknownGeneratorError(f"Unknown generator {name!r}. Built-in generators: {', '.join(specs)}.")
    return specs[name]


def generator_label(name: str) -> str:
    """A generator's name in words ("CTGAN (SDV)"); the name itself for one the registry does not know.

    >>> generator_label("exact_copy")
    'Exact copy (worst case)'
    """
    try:
        return get_generator_spec(name).label
    except UnknownGeneratorError:
        return name


def _in_words(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return str(value)


def generator_title(name: str, settings: Mapping[str, Any] | None = None) -> str:
    """How an answer names a generator: its name in words (:func:`generator_label`) and the settings given.

    Each setting is named by its label in words when the registry declares it (by its key otherwise, for a
    generator of your own); settings that are not set (None) are left out. The machine name stays in the
    reports' ``generator`` field; this is for sentences.

    Examples
    --------
    >>> generator_title("privbayes")
    'Bayesian network (PrivBayes)'
    >>> generator_title("privbayes", {"epsilon": 1.0, "k": 3})
    'Bayesian network (PrivBayes) with privacy budget ε = 1 and parents = 3'
    >>> generator_title("mymodule:Maker", {"noise": 0.5})
    'mymodule:Maker with noise = 0.5'
    """
    label = generator_label(name)
    try:
        declared = {p.name: p.label for p in get_generator_spec(name).params}
    except UnknownGeneratorError:
        declared = {}
    parts = []
    for key, value in (settings or {}).items():
        if value is None:
            continue
        words = declared.get(key, key)
        words = words[:1].lower() + words[1:] if words[1:2].islower() else words
        parts.append(f"{words} = {_in_words(value)}")
    if not parts:
        return label
    return f"{label} with " + (parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1])


def make_generator(name: str, *, population: pd.DataFrame | None = None, key: Sequence[str] | None = None,
                   sensitive: str | None = None, **settings: Any) -> Generator:
    """A new, unfitted built-in generator.

    Parameters
    ----------
    name : str
        A name from :func:`list_generators`.
    population : DataFrame, optional
        Real rows not in the training table (e.g. the holdout): the fresh rows of ``fresh_sample`` and of
        the ladder's unleaked rows; the public grid of ``dp_marginals``.
    key, sensitive : optional
        Key columns (default: every column except the sensitive one) and the sensitive column, for
        ``rare_records`` and ``attribute_leak``.
    **settings
        The generator's settings (see ``get_generator_spec(name).params``); unset ones take their default.

    Raises
    ------
    UnknownGeneratorError
        Unknown ``name``.
    GeneratorSettingError
        Unknown setting, bad value, or two settings that exclude each other (``dp_marginals``: ``epsilon``
        and ``level``).
    GeneratorContextError
        A needed context is missing (e.g. ``partial_copy`` below level 1 without a population).

    Notes
    -----
    Settings are :class:`privcore.data.params.Param` declarations (the same as metric parameters), checked with
    :func:`privcore.data.params.check_value`, so a bad value gets the same kind of sentence everywhere. Besides
    settings, :func:`make_generator` takes the *context* some generators need: ``population`` (real rows
    not in the training table, e.g. the holdout), ``key`` and ``sensitive`` columns. Context a generator
    does not use is ignored, so a caller (the lab, the audit) can hand the same context to every generator.

    Besides the built-ins of this module, the registry lists TabDDPM (:data:`privcore.generators.tabddpm.TABDDPM_SPEC`)
    and SDV's (:data:`privcore.generators.sdv.SDV_SPECS`), both listed even when their extra is missing (see
    :attr:`GeneratorSpec.installed`), and those the server admin registers in
    ``PRIVCORE_GENERATORS`` (:func:`privcore.generators.outside.registered_specs`, read on every call).

    Built-ins:

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
      one (common random numbers). Two ladder types have no fresh sample at level 0, by their definition:
      ``noisy_copy`` at 0 is training rows with one σ of noise and every category redrawn, and
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

    Examples
    --------
    >>> make_generator("noisy_copy", level=0.8)
    NoisyCopy(level=0.8)
    >>> make_generator("noisy_copy", level=2)
    Traceback (most recent call last):
    ...
    privcore.generators.base.GeneratorSettingError: Leak strength (noisy_copy.level) must be between 0 and 1; got 2.
    >>> import pandas as pd
    >>> real = pd.DataFrame({"age": [30, 41, 52, 63], "job": ["a", "b", "a", "c"]})
    >>> holdout = pd.DataFrame({"age": [35, 47, 58, 70], "job": ["b", "b", "c", "a"]})
    >>> gen = make_generator("partial_copy", level=0.5, population=holdout)
    >>> gen.fit(real, {"age": "numerical", "job": "categorical"}).sample(4, seed=0).shape
    (4, 2)
    """
    spec = get_generator_spec(name)
    declared = {p.name: p for p in spec.params}
    unknown = [s for s in settings if s not in declared]
    if unknown:
        valid = f"its settings are {', '.join(declared)}" if declared else "it has no settings"
        raise GeneratorSettingError(f"Generator {name!r} has no setting {unknown[0]!r}; {valid}.")
    for a, b in spec.exclusive:
        if a in settings and b in settings:
            raise GeneratorSettingError(f"Generator {name!r}: give {a} or {b}, not both.")
    values = {p.name: p.default_for(None) for p in spec.params}
    values.update(check_settings(name, spec.params, settings, GeneratorSettingError))
    context = {"population": population, "key": key, "sensitive": sensitive}
    return spec.build(**values, **{c: context[c] for c in spec.context})

