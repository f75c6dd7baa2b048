"""Tables of random shapes (issue 56 item 6): the quick preset never stops on an internal error, every column said.

Hypothesis draws the tables people bring: numbers, codes of 1 to 5,000 categories, binary flags, dates in several
formats, names, free text; 1 to 150 columns; 0 to 50 % missing; unicode; constant and all-missing columns;
duplicated rows; with and without a holdout. Each is inferred and evaluated as a new user would (``infer_schema``,
the quick preset, median imputation so that rows with gaps stay); nothing may fail inside a metric, and the report
must list every uploaded column as analysed, checked or left out with a reason.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, event, example, given, settings
from hypothesis import strategies as st

from privcore import evaluate
from privcore.base import InputError
from privcore.data import infer_schema

KINDS = ("number", "integer", "code", "flag", "date", "datetime", "name", "text", "constant", "empty", "unicode")
UNICODE = ["Zürich", "São Paulo", "Łódź", "東京", "Αθήνα", "Москва", "İzmir", "😀 café"]


def column(kind: str, n: int, cardinality: int, rng: np.random.Generator) -> pd.Series:
    """``n`` values of one kind of column, drawn from a population (the same for every table of a draw)."""
    if kind == "number":
        return pd.Series(rng.normal(50, 12, n).round(2))
    if kind == "integer":
        return pd.Series(rng.integers(0, 10_000, n))
    if kind == "code":
        return pd.Series(rng.integers(0, cardinality, n)).map(lambda c: f"C{c:04d}")
    if kind == "flag":
        return pd.Series(rng.choice(["yes", "no"], n))
    if kind in ("date", "datetime"):
        stamps = pd.Timestamp("1960-01-01") + pd.to_timedelta(rng.integers(0, 20_000, n), unit="D")
        return pd.Series(stamps.strftime("%d/%m/%Y")) if kind == "date" else pd.Series(stamps)
    if kind == "name":
        return pd.Series([f"Name{c}" for c in rng.integers(0, max(cardinality, 30), n)])
    if kind == "text":
        return pd.Series([f"visit {c} noted a cough and a slight fever" for c in rng.integers(0, 10**6, n)])
    if kind == "constant":
        return pd.Series(["same"] * n)
    if kind == "empty":
        return pd.Series([None] * n, dtype=object)
    return pd.Series(rng.choice(UNICODE, n))


@st.composite
def shapes(draw):
    n_columns = draw(st.integers(1, 150))
    rows = draw(st.integers(20, max(20, min(300, 6_000 // n_columns))))
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=n_columns, max_size=n_columns))
    cardinality = draw(st.sampled_from([1, 2, 4, 40, 300, 5_000]))
    missing = draw(st.sampled_from([0.0, 0.05, 0.5]))
    duplicated = draw(st.booleans())
    holdout = draw(st.booleans())
    seed = draw(st.integers(0, 2**16))
    return n_columns, rows, kinds, cardinality, missing, duplicated, holdout, seed


def table(shape, part: int) -> pd.DataFrame:
    _, rows, kinds, cardinality, missing, duplicated, _, seed = shape
    rng = np.random.default_rng([seed, part])
    frame = pd.DataFrame({f"{kind}_{j}": column(kind, rows, cardinality, rng) for j, kind in enumerate(kinds)})
    if missing:
        for col in frame.columns:
            gaps = rng.random(rows) < missing
            gaps[0] = False  # every column keeps a value in some row, unless it is empty by design
            frame[col] = frame[col].astype(object).where(~gaps, None)
    if duplicated:
        frame = pd.concat([frame, frame.iloc[: rows // 3]], ignore_index=True)
    return frame


@pytest.mark.slow
@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(shapes())
# Besides the drawn shapes, always: a code of 5,000 values before other columns, with a holdout, and a wide table of
# names, dates and codes of 300 values (the shapes of issue 56's failures).
@example((4, 300, ["code", "number", "flag", "date"], 5_000, 0.05, True, True, 1))
@example((120, 50, ["code", "name", "date", "number"] * 30, 300, 0.0, False, True, 2))
def test_random_real_tables_run_the_quick_preset_and_say_every_column(shape):
    check_the_quick_preset_on(shape)


# The quick tier: the wide table above only, every run (no drawing); the 5,000-value code's overflow is
# tests/evaluation/test_real_tables.py's regression test.
@settings(phases=[Phase.explicit], deadline=None)
@given(shapes())
@example((120, 50, ["code", "name", "date", "number"] * 30, 300, 0.0, False, True, 2))
def test_a_wide_table_of_names_dates_and_codes_runs_the_quick_preset(shape):
    check_the_quick_preset_on(shape)


def check_the_quick_preset_on(shape):
    real, synthetic = table(shape, 0), table(shape, 1)
    holdout = table(shape, 2) if shape[6] else None
    n_columns, rows, kinds, cardinality, missing, duplicated, with_holdout, _ = shape
    event(f"{n_columns} columns x {len(real)} rows; kinds {','.join(sorted(set(kinds)))}; {cardinality} categories; "
          f"{missing:.0%} missing; {'duplicated rows; ' if duplicated else ''}"
          f"{'with' if with_holdout else 'no'} holdout")  # --hypothesis-show-statistics lists the shapes run
    schema = infer_schema(real, missing="impute")
    params = {"mia_best": {"n_boot": 20}} if holdout is not None else None
    if not schema.types:  # only names, text or empty columns: nothing to compare people by, and it says so
        with pytest.raises(InputError, match="No column is (analysed|selected)"):
            evaluate(real, synthetic, schema, metrics="quick", holdout=holdout, params=params)
        return
    report = evaluate(real, synthetic, schema, metrics="quick", holdout=holdout, params=params)
    failed = {k: r.reason for k, r in report.items() if r.failed}
    assert not failed and not report.errors, (failed, report.errors[:1])
    said = [entry.column for entry in report.columns]
    assert said == list(real.columns)
    for entry in report.columns:
        assert entry.status in ("analysed", "checked", "left out")
        assert entry.status != "left out" or entry.reason
        if entry.column.startswith("empty"):
            assert entry.status == "left out" and "no values" in entry.reason
        if entry.column.startswith(("name", "text")) and entry.status == "checked":
            assert entry.kind in ("identifier", "text")
