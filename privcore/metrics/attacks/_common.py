"""Shared machinery of the Anonymeter-style attacks.

Input preparation, the outcome type and an exact, chunked k-nearest-neighbour search in a Gower-type space.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from privcore.base import (
    AttackResult,
    ColumnMismatchError,
    Risk,
    SchemaError,
    SuccessRate,
    TooFewRowsError,
    format_number,
)

NUMERICAL, CATEGORICAL, BINARY = "numerical", "categorical", "binary"
COLUMN_TYPES = (NUMERICAL, CATEGORICAL, BINARY)

#: Distance elements held at once by the neighbour search (float64 distances + int64 keys per element).
CHUNK_ELEMENTS = 2**21


@dataclass
class AttackOutcome:
    """Result of one attack evaluation (main, baseline and control attacks).

    Attributes
    ----------
    attack : str
        ``"singling_out_univariate"``, ``"singling_out_multivariate"``, ``"linkability"`` or
        ``"inference"``.
    result : AttackResult or None
        The success counts; recompute rates at another confidence level with it. ``None`` when no
        attack could be attempted at all (then every rate and the risk are 0 by construction).
    confidence : float
        Confidence level of the rates, errors and interval below.
    main, baseline : SuccessRate
        Wilson rates of the main attack (synthetic data against real training records) and of the
        baseline attack (random guessing).
    control : SuccessRate or None
        Wilson rate of the main attack's procedure against the control (holdout) records.
    residual : SuccessRate or None
        ``(main - control) / (1 - control)`` with propagated error, not clipped.
    risk : float
        Residual risk clipped to [0, 1]; without a control, the main attack's rate.
    interval : tuple of float
        Interval of ``risk`` at ``confidence`` (clipped to [0, 1]).
    warnings : list of str
        Plain-language warnings (main attack not better than baseline, rows dropped, too few
        attacks...).
    details : dict
        What the figures need (queries, links, guesses... see each attack).
    params : dict
        Every parameter and seed used.
    seconds : float
        Wall time.
    """

    attack: str
    result: AttackResult | None
    confidence: float
    main: SuccessRate
    baseline: SuccessRate
    control: SuccessRate | None
    residual: SuccessRate | None
    risk: float
    interval: tuple[float, float]
    warnings: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def raw(self) -> float:
        """The main attack's success rate (Wilson centre at ``confidence``)."""
        return self.main.value

    @property
    def n_main(self) -> float:
        return 0 if self.result is None else self.result.n_main

    @property
    def n_baseline(self) -> float:
        return 0 if self.result is None else self.result.n_baseline

    @property
    def n_control(self) -> float | None:
        if self.result is None:
            return None if self.control is None else 0
        return self.result.n_control

    def summary(self) -> dict[str, Any]:
        """Counts, rates, risk and warnings as plain values (no details)."""

        def _rate(r):
            return None if r is None else {"value": r.value, "error": r.error}

        if self.result is not None:
            out = self.result.to_dict(self.confidence)
        else:
            out = {"confidence": self.confidence, "n_main": 0, "n_main_total": 0, "n_baseline": 0,
                   "n_baseline_total": 0, "n_control": self.n_control,
                   "n_control_total": None if self.control is None else 0}
        out.update(
            attack=self.attack, main=_rate(self.main), baseline=_rate(self.baseline), control=_rate(self.control),
            residual=_rate(self.residual), risk=self.risk, interval=list(self.interval),
            warnings=list(self.warnings), seconds=self.seconds,
        )
        return out


