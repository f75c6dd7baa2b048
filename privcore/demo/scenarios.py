"""The demo scenarios: what each one teaches, and its real, holdout and synthetic tables."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd

from privcore.base import InputError
from privcore.demo import generators as _generators
from privcore.demo.adult import ADULT_TYPES, DEFAULT_N, SENSITIVE, _adult, sample_positions


@dataclass(frozen=True)
class Scenario:
    """A demo scenario.

    Parameters
    ----------
    name : str
        Identifier, e.g. ``"noisy_copy"``.
    title : str
        Short human-readable title.
    description : str
        One plain-language paragraph for learners: what the generator does, what privacy outcome to
        expect and why.
    lesson : str
        The one-sentence takeaway.
    """

    name: str
    title: str
    description: str
    lesson: str


@dataclass(frozen=True)
class DemoData:
    """Everything a privacy evaluation of one demo scenario needs.

    Parameters
    ----------
    real : pandas.DataFrame
        Real training sample (the data the "generator" saw), ``n`` rows.
    synthetic : pandas.DataFrame
        Synthetic table produced from ``real``, ``n`` rows, same columns and dtypes.
    holdout : pandas.DataFrame
        Real people from the same population who were not in ``real``, ``n`` rows.
    types : dict
        Column name -> ``"numerical"``, ``"categorical"`` or ``"binary"``.
    sensitive : str
        The sensitive column (``"income"``).
    key : list of str
        Quasi-identifier columns an attacker is assumed to know (all the other columns).
    scenario : Scenario
        The scenario this data illustrates.
    seed : int, default 0
        Seed the synthetic table was generated with.
    """

    real: pd.DataFrame
    synthetic: pd.DataFrame
    holdout: pd.DataFrame
    types: dict[str, str]
    sensitive: str
    key: list[str]
    scenario: Scenario
    seed: int = field(default=0)


_SCENARIO_LIST = [
    Scenario(
        name="exact_copy",
        title="Exact copy",
        description=(
            "The 'synthetic' table is simply the real training table handed over unchanged, row for "
            "row. No release could be less private: every person in the training data appears exactly "
            "as recorded. Expect every privacy measure to raise the alarm: each synthetic record is at "
            "distance zero from a real record, an attacker can tell members of the training data from "
            "non-members almost perfectly, and anything rare in the real data can be singled out."
        ),
        lesson="Copying training records gives no privacy at all; every metric must catch this worst case.",
    ),
    Scenario(
        name="noisy_copy",
        title="Noisy copy",
        description=(
            "Each real person is copied and then slightly blurred: age, hours and money amounts get a "
            "small random nudge (about 5% of the column's spread) and about one in ten category answers "
            "is swapped for a random one. The table looks new, but every synthetic row is still a close "
            "neighbour of one real person, and some rows come through unchanged. Expect distance-based "
            "measures and membership inference to flag it almost as strongly as the exact copy: "
            "synthetic records are much closer to the training rows than to the holdout rows. A little "
            "noise is not anonymisation."
        ),
        lesson="Blurring real records a little hides little: each stays a close neighbour of one real person.",
    ),
    Scenario(
        name="column_resampler",
        title="Column-by-column resampler",
        description=(
            "Every column is filled by drawing values at random from that same column of the real "
            "table, independently of the other columns. Each column keeps its overall distribution, but "
            "the links between columns (age and hours worked, education and income) are destroyed, so "
            "the rows describe people who mostly never existed. Distance-based membership inference "
            "should stay near a coin flip (0.5): synthetic rows are no closer to the training rows than "
            "to the holdout rows. But rare values are copied as they are: an unusual capital-gain "
            "amount or a native country seen only a few times in the real data reappears in the "
            "synthetic table, so a singling-out attack that looks at one column at a time can still "
            "point at the person it came from. And the safety has a price: the "
            "relationships between columns, which analysts usually want, are gone."
        ),
        lesson="No copied rows does not mean no leak: rare values can single people out on their own.",
    ),
    Scenario(
        name="gaussian_copula",
        title="Gaussian copula model",
        description=(
            "A simple statistical model learns each column's distribution and how strongly pairs of "
            "columns move together, then draws brand-new rows from that model. Numbers are interpolated "
            "between real values rather than copied, and categories are picked according to their "
            "frequency and their association with the other columns. A synthetic row equals a real "
            "person only by coincidence, mostly for very common profiles. Expect low risk: membership "
            "inference near 0.5 and synthetic records about as close to the training rows as to the "
            "holdout rows, while broad patterns, such as older and more educated people working longer "
            "hours, are kept."
        ),
        lesson="A model that learns only broad patterns keeps them useful without reproducing individuals.",
    ),
    Scenario(
        name="rare_leak",
        title="Model with a hidden leak",
        description=(
            "The same Gaussian copula model, except that 1% of its rows (30 of 3,000) have been replaced "
            "by exact copies of the most unusual real people: those whose combination of job, "
            "education, family situation, country and so on is rarest in the training data. Averages "
            "and distributions barely change, so overall quality checks and average risk scores look "
            "almost as good as for the clean model. Record-level measures should catch it: a handful of "
            "synthetic rows sit at distance zero from real rows, and they belong to exactly the people "
            "who are easiest to re-identify."
        ),
        lesson="Averages can hide a leak: look at the riskiest records, not only the mean.",
    ),
    Scenario(
        name="fresh_sample",
        title="Fresh sample (ideal reference)",
        description=(
            "Not a generator: the 'synthetic' table is a third group of real people from the same "
            "census, in neither the training sample nor the holdout. This is what a perfect generator "
            "would achieve: data with the same distribution as the training set that reveals no more "
            "about the training people than about anyone else. Expect every risk measure at its "
            "baseline: membership inference at 0.5, and distances to training and holdout rows alike. "
            "A few rows still equal a training row exactly, because common profiles (a married man "
            "working 40 hours a week with a high-school diploma and no capital gains) are shared by "
            "many people; good measures compare against the holdout instead of counting matches."
        ),
        lesson="Even data about other people matches some real records: judge risk against this baseline.",
    ),
]

#: Demo scenarios by name, in teaching order.
SCENARIOS: Mapping[str, Scenario] = MappingProxyType({s.name: s for s in _SCENARIO_LIST})


def _check_name(name: str) -> Scenario:
    if name not in SCENARIOS:
        raise InputError(
            f"Unknown demo scenario {name!r}. Valid names: {', '.join(SCENARIOS)}."
        )
    return SCENARIOS[name]


def list_scenarios() -> list[Scenario]:
    """All demo scenarios, in teaching order.

    Returns
    -------
    list of Scenario
    """
    return list(SCENARIOS.values())


def generate(name: str, real: pd.DataFrame, *, types: Mapping[str, str], n: int | None = None,
             seed: int = 0) -> pd.DataFrame:
    """Apply a scenario's generator to any real table.

    Parameters
    ----------
    name : str
        Scenario name: ``"exact_copy"``, ``"noisy_copy"``, ``"column_resampler"``,
        ``"gaussian_copula"`` or ``"rare_leak"``. (``"fresh_sample"`` is not a generator; it needs
        the source population, use :func:`load_scenario`.)
    real : pandas.DataFrame
        The real table to imitate.
    types : dict
        Column name -> ``"numerical"``, ``"categorical"`` or ``"binary"`` (columns not listed are
        treated as categorical).
    n : int, optional
        Number of synthetic rows; default ``len(real)``.
    seed : int, default 0
        Seed for ``numpy.random.default_rng``; the output is deterministic given the seed.

    Returns
    -------
    pandas.DataFrame
        ``n`` rows with the columns and dtypes of ``real`` and a fresh ``RangeIndex``.

    Raises
    ------
    privcore.base.errors.InputError
        Unknown or non-generator scenario name, empty ``real`` or non-positive ``n`` (a subclass of
        ``ValueError``).
    """
    _check_name(name)
    if name not in _generators.GENERATORS:
        raise InputError(
            f"Scenario {name!r} is not a generator: it draws fresh real people from the Adult table. "
            f"Use load_scenario({name!r}). Generators: {', '.join(_generators.GENERATORS)}."
        )
    if len(real) == 0:
        raise InputError("The real table is empty; a generator needs at least one row.")
    n = len(real) if n is None else n
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"The number of synthetic rows must be a positive whole number, got {n!r}.")
    return _generators.demo_generator(name).fit(real, dict(types)).sample(int(n), seed)


def load_scenario(name: str, *, n: int = DEFAULT_N, seed: int = 0) -> DemoData:
    """Load a demo scenario: real sample, disjoint holdout and the scenario's synthetic table.

    Parameters
    ----------
    name : str
        One of :data:`SCENARIOS`.
    n : int, default 3000
        Rows in each of the three tables. Real and holdout are the first ``n`` and next ``n`` rows of
        the hash order (see :func:`sample_positions`), so ``2 * n`` (``3 * n`` for ``"fresh_sample"``)
        must not exceed 32,561.
    seed : int, default 0
        Seed of the generator (the real and holdout samples do not depend on it).

    Returns
    -------
    DemoData
        Fresh copies; all three tables have a ``RangeIndex``.

    Raises
    ------
    privcore.base.errors.InputError
        Unknown name (the message lists the valid names) or ``n`` out of range (a subclass of
        ``ValueError``).

    Examples
    --------
    >>> demo = load_scenario("noisy_copy")
    >>> demo.real.shape, demo.synthetic.shape, demo.holdout.shape
    ((3000, 14), (3000, 14), (3000, 14))
    """
    scenario = _check_name(name)
    parts = 3 if name == "fresh_sample" else 2
    positions = sample_positions(n, parts=parts)
    adult = _adult()
    real = adult.iloc[positions[0]].reset_index(drop=True)
    holdout = adult.iloc[positions[1]].reset_index(drop=True)
    types = dict(ADULT_TYPES)
    if name == "fresh_sample":
        synthetic = adult.iloc[positions[2]].reset_index(drop=True)
    else:
        synthetic = generate(name, real, types=types, n=n, seed=seed)
    return DemoData(
        real=real,
        synthetic=synthetic,
        holdout=holdout,
        types=types,
        sensitive=SENSITIVE,
        key=[c for c in ADULT_TYPES if c != SENSITIVE],
        scenario=scenario,
        seed=seed,
    )
