"""Generators that copy, blur or mix real rows: the references and the lab's leak ladder."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from privcore.data import Param
from privcore.engine import nearest_two
from privcore.generators.base import (
    LEVEL,
    BaseGenerator,
    GeneratorContextError,
    PopulationMixin,
    check_level,
    check_settings_of,
    is_integral,
    is_numerical,
    match_dtypes,
    put_rows,
    rarity_order,
    resolve_roles,
    row_positions,
    share_count,
)

__all__ = [
    "ExactCopy",
    "FreshSample",
    "NoisyCopy",
    "ColumnResample",
    "PartialCopy",
    "RareRecords",
    "AttributeLeak",
    "ValueReuse",
]

#: ``attrs`` keys under which leaking generators record training and sample positions of their leak.
LEAK_ATTR = "leaked_real_rows"
LEAK_SYNTHETIC_ATTR = "leaked_synthetic_rows"


def record_leak(out: pd.DataFrame, real_rows, synthetic_rows) -> pd.DataFrame:
    """``out`` with the training rows it leaks and where they landed recorded in its ``attrs``.

    For tests and the lab's ground truth.
    """
    out.attrs[LEAK_ATTR] = [int(i) for i in real_rows]
    out.attrs[LEAK_SYNTHETIC_ATTR] = [int(i) for i in synthetic_rows]
    return out


class ExactCopy(BaseGenerator):
    """Returns its training rows: the worst case every metric and attack must flag.

    With ``n`` equal to the number of training rows: the training table itself, row for row. Otherwise
    ``when_n_differs="resample"`` (default) draws ``n`` training rows uniformly with replacement (seeded);
    ``"repeat"`` takes the first ``n`` rows or repeats the table in order (no randomness; the demo's rule).
    """

    name = "exact_copy"
    PARAMS = (Param("when_n_differs", "choice", "resample", "When n differs",
                    "How rows are drawn when n differs from the training rows.", choices=("resample", "repeat")),)

    def __init__(self, *, when_n_differs: str = "resample") -> None:
        super().__init__()
        # Declared, not offered by the registry (its spec lists no setting).
        self.when_n_differs = check_settings_of(self.name, self.PARAMS, {"when_n_differs": when_n_differs})[
            "when_n_differs"]

    def settings(self):
        """The generator's settings (for reports and ``repr``)."""
        return {"when_n_differs": self.when_n_differs}

    def _draw(self, n, rng):
        m = len(self.table)
        if self.when_n_differs == "repeat" or n == m:
            positions = np.arange(n) % m
        else:
            positions = rng.integers(0, m, n)
        return self.table.iloc[positions].reset_index(drop=True).copy()


class FreshSample(PopulationMixin, BaseGenerator):
    """Ignores its training rows and returns real rows from ``population``: the null of an audit.

    ``n`` population rows in a seeded order, each row once while ``n`` ≤ the population size (then
    repeated, reshuffled each round). What a perfect generator could do at best: data from the same
    population that reveals nothing more about the training people than about anyone else.
    """

    name = "fresh_sample"

    def __init__(self, population: pd.DataFrame) -> None:
        super().__init__()
        self._set_population(population, True, "it never looks at the training rows")

    def _draw(self, n, rng):
        return self._fresh(n, rng)[0]


class NoisyCopy(BaseGenerator):
    """Each training row with noise, in shuffled order.

    Numerical columns get Gaussian noise with standard deviation ``noise`` times the column's standard
    deviation (population σ, ``ddof=0``), are rounded back to whole numbers if the training column only
    holds whole numbers, and are clipped to the training column's range. Each categorical or binary
    value is, with probability ``swap_probability``, replaced by a value drawn from that column's
    training marginal (which may by chance be the same value). Each training row is used once (if
    ``n`` exceeds the table, again in a new order).

    The demo uses ``noise=0.05, swap_probability=0.1``. The ladder's ``noisy_copy`` at level s is
    :meth:`at_level`: both equal to 1 − s, so level 1 returns the training rows unchanged (shuffled).
    Level 0 is *not* a fresh sample: numerical values are a training row's plus noise of one σ, and
    every categorical value is redrawn from the marginal.
    """

    name = "noisy_copy"
    #: The registry's setting, ``level`` (:meth:`at_level`); ``noise`` and ``swap_probability`` are the demo's.
    PARAMS = (Param("level", "float", 0.5, "Leak strength", "1 = the training rows unchanged, 0 = noise of one σ "
                    "and every category redrawn.", minimum=LEVEL.minimum, maximum=LEVEL.maximum, step=LEVEL.step),)

    def __init__(self, *, noise: float = 0.05, swap_probability: float = 0.1) -> None:
        super().__init__()
        self.noise = float(noise)
        self.swap_probability = float(swap_probability)
        self.level: float | None = None

    @classmethod
    def at_level(cls, level: float) -> "NoisyCopy":
        """The ladder's noisy copy: noise scale and swap probability 1 − ``level``."""
        s = check_settings_of(cls.name, cls.PARAMS, {"level": level})["level"]
        gen = cls(noise=1.0 - s, swap_probability=1.0 - s)
        gen.level = s
        return gen

    def settings(self):
        """The generator's settings: ``level`` when built from one, else the noise and swap probability."""
        if self.level is not None:
            return {"level": self.level}
        return {"noise": self.noise, "swap_probability": self.swap_probability}

    def _draw(self, n, rng):
        real, types = self.table, self.types
        base = real.iloc[row_positions(len(real), n, rng)].reset_index(drop=True)
        out = {}
        for col in real.columns:
            if is_numerical(types, col):
                x = base[col].to_numpy(dtype=float)
                ref = real[col].to_numpy(dtype=float)
                sd = np.nanstd(ref) if np.any(~np.isnan(ref)) else 0.0
                y = x + rng.normal(0.0, self.noise * sd if np.isfinite(sd) else 0.0, n)
                if is_integral(ref):
                    y = np.round(y)
                if np.any(~np.isnan(ref)):
                    y = np.clip(y, np.nanmin(ref), np.nanmax(ref))
                out[col] = y
            else:
                x = base[col].to_numpy(dtype=object).copy()
                swap = rng.random(n) < self.swap_probability
                pool = real[col].astype(object).to_numpy()
                x[swap] = pool[rng.integers(0, len(pool), int(swap.sum()))]
                out[col] = x
        return match_dtypes(pd.DataFrame(out, columns=real.columns), real)


class _Ladder(PopulationMixin, BaseGenerator):
    """A leak-ladder generator: ``level`` in [0, 1] and a population of fresh real rows.

    Notes
    -----
    The ladder generators take one strength knob ``level`` = s ∈ [0, 1]: s = 0 is a fresh real sample (no
    leak), s = 1 the strongest leak. Those that need fresh real rows draw them from a ``population`` table
    given to the constructor (real people not in the training table, e.g. the holdout), with
    :func:`~privcore.generators.base.row_positions`: each population row once, in a seeded order.

    Common random numbers: ``partial_copy``, ``rare_records``, ``attribute_leak``, ``value_reuse`` and
    ``column_resample`` (below level 1) draw the fresh rows first, so at level 0 each returns exactly
    ``FreshSample(population).sample(n, seed)``, and for one seed the leak at a higher level contains the
    leak at a lower one (the same rows copied, plus more). This keeps response curves smooth across levels.
    """

    PARAMS: tuple[Param, ...] = (LEVEL,)

    def __init__(self, level: float, population: pd.DataFrame | None, *, required: bool = True) -> None:
        super().__init__()
        self.level = check_level(level, self.name)
        self._set_population(population, required, "its unleaked rows are fresh real rows")

    def settings(self):
        return {"level": self.level}

    def _mix(self, n, rng, k: int, choose) -> pd.DataFrame:
        """A fresh sample whose rows at ``k`` random positions are training rows ``choose(rng)[:k]``.

        Random draws in this order: the fresh rows, ``choose``, the positions; so for one seed a larger
        ``k`` keeps the fresh rows and extends the copied ones.
        """
        out, _ = self._fresh(n, rng)
        source = choose(rng)[:k]
        slots = rng.permutation(n)[:k]
        return record_leak(put_rows(out, slots, self.table, source), source, slots)


class PartialCopy(_Ladder):
    """A share ``level`` of the rows are verbatim training rows, the rest a fresh sample.

    ``round(level × n)`` rows (half up) at random positions are training rows, each training row at most
    once while ``n`` ≤ the training size. Level 1 is a shuffled exact copy and needs no population.
    """

    name = "partial_copy"

    def __init__(self, level: float = 0.5, population: pd.DataFrame | None = None) -> None:
        super().__init__(level, population, required=level != 1)

    def _draw(self, n, rng):
        def pick(r):
            return row_positions(len(self.table), n, r)

        if self._pop is None:  # level 1: every row copied, nothing fresh
            source, slots = pick(rng), rng.permutation(n)
            out = self.table.iloc[source[np.argsort(slots)]].reset_index(drop=True)
            return record_leak(out, source, slots)
        return self._mix(n, rng, share_count(self.level, n), pick)


class RareRecords(_Ladder):
    """The ``level`` share of the rarest training records copied into an otherwise fresh sample.

    Rarity is key-uniqueness: the number of training records that share the record's key values, with
    numerical key columns coarsened into ``bins`` equal-frequency bins of the training data (missing is a
    value). Ties (on rich keys most records are unique) go to the record whose key values are rarer one
    by one (larger sum of −log frequency: an unusual country or capital gain), then to the lower row
    position. The rare pool is the ``pool`` share of the training table, rarest first (at least one
    record); level s copies the rarest ``round(s × pool size)`` of them (at most ``n``) to random
    positions of a fresh sample. These are the outliers the "DCR delusion" paper finds most exposed.
    Key columns: ``key``, else every column except ``sensitive``.
    """

    name = "rare_records"
    PARAMS = (LEVEL,
              Param("pool", "float", 0.1, "Rare pool", "Share of the training records, rarest first, that level 1 "
                    "copies.", minimum=0.001, maximum=1.0),
              Param("bins", "int", 10, "Key bins", "Equal-frequency bins of a numerical key when judging "
                    "uniqueness.", minimum=1, maximum=100))

    def __init__(self, level: float = 0.5, population: pd.DataFrame | None = None, *,
                 key: Sequence[str] | None = None, sensitive: str | None = None, pool: float = 0.1,
                 bins: int = 10) -> None:
        super().__init__(level, population)
        checked = check_settings_of(self.name, self.PARAMS, {"pool": pool, "bins": bins})
        self.key_arg, self.sensitive, self.pool, self.bins = key, sensitive, checked["pool"], checked["bins"]

    def settings(self):
        """The generator's settings (for reports and ``repr``)."""
        return {"level": self.level, "pool": self.pool, "bins": self.bins}

    def _fit(self):
        super()._fit()
        self.key = resolve_roles(self.table, self.key_arg, self.sensitive, self.name)
        coarse = {}
        for col in self.key:
            x = self.table[col]
            if is_numerical(self.types, col):
                v = x.to_numpy(dtype=float)
                edges = np.unique(np.nanquantile(v, np.linspace(0, 1, self.bins + 1))) if np.any(
                    ~np.isnan(v)) else np.array([0.0])
                codes = np.searchsorted(edges[1:-1], v, side="left").astype(object)  # bins as pandas.qcut
                codes[np.isnan(v)] = None
                coarse[col] = codes
            else:
                coarse[col] = x.to_numpy(dtype=object)
        self.order = rarity_order(pd.DataFrame(coarse, columns=self.key), by_surprisal=True)
        self.pool_size = max(1, share_count(self.pool, len(self.table)))

    def _draw(self, n, rng):
        return self._mix(n, rng, min(n, share_count(self.level, self.pool_size)), lambda r: self.order)


class AttributeLeak(_Ladder):
    """Fresh records whose sensitive value is, with probability ``level``, that of the nearest training record.

    Nearest on the key columns (``key``, else every column except ``sensitive``) by Euclidean distance in
    a key space fitted on the training table: numerical keys min–max scaled with the training range
    (missing imputed with the training median, plus a 0/1 missing indicator), categorical and binary keys
    one-hot over the training categories (missing is a category; values unknown to training are all
    zeros). Ties go to the lowest training position. Every other value of the record stays fresh, so
    membership attacks see nothing; inference attacks on the sensitive column do.
    """

    name = "attribute_leak"

    def __init__(self, level: float = 0.5, population: pd.DataFrame | None = None, *,
                 sensitive: str | None = None, key: Sequence[str] | None = None) -> None:
        super().__init__(level, population)
        if sensitive is None:
            raise GeneratorContextError("attribute_leak needs the sensitive column whose value it leaks: pass "
                                        "sensitive=COLUMN.")
        self.sensitive, self.key_arg = sensitive, key

    def _fit(self):
        super()._fit()
        self.key = resolve_roles(self.table, self.key_arg, self.sensitive, self.name)
        space = _KeySpace(self.table, self.types, self.key)
        neighbours, _ = nearest_two(space.transform(self._pop), space.transform(self.table))
        self.nearest = neighbours.i1

    def _draw(self, n, rng):
        out, fresh = self._fresh(n, rng)
        replace = np.flatnonzero(rng.random(n) < self.level)
        source = self.nearest[fresh[replace]]
        values = out[self.sensitive].to_numpy().copy()
        values[replace] = self.table[self.sensitive].to_numpy()[source]
        out[self.sensitive] = values
        return record_leak(match_dtypes(out, self.table), source, replace)


class ValueReuse(_Ladder):
    """A fresh sample in which a share ``level`` of the rows carry a training record's exact value.

    The value is that of a nearly unique numerical column (Adult's ``fnlwgt``).

    Everything else in each row stays a fresh real person's, so no synthetic row is near a training record and
    the distance and density attacks see next to nothing; the reused value itself gives its owner away (the
    value-reuse attack, ``mia_value_reuse``, reads it). The columns are ``columns`` (each row then takes all of
    them from the same training record), else the numerical column with the most distinct values in the
    training table (the first among equals; the most varied column of any type when none is numerical).
    ``round(level × n)`` rows at random positions get the values of as many training records (each at most
    once while ``n`` ≤ the training size). Random draws in the order of the other ladder types (fresh rows,
    training records, positions), so level 0 is the fresh sample and a higher level extends a lower one's
    leak. On a table without a nearly unique column (the demo's Adult extract has no ``fnlwgt``) the reused
    values are shared by many people and leak little.
    """

    name = "value_reuse"
    #: ``columns`` must name training columns, known only at fit: :meth:`_fit` checks it there.
    PARAMS = (LEVEL,
              Param("columns", "columns", None, "Reused columns", "The columns whose exact values are reused (all "
                    "from the same training record).", rule="not set: the numerical column with the most distinct "
                    "values"))

    def __init__(self, level: float = 0.5, population: pd.DataFrame | None = None, *,
                 columns: Sequence[str] | None = None) -> None:
        super().__init__(level, population)
        self.columns_arg = None if columns is None else list(columns)

    def settings(self):
        """The generator's settings (for reports and ``repr``)."""
        return {"level": self.level, "columns": self.columns_arg}

    def _fit(self):
        super()._fit()
        if self.columns_arg is not None:
            wrong = [c for c in self.columns_arg if c not in self.table.columns]
            if wrong or not self.columns_arg:
                raise GeneratorContextError(f"value_reuse reuses the training table's columns; {wrong!r} are not "
                                            "among them." if wrong else "value_reuse needs a column to reuse.")
            self.columns = list(self.columns_arg)
            return
        # A table without numbers (the lab runs every leak type on any table) reuses its most varied category.
        numerical = [c for c in self.table.columns if is_numerical(self.types, c)] or list(self.table.columns)
        distinct = [self.table[c].nunique(dropna=True) for c in numerical]
        self.columns = [numerical[int(np.argmax(distinct))]]

    def _draw(self, n, rng):
        out, _ = self._fresh(n, rng)
        k = share_count(self.level, n)
        source = row_positions(len(self.table), n, rng)[:k]
        slots = rng.permutation(n)[:k]
        for col in self.columns:
            values = out[col].to_numpy().copy()
            values[slots] = self.table[col].to_numpy()[source]
            out[col] = values
        return record_leak(match_dtypes(out, self.table), source, slots)


class ColumnResample(_Ladder):
    """Negative control: a share ``level`` of the columns resampled column by column from the training data.

    Each chosen column is filled with independent draws, with replacement, from the training column's
    values; the others come from a fresh sample. Marginals of the chosen columns are the training
    marginals, but no training row is kept together: no joint leak (rare single values still come
    through). The chosen columns are the first ``round(level × d)`` of a seeded random column order. At
    level 1 every column is resampled (the demo's column resampler, byte for byte) and no population is
    needed.
    """

    name = "column_resample"

    def __init__(self, level: float = 0.5, population: pd.DataFrame | None = None) -> None:
        super().__init__(level, population, required=level != 1)

    def _draw(self, n, rng):
        real = self.table
        k = share_count(self.level, real.shape[1])
        if k == real.shape[1]:
            out = {col: real[col].to_numpy()[rng.integers(0, len(real), n)] for col in real.columns}
            return match_dtypes(pd.DataFrame(out, columns=real.columns), real)
        out, _ = self._fresh(n, rng)
        chosen = [real.columns[j] for j in rng.permutation(real.shape[1])[:k]]
        for col in real.columns:
            if col in chosen:
                out[col] = real[col].to_numpy()[rng.integers(0, len(real), n)]
        return match_dtypes(out, real)


class _KeySpace:
    """Numerical keys min–max scaled (plus a missing indicator), categorical keys one-hot (see AttributeLeak)."""

    def __init__(self, table: pd.DataFrame, types, columns: Sequence[str]) -> None:
        self.parts = []
        for col in columns:
            if is_numerical(types, col):
                x = table[col].to_numpy(dtype=float)
                ok = ~np.isnan(x)
                lo, hi = (np.min(x[ok]), np.max(x[ok])) if ok.any() else (0.0, 0.0)
                median = float(np.median(x[ok])) if ok.any() else 0.0
                self.parts.append((col, "num", (lo, hi - lo if hi > lo else 1.0, median)))
            else:
                levels = pd.Index(pd.unique(category_keys(table[col])))
                self.parts.append((col, "cat", levels))

    def transform(self, df: pd.DataFrame) -> np.ndarray:
        blocks = []
        for col, kind, info in self.parts:
            if kind == "num":
                lo, width, median = info
                x = df[col].to_numpy(dtype=float)
                miss = np.isnan(x)
                blocks += [(np.where(miss, median, x) - lo) / width, miss.astype(float)]
            else:
                codes = info.get_indexer(category_keys(df[col]))
                onehot = np.zeros((len(df), len(info)))
                rows = np.flatnonzero(codes >= 0)
                onehot[rows, codes[rows]] = 1.0
                blocks.append(onehot)
        return np.ascontiguousarray(np.column_stack(blocks), dtype=np.float64)


def category_keys(col: pd.Series) -> np.ndarray:
    """A column's values as strings, missing values as one key of their own, for comparing categories."""
    values = col.astype(object).to_numpy()
    return np.where(pd.isna(values), "\x00missing", values.astype(str))