def make_outcome(
    attack: str,
    result: AttackResult | None,
    *,
    warnings: list[str],
    details: dict[str, Any],
    params: dict[str, Any],
    started: float,
    confidence: float | None = None,
    has_control: bool = False,
) -> AttackOutcome:
    """Assemble an :class:`AttackOutcome` from counts (rates, residual, risk, warnings).

    ``result=None`` means no attack could be attempted: every rate and the risk are 0 by construction.
    """
    if result is None:
        # Nothing could be attempted: the attacker made no claim, so there is no success to count.
        zero = SuccessRate(0.0, 0.0)
        return AttackOutcome(
            attack=attack, result=None, confidence=confidence, main=zero, baseline=zero,
            control=zero if has_control else None, residual=zero if has_control else None,
            risk=0.0, interval=(0.0, 0.0), warnings=warnings, details=details, params=params,
            seconds=time.perf_counter() - started,
        )
    c = result.confidence
    risk: Risk = result.risk(c)
    return AttackOutcome(
        attack=attack,
        result=result,
        confidence=c,
        main=result.main_rate(c),
        baseline=result.baseline_rate(c),
        control=result.control_rate(c),
        residual=result.residual(c),
        risk=risk.value,
        interval=risk.interval,
        warnings=warnings + result.warnings(c),
        details=details,
        params=params,
        seconds=time.perf_counter() - started,
    )


# ----------------------------------------------------------------------------------------------------
# Input preparation
# ----------------------------------------------------------------------------------------------------


@dataclass
class EncodedTable:
    """One table restricted to the attack's columns, with missing values handled.

    Attributes
    ----------
    index : numpy.ndarray
        Index labels of the kept rows in the caller's table.
    values : dict
        Column → float64 array (numerical) or int64 category codes (categorical/binary); codes are
        shared by every table of one evaluation.
    """

    index: np.ndarray
    values: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.index)

    def take(self, positions: np.ndarray) -> "EncodedTable":
        return EncodedTable(self.index[positions], {c: v[positions] for c, v in self.values.items()})

    def deduplicated(self, columns: Sequence[str]) -> "EncodedTable":
        """Keep the first row of every group of identical rows (on ``columns``), in table order."""
        if len(self) == 0:
            return self
        mat = np.column_stack([self.values[c].astype(np.float64) for c in columns])
        _, first = np.unique(mat, axis=0, return_index=True)
        return self.take(np.sort(first))


@dataclass
class Prepared:
    """The tables of one attack, encoded consistently."""

    tables: dict[str, EncodedTable | None]
    column_types: dict[str, str]
    columns: list[str]
    categories: dict[str, list[Any]]
    missing_code: dict[str, int]
    dropped: dict[str, int]
    warnings: list[str]

    def is_numerical(self, col: str) -> bool:
        return self.column_types[col] == NUMERICAL

    def decode(self, col: str, codes: np.ndarray) -> list[Any]:
        """Original values of categorical codes (``None`` for missing); numbers unchanged."""
        arr = np.asarray(codes)
        if self.is_numerical(col):
            return [float(v) for v in arr.tolist()]
        cats = self.categories[col]
        return [None if int(v) == self.missing_code[col] else plain_value(cats[int(v)]) for v in arr.tolist()]

    def label(self, col: str, code: float) -> str:
        """Text of one value, for query strings."""
        if self.is_numerical(col):
            return format_number(float(code))
        if int(code) == self.missing_code[col]:
            return "(missing)"
        return repr(plain_value(self.categories[col][int(code)]))


