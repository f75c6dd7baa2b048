"""Singling-out attack (Anonymeter; Giomi et al. 2023, PoPETs), univariate and multivariate."""

from __future__ import annotations

import time
import warnings as _warnings
from typing import Any, Sequence

import numpy as np
import pandas as pd

from privcore.base import AttackResult, SchemaError
from privcore.metrics.attacks._common import (
    AttackOutcome,
    Prepared,
    check_n_attacks,
    child_rngs,
    make_outcome,
    plain_value,
    prepare_tables,
)

Query = tuple[tuple[int, str, float], ...]  # ((column position, operator, encoded value), ...)

_OPS = {
    "==": np.equal,
    "!=": np.not_equal,
    ">": np.greater,
    "<": np.less,
    ">=": np.greater_equal,
    "<=": np.less_equal,
}
_NUM_OPS = ("==", "!=", ">", "<", ">=", "<=")
_CAT_OPS = ("==", "!=")

DEFAULT_MAX_ATTEMPTS = 200_000
BATCH_SIZE = 1000
FAILED_CACHE = 100_000
#: Largest table of (row, column set) flags :func:`multivariate_queries` keeps to skip pairs it tried: 4 MiB.
PAIR_FLAGS = 2**22


class QueryTable:
    """A table prepared for fast counting of conjunctive predicates.

    Every column is kept sorted, so the size of the row set of any single term (``col op value``)
    is known from two binary searches. A predicate is evaluated by starting from its most selective
    term's rows and filtering them with the other terms.
    """

    def __init__(self, columns: Sequence[np.ndarray]):
        self.values = [np.asarray(v) for v in columns]
        self.n = len(self.values[0]) if self.values else 0
        self.order = [np.argsort(v, kind="stable") for v in self.values]
        self.sorted = [v[o] for v, o in zip(self.values, self.order)]

    def _span(self, j: int, op: str, v: float) -> tuple[int, int, bool]:
        """Slice (lo, hi) of ``sorted[j]`` matching the term; ``True`` if it is the complement."""
        s = self.sorted[j]
        if op == "<":
            return 0, int(np.searchsorted(s, v, "left")), False
        if op == "<=":
            return 0, int(np.searchsorted(s, v, "right")), False
        if op == ">":
            return int(np.searchsorted(s, v, "right")), self.n, False
        if op == ">=":
            return int(np.searchsorted(s, v, "left")), self.n, False
        lo, hi = int(np.searchsorted(s, v, "left")), int(np.searchsorted(s, v, "right"))
        return lo, hi, op == "!="

    def _seed_rows(self, query: Query) -> tuple[int, np.ndarray]:
        """The most selective term (its position in ``query``) and its rows."""
        best, best_size = None, None
        for t, (j, op, v) in enumerate(query):
            lo, hi, comp = self._span(j, op, v)
            size = self.n - (hi - lo) if comp else hi - lo
            if best_size is None or size < best_size:
                best, best_size = (t, j, lo, hi, comp), size
            if size == 0:
                return t, np.empty(0, dtype=np.int64)
        t0, j0, lo, hi, comp = best
        o = self.order[j0]
        return t0, (np.concatenate([o[:lo], o[hi:]]) if comp else o[lo:hi])

    def _filter(self, query: Query, skip: int, idx: np.ndarray) -> np.ndarray:
        for t, (j, op, v) in enumerate(query):
            if t == skip:
                continue
            idx = idx[_OPS[op](self.values[j][idx], v)]
            if idx.size == 0:
                break
        return idx

    def match(self, query: Query) -> np.ndarray:
        """Row positions selected by ``query`` (unordered)."""
        t0, idx = self._seed_rows(query)
        return self._filter(query, t0, idx) if idx.size else idx

    def count(self, query: Query, limit: int | None = None) -> int:
        """Number of rows selected by ``query``; with ``limit``, ``min(count, limit)`` (stops early)."""
        t0, idx = self._seed_rows(query)
        if limit is None or idx.size <= 2048:
            found = int(self._filter(query, t0, idx).size) if idx.size else 0
            return found if limit is None else min(found, limit)
        found, start, block = 0, 0, 256
        while start < idx.size:
            found += int(self._filter(query, t0, idx[start : start + block]).size)
            if found >= limit:
                return limit
            start += block
            block *= 4
        return found


