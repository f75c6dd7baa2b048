"""Threat-model presets: what the attacker knows, turned into the key (quasi-identifier) columns of a table."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Recogniser", "DEMOGRAPHICS", "LOCATION", "name_words", "ThreatModel", "THREAT_MODELS", "PresetKey",
           "recognise", "preset_key", "secret_sentence"]


@dataclass(frozen=True)
class Recogniser:
    """Names of one kind of column: whole words, and stems a word may start with."""

    kind: str
    words: frozenset[str]
    stems: tuple[str, ...]
    #: A few names it recognises, for the sentence that says it matched nothing.
    examples: str

    def matches(self, column: str) -> bool:
        """Whether one of the words of ``column``'s name is a listed word or starts with a listed stem.

        Examples
        --------
        >>> DEMOGRAPHICS.matches("maritalStatus"), DEMOGRAPHICS.matches("Age_group"), DEMOGRAPHICS.matches("wage")
        (True, True, False)
        """
        return any(w in self.words or w.startswith(self.stems) for w in name_words(column))


#: Demographic columns: age and birth, sex and gender, race and ethnicity, marital status and household, religion,
#: nationality and citizenship, language.
DEMOGRAPHICS = Recogniser(
    "demographic",
    frozenset({"age", "ages", "dob", "sex", "race", "yob", "religion", "language", "relationship", "household"}),
    ("birth", "gender", "ethnic", "marital", "married", "spouse", "nationalit", "citizen"),
    "age, sex, gender, race, ethnicity, marital status, date of birth")

#: Location columns: postal codes, address, place names from city to country, coordinates.
LOCATION = Recogniser(
    "location",
    frozenset({"zip", "zipcode", "zip5", "plz", "city", "town", "state", "county", "region", "district", "address",
               "lat", "lon", "lng", "geo", "area", "village", "borough", "suburb", "ward"}),
    ("postcode", "postal", "country", "province", "municipal", "neighbo", "latitude", "longitude", "geohash",
     "residen"),
    "zip, postcode, city, state, region, country")


def name_words(column: str) -> list[str]:
    """The lower-case words of a column name.

    Examples
    --------
    >>> name_words("native-country"), name_words("ZIPCode"), name_words("yearOfBirth")
    (['native', 'country'], ['zipcode'], ['year', 'of', 'birth'])
    """
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", str(column))
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def recognise(columns: Sequence[str], recogniser: Recogniser) -> list[str]:
    """The ``columns`` (in their order) that ``recogniser`` recognises by name."""
    return [c for c in columns if recogniser.matches(c)]


@dataclass(frozen=True)
class ThreatModel:
    """One preset: its id, its label ("what the attacker knows") and the kinds of columns it makes the key."""

    id: str
    label: str
    recognisers: tuple[Recogniser, ...]
    #: True for "everything but the sensitive column": every analysed column but that one.
    everything: bool = False


THREAT_MODELS: tuple[ThreatModel, ...] = (
    ThreatModel("demographics", "Demographics only", (DEMOGRAPHICS,)),
    ThreatModel("demographics_location", "Demographics and location", (DEMOGRAPHICS, LOCATION)),
    ThreatModel("all_but_sensitive", "Everything but the sensitive column", (), everything=True),
)


@dataclass(frozen=True)
class PresetKey:
    """What a preset gives on one table: the key (empty when it matched no column) and a sentence saying so."""

    key: list[str]
    message: str


def preset_key(model: ThreatModel, columns: Sequence[str], sensitive: str | None) -> PresetKey:
    """The key ``model`` gives on the analysed ``columns`` when ``sensitive`` is the sensitive column (or None).

    Parameters
    ----------
    model : ThreatModel
        One of :data:`THREAT_MODELS`.
    columns : sequence of str
        The analysed columns, in table order.
    sensitive : str or None
        The sensitive column, never part of the key.

    Returns
    -------
    PresetKey
        The key in table order and a sentence for the user: which columns were recognised, which kind matched
        nothing; an empty key when nothing matched (the caller keeps the key it had).

    Notes
    -----
    A non-expert rarely knows which columns to call the key. Three presets describe common attackers:

    - ``demographics``: the attacker knows a person's demographics (age, sex, race, marital status...);
    - ``demographics_location``: that and where they live (postcode, city, country...);
    - ``all_but_sensitive``: everything in the record except the sensitive column (the strongest attacker, and the
      default key).

    The first two are found by the columns' **names** (:data:`DEMOGRAPHICS` and :data:`LOCATION`): a name is split into
    words (at any character other than a letter or a digit, and where a lower-case letter meets a capital: ``maritalStatus``
    → ``marital``, ``status``), and a column is recognised when one of its words equals a listed word or starts with a
    listed stem. ``age`` is recognised, ``wage`` and ``page`` are not. The sensitive column is never part of the key. A
    name tells nothing about a column's content, so the key set by a preset is a proposal to check.

    Examples
    --------
    >>> demo = THREAT_MODELS[1]
    >>> preset_key(demo, ["age", "sex", "job", "income"], "income").key
    ['age', 'sex']
    >>> preset_key(demo, ["job", "income"], "income").key
    []
    """
    candidates = [c for c in columns if c != sensitive]
    if model.everything:
        if sensitive is None:
            return PresetKey([], "No sensitive column is chosen, so \"everything but the sensitive column\" would "
                                 "make every column a key and leave nothing to reconstruct: choose the sensitive "
                                 "column first.")
        if not candidates:
            return PresetKey([], "The sensitive column is the only analysed column: there is nothing else to know.")
        return PresetKey(candidates, f"Key set to every analysed column except the sensitive column "
                                     f"'{sensitive}' ({len(candidates)} columns).")
    key, missing = [], []
    for recogniser in model.recognisers:
        found = recognise(candidates, recogniser)
        if not found:
            missing.append(f"no {recogniser.kind} column was recognised (names such as {recogniser.examples})")
        key += [c for c in found if c not in key]
    key = [c for c in candidates if c in key]  # table order
    if not key:
        return PresetKey([], f"“{model.label}” matches no column of this table: " + "; ".join(missing)
                         + ". The key is unchanged: choose the key columns yourself.")
    text = (f"“{model.label}”: key set to {', '.join(key)}, recognised by their names: check that they are what "
            "an attacker could know.")
    if missing:
        text += " Note: " + "; ".join(missing) + "."
    return PresetKey(key, text)


def secret_sentence(columns: Sequence[str], key: Sequence[str], sensitive: str | None) -> str:
    """Which columns each attack treats as secret, given the analysed ``columns``, the ``key`` and ``sensitive``.

    Notes
    -----
    Which columns each attack treats as secret follows from the key (:func:`secret_sentence`): the reconstruction attacks
    want every analysed column outside the key; Anonymeter's inference attack wants the sensitive column only.

    Examples
    --------
    >>> secret_sentence(["age", "sex", "job", "income"], ["age", "sex"], "income")  # doctest: +NORMALIZE_WHITESPACE
    "The reconstruction attacks treat every column outside the key as secret: job and income. Anonymeter's
    inference attack guesses the sensitive column only: income."
    """
    secret = [c for c in columns if c not in set(key)]
    if secret:
        shown = secret[0] if len(secret) == 1 else ", ".join(secret[:-1]) + " and " + secret[-1]
        recon = f"The reconstruction attacks treat every column outside the key as secret: {shown}."
    else:
        recon = "Every analysed column is in the key, so the reconstruction attacks have nothing to reconstruct."
    inference = (f"Anonymeter's inference attack guesses the sensitive column only: {sensitive}." if sensitive else
                 "Anonymeter's inference attack needs a sensitive column, and none is chosen.")
    return f"{recon} {inference}"
