"""The column kinds people hold beside numbers and categories: dates, numbers written with separators, identifiers, text.

A date is analysed as days, "1,234" as 1234; identifiers (names, e-mail, phone and id numbers) and free text stay out
of the distance spaces (nearly every value is its own) and are checked by :mod:`privcore.metrics.identifiers`.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

NUMERICAL, CATEGORICAL, BINARY = "numerical", "categorical", "binary"
DATE, IDENTIFIER, TEXT = "date", "identifier", "text"
#: Every kind a column can be given: the three the distance spaces use, and the three read or checked otherwise.
COLUMN_KINDS = (NUMERICAL, CATEGORICAL, BINARY, DATE, IDENTIFIER, TEXT)

#: What each kind means, in one sentence (the Configure page, ``--help`` and the README).
KIND_MEANINGS = {
    NUMERICAL: "a quantity: close values count as close (age, income, a measurement).",
    CATEGORICAL: "a category: values are equal or different, never close (a region, a diagnosis code, a postcode).",
    BINARY: "one of two values (yes/no, sex as recorded, a flag).",
    DATE: "a date or a date and time: analysed as a number of days, so that dates a day apart count as close.",
    IDENTIFIER: "a value that names one person (a name, an e-mail address, a phone or id number): not compared by "
                "distance, but checked for members' values copied into the synthetic table.",
    TEXT: "free text (notes, descriptions): not compared by distance, but checked for rare strings of members copied "
          "into the synthetic table.",
}

#: The date formats tried besides ISO 8601, most common first. Day-first comes before month-first: where both read
#: every value (all days at most 12) the table cannot tell, and most of the world writes the day first.
DATE_FORMATS = ("%d/%m/%Y", "%m/%d/%Y", "%Y/%m/%d", "%d.%m.%Y", "%d-%m-%Y", "%m-%d-%Y", "%d %b %Y", "%d %B %Y",
                "%b %d, %Y", "%B %d, %Y", "%d/%m/%Y %H:%M", "%m/%d/%Y %H:%M", "%d/%m/%Y %H:%M:%S",
                "%m/%d/%Y %H:%M:%S")
ISO = "ISO8601"
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$")
#: A share of a column's values that must read as dates (or as numbers) for the column to be taken as such.
MOST = 0.95
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
_PLAIN_NUMBER = re.compile(r"^[+-]?\d+(\.\d+)?$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_PHONE = re.compile(r"^\+?[\d ()./-]{7,}$")
SECONDS_PER_DAY = 86_400.0

#: Words in a column name that say it names a person (an identifier, not a category).
NAME_WORDS = frozenset({"name", "names", "firstname", "lastname", "surname", "forename", "fullname",
                        "email", "mail", "phone", "telephone", "mobile", "ssn", "passport", "nhs", "uuid",
                        "guid", "username", "login", "address", "street"})
#: Words that make "first"/"last" a name ("first name", "name last") rather than "first visit".
_NAME_PAIRS = {("first", "name"), ("last", "name"), ("name", "first"), ("name", "last"), ("given", "name"),
               ("family", "name"), ("middle", "name"), ("e", "mail")}
#: Words in a column name that say its values are categories even when most rows have their own (a diagnosis code,
#: a postcode or a product in a small table), not identifiers of people.
CATEGORY_WORDS = frozenset({"diagnosis", "icd", "code", "codes", "postcode", "zip", "zipcode", "postal", "plz", "fips",
                            "category", "type", "class", "product", "item", "procedure", "drug", "occupation", "job",
                            "country", "city", "region", "state", "county", "district"})
#: Mean words per value from which a column of mostly distinct values is free text rather than an identifier.
TEXT_WORDS = 4


def _texts(series: pd.Series) -> pd.Series:
    """The non-missing values of ``series`` as stripped strings."""
    return series.dropna().astype(str).str.strip()


def date_format(series: pd.Series) -> str | None:
    """The format that reads at least :data:`MOST` of ``series``'s values as dates, or None.

    Datetime columns read as they are (``"datetime"``); text is tried as ISO 8601 (a date, optionally with a time),
    then each of :data:`DATE_FORMATS`; the format reading the most values wins.

    Examples
    --------
    >>> date_format(pd.Series(["2001-03-04", "1999-12-31", None]))
    'ISO8601'
    >>> date_format(pd.Series(["31/12/1999", "04/03/2001"]))
    '%d/%m/%Y'
    >>> date_format(pd.Series(["1999", "2001"])) is None
    True
    """
    if pd.api.types.is_datetime64_any_dtype(series):
        return "datetime"
    if pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
        return None
    texts = _texts(series)
    if len(texts) == 0:
        return None
    sample = texts.iloc[:2000]
    if sample.str.match(_ISO_DATE).mean() >= MOST:
        return ISO
    if not sample.str.contains(r"\d", regex=True).all():
        return None
    best, read = None, 0.0
    for fmt in DATE_FORMATS:
        share = pd.to_datetime(sample, format=fmt, errors="coerce").notna().mean()
        if share > read:
            best, read = fmt, share
    return best if read >= MOST else None


def date_days(series: pd.Series, fmt: str) -> tuple[np.ndarray, np.ndarray]:
    """Days since 1970-01-01 (float, with the time of day as a fraction) and the mask of unreadable values.

    Missing values are NaN and not unreadable; a value that is present but does not read in ``fmt`` is NaN and
    unreadable. Times with a time zone are read in UTC.

    Examples
    --------
    >>> days, bad = date_days(pd.Series(["1970-01-02", "1970-01-01 12:00", None, "soon"]), "ISO8601")
    >>> days.tolist()[:2], bad.tolist()
    ([1.0, 0.5], [False, False, False, True])
    """
    present = series.notna().to_numpy()
    if fmt == "datetime":
        stamps = pd.to_datetime(series, errors="coerce", utc=True)
    else:
        texts = series.astype(object).where(series.notna(), None)
        texts = texts.map(lambda v: v.strip() if isinstance(v, str) else v)
        stamps = pd.to_datetime(texts, format="ISO8601" if fmt == ISO else fmt, errors="coerce", utc=True)
    stamps = pd.Series(stamps)
    nanoseconds = stamps.to_numpy(dtype="datetime64[ns]", na_value=np.datetime64("NaT"))
    days = (nanoseconds.astype("datetime64[us]").astype(np.int64) / 1e6) / SECONDS_PER_DAY
    days = np.where(np.isnat(nanoseconds), np.nan, days)
    return days, present & np.isnan(days)


def reads_as_thousands(series: pd.Series) -> bool:
    """Whether text ``series`` holds numbers, some written with thousands separators ("1,234.5").

    Examples
    --------
    >>> reads_as_thousands(pd.Series(["1,234", "987", "12,000.5"])), reads_as_thousands(pd.Series(["a", "1"]))
    (True, False)
    """
    if pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
        return False
    texts = _texts(series)
    if len(texts) == 0:
        return False
    separated = texts.str.match(_THOUSANDS)
    return bool(separated.any() and (separated | texts.str.match(_PLAIN_NUMBER)).mean() >= 1.0)


def numbers_of(series: pd.Series) -> pd.Series:
    """``series`` as numbers, thousands separators read ("1,234" is 1234); what is not a number becomes NaN.

    Examples
    --------
    >>> numbers_of(pd.Series(["1,234", "5", None])).tolist()
    [1234.0, 5.0, nan]
    """
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        return pd.to_numeric(series, errors="coerce")
    values = series.astype(object)
    if reads_as_thousands(series):
        values = values.map(lambda v: v.strip().replace(",", "") if isinstance(v, str) else v)
    return pd.to_numeric(values, errors="coerce")


#: Words for yes and no, compared case-folded: a flag written "Yes", "yes" and "YES" is one value.
YES_WORDS = frozenset({"yes", "y", "true", "t"})
NO_WORDS = frozenset({"no", "n", "false", "f"})


def boolean_spellings(levels) -> dict[str, str] | None:
    """Each spelling of a yes/no flag written in several ways → its case-folded form; None when it is not one.

    Only where the values are yes/no words in more than two spellings that fold to at most two words of one pair
    (yes/no, y/n, true/false, t/f): a flag written consistently is left as it is.

    Examples
    --------
    >>> boolean_spellings(["Yes", "yes", "NO"])
    {'Yes': 'yes', 'yes': 'yes', 'NO': 'no'}
    >>> boolean_spellings(["yes", "no"]) is None, boolean_spellings(["Yes", "yes", "maybe"]) is None
    (True, True)
    """
    levels = [str(v) for v in levels]
    folded = {v: v.strip().casefold() for v in levels}
    words = set(folded.values())
    if len(levels) <= 2 or len(words) > 2 or not words <= (YES_WORDS | NO_WORDS):
        return None
    pairs = [("yes", "no"), ("y", "n"), ("true", "false"), ("t", "f")]
    if not any(words <= set(pair) for pair in pairs):
        return None
    return folded


def names_a_person(column: str, words: list[str]) -> bool:
    """Whether a column's name says that it names a person (a name, an e-mail address, a phone number)."""
    if NAME_WORDS & set(words):
        return True
    return any(pair in _NAME_PAIRS for pair in zip(words, words[1:]))