def _query_key(query: Query) -> Query:
    return tuple(sorted(query))


def _render(query: Query, prep: Prepared) -> str:
    parts = []
    for j, op, v in query:
        col = prep.columns[j]
        if not prep.is_numerical(col) and int(v) == prep.missing_code[col]:
            parts.append(f"{col} is missing" if op == "==" else f"{col} is not missing")
        else:
            parts.append(f"{col} {op} {prep.label(col, v)}")
    return " & ".join(parts)


def univariate_queries(
    syn: QueryTable, numerical: Sequence[bool], n_queries: int, rng: np.random.Generator
) -> list[Query]:
    """Anonymeter's univariate predicates from rare values and extremes that single out in ``syn``."""
    queries: list[Query] = []
    for j, v in enumerate(syn.values):
        if numerical[j]:
            queries.append(((j, "<=", float(syn.sorted[j][0])),))
            queries.append(((j, ">=", float(syn.sorted[j][-1])),))
        uniq, counts = np.unique(v, return_counts=True)
        rare = uniq[counts == 1]
        conv = float if numerical[j] else int
        queries.extend(((j, "==", conv(x)),) for x in rare.tolist())
    order = rng.permutation(len(queries))
    found: list[Query] = []
    seen: set = set()
    for i in order:
        q = queries[i]
        key = _query_key(q)
        if key in seen:
            continue
        if syn.count(q, limit=2) == 1:
            seen.add(key)
            found.append(q)
            if len(found) >= n_queries:
                break
    return found


def multivariate_queries(
    syn: QueryTable,
    numerical: Sequence[bool],
    n_queries: int,
    n_cols: int,
    max_attempts: int | None,
    rng: np.random.Generator,
    batch_size: int = BATCH_SIZE,
) -> tuple[list[Query], int]:
    """Anonymeter's multivariate predicates built from random synthetic rows.

    Returns the predicates and the number of rows tried.

    A (row, columns) pair always gives the same predicate, so a pair tried before is skipped without building it
    again: on a small table, whose few pairs the draws repeat until ``max_attempts``, that was nearly all the
    work. The draws, the predicates kept and their order are those of trying every pair.
    """
    p = len(syn.values)
    medians = [float(np.median(v)) if numerical[j] else None for j, v in enumerate(syn.values)]
    found: list[Query] = []
    seen: set = set()
    failed: set = set()  # predicates already found not to single out (small tables repeat them a lot)
    # A pair's key: its row times 2**p plus its columns as bits, flagged once tried, where all the flags fit.
    remember = p < 23 and syn.n << p <= PAIR_FLAGS
    tried = np.zeros(syn.n << p if remember else 0, dtype=bool)
    attempts = 0
    while len(found) < n_queries:
        if max_attempts is not None and attempts >= max_attempts:
            break
        b = batch_size if max_attempts is None else min(batch_size, max_attempts - attempts)
        rows = rng.integers(0, syn.n, size=b)
        cols = np.sort(np.argsort(rng.random((b, p)), axis=1)[:, :n_cols], axis=1)
        if remember:  # the batch's pairs not tried before, each once, in the order drawn
            keys = (rows << p) + (1 << cols).sum(axis=1)
            fresh = np.flatnonzero(~tried[keys])
            fresh = np.sort(fresh[np.unique(keys[fresh], return_index=True)[1]])
            tried[keys[fresh]] = True
            rows, cols = rows[fresh], cols[fresh]
        for r, cs in zip(rows.tolist(), cols.tolist()):
            terms = []
            for j in cs:
                v = syn.values[j][r]
                if numerical[j]:
                    v = float(v)
                    terms.append((j, ">=" if v > medians[j] else "<=", v))
                else:
                    terms.append((j, "==", int(v)))
            q = tuple(terms)
            if q in seen or q in failed:
                continue
            if syn.count(q, limit=2) == 1:
                seen.add(q)
                found.append(q)
                if len(found) >= n_queries:
                    break
            elif len(failed) < FAILED_CACHE:
                failed.add(q)
        attempts += b
    return found, attempts


