"""Tests for the generator protocol and the built-in generators (privcore.generators)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privcore.base.errors import ColumnMismatchError, InputError, TooFewRowsError
from privcore.data.params import Param, ParamError
from privcore.demo import ADULT_TYPES, SCENARIOS, generate, load_scenario
from privcore.demo.generators import DEMO_GENERATORS, GENERATORS, column_resampler, demo_generator
from privcore.generators import (
    LADDER,
    DPMarginals,
    ExactCopy,
    FreshSample,
    Generator,
    GeneratorContextError,
    GeneratorError,
    GeneratorOutputError,
    GeneratorSettingError,
    IndependentHistograms,
    RareRecords,
    SDVAdapter,
    UnknownGeneratorError,
    as_generator,
    epsilon_to_level,
    get_generator_spec,
    histogram_counts,
    level_to_epsilon,
    list_generators,
    make_generator,
)

TYPES = {"age": "numerical", "income": "numerical", "job": "categorical", "city": "categorical",
         "smoker": "binary"}
M = 300


def make_table(n: int, seed: int) -> pd.DataFrame:
    """A small mixed table: int and float (with missing) numbers, categories (with missing), a bool."""
    rng = np.random.default_rng(seed)
    income = np.round(rng.lognormal(10, 0.5, n), 2)
    income[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame({
        "age": rng.integers(18, 90, n),
        "income": income,
        "job": pd.Series(rng.choice(["a", "b", "c", "d", None], n, p=[0.4, 0.3, 0.15, 0.1, 0.05]), dtype=object),
        "city": pd.Series(rng.choice([f"city{i}" for i in range(30)], n), dtype=object),
        "smoker": rng.random(n) < 0.3,
    })


@pytest.fixture(scope="module")
def real() -> pd.DataFrame:
    return make_table(M, 1)


@pytest.fixture(scope="module")
def population() -> pd.DataFrame:
    return make_table(M, 2)


def row_hashes(df: pd.DataFrame) -> pd.Series:
    return pd.util.hash_pandas_object(df, index=False)


def copied_share(synthetic: pd.DataFrame, real: pd.DataFrame) -> float:
    return float(row_hashes(synthetic).isin(set(row_hashes(real))).mean())


def build(name: str, population: pd.DataFrame, **settings):
    return make_generator(name, population=population, sensitive="smoker", **settings)


# ------------------------------------------------------------------------------------------------
# registry
# ------------------------------------------------------------------------------------------------
def test_registry():
    names = [g.name for g in list_generators()]
    assert {"exact_copy", "fresh_sample", "independent_histograms", "dp_marginals"} <= set(names)
    assert set(LADDER) <= set(names) and len(LADDER) == 7
    for spec in list_generators():
        assert spec.description and "\n" not in spec.description and len(spec.description) <= 110
        assert all(isinstance(p, Param) for p in spec.params)
        assert spec.describe().startswith(f"{spec.name}: ")
        assert spec.ladder == (spec.name in LADDER)
        if spec.ladder:
            level = {p.name: p for p in spec.params}["level"]
            assert (level.minimum, level.maximum) == (0.0, 1.0)
    assert "level" in get_generator_spec("partial_copy").describe()


# ------------------------------------------------------------------------------------------------
# the protocol, for every built-in
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [g.name for g in list_generators() if not g.extra])  # SDV: test_sdv_generators
def test_protocol(name, real, population):
    gen = build(name, population)
    assert isinstance(gen, Generator)
    with pytest.raises(GeneratorError, match="fit"):
        gen.sample(5, 0)
    assert gen.fit(real, TYPES) is gen
    for n in (M, 123, 450):
        a = gen.sample(n, seed=3)
        assert a.shape == (n, real.shape[1]) and list(a.columns) == list(real.columns)
        assert (a.dtypes == real.dtypes).all(), (name, a.dtypes)
        assert a.index.equals(pd.RangeIndex(n))
        pd.testing.assert_frame_equal(a, gen.sample(n, seed=3))
        if not (name == "exact_copy" and n == M):
            assert not a.equals(gen.sample(n, seed=4)), (name, n)
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(GeneratorError, match="positive whole number"):
            gen.sample(bad, 0)
    with pytest.raises(InputError, match="seed"):
        gen.sample(5, -1)


def test_exact_copy_and_fresh_sample(real, population):
    gen = make_generator("exact_copy").fit(real, TYPES)
    pd.testing.assert_frame_equal(gen.sample(M, 0), real)
    assert copied_share(gen.sample(1000, 0), real) == 1.0  # resampled with replacement
    assert gen.sample(1000, 0).duplicated().any()

    fresh = make_generator("fresh_sample", population=population).fit(real, TYPES)
    a = fresh.sample(M, 0)
    assert set(row_hashes(a)) == set(row_hashes(population))  # each population row once
    assert copied_share(a, real) == 0.0
    pd.testing.assert_frame_equal(a, fresh.fit(real.iloc[:10], TYPES).sample(M, 0))  # training ignored


@pytest.mark.parametrize("seed", range(6))
def test_independent_histograms_count_each_column_on_its_grid(seed):
    """The fit's shares are the counts of histogram_counts on its own grids (categories, missing, mixed types)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    table = pd.DataFrame({
        "age": rng.integers(18, 90, n).astype(float),
        "few": rng.choice([1, 2, 3], n).astype(float),  # a numerical column with few values: counted by value
        "job": pd.Series(rng.choice(["a", "b", "c", None], n), dtype=object),
        "mixed": pd.Series(rng.choice([1, "1", 1.5, "x", None], n), dtype=object),
    })
    table.loc[rng.random(n) < 0.2, "age"] = np.nan
    generator = IndependentHistograms(bins=int(rng.integers(2, 6))).fit(
        table, {"age": "numerical", "few": "numerical", "job": "categorical", "mixed": "categorical"})
    counted = histogram_counts(generator.table, generator.grids)
    for shares, counts in zip(generator.probabilities, counted):
        assert counts.sum() == n
        np.testing.assert_array_equal(shares, counts / counts.sum())