def plain_value(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (index labels and categories go into JSON details)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def index_labels(index: np.ndarray, positions: np.ndarray) -> list:
    """The caller's index labels of the rows at ``positions``, as plain Python values."""
    return [plain_value(v) for v in index[positions].tolist()]


def check_column_types(column_types: Mapping[str, str]) -> dict[str, str]:
    if not isinstance(column_types, Mapping) or not column_types:
        raise SchemaError("column_types must map each analysed column to 'numerical', 'categorical' or 'binary'.")
    bad = {c: t for c, t in column_types.items() if t not in COLUMN_TYPES}
    if bad:
        raise SchemaError(
            "Unknown column type(s) "
            + ", ".join(f"{c!r}: {t!r}" for c, t in bad.items())
            + "; use 'numerical', 'categorical' or 'binary'.",
            column=next(iter(bad)),
        )
    return dict(column_types)


def prepare_tables(
    tables: Mapping[str, pd.DataFrame | None],
    column_types: Mapping[str, str],
    columns: Sequence[str],
    missing: str = "drop",
) -> Prepared:
    """Restrict tables to ``columns``, apply the missing-value policy and encode categories jointly.

    Parameters
    ----------
    tables : mapping
        Role (``"real"``, ``"synthetic"``, ``"control"``) → DataFrame or None. ``"real"`` is used for
        the median of ``missing="median"``.
    column_types : mapping
        Column → type.
    columns : sequence of str
        Columns the attack uses (all must have a type and exist in every table).
    missing : {"drop", "median", "impute"}
        Policy for missing numerical values.

    Notes
    -----
    Missing values (metrics.md §0, which this module follows instead of Anonymeter's ad-hoc handling):
    categorical and binary columns keep a missing value as a category of its own (two missing values are
    equal); a row with a missing numerical value in a column the attack uses is dropped (``missing="drop"``,
    the default, counts reported in ``details["missing"]`` and a warning), or the value is replaced by the
    real table's median (``missing="median"``; ``"impute"`` is accepted as a synonym).
    """
    column_types = check_column_types(column_types)
    if missing not in ("drop", "median", "impute"):
        raise SchemaError(f"missing must be 'drop' or 'median', got {missing!r}.")
    columns = list(dict.fromkeys(columns))
    untyped = [c for c in columns if c not in column_types]
    if untyped:
        raise SchemaError(f"Column(s) {untyped} have no type in column_types.", column=untyped[0])
    for role, df in tables.items():
        if df is None:
            continue
        absent = [c for c in columns if c not in df.columns]
        if absent:
            raise ColumnMismatchError(
                f"The {role} table lacks column(s) {', '.join(map(repr, absent))} that the attack uses.",
                file=role,
                missing=absent,
            )

    numerical = [c for c in columns if column_types[c] == NUMERICAL]
    warnings: list[str] = []
    dropped: dict[str, int] = {}
    frames: dict[str, pd.DataFrame] = {}
    medians: dict[str, float] = {}
    for role, df in tables.items():
        if df is None:
            continue
        out = df[columns].copy()
        for col in numerical:
            parsed = pd.to_numeric(out[col], errors="coerce")
            bad = parsed.isna() & out[col].notna()
            if bad.any():
                raise SchemaError(
                    f"Column {col!r} of the {role} table is declared numerical but holds non-numeric values "
                    f"such as {out[col][bad].iloc[0]!r}; declare it categorical or fix the values.",
                    file=role,
                    column=col,
                )
            out[col] = parsed.astype("float64")
        frames[role] = out
    if missing in ("median", "impute") and numerical:
        medians = {c: float(frames["real"][c].median()) for c in numerical}
    for role, out in frames.items():
        n_missing = 0
        if numerical:
            has_missing = out[numerical].isna().any(axis=1)
            n_missing = int(has_missing.sum())
            if missing == "drop":
                out = out[~has_missing]
                if n_missing:
                    warnings.append(
                        f"{role}: {n_missing} row(s) with a missing numerical value were left out of the attack."
                    )
            elif n_missing:
                out = out.fillna({c: medians[c] for c in numerical})
                warnings.append(
                    f"{role}: missing numerical values in {n_missing} row(s) were replaced by the real median."
                )
        dropped[role] = n_missing if missing == "drop" else 0
        frames[role] = out

    categories: dict[str, list[Any]] = {}
    missing_code: dict[str, int] = {}
    values: dict[str, dict[str, np.ndarray]] = {role: {} for role in frames}
    for col in columns:
        if column_types[col] == NUMERICAL:
            for role, out in frames.items():
                values[role][col] = out[col].to_numpy(dtype=np.float64)
            continue
        parts = [frames[r][col] for r in frames]
        allv = pd.concat(parts, ignore_index=True).astype(object)
        isna = allv.isna().to_numpy()
        codes = np.empty(len(allv), dtype=np.int64)
        cats_codes, uniques = pd.factorize(allv[~isna], sort=False)
        codes[~isna] = cats_codes
        codes[isna] = len(uniques)
        categories[col] = list(uniques)
        missing_code[col] = len(uniques)
        start = 0
        for role, out in frames.items():
            values[role][col] = codes[start : start + len(out)]
            start += len(out)

    encoded: dict[str, EncodedTable | None] = {}
    for role, df in tables.items():
        if df is None:
            encoded[role] = None
        else:
            encoded[role] = EncodedTable(index=frames[role].index.to_numpy(), values=values[role])
    for role in ("real", "synthetic"):
        if role in encoded and encoded[role] is not None and len(encoded[role]) == 0:
            raise TooFewRowsError(f"The {role} table has no rows left for the attack.", file=role)
    if encoded.get("control") is not None and len(encoded["control"]) == 0:
        raise TooFewRowsError("The control (holdout) table has no rows left for the attack.", file="control")
    return Prepared(
        tables=encoded,
        column_types={c: column_types[c] for c in columns},
        columns=columns,
        categories=categories,
        missing_code=missing_code,
        dropped=dropped,
        warnings=warnings,
    )


def child_rngs(seed: int | None, n: int) -> list[np.random.Generator]:
    """``n`` independent generators derived from one seed.

    Each random step gets its own stream, so changing one step's number of draws never changes another's.
    """
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]


