"""Linkability attack (Anonymeter; Giomi et al. 2023, PoPETs)."""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np
import pandas as pd

from privcore.base import AttackResult, SchemaError
from privcore.metrics.attacks._common import (
    CHUNK_ELEMENTS,
    AttackOutcome,
    Prepared,
    check_n_attacks,
    child_rngs,
    fewer_rows_than_attacks,
    gower_block_distances,
    gower_matrices,
    gower_scaled,
    index_labels,
    make_outcome,
    nearest_by_key,
    prepare_tables,
    sample_targets,
)

#: Members of each neighbour set (and of the two sets' intersection) kept per target in ``details``
#: (at least ``k``); the full sizes are always reported.
MAX_STORED = 10


def pooled_links(
    halves: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
    k: int,
    rng: np.random.Generator,
    *,
    max_stored: int = MAX_STORED,
    chunk_elements: int = CHUNK_ELEMENTS,
) -> dict[str, np.ndarray]:
    """Tie-aware linking of every query row through the candidate rows (steps 2–3 of :func:`linkability`'s algorithm).

    Parameters
    ----------
    halves : pair of (q_num, q_cat, c_num, c_cat)
        For each auxiliary column set, the queries' and the candidates' numerical (float64, unscaled) and
        categorical (int64 codes) blocks, as :func:`~privcore.metrics.attacks._common.gower_matrices`
        returns them.
    k : int
        Neighbours per half before ties are pooled (``1 ≤ k ≤`` number of candidates).
    rng : numpy.random.Generator
        Orders equally distant candidates in the stored members (one permutation for both halves).
    max_stored : int
        Members of each set and of the intersection kept per query (at least ``k`` are kept).
    chunk_elements : int
        Distance elements (query rows × candidates) per block; memory about 50 bytes × ``chunk_elements``.

    Returns
    -------
    dict
        ``linked`` (bool, m), ``sizes`` (int, m × 2: the neighbour sets' sizes), ``n_common`` (int, m),
        ``kth`` (m × 2: each half's k-th smallest distance), ``neighbors_0``/``neighbors_1`` and
        ``common`` (m × s candidate positions, nearest first, −1 padded), ``distances_0``/``distances_1``
        (m × s, NaN where padded).
    """
    if len(halves) != 2:
        raise ValueError("pooled_links needs exactly two column sets.")
    n = halves[0][2].shape[0]
    m = halves[0][0].shape[0]
    if n >= 9_000_000:
        raise ValueError("pooled_links supports fewer than 9 million candidate rows.")
    k = int(k)
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and the {n} candidates, got {k}.")
    ps = [h[0].shape[1] + h[1].shape[1] for h in halves]
    if min(ps) == 0:
        raise SchemaError("A neighbour search needs at least one column.")
    scaled = [gower_scaled(*h) for h in halves]
    tol = [1e-12 * p for p in ps]
    tol_common = 1e-12 * (ps[0] + ps[1])
    s = min(max(int(max_stored), k), n)
    priority = rng.permutation(n).astype(np.int64)

    linked = np.zeros(m, dtype=bool)
    sizes = np.zeros((m, 2), dtype=np.int64)
    n_common = np.zeros(m, dtype=np.int64)
    kth = np.zeros((m, 2), dtype=np.float64)
    stored = {name: np.full((m, s), -1, dtype=np.int64) for name in ("neighbors_0", "neighbors_1", "common")}
    dists = {name: np.full((m, s), np.nan) for name in ("distances_0", "distances_1")}

    rows = max(1, int(chunk_elements) // max(n, 1))
    buf_d = [np.empty((min(rows, m), n)) for _ in range(2)]
    buf_tmp = np.empty((min(rows, m), n))
    buf_neq = np.empty((min(rows, m), n), dtype=bool)
    for start in range(0, m, rows):
        stop = min(m, start + rows)
        b = stop - start
        tmp, neq = buf_tmp[:b], buf_neq[:b]
        members = []
        for h in range(2):
            d = buf_d[h][:b]
            gower_block_distances(scaled[h], start, stop, d, tmp, neq)
            t = np.partition(d, k - 1, axis=1)[:, k - 1].copy()
            kth[start:stop, h] = t
            member = d <= (t + tol[h])[:, None]
            sizes[start:stop, h] = member.sum(axis=1)
            members.append(member)
            idx = nearest_by_key(d, tol[h], priority, s, tmp, member)
            stored[f"neighbors_{h}"][start:stop] = idx
            got = idx >= 0
            dists[f"distances_{h}"][start:stop][got] = np.take_along_axis(d, np.where(got, idx, 0), axis=1)[got]
        both = np.logical_and(members[0], members[1], out=members[0])
        n_common[start:stop] = both.sum(axis=1)
        linked[start:stop] = n_common[start:stop] > 0
        total = np.add(buf_d[0][:b], buf_d[1][:b], out=buf_d[0][:b])
        stored["common"][start:stop] = nearest_by_key(total, tol_common, priority, s, tmp, both)
    return {"linked": linked, "sizes": sizes, "n_common": n_common, "kth": kth, **stored, **dists}


def _attack(
    prep: Prepared, role: str, aux: tuple[list[str], list[str]], k: int, n_attacks: int, rngs
) -> dict[str, Any]:
    rng_targets, rng_ties, _unused = rngs  # three streams, so target draws match earlier versions
    n_rows = len(prep.tables[role])
    targets = sample_targets(n_rows, n_attacks, rng_targets)
    halves = []
    for cols in aux:
        q_num, q_cat = gower_matrices(prep, role, cols, targets)
        c_num, c_cat = gower_matrices(prep, "synthetic", cols)
        halves.append((q_num, q_cat, c_num, c_cat))
    res = pooled_links(halves, k, rng_ties)
    res["targets"] = targets
    return res


def random_links(sizes: np.ndarray, n_synthetic: int, rng: np.random.Generator) -> np.ndarray:
    """The baseline attacker: for each row ``(a, b)`` of ``sizes``, whether random sets of synthetic rows meet.

    Whether a random set of ``b`` distinct synthetic rows meets a random set of ``a`` (drawn as ``Hypergeometric(a, n −
    a, b) > 0``).
    """
    sizes = np.asarray(sizes, dtype=np.int64).reshape(-1, 2)
    if sizes.size == 0:
        return np.zeros(0, dtype=bool)
    a = np.clip(sizes[:, 0], 0, n_synthetic)
    b = np.clip(sizes[:, 1], 0, n_synthetic)
    return rng.hypergeometric(a, n_synthetic - a, b) > 0


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
    """Run the linkability attack (see Notes for the algorithm).

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
        ``k``: each half's neighbour set is its ``k`` nearest synthetic records plus every record tied
        with the k-th; a link needs the two sets to intersect.
    n_attacks : int, default 500
        Targets per attack (capped at the table size).
    missing : {"drop", "median"}
    seed : int, default 0
    confidence : float, default 0.95

    Returns
    -------
    AttackOutcome
        ``details["main"]`` / ``details["control"]``: target index labels; per target, the neighbour
        sets' sizes (``n_neighbors_0``/``n_neighbors_1``), their first ``max(k, MAX_STORED)`` members
        (``neighbors_0``/``neighbors_1``, synthetic index labels, nearest first) with distances, the
        size of their intersection (``n_common``), whether it was linked, and ``links`` (target label →
        up to ``max(k, MAX_STORED)`` linking synthetic labels, closest on both halves first);
        ``details["baseline"]``: the number of random links and the mean sizes of the random sets.

    Notes
    -----
    The attacker holds two tables about the same people that share no identifier: one with the columns of
    ``aux_cols[0]``, the other with those of ``aux_cols[1]``. They use the synthetic table as a bridge: for a
    target, find the synthetic records closest to its first part and those closest to its second part; if
    the two groups share a record, the attacker links the two parts. The main attack targets real training
    records, the control attack holdout records, and the baseline attacker picks the two groups of
    synthetic records at random.

    Algorithm (following ``anonymeter.evaluators.linkability_evaluator``, except for ties, see below):

    1. Draw ``n_attacks`` distinct target rows of the real table (seeded; all rows if the table is smaller).
    2. For each auxiliary column set, the target's neighbour set is its ``n_neighbors`` (``k``) nearest
       synthetic records on those columns **together with every synthetic record tied with the k-th**
       (distance ≤ the k-th smallest distance + 1e-12 × the number of columns of the set), in the
       Gower-type distance of :func:`~privcore.metrics.attacks._common.gower_knn` (numerical differences
       divided by the column's range over targets and synthetic rows, categorical mismatch = 1).
    3. A target is linked when its two neighbour sets intersect.
    4. Control: the same with targets drawn from the holdout. Baseline: for each of the main attack's
       targets, two independent random sets of synthetic rows of the same sizes as that target's two
       neighbour sets (exactly ``k`` each when nothing ties); they intersect with the hypergeometric
       probability ``1 − C(n − a, b) / C(n, b)``, which is what is drawn (seeded).

    **Choice: ties are pooled.** With a few coarse columns per half (the Adult demo gives each half six or
    seven), many synthetic records share a target's half exactly. Anonymeter keeps ``k`` of them, in the
    order ``numpy.argsort`` happens to produce, independently for the two halves, so even an exact copy of
    the training table links only the targets whose halves are both unique (0.39–0.55 on the Adult
    demo). An attacker holding both halves would instead look for a synthetic record that is among the
    nearest on both: that is what pooling the ties does, and it is applied identically to the main,
    control and baseline attacks, so the residual risk stays a fair comparison (holdout records also link
    more often when halves are coarse). The intersection is tested without listing the sets: for each
    block of targets the distances to every synthetic row are computed for both halves, thresholded, and
    combined (memory about 50 bytes × ``chunk_elements``); ``details`` keeps at most ``max(k, MAX_STORED)``
    members of each set and of the intersection per target, nearest first (equally distant records in a
    seeded random order), with the full sizes.

    Other deviations from Anonymeter: seeded throughout (Anonymeter's target and baseline draws are not),
    ``n_attacks`` larger than a table is capped with a warning instead of raising, and missing numerical
    values follow metrics.md §0.

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
    warns += fewer_rows_than_attacks(prep, n_attacks)

    rngs = child_rngs(seed, 7)
    main = _attack(prep, "real", aux, k, n_attacks, rngs[0:3])
    n_total = int(main["linked"].size)
    # The baseline guesses sets of the sizes the main attack used for the same targets (k each without ties).
    base_linked = random_links(main["sizes"], n_syn, rngs[6])
    ctrl = _attack(prep, "control", aux, k, n_attacks, rngs[3:6]) if control is not None else None

    syn_index = prep.tables["synthetic"].index

    def _stored(row: np.ndarray) -> list:
        return index_labels(syn_index, row[row >= 0])

    def _detail(res: dict[str, Any] | None, role: str) -> dict[str, Any] | None:
        if res is None:
            return None
        t_labels = index_labels(prep.tables[role].index, res["targets"])
        links = {t_labels[i]: _stored(res["common"][i]) for i in np.flatnonzero(res["linked"]).tolist()}
        return {
            "targets": t_labels,
            "neighbors_0": [_stored(row) for row in res["neighbors_0"]],
            "neighbors_1": [_stored(row) for row in res["neighbors_1"]],
            "distances_0": [row[~np.isnan(row)].tolist() for row in res["distances_0"]],
            "distances_1": [row[~np.isnan(row)].tolist() for row in res["distances_1"]],
            "n_neighbors_0": res["sizes"][:, 0].tolist(),
            "n_neighbors_1": res["sizes"][:, 1].tolist(),
            "n_common": res["n_common"].tolist(),
            "linked": res["linked"].tolist(),
            "links": links,
        }

    details = {
        "main": _detail(main, "real"),
        "control": _detail(ctrl, "control"),
        "baseline": {
            "n_links": int(base_linked.sum()),
            "n_attacks": n_total,
            "mean_set_sizes": [float(main["sizes"][:, 0].mean()), float(main["sizes"][:, 1].mean())]
            if n_total else [0.0, 0.0],
        },
        "aux_cols": [list(aux[0]), list(aux[1])],
        "ties": "pooled",
        "max_stored": max(MAX_STORED, k),
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