def test_types_rules(real, population):
    # columns not listed count as categorical; entries for absent columns are ignored; None guesses
    gen = make_generator("independent_histograms").fit(real, {"age": "numerical", "nope": "numerical"})
    assert gen.types["income"] == "categorical"
    assert set(gen.sample(500, 0)["income"].dropna()) <= set(real["income"].dropna())
    assert make_generator("independent_histograms").fit(real).types["age"] == "numerical"
    with pytest.raises(GeneratorError, match="type 'number'"):
        make_generator("exact_copy").fit(real, {"age": "number"})


# ------------------------------------------------------------------------------------------------
# leak ladder: level 0 vs level 1
# ------------------------------------------------------------------------------------------------
FRESH_AT_ZERO = ["partial_copy", "rare_records", "attribute_leak", "value_reuse", "column_resample"]


@pytest.mark.parametrize("name", FRESH_AT_ZERO)
def test_level_zero_is_the_fresh_sample(name, real, population):
    fresh = FreshSample(population).fit(real, TYPES)
    gen = build(name, population, level=0).fit(real, TYPES)
    for n in (M, 200):
        pd.testing.assert_frame_equal(gen.sample(n, 7), fresh.sample(n, 7))


def test_partial_copy(real, population):
    full = build("partial_copy", None, level=1).fit(real, TYPES).sample(M, 0)
    assert copied_share(full, real) == 1.0 and not full.duplicated().any()  # every row, once
    assert copied_share(build("partial_copy", population, level=0).fit(real, TYPES).sample(M, 0), real) == 0.0
    rows = {}
    for level in (0.3, 0.6):
        out = build("partial_copy", population, level=level).fit(real, TYPES).sample(M, 5)
        assert copied_share(out, real) == pytest.approx(level)
        rows[level] = set(out.attrs["leaked_real_rows"])
    assert rows[0.3] < rows[0.6]  # nested across levels for one seed
    with pytest.raises(GeneratorContextError, match="population"):
        make_generator("partial_copy", level=0.5)


def test_noisy_copy(real):
    top = make_generator("noisy_copy", level=1).fit(real, TYPES).sample(M, 0)
    assert sorted(row_hashes(top)) == sorted(row_hashes(real))  # the training rows, shuffled
    low = make_generator("noisy_copy", level=0).fit(real, TYPES).sample(4 * M, 0)
    assert copied_share(low, real) < 0.05
    # numerical noise of one σ: the sorted values move by about σ·E|Z| ≈ 0.8 σ before clipping
    assert low["age"].std() > 0.8 * real["age"].std()
    half = make_generator("noisy_copy", level=0.75)
    assert (half.noise, half.swap_probability) == (0.25, 0.25)  # (1 − s)·σ and 1 − s


