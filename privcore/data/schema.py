"""Column types and roles (metrics.md §0), inferred from the data and overridable by the user."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from privcore.base import ExtremeValueError, SchemaError
from privcore.data.column_kinds import (
    BINARY,
    CATEGORICAL,
    COLUMN_KINDS,
    DATE,
    IDENTIFIER,
    NUMERICAL,
    TEXT,
    boolean_spellings,
    date_days,
    date_format,
    identifier_or_text,
    numbers_of,
    reads_as_thousands,
)
from privcore.data.wording import declare_categorical, leave_out

#: The types of the analysed columns, as the distance spaces and metrics read them (a date is numerical: days).
COLUMN_TYPES = (NUMERICAL, CATEGORICAL, BINARY)
MISSING_POLICIES = ("drop", "impute")

#: An integer column with at most this many distinct values is flagged as probably categorical.
FEW_INTEGER_VALUES = 10

#: Largest seed: every random step (numpy, scikit-learn's ``random_state=seed + i``) accepts it.
MAX_SEED = 2**31 - 1

#: Largest magnitude of a numerical value. Beyond it the squares and sums behind min–max scaling,
#: standardisation and distances can overflow double precision (1e308) and give wrong scores.
MAX_MAGNITUDE = 1e100


#: Words in a column name that say its numbers are codes (postcodes, identifiers), not quantities.
CODE_WORDS = frozenset({
    "id", "ids", "identifier", "code", "codes", "postcode", "postcodes", "postal", "zip", "zipcode", "plz",
    "phone", "telephone", "ssn", "account", "iban", "uuid", "guid", "fips", "nhs",
})

#: Of :data:`CODE_WORDS`, those that name a code of one record (rather than a place shared by many).
IDENTIFIER_WORDS = frozenset({"id", "ids", "identifier", "phone", "telephone", "ssn", "account", "iban", "uuid",
                              "guid", "nhs"})

#: Words in a column name that say its numbers are quantities even when they all have the same width.
QUANTITY_WORDS = frozenset({
    "income", "salary", "wage", "wages", "earnings", "pay", "amount", "price", "cost", "value", "weight",
    "height", "balance", "age", "hours", "count", "total", "sum", "gain", "loss", "fee", "revenue", "rent",
})

#: Words in a column name that suggest what an attacker would want to learn, most telling first.
SENSITIVE_WORDS = (
    "diagnosis", "disease", "illness", "hiv", "cancer", "diabetes", "condition", "treatment", "health",
    "income", "salary", "wage", "wages", "earnings", "pay", "debt", "religion", "ethnicity", "disability",
    "target", "label", "outcome", "class",
)

#: Largest number of values a column may take to be proposed as sensitive for being the last one.
FEW_TARGET_VALUES = 5


def name_words(column: Any) -> list[str]:
    """The words of a column name, lower case: "PostCode" and "post_code" give ["post", "code"].

    Examples
    --------
    >>> name_words("patientID"), name_words("hours-per-week")
    (['patient', 'id'], ['hours', 'per', 'week'])
    """
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", str(column))
    return [w for w in re.split(r"[^0-9A-Za-z]+", text.lower()) if w]


def _fixed_width_codes(numbers: np.ndarray) -> int | None:
    """The digit count when whole non-negative numbers look like fixed-width codes, else None.

    Codes such as 4-digit postcodes share one width of at least 4 digits (90% of the values: leading zeros
    are lost when a file is read as numbers), are rarely round, and are not years.
    """
    if len(numbers) == 0 or np.any(numbers < 0):
        return None
    width = len(str(int(numbers.max())))
    if width < 4:
        return None
    if np.mean(numbers >= 10 ** (width - 1)) < 0.9:
        return None
    if np.all((numbers >= 1800) & (numbers <= 2100)):  # years are quantities
        return None
    if np.mean(np.mod(numbers, 10) == 0) > 0.3:  # amounts are often rounded, codes seldom
        return None
    return width


@dataclass(frozen=True)
class SensitiveGuess:
    """A proposed sensitive column with the reason, in words, for the Configure page."""

    column: str
    reason: str


@dataclass(frozen=True)
class ColumnGuess:
    """An inferred column type with the reason a user may want to change it.

    ``identifier`` marks a text column with a distinct value in (nearly) every row: a record id or free
    text, which no attacker model uses as a quasi-identifier and which would blow up the one-hot space.
    ``code`` marks whole numbers that look like codes (postcodes, ids) rather than quantities.
    """

    type: str
    note: str = ""
    identifier: bool = False
    code: bool = False
    #: The format a date column is read in (``privcore.data.column_kinds.date_format``), else None.
    date_format: str | None = None


@dataclass
class Schema:
    """Types and roles of the analysed columns.

    Parameters
    ----------
    types : dict
        Column name → ``"numerical"``, ``"categorical"`` or ``"binary"``. Columns not listed are ignored.
    key : list of str, optional
        Quasi-identifiers. ``None`` means every analysed column except the sensitive one.
    sensitive : str, optional
        The sensitive attribute.
    pairing : str, optional
        ``None`` (no pairing), ``"row"`` (synthetic row *i* was generated from real row *i*) or the
        name of an id column present in both tables (not analysed).
    missing : {"drop", "impute"}
        Numerical missing values: drop the row (default) or impute the real table's median. Infinite
        values are not missing values: :meth:`validate` refuses them under either policy.
    seed : int
        Seed for every random step (metrics.md §0): a whole number from 0 to :data:`MAX_SEED`.

    Notes
    -----
    A :class:`Schema` says, for each analysed column, whether it is numerical, categorical or binary, which
    columns are quasi-identifiers (key) and which one is sensitive, how synthetic rows pair with real rows,
    and what to do with missing numerical values. :func:`infer_schema` proposes one; :meth:`Schema.validate`
    checks a (possibly user-edited) schema against the tables with specific, user-facing messages.

    Examples
    --------
    >>> Schema({"age": "numerical", "sex": "binary", "income": "categorical"}, sensitive="income").key_columns
    ['age', 'sex']
    """

    types: dict[str, str]
    key: list[str] | None = None
    sensitive: str | None = None
    pairing: str | None = None
    missing: str = "drop"
    seed: int = 0
    #: Columns of ``types`` that hold dates: read as days since 1970-01-01 and analysed as numbers.
    dates: list[str] = field(default_factory=list)
    #: Identifier columns (names, e-mail, phone, id numbers): not analysed in the distance spaces, checked for
    #: members' values reproduced in the synthetic table (:mod:`privcore.metrics.identifiers`).
    identifiers: list[str] = field(default_factory=list)
    #: Free-text columns: checked like identifiers, for members' rare strings reproduced.
    texts: list[str] = field(default_factory=list)
    #: Columns of the real table left out of the analysis, with the reason in words (``infer_schema`` fills it).
    left_out: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # One mapping of kinds is accepted too ({"born": "date", "name": "identifier"}): dates become numerical
        # columns listed in ``dates``, identifiers and text leave ``types`` for their own lists. A column typed
        # otherwise in ``types`` wins over an older entry in those lists (a changed type).
        types = dict(self.types)
        dates = [c for c in self.dates if types.get(c) in (NUMERICAL, DATE)]
        identifiers = [c for c in self.identifiers if c not in types or types[c] == IDENTIFIER]
        texts = [c for c in self.texts if c not in types or types[c] == TEXT]
        for col, kind in list(types.items()):
            if kind == DATE:
                types[col] = NUMERICAL
                dates.append(col)
            elif kind in (IDENTIFIER, TEXT):
                del types[col]
                (identifiers if kind == IDENTIFIER else texts).append(col)
        self.types = types
        self.dates = list(dict.fromkeys(dates))
        self.identifiers = list(dict.fromkeys(identifiers))
        self.texts = [c for c in dict.fromkeys(texts) if c not in self.identifiers]
        self.left_out = {c: r for c, r in dict(self.left_out).items()
                         if c not in types and c not in self.identifiers and c not in self.texts}

    def kind(self, column: str) -> str | None:
        """The kind of ``column`` as the user sees it (``date`` for a date), None when it is not used."""
        if column in self.dates:
            return DATE
        if column in self.identifiers:
            return IDENTIFIER
        if column in self.texts:
            return TEXT
        return self.types.get(column)

    @property
    def checked_columns(self) -> list[str]:
        """Identifier and text columns: not analysed in distance spaces, checked for reproduced values."""
        return [*self.identifiers, *self.texts]

    @property
    def columns(self) -> list[str]:
        """Analysed columns, in the order of ``types``."""
        return [c for c in self.types if c != self.pairing_column]

    @property
    def pairing_column(self) -> str | None:
        """The id column used for pairing, if pairing is by column."""
        return self.pairing if self.pairing not in (None, "row") else None

    @property
    def key_columns(self) -> list[str]:
        """The key attributes actually used (default: every analysed non-sensitive column)."""
        if self.key is not None:
            return list(self.key)
        return [c for c in self.columns if c != self.sensitive]

    def columns_of(self, kind: str) -> list[str]:
        """Analysed columns of one type."""
        return [c for c in self.columns if self.types[c] == kind]

    @property
    def sensitive_type(self) -> str | None:
        """The type of the sensitive column, None without one."""
        return None if self.sensitive is None else self.types.get(self.sensitive)

    def with_changes(self, **changes: Any) -> "Schema":
        """A copy with some fields replaced."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The schema as plain JSON values (the inverse of :meth:`from_dict`)."""
        return {
            "types": dict(self.types),
            "key": None if self.key is None else list(self.key),
            "sensitive": self.sensitive,
            "pairing": self.pairing,
            "missing": self.missing,
            "seed": self.seed,
            "dates": list(self.dates),
            "identifiers": list(self.identifiers),
            "texts": list(self.texts),
            "left_out": dict(self.left_out),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Schema":
        """The schema of a :meth:`to_dict` dictionary (``missing`` defaults to ``"drop"``)."""
        return cls(
            types=dict(data["types"]),
            key=None if data.get("key") is None else list(data["key"]),
            sensitive=data.get("sensitive"),
            pairing=data.get("pairing"),
            missing=data.get("missing", "drop"),
            seed=int(data.get("seed", 0)),
            dates=list(data.get("dates") or []),
            identifiers=list(data.get("identifiers") or []),
            texts=list(data.get("texts") or []),
            left_out=dict(data.get("left_out") or {}),
        )

    def validate(
        self,
        real: pd.DataFrame,
        synthetic: Mapping[str, pd.DataFrame] | pd.DataFrame | None = None,
        holdout: pd.DataFrame | None = None,
        *,
        real_name: str = "real",
        holdout_name: str = "holdout",
    ) -> None:
        """Check the schema against the tables; raise :class:`SchemaError` with a specific message.

        Besides types, roles and pairing, every numerical column of every table must hold finite
        numbers within ±:data:`MAX_MAGNITUDE`: ``inf``, ``-inf`` (CSV text "inf", "Infinity", or a
        number beyond ±1.8e308) and larger magnitudes raise :class:`~privcore.base.errors.ExtremeValueError`
        naming the file, the column and the first such row (counted from 1 below the header), under
        either missing-value policy: an infinite value is a measurement gone wrong, not a missing
        one, and dropping or imputing it silently would change the records being assessed.

        Parameters
        ----------
        real : DataFrame
            The real (training) table.
        synthetic : DataFrame or mapping of name → DataFrame, optional
            Synthetic table(s).
        holdout : DataFrame, optional
            Holdout table.
        real_name, holdout_name : str
            Names used in messages (file names where known).
        """
        if isinstance(synthetic, pd.DataFrame):
            synthetic = {"synthetic": synthetic}
        others = dict(synthetic or {})
        if holdout is not None:
            others[holdout_name] = holdout
        tables = {real_name: real, **others}

        if not self.types:
            if self.checked_columns:
                raise SchemaError(
                    f"No column is analysed: {', '.join(map(repr, self.checked_columns))} "
                    f"{'is an identifier or free text' if len(self.checked_columns) == 1 else 'are identifiers or free text'}, "
                    "which are checked for copied values but need at least one other column (a number, a category, a "
                    "date) to compare people by; declare one of them categorical, or add such a column.",
                    column=self.checked_columns[0])
            raise SchemaError("No column is selected for analysis: give at least one column a type.")
        unnamed = [c for c in self.types if not isinstance(c, str)]
        if unnamed:  # reports, messages and the JSON contract name columns by text
            raise SchemaError(
                f"Column {unnamed[0]!r} is not named by text; give every column a text name (for example "
                "df.columns = df.columns.astype(str)).",
                column=str(unnamed[0]),
            )
        for col, kind in self.types.items():
            if kind not in COLUMN_TYPES:
                raise SchemaError(
                    f"Column '{col}' has type '{kind}'; choose one of numerical, categorical, binary.",
                    column=col,
                )
        if self.missing not in MISSING_POLICIES:
            raise SchemaError(f"Missing-value policy '{self.missing}' is unknown; use 'drop' or 'impute'.")
        check_seed(self.seed)
        for name, df in tables.items():
            absent = [c for c in [*self.types, *self.checked_columns] if c not in df.columns]
            if absent:
                raise SchemaError(
                    f"{name} has no column {', '.join(repr(c) for c in absent)}; "
                    "remove it from the schema or upload a table that has it.",
                    file=name,
                    column=absent[0],
                )
        if self.sensitive is not None and self.sensitive in self.checked_columns:
            raise SchemaError(
                f"The sensitive column '{self.sensitive}' is declared {self.kind(self.sensitive)}; an attacker's target "
                "is compared by value, so declare it categorical (or numerical) to use it as the sensitive column.",
                column=self.sensitive,
            )
        if self.sensitive is not None and self.sensitive not in self.columns:
            raise SchemaError(
                f"The sensitive column '{self.sensitive}' is not among the analysed columns; "
                "give it a type or choose another sensitive column.",
                column=self.sensitive,
            )
        if self.key is not None:
            if not self.key:
                raise SchemaError("The key (quasi-identifier) list is empty: choose at least one key column.")
            unknown = [c for c in self.key if c not in self.columns]
            if unknown:
                raise SchemaError(
                    f"Key column(s) {', '.join(repr(c) for c in unknown)} are not analysed columns; "
                    "give them a type or remove them from the key.",
                    column=unknown[0],
                )
            if self.sensitive in self.key:
                raise SchemaError(
                    f"'{self.sensitive}' is both a key and the sensitive column; remove it from the key.",
                    column=self.sensitive,
                )
        elif not self.key_columns:
            raise SchemaError("No key column is left once the sensitive column is set aside; add a column.")
        self._validate_types_against_data(tables)
        self._validate_pairing(real, others, real_name, holdout_name)

    def _validate_types_against_data(self, tables: Mapping[str, pd.DataFrame]) -> None:
        for col in self.columns:
            kind = self.types[col]
            if col in self.dates:
                self._validate_dates(col, tables)
            elif kind == NUMERICAL:
                for name, df in tables.items():
                    if pd.api.types.is_numeric_dtype(df[col]):  # numbers (or booleans) only: no text to find
                        continue
                    values = df[col].dropna()
                    numeric = numbers_of(values)
                    bad = values[numeric.isna()]
                    if len(bad):
                        raise SchemaError(
                            f"Column '{col}' is declared numerical but {name} holds text such as "
                            f"{str(bad.iloc[0])!r}; {declare_categorical(col)}, {leave_out(col)}, or fix "
                            "those values.",
                            file=name,
                            column=col,
                        )
                for name, df in tables.items():
                    _check_magnitudes(numbers_of(df[col]), name, col)
            elif kind == BINARY:
                levels = set()
                for df in tables.values():
                    texts, missing = category_texts(df[col])
                    levels |= set(pd.unique(texts[~missing]))
                spellings = boolean_spellings(levels)
                if spellings is not None:  # "Yes", "yes" and "YES" are one value (prepare folds them)
                    levels = set(spellings.values())
                if len(levels) > 2:
                    shown = ", ".join(repr(v) for v in sorted(levels)[:5])
                    raise SchemaError(
                        f"Column '{col}' is declared binary but takes {len(levels)} values across the "
                        f"tables ({shown}…); {declare_categorical(col)}.",
                        column=col,
                    )

    def _validate_dates(self, col: str, tables: Mapping[str, pd.DataFrame]) -> None:
        """Every value of date column ``col`` reads as a date in the real table's format."""
        first_name, first = next(iter(tables.items()))
        fmt = date_format(first[col]) or "ISO8601"
        for name, df in tables.items():
            days, unreadable = date_days(df[col], fmt)
            if unreadable.any():
                row = int(np.flatnonzero(unreadable)[0])
                shown = "ISO 8601 (2001-12-31)" if fmt == "ISO8601" else fmt.replace("%", "")
                raise SchemaError(
                    f"Column '{col}' is declared a date but {name} holds {str(df[col].iloc[row])!r} in row {row + 1} "
                    f"(counting from 1 below the header), which does not read as a date in the format of "
                    f"{first_name} ({shown}); write every date in that format, {declare_categorical(col)}, or "
                    f"{leave_out(col)}.",
                    file=name,
                    column=col,
                )

    def _validate_pairing(self, real, others, real_name, holdout_name) -> None:
        if self.pairing is None:
            return
        synthetic = {n: df for n, df in others.items() if n != holdout_name}
        if self.pairing == "row":
            for name, df in synthetic.items():
                if len(df) != len(real):
                    raise SchemaError(
                        f"Pairing by row order needs equal row counts, but {real_name} has {len(real)} rows "
                        f"and {name} has {len(df)}; pair by an id column or choose no pairing.",
                        file=name,
                    )
            return
        col = self.pairing
        for name, df in [(real_name, real), *synthetic.items()]:
            if col not in df.columns:
                raise SchemaError(
                    f"The pairing id column '{col}' is missing from {name}; choose a column present in "
                    "both tables, 'row', or no pairing.",
                    file=name,
                    column=col,
                )
        dup = real[col][real[col].duplicated()]
        if len(dup):
            raise SchemaError(
                f"The pairing id column '{col}' repeats values in {real_name} (e.g. {dup.iloc[0]!r}); "
                "ids must identify one real row each.",
                file=real_name,
                column=col,
            )
        if col in self.key_columns or col == self.sensitive:
            raise SchemaError(
                f"'{col}' is the pairing id and cannot also be a key or the sensitive column.", column=col
            )


def check_seed(seed: Any) -> int:
    """The seed as an int; :class:`SchemaError` unless it is a whole number from 0 to :data:`MAX_SEED`."""
    whole = isinstance(seed, (int, np.integer)) or (isinstance(seed, float) and seed.is_integer())
    if isinstance(seed, (bool, np.bool_)) or not whole or not 0 <= seed <= MAX_SEED:
        raise SchemaError(f"The seed must be a whole number from 0 to {MAX_SEED} (got {seed!r}); "
                          "any such number gives reproducible scores, 0 is the default.")
    return int(seed)


def _check_magnitudes(numbers: pd.Series, name: str, col: str) -> None:
    """Refuse ±inf and magnitudes beyond :data:`MAX_MAGNITUDE` in one table's numerical column."""
    values = numbers.to_numpy(dtype=np.float64, na_value=np.nan)
    infinite = np.isinf(values)
    huge = np.abs(np.where(infinite, 0.0, values)) > MAX_MAGNITUDE  # NaN compares False
    limit = f"{MAX_MAGNITUDE:.0e}".replace("e+", "e")
    for bad, what, todo in (
        (infinite, "an infinite value", "Replace such values with the actual numbers, or empty those cells if "
         "the values are unknown (the missing-value policy then applies), or "
         f"{declare_categorical(col, 'the column')}."),
        (huge, f"a number beyond ±{limit}", "Numbers this large overflow the scaling behind the distances. "
         f"Check the value, rescale the column (other units, or its logarithm), or {declare_categorical(col)}."),
    ):
        positions = np.flatnonzero(bad)
        if len(positions):
            first = int(positions[0])
            more = f"; {len(positions)} such values in all" if len(positions) > 1 else ""
            raise ExtremeValueError(
                f"Column '{col}' of {name} holds {what} in row {first + 1}, counting rows from 1 below the "
                f"header ({values[first]:g}{more}). {todo}",
                file=name,
                column=col,
            )


def canonical_categories(series: pd.Series) -> pd.Series:
    """Values as strings, integral floats written as integers, so 1 and 1.0 are the same category.

    Parameters
    ----------
    series : pandas.Series
        A categorical column as loaded.

    Returns
    -------
    pandas.Series
        Object dtype: each non-missing value as its category text, missing values kept.

    Examples
    --------
    >>> canonical_categories(pd.Series([1.0, "a", None, True])).tolist()
    ['1', 'a', None, 'True']
    """
    texts, _ = category_texts(series)
    return pd.Series(texts, index=series.index, name=series.name, dtype=object)


def category_texts(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """:func:`canonical_categories` as a new object array, with the mask of its missing values.

    The mask comes from the same pass that finds the values to write out, so a caller that fills the missing values
    needs no other pass over the texts.

    Examples
    --------
    >>> texts, missing = category_texts(pd.Series([1.0, "a", None]))
    >>> texts.tolist(), missing.tolist()
    (['1', 'a', None], [False, False, True])
    """
    values = series.to_numpy(dtype=object, copy=True)
    # Text, the usual case, is its own category text: the column is written out only when it holds other
    # values (numbers, booleans). Preparing the demo's tables spent 0.1 s here converting text to text. The
    # check is one pass in numpy over the values' exact types (a str subclass such as numpy.str_ is written out
    # as str), and a column without missing values needs no other pass; a generator over the values, after the
    # missing ones were found and left out, cost about 0.36 s for the three tables at 100,000 rows.
    text = _TYPE_OF(values) == str
    if text.all():
        return values, np.zeros(len(values), dtype=bool)
    mask = pd.notna(values)
    if text[mask].all():
        return values, ~mask
    present = values[mask]
    kinds = _TYPE_OF(present)
    if pd.api.types.infer_dtype(present, skipna=False) in _ONE_KIND:
        # One kind of value (all numbers or all booleans): equal values have equal texts, so each distinct
        # value is written once. Mixed kinds are written type by type, because True, 1 and 1.0 are equal as
        # keys but are different categories.
        values[mask] = _distinct_texts(present)
    else:
        values[mask] = _texts_by_type(present, kinds)
    return values, ~mask


#: The exact type of each value of an object array (a numpy ufunc: one pass, no Python loop).
_TYPE_OF = np.frompyfunc(type, 1, 1)


def _distinct_texts(values: np.ndarray) -> np.ndarray:
    """The category text of each value, written once per distinct value.

    Values that are equal as keys must have equal texts.
    """
    if len(values) and isinstance(values[0], str):
        # Text is its own text (a str subclass written as str). pandas hashes text as C strings, so factorizing
        # would make "" and "\x00" one value.
        return np.array([str(v) for v in values], dtype=object)
    codes, uniques = pd.factorize(values)
    return np.array([_category_text(v) for v in uniques] + [""], dtype=object)[codes]


def _texts_by_type(values: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """The category text of each value of a column of mixed kinds.

    The values of one plain type (str, int, float, bool and numpy's numbers), where equal values have equal texts, are
    written once per distinct value; any other type (a Decimal: 1.0 and 1 are equal keys with different texts) value by
    value.
    """
    texts = np.empty(len(values), dtype=object)
    codes, distinct = pd.factorize(kinds)  # (comparing an array with a numpy type object would not work)
    for k, kind in enumerate(distinct):
        rows = codes == k
        if kind in (str, int, float, bool) or issubclass(kind, (np.integer, np.floating, np.bool_)):
            texts[rows] = _distinct_texts(values[rows])
        else:
            texts[rows] = [_category_text(v) for v in values[rows]]
    return texts


#: pandas' inferred kinds within which equal values (as dictionary keys) always have the same category text.
_ONE_KIND = frozenset({"string", "integer", "floating", "mixed-integer-float", "boolean", "empty"})


def _category_text(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def guess_column_type(series: pd.Series) -> ColumnGuess:
    """Guess one column's type from the real table.

    Two distinct values make a binary column; text is categorical; numbers are numerical, but an
    integer column with at most ``FEW_INTEGER_VALUES`` distinct values is flagged as probably
    categorical (codes such as 1–5 are rarely quantities), and whole numbers that look like codes (a name
    with :data:`CODE_WORDS`, or fixed-width digits such as 4-digit postcodes) are typed categorical with a
    note; such a column with a distinct value in every row is an identifier, left out by default.

    Examples
    --------
    >>> guess_column_type(pd.Series([2000, 3051, 4217, 5063, 6151, 7004, 2601, 3121, 4101, 8123, 9311],
    ...                             name="postcode")).type
    'categorical'
    """
    values = series.dropna()
    distinct = values.nunique()
    if len(values) == 0:
        return ColumnGuess(CATEGORICAL, "all values are missing")
    words = name_words(series.name)
    fmt = date_format(series) if distinct > 2 else None
    if fmt is not None:
        how = "as they are" if fmt == "datetime" else ("in ISO 8601" if fmt == "ISO8601" else
                                                        f"in the format {fmt.replace('%', '')}")
        return ColumnGuess(DATE, f"dates, read {how}: analysed as days, so dates a day apart count as close",
                           date_format=fmt)
    if distinct > 2 and reads_as_thousands(series):
        return ColumnGuess(NUMERICAL, "numbers written with thousands separators (1,234): read as numbers")
    if distinct == 1:
        kind = NUMERICAL if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series) else CATEGORICAL
        return ColumnGuess(kind, "constant in the real table: it will be left out of distance spaces")
    if distinct == 2:
        return ColumnGuess(BINARY, "")
    if not pd.api.types.is_numeric_dtype(series) and boolean_spellings(pd.unique(values.astype(str))) is not None:
        return ColumnGuess(BINARY, "yes and no written in several ways (Yes, yes, YES): read as two values")
    if pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series):
        kind = identifier_or_text(series, words)
        if kind == TEXT:
            return ColumnGuess(TEXT, f"free text ({distinct} distinct values in {len(values)} rows): not compared by "
                                     "distance, checked for members' rare strings copied into the synthetic table",
                               identifier=True)
        if kind == IDENTIFIER:
            return ColumnGuess(IDENTIFIER, f"looks like an identifier ({distinct} distinct values in {len(values)} "
                                           "rows): not compared by distance, checked for members' values copied into "
                                           "the synthetic table; choose categorical if it is a genuine category",
                               identifier=True)
        return ColumnGuess(CATEGORICAL, "")
    numeric = values.astype(float)
    integral = bool(np.all(np.isfinite(numeric)) and np.all(np.mod(numeric, 1) == 0))
    if integral and distinct > FEW_INTEGER_VALUES:
        words = set(words)
        named = bool(CODE_WORDS & words)
        width = None if QUANTITY_WORDS & words else _fixed_width_codes(numeric.to_numpy())
        if named or width is not None:
            why = (f"the name '{series.name}' suggests codes" if named
                   else f"every value is a {width}-digit whole number, like a postcode or an id")
            if IDENTIFIER_WORDS & words and distinct == len(values) and distinct > 20:
                return ColumnGuess(
                    IDENTIFIER,
                    f"{why}, and each row has its own value: looks like an identifier, so it is not compared by "
                    "distance but checked for members' values copied into the synthetic table; choose categorical "
                    "if it is a genuine category",
                    identifier=True, code=True,
                )
            return ColumnGuess(
                CATEGORICAL,
                f"{why}: typed categorical, so that neighbouring codes (2000 and 2001) do not count as close; "
                "choose numerical if these are quantities",
                code=True,
            )
    if integral and distinct <= FEW_INTEGER_VALUES:
        return ColumnGuess(
            NUMERICAL, f"only {distinct} distinct integer values: probably categorical (codes), check the type"
        )
    return ColumnGuess(NUMERICAL, "")


def infer_schema(
    real: pd.DataFrame,
    *,
    sensitive: str | None = None,
    key: Iterable[str] | None = None,
    pairing: str | None = None,
    overrides: Mapping[str, str] | None = None,
    exclude: Iterable[str] = (),
    missing: str = "drop",
    seed: int = 0,
) -> Schema:
    """Propose a schema for ``real``: inferred types with user overrides applied.

    Parameters
    ----------
    real : DataFrame
        The real table; types are inferred from it alone.
    sensitive, key, pairing, missing, seed
        As in :class:`Schema`.
    overrides : mapping, optional
        Column → type chosen by the user; wins over inference.
    exclude : iterable of str
        Columns to leave out of the analysis. Text columns that look like identifiers (a distinct value in
        most rows) are left out too unless they are overridden, the sensitive column or a key column.

    Returns
    -------
    Schema
    """
    overrides = dict(overrides or {})
    excluded = set(exclude)
    if pairing not in (None, "row"):
        excluded.add(pairing)
    unknown = [c for c in overrides if c not in real.columns]
    if unknown:
        raise SchemaError(
            f"Column(s) {', '.join(repr(c) for c in unknown)} given a type are not in the real table.",
            column=unknown[0],
        )
    for col, kind in overrides.items():
        if kind not in COLUMN_KINDS:
            raise SchemaError(
                f"Column '{col}' was given type '{kind}'; choose one of {', '.join(COLUMN_KINDS)}.", column=col
            )
    types: dict[str, str] = {}
    left_out: dict[str, str] = {}
    roles = {sensitive, *(key or [])} - {None}
    for col in real.columns:
        if col in excluded:
            left_out[col] = ("the pairing id: it says which real row a synthetic row was made from" if col == pairing
                             else "left out on request")
            continue
        if col in overrides:
            types[col] = overrides[col]
            continue
        if real[col].isna().all():
            left_out[col] = "it has no values in the real table"
            continue
        guess = guess_column_type(real[col])
        kind = guess.type
        if kind in (IDENTIFIER, TEXT) and col in roles:
            kind = CATEGORICAL  # chosen as a key or the sensitive column: compared by value
        types[col] = kind
    return Schema(
        types=types,
        key=None if key is None else list(key),
        sensitive=sensitive,
        pairing=pairing,
        missing=missing,
        seed=seed,
        left_out=left_out,
    )


def suggest_sensitive(real: pd.DataFrame) -> SensitiveGuess | None:
    """Propose a sensitive column when the data suggest one, or None.

    A column whose name holds one of :data:`SENSITIVE_WORDS` (the earliest word wins: a diagnosis before an
    income); otherwise the last column when it takes 2 to :data:`FEW_TARGET_VALUES` values (tables are often
    laid out with the outcome last). Columns that look like identifiers or codes are never proposed. A
    proposal only: the user confirms or changes it.

    Examples
    --------
    >>> suggest_sensitive(pd.DataFrame({"age": [30, 41, 52], "Salary": [1.5, 2.0, 3.1]})).column
    'Salary'
    """
    candidates = []
    for col in real.columns:
        guess = guess_column_type(real[col])
        if guess.identifier or guess.code or real[col].nunique() < 2:
            continue
        candidates.append(col)
    for word in SENSITIVE_WORDS:
        for col in candidates:
            if word in name_words(col):
                return SensitiveGuess(str(col), f"its name suggests what an attacker would want to learn ({word})")
    if candidates and candidates[-1] == real.columns[-1]:
        last = real.columns[-1]
        values = real[last].dropna()
        distinct = values.nunique()
        quantity = guess_column_type(real[last]).type == NUMERICAL and not np.all(
            np.mod(values.astype(float), 1) == 0) if pd.api.types.is_numeric_dtype(values) else False
        if distinct <= FEW_TARGET_VALUES and len(values) >= 2 * distinct and not quantity:
            return SensitiveGuess(str(last), f"it is the last column and takes only {distinct} values, like an "
                                             "outcome")
    return None


def column_notes(real: pd.DataFrame) -> dict[str, str]:
    """For each column of ``real``, the inference note (empty when nothing is worth saying)."""
    return {col: guess_column_type(real[col]).note for col in real.columns}
