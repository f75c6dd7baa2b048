"""The generator protocol, its named errors, the common base class and the helpers every generator shares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from privcore.base import ColumnMismatchError, InputError, TooFewRowsError
from privcore.data import (
    CATEGORICAL,
    COLUMN_TYPES,
    NUMERICAL,
    Param,
    ParamError,
    check_seed,
    check_settings,
    guess_column_type,
)

__all__ = [
    "Generator",
    "PerRecordLoss",
    "per_record_loss",
    "BaseGenerator",
    "GeneratorError",
    "UnknownGeneratorError",
    "GeneratorSettingError",
    "GeneratorContextError",
    "GeneratorOutputError",
    "check_sample",
    "check_level",
]


# --------------------------------------------------------------------------------------------------
# protocol and errors
# --------------------------------------------------------------------------------------------------
@runtime_checkable
class Generator(Protocol):
    """What the lab and the audit need from a synthetic-data generator.

    ``fit(table, types)`` learns from ``table`` and returns the generator itself; ``sample(n, seed)``
    returns ``n`` rows with the training table's columns and dtypes and a fresh ``RangeIndex``, the same
    rows for the same ``seed``. Built-in generators derive from :class:`BaseGenerator`; wrap an SDV-style
    synthesizer with :class:`privcore.generators.SDVAdapter`.

    Notes
    -----
    A generator is any object with

    - ``fit(table, types) -> self``: learn from a training table; ``types`` maps column name to
      ``"numerical"``, ``"categorical"`` or ``"binary"`` (see :meth:`BaseGenerator.fit` for the rules);
    - ``sample(n, seed) -> DataFrame``: ``n`` synthetic rows with the training table's columns (same order)
      and dtypes and a fresh ``RangeIndex``, a deterministic function of the fitted state and ``seed``;
    - optionally, the white-box interface ``per_record_loss(table, *, seed=0, **options) -> ndarray``: the
      fitted model's loss on each record of ``table`` (one finite float per row, lower = better explained),
      computed with fixed randomness so that two calls agree (:class:`PerRecordLoss`; :func:`per_record_loss`
      asks any generator for it and returns None when it does not offer it). ``tabddpm`` provides it: each
      record's denoising loss at a fixed set of timesteps with fixed noise.

    Column types go to ``fit``, not to the constructor: they describe the table, not the generator, and one
    generator object is refitted on many tables (the shadow models of an audit, the seeds of a lab run). The
    constructor holds the generator's settings and its context (a fresh population, key and sensitive
    columns).
    """

    def fit(self, table: pd.DataFrame, types: Mapping[str, str]) -> "Generator":
        """Learn from ``table`` (``types`` maps each column to its type) and return the generator itself."""

    def sample(self, n: int, seed: int) -> pd.DataFrame:
        """``n`` rows with the training table's columns and dtypes, the same rows for the same ``seed``."""


@runtime_checkable
class PerRecordLoss(Protocol):
    """The optional white-box interface: a fitted generator's loss on each record of a table.

    ``per_record_loss(table, seed=0, **options)`` returns one finite float per row of ``table`` (which has the
    training table's columns), lower for a record the model explains better, the same for the same ``seed``
    and options. A likelihood-based model returns e.g. a negative log-likelihood; a diffusion model its
    denoising loss at fixed timesteps with fixed noise (:class:`privcore.generators.tabddpm.TabDDPM`). A
    generator of your own may offer it; none has to.
    """

    def per_record_loss(self, table: pd.DataFrame, *, seed: int = 0, **options: Any) -> np.ndarray:
        """The fitted model's loss on each record of ``table``, lower for a record it explains better."""


class GeneratorError(InputError):
    """A problem with a generator: its name, settings, context, use or output."""


class UnknownGeneratorError(GeneratorError):
    """No built-in generator has this name."""


class GeneratorSettingError(GeneratorError, ParamError):
    """A generator setting is unknown, of the wrong kind, outside its range, or conflicts with another."""


class GeneratorContextError(GeneratorError):
    """A generator lacks what it needs besides its settings (a population, a sensitive column…)."""


class GeneratorOutputError(GeneratorError):
    """A generator returned something that is not a table like its training table."""


