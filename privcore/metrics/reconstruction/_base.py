"""What the reconstruction attacks share.

The secret columns, the scores of a reconstruction, the advantage of members over non-members with its bootstrap
interval, the per-person exposure, and the details kinds. Scores as the NIST CRC red-team's winning code
(steveng9/Reconstruction ``scoring.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from privcore.data import NUMERICAL
from privcore.metrics.details import Details, records

#: The scores' names, per kind of column.
RARITY_WEIGHTED = "rarity-weighted accuracy"
CLOSENESS = "1 − normalised absolute error"
#: Target indices the bootstrap scores at once (draws × targets): 2**21, 16 MiB per array of them.
DRAW_BLOCK = 2**21

STEVENG9 = ("Golob, Pentyala, Maratkhan and De Cock, the NIST CRC red-team's reconstruction attack and its scoring "
            "(github.com/steveng9/Reconstruction, scoring.py)")


def secret_columns(schema) -> list[str]:
    """The columns an attacker who knows the key columns wants: every analysed column outside the key."""
    key = set(schema.key_columns)
    return [c for c in schema.columns if c not in key]


@dataclass(frozen=True)
class Truth:
    """The true values of one secret column for a set of targets, ready to score against."""

    column: str
    numerical: bool
    #: The values (float for a numerical column, text otherwise).
    values: np.ndarray
    #: Categorical: each target's value code (its position in ``labels``); numerical: unused (zeros).
    codes: np.ndarray
    labels: list[str]
    #: Numerical: max − min of the column in the real table.
    span: float


def truth_of(table: pd.DataFrame, column: str, kind: str, span: float) -> Truth:
    """The true values of ``column`` in ``table`` (``kind`` from the schema; ``span`` its range in the real table)."""
    if kind == NUMERICAL:
        values = table[column].to_numpy(dtype=float)
        return Truth(column, True, values, np.zeros(len(values), dtype=np.int64), [], float(span))
    values = table[column].astype(str).to_numpy(dtype=object)
    labels, codes = np.unique(values, return_inverse=True)
    return Truth(column, False, values, codes.astype(np.int64), [str(v) for v in labels], float("nan"))


def hits(truth: Truth, guess: np.ndarray) -> np.ndarray:
    """Per target, how right the guess is: 1/0 for a category; ``1 − |error| / span`` (at least 0) for a number.

    Examples
    --------
    >>> t = truth_of(pd.DataFrame({"x": [0.0, 10.0]}), "x", "numerical", 10.0)
    >>> hits(t, np.array([1.0, 30.0])).tolist()
    [0.9, 0.0]
    """
    if truth.numerical:
        error = np.abs(np.asarray(guess, dtype=float) - truth.values)
        if truth.span > 0:
            closeness = 1.0 - np.minimum(error / truth.span, 1.0)
        else:
            closeness = (error == 0).astype(float)
        return np.where(np.isfinite(closeness), closeness, 0.0)
    return (np.asarray(guess).astype(str) == truth.values).astype(float)


def column_score(truth: Truth, hit: np.ndarray, rows: np.ndarray | None = None) -> float:
    """The score of one column over the targets ``rows`` (all by default): rarity-weighted accuracy or closeness.

    Examples
    --------
    Three targets share "a" and one has "b"; the attacker gets two of the "a" and the "b" right: each value's
    targets count as much as another's, so the score is (2/3 + 1) / 2:

    >>> t = truth_of(pd.DataFrame({"c": ["a", "a", "a", "b"]}), "c", "categorical", float("nan"))
    >>> round(column_score(t, np.array([1.0, 1.0, 0.0, 1.0])), 6)
    0.833333
    """
    if rows is None:
        rows = np.arange(len(hit))
    if len(rows) == 0:
        return float("nan")
    if truth.numerical:
        keep = rows[np.isfinite(truth.values[rows])]
        return float(hit[keep].mean()) if len(keep) else float("nan")
    codes = truth.codes[rows]
    counts = np.bincount(codes, minlength=len(truth.labels))
    right = np.bincount(codes, weights=hit[rows], minlength=len(truth.labels))
    present = counts > 0
    return float((right[present] / counts[present]).mean())


def table_score(truths: list[Truth], hit_columns: list[np.ndarray], rows: np.ndarray | None = None) -> float:
    """The mean over the secret columns of their scores.

    Notes
    -----
    **Threat model.** The attacker knows a target's key (quasi-identifier) columns and reconstructs every other
    analysed column (the *secret* columns) from the released table. The targets are the training members (the real
    table) and people who were not in the training data (the holdout); the same attack on both tells what the
    generator leaked beyond what anyone could infer about the population.

    **Scores** (those of the NIST CRC red-team's winning code, steveng9/Reconstruction ``scoring.py``):

    - a categorical (or binary) column: the *rarity-weighted accuracy*, each correct cell weighted by ``N / n_v``
      where ``n_v`` of the ``N`` targets share its true value ``v``; normalised by the largest possible sum, which is
      ``N`` times the number of distinct true values, so the score is the mean over the true values of the share of
      their targets reconstructed right (the macro recall): guessing the common value for everyone scores
      ``1 / (number of values)``, not the common value's share;
    - a numerical column: ``1 − mean |x̂ − x| / (max − min)``, the range taken on the real table and each error capped
      at the range (1 = every value exact).

    A table's score is the mean over its secret columns. The **advantage** is the members' score minus the
    non-members' under the same attack: 0 in expectation when the generator is as good a guide to the non-members as
    to the members (a fresh sample of real people), positive when it leaked about the training records.
    """
    scores = [column_score(t, h, rows) for t, h in zip(truths, hit_columns)]
    finite = [s for s in scores if np.isfinite(s)]
    return float(np.mean(finite)) if finite else float("nan")


def _draw_scores(truths: list[Truth], hit_columns: list[np.ndarray], draws: np.ndarray) -> np.ndarray:
    """:func:`table_score` of each row of ``draws`` (bootstrap draws × targets, indices of the targets).

    The same sums as :func:`column_score` per draw (the bincounts add each draw's weights in the same order), for
    all the draws at once.
    """
    count, length = draws.shape
    if length == 0:  # no target drawn: no score, as column_score of no rows
        return np.full(count, np.nan)
    scores = np.full((len(truths), count), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        for j, (truth, hit) in enumerate(zip(truths, hit_columns)):
            if truth.numerical:
                finite = np.isfinite(truth.values)[draws]
                scores[j] = np.where(finite, hit[draws], 0.0).sum(axis=1) / finite.sum(axis=1)
                continue
            labels = len(truth.labels)
            bins = (truth.codes[draws] + labels * np.arange(count)[:, None]).ravel()
            counts = np.bincount(bins, minlength=count * labels).reshape(count, labels)
            right = np.bincount(bins, weights=hit[draws].ravel(), minlength=count * labels).reshape(count, labels)
            present = counts > 0
            shares = np.divide(right, counts, out=np.zeros(right.shape), where=present)
            scores[j] = shares.sum(axis=1) / present.sum(axis=1)
        finite = np.isfinite(scores)
        return np.where(finite, scores, 0.0).sum(axis=0) / finite.sum(axis=0)


def advantage_interval(member_truths, member_hits, nonmember_truths, nonmember_hits, n_boot: int, seed: int,
                       confidence: float = 0.95, members: np.ndarray | None = None,
                       nonmembers: np.ndarray | None = None) -> tuple[float, float] | None:
    """Percentile bootstrap interval of members' score − non-members' score; None when ``n_boot`` is 0.

    The two groups are resampled apart (each resample recomputes the rarity weights). The draws are scored in blocks
    that hold at most :data:`DRAW_BLOCK` indices.
    """
    if n_boot <= 0:
        return None
    members = np.arange(len(member_hits[0])) if members is None else members
    nonmembers = np.arange(len(nonmember_hits[0])) if nonmembers is None else nonmembers
    rng = np.random.default_rng([seed, 0x5EC0])
    block = max(1, DRAW_BLOCK // max(1, len(members), len(nonmembers)))
    draws = np.empty(n_boot)
    for start in range(0, n_boot, block):
        picked = [(members[rng.integers(0, len(members), len(members))],
                   nonmembers[rng.integers(0, len(nonmembers), len(nonmembers))])
                  for _ in range(start, min(n_boot, start + block))]
        drawn_members = np.array([m for m, _ in picked], dtype=np.int64).reshape(len(picked), -1)
        drawn_nonmembers = np.array([n for _, n in picked], dtype=np.int64).reshape(len(picked), -1)
        draws[start:start + len(picked)] = (_draw_scores(member_truths, member_hits, drawn_members)
                                            - _draw_scores(nonmember_truths, nonmember_hits, drawn_nonmembers))
    tail = (1.0 - confidence) / 2
    low, high = np.quantile(draws[np.isfinite(draws)], [tail, 1.0 - tail]) if np.isfinite(draws).any() else (
        np.nan, np.nan)
    return float(low), float(high)


def value_rates(truth: Truth, hit: np.ndarray) -> tuple[dict[str, float], float]:
    """How often the non-members are reconstructed, per true value (categorical) and over the column."""
    overall = column_score(truth, hit)
    if truth.numerical:
        return {}, overall
    counts = np.bincount(truth.codes, minlength=len(truth.labels))
    right = np.bincount(truth.codes, weights=hit, minlength=len(truth.labels))
    return {label: float(right[i] / counts[i]) for i, label in enumerate(truth.labels) if counts[i]}, overall


def exposure(member_truths, member_hits, nonmember_truths, nonmember_hits) -> tuple[np.ndarray, np.ndarray]:
    """Per member and secret column, how far the reconstruction beats the non-members' rate for the same true value.

    The non-members' rate is the column's rate where no non-member has the value; at least 0; and per member the mean
    over the columns.

    Returns
    -------
    beyond : ndarray, shape (members, columns)
    per_record : ndarray, shape (members,)
    """
    beyond = np.zeros((len(member_hits[0]), len(member_truths)))
    for j, (truth, hit, other, other_hit) in enumerate(zip(member_truths, member_hits, nonmember_truths,
                                                           nonmember_hits)):
        by_value, overall = value_rates(other, other_hit)
        if truth.numerical:
            expected = np.full(len(hit), overall)
        else:
            expected = np.array([by_value.get(v, overall) for v in truth.values])
        beyond[:, j] = np.maximum(0.0, hit - np.nan_to_num(expected, nan=0.0))
    return beyond, beyond.mean(axis=1)


# --------------------------------------------------------------------------------------------------
# details kinds
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ColumnReconstruction(Details):
    """One secret column: its score on members and non-members, their difference and a population reference."""

    kind: ClassVar[str] = "column_reconstruction"
    column: str
    #: "rarity-weighted accuracy" (categorical, binary) or "1 − normalised absolute error" (numerical).
    scored_as: str
    members: float
    nonmembers: float
    advantage: float
    advantage_interval: tuple[float, float] | None
    #: The same attack with the holdout released instead of the synthetic table, on the members: what data about
    #: other real people lets anyone infer (None when it was not run).
    population: float | None


@dataclass(frozen=True)
class ExposedRecord(Details):
    """One member whose secret columns are reconstructed beyond the non-members' rate, rarest true value first."""

    kind: ClassVar[str] = "exposed_record"
    #: Position of the member in the real table.
    row: int
    exposure: float
    columns: list[str]
    true: list[str]
    reconstructed: list[str]
    #: Share of the members who share the true value (categorical; None for a number).
    rarity: list[float | None]


@dataclass(frozen=True)
class Reconstruction(Details):
    """A reconstruction attack: the secret columns guessed from the key columns, scored on members and on non-members.

    The advantage (members − non-members) is what the generator leaked beyond population inference.
    """

    kind: ClassVar[str] = "reconstruction"
    #: "nearest" or "learned" (for the honest best: the attack chosen on the other half).
    attack: str
    key: list[str]
    secret: list[str]
    members: float
    nonmembers: float
    advantage: float
    advantage_interval: tuple[float, float] | None
    population: float | None
    columns: list[ColumnReconstruction]
    exposed: list[ExposedRecord]
    n_members: int
    n_nonmembers: int
    #: The learned attack's chain: the order in which the columns are predicted (each informs the next).
    order: list[str]
    #: The honest best: attack → advantage on the half it was chosen on (None for a single attack).
    choice: dict[str, float] | None
    #: Per member and secret column, how far the reconstruction beats the non-members' rate (at least 0).
    beyond: np.ndarray = records("attack")


#: Every details kind of the family, for the JSON Schema.
RECONSTRUCTION_DETAILS = (ColumnReconstruction, ExposedRecord, Reconstruction)
