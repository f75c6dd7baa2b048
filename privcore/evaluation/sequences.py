"""Sequence fidelity of an ordered child table: the gaps between a person's rows and what stays the same from one to the next."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from privcore.data import Relation

Tables = Mapping[str, pd.DataFrame]


def positions(order: pd.Series) -> pd.Series:
    """An order column as numbers: itself when numeric, else dates as days since 1970 (unreadable ones missing)."""
    if pd.api.types.is_numeric_dtype(order):
        return order.astype(float)
    dates = pd.to_datetime(order, errors="coerce")
    return (dates - pd.Timestamp("1970-01-01")).dt.total_seconds() / 86_400.0


def gaps_and_stays(table: pd.DataFrame, relation: Relation) -> tuple[np.ndarray, dict[str, float]]:
    """Every gap between consecutive rows of a person, and per categorical column the share of steps keeping its value.

    Parameters
    ----------
    table : DataFrame
        The ordered child table (``relation.order`` set).
    relation : Relation

    Returns
    -------
    gaps : numpy.ndarray
        ``next − previous`` of the order column over every pair of consecutive rows of one person.
    stays : dict
        Categorical column → share of those steps whose next row has the same value (a player staying with a team).

    Examples
    --------
    >>> seasons = pd.DataFrame({"pid": [1, 1, 1, 2, 2], "year": [2001, 2000, 2003, 2010, 2011],
    ...                         "team": ["a", "a", "b", "c", "c"]})
    >>> gaps, stays = gaps_and_stays(seasons, Relation("seasons", "pid", "players", "id", order="year"))
    >>> gaps.tolist(), stays
    ([1.0, 2.0, 1.0], {'team': 0.666667})
    """
    frame = table.assign(_at=positions(table[relation.order]), _who=table[relation.column].astype(str))
    frame = frame.dropna(subset=["_at"]).sort_values(["_who", "_at"], kind="mergesort")
    same_person = (frame["_who"].to_numpy()[1:] == frame["_who"].to_numpy()[:-1])
    gaps = np.diff(frame["_at"].to_numpy())[same_person]
    stays = {}
    for column in table.columns:
        if column in (relation.column, relation.order) or pd.api.types.is_numeric_dtype(table[column]):
            continue
        values = frame[column].astype(str).to_numpy()
        kept = (values[1:] == values[:-1])[same_person]
        if len(kept):
            stays[column] = round(float(kept.mean()), 6)
    return gaps, stays


def sequence_fidelity(roles: Mapping[str, Tables], relation: Relation) -> dict[str, Any]:
    """How well the release keeps an ordered child table's sequences, beside a fresh sample of people.

    ``gaps``: one minus the Kolmogorov-Smirnov statistic between the real and each role's gaps between consecutive rows
    (1 = the same spacing, a season every year as often as in the real careers); ``stays``: per categorical column, the
    share of steps that keep their value, real and per role (a generator that draws rows independently loses it).

    Examples
    --------
    >>> real = {"s": pd.DataFrame({"pid": [1, 1, 1], "year": [1, 2, 3], "team": ["a", "a", "b"]})}
    >>> syn = {"s": pd.DataFrame({"pid": [1, 1, 1], "year": [1, 3, 5], "team": ["a", "b", "a"]})}
    >>> sequence_fidelity({"real": real, "synthetic": syn}, Relation("s", "pid", "p", "id", order="year"))
    {'gaps': {'synthetic': 0.0, 'holdout': None}, 'stays': {'team': {'real': 0.5, 'synthetic': 0.0, 'holdout': None}}}
    """
    read = {role: gaps_and_stays(tables[relation.child], relation) for role, tables in roles.items()
            if role in ("real", "synthetic", "holdout")}
    real_gaps, real_stays = read["real"]

    def similarity(role: str) -> float | None:
        if role not in read or not len(read[role][0]) or not len(real_gaps):
            return None
        return round(1.0 - _ks(real_gaps, read[role][0]), 6)

    return {"gaps": {role: similarity(role) for role in ("synthetic", "holdout")},
            "stays": {column: {"real": share, **{role: read[role][1].get(column) if role in read else None
                                                 for role in ("synthetic", "holdout")}}
                      for column, share in real_stays.items()}}


def _ks(a: np.ndarray, b: np.ndarray) -> float:
    """The two-sample Kolmogorov-Smirnov statistic (the largest gap between the two empirical distributions)."""
    points = np.union1d(a, b)
    left = np.searchsorted(np.sort(a), points, side="right") / len(a)
    right = np.searchsorted(np.sort(b), points, side="right") / len(b)
    return float(np.abs(left - right).max())