def random_queries(
    syn: QueryTable, numerical: Sequence[bool], n_queries: int, n_cols: int, rng: np.random.Generator
) -> list[Query]:
    """The baseline attacker's random predicates (Anonymeter's ``_random_queries``)."""
    p = len(syn.values)
    uniques = [np.unique(v) for v in syn.values]
    cols = np.sort(np.argsort(rng.random((n_queries, p)), axis=1)[:, :n_cols], axis=1)
    out: list[Query] = []
    for cs in cols.tolist():
        terms = []
        for j in cs:
            val = uniques[j][rng.integers(0, uniques[j].size)]
            if numerical[j]:
                terms.append((j, _NUM_OPS[rng.integers(0, len(_NUM_OPS))], float(val)))
            else:
                terms.append((j, _CAT_OPS[rng.integers(0, len(_CAT_OPS))], int(val)))
        out.append(tuple(terms))
    return out


def singling_out_probability_integral(n, w_min: float, w_max: float):
    r"""Integral of the singling-out probability :math:`P(w, n) = n w (1-w)^{n-1}`, in closed form.

    Over :math:`w \in [w_{min}, w_{max}]` (Cohen & Nissim 2020).

    .. math:: \frac{(n w_{min} + 1)(1 - w_{min})^n - (n w_{max} + 1)(1 - w_{max})^n}{n + 1}
    """
    if not 0 <= w_min <= 1:
        raise ValueError(f"w_min must be between 0 and 1, got {w_min}.")
    if not w_min <= w_max <= 1:
        raise ValueError(f"w_max must be between w_min ({w_min}) and 1, got {w_max}.")
    return ((n * w_min + 1) * (1 - w_min) ** n - (n * w_max + 1) * (1 - w_max) ** n) / (n + 1)


def _model(x, w_eff, norm):
    return norm * singling_out_probability_integral(n=x, w_min=0, w_max=w_eff)


