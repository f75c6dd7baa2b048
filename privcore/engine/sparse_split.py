"""Products of wide, mostly-zero tables (one-hot codes of many values): dense columns by BLAS, the rest as sparse."""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

import numpy as np

#: Tables of fewer columns keep one dense product: their products are cheap, and splitting them would gain nothing.
MIN_COLUMNS = 256
#: A column is sparse when at most this share of the rows of each table is non-zero (a one-hot code of 16 values or
#: more, on balanced data).
SPARSE_SHARE = 1 / 16
#: The split pays when at least this share of the columns is sparse.
MIN_SPARSE_COLUMNS = 0.5


@dataclass(frozen=True)
class SparseSplit:
    """The columns of a pass's two tables split into a dense part and a sparse part (CSR).

    ``q·r`` is the dense parts' product plus the sparse parts': the same dot product, summed in another order, so
    within the same rounding bound (fewer terms each); the exact refinement that follows every product makes the
    passes' results identical to one dense product's.

    Attributes
    ----------
    query_dense, reference_dense : numpy.ndarray
        The dense columns, C-contiguous.
    query_sparse, reference_sparse : scipy.sparse.csr_matrix
        The sparse columns.
    """

    query_dense: np.ndarray
    reference_dense: np.ndarray
    query_sparse: object
    reference_sparse: object

    def scores_t(self, first: int, last: int, start: int, stop: int) -> np.ndarray:
        """``r·q`` for reference rows [first, last) and query rows ``start:stop``, shape (last − first, stop − start)."""
        block = self.reference_dense[first:last] @ self.query_dense[start:stop].T
        _add_sparse(block, self.reference_sparse[first:last] @ self.query_sparse[start:stop].T)
        return block

    def products(self, rows, first: int = 0, last: int | None = None) -> np.ndarray:
        """``q·r`` for query rows ``rows`` (slice or positions) and reference rows [first, last)."""
        block = self.query_dense[rows] @ self.reference_dense[first:last].T
        _add_sparse(block, self.query_sparse[rows] @ self.reference_sparse[first:last].T)
        return block


def _add_sparse(block: np.ndarray, product) -> None:
    """Add a sparse product's entries into the dense block (each entry once)."""
    product = product.tocoo()
    product.sum_duplicates()
    block[product.row, product.col] += product.data


def split(query: np.ndarray, reference: np.ndarray) -> SparseSplit | None:
    """The split of a pass's tables, or None where one dense product is the better way (see the module's constants).

    Parameters
    ----------
    query, reference : numpy.ndarray
        The float64 tables, with the same columns.

    Returns
    -------
    SparseSplit or None

    Examples
    --------
    >>> codes = np.eye(300)[np.arange(40) % 300]
    >>> table = np.hstack([np.linspace(0, 1, 40)[:, None], codes])
    >>> parts = split(table, table)
    >>> parts.query_dense.shape, parts.query_sparse.shape, bool(np.allclose(parts.products(slice(0, 40)),
    ...                                                                  table @ table.T))
    ((40, 1), (40, 300), True)
    """
    columns = query.shape[1]
    if columns < MIN_COLUMNS or len(query) == 0 or len(reference) == 0:
        return None
    query_csr, reference_csr = _csr(query), _csr(reference)
    if query_csr is None or reference_csr is None:  # mostly non-zeros: nothing to split off
        return None
    share = np.maximum(np.bincount(query_csr.indices, minlength=columns) / len(query),
                       np.bincount(reference_csr.indices, minlength=columns) / len(reference))
    sparse = share <= SPARSE_SHARE
    if sparse.sum() < MIN_SPARSE_COLUMNS * columns:
        return None
    dense, sparse = np.flatnonzero(~sparse), np.flatnonzero(sparse)
    # The sparse columns are taken from the whole table's CSR: no dense copy of them is made.
    return SparseSplit(np.ascontiguousarray(query[:, dense]), np.ascontiguousarray(reference[:, dense]),
                       query_csr[:, sparse], reference_csr[:, sparse])


#: CSR forms of the tables split lately, by the identity of the array (checked through a weak reference, so a new
#: array at a freed one's address is never taken for it). A table is split by every pass it enters (the synthetic
#: table by a dozen, at 5,000 rows and 5,004 columns 0.1 s each to find its non-zeros); a few are kept.
_RECENT_CSR: dict[int, tuple] = {}
_RECENT_LIMIT = 32
#: A table with more non-zeros than this share of its values has no CSR form kept (None): it is not sparse.
CSR_SHARE = 0.5
_CSR_LOCK = threading.Lock()


def frozen(table: np.ndarray) -> bool:
    """Whether ``table`` cannot change: read-only and owning its values (the evaluation's encodings are)."""
    return not table.flags.writeable and table.flags.owndata


def csr_of(table: np.ndarray):
    """The CSR form of ``table`` (scipy), kept while the array lives and is unchanged (see :func:`_csr`)."""
    return _csr(table)


def _csr(table: np.ndarray):
    """The CSR form of ``table`` (explicit zeros never stored), cached while the array lives (:data:`_RECENT_CSR`).

    None where more than :data:`CSR_SHARE` of its values are non-zero (also kept).
    """
    # Imported here: scipy.sparse is only needed for tables this wide.
    import scipy.sparse

    key = id(table)
    stamp = (table.shape, table.dtype.str)
    if not frozen(table):
        # A pass over the values as well: a writable array written to after it was split is split again.
        n, d = table.shape
        weighted = table @ (1.0 + (np.arange(d) % 89) / 89.0 + np.arange(d) * 1e-9)  # a value moved changes it
        stamp += (float(weighted @ (1.0 + np.arange(n) % 97)),)
    with _CSR_LOCK:
        found = _RECENT_CSR.get(key)
        if found is not None and found[0]() is table and found[1] == stamp:
            return found[2]
    csr = scipy.sparse.csr_matrix(table) if np.count_nonzero(table) <= CSR_SHARE * table.size else None
    try:
        reference = weakref.ref(table)
    except TypeError:  # a view that cannot be referenced weakly: not kept
        return csr
    with _CSR_LOCK:
        _RECENT_CSR[key] = (reference, stamp, csr)
        while len(_RECENT_CSR) > _RECENT_LIMIT:
            _RECENT_CSR.pop(next(iter(_RECENT_CSR)))
    return csr
