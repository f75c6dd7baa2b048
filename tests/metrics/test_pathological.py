"""Every metric on hypothesis-generated pathological tables (issue 11, "What to build" 1).

Small real / synthetic / holdout tables (1–30 rows, 1–5 columns) mix numerical, integer-coded,
categorical and binary columns with the pathologies users upload: NaN patterns (scattered cells,
all-missing rows, a missing value in every row, an all-missing column or table), ±inf, 1e308 and other
extreme, subnormal or adjacent-double magnitudes, numbers stored as text, constant columns, one row,
all-unique categoricals, a single category, Unicode, emoji, right-to-left text and HTML in column names,
values and file names, an integer column label, integer codes, mixed-type categories (``1``, ``"1"``,
``1.0``, ``True``), the missing-value sentinel itself as a value, duplicate rows, synthetic tables that
copy or repeat real rows, a holdout that is absent, fresh or a copy of another table, with or without a
sensitive column, a key and row pairing, under both missing-value policies and with a declared or
inferred schema.

For each case ``privcore.evaluate(..., strict=False)`` must either refuse the input with an
:class:`~privcore.base.errors.InputError` written for a person (non-empty, a privcore error class, no raw
numpy/pandas wording), or return a report with no internal error in any metric, every applicable
metric's risk, baseline and interval finite and in [0, 1], whose ``to_json()`` is strict JSON that
validates against :func:`privcore.report.json_schema.report_schema`.

The sweep is derandomized (the same cases on every run); the classifier metrics (``uses_classifier``:
DMLP, MIR) train models and run in a second, smaller sweep. Each sweep reports how many cases it
generated and what became of them (:func:`_run`: stdout, the JUnit properties and
``test-artifacts/pathological_sweep_<name>.json``).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

import privcore
from privcore.base.errors import InputError
from privcore.data.prepare import MISSING
from privcore.data.schema import MAX_SEED, Schema, infer_schema
from privcore.metrics import registry
from privcore.report.json_schema import report_schema

CLASSIFIER_IDS = [m.id for m in registry.all_metrics() if m.uses_classifier]
FAST_IDS = [m for m in registry.metric_ids() if m not in CLASSIFIER_IDS]

MAIN_EXAMPLES = 300
CLASSIFIER_EXAMPLES = 80

#: Case counts per sweep and outcome, reported by :func:`_run`.
COUNTS: dict[str, Counter] = {"main": Counter(), "classifier": Counter(), "main-quick": Counter(),
                              "classifier-quick": Counter()}
#: The quick tier's share of each sweep (the first drawn cases of the same derandomised run).
QUICK_MAIN_EXAMPLES, QUICK_CLASSIFIER_EXAMPLES = 20, 6

VALIDATOR = jsonschema.Draft202012Validator(report_schema())

NAMES = [
    "age", "x", "<script>alert(1)</script>", "&amp;", "a&b<c>", "名前", "😀", "👩‍👩‍👧", "עמודה", "عمود",
    "\u202eevil", "Ünïcödé", "a b", "0", "1",
    0,  # an integer label, as pd.read_csv(header=None) or pd.DataFrame(array) give: refused, never a crash
    "", " ", "(missing)", "nan", "None", "col\nnewline", "\"quoted\"", "Σ",
]

TEXT_VALUES = [
    "<script>alert(1)</script>", "&amp;", "&lt;b&gt;", "<b>bold</b>", "😀", "👩‍👩‍👧", "שלום", "مرحبا",
    "\u202eevil\u202c", "Ünïcödé", "ß", "", " ", "\t", "a\nb", "\x00", MISSING, "nan", "NaN", "None", "NULL",
    "inf", "-inf", "1e308", "0", "1", "1.0", "true", "x", "y", "z",
]

NORMAL_FLOATS = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
SPECIAL_FLOATS = st.sampled_from([0.0, -0.0, 1.0, 1.0000000000000002, 1e-300, 5e-324, -5e-324, 1e99, -1e99, 1e100,
                                  -1e100, 123456789.123])
EXTREME_FLOATS = st.sampled_from([np.inf, -np.inf, 1e308, -1e308, 1.7976931348623157e308, 1e101])
SCALES = {
    "subnormal": [0.0, 5e-324, -5e-324, 1e-320, 2.5e-310],
    "adjacent": [1.0, 1.0000000000000002, 0.9999999999999999],
    "huge": [1e100, -1e100, 9.999999999999999e99, 1e99, 0.0],
    "wide": [1e100, 1e-100, -1e-300, 1.0],
}
NUMBER_TEXTS = ["inf", "-Infinity", "1e308", "1e309", "-1e101", "5e-324", " 2 ", "1_000", "0x10", "3", "-0", "1e100"]
MIXED_CATEGORIES = st.sampled_from([1, "1", 1.0, True, 0, False, 2.5, -7, 10**12, np.inf, 1e308, "1e308"])

#: Fragments of numpy / pandas / Python messages that must never reach a user as an InputError.
RAW_MESSAGE = re.compile(
    r"array must not contain|could not convert|invalid value encountered|Input contains|operands could not"
    r"|broadcast|ufunc|dtype|not supported between|unsupported operand|object of type|has no attribute"
    r"|index \d+ is out of bounds|out of bounds|KeyError|Traceback|numpy|pandas|NoneType|float64|int64"
    r"|zero-size array|division by zero|Length of values|Columns must be same length",
)


@st.composite
def column(draw):
    """One column: its declared type and a pool of values the tables draw their cells from."""
    kind = draw(st.sampled_from(["numerical", "numerical", "scale", "codes", "constant", "extreme", "categorical",
                                 "categorical", "unique", "single", "binary", "mixed", "text_numbers"]))
    if kind == "numerical":
        pool = draw(st.lists(st.one_of(NORMAL_FLOATS, SPECIAL_FLOATS), min_size=2, max_size=8))
        return "numerical", pool, False
    if kind == "scale":  # finite but awkward spreads: subnormal, adjacent doubles, near the magnitude limit
        pool = draw(st.lists(st.sampled_from(SCALES[draw(st.sampled_from(sorted(SCALES)))]), min_size=1, max_size=5))
        return "numerical", pool, False
    if kind == "codes":  # integer codes: declared numerical (quantities) or categorical
        pool = draw(st.lists(st.integers(-3, 12), min_size=2, max_size=6, unique=True))
        return draw(st.sampled_from(["numerical", "categorical"])), pool, False
    if kind == "constant":
        value = draw(st.one_of(NORMAL_FLOATS, SPECIAL_FLOATS, st.sampled_from(TEXT_VALUES)))
        return ("categorical" if isinstance(value, str) else "numerical"), [value], False
    if kind == "extreme":  # ±inf / 1e308 among ordinary numbers; declared categorical they are just labels
        pool = draw(st.lists(NORMAL_FLOATS, min_size=0, max_size=4)) + [draw(EXTREME_FLOATS)]
        return draw(st.sampled_from(["numerical", "categorical"])), pool, False
    if kind == "categorical":
        pool = draw(st.lists(st.one_of(st.sampled_from(TEXT_VALUES), st.text(max_size=6)), min_size=2, max_size=6,
                             unique=True))
        return "categorical", pool, False
    if kind == "unique":  # a distinct category in every row
        prefix = draw(st.sampled_from(["id", "<i>", "😀", "ש", "&amp;", ""]))
        return "categorical", [f"{prefix}{i}" for i in range(100)], True
    if kind == "single":
        return draw(st.sampled_from(["categorical", "binary"])), [draw(st.sampled_from(TEXT_VALUES))], False
    if kind == "binary":
        pool = draw(st.sampled_from([[0, 1], ["yes", "no"], [True, False], ["<b>", "&amp;"], [1.0, 2.0], ["😀", "ש"],
                                     [1, "1"], [MISSING, "x"]]))
        return "binary", list(pool), False
    if kind == "text_numbers":  # numbers stored as text, as an object column read without conversion
        pool = draw(st.lists(st.one_of(NORMAL_FLOATS.map(repr), st.sampled_from(NUMBER_TEXTS)), min_size=2, max_size=5))
        return "numerical", pool, False
    pool = draw(st.lists(MIXED_CATEGORIES, min_size=1, max_size=5))
    return "categorical", pool, False


def _fill(rng, pool, unique, n):
    """``n`` cells from ``pool`` (distinct ones for an all-unique column)."""
    if unique:
        picks = rng.permutation(len(pool))[:n] if n <= len(pool) else rng.integers(0, len(pool), n)
    else:
        picks = rng.integers(0, len(pool), n)
    out = np.empty(n, dtype=object)
    out[:] = [pool[i] for i in picks]
    return out


def _as_column(values: np.ndarray) -> pd.Series:
    """Cells as a column with the dtype a loader would give (float for numbers with gaps, object for text)."""
    series = pd.Series(values, dtype=object)
    return series.infer_objects()


def _with_missing(rng, df: pd.DataFrame, pattern: str) -> pd.DataFrame:
    if pattern == "none" or df.empty:
        return df
    df = df.astype(object).copy()
    n, m = df.shape
    if pattern == "cells":
        mask = rng.random((n, m)) < 0.1
    elif pattern == "rows":  # whole rows missing
        mask = np.zeros((n, m), dtype=bool)
        mask[rng.integers(0, n, max(1, n // 4))] = True
    elif pattern == "every_row":  # one gap in every row: nothing left under the drop policy
        mask = np.zeros((n, m), dtype=bool)
        mask[np.arange(n), rng.integers(0, m, n)] = True
    elif pattern == "column":
        mask = np.zeros((n, m), dtype=bool)
        mask[:, rng.integers(0, m)] = True
    else:  # "all"
        mask = np.ones((n, m), dtype=bool)
    df = df.mask(pd.DataFrame(mask, index=df.index, columns=df.columns))
    return df.apply(lambda s: s.infer_objects())


@st.composite
def cases(draw, min_rows: int = 1):
    """A (real, synthetic, holdout, schema, file names) case; the schema is declared or inferred from the
    real table.

    ``min_rows`` > 1 keeps the tables at least that long (before missing values are dropped), for
    metrics that need more rows than pathological tables usually have.
    """
    n_cols = draw(st.integers(1, 5))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=n_cols, max_size=n_cols, unique=True))
    columns = [draw(column()) for _ in names]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_real = draw(st.sampled_from([*range(max(3, min_rows), 31)] * 3 + [n for n in (1, 2) if n >= min_rows] * 2))

    def table(n):
        return pd.DataFrame({name: _as_column(_fill(rng, pool, unique, n)) for name, (_, pool, unique)
                             in zip(names, columns)})

    real = table(n_real)
    mode = draw(st.sampled_from(["independent", "independent", "copy", "perturbed", "subset", "duplicates"]))
    if mode == "copy":  # the generator memorised the real table
        synthetic = real.copy()
    elif mode == "perturbed":
        synthetic = real.astype(object)
        fresh = table(len(real)).astype(object)
        swap = rng.random(len(real)) < 0.5
        synthetic.loc[swap] = fresh.loc[swap]
        synthetic = synthetic.apply(lambda s: s.infer_objects())
    elif mode == "subset":
        synthetic = real.sample(n=max(min_rows, len(real) // 2), random_state=0).reset_index(drop=True)
    elif mode == "duplicates":  # one real row repeated many times
        synthetic = real.iloc[[0] * draw(st.integers(min_rows, 30))].reset_index(drop=True)
    else:
        synthetic = table(draw(st.integers(min_rows, 30)))
    if draw(st.booleans()):  # duplicate rows in the real table too
        real = pd.concat([real, real.iloc[: max(1, len(real) // 3)]], ignore_index=True)
    # No holdout, a fresh one, or one that copies the real or the synthetic table.
    holdout = draw(st.sampled_from(["none", "none", "none", "fresh", "fresh", "real", "synthetic"]))
    if holdout == "fresh":
        holdout = table(draw(st.integers(min_rows, 30)))
    else:
        holdout = {"none": None, "real": real.copy(), "synthetic": synthetic.copy()}[holdout]

    real = _with_missing(rng, real, draw(st.sampled_from(["none"] * 6 + ["cells"] * 2 + ["rows"] * 2
                                                         + ["every_row", "column", "all"])))
    synthetic = _with_missing(rng, synthetic, draw(st.sampled_from(["none"] * 7 + ["cells", "rows", "column"])))
    if holdout is not None:
        holdout = _with_missing(rng, holdout, draw(st.sampled_from(["none", "none", "cells", "rows"])))
    if draw(st.booleans()):  # columns in another order
        synthetic = synthetic[list(reversed(names))]

    # A single column cannot be both key and sensitive (a SchemaError): try that now and then only.
    sensitive = None
    if len(names) > 1 or draw(st.integers(0, 5)) == 5:
        sensitive = draw(st.one_of(st.none(), st.sampled_from(names), st.sampled_from(names)))
    missing = draw(st.sampled_from(["drop", "impute"]))
    seed = draw(st.sampled_from([0, 1, 12345, MAX_SEED]))
    pairing = None
    if draw(st.integers(0, 2)) == 0:  # synthetic row i was generated from real row i
        pairing = "row"
        synthetic = synthetic.iloc[np.arange(len(real)) % len(synthetic)].reset_index(drop=True)
    if draw(st.booleans()):
        schema = infer_schema(real, sensitive=sensitive, missing=missing, seed=seed, pairing=pairing)
    else:
        key = None
        others = [c for c in names if c != sensitive]
        if others and draw(st.booleans()):
            key = draw(st.lists(st.sampled_from(others), min_size=1, max_size=len(others), unique=True))
        schema = Schema({name: kind for name, (kind, _, _) in zip(names, columns)}, key=key, sensitive=sensitive,
                        pairing=pairing, missing=missing, seed=seed)
    event(f"holdout={'yes' if holdout is not None else 'no'}, sensitive={'yes' if sensitive else 'no'}")
    file_names = draw(st.sampled_from([None, {"real": "<b>real</b>.csv", "synthetic": "😀 synth ש.csv",
                                              "holdout": "&amp;.parquet"}]))
    return real, synthetic, holdout, schema, file_names


def _check_input_error(exc: InputError) -> None:
    message = str(exc)
    assert message.strip(), f"{type(exc).__name__} with an empty message"
    assert type(exc).__module__ == "privcore.base.errors", f"not a privcore error class: {type(exc)!r}: {message}"
    assert not RAW_MESSAGE.search(message), f"raw numpy/pandas wording in an InputError: {message!r}"


def _in_unit(value) -> bool:
    return value is not None and math.isfinite(float(value)) and 0.0 <= float(value) <= 1.0


def _check_report(report) -> None:
    assert not report.errors, "internal error(s):\n" + "\n".join(report.errors)
    for metric_id, result in report.items():
        if not result.applicable:
            assert isinstance(result.reason, str) and result.reason.strip(), f"{metric_id}: no reason given"
            continue
        if result.scale == "utility":  # a utility measure: no risk, its score in [0, 1] (metrics.md §6)
            assert result.risk is None and _in_unit(result.utility.score), f"{metric_id}: {result.utility!r}"
            assert result.utility.reference is None or _in_unit(result.utility.reference), f"{metric_id}"
            continue
        assert _in_unit(result.risk), f"{metric_id}: risk {result.risk!r}"
        assert result.baseline is None or _in_unit(result.baseline), f"{metric_id}: baseline {result.baseline!r}"
        if result.interval is not None:
            assert all(v is None or _in_unit(v) for v in result.interval), f"{metric_id}: interval {result.interval}"
    document = json.loads(report.to_json())  # allow_nan=False: strict JSON or ValueError
    errors = sorted(VALIDATOR.iter_errors(document), key=lambda e: list(e.path))
    assert not errors, "JSON schema: " + "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def _sweep(counter: Counter, case, metrics) -> None:
    real, synthetic, holdout, schema, file_names = case
    note(f"schema={schema.to_dict()}, file names={file_names}")
    note(f"real=\n{real!r}\nsynthetic=\n{synthetic!r}\nholdout=\n{holdout!r}")
    counter["cases"] += 1
    try:
        report = privcore.evaluate(real, synthetic, schema, metrics=metrics, holdout=holdout, names=file_names,
                                   strict=False)
    except InputError as exc:
        counter["input errors"] += 1
        counter[f"input error: {type(exc).__name__}"] += 1
        event(f"InputError: {type(exc).__name__}")
        _check_input_error(exc)
        return
    counter["reports"] += 1
    counter["metric results"] += len(report)
    counter["applicable metric results"] += sum(r.applicable for r in report.values())
    counter["baselines"] += sum(r.baseline is not None for r in report.values())
    for metric_id, result in report.items():
        counter[f"ran {metric_id}"] += result.applicable
    event("report")
    _check_report(report)


def _main_sweep_of(examples: int, counts: str):
    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(cases(), st.one_of(st.just(FAST_IDS), st.just(FAST_IDS),
                              st.lists(st.sampled_from(FAST_IDS), min_size=1, max_size=6, unique=True)))
    def sweep(case, metrics):
        # Mostly every metric but the classifiers; sometimes a few in another order, so that a metric placed
        # after one that refuses the table (an ExtremeValueError from the FAMD scaling, say) still meets it.
        _sweep(COUNTS[counts], case, metrics)

    return sweep


def _classifier_sweep_of(examples: int, counts: str):
    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(cases(min_rows=7))
    def sweep(case):
        _sweep(COUNTS[counts], case, CLASSIFIER_IDS)

    return sweep


def _run(name: str, sweep, record_property) -> None:
    """Run one sweep and record how many cases it generated (quoted in the closing note of issue 11).

    The count goes to the JUnit report (``record_property``), to stdout and to
    ``test-artifacts/pathological_sweep_<name>.json``, from the test that ran the sweep, so that it is
    right under pytest-xdist too.
    """
    counter = COUNTS[name]
    counter.clear()
    sweep()
    summary = dict(sorted(counter.items()))
    record_property(f"pathological_{name}_cases", counter["cases"])
    print(f"\npathological sweep ({name}):", json.dumps(summary, indent=1, ensure_ascii=False))
    out = Path(__file__).resolve().parents[2] / "test-artifacts" / f"pathological_sweep_{name}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    # Most cases must get past the input checks, or the sweep exercises the loader, not the metrics.
    assert counter["reports"] >= 0.3 * counter["cases"], summary
    assert counter["applicable metric results"] > 0, summary


@pytest.mark.slow
def test_every_metric_survives_pathological_tables(record_property):
    _run("main", _main_sweep_of(MAIN_EXAMPLES, "main"), record_property)


@pytest.mark.slow
def test_classifier_metrics_survive_pathological_tables(record_property):
    _run("classifier", _classifier_sweep_of(CLASSIFIER_EXAMPLES, "classifier"), record_property)


def test_every_metric_survives_a_few_pathological_tables(record_property):
    # The quick tier's share of the sweep above: its first cases, every metric but the classifiers.
    _run("main-quick", _main_sweep_of(QUICK_MAIN_EXAMPLES, "main-quick"), record_property)


def test_classifier_metrics_survive_a_few_pathological_tables(record_property):
    _run("classifier-quick", _classifier_sweep_of(QUICK_CLASSIFIER_EXAMPLES, "classifier-quick"), record_property)