def per_record_loss(generator: Any, table: pd.DataFrame, *, seed: int = 0, **options: Any) -> np.ndarray | None:
    """A fitted generator's per-record loss on ``table`` (:class:`PerRecordLoss`), or None if it offers none.

    A generator wrapped by :func:`privcore.generators.as_generator` is asked through the wrapper. The answer
    is checked: one finite number per row of ``table``, as a float array.

    Raises
    ------
    GeneratorOutputError
        The generator returned something else (a wrong length, a missing or infinite value).
    """
    inner = getattr(generator, "inner", None)  # as_generator's wrapper of an outside object
    method = getattr(generator, "per_record_loss", None) or getattr(inner, "per_record_loss", None)
    if not callable(method):
        return None
    who = getattr(generator, "name", type(generator).__name__)
    try:
        losses = np.asarray(method(table, seed=seed, **options), dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise GeneratorOutputError(f"{who}'s per_record_loss did not return numbers: {error}") from None
    if losses.shape != (len(table),) or not np.all(np.isfinite(losses)):
        raise GeneratorOutputError(f"{who}'s per_record_loss must return one finite number per record "
                                   f"({len(table):,}); got shape {losses.shape}"
                                   f"{'' if np.all(np.isfinite(losses)) else ' with missing or infinite values'}.")
    return losses


# --------------------------------------------------------------------------------------------------
# small helpers (shared by the built-ins and the demo wrappers)
# --------------------------------------------------------------------------------------------------
def is_numerical(types: Mapping[str, str], col: str) -> bool:
    """Whether ``col`` is numerical (columns missing from ``types`` count as categorical)."""
    return types.get(col, CATEGORICAL) == NUMERICAL


def is_integral(values: np.ndarray) -> bool:
    """True if every non-missing value is a whole number (and there is at least one)."""
    v = values[~np.isnan(values)]
    return bool(v.size) and bool(np.all(v == np.round(v)))


def match_dtypes(out: pd.DataFrame, real: pd.DataFrame) -> pd.DataFrame:
    """Cast ``out`` column by column to ``real``'s dtypes (where the values allow it)."""
    for col in real.columns:
        dtype = real[col].dtype
        if out[col].dtype != dtype:
            try:
                out[col] = out[col].astype(dtype)
            except (TypeError, ValueError):  # e.g. int column that received NaN
                pass
    return out


def row_positions(n_rows: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Each of ``n_rows`` rows once in shuffled order, repeated (new shuffle each round) until ``n`` rows."""
    rounds = -(-n // n_rows)
    return np.concatenate([rng.permutation(n_rows) for _ in range(rounds)])[:n]


def category_codes(col: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Category codes (missing is its own category) and the category values, most frequent first.

    Ties in frequency are ordered by the category's text, missing last among equals.
    """
    values = col.astype(object).to_numpy()
    missing = pd.isna(values)
    keys = np.where(missing, "\x00missing", values.astype(str))
    uniq, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True,
                                            return_counts=True)
    order = np.lexsort((uniq == "\x00missing", uniq, -counts))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    cats = values[first[order]]
    return rank[inverse], cats


def put_rows(out: pd.DataFrame, dst: np.ndarray, source: pd.DataFrame, src: np.ndarray) -> pd.DataFrame:
    """Overwrite rows ``dst`` of ``out`` with rows ``src`` of ``source`` (positions), then match dtypes."""
    for col in out.columns:
        values = out[col].to_numpy().copy()
        if values.dtype != source[col].dtype:
            values = values.astype(object)
        values[dst] = source[col].to_numpy()[src]
        out[col] = values
    return match_dtypes(out, source)


def rarity_order(frame: pd.DataFrame, *, by_surprisal: bool = False) -> np.ndarray:
    """Row positions, rarest first: fewest rows sharing the row's exact values, then lowest position.

    Missing counts as a value. ``frame`` holds the columns uniqueness is judged on (already coarsened
    where that is wanted). ``by_surprisal``: among rows with equally few sharers, the one whose values
    are rarer column by column (larger sum over columns of −log of the value's frequency) comes first.

    >>> frame = pd.DataFrame({"a": ["x", "y", "x", "z", "x"], "b": [1, 2, 2, 3, 1]})
    >>> rarity_order(frame).tolist(), rarity_order(frame, by_surprisal=True).tolist()
    ([1, 2, 3, 0, 4], [3, 1, 2, 0, 4])
    """
    key = pd.util.hash_pandas_object(frame.astype(object), index=False).to_numpy()
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    sort_keys = [np.arange(len(frame))]
    if by_surprisal:
        surprisal = np.zeros(len(frame))
        for col in frame.columns:
            codes, _ = pd.factorize(frame[col].astype(object), use_na_sentinel=False)
            surprisal -= np.log(np.bincount(codes)[codes] / len(frame))
        sort_keys.append(-np.round(surprisal, 9))  # equal up to rounding: a tie
    return np.lexsort([*sort_keys, counts[inverse]])


def share_count(share: float, total: int) -> int:
    """``share × total`` rounded half up (0.5 → 1), between 0 and ``total``."""
    return int(min(total, max(0, np.floor(share * total + 0.5))))


#: The ladder's one strength knob, shared by every leak type that takes a ``level`` in [0, 1].
LEVEL = Param("level", "float", 0.5, "Leak strength", "0 = a fresh real sample (no leak), 1 = the strongest leak.",
              minimum=0.0, maximum=1.0, step=0.05)
#: Equal-width bins of a numerical column (``independent_histograms``, ``dp_marginals``, ``privbayes``).
BINS = Param("bins", "int", 20, "Bins", "Equal-width bins of a numerical column.", minimum=2, maximum=1000)


def check_settings_of(who: str, params: Sequence[Param], values: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`privcore.data.params.check_settings` raising :class:`GeneratorSettingError` (the declared sentence).

    >>> check_settings_of("partial_copy", (LEVEL,), {"level": 2})
    Traceback (most recent call last):
    ...
    privcore.generators.base.GeneratorSettingError: Leak strength (partial_copy.level) must be between 0 and 1; got 2.
    """
    return check_settings(who, params, values, GeneratorSettingError)


def check_level(level: Any, who: str) -> float:
    """A leak level as a float in [0, 1] (the :data:`LEVEL` declaration), or :class:`GeneratorSettingError`."""
    return check_settings_of(who, (LEVEL,), {"level": level})["level"]


# --------------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------------
def check_table(table: Any, who: str, role: str = "training table") -> pd.DataFrame:
    """``table`` with a fresh index, once checked to be a DataFrame with rows and unique column names.

    Else a :class:`GeneratorError` or :class:`TooFewRowsError` naming ``who`` and ``role``.
    """
    if not isinstance(table, pd.DataFrame):
        raise GeneratorError(f"{who} needs its {role} as a pandas DataFrame; got {type(table).__name__}.")
    if len(table) == 0:
        raise TooFewRowsError(f"The {role} of {who} is empty; a generator needs at least one row.", file=role)
    if table.columns.duplicated().any():
        dup = table.columns[table.columns.duplicated()][0]
        raise GeneratorError(f"The {role} of {who} has two columns named {dup!r}.", file=role)
    return table.reset_index(drop=True)


def check_types(table: pd.DataFrame, types: Mapping[str, str] | None, who: str) -> dict[str, str]:
    """Each column's type: from ``types``, or guessed from the values when ``types`` is None.

    From ``types``, an unknown kind is refused and a column it does not name is categorical.
    """
    if types is None:
        return {col: guess_column_type(table[col]).type for col in table.columns}
    if not isinstance(types, Mapping):
        raise GeneratorError(f"The column types given to {who} must map column names to one of "
                             f"{', '.join(COLUMN_TYPES)}; got {type(types).__name__}.")
    bad = {col: kind for col, kind in types.items() if col in table.columns and kind not in COLUMN_TYPES}
    if bad:
        col, kind = next(iter(bad.items()))
        raise GeneratorError(f"Column '{col}' has type {kind!r} for {who}; the types are "
                             f"{', '.join(COLUMN_TYPES)}.", column=col)
    return {col: types.get(col, CATEGORICAL) for col in table.columns}


def check_sample_size(n: Any, who: str) -> int:
    """``n`` as an int if it is a positive whole number, else a :class:`GeneratorError` naming ``who``."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 1:
        raise GeneratorError(f"The number of rows to sample from {who} must be a positive whole number; "
                             f"got {n!r}.")
    return int(n)


def check_sample(out: Any, like: pd.DataFrame, n: int, who: str) -> pd.DataFrame:
    """A generator's output as a table like ``like``: its columns in order, its dtypes, ``n`` rows.

    Columns in another order are reordered, the index is replaced by a ``RangeIndex`` and dtypes are
    cast where the values allow it; ``attrs`` are kept.

    Raises
    ------
    GeneratorOutputError
        Not a DataFrame, missing or extra columns, a wrong number of rows, missing values in an integer or
        bool column, or a column whose values do not fit the training column's dtype.
    """
    if not isinstance(out, pd.DataFrame):
        raise GeneratorOutputError(f"{who} returned a {type(out).__name__}, not a table (pandas DataFrame).")
    missing = [c for c in like.columns if c not in out.columns]
    extra = [c for c in out.columns if c not in like.columns]
    if missing or extra:
        parts = ([f"lacks {', '.join(map(repr, missing))}"] if missing else []) + (
            [f"has extra {', '.join(map(repr, extra))}"] if extra else [])
        raise GeneratorOutputError(f"{who} returned a table whose columns differ from the training table: "
                                   f"it {' and '.join(parts)}.")
    if len(out) != n:
        raise GeneratorOutputError(f"{who} was asked for {n:,} rows and returned {len(out):,}.")
    attrs = dict(out.attrs)
    if list(out.columns) != list(like.columns):
        out = out[list(like.columns)]
    if not out.index.equals(pd.RangeIndex(n)):
        out = out.reset_index(drop=True)
    for col in like.columns:
        kind = like[col].dtype.kind
        if kind in "biu" and out[col].dtype.kind not in "biu" and out[col].isna().any():
            raise GeneratorOutputError(f"{who} returned missing values in column '{col}', whose training dtype "
                                       f"{like[col].dtype} has none.", column=col)
    if any(out[c].dtype != like[c].dtype for c in like.columns):
        out = match_dtypes(out.copy(), like)
    wrong = [c for c in like.columns if out[c].dtype != like[c].dtype]
    if wrong:
        col = wrong[0]
        raise GeneratorOutputError(f"{who} returned column '{col}' as {out[col].dtype}, which cannot be cast to "
                                   f"the training column's {like[col].dtype}.", column=col)
    out.attrs.update(attrs)
    return out


# --------------------------------------------------------------------------------------------------
# base class
# --------------------------------------------------------------------------------------------------
class BaseGenerator:
    """Common machinery of the built-in generators.

    Subclasses set :attr:`name`, may override :meth:`_fit` (learn from ``self.table`` and
    ``self.types``) and implement :meth:`_draw` (``n`` rows from a numpy ``Generator``). Randomness is
    drawn only in :meth:`_draw`, from ``numpy.random.default_rng(seed)``.
    """

    #: Registry name, used in messages.
    name = "generator"
    #: The declared settings (:class:`privcore.data.params.Param`): the registry lists them and the constructor
    #: checks its values with :func:`check_settings_of`, so both refuse a bad value with the same sentence.
    PARAMS: tuple[Param, ...] = ()

    def __init__(self) -> None:
        self.table: pd.DataFrame | None = None
        self.types: dict[str, str] = {}

    # -- protocol ---------------------------------------------------------------------------------
    def fit(self, table: pd.DataFrame, types: Mapping[str, str] | None = None) -> "BaseGenerator":
        """Learn from ``table``.

        Parameters
        ----------
        table : pandas.DataFrame
            The training table (at least one row, unique column names). Kept by reference with a fresh
            ``RangeIndex``; do not modify it while the generator is in use.
        types : mapping, optional
            Column name -> ``"numerical"``, ``"categorical"`` or ``"binary"``. Columns not listed count as
            categorical; entries for columns the table lacks are ignored. ``None``: every column's type is
            guessed by :func:`privcore.data.schema.guess_column_type` (the dashboard's first guess).

        Returns
        -------
        BaseGenerator
            ``self``.

        Raises
        ------
        privcore.base.errors.InputError
            :class:`TooFewRowsError` for an empty table, :class:`GeneratorError` for a non-table, a
            duplicated column name or an unknown type, and the subclass's own checks (e.g. a population
            whose columns differ: :class:`~privcore.base.errors.ColumnMismatchError`).
        """
        self.table = check_table(table, self.name)
        self.types = check_types(self.table, types, self.name)
        self._fit()
        return self

    def sample(self, n: int, seed: int = 0) -> pd.DataFrame:
        """``n`` synthetic rows, deterministic given ``seed`` (a whole number from 0 to 2**31 − 1).

        Returns
        -------
        pandas.DataFrame
            The training table's columns in order, its dtypes (where the values allow), a fresh
            ``RangeIndex``. Some generators record what they leaked in ``attrs`` (``leaked_real_rows``,
            ``leaked_synthetic_rows``: positions in the training table and in the sample).
        """
        table = self._fitted()
        n = check_sample_size(n, self.name)
        out = self._draw(n, np.random.default_rng(check_seed(seed)))
        return check_sample(out, table, n, self.name)

    def sample_with(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        """``n`` rows drawn from a caller's numpy ``Generator`` (no output check).

        For callers that thread one random stream through several steps, such as the demo's
        ``generator(real, types, n, rng)`` functions.
        """
        self._fitted()
        return self._draw(check_sample_size(n, self.name), rng)

    # -- subclass hooks ---------------------------------------------------------------------------
    def _fit(self) -> None:
        """Learn from ``self.table`` / ``self.types`` (default: nothing beyond keeping them)."""

    def _draw(self, n: int, rng: np.random.Generator) -> pd.DataFrame:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- helpers ----------------------------------------------------------------------------------
    def _fitted(self) -> pd.DataFrame:
        if self.table is None:
            raise GeneratorError(f"{self.name}: call fit(table, types) before sample(n, seed).")
        return self.table

    def __repr__(self) -> str:
        settings = ", ".join(f"{k}={v!r}" for k, v in self.settings().items())
        return f"{type(self).__name__}({settings})"

    def settings(self) -> dict[str, Any]:
        """The generator's settings (for reports and ``repr``)."""
        return {}


class PopulationMixin:
    """For generators that draw fresh real rows from a ``population`` table given to the constructor.

    The population must hold every training column (extra columns are ignored); at ``fit`` its rows are
    put in the training table's column order and cast to its dtypes. It should hold real people from the
    training data's population who are *not* in the training table (e.g. the holdout); a training record
    that is also in the population can come back through a "fresh" draw.
    """

    population: pd.DataFrame | None
    name: str

    def _set_population(self, population: pd.DataFrame | None, required: bool, why: str) -> None:
        if population is None:
            if required:
                raise GeneratorContextError(
                    f"{self.name} needs a population to draw fresh real rows from ({why}): pass "
                    f"population=TABLE, e.g. the holdout (real people not in the training table).")
            self.population = None
            return
        self.population = check_table(population, self.name, role="population")

    def _fit(self) -> None:
        self._pop = self._fit_population(self.table)

    def _fit_population(self, table: pd.DataFrame) -> pd.DataFrame | None:
        """The population with ``table``'s columns and dtypes (``None`` if there is none)."""
        if self.population is None:
            return None
        missing = [c for c in table.columns if c not in self.population.columns]
        if missing:
            raise ColumnMismatchError(
                f"The population given to {self.name} lacks the training column(s) "
                f"{', '.join(map(repr, missing))}; it needs every column of the training table.",
                file="population", missing=missing)
        return match_dtypes(self.population[list(table.columns)].copy(), table)

    def _fresh(self, n: int, rng: np.random.Generator) -> tuple[pd.DataFrame, np.ndarray]:
        """``n`` population rows (fitted as ``self._pop``) and their positions, see :func:`row_positions`."""
        positions = row_positions(len(self._pop), n, rng)
        return self._pop.iloc[positions].reset_index(drop=True), positions


def resolve_roles(table: pd.DataFrame, key: Sequence[str] | None, sensitive: str | None,
                  who: str) -> list[str]:
    """The key columns: ``key`` if given, else every column except ``sensitive`` (metrics.md §0)."""
    if sensitive is not None and sensitive not in table.columns:
        raise GeneratorContextError(f"The sensitive column {sensitive!r} given to {who} is not a column of the "
                                    f"training table.", column=sensitive)
    if key is None:
        return [c for c in table.columns if c != sensitive]
    key = [key] if isinstance(key, str) else list(key)
    unknown = [c for c in key if c not in table.columns]
    if unknown:
        raise GeneratorContextError(f"The key column(s) {', '.join(map(repr, unknown))} given to {who} are not "
                                    f"columns of the training table.")
    if sensitive in key:
        raise GeneratorContextError(f"The sensitive column {sensitive!r} cannot also be a key column of {who}.",
                                    column=sensitive)
    if not key:
        raise GeneratorContextError(f"{who} needs at least one key column.")
    return key
