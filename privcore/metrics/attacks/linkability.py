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



def _log_comb(n: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``log C(n, r)`` elementwise, ``-inf`` where ``r < 0`` or ``r > n``."""
    from scipy.special import gammaln  # imported here: scipy is slow to import and only this needs it

    n = np.asarray(n, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    ok = (r >= 0) & (r <= n)
    out = np.full(np.broadcast(n, r).shape, -np.inf)
    nn, rr = np.broadcast_arrays(n, r)
    out[ok] = gammaln(nn[ok] + 1) - gammaln(rr[ok] + 1) - gammaln(nn[ok] - rr[ok] + 1)
    return out


def tie_broken_link_probability(
    k: int,
    *,
    n_closer: np.ndarray,
    n_tied: np.ndarray,
    closer_closer: np.ndarray,
    closer_tied: np.ndarray,
    tied_closer: np.ndarray,
    tied_tied: np.ndarray,
) -> np.ndarray:
    r"""Probability that two ``k``-nearest sets meet when ties at the k-th distance are broken at random.

    Each half's ``k`` nearest synthetic records are the ``c_h`` records strictly closer than its k-th
    distance plus ``r_h = k - c_h`` records drawn uniformly, without replacement, from the ``t_h`` records
    at the k-th distance (its tie group), independently for the two halves. This is Anonymeter's attack
    (``set(idx_0[:k]) & set(idx_1[:k])``) averaged over every order its sort could give to tied records.

    Parameters
    ----------
    k : int
        Neighbours per half.
    n_closer, n_tied : numpy.ndarray
        Shape (m, 2): per target and half, ``c_h`` and ``t_h``.
    closer_closer, closer_tied, tied_closer, tied_tied : numpy.ndarray
        Shape (m,): sizes of the intersections (first half's group, second half's group), e.g.
        ``closer_tied`` = records strictly closer on the first half and tied on the second.

    Returns
    -------
    numpy.ndarray
        Shape (m,): the probabilities.

    Notes
    -----
    With :math:`a` = closer_tied, :math:`b` = tied_closer and :math:`c` = tied_tied, the sets miss each other
    (when no record is strictly closer on both halves) with probability

    .. math::

        \sum_j \frac{\binom{c}{j}\binom{t_0 - b - c}{r_0 - j}}{\binom{t_0}{r_0}}
        \cdot \frac{\binom{t_1 - a - j}{r_1}}{\binom{t_1}{r_1}}

    (the first half's draw avoids the :math:`b` records certainly in the second set and takes :math:`j` of
    the :math:`c` records tied on both; the second half's draw must then avoid those :math:`j` and the
    :math:`a` records certainly in the first set). For ``k = 1`` this is :math:`1 - c / (t_0 t_1)`.
    """
    n_closer = np.asarray(n_closer, dtype=np.int64).reshape(-1, 2)
    n_tied = np.asarray(n_tied, dtype=np.int64).reshape(-1, 2)
    a = np.asarray(closer_tied, dtype=np.int64)
    b = np.asarray(tied_closer, dtype=np.int64)
    c = np.asarray(tied_tied, dtype=np.int64)
    r0, r1 = k - n_closer[:, 0], k - n_closer[:, 1]
    t0, t1 = n_tied[:, 0], n_tied[:, 1]
    if np.any(r0 < 1) or np.any(r1 < 1) or np.any(t0 < r0) or np.any(t1 < r1):
        raise ValueError("Each half needs fewer than k strictly closer records and enough tied ones to reach k.")
    miss = np.zeros(len(c), dtype=np.float64)
    base0 = _log_comb(t0, r0)
    base1 = _log_comb(t1, r1)
    for j in range(int(min(k, c.max(initial=0))) + 1):
        log_term = (_log_comb(c, j) + _log_comb(t0 - b - c, r0 - j) - base0
                    + _log_comb(t1 - a - j, r1) - base1)
        miss += np.exp(log_term)
    p = 1.0 - np.clip(miss, 0.0, 1.0)
    return np.where(np.asarray(closer_closer) > 0, 1.0, p)


def pooled_links(
    halves: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
    k: int,
    rng: np.random.Generator,
    *,
    max_stored: int = MAX_STORED,
    chunk_elements: int = CHUNK_ELEMENTS,
) -> dict[str, np.ndarray]:
    """Neighbour sets of every query row's two halves and the probability that they link (steps 2–3 of :func:`linkability`).

    Parameters
    ----------
    halves : pair of (q_num, q_cat, c_num, c_cat)
        For each auxiliary column set, the queries' and the candidates' numerical (float64, unscaled) and
        categorical (int64 codes) blocks, as :func:`~privcore.metrics.attacks._common.gower_matrices`
        returns them.
    k : int
        Neighbours per half (``1 ≤ k ≤`` number of candidates); the sets reported also hold every candidate tied
        with the k-th.
    rng : numpy.random.Generator
        Orders equally distant candidates in the stored members (one permutation for both halves).
    max_stored : int
        Members of each set and of the intersection kept per query (at least ``k`` are kept).
    chunk_elements : int
        Distance elements (query rows × candidates) per block; memory about 50 bytes × ``chunk_elements``.

    Returns
    -------
    dict
        ``success`` (float, m: the probability that the two halves' ``k`` nearest records meet when ties are
        broken at random, :func:`tie_broken_link_probability`), ``linked`` (bool, m: whether some record is
        among the nearest of both halves, ties included, i.e. ``success > 0``), ``sizes`` (int, m × 2: the
        neighbour sets' sizes, the k nearest and every record tied with the k-th), ``n_common`` (int, m),
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
    success = np.zeros(m, dtype=np.float64)
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
        members, closer = [], []
        for h in range(2):
            d = buf_d[h][:b]
            gower_block_distances(scaled[h], start, stop, d, tmp, neq)
            t = np.partition(d, k - 1, axis=1)[:, k - 1].copy()
            kth[start:stop, h] = t
            member = d <= (t + tol[h])[:, None]
            # Strictly closer than the k-th (fewer than k of them): always among the k nearest, whatever the ties.
            closer.append(d < (t - tol[h])[:, None])
            sizes[start:stop, h] = member.sum(axis=1)
            members.append(member)
            idx = nearest_by_key(d, tol[h], priority, s, tmp, member)
            stored[f"neighbors_{h}"][start:stop] = idx
            got = idx >= 0
            dists[f"distances_{h}"][start:stop][got] = np.take_along_axis(d, np.where(got, idx, 0), axis=1)[got]
        tied = [members[h] & ~closer[h] for h in range(2)]
        success[start:stop] = tie_broken_link_probability(
            k,
            n_closer=np.column_stack([closer[0].sum(axis=1), closer[1].sum(axis=1)]),
            n_tied=np.column_stack([tied[0].sum(axis=1), tied[1].sum(axis=1)]),
            closer_closer=(closer[0] & closer[1]).sum(axis=1),
            closer_tied=(closer[0] & tied[1]).sum(axis=1),
            tied_closer=(tied[0] & closer[1]).sum(axis=1),
            tied_tied=(tied[0] & tied[1]).sum(axis=1),
        )
        both = np.logical_and(members[0], members[1], out=members[0])
        n_common[start:stop] = both.sum(axis=1)
        linked[start:stop] = n_common[start:stop] > 0
        total = np.add(buf_d[0][:b], buf_d[1][:b], out=buf_d[0][:b])
        stored["common"][start:stop] = nearest_by_key(total, tol_common, priority, s, tmp, both)
    return {"linked": linked, "success": success, "sizes": sizes, "n_common": n_common, "kth": kth, **stored, **dists}


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


def baseline_link_probability(k: int, n_synthetic: int) -> float:
    """Probability that two independent random sets of ``k`` of the ``n_synthetic`` records meet (the baseline).

    ``1 − C(n − k, k) / C(n, k)``: Anonymeter's baseline attacker draws such sets for each target.
    """
    k = min(int(k), int(n_synthetic))
    miss = np.exp(_log_comb(np.array(n_synthetic - k), np.array(k)) - _log_comb(np.array(n_synthetic), np.array(k)))
    return float(1.0 - miss)


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
        ``k``: each half's ``k`` nearest synthetic records (ties at the k-th broken at random, see Notes); a
        link needs the two halves' sets to share a record.
    n_attacks : int, default 500
        Targets per attack (capped at the table size).
    missing : {"drop", "median"}
    seed : int, default 0
    confidence : float, default 0.95

    Returns
    -------
    AttackOutcome
        ``details["main"]`` / ``details["control"]``: target index labels; per target, the sizes of the
        neighbour sets with every record tied with the k-th (``n_neighbors_0``/``n_neighbors_1``), their
        first ``max(k, MAX_STORED)`` members (``neighbors_0``/``neighbors_1``, synthetic index labels,
        nearest first) with distances, the size of their intersection (``n_common``), ``linked`` (the
        probability that the target is linked, 0 or 1 when nothing ties) and ``links`` (target label → up
        to ``max(k, MAX_STORED)`` synthetic labels that can link it, closest on both halves first);
        ``details["baseline"]``: the expected number of random links and their probability.

    Notes
    -----
    The attacker holds two tables about the same people that share no identifier: one with the columns of
    ``aux_cols[0]``, the other with those of ``aux_cols[1]``. They use the synthetic table as a bridge: for a
    target, find the synthetic records closest to its first part and those closest to its second part; if
    the two groups share a record, the attacker links the two parts. The main attack targets real training
    records, the control attack holdout records, and the baseline attacker picks the two groups of
    synthetic records at random.

    Algorithm (``anonymeter.evaluators.linkability_evaluator``, with its ties averaged out, see below):

    1. Draw ``n_attacks`` distinct target rows of the real table (seeded; all rows if the table is smaller).
    2. For each auxiliary column set, the target's ``n_neighbors`` (``k``) nearest synthetic records on those
       columns in the Gower-type distance of :func:`~privcore.metrics.attacks._common.gower_knn`
       (numerical differences divided by the column's range over targets and synthetic rows, categorical
       mismatch = 1), independently for the two sets.
    3. A target is linked when the two sets share a record. Records tied with the k-th (distance within
       1e-12 × the number of columns of the set) are drawn at random, and the target counts the
       **probability** that the two sets meet (:func:`tie_broken_link_probability`; 0 or 1 when nothing
       ties): the success count is the expected number of links over every way of breaking the ties.
    4. Control: the same with targets drawn from the holdout. Baseline: two random sets of ``k`` synthetic
       records per target, which meet with probability ``1 − C(n − k, k) / C(n, k)``; its expected count.

    **Choice: ties are averaged, not pooled and not left to the sort order.** Anonymeter keeps the ``k``
    records its ``argsort`` happens to put first, so a target whose halves tie with many records links only
    when the sort picks the same record twice. An earlier version of this function pooled the ties (a link
    whenever some record was among the nearest of both halves): on a table with few, coarse columns and many
    repeated rows nearly every record, training or holdout, then links, both rates sit near 1 and the
    residual ``(main − control)/(1 − control)`` turns a difference of one or two targets into a risk of
    0.3–0.4 for a fresh sample of the same population (Anonymeter 1.1.0: 0.000–0.001 on the same
    tables). The probability keeps Anonymeter's attack and removes the luck of the sort: on such tables both
    rates stay low and agree with Anonymeter's within its interval (``bench/bench_anonymeter.py``); an exact
    copy links the targets whose halves are unique and a fraction of the others (0.39–0.55 on the Adult
    demo, as Anonymeter), and the control stays far below. The sets are not listed: for each block of targets
    the distances to every synthetic row are computed for both halves, thresholded at the k-th distance, and
    the sizes of the strictly-closer and tied groups and of their intersections give the probability (memory
    about 50 bytes × ``chunk_elements``); ``details`` keeps at most ``max(k, MAX_STORED)`` members of each set
    (ties included) and of their intersection per target, nearest first (equally distant records in a seeded
    random order), with the full sizes.

    Other deviations from Anonymeter: seeded throughout (Anonymeter's target and baseline draws are not), the
    counts are expected values (no draw adds noise to the comparison of main and control), ``n_attacks``
    larger than a table is capped with a warning instead of raising, and missing numerical values follow
    metrics.md §0.

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

    # Seven streams (the seventh once drew a random baseline, now an expected count), so that the targets drawn for
    # a seed stay the same.
    rngs = child_rngs(seed, 7)
    main = _attack(prep, "real", aux, k, n_attacks, rngs[0:3])
    n_total = int(main["success"].size)
    # The baseline attacker links through two random sets of k synthetic records (Anonymeter's baseline); its
    # expected count, like the main and control attacks' counts, so that no draw adds noise to the comparison.
    base_p = baseline_link_probability(k, n_syn)
    ctrl = _attack(prep, "control", aux, k, n_attacks, rngs[3:6]) if control is not None else None

    syn_index = prep.tables["synthetic"].index

    def _stored(row: np.ndarray) -> list:
        return index_labels(syn_index, row[row >= 0])

    def _detail(res: dict[str, Any] | None, role: str) -> dict[str, Any] | None:
        if res is None:
            return None
        t_labels = index_labels(prep.tables[role].index, res["targets"])
        links = {t_labels[i]: _stored(res["common"][i]) for i in np.flatnonzero(res["success"] > 0).tolist()}
        return {
            "targets": t_labels,
            "neighbors_0": [_stored(row) for row in res["neighbors_0"]],
            "neighbors_1": [_stored(row) for row in res["neighbors_1"]],
            "distances_0": [row[~np.isnan(row)].tolist() for row in res["distances_0"]],
            "distances_1": [row[~np.isnan(row)].tolist() for row in res["distances_1"]],
            "n_neighbors_0": res["sizes"][:, 0].tolist(),
            "n_neighbors_1": res["sizes"][:, 1].tolist(),
            "n_common": res["n_common"].tolist(),
            "linked": res["success"].tolist(),
            "links": links,
        }

    details = {
        "main": _detail(main, "real"),
        "control": _detail(ctrl, "control"),
        "baseline": {
            "n_links": base_p * n_total,
            "n_attacks": n_total,
            "link_probability": base_p,
            "mean_set_sizes": [float(k), float(k)],
        },
        "aux_cols": [list(aux[0]), list(aux[1])],
        "ties": "random",
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
        n_main=float(main["success"].sum()),
        n_main_total=n_total,
        n_baseline=base_p * n_total,
        n_baseline_total=n_total,
        n_control=None if ctrl is None else float(ctrl["success"].sum()),
        n_control_total=None if ctrl is None else int(ctrl["success"].size),
        confidence=confidence,
    )
    return make_outcome("linkability", result, warnings=warns, details=details, params=params, started=started)
