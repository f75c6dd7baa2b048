"""Who plays member, non-member and reference in a membership attack (metrics.md §3).

*Members* are the real training rows (``Y``, or an equal-size seeded sample of it) and *non-members* are
holdout rows (``H``, or half of it when the other half serves as the attacker's reference set ``R``).

Sampling, all from ``numpy.random.default_rng(seed)`` in this order: (1) when ``R`` comes from the holdout,
``rng.permutation(|H|)``: the first ``|H| // 2`` positions are non-members, the rest ``R``; (2) when the
member and non-member pools differ in size, the larger pool is cut to the smaller size with
``rng.choice(pool, size, replace=False)`` (positions then sorted).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.base.errors import InputError
from privcore.data.prepare import prepare
from privcore.engine.context import MetricContext
from privcore.metrics.results import NotApplicable


@dataclass
class MembershipSets:
    """Who plays member, non-member and reference in one attack.

    Attributes
    ----------
    members : numpy.ndarray
        Positions in the real table.
    nonmembers : numpy.ndarray
        Positions in the holdout.
    reference : numpy.ndarray or None
        Positions in the holdout used as the reference set ``R`` (None: no reference or a user table).
    warnings : list of str
    """

    members: np.ndarray
    nonmembers: np.ndarray
    reference: np.ndarray | None = None
    warnings: list[str] = field(default_factory=list)


def membership_sets(n_real: int, n_holdout: int, seed: int, split_holdout: bool) -> MembershipSets:
    """Seeded choice of members, non-members and (optionally) a holdout-half reference set.

    Parameters
    ----------
    n_real, n_holdout : int
        Rows of ``Y`` and ``H``.
    seed : int
        Seed of ``numpy.random.default_rng``.
    split_holdout : bool
        Split ``H`` into non-members (first ``n_holdout // 2`` positions of a permutation) and ``R``.

    Returns
    -------
    MembershipSets
        Members and non-members of equal size (the larger pool sampled without replacement).

    Examples
    --------
    >>> s = membership_sets(4, 4, 0, split_holdout=True)
    >>> len(s.members), len(s.nonmembers), len(s.reference)
    (2, 2, 2)
    """
    rng = np.random.default_rng(seed)
    reference = None
    nonmembers = np.arange(n_holdout)
    if split_holdout:
        perm = rng.permutation(n_holdout)
        half = n_holdout // 2
        nonmembers, reference = np.sort(perm[:half]), np.sort(perm[half:])
    members = np.arange(n_real)
    size = min(len(members), len(nonmembers))
    warnings = []
    if len(members) > size:
        members = np.sort(rng.choice(members, size=size, replace=False))
        warnings.append(f"{size} of the {n_real} training rows, drawn at random, play the members (as many as "
                        "there are non-members).")
    elif len(nonmembers) > size:
        total = len(nonmembers)
        nonmembers = np.sort(rng.choice(nonmembers, size=size, replace=False))
        warnings.append(f"{size} of the {total} holdout rows available as non-members, drawn at random, play the "
                        "non-members (as many as there are training rows).")
    return MembershipSets(members, nonmembers, reference, warnings)



def require_holdout(ctx: MetricContext, minimum: int) -> None:
    """Raise NotApplicable unless the evaluation has a holdout of at least ``minimum`` rows."""
    if ctx.holdout is None or len(ctx.holdout) < minimum:
        raise NotApplicable(
            f"needs a holdout table with at least {minimum} rows (real records not used for training)."
        )


def _user_reference(ctx: MetricContext, table: Any = None) -> pd.DataFrame | None:
    """The user's reference table, prepared like the others (None when not given)."""
    table = ctx.params.get("reference") if table is None else table
    if table is None:
        return None
    if not isinstance(table, pd.DataFrame):
        raise InputError("The reference table must be a table of real records with the analysed columns.")
    schema = ctx.schema.with_changes(pairing=None)
    prepared = prepare(table, table, schema, names={"real": "reference", "synthetic": "reference"}).real
    if len(prepared) == 0:
        raise NotApplicable("the reference table has no usable rows.")
    return prepared


@dataclass(frozen=True)
class Reference:
    """The attacker's reference set ``R``: positions in the holdout, or the user's own table.

    Attributes
    ----------
    positions : numpy.ndarray or None
        Positions in the holdout (None for a user table).
    table : pandas.DataFrame or None
        The prepared user table (None for a holdout half).
    described : str
        ``R`` in words, for the report.
    """

    positions: np.ndarray | None
    table: pd.DataFrame | None
    described: str

    def __len__(self) -> int:
        return len(self.positions) if self.table is None else len(self.table)

    def encoded(self, ctx: MetricContext, space: str) -> np.ndarray:
        """``R`` in ``space`` (the holdout's cached encoding, or the user table's, once per evaluation)."""
        if self.table is None:
            return ctx.encoded(space, "holdout")[self.positions]
        return ctx.shared.cached(("reference encoded", id(self.table), space),
                                 lambda: ctx.space(space).transform(self.table))


def membership_roles(ctx: MetricContext, table: Any = None) -> tuple[MembershipSets, Reference]:
    """Members, non-members and ``R`` of the attacks that use a reference (one choice per evaluation).

    ``table`` is the user's reference table (default: the ``reference`` parameter of ``ctx``); without
    one, ``H`` is split in two seeded halves (:func:`membership_sets`).
    """
    table = ctx.params.get("reference") if table is None else table

    def choose():
        user = _user_reference(ctx, table)
        sets = membership_sets(len(ctx.real), len(ctx.holdout), ctx.seed, split_holdout=user is None)
        if user is None:
            return sets, Reference(sets.reference, None,
                                   f"half of the holdout ({len(sets.reference)} rows, seeded split)")
        return sets, Reference(None, user, f"user reference table ({len(user)} rows)")

    return ctx.shared.cached(("membership roles", ctx.seed, ctx.is_baseline, id(table) if table is not None
                              else None), choose)

