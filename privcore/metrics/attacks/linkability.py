"""Linkability attack (Anonymeter; Giomi et al. 2023, PoPETs).

The attacker holds two tables about the same people that share no identifier: one with the columns of
``aux_cols[0]``, the other with those of ``aux_cols[1]``. They use the synthetic table as a bridge: for a
target, find the ``k`` synthetic records closest to its first part and the ``k`` closest to its second
part; if the two sets share a record, the attacker links the two parts. The main attack targets real
training records, the control attack holdout records, and the baseline attacker picks the two sets of
``k`` synthetic records at random.

Algorithm (following ``anonymeter.evaluators.linkability_evaluator``):

1. Draw ``n_attacks`` distinct target rows of the real table (seeded; all rows if the table is smaller).
2. For each auxiliary column set, find each target's ``n_neighbors`` nearest synthetic records on those
   columns in the Gower-type distance of :func:`~privcore.metrics.attacks._common.gower_knn` (numerical
   differences divided by the column's range over targets and synthetic rows, categorical mismatch = 1).
3. A target is linked when the two neighbour sets intersect.
4. Control: the same with targets drawn from the holdout. Baseline: for each of the main attack's
   targets, two independent random sets of ``n_neighbors`` distinct synthetic rows.

Deviations from Anonymeter: seeded throughout (Anonymeter's target and baseline draws are not), ties
between equally distant synthetic records are broken at random (seeded, independently for the two
column sets) instead of by sort order, ``n_attacks`` larger than a table is capped with a warning
instead of raising, and missing numerical values follow metrics.md §0.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np
import pandas as pd

from privcore.errors import SchemaError
from privcore.metrics.attacks._common import (
    AttackOutcome,
    Prepared,
    check_n_attacks,
    child_rngs,
    gower_knn,
    gower_matrices,
    make_outcome,
    prepare_tables,
    sample_targets,
)
from privcore.stats import AttackResult


def _labels(index: np.ndarray, positions: np.ndarray) -> list:
    return [v.item() if isinstance(v, np.generic) else v for v in index[positions].tolist()]


def _attack(
    prep: Prepared, role: str, aux: tuple[list[str], list[str]], k: int, n_attacks: int, rngs
) -> dict[str, Any]:
    rng_targets, rng_ties0, rng_ties1 = rngs
    n_rows = len(prep.tables[role])
    targets = sample_targets(n_rows, n_attacks, rng_targets)
    found = []
    for cols, rng in zip(aux, (rng_ties0, rng_ties1)):
        q_num, q_cat = gower_matrices(prep, role, cols, targets)
        c_num, c_cat = gower_matrices(prep, "synthetic", cols)
        idx, dist = gower_knn(q_num, q_cat, c_num, c_cat, k, rng)
        found.append((idx, dist))
    (idx0, d0), (idx1, d1) = found
    linked = (idx0[:, :, None] == idx1[:, None, :]).any(axis=(1, 2))
    return {"targets": targets, "idx0": idx0, "idx1": idx1, "d0": d0, "d1": d1, "linked": linked}


def random_links(n_synthetic: int, n_attacks: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """``n_attacks`` rows of ``k`` distinct random synthetic positions (the baseline attacker)."""
    return np.array([rng.choice(n_synthetic, size=k, replace=False) for _ in range(n_attacks)], dtype=np.int64)


def linkability(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame | None = None,
    *,
    column_types: dict[str, str],
    aux_cols: tuple[Sequence[str], Sequence[str]],
    n_neighbors: int = 1,
    n_attacks: int = 500,
    missing: str = "drop",
    seed: int | None = 0,
    confidence: float = 0.95,
) -> AttackOutcome:
    """Run the linkability attack (see the module docstring for the algorithm).

    Parameters
    ----------
    real, synthetic : DataFrame
        Training records and synthetic records.
    control : DataFrame, optional
        Holdout records; without it there is no residual risk.
    column_types : dict
        Column → ``"numerical"``, ``"categorical"`` or ``"binary"`` (at least for the auxiliary columns).
    aux_cols : pair of sequences of str
        The columns of the attacker's first and second table.
    n_neighbors : int, default 1
        ``k``: a link needs the two ``k``-nearest sets to intersect.
    n_attacks : int, default 500
        Targets per attack (capped at the table size).
    missing : {"drop", "median"}
    seed : int, default 0
    confidence : float, default 0.95

    Returns
    -------
    AttackOutcome
        ``details["main"]`` / ``details["control"]``: target index labels, their neighbours in each
        column set (synthetic index labels), the distances, whether each was linked, and ``links``
        (target label → linking synthetic labels); ``details["baseline"]``: the number of random links.

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"col0": [0, 0, 4, 0], "col1": [0, 1, 9, 4]})
    >>> syn = pd.DataFrame({"col0": [0, 1, 4, 9], "col1": [0, 1, 4, 9]})
    >>> out = linkability(real, syn, column_types={"col0": "numerical", "col1": "numerical"},
    ...                   aux_cols=(["col0"], ["col1"]), n_attacks=4, confidence=0)
    >>> out.main.value
    0.25
    """
    started = time.perf_counter()
    n_attacks = check_n_attacks(n_attacks)
    if not isinstance(aux_cols, (tuple, list)) or len(aux_cols) != 2:
        raise SchemaError("aux_cols must be a pair of column lists: the attacker's two tables.")
    aux = ([aux_cols[0]] if isinstance(aux_cols[0], str) else list(aux_cols[0]),
           [aux_cols[1]] if isinstance(aux_cols[1], str) else list(aux_cols[1]))
    if not aux[0] or not aux[1]:
        raise SchemaError("Each of the two auxiliary column sets of the linkability attack needs a column.")
    if not isinstance(n_neighbors, (int, np.integer)) or n_neighbors < 1:
        raise SchemaError(f"n_neighbors must be a positive integer, got {n_neighbors!r}.")
    columns = list(dict.fromkeys(aux[0] + aux[1]))
    prep = prepare_tables({"real": real, "synthetic": synthetic, "control": control}, column_types, columns, missing)
    warns = list(prep.warnings)
    n_syn = len(prep.tables["synthetic"])
    k = int(n_neighbors)
    if k > n_syn:
        warns.append(f"n_neighbors = {k} exceeds the {n_syn} synthetic rows; used {n_syn}.")
        k = n_syn
    for role in ("real", "control"):
        t = prep.tables.get(role)
        if t is not None and len(t) < n_attacks:
            warns.append(f"The {role} table has {len(t)} rows, fewer than n_attacks = {n_attacks}; all were attacked.")

    rngs = child_rngs(seed, 7)
    main = _attack(prep, "real", aux, k, n_attacks, rngs[0:3])
    n_total = int(main["linked"].size)
    base0 = random_links(n_syn, n_total, k, rngs[6])
    base1 = random_links(n_syn, n_total, k, rngs[6])
    base_linked = (base0[:, :, None] == base1[:, None, :]).any(axis=(1, 2))
    ctrl = _attack(prep, "control", aux, k, n_attacks, rngs[3:6]) if control is not None else None

    syn_index = prep.tables["synthetic"].index

    def _detail(res: dict[str, Any] | None, role: str) -> dict[str, Any] | None:
        if res is None:
            return None
        t_labels = _labels(prep.tables[role].index, res["targets"])
        n0 = [_labels(syn_index, row) for row in res["idx0"]]
        n1 = [_labels(syn_index, row) for row in res["idx1"]]
        links = {}
        for i in np.flatnonzero(res["linked"]).tolist():
            second = set(res["idx1"][i].tolist())
            common = [p for p in res["idx0"][i].tolist() if p in second]
            links[t_labels[i]] = _labels(syn_index, np.array(common, dtype=np.int64))
        return {
            "targets": t_labels,
            "neighbors_0": n0,
            "neighbors_1": n1,
            "distances_0": res["d0"].tolist(),
            "distances_1": res["d1"].tolist(),
            "linked": res["linked"].tolist(),
            "links": links,
        }

    details = {
        "main": _detail(main, "real"),
        "control": _detail(ctrl, "control"),
        "baseline": {"n_links": int(base_linked.sum()), "n_attacks": n_total},
        "aux_cols": [list(aux[0]), list(aux[1])],
        "missing": dict(prep.dropped),
    }
    params = {
        "aux_cols": [list(aux[0]), list(aux[1])],
        "n_neighbors": k,
        "n_attacks": n_attacks,
        "missing": missing,
        "seed": seed,
        "confidence": confidence,
    }
    result = AttackResult(
        n_main=int(main["linked"].sum()),
        n_main_total=n_total,
        n_baseline=int(base_linked.sum()),
        n_baseline_total=n_total,
        n_control=None if ctrl is None else int(ctrl["linked"].sum()),
        n_control_total=None if ctrl is None else int(ctrl["linked"].size),
        confidence=confidence,
    )
    return make_outcome("linkability", result, warnings=warns, details=details, params=params, started=started)
