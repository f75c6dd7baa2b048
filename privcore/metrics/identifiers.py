"""Reproduced identifiers: members' names, e-mail addresses, ids and free text found in the synthetic table.

The chance level is the holdout (real people the generator never saw); the risk is the rarity-weighted share of members
found above the holdout's, normalised as Anonymeter's risks are (metrics.md §3, "Reproduced identifiers").
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from typing import Sequence

import numpy as np
import pandas as pd

from privcore.base import NotApplicable
from privcore.metrics.details import ReproducedIdentifiers
from privcore.metrics.registry import Explanation, MetricInfo, register
from privcore.metrics.results import MetricOutput

#: Bootstrap draws of the interval of the risk (people resampled within members and within the holdout).
N_BOOT = 400
#: Masked examples shown on the card.
EXAMPLES = 5
#: Values shorter than this must match exactly: one edit turns "Al" into "Ed"'s neighbour "Al" → "Ad".
MIN_EDIT_LENGTH = 4


def normalised(value: object) -> str | None:
    """A value as compared: Unicode NFKC, case folded, inner spaces collapsed; None for a missing or empty value.

    Examples
    --------
    >>> normalised("  Ann   MARIE "), normalised(None), normalised("")
    ('ann marie', None, None)
    """
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    text = " ".join(unicodedata.normalize("NFKC", str(value)).casefold().split())
    return text or None


def within_one_edit(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by at most one insertion, deletion or substitution (Levenshtein ≤ 1).

    Examples
    --------
    >>> within_one_edit("smith", "smyth"), within_one_edit("smith", "smiths"), within_one_edit("ab", "ba")
    (True, True, False)
    """
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i + 1:] == b[i + 1:] if len(a) == len(b) else a[i:] == b[i + 1:]


class ValueIndex:
    """The rows of a table's column by value, found exactly or one edit away (a symmetric-deletion index)."""

    def __init__(self, values: Sequence[str | None]):
        self._rows: dict[str, list[int]] = defaultdict(list)
        for row, value in enumerate(values):
            if value is not None:
                self._rows[value].append(row)
        self._variants: dict[str, set[str]] = defaultdict(set)
        for value in self._rows:
            for variant in _deletions(value):
                self._variants[variant].add(value)

    def rows(self, value: str) -> list[int]:
        """Rows holding ``value`` exactly or, for a value of :data:`MIN_EDIT_LENGTH` or more, one edit away."""
        if len(value) < MIN_EDIT_LENGTH:
            return list(self._rows.get(value, ()))
        near: set[str] = set()
        for variant in _deletions(value):
            near |= self._variants.get(variant, set())
        found = [v for v in near if len(v) >= MIN_EDIT_LENGTH or v == value]
        return sorted(r for v in found if within_one_edit(value, v) for r in self._rows[v])


def _deletions(value: str) -> set[str]:
    """``value`` and every string one deletion away (two values one edit apart share one of these)."""
    return {value, *(value[:i] + value[i + 1:] for i in range(len(value)))}


def found_people(people: dict[str, list], synthetic: dict[str, list], fuzzy: set[str]) -> np.ndarray:
    """For each person, whether one synthetic row holds all their values (``fuzzy`` columns within one edit).

    Parameters
    ----------
    people, synthetic : dict
        Column → values (normalised texts, or numbers compared exactly), one list per table, rows aligned.
    fuzzy : set of str
        Columns compared within one edit; the others exactly.

    Returns
    -------
    numpy.ndarray of bool
        False for a person missing a value in any of the columns.
    """
    columns = list(people)
    n = len(people[columns[0]])
    # Search by the column with the most distinct values: the fewest candidate rows per person.
    lead = max(columns, key=lambda c: len({v for v in synthetic[c] if v is not None}))
    index = ValueIndex(synthetic[lead]) if lead in fuzzy else None
    exact: dict[object, list[int]] = defaultdict(list)
    if index is None:
        for row, value in enumerate(synthetic[lead]):
            if value is not None:
                exact[value].append(row)
    out = np.zeros(n, dtype=bool)
    for i in range(n):
        values = {c: people[c][i] for c in columns}
        if any(v is None for v in values.values()):
            continue
        candidates = index.rows(values[lead]) if index is not None else exact.get(values[lead], [])
        for row in candidates:
            if all(_same(values[c], synthetic[c][row], c in fuzzy) for c in columns if c != lead):
                out[i] = True
                break
    return out


def _same(a, b, fuzzy: bool) -> bool:
    if b is None:
        return False
    if fuzzy:
        return within_one_edit(a, b) if min(len(a), len(b)) >= MIN_EDIT_LENGTH else a == b
    return a == b