def test_rare_records(real, population):
    gen = build("rare_records", population, level=1, pool=0.1).fit(real, TYPES)
    out = gen.sample(M, 0)
    leaked = out.attrs["leaked_real_rows"]
    assert len(leaked) == gen.pool_size == 30
    # key = every column but the sensitive one; numerical keys in deciles; rarest first, ties by position
    key = real.drop(columns="smoker").copy()
    for col in ("age", "income"):
        key[col] = pd.qcut(key[col], 10, labels=False, duplicates="drop")
    key = key.astype(str)
    size = key.groupby(list(key.columns))["age"].transform("size")
    surprisal = sum(-np.log(key[c].map(key[c].value_counts(normalize=True))) for c in key.columns)
    expected = np.lexsort((np.arange(M), -surprisal.round(9).to_numpy(), size.to_numpy()))[:30]
    assert leaked == [int(i) for i in expected]
    assert size.iloc[leaked].max() <= size.median()
    pd.testing.assert_frame_equal(out.iloc[out.attrs["leaked_synthetic_rows"]].reset_index(drop=True),
                                  real.iloc[leaked].reset_index(drop=True))
    half = build("rare_records", population, level=0.5, pool=0.1).fit(real, TYPES).sample(M, 0)
    assert half.attrs["leaked_real_rows"] == leaked[:15]


def test_attribute_leak(real, population):
    fresh = FreshSample(population).fit(real, TYPES).sample(M, 0)
    out = build("attribute_leak", population, level=1).fit(real, TYPES).sample(M, 0)
    pd.testing.assert_frame_equal(out.drop(columns="smoker"), fresh.drop(columns="smoker"))
    # brute-force nearest training record on the keys (min–max numbers + missing flag, one-hot categories)
    def encode(df):
        parts = []
        for col in ("age", "income"):
            x = df[col].astype(float)
            lo, hi = real[col].min(), real[col].max()
            parts += [((x.fillna(real[col].median()) - lo) / (hi - lo)).to_numpy(), x.isna().to_numpy(float)]
        for col in ("job", "city"):
            cats = real[col].fillna("?").unique()
            parts += [(df[col].fillna("?").to_numpy()[:, None] == cats[None, :]).astype(float).T]
        return np.vstack([np.atleast_2d(p) for p in parts]).T

    d = ((encode(fresh)[:, None, :] - encode(real)[None, :, :]) ** 2).sum(-1)
    nearest = d.argmin(axis=1)
    assert (out["smoker"].to_numpy() == real["smoker"].to_numpy()[nearest]).all()
    assert out.attrs["leaked_synthetic_rows"] == list(range(M))
    with pytest.raises(GeneratorContextError, match="sensitive"):
        make_generator("attribute_leak", population=population)
    with pytest.raises(GeneratorContextError, match="not a column"):
        make_generator("attribute_leak", population=population, sensitive="nope").fit(real, TYPES)


def test_column_resample(real, population):
    top = make_generator("column_resample", level=1).fit(real, TYPES).sample(M, 9)
    pd.testing.assert_frame_equal(top, column_resampler(real, TYPES, M, np.random.default_rng(9)))
    fresh = FreshSample(population).fit(real, TYPES).sample(M, 2)
    half = build("column_resample", population, level=0.4).fit(real, TYPES).sample(M, 2)
    changed = [c for c in real.columns if not half[c].equals(fresh[c])]
    assert len(changed) == 2
    for col in changed:
        assert set(half[col].dropna()) <= set(real[col].dropna())
    assert copied_share(half, real) < 0.05


# ------------------------------------------------------------------------------------------------
# differential privacy
# ------------------------------------------------------------------------------------------------
def test_level_to_epsilon():
    assert level_to_epsilon(0) == pytest.approx(0.1) and math.isinf(level_to_epsilon(1))
    eps = [level_to_epsilon(s) for s in np.linspace(0, 1, 9)]
    assert all(a < b for a, b in zip(eps, eps[1:]))
    assert epsilon_to_level(level_to_epsilon(0.4)) == pytest.approx(0.4)
    assert make_generator("dp_marginals", level=0.5).epsilon == pytest.approx(0.1 * 1000 ** 0.5)
    assert math.isinf(make_generator("dp_marginals", level=1).epsilon)


def _grids(real, population):
    return list(DPMarginals(1.0, population=population).fit(real, TYPES).plans.values())


