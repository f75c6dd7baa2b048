"""GCAP's pools for any set of rows of one table (the pool), read from one Hamming pass over the whole table."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privcore.metrics._exact_match import first_positions, tuple_ids, value_codes
from privcore.metrics.key_matching import GroupRankCounter, KeyMatcher, hamming_pool_counts, pooled_counts

#: A real key tuple keeps the table's tuples one key further than its nearest only while they are at most this many:
#: a key tuple with more (one key column, or a few coarse ones) is recomputed on the rare subset that lacks every
#: nearest tuple (:meth:`HammingLevels.pools`), which costs less than holding them all.
SECOND_LEVEL_CAP = 64


@dataclass(frozen=True)
class HammingLevels:
    """For each distinct real key tuple, the table's distinct key tuples at its smallest Hamming distance and the next.

    GCAP compares each real record with every synthetic row at the minimal Hamming distance on the keys. Its
    size-matched comparisons score the same real records against 5-10 random subsets of one table (the synthetic table
    and the holdout together, or the larger of them), and its baseline against the holdout: all of them sets of rows
    of one table, here called the pool. A subset's nearest key tuples are among the pool's nearest or, where the subset
    holds none of those, the next ones: so one Hamming pass over the pool, keeping per real tuple the pool tuples at
    its smallest distance ``d`` and at ``d + 1``, answers every subset by counting (:meth:`pools`), exactly as a pass
    over the subset would. A real tuple whose subset holds none of them is recomputed against the subset.

    Attributes
    ----------
    real_tuple : numpy.ndarray
        Per real row, its distinct real key tuple.
    pool_tuple : numpy.ndarray
        Per pool row, its distinct pool key tuple.
    real_codes, pool_codes : numpy.ndarray
        The distinct tuples' codes (one code per value over both tables).
    owner, tuple, distance : numpy.ndarray
        The kept pairs (real tuple, pool tuple, Hamming distance), sorted by real tuple, then distance.
    real_rank, pool_rank : numpy.ndarray
        Sensitive value codes (equal values, equal codes) per real row and per pool row.
    n_ranks : int
    """

    real_tuple: np.ndarray
    pool_tuple: np.ndarray
    real_codes: np.ndarray
    pool_codes: np.ndarray
    owner: np.ndarray
    tuple: np.ndarray
    distance: np.ndarray
    real_rank: np.ndarray
    pool_rank: np.ndarray
    n_ranks: int

    @classmethod
    def build(cls, real: pd.DataFrame, pool: pd.DataFrame, keys: list[str], sensitive: str, *,
              chunk_elements: int, workers: int | None = None,
              second_level_cap: int = SECOND_LEVEL_CAP) -> HammingLevels:
        """One Hamming pass of the real key tuples over the pool's.

        Parameters
        ----------
        real, pool : pandas.DataFrame
            The real table and the table every scored set is drawn from.
        keys : list of str
            The key columns.
        sensitive : str
            The sensitive column (categorical: a guess is correct when it equals the real value).
        chunk_elements : int
            Bound on a chunk's matrix.
        workers : int, optional
            Threads for the chunks.
        second_level_cap : int
            Most tuples kept at the second distance (:data:`SECOND_LEVEL_CAP`).

        Returns
        -------
        HammingLevels
        """
        real_codes, pool_codes = value_codes([real, pool], keys)
        ids, n_ids = tuple_ids(np.vstack([real_codes, pool_codes]))
        # Distinct tuples numbered per table (the pool's numbering is shared by every subset).
        real_tuple, real_first = _dense(ids[:len(real)])
        pool_tuple, pool_first = _dense(ids[len(real):])
        real_distinct, pool_distinct = real_codes[real_first], pool_codes[pool_first]
        matcher = KeyMatcher(real_distinct, pool_distinct, chunk_elements)
        n_attr = len(keys)

        def run(start: int):
            chunk_rows, matches = matcher.chunk(start)
            best = matches.max(axis=1).astype(np.int64)
            near = matches >= (best - 1)[:, None]
            second = np.count_nonzero(near, axis=1) - np.count_nonzero(matches == best[:, None], axis=1)
            # Beyond the cap only the nearest level is kept (the subset that lacks all of it is recomputed).
            near &= (matches == best[:, None]) | (second <= second_level_cap)[:, None]
            row, tup = np.nonzero(near)
            return chunk_rows[row], tup, n_attr - matches[row, tup].astype(np.int64)

        parts = matcher.map_chunks(run, workers)
        owner = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        tup = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        distance = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        order = np.lexsort((tup, distance, owner))
        ranks = pd.factorize(np.concatenate([real[sensitive].to_numpy(), pool[sensitive].to_numpy()]))[0]
        ranks = ranks.astype(np.int64)
        return cls(real_tuple, pool_tuple, real_distinct, pool_distinct, owner[order].astype(np.int64),
                   tup[order].astype(np.int64), distance[order], ranks[:len(real)], ranks[len(real):],
                   int(ranks.max()) + 1 if len(ranks) else 1)

    def pools(self, rows: np.ndarray, *, chunk_elements: int, workers: int | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """GCAP's pool size, correct guesses and minimal Hamming distance per real row, against pool rows ``rows``.

        Parameters
        ----------
        rows : numpy.ndarray
            Positions in the pool of the table scored (its order does not matter: a pool is a set of rows).
        chunk_elements : int
            Bound on a recomputation's chunk.
        workers : int, optional
            Threads for a recomputation.

        Returns
        -------
        pool_size, correct, hamming : numpy.ndarray
            Per real row, as :func:`privcore.metrics.simulation.compute_gcap` computes them on those rows.
        """
        n_owners = len(self.real_codes)
        chosen_tuple = self.pool_tuple[rows]
        chosen_rank = self.pool_rank[rows]
        counter = GroupRankCounter(chosen_tuple, chosen_rank, len(self.pool_codes), self.n_ranks)
        present = counter.group_size[self.tuple] > 0
        kept = np.flatnonzero(present)
        # Pairs run by (owner, distance): an owner's first present pair is at its minimal distance in ``rows``.
        owners, first = np.unique(self.owner[kept], return_index=True)
        nearest = np.full(n_owners, -1, dtype=np.int64)
        nearest[owners] = self.distance[kept[first]]
        kept = kept[self.distance[kept] == nearest[self.owner[kept]]]
        # One query per distinct (real tuple, sensitive value) of the real rows.
        query, n_query = tuple_ids(np.column_stack([self.real_tuple, self.real_rank]))
        q_first = first_positions(query, n_query)
        q_owner, q_rank = self.real_tuple[q_first], self.real_rank[q_first]
        pool_size, correct = pooled_counts(self.owner[kept], self.tuple[kept], n_owners, counter, q_owner, q_rank,
                                           q_rank + 1, chunk_elements)
        hamming = nearest.copy()
        missing = np.flatnonzero(nearest < 0)
        if len(missing):
            # Real tuples whose kept pool tuples all lie outside ``rows``: compared with the rows' tuples directly.
            ids = np.flatnonzero(counter.group_size > 0)
            on_missing = np.full(n_owners, -1, dtype=np.int64)
            on_missing[missing] = np.arange(len(missing))
            asked = np.flatnonzero(on_missing[q_owner] >= 0)
            size, distance, hits = hamming_pool_counts(
                self.real_codes[missing], self.pool_codes[ids], ids, counter, on_missing[q_owner[asked]],
                q_rank[asked], q_rank[asked] + 1, chunk_elements=chunk_elements, workers=workers)
            pool_size[missing], hamming[missing] = size, distance
            correct[asked] = hits
        return pool_size[self.real_tuple], correct[query], hamming[self.real_tuple]


def _dense(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ids renumbered 0.. in order of first occurrence, and the first position of each."""
    dense, uniques = pd.factorize(ids)
    return dense.astype(np.int64), first_positions(dense.astype(np.int64), len(uniques))