def control_size_correction(
    control: QueryTable, matches: list[np.ndarray], n_real: int, rng: np.random.Generator
) -> tuple[float | None, str | None]:
    """Factor ``f(n_real) / f(n_control)`` for the control successes (see :func:`singling_out`).

    Returns ``(factor, None)`` or ``(None, reason)`` when the model cannot be fitted.
    """
    n_c = control.n
    # Anonymeter starts the grid at min(1000, n_c): a single size (nothing to fit) when n_c <= 1000.
    lowest = 1000 if n_c > 1000 else max(1, n_c // 10)
    sizes_grid = np.linspace(lowest, n_c, 10).astype(int)
    if np.unique(sizes_grid).size < 2:
        return None, (
            f"the holdout has only {n_c} distinct rows, too few to model how singling out depends on table "
            "size, so its success count was not corrected for the size difference to the real table"
        )
    lengths = np.array([m.size for m in matches])
    owner = np.repeat(np.arange(len(matches)), lengths)
    flat = np.concatenate(matches) if matches else np.empty(0, dtype=np.int64)
    sizes, successes = [], []
    for n_rows in sizes_grid.tolist():
        for _ in range(5):
            mask = np.zeros(n_c, dtype=bool)
            mask[rng.choice(n_c, size=n_rows, replace=False)] = True
            counts = np.bincount(owner, weights=mask[flat], minlength=len(matches))
            successes.append(int(np.sum(counts == 1)))
            sizes.append(n_rows)
    sizes_arr, succ_arr = np.array(sizes, dtype=float), np.array(successes, dtype=float)
    w0 = 1 / np.max(sizes_arr)
    norm0 = 1 / singling_out_probability_integral(n=np.max(sizes_arr), w_min=0, w_max=w0)
    # Imported here: scipy.optimize costs about 0.25 s at start-up and only this size correction needs it.
    from scipy.optimize import OptimizeWarning, curve_fit

    try:
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore", OptimizeWarning)
            _warnings.simplefilter("ignore", RuntimeWarning)
            popt, _ = curve_fit(_model, xdata=sizes_arr, ydata=succ_arr, bounds=(0, (1, np.inf)), p0=(w0, norm0))
        denom = _model(float(n_c), *popt)
        factor = _model(float(n_real), *popt) / denom
    except (RuntimeError, ValueError, FloatingPointError, ZeroDivisionError) as exc:
        return None, f"the size correction of the holdout's success count could not be fitted ({exc})"
    if not np.isfinite(factor) or factor < 0:
        return None, "the size correction of the holdout's success count could not be fitted"
    return float(factor), None


def singling_out(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame | None = None,
    *,
    column_types: dict[str, str],
    mode: str = "multivariate",
    columns: Sequence[str] | None = None,
    n_attacks: int = 500,
    n_cols: int = 3,
    max_attempts: int | None = DEFAULT_MAX_ATTEMPTS,
    missing: str = "drop",
    seed: int | None = 0,
    confidence: float = 0.95,
) -> AttackOutcome:
    """Run the singling-out attack (see Notes for the algorithm).

    Parameters
    ----------
    real, synthetic : DataFrame
        Training records and synthetic records.
    control : DataFrame, optional
        Holdout records (not used for training); without it there is no residual risk.
    column_types : dict
        Column → ``"numerical"``, ``"categorical"`` or ``"binary"``.
    mode : {"multivariate", "univariate"}
    columns : sequence of str, optional
        Columns the attacker may use (default: every column of ``column_types``).
    n_attacks : int, default 500
        Number of predicates to generate (fewer if the synthetic data do not allow it).
    n_cols : int, default 3
        Terms per multivariate predicate (capped at the number of columns, with a warning).
    max_attempts : int or None, default 200,000
        Cap on synthetic rows tried by the multivariate generator (None: no cap).
    missing : {"drop", "median"}
        Missing numerical values (metrics.md §0).
    seed : int, default 0
    confidence : float, default 0.95

    Returns
    -------
    AttackOutcome
        ``details`` holds ``queries`` (text, success on real and control, the singled-out real row's
        index label), ``baseline_queries``, the counts of predicates requested and generated, the
        number of attempts, the control size correction, row counts after de-duplication and missing
        rows dropped.

    Notes
    -----
    The attacker holds only the synthetic table. From it they write predicates ("queries") such as
    ``age >= 90 & occupation == 'Armed-Forces'`` that select exactly one synthetic record, and claim that
    the predicate also selects exactly one real person. The main attack counts how many such predicates do
    single out one record of the real training table; the control attack counts the same on the holdout;
    the baseline attacker writes predicates at random (random columns, random values seen in the synthetic
    table, random operators) without checking them on the synthetic data.

    Algorithm (following ``anonymeter.evaluators.singling_out_evaluator``):

    * Real, synthetic and control tables are de-duplicated first (identical rows count once).
    * **Univariate** predicates, from the synthetic table: for every numerical column ``col <= min`` and
      ``col >= max``; for every column ``col == v`` for each value ``v`` that occurs in exactly one synthetic
      row (missing counts as a value). They are shuffled (seeded) and kept, in that order, if they select
      exactly one synthetic row, until ``n_attacks`` distinct predicates are found.
    * **Multivariate** predicates: repeatedly draw a random synthetic row and ``n_cols`` random columns; a
      categorical/binary value gives ``col == value``, a numerical one ``col >= value`` if it is above the
      synthetic median of the column, else ``col <= value``. A predicate is kept if it selects exactly one
      synthetic row and was not kept before, until ``n_attacks`` are found or ``max_attempts`` rows were tried.
    * **Baseline**: ``n_attacks`` random predicates, over ``1`` (univariate) or ``n_cols``
      (multivariate) random columns; each term takes a value drawn uniformly from the distinct synthetic
      values of the column and a random operator (``== != > < >= <=`` for numerical, ``== !=`` otherwise).
    * A predicate succeeds on a table if it selects exactly one of its rows. Every rate (main, control,
      baseline) is the number of successes out of ``n_attacks``, as in Anonymeter: a predicate that could not
      be built counts as a failed attack (a warning says how many were built).
    * **Control size correction**: when the de-duplicated control and real tables differ in size, the
      control successes are rescaled by ``f(|real|)/f(|control|)``, where
      ``f(n) = A·∫₀^w n·v·(1−v)^(n−1) dv`` (Cohen & Nissim 2020) is fitted to the control successes of
      random sub-samples of the control table (10 sizes from 1000 to |control|, 5 repeats each).

    Deviations from Anonymeter, all documented in the outcome's ``params``/``warnings``:

    * every random step is seeded (Anonymeter's baseline value draw ignores the seed);
    * missing numerical values follow metrics.md §0 (dropped by default) instead of ``isna()`` predicates;
    * ``max_attempts`` defaults to 200,000 (Anonymeter: 10,000,000) so the dashboard never hangs;
    * the size-corrected control count is clipped to ``[0, n]``; if the correction cannot be fitted (fewer
      than two distinct sub-sample sizes, or the fit fails) no correction is applied and a warning says so;
    * for a holdout of at most 1,000 distinct rows the sub-sample sizes start at a tenth of it (Anonymeter
      starts at min(1000, |control|), which leaves one size and nothing to fit);
    * the multivariate generator and the success checks stop counting a predicate's rows at two (only
      "exactly one" matters), which is exact and much faster than Anonymeter's full counts;
    * if no predicate can be built, the outcome has risk 0 by construction and a warning (Anonymeter fails).

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"city": ["a", "a", "b", "c"], "sex": ["f", "m", "f", "m"]})
    >>> types = {"city": "categorical", "sex": "binary"}
    >>> out = singling_out(real, real, column_types=types, mode="univariate", n_attacks=2, confidence=0)
    >>> out.main.value, sorted(q["query"] for q in out.details["queries"])
    (1.0, ["city == 'b'", "city == 'c'"])
    >>> singling_out(real, real, column_types=types, mode="univariate", confidence=0).main.value  # 2 of 500
    0.004
    """
    started = time.perf_counter()
    if mode not in ("univariate", "multivariate"):
        raise SchemaError(f"mode must be 'univariate' or 'multivariate', got {mode!r}.")
    n_attacks = check_n_attacks(n_attacks)
    columns = list(column_types) if columns is None else list(columns)
    if not columns:
        raise SchemaError("The singling-out attack needs at least one column.")
    prep = prepare_tables({"real": real, "synthetic": synthetic, "control": control}, column_types, columns, missing)
    warns = list(prep.warnings)
    numerical = [prep.is_numerical(c) for c in prep.columns]
    rng_queries, rng_baseline, rng_correction = child_rngs(seed, 3)

    if mode == "multivariate" and (not isinstance(n_cols, (int, np.integer)) or n_cols < 1):
        raise SchemaError(f"n_cols must be a positive integer, got {n_cols!r}.")
    used_cols = 1 if mode == "univariate" else min(int(n_cols), len(prep.columns))
    if mode == "multivariate" and used_cols < n_cols:
        warns.append(f"n_cols = {n_cols} is more than the {len(prep.columns)} columns available; used {used_cols}.")

    tabs = {r: t.deduplicated(prep.columns) for r, t in prep.tables.items() if t is not None}
    qt = {r: QueryTable([t.values[c] for c in prep.columns]) for r, t in tabs.items()}

    attempts = None
    if mode == "univariate":
        queries = univariate_queries(qt["synthetic"], numerical, n_attacks, rng_queries)
    else:
        queries, attempts = multivariate_queries(
            qt["synthetic"], numerical, n_attacks, used_cols, max_attempts, rng_queries
        )
    n_q = len(queries)
    if n_q < n_attacks:
        warns.append(
            f"Only {n_q} of the {n_attacks} requested singling-out predicates could be built from the synthetic "
            "data" + (f" in {attempts} attempts" if attempts is not None else "") + "; the rates are out of "
            f"{n_attacks} attacks (a predicate that could not be built counts as a failed attack, as in "
            "Anonymeter), so the risk may be underestimated."
        )

    params: dict[str, Any] = {
        "mode": mode,
        "n_attacks": n_attacks,
        "n_cols": used_cols,
        "max_attempts": max_attempts,
        "columns": list(prep.columns),
        "missing": missing,
        "seed": seed,
        "confidence": confidence,
    }
    details: dict[str, Any] = {
        "n_queries_requested": n_attacks,
        "n_queries_generated": n_q,
        "n_attempts": attempts,
        "rows_after_deduplication": {r: len(t) for r, t in tabs.items()},
        "missing": dict(prep.dropped),
    }
    attack_id = f"singling_out_{mode}"

    if n_q == 0:
        warns.append(
            "No singling-out predicate could be built from the synthetic data, so the attacker made no claim: "
            "the risk is 0 by construction, not an estimate."
        )
        details.update(queries=[], baseline_queries=[], control_correction=None)
        return make_outcome(attack_id, None, warnings=warns, details=details, params=params,
                            started=started, confidence=confidence, has_control=control is not None)

    real_success = np.array([qt["real"].count(q, limit=2) == 1 for q in queries])
    n_main = int(real_success.sum())

    # Anonymeter's baseline writes n_attacks random predicates, however many the main attack found.
    base_q = random_queries(qt["synthetic"], numerical, n_attacks, used_cols, rng_baseline)
    base_success = np.array([qt["real"].count(q, limit=2) == 1 for q in base_q])
    n_base = int(base_success.sum())

    n_control = None
    control_success = None
    correction = None
    if "control" in qt:
        ctrl_matches = [qt["control"].match(q) for q in queries]
        control_success = np.array([m.size == 1 for m in ctrl_matches])
        n_control = int(control_success.sum())
        n_real_rows, n_ctrl_rows = qt["real"].n, qt["control"].n
        if n_ctrl_rows != n_real_rows and n_control > 0:
            correction, reason = control_size_correction(qt["control"], ctrl_matches, n_real_rows, rng_correction)
            if correction is None:
                warns.append(reason[0].upper() + reason[1:] + ".")
            else:
                corrected = n_control * correction
                if corrected > n_q:
                    warns.append(
                        f"The size-corrected holdout success count ({corrected:.1f}) exceeded the number of "
                        f"attacks and was capped at {n_q}."
                    )
                n_control = float(min(max(corrected, 0.0), n_q))

    real_index = tabs["real"].index
    details["queries"] = [
        {
            "query": _render(q, prep),
            "real_success": bool(real_success[i]),
            "control_success": None if control_success is None else bool(control_success[i]),
            "real_row": plain_value(real_index[qt["real"].match(q)[0]]) if real_success[i] else None,
        }
        for i, q in enumerate(queries)
    ]
    details["baseline_queries"] = [
        {"query": _render(q, prep), "real_success": bool(base_success[i])} for i, q in enumerate(base_q)
    ]
    details["control_correction"] = correction
    # Every rate is out of the n_attacks requested (Anonymeter's EvaluationResults(n_attacks=...)): out of
    # the n_q predicates found instead, a coarse table that yields a few dozen predicates, nearly all of which
    # single out on the training table and on the holdout alike, puts both rates near 1, where a difference of
    # one predicate makes a residual risk of 0.2-0.4 for a fresh sample.
    result = AttackResult(
        n_main=n_main,
        n_main_total=n_attacks,
        n_baseline=n_base,
        n_baseline_total=n_attacks,
        n_control=n_control,
        n_control_total=None if n_control is None else n_attacks,
        confidence=confidence,
    )
    return make_outcome(attack_id, result, warnings=warns, details=details, params=params, started=started)


def singling_out_univariate(real, synthetic, control=None, **kwargs) -> AttackOutcome:
    """:func:`singling_out` with ``mode="univariate"``."""
    return singling_out(real, synthetic, control, mode="univariate", **kwargs)


def singling_out_multivariate(real, synthetic, control=None, **kwargs) -> AttackOutcome:
    """:func:`singling_out` with ``mode="multivariate"``."""
    return singling_out(real, synthetic, control, mode="multivariate", **kwargs)