def sample_targets(n_rows: int, n_attacks: int, rng: np.random.Generator) -> np.ndarray:
    """Positions of ``min(n_attacks, n_rows)`` distinct rows drawn uniformly (``DataFrame.sample``)."""
    return rng.choice(n_rows, size=min(int(n_attacks), n_rows), replace=False)


def fewer_rows_than_attacks(prep: Prepared, n_attacks: int) -> list[str]:
    """Warnings for the target tables (real, control) that have fewer rows than ``n_attacks``."""
    return [
        f"The {role} table has {len(table)} rows, fewer than n_attacks = {n_attacks}; all were attacked."
        for role in ("real", "control")
        if (table := prep.tables.get(role)) is not None and len(table) < n_attacks
    ]


def check_n_attacks(n_attacks: int) -> int:
    if not isinstance(n_attacks, (int, np.integer)) or n_attacks < 1:
        raise SchemaError(f"n_attacks must be a positive integer, got {n_attacks!r}.")
    return int(n_attacks)


# ----------------------------------------------------------------------------------------------------
# Gower-type nearest neighbours
# ----------------------------------------------------------------------------------------------------


def gower_matrices(
    prep: Prepared, role: str, columns: Sequence[str], positions: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Numerical (float64, unscaled) and categorical (int64 codes) blocks of a table."""
    table = prep.tables[role]
    num_cols = [c for c in columns if prep.is_numerical(c)]
    cat_cols = [c for c in columns if not prep.is_numerical(c)]
    sl = slice(None) if positions is None else positions
    n = len(table) if positions is None else len(positions)
    num = np.empty((n, len(num_cols)), dtype=np.float64)
    cat = np.empty((n, len(cat_cols)), dtype=np.int64)
    for j, c in enumerate(num_cols):
        num[:, j] = table.values[c][sl]
    for j, c in enumerate(cat_cols):
        cat[:, j] = table.values[c][sl]
    return num, cat


def gower_scaled(q_num: np.ndarray, q_cat: np.ndarray, c_num: np.ndarray, c_cat: np.ndarray):
    """Queries and candidates ready for :func:`gower_block_distances`.

    Numerical columns divided by their range over queries and candidates together (1 for a constant column, as
    Anonymeter's ``preprocessing.transformations``), candidate blocks transposed.
    """
    n = c_num.shape[0]
    if q_num.shape[1]:
        both = np.concatenate([q_num, c_num], axis=0)
        ranges = both.max(axis=0) - both.min(axis=0)
        ranges[~(ranges > 0)] = 1.0
        qn = q_num / ranges
        cn = np.ascontiguousarray((c_num / ranges).T)
    else:
        qn, cn = q_num, np.empty((0, n))
    return qn, q_cat, cn, np.ascontiguousarray(c_cat.T)


def gower_block_distances(scaled, start: int, stop: int, out: np.ndarray, tmp: np.ndarray,
                          neq: np.ndarray) -> None:
    """Gower-type distances of query rows ``[start, stop)`` to every candidate, written into ``out``.

    ``tmp`` and ``neq`` are scratch blocks of the same shape.
    """
    qn, qc, cn, cc = scaled
    out.fill(0.0)
    for j in range(qn.shape[1]):
        np.subtract(qn[start:stop, j, None], cn[j][None, :], out=tmp)
        np.abs(tmp, out=tmp)
        out += tmp
    for j in range(cc.shape[0]):
        np.not_equal(qc[start:stop, j, None], cc[j][None, :], out=neq)
        out += neq


_NO_KEY = np.iinfo(np.int64).max


def nearest_by_key(d: np.ndarray, quantum: float, priority: np.ndarray, m: int, tmp: np.ndarray,
                   member: np.ndarray | None = None) -> np.ndarray:
    """Positions of up to ``m`` candidates per row, nearest first.

    Distances are compared on a grid of ``quantum`` (the tie tolerance) and equal ones in ``priority``
    order (a seeded permutation of the candidates). With ``member``, only candidates marked there count
    and rows with fewer of them are padded with −1.
    """
    n = d.shape[1]
    np.divide(d, quantum, out=tmp)
    np.rint(tmp, out=tmp)
    key = tmp.astype(np.int64)
    key *= n
    key += priority[None, :]
    if member is not None:
        key[~member] = _NO_KEY
    if m < n:
        part = np.argpartition(key, m - 1, axis=1)[:, :m]
    else:
        part = np.broadcast_to(np.arange(n), key.shape).copy()
    part_key = np.take_along_axis(key, part, axis=1)
    order = np.argsort(part_key, axis=1, kind="stable")
    idx = np.take_along_axis(part, order, axis=1)
    if member is not None:
        idx[np.take_along_axis(part_key, order, axis=1) == _NO_KEY] = -1
    return idx


def gower_knn(
    q_num: np.ndarray,
    q_cat: np.ndarray,
    c_num: np.ndarray,
    c_cat: np.ndarray,
    k: int,
    rng: np.random.Generator,
    chunk_elements: int = CHUNK_ELEMENTS,
) -> tuple[np.ndarray, np.ndarray]:
    r"""The ``k`` nearest candidates of every query row in Anonymeter's Gower-type distance.

    .. math::

        d(a, b) = \sum_{j \in \mathrm{num}} \frac{|a_j - b_j|}{r_j} + \sum_{j \in \mathrm{cat}} [a_j \ne b_j]

    where :math:`r_j` is the range (max − min) of numerical column :math:`j` over queries and
    candidates together (1 for a constant column), as in ``anonymeter.preprocessing.transformations``.
    The search is exact and brute force, in chunks of query rows (memory ≈ 16 bytes ×
    ``chunk_elements``).

    Ties: distances are compared after rounding to a grid of 1e-12 × (number of columns), the largest
    possible distance (metrics.md §0 tie tolerance); among equally distant candidates the order is a
    seeded random permutation, so ties are broken at random but reproducibly. (Anonymeter breaks ties
    by the order ``numpy.argsort`` happens to produce.)

    Returns
    -------
    index : numpy.ndarray
        Shape (m, k') with k' = min(k, n candidates): candidate positions, nearest first.
    distance : numpy.ndarray
        Shape (m, k'): their distances.
    """
    m, n = q_num.shape[0], c_num.shape[0]
    p = q_num.shape[1] + q_cat.shape[1]
    k = min(int(k), n)
    if p == 0:
        raise SchemaError("A neighbour search needs at least one column.")
    if n >= 9_000_000:
        raise ValueError("gower_knn supports fewer than 9 million candidate rows.")
    scaled = gower_scaled(q_num, q_cat, c_num, c_cat)
    quantum = 1e-12 * max(p, 1)
    priority = rng.permutation(n).astype(np.int64)

    out_idx = np.empty((m, k), dtype=np.int64)
    out_dist = np.empty((m, k), dtype=np.float64)
    rows = max(1, chunk_elements // max(n, 1))
    for start in range(0, m, rows):
        stop = min(m, start + rows)
        b = stop - start
        d = np.empty((b, n), dtype=np.float64)
        tmp = np.empty((b, n), dtype=np.float64)
        gower_block_distances(scaled, start, stop, d, tmp, np.empty((b, n), dtype=bool))
        idx = nearest_by_key(d, quantum, priority, k, tmp)
        out_idx[start:stop] = idx
        out_dist[start:stop] = np.take_along_axis(d, idx, axis=1)
    return out_idx, out_dist