def rarity_weights(keys: list[tuple]) -> np.ndarray:
    """1 / (number of people with the same values) for each person's tuple of values (0 where one is missing)."""
    counts: dict[tuple, int] = defaultdict(int)
    for key in keys:
        counts[key] += 1
    return np.array([0.0 if any(v is None for v in key) else 1.0 / counts[key] for key in keys])


def _checks(identifiers: list[str], texts: list[str], dates: list[str]) -> list[tuple[tuple[str, ...], bool]]:
    """The combinations checked as (columns, within one edit), the decisive one first.

    The decisive check is every identifier column together, exactly (or the first text column where there is no
    identifier): one edit away, names that differ by a letter are often different people ("Smith", "Smyth"), so
    that check is shown beside it but does not decide.
    """
    checks: list[tuple[tuple[str, ...], bool]] = []
    if identifiers:
        checks += [(tuple(identifiers), False), (tuple(identifiers), True)]
        checks += [((c,), False) for c in identifiers if len(identifiers) > 1]
        checks += [((*identifiers, d), False) for d in dates]
    checks += [((t,), False) for t in texts]
    return list(dict.fromkeys(checks))


def _columns(frame_checked: pd.DataFrame, frame: pd.DataFrame, columns: Sequence[str], fuzzy: set[str]) -> dict:
    out = {}
    for c in columns:
        if c in fuzzy:
            out[c] = [normalised(v) for v in frame_checked[c].to_numpy()]
        else:
            out[c] = [None if pd.isna(v) else float(v) + 0.0 for v in frame[c].to_numpy()]
    return out


def _mask(values: Sequence[object]) -> str:
    """A found value as the card shows it: each word's first letter, the rest as stars; numbers as '…'."""
    shown = []
    for v in values:
        if isinstance(v, str):
            shown.append(" ".join(w[:1].upper() + "*" * (len(w) - 1) for w in v.split()))
        else:
            shown.append("(same date)")
    return ", ".join(shown)


def _weighted_rate(found: np.ndarray, weights: np.ndarray) -> float:
    total = float(weights.sum())
    return float((weights * found).sum() / total) if total > 0 else 0.0


def _risk(members: float, holdout: float) -> float:
    return float(np.clip((members - holdout) / (1.0 - holdout), 0.0, 1.0)) if holdout < 1 else 0.0