def test_dp_sensitivity_of_the_count_vector(real, population):
    grids = _grids(real, population)
    # 'income' is float: a missing bin; 'age' is int64 (no missing possible) with 72 values: 20 intervals
    assert [(g.column, g.size, g.missing) for g in grids[:2]] == [("age", 20, False), ("income", 21, True)]
    base = histogram_counts(real, grids)
    assert all(c.sum() <= M for c in base)
    odd = pd.DataFrame({"age": [10**6], "income": [np.nan], "job": ["unseen"], "city": [None],
                        "smoker": [True]}).astype(real.dtypes.to_dict())
    rng = np.random.default_rng(0)
    for neighbour in [real.drop(index=i) for i in rng.choice(M, 25, replace=False)] + [
            pd.concat([real, odd], ignore_index=True), pd.concat([real, real.iloc[[3]]], ignore_index=True)]:
        diffs = [np.abs(a - b).sum() for a, b in zip(base, histogram_counts(neighbour, grids))]
        assert max(diffs) <= 1 and sum(diffs) <= len(grids)


def test_dp_noise_scale_is_d_over_epsilon(real, population):
    gen = DPMarginals(2.0, population=population).fit(real, TYPES)
    d = real.shape[1]
    assert gen.noise_scale() == d / 2.0
    noise = []
    for seed in range(300):
        for h in gen.release(seed):
            assert h.epsilon == pytest.approx(2.0 / d)
            noise.append(h.noisy - h.counts)
    noise = np.concatenate(noise)
    # Laplace(b): mean |X| = b, sd = √2·b
    assert np.abs(noise).mean() == pytest.approx(d / 2.0, rel=0.05)
    assert noise.std() == pytest.approx(math.sqrt(2) * d / 2.0, rel=0.05)
    exact = DPMarginals(math.inf, population=population).fit(real, TYPES).release(0)
    assert all(np.array_equal(h.noisy, h.counts) for h in exact)


def test_dp_grids_are_public(real, population):
    # a training-only category and an extreme training value never shape the grids or the output
    odd = real.copy()
    odd.loc[0, "city"], odd.loc[1, "age"] = "secret-town", 150
    gen = DPMarginals(math.inf, population=population).fit(odd, TYPES)
    assert "secret-town" not in set(gen.sample(2000, 0)["city"])
    assert gen.sample(2000, 0)["age"].max() <= population["age"].max()
    grids = {g.column: g for g in gen.plans.values()}
    assert grids["age"].edges[-1] == population["age"].max() and grids["income"].edges[0] == population["income"].min()
    with pytest.raises(GeneratorContextError, match="categories of column 'job'"):
        DPMarginals(1.0).fit(real, TYPES)
    # no population: explicit categories, and a DP range for numbers without bounds
    cats = {c: list(population[c].unique()) for c in ("job", "city", "smoker")}
    gen = DPMarginals(5.0, categories=cats, bounds={"age": (0, 100)}).fit(real, TYPES)
    assert gen.plans["income"] is None and gen.plans["age"].edges[-1] == 100
    income = gen.release(0)[1]
    assert income.epsilon == pytest.approx(0.9 * 5.0 / 5)
    assert income.grid.edges[0] <= np.nanmedian(real["income"]) <= income.grid.edges[-1]
    out = gen.sample(500, 0)
    assert (out.dtypes == real.dtypes).all()


def test_dp_utility_improves_with_epsilon(real, population):
    errors = []
    for eps in (0.1, 10.0, math.inf):
        gen = DPMarginals(eps, population=population).fit(real, TYPES)
        errors.append(np.mean([np.abs(h.probabilities - h.counts / h.counts.sum()).sum()
                               for seed in range(5) for h in gen.release(seed)]))
    assert errors[0] > errors[1] > errors[2] == 0