def identifier_or_text(series: pd.Series, words: list[str]) -> str | None:
    """:data:`IDENTIFIER`, :data:`TEXT` or None for a text column, from its name and its values.

    An identifier: a name that says it names a person (:func:`names_a_person`), e-mail addresses or phone numbers,
    or short values distinct in most rows; free text: values distinct in most rows of :data:`TEXT_WORDS` words or
    more on average.

    Examples
    --------
    >>> identifier_or_text(pd.Series([f"Ann{i}" for i in range(30)], name="first_name"), ["first", "name"])
    'identifier'
    >>> identifier_or_text(pd.Series(["a@x.org", "b@y.com", "a@x.org"]), ["contact"])
    'identifier'
    """
    texts = _texts(series)
    if len(texts) == 0:
        return None
    sample = texts.iloc[:2000]
    distinct = texts.nunique()
    mostly_distinct = distinct > 0.5 * len(texts) and distinct > 20
    words_per_value = float(sample.str.split().str.len().mean())
    if mostly_distinct and words_per_value >= TEXT_WORDS:
        return TEXT
    # A name column with a few dozen values is a category ("country name"); people's names are many.
    if names_a_person(str(series.name), words) and distinct > 20 and distinct >= 0.05 * len(texts):
        return IDENTIFIER
    if sample.str.match(_EMAIL).mean() >= MOST or (sample.str.match(_PHONE).mean() >= MOST and distinct > 20
                                                  and mostly_distinct):
        return IDENTIFIER
    if mostly_distinct and not CATEGORY_WORDS & set(words):
        return IDENTIFIER
    return None