def compute_reproduced_identifiers(ctx) -> MetricOutput:
    """The reproduced-identifiers risk (the metric needs identifier or text columns); NotApplicable without a holdout.

    An attacker who knows that someone was in the training data, and their name, searches the synthetic table for it.
    A generator that memorises (a language model such as REaLTabFormer writes out whole training rows) reproduces
    real people's names, sometimes with their birth date: the most direct disclosure a table can make, and one no
    distance metric sees, because identifier columns are left out of the distance spaces (every value is its own).
    Without a holdout the reason gives the count of members found, never a decision.
    """
    schema, data = ctx.schema, ctx.shared.data
    identifiers, texts, dates = list(schema.identifiers), list(schema.texts), list(schema.dates)
    texts_and_ids = set(identifiers) | set(texts)
    checks = _checks(identifiers, texts, dates)
    tables = {"real": (data.checked["real"], data.real), "synthetic": (data.checked["synthetic"], data.synthetic)}
    holdout = data.holdout is not None and not ctx.is_baseline
    if holdout:
        tables["holdout"] = (data.checked["holdout"], data.holdout)
    rows: dict[str, list] = {k: [] for k in ("found", "checked", "rate", "h_found", "h_checked", "h_rate")}
    decisive = None
    examples: list[str] = []
    rng = np.random.default_rng(ctx.seed)
    for number, (check, one_edit) in enumerate(checks):
        fuzzy = texts_and_ids if one_edit else set()
        values = {role: _columns(*frames, check, texts_and_ids) for role, frames in tables.items()}
        found = found_people(values["real"], values["synthetic"], fuzzy)
        keys_real = list(zip(*(values["real"][c] for c in check)))
        keys_hold = list(zip(*(values["holdout"][c] for c in check))) if holdout else []
        weights = rarity_weights(keys_real + keys_hold)
        w_real, w_hold = weights[:len(keys_real)], weights[len(keys_real):]
        rows["found"].append(int(found.sum()))
        rows["checked"].append(int((w_real > 0).sum()))
        rows["rate"].append(_weighted_rate(found, w_real))
        h_found = found_people(values["holdout"], values["synthetic"], fuzzy) if holdout else np.zeros(0, bool)
        rows["h_found"].append(int(h_found.sum()))
        rows["h_checked"].append(int((w_hold > 0).sum()))
        rows["h_rate"].append(_weighted_rate(h_found, w_hold) if holdout else 0.0)
        if number == 0:
            decisive = (found, w_real, h_found, w_hold)
            examples = [_mask(key) for key, hit in zip(keys_real, found) if hit][:EXAMPLES]
    names = [" + ".join(check) + (" (one edit away)" if one_edit else " (exactly)") for check, one_edit in checks]
    found, w_real, h_found, w_hold = decisive
    counts = f"{rows['found'][0]:,} of {rows['checked'][0]:,} members' {names[0]} found in the synthetic table"
    if not holdout:
        raise NotApplicable(f"{counts}; without a holdout of real people the generator never saw, there is no chance "
                            "level to compare with, so this cannot decide: upload a holdout.")
    risk = _risk(rows["rate"][0], rows["h_rate"][0])
    draws = np.empty(N_BOOT)
    n, m = len(found), len(h_found)
    for b in range(N_BOOT):
        i, j = rng.integers(0, n, n), rng.integers(0, m, m)
        draws[b] = _risk(_weighted_rate(found[i], w_real[i]), _weighted_rate(h_found[j], w_hold[j]))
    interval = (float(np.quantile(draws, 0.025)), float(np.quantile(draws, 0.975)))
    details = ReproducedIdentifiers(
        checks=names, members_found=rows["found"], members_checked=rows["checked"], holdout_found=rows["h_found"],
        holdout_checked=rows["h_checked"], members_rate=rows["rate"], holdout_rate=rows["h_rate"],
        decisive_check=names[0], examples=examples, found=found.astype(np.float64))
    return MetricOutput(risk=risk, raw=rows["rate"][0], per_record=found.astype(np.float64), details=details,
                        params={"seed": ctx.seed, "n_boot": N_BOOT, "checks": names}, interval=interval,
                        warnings=[] if rows["found"][0] == 0 else [f"{counts}; the holdout's: {rows['h_found'][0]:,} of "
                                                                    f"{rows['h_checked'][0]:,}."])


register(
    MetricInfo(
        id="reproduced_identifiers",
        order=235,
        # 0.20 s at 9,000 rows in all and 0.39 s at 18,000 (two identifiers and a date; 2-core Xeon, family 6 model 167).
        cost=(0.2, 1.0),
        assumption="",
        name="Reproduced identifiers",
        family="Attack-based",
        summary="Are members' names, e-mail addresses, ids or free text found in the synthetic table, more often "
        "than those of real people the generator never saw?",
        attacker_knows="That someone was in the training data, and their name (or e-mail address, id number); the "
        "synthetic table.",
        needs=frozenset({"identifiers"}),
        per_record_unit="real",
        raw_meaning="rarity-weighted share of members whose identifiers (every identifier column together, exactly) "
        "one synthetic row holds; higher = more copied.",
        reference="This project (metrics.md §3), after the identity disclosure of SynQP and the memorisation seen in "
        "language-model generators (REaLTabFormer).",
        explanation=Explanation(
            attack="An attacker who knows a member's name searches the synthetic table for it: a generator that "
            "memorises writes out real people's names, sometimes with their birth date.",
            steps=(
                "Write every identifier and text value alike (case, spacing, Unicode) and look up each member's in "
                "the synthetic table, exactly or one typing error away.",
                "A member is found when one synthetic row holds all their identifiers (a first and a last name "
                "together); the same is checked with each date column added.",
                "Do the same for the holdout, real people the generator never saw: how often names recur by chance.",
                "Weigh each person by rarity (a name shared by many people counts less); the risk is how far members "
                "are found more often than the holdout, as a share of what is left above it.",
            ),
            high="Members' names are in the synthetic table more often than chance: real people are disclosed by "
            "name.",
            low="Members' identifiers are found no more often than those of people the generator never saw.",
            blind_spots="Only the columns declared identifier or text are searched, and only exactly or one edit away: "
            "a name rewritten otherwise (initials, another alphabet) is missed. Without a holdout it counts, but "
            "cannot say what chance would give.",
            note="Choice: the decisive check is every identifier column together, exactly; one edit away is shown "
            "beside it (names a letter apart are often different people) and names shorter than four letters must "
            "match exactly there.",
        ),
        compute=compute_reproduced_identifiers,
        details_type=ReproducedIdentifiers,
        params=(),
        min_rows=1,
        baseline=False,
        interval_kind="bootstrap",
    )
)