# ------------------------------------------------------------------------------------------------
# named errors
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, settings, error, match", [
    ("nope", {}, UnknownGeneratorError, "Unknown generator 'nope'. Built-in generators: exact_copy"),
    ("partial_copy", {"strength": 1}, GeneratorSettingError, "no setting 'strength'; its settings are level"),
    ("exact_copy", {"level": 1}, GeneratorSettingError, "has no settings"),
    ("partial_copy", {"level": 1.5}, GeneratorSettingError, r"partial_copy.level\) must be between 0 and 1"),
    ("noisy_copy", {"level": "high"}, GeneratorSettingError, "must be a number"),
    ("independent_histograms", {"bins": 0}, GeneratorSettingError, "between 2 and 1000"),
    ("dp_marginals", {"epsilon": -1}, GeneratorSettingError, "epsilon"),
    ("dp_marginals", {"epsilon": 1, "level": 0.5}, GeneratorSettingError, "not both"),
    ("rare_records", {"level": 0.5}, GeneratorContextError, "population"),
    ("fresh_sample", {}, GeneratorContextError, "population"),
])
def test_named_errors(name, settings, error, match):
    with pytest.raises(error, match=match) as info:
        make_generator(name, **settings)
    assert isinstance(info.value, InputError)
    if error is GeneratorSettingError:
        assert isinstance(info.value, ParamError)


def test_fit_errors(real, population):
    with pytest.raises(TooFewRowsError):
        make_generator("exact_copy").fit(real.iloc[:0], TYPES)
    with pytest.raises(GeneratorError, match="DataFrame"):
        make_generator("exact_copy").fit(real.to_numpy(), TYPES)
    with pytest.raises(ColumnMismatchError, match="'city'"):
        make_generator("fresh_sample", population=population.drop(columns="city")).fit(real, TYPES)
    with pytest.raises(GeneratorContextError, match="key column"):
        RareRecords(0.5, population, key=["age", "zzz"]).fit(real, TYPES)
    for bad in (lambda: IndependentHistograms(bins=0), lambda: DPMarginals(0.0), lambda: DPMarginals(bins=2.5),
                lambda: RareRecords(1.5, population), lambda: ExactCopy(when_n_differs="cycle")):
        with pytest.raises(GeneratorSettingError):
            bad()


# ------------------------------------------------------------------------------------------------
# SDV-style adapter
# ------------------------------------------------------------------------------------------------
class FakeSynthesizer:
    """SDV-like: fit(df), sample(num_rows), global numpy randomness, floats for ints, own column order."""

    instances = 0

    def __init__(self, broken: str = ""):
        FakeSynthesizer.instances += 1
        self.broken = broken
        self.data = None

    def fit(self, data):
        self.data = data

    def sample(self, num_rows):
        rows = self.data.iloc[np.random.randint(0, len(self.data), num_rows)]
        out = rows[list(self.data.columns)[::-1]].reset_index(drop=True)
        out.index = out.index + 100
        out["age"] = out["age"].astype(float)
        if self.broken == "columns":
            out = out.drop(columns="city")
        if self.broken == "rows":
            out = out.iloc[:-1]
        if self.broken == "missing":
            out["smoker"] = out["smoker"].astype(object).where(out.index % 2 == 0, None)
        return out


def test_sdv_adapter(real):
    gen = SDVAdapter(FakeSynthesizer(), name="fake")
    assert isinstance(gen, Generator)
    out = gen.fit(real, TYPES).sample(50, seed=1)
    assert list(out.columns) == list(real.columns) and (out.dtypes == real.dtypes).all()
    assert out.index.equals(pd.RangeIndex(50))
    pd.testing.assert_frame_equal(out, gen.sample(50, seed=1))
    assert not out.equals(gen.sample(50, seed=2))
    before = FakeSynthesizer.instances
    factory = SDVAdapter(FakeSynthesizer)
    factory.fit(real, TYPES).fit(real, TYPES)
    assert FakeSynthesizer.instances == before + 2  # a new synthesizer per fit
    for broken, match in (("columns", "lacks 'city'"), ("rows", "asked for 50 rows and returned 49"),
                          ("missing", "missing values in column 'smoker'")):
        with pytest.raises(GeneratorOutputError, match=match):
            SDVAdapter(FakeSynthesizer(broken)).fit(real, TYPES).sample(50, 0)
    with pytest.raises(GeneratorError, match="fit"):
        SDVAdapter(FakeSynthesizer()).sample(5, 0)


