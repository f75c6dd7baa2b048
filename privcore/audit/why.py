"""One sentence of evidence for each exposed record of the shared-model audit."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: A rare value explains a record only when it appears this much more often with the record than without.
MIN_GAP = 0.2


@dataclass(frozen=True)
class Evidence:
    """What the outputs showed about one record, split by models trained with it (in) and without (out).

    Attributes
    ----------
    rare : list of (column, value, pool_count, in_rate, out_rate)
        Its rare values and how often outputs contained them.
    nearest_in, nearest_out : float
        Median distance to the nearest synthetic row.
    exact_in, exact_out : float
        Share of outputs holding an exact copy of it (distance 0).
    nearest_real : float
        Distance to its nearest other real record.
    pool_size : int
        Records audited.
    """

    rare: list[tuple[str, object, int, float, float]]
    nearest_in: float
    nearest_out: float
    exact_in: float
    exact_out: float
    nearest_real: float
    pool_size: int


def gather(membership: np.ndarray, usable: np.ndarray, nearest: np.ndarray, rare_shares: np.ndarray,
           rare_columns: list[str], rare_values: list[object], rare_counts: list[int], rare_mask: list[bool],
           nearest_real: float, pool_size: int) -> Evidence:
    """The :class:`Evidence` of one record from the per-model features.

    Parameters
    ----------
    membership : numpy.ndarray
        Its column of the membership matrix, shape (models,).
    usable : numpy.ndarray
        Shape (models,), False for failed models.
    nearest : numpy.ndarray
        Its distance to the nearest synthetic row in each model's output, shape (models,).
    rare_shares : numpy.ndarray
        Share of each output's rows holding its value, shape (models, columns with rare-value features).
    rare_columns, rare_values, rare_counts, rare_mask : list
        Those columns, its value in each, how many pool records hold that value, whether it is rare.
    nearest_real : float
        Distance to its nearest other real record.
    pool_size : int
        Records audited.
    """
    inside, outside = usable & membership, usable & ~membership
    rare = [(col, value, int(count), _rate(rare_shares[inside, j] > 0), _rate(rare_shares[outside, j] > 0))
            for j, (col, value, count, is_rare) in enumerate(zip(rare_columns, rare_values, rare_counts, rare_mask))
            if is_rare]
    return Evidence(rare=rare, nearest_in=_median(nearest[inside]), nearest_out=_median(nearest[outside]),
                    exact_in=_rate(nearest[inside] == 0), exact_out=_rate(nearest[outside] == 0),
                    nearest_real=float(nearest_real), pool_size=pool_size)


def sentence(evidence: Evidence) -> str:
    """The evidence in one sentence (see Notes).

    Notes
    -----
    An AUC says *that* a person is exposed; the sentence says *how* an attacker sees it, in the terms of the
    outputs themselves, so that a data owner can check it and act on it (coarsen a column, drop a record):

    1. the rare value with the largest gap between the outputs of models trained with the person and the
       others ("outputs of generators trained with this person contain native-country = Holland-Netherlands in
       92 % of cases, never otherwise (the only such person among the 1,000 audited records)");
    2. else the distance to the nearest synthetic row ("its nearest synthetic row is at distance 0.00 in
       outputs of generators trained with it (an exact copy in 100 % of them) vs 0.31 otherwise");

    followed by its nearest-record distances: to its nearest other real record and to its nearest synthetic
    row (median over the outputs of models trained with it).

    Examples
    --------
    >>> e = Evidence([("native-country", "Holland-Netherlands", 1, 0.92, 0.0)], 0.4, 0.5, 0.0, 0.0, 1.2, 1000)
    >>> sentence(e)  # doctest: +NORMALIZE_WHITESPACE
    'Outputs of generators trained with this person contain native-country = Holland-Netherlands in 92 % of
    cases, never otherwise (the only such person among the 1,000 audited records); its nearest other real
    record is at distance 1.20 and its nearest synthetic row at 0.40.'
    """
    gaps = [(in_rate - out_rate, col, value, count, in_rate, out_rate)
            for col, value, count, in_rate, out_rate in evidence.rare]
    best = max(gaps, key=lambda g: g[0], default=None)
    if best is not None and best[0] >= MIN_GAP:
        _, col, value, count, in_rate, out_rate = best
        otherwise = "never otherwise" if out_rate == 0 else f"in {_pct(out_rate)} otherwise"
        who = (f"the only such person among the {evidence.pool_size:,} audited records" if count == 1 else
               f"{count} of the {evidence.pool_size:,} audited records hold it")
        lead = (f"Outputs of generators trained with this person contain {col} = {value} in {_pct(in_rate)} of "
                f"cases, {otherwise} ({who})")
    else:
        copies = (f" (an exact copy in {_pct(evidence.exact_in)} of them vs {_pct(evidence.exact_out)} otherwise)"
                  if evidence.exact_in > evidence.exact_out else "")
        lead = (f"Its nearest synthetic row is at distance {evidence.nearest_in:.2f} (median) in outputs of generators "
                f"trained with it{copies} vs {evidence.nearest_out:.2f} otherwise")
    return (f"{lead}; its nearest other real record is at distance {evidence.nearest_real:.2f} and its nearest "
            f"synthetic row at {evidence.nearest_in:.2f}.")


def _rate(flags: np.ndarray) -> float:
    return float(np.mean(flags)) if len(flags) else 0.0


def _median(values: np.ndarray) -> float:
    return float(np.median(values)) if len(values) else float("nan")


def _pct(share: float) -> str:
    return f"{share:.0%}".replace("%", " %")
