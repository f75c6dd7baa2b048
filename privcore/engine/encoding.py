"""The shared vector spaces of metrics.md §0: E (min–max + one-hot) and the FAMD projection Φk.

Both are fitted once per evaluation on the real table ``Y`` (E also sees the category union of every
table) and then applied unchanged to every table, so an exact copy of a real record lands exactly on it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privcore.base import ExtremeValueError, NotApplicable, one_blas_thread
from privcore.data import BINARY, MAX_MAGNITUDE, MISSING, NUMERICAL, Schema

#: Largest encoded table (rows × coordinates × 8 bytes) the distance spaces may build: 2 GiB.
MAX_ENCODED_BYTES = 2 * 1024**3
#: FAMD codings at least this wide (a code of a thousand values) are fitted from their covariance matrix, built
#: from counts, instead of an SVD of the rows × coordinates coding (:class:`FAMDProjection`).
WIDE_CODING = 1024


@dataclass(frozen=True)
class Block:
    """The coordinates of E that belong to one attribute."""

    column: str
    start: int
    stop: int


class EuclideanSpace:
    """Vector space E: numerical columns min–max scaled on ``Y``, categorical columns one-hot.

    Parameters
    ----------
    real : DataFrame
        Prepared real table (fixes the min/max of numerical columns and which columns are constant).
    others : list of DataFrame
        The other tables of the evaluation (their categories join the one-hot union).
    schema : Schema
        Column types.
    columns : list of str, optional
        Restrict the space to these columns (e.g. the key attributes); default every analysed column.

    Notes
    -----
    Columns constant in ``Y`` are dropped (listed in ``dropped_constant``). A binary column is one 0/1
    coordinate (1 = the larger of its two values); a binary column that also holds missing values is
    one-hot encoded like a categorical one, because missing is its own category.
    """

    def __init__(self, real: pd.DataFrame, others: list[pd.DataFrame], schema: Schema, columns=None):
        columns = list(schema.columns if columns is None else columns)
        self.dropped_constant: list[str] = []
        self._numerical: list[tuple[str, float, float]] = []
        self._categorical: list[tuple[str, list[str]]] = []
        self._binary: list[tuple[str, str]] = []
        blocks: list[Block] = []
        width = 0
        for col in columns:
            if real[col].nunique(dropna=False) <= 1:
                self.dropped_constant.append(col)
                continue
            kind = schema.types[col]
            if kind == NUMERICAL:
                lo, hi = float(real[col].min()), float(real[col].max())
                with np.errstate(over="ignore"):
                    if not np.isfinite(hi - lo):
                        raise _unscalable(col, lo, hi)
                self._numerical.append((col, lo, hi))
                blocks.append(Block(col, width, width + 1))
                width += 1
                continue
            levels = sorted(set(real[col]).union(*(set(df[col]) for df in others)))
            if kind == BINARY and MISSING not in levels and len(levels) == 2:
                self._binary.append((col, levels[1]))
                blocks.append(Block(col, width, width + 1))
                width += 1
            else:
                self._categorical.append((col, levels))
                blocks.append(Block(col, width, width + len(levels)))
                width += len(levels)
        self.columns = columns
        self.blocks = blocks
        self.dim = width
        largest_table = max([len(real), *(len(df) for df in others)])
        if largest_table * width * 8 > MAX_ENCODED_BYTES and self._categorical:
            column, levels = max(self._categorical, key=lambda item: len(item[1]))
            raise NotApplicable(
                f"the distance space would need {largest_table * width * 8 / 1024**3:.1f} GB because column "
                f"'{column}' has {len(levels):,} categories (one coordinate each); if it is an identifier or free "
                "text, leave it out of the analysis on the Configure page, or declare it numerical if it is a number."
            )

    def transform(self, df: pd.DataFrame) -> np.ndarray:
        """Encode a prepared table as a C-contiguous float64 array of shape (len(df), dim)."""
        out = np.zeros((len(df), self.dim), dtype=np.float64)
        starts = {b.column: b.start for b in self.blocks}
        for col, lo, hi in self._numerical:
            values = df[col].to_numpy(dtype=np.float64)
            with np.errstate(over="ignore", invalid="ignore"):
                out[:, starts[col]] = _checked((values - lo) / (hi - lo), values, col, lo, hi)
        for col, positive in self._binary:
            out[:, starts[col]] = (df[col].to_numpy() == positive).astype(np.float64)
        for col, levels in self._categorical:
            # pandas stores the codes of up to 127 categories as int8: widened first, because the offset of a
            # block past 127 (a 300-value code before this column) would overflow int8.
            codes = pd.Categorical(df[col], categories=levels).codes.astype(np.intp)
            rows = np.flatnonzero(codes >= 0)
            out[rows, starts[col] + codes[rows]] = 1.0
        return out


class FAMDProjection:
    """Projection Φk: FAMD fitted on ``Y`` with an exact SVD, applied with ``Y``'s coding to any table.

    The preprocessing follows prince's FAMD (and Pagès 2004): numerical columns standardised with
    ``Y``'s mean and population standard deviation; each modality indicator of a categorical (or binary)
    column coded as ``(indicator − p) / sqrt(p)`` with ``p`` its proportion in ``Y``; the rows of ``Y``
    weighted 1/|Y| in the SVD. Coordinates are ``coded(x) @ V_k.T``, so they equal prince's
    ``row_coordinates`` on ``Y``. Unlike prince's ``row_coordinates`` on a new table, other tables are
    coded with ``Y``'s means, standard deviations and proportions (metrics.md §0); a category unseen in
    ``Y`` has no indicator column and is coded as "none of ``Y``'s modalities".

    Parameters
    ----------
    real : DataFrame
        Prepared real table.
    schema : Schema
        Column types.
    n_components : int, optional
        ``k``; default ``min(5, r)`` with ``r`` = number of numerical columns + number of categories −
        number of categorical columns, capped at |Y| − 1.
    """

    def __init__(self, real: pd.DataFrame, schema: Schema, n_components: int | None = None):
        self.dropped_constant = [c for c in schema.columns if real[c].nunique(dropna=False) <= 1]
        active = [c for c in schema.columns if c not in self.dropped_constant]
        self._numerical = [c for c in active if schema.types[c] == NUMERICAL]
        self._categorical = [c for c in active if schema.types[c] != NUMERICAL]
        self._levels: list[tuple[str, list[str], np.ndarray]] = []
        for col in self._categorical:
            counts = real[col].value_counts(sort=False)
            levels = sorted(counts.index)
            proportions = counts.reindex(levels).to_numpy(dtype=np.float64) / len(real)
            self._levels.append((col, levels, proportions))
        # Fit on the real rows in a canonical (sorted) order, so that the rounding of the means and of the
        # SVD, and with tied singular values the choice of axes, depend on the set of real records and
        # not on their order (only HidR may depend on the real table's row order). Measured: a
        # 4-row table with tied singular values gave NNDR 0.578 or 0.567 depending on the row order.
        real = real.iloc[self._canonical_order(real)]
        num = real[self._numerical].to_numpy(dtype=np.float64) if self._numerical else np.empty((len(real), 0))
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            self._mean = num.mean(axis=0)
            self._std = num.std(axis=0)
        for j, col in enumerate(self._numerical):
            if not (np.isfinite(self._mean[j]) and np.isfinite(self._std[j]) and self._std[j] > 0):
                raise _unscalable(col, float(num[:, j].min()), float(num[:, j].max()))
        n_categories = sum(len(levels) for _, levels, _ in self._levels)
        width = len(self._numerical) + n_categories
        self.wide = width >= WIDE_CODING
        too_large = width * width * 8 if self.wide else len(real) * width * 8
        if too_large > MAX_ENCODED_BYTES:
            column, levels, _ = max(self._levels, key=lambda item: len(item[1]))
            raise NotApplicable(
                f"the FAMD projection would need more than {MAX_ENCODED_BYTES / 1024**3:.0f} GB because column "
                f"'{column}' has {len(levels):,} categories; if it is an identifier or free text, leave it out of "
                "the analysis on the Configure page."
            )
        rank = len(self._numerical) + n_categories - len(self._categorical)
        self.rank = rank
        default_k = min(5, rank)
        k = default_k if n_components is None else int(n_components)
        k = max(1, min(k, rank, len(real) - 1))
        self.n_components = k
        if self.wide:
            self._fit_from_covariance(real, k)
            return
        coded = self._code(real)
        # Exact (LAPACK) SVD of the row-weighted, column-centred matrix, as prince does with row weights 1/n.
        centred = coded - coded.mean(axis=0)
        # Imported here: scipy.linalg costs about 0.15 s at start-up and only the FAMD projection (dcr, nndr,
        # hidr) needs it, while every evaluation imports this module.
        import scipy.linalg

        # On one BLAS thread: OpenBLAS's threads spin while they wait, and on a busy 2-core machine the SVD of
        # Adult's 10,000 × 106 coded matrix took 1.2–3.1 s on two threads against 0.19 s on one (measured
        # side by side); on a quiet machine one thread costs a few hundredths of a second.
        with one_blas_thread():
            scaled = centred / np.sqrt(len(real))
            if scaled.shape[0] >= int(scaled.shape[1] * 11 / 6):
                # LAPACK's SVD (dgesdd) of a matrix at least 11/6 times as tall as wide factors it as Q·R first
                # and works on R. Only the right singular vectors are used here, so R is factored directly and
                # Q and Q·U are never formed: the same singular values and vectors, bit for bit
                # (tests/engine/test_encoding.py), 0.055 -> 0.033 s at 10,000 Adult rows and 1.07 -> 0.57 s at
                # 100,000 (one thread, measured side by side).
                scaled = scipy.linalg.qr(scaled, mode="r", overwrite_a=True, check_finite=False)[0][: scaled.shape[1]]
            _, singular, vt = scipy.linalg.svd(scaled, full_matrices=False)
        self.components = vt[:k]
        self.eigenvalues = singular[:k] ** 2
        self.tied_axes = _ties_at(singular[: k + 1] ** 2, k)
        self.explained_inertia = float(self.eigenvalues.sum() / max(np.sum(singular**2), 1e-300))
        self._centre = coded.mean(axis=0)

    def _fit_from_covariance(self, real: pd.DataFrame, k: int) -> None:
        """Fit a wide coding (:data:`WIDE_CODING`) from its covariance matrix, never the rows × coordinates coding.

        The coding's covariance ``C = XᵀX / n`` is built from sums and counts: the numerical columns' products, each
        modality's sums of the numerical columns, and each pair of categorical columns' contingency table
        (``(N_lm/n − p_l p_m)/sqrt(p_l p_m)``; within one column ``1 − p_l`` on the diagonal and ``−sqrt(p_l p_m)``
        off it). Its top ``k`` eigenpairs (LAPACK's exact ``dsyevr``, not a randomised method) are the SVD's top
        ``k`` squared singular values and right singular vectors. Measured on a 5,000-value code at 5,000 rows,
        the SVD of the 5,000 × 3,160 coding took 28 s; the coding alone takes 8 bytes per row per modality (0.8 GB
        at 20,000 rows of a 5,000-value code). The axes differ from the SVD's only in sign and, where eigenvalues
        tie, in the choice of axes among them; distances in Φk do not depend on signs.
        """
        import scipy.linalg  # see the SVD below: only the FAMD projection needs it

        n = len(real)
        num = real[self._numerical].to_numpy(dtype=np.float64) if self._numerical else np.empty((n, 0))
        z = (num - self._mean) / self._std
        numeric_centre = z.mean(axis=0)
        z -= numeric_centre
        blocks = [(pd.Categorical(real[col], categories=levels).codes.astype(np.intp), proportions)
                  for col, levels, proportions in self._levels]
        width = z.shape[1] + sum(len(p) for _, p in blocks)
        cov = np.empty((width, width))
        q = z.shape[1]
        cov[:q, :q] = z.T @ z / n
        starts = np.cumsum([q] + [len(p) for _, p in blocks])
        column_sums = z.sum(axis=0)
        for a, (codes_a, p_a) in enumerate(blocks):
            root_a = np.sqrt(p_a)
            lo, hi = starts[a], starts[a + 1]
            # numerical × modality: (sum of z over the modality's rows − p · sum of z) / (n sqrt(p))
            per_level = np.stack([np.bincount(codes_a, weights=z[:, j], minlength=len(p_a)) for j in range(q)]) \
                if q else np.empty((0, len(p_a)))
            cross = (per_level - column_sums[:, None] * p_a[None, :]) / (n * root_a[None, :])
            cov[:q, lo:hi], cov[lo:hi, :q] = cross, cross.T
            for b in range(a, len(blocks)):
                codes_b, p_b = blocks[b]
                root_b = np.sqrt(p_b)
                if a == b:
                    block = -np.outer(root_a, root_a)
                    block[np.diag_indices(len(p_a))] = 1.0 - p_a
                else:
                    counts = np.bincount(codes_a * len(p_b) + codes_b, minlength=len(p_a) * len(p_b))
                    block = (counts.reshape(len(p_a), len(p_b)) / n - np.outer(p_a, p_b)) / np.outer(root_a, root_b)
                cov[lo:hi, starts[b]:starts[b + 1]] = block
                cov[starts[b]:starts[b + 1], lo:hi] = block.T
        with one_blas_thread():
            # One more eigenpair than kept, to see whether the k-th ties with the next (tied_axes).
            wanted = min(k + 1, width)
            values, vectors = scipy.linalg.eigh(cov, subset_by_index=[width - wanted, width - 1], driver="evr",
                                                check_finite=False)
            if len(values) < wanted:
                # dsyevr finds nothing where the wanted eigenvalues fall in a large cluster of equal ones (a code
                # whose values are unrelated to the other columns gives eigenvalue 1 once per value): the full
                # divide-and-conquer decomposition (dsyevd) always succeeds.
                values, vectors = scipy.linalg.eigh(cov, driver="evd", check_finite=False)
                values, vectors = values[width - wanted:], vectors[:, width - wanted:]
        order = np.argsort(values)[::-1]
        values, vectors = values[order], vectors[:, order]
        self.tied_axes = _ties_at(values, k)
        values, vectors = values[:k], vectors[:, :k]
        order = np.arange(k)
        self.components = np.ascontiguousarray(vectors[:, order].T)
        self.eigenvalues = np.clip(values[order], 0.0, None)
        self.explained_inertia = float(self.eigenvalues.sum() / max(float(np.trace(cov)), 1e-300))
        self._centre = np.concatenate([numeric_centre, np.zeros(width - q)])
        # Each categorical column adds, to a row's coordinates, the part every row gets ((0 − p)/sqrt(p) at each
        # modality) plus its own modality's difference (1/sqrt(p) times that modality's axis entries).
        self._wide_parts = []
        for a, (_, p_a) in enumerate(blocks):
            axes = self.components[:, starts[a]:starts[a + 1]]
            root_a = np.sqrt(p_a)
            self._wide_parts.append((axes @ (-root_a), np.ascontiguousarray((axes / root_a[None, :]).T)))

    def _transform_wide(self, df: pd.DataFrame) -> np.ndarray:
        """Φk coordinates of a table under a wide coding's fit: each row's from its own values only."""
        q = len(self._numerical)
        out_t = np.zeros((self.components.shape[0], len(df)))
        if q:
            values = df[self._numerical].to_numpy(dtype=np.float64)
            with np.errstate(over="ignore", invalid="ignore"):
                z = (values - self._mean) / self._std
            for j, col in enumerate(self._numerical):
                _checked(z[:, j], values[:, j], col, self._mean[j] - self._std[j], self._mean[j] + self._std[j])
                out_t += self.components[:, j][:, None] * (z[:, j] - self._centre[j])
        for (col, levels, _), (shared, per_level) in zip(self._levels, self._wide_parts):
            codes = pd.Categorical(df[col], categories=levels).codes.astype(np.intp)
            out_t += shared[:, None]
            seen = codes >= 0  # a category unseen in Y: "none of Y's modalities", the shared part only
            out_t[:, seen] += per_level[codes[seen]].T
        return np.ascontiguousarray(out_t.T)

    def _canonical_order(self, df: pd.DataFrame) -> np.ndarray:
        """Row order sorting ``df`` by its active columns (numerical values, then category codes)."""
        keys = [df[c].to_numpy(dtype=np.float64) for c in self._numerical]
        keys += [pd.Categorical(df[c], categories=levels).codes for c, levels, _ in self._levels]
        if not keys:
            return np.arange(len(df))
        return np.lexsort(keys[::-1])

    def _code(self, df: pd.DataFrame) -> np.ndarray:
        width = len(self._numerical) + sum(len(levels) for _, levels, _ in self._levels)
        coded = np.empty((len(df), width))
        if self._numerical:
            values = df[self._numerical].to_numpy(dtype=np.float64)
            with np.errstate(over="ignore", invalid="ignore"):
                np.divide(values - self._mean, self._std, out=coded[:, : len(self._numerical)])
            for j, col in enumerate(self._numerical):
                _checked(coded[:, j], values[:, j], col, self._mean[j] - self._std[j], self._mean[j] + self._std[j])
        start = len(self._numerical)
        for col, levels, proportions in self._levels:
            # (indicator − p) / √p takes two values per modality, each computed once with the same two
            # correctly rounded operations as on the whole indicator matrix, so the coding is bit for bit
            # the same, without the indicator matrix and its copies.
            root = np.sqrt(proportions)
            block = coded[:, start : start + len(levels)]
            block[:] = (0.0 - proportions) / root
            codes = pd.Categorical(df[col], categories=levels).codes
            rows = np.flatnonzero(codes >= 0)
            block[rows, codes[rows]] = ((1.0 - proportions) / root)[codes[rows]]
            start += len(levels)
        return coded

    def transform(self, df: pd.DataFrame) -> np.ndarray:
        """Φk coordinates of a prepared table, shape (len(df), k)."""
        if self.wide:
            return self._transform_wide(df)
        # prince's PCA step subtracts the (numerically ~0) column means of Y's coded matrix again.
        centred = self._code(df) - self._centre
        # Not `centred @ components.T`: BLAS picks kernels by matrix shape, so the same row gets
        # different rounding in tables of different sizes (measured: 4e-16 on Adult) and an exact copy
        # of a real record would not land exactly on it. Summing feature by feature in a fixed order
        # with elementwise (correctly rounded) operations makes each row's coordinates depend on
        # that row only.
        # Accumulated as k rows of len(df) values (transposed): the same products and sums in the same
        # order as on (len(df), k), but each operation runs over a long contiguous row instead of k
        # values at a time (10,000 Adult rows: 0.031 -> 0.016 s).
        centred_t = np.ascontiguousarray(centred.T)
        out_t = np.zeros((self.components.shape[0], len(df)))
        for j, column in enumerate(centred_t):
            out_t += self.components[:, j][:, None] * column
        return np.ascontiguousarray(out_t.T)


def _ties_at(eigenvalues: np.ndarray, k: int) -> bool:
    """Whether the k-th largest eigenvalue ties with the next (relative 1e-9): the first k axes are then not unique.

    Any basis of the tied eigenvalues' space is an equally exact FAMD; which one LAPACK returns depends on rounding,
    and so do distances in Φk. A code whose values are unrelated to the other columns ties at eigenvalue 1 once per
    value.
    """
    if len(eigenvalues) <= k or k == 0:
        return False
    kth, following = float(eigenvalues[k - 1]), float(eigenvalues[k])
    return kth - following <= 1e-9 * max(abs(kth), 1e-300)


def _checked(scaled: np.ndarray, values: np.ndarray, column: str, lo: float, hi: float) -> np.ndarray:
    """``scaled`` unchanged when every coordinate is finite and within ±MAX_MAGNITUDE, else an error.

    :meth:`privcore.Schema.validate` already refuses ±inf and magnitudes beyond ``MAX_MAGNITUDE``; this
    catches the rest: a value so far outside the real table's spread that its coordinate, or the squared
    distances built from it, would overflow double precision and give a wrong score.
    """
    ok = np.abs(scaled) <= MAX_MAGNITUDE  # NaN compares False
    if ok.all():
        return scaled
    bad = int(np.flatnonzero(~ok)[0])
    raise ExtremeValueError(
        f"Column '{column}' holds {values[bad]:g}, which lies too far outside the real table's spread of that "
        f"column ({lo:g} to {hi:g}) for distances to be computed in double precision. Check the value, rescale "
        "the column (other units, or its logarithm), or declare it categorical.",
        column=column,
    )


def _unscalable(column: str, lo: float, hi: float) -> ExtremeValueError:
    return ExtremeValueError(
        f"Column '{column}' cannot be scaled for the distance metrics: its values in the real table ({lo:g} to "
        f"{hi:g}) are too far apart or too close together for double precision. Rescale the column (other "
        "units, or its logarithm), or declare it categorical.",
        column=column,
    )