def test_as_generator(real):
    assert isinstance(as_generator(FakeSynthesizer()), SDVAdapter)
    builtin = make_generator("exact_copy")
    assert as_generator(builtin) is builtin

    class TableOnly:
        def fit(self, table):
            self.table = table

        def sample(self, n, seed):
            return self.table.sample(n, replace=True, random_state=seed)

    wrapped = as_generator(TableOnly())
    out = wrapped.fit(real, TYPES).sample(20, 3)
    assert out.index.equals(pd.RangeIndex(20)) and out.equals(wrapped.sample(20, 3))

    class WithTypes(TableOnly):
        def fit(self, table, types):
            self.table, self.types = table[["age"]], types

    wrapped = as_generator(WithTypes())
    assert wrapped.fit(real, TYPES).inner.types == TYPES
    with pytest.raises(GeneratorOutputError, match="lacks 'income'"):
        wrapped.sample(5, 0)
    with pytest.raises(GeneratorError, match="not a generator"):
        as_generator(object())


# ------------------------------------------------------------------------------------------------
# demo scenarios: instances of the protocol, tables unchanged byte for byte
# ------------------------------------------------------------------------------------------------
#: ``int(pd.util.hash_pandas_object(synthetic, index=True).sum())`` of each scenario, computed with the
#: demo generators as they were before the protocol (commit 71d9bb6), for n = 3000 and 500, seeds 0 and 1.
DEMO_HASHES = {
    ("exact_copy", 3000): (5399616544977714705, 5399616544977714705),
    ("noisy_copy", 3000): (17377312518289824808, 9299385539931247589),
    ("column_resampler", 3000): (4675261451122975183, 13490088501674899237),
    ("gaussian_copula", 3000): (3739407283619858834, 13199000930834836949),
    ("rare_leak", 3000): (1072981404867703954, 16838564114491213152),
    ("fresh_sample", 3000): (10969306070358387676, 10969306070358387676),
    ("exact_copy", 500): (3348622256083387351, 3348622256083387351),
    ("noisy_copy", 500): (7082566509349731176, 10410053407821542086),
    ("column_resampler", 500): (8420382435819041932, 15763307746312157149),
    ("gaussian_copula", 500): (15816245662986078417, 15573847206672140366),
    ("rare_leak", 500): (14890564152873977440, 10098003693451680058),
    ("fresh_sample", 500): (5261554923199555951, 5261554923199555951),
}
#: The same for ``generate(name, 500 demo rows, n=700, seed=11)`` (n ≠ len(real)) and for a small table
#: with missing numbers and categories and a bool column (n = 150 and 333).
OTHER_HASHES = {
    "exact_copy": (18390085518093930740, 8646437370040194903, 2672709768322801637),
    "noisy_copy": (17230855221261418425, 4476342282462553921, 2798625807739579247),
    "column_resampler": (11029126287473897567, 16704256690121292592, 1198699532756253655),
    "gaussian_copula": (14875905490453535944, 254789839978519844, 7376082140928280442),
    "rare_leak": (17984686616177581462, 5209513585591507658, 557601785087842449),
}


def table_hash(df: pd.DataFrame) -> int:
    return int(pd.util.hash_pandas_object(df, index=True).sum())


@pytest.mark.parametrize("n", [3000, 500])
def test_demo_tables_byte_identical(n):
    assert {name for name, _ in DEMO_HASHES} == set(SCENARIOS)
    for name in SCENARIOS:
        for seed in (0, 1):
            assert table_hash(load_scenario(name, n=n, seed=seed).synthetic) == DEMO_HASHES[name, n][seed], (name, seed)


def test_demo_generators_on_other_inputs_byte_identical():
    real = load_scenario("exact_copy", n=500).real
    rng = np.random.default_rng(5)
    other = pd.DataFrame({"x": rng.normal(size=200), "k": rng.integers(0, 5, 200),
                          "c": rng.choice(["a", "b", None], 200), "b": rng.random(200) < 0.3})
    other.loc[::7, "x"] = np.nan
    other_types = {"x": "numerical", "k": "numerical", "c": "categorical", "b": "binary"}
    for name, expected in OTHER_HASHES.items():
        got = (table_hash(generate(name, real, types=ADULT_TYPES, n=700, seed=11)),
               *(table_hash(generate(name, other, types=other_types, n=k, seed=11)) for k in (150, 333)))
        assert got == expected, name


@pytest.mark.parametrize("name", list(DEMO_GENERATORS))
def test_demo_generators_are_protocol_instances(name, real):
    gen = demo_generator(name)
    assert isinstance(gen, Generator) and set(DEMO_GENERATORS) == set(GENERATORS)
    out = gen.fit(real, TYPES).sample(77, 4)
    pd.testing.assert_frame_equal(out, GENERATORS[name](real, TYPES, 77, np.random.default_rng(4)))
