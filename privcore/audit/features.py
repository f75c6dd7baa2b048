"""What one synthetic output says about every audited record at once (the shared-model audit's features)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcore.audit._base import NEIGHBOURS, NUMERICAL_TOLERANCE, nearest_distances
from privcore.data import NUMERICAL, Schema
from privcore.engine import EuclideanSpace
from privcore.metrics import value_reuse

#: A missing distance (no complete synthetic row) is replaced by this large value so that features stay finite.
FAR = 1e6
#: Squared distances below this are rounding of an exact match: counted as 0, so that exact copies tie.
EXACT = 1e-12


def query_masks(queries: np.ndarray) -> np.ndarray:
    """Column subsets as bit masks of shape (queries, words), 64 columns per word.

    The subsets come as rows of a 0/1 matrix, as :func:`privcore.audit._base.random_queries` draws them.

    Notes
    -----
    Matches are found with bit masks: for each (record, synthetic row) pair one bit per column says "differs",
    and a query matches where the pattern and the query's mask share no bit. That keeps one output's features
    at a few tens of milliseconds for 1,000 records and 500 synthetic rows.

    Examples
    --------
    >>> query_masks(np.array([[1, 0, 1], [0, 1, 0]])).ravel().tolist()
    [5, 2]
    """
    n_queries, n_columns = queries.shape
    words = max(1, -(-n_columns // 64))
    masks = np.zeros((n_queries, words), dtype=np.uint64)
    for j in range(n_columns):
        masks[:, j // 64] |= queries[:, j].astype(bool).astype(np.uint64) << np.uint64(j % 64)
    return masks


class SharedFeatures:
    """Features of synthetic outputs about every record of the pool.

    Parameters
    ----------
    data : DataFrame
        The prepared real table (the numerical tolerance is a share of each column's range in it).
    pool : DataFrame
        The audited records (prepared, analysed columns only).
    schema : Schema
        Column types.
    space : EuclideanSpace
        The space E the distances are measured in.
    queries : numpy.ndarray
        Column subsets, shape (queries, columns).
    rare_share, rare_count : float, int
        A value is rare when at most ``max(rare_count, rare_share · len(pool))`` pool records hold it.

    Notes
    -----
    The targeted audit (:mod:`privcore.audit.targeted`) describes one output for one target; the shared design
    trains every model on a random half of a pool and asks each output about *every* pool record. The features
    are those of the targeted audit, computed for all records in one pass, plus one kind the rare records need:

    - **query shares**: for random subsets of the columns (shared by all records, drawn from the seed), the
      share of synthetic rows that match the record on all of them (categories equal, numbers within 5 % of
      the column's range, :data:`~privcore.audit._base.NUMERICAL_TOLERANCE`);
    - **distances**: the record's distances in E to its :data:`~privcore.audit._base.NEIGHBOURS` nearest
      synthetic rows;
    - **rare values**: for every column, when the record's own value is rare in the pool (at most ``rare_count``
      records or ``rare_share`` of the pool), the share of synthetic rows holding it exactly (0 for a value that
      is not rare, so the feature says nothing for that record): a category, or a number as stored, so that an
      output that reuses a training record's unique number shows whose it is;
    - **value reuse**: the score of the value-reuse attack
      (:func:`privcore.metrics.membership.value_reuse`): the record's exact values that the output
      holds, each weighted by its rarity in the pool, so that many reused values of one record add up (a reused
      nearly unique number, Adult's ``fnlwgt``, weighs most; the 5 % tolerance of the queries misses it).
    """

    def __init__(self, data: pd.DataFrame, pool: pd.DataFrame, schema: Schema, space: EuclideanSpace,
                 queries: np.ndarray, *, rare_share: float = 0.01, rare_count: int = 2):
        self.columns = list(schema.columns)
        self.numerical = [c for c in self.columns if schema.types[c] == NUMERICAL]
        self.categorical = [c for c in self.columns if c not in self.numerical]
        # Categorical columns first, so that their rare-value features keep the positions they had before numbers
        # joined them.
        self.rare_columns = self.categorical + self.numerical
        self.tolerance = {c: NUMERICAL_TOLERANCE * float(data[c].max() - data[c].min()) for c in self.numerical}
        self.space = space
        self.masks = query_masks(queries)
        self.n_records = len(pool)
        self.encoded = space.transform(pool)
        self.values = {c: pool[c].to_numpy(dtype=float) for c in self.numerical}
        # Values (categories, and numbers as stored) as codes of the pool's own values: an output value the pool
        # never holds gets -1 and matches no record.
        self.levels = {c: pd.Index(pd.unique(pool[c].astype(object))) for c in self.rare_columns}
        self.codes = {c: self.levels[c].get_indexer(pool[c].astype(object)) for c in self.rare_columns}
        limit = max(rare_count, rare_share * len(pool))
        self.rare = {}
        self.pool_counts = {}
        for c in self.rare_columns:
            counts = np.bincount(self.codes[c], minlength=len(self.levels[c]))
            self.pool_counts[c] = counts[self.codes[c]]
            self.rare[c] = self.pool_counts[c] <= limit
        # The pool is the real population the auditor holds: the value-reuse rarity is read from it.
        self.pool = pool[self.columns].reset_index(drop=True)
        self.names = ([f"query {q}" for q in range(len(queries))] + [f"distance {k + 1}" for k in range(NEIGHBOURS)]
                      + [f"rare {c}" for c in self.rare_columns] + ["value reuse"])

    @property
    def n_features(self) -> int:
        """Features per record: queries, then distances, then rare-value shares, then the value-reuse score.

        The rare-value shares are one per column, categorical ones first.
        """
        return len(self.names)

    @property
    def nearest_index(self) -> int:
        """Position of the distance to the nearest synthetic row among the features."""
        return len(self.masks)

    @property
    def rare_index(self) -> int:
        """Position of the first rare-value feature."""
        return len(self.masks) + NEIGHBOURS

    @property
    def value_reuse_index(self) -> int:
        """Position of the value-reuse score (after the rare-value features)."""
        return self.rare_index + len(self.rare_columns)

    def features(self, output: pd.DataFrame) -> np.ndarray:
        """The features of one output about every pool record, shape (records, :attr:`n_features`)."""
        s = len(output)
        words = self.masks.shape[1]
        patterns = np.zeros((self.n_records, s, words), dtype=np.uint64)
        for j, col in enumerate(self.columns):
            values = output[col]
            if col in self.tolerance:
                synthetic = values.to_numpy(dtype=float, na_value=np.nan)
                with np.errstate(invalid="ignore"):
                    differs = ~(np.abs(synthetic[None, :] - self.values[col][:, None]) <= self.tolerance[col])
            else:
                synthetic_codes = self.levels[col].get_indexer(values.astype(object))
                differs = synthetic_codes[None, :] != self.codes[col][:, None]
            patterns[:, :, j // 64] |= differs.astype(np.uint64) << np.uint64(j % 64)
        shares = np.empty((self.n_records, len(self.masks)))
        for q, mask in enumerate(self.masks):
            matched = np.all((patterns & mask) == 0, axis=2)
            shares[:, q] = matched.mean(axis=1) if s else 0.0
        reuse = value_reuse(self.pool, output[self.columns], self.pool, self.columns).scores
        return np.hstack([shares, self._distances(output), self._rare_shares(output), reuse[:, None]])

    def _distances(self, output: pd.DataFrame) -> np.ndarray:
        # A missing number has no distance: such rows are left out, as in the targeted audit.
        complete = output.dropna(subset=self.numerical) if self.numerical else output
        out = np.full((self.n_records, NEIGHBOURS), FAR)
        if len(complete) == 0:
            return out
        nearest = nearest_distances(self.encoded, self.space.transform(complete[self.columns]), NEIGHBOURS)
        nearest[nearest < np.sqrt(EXACT)] = 0.0
        # Rounded, so that distances equal to the last bits (as from two routes through the data) never reorder models.
        out[:, :NEIGHBOURS] = np.minimum(np.round(nearest, 9), FAR)
        return out

    def _rare_shares(self, output: pd.DataFrame) -> np.ndarray:
        out = np.zeros((self.n_records, len(self.rare_columns)))
        for j, col in enumerate(self.rare_columns):
            codes = self.levels[col].get_indexer(output[col].astype(object))
            counts = np.bincount(codes[codes >= 0], minlength=len(self.levels[col]))
            share = counts[self.codes[col]] / max(len(output), 1)
            out[:, j] = np.where(self.rare[col], share, 0.0)
        return out
