"""Schema inference on tricky columns, validation messages, preparation (missing values, pairing)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore import evaluate
from privcore.base.errors import AllMissingColumnError, SchemaError
from privcore.data.prepare import MISSING, prepare
from privcore.data.schema import Schema, column_notes, guess_column_type, infer_schema


@pytest.mark.parametrize(
    "values, expected, note_part",
    [
        ([1.5, 2.25, 3.0, 4.75], "numerical", ""),
        ([1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2], "numerical", "probably categorical"),  # codes 1–5
        (list(range(40)), "numerical", ""),
        (["a", "b", "c"], "categorical", ""),
        (["yes", "no", "yes", None], "binary", ""),
        ([0, 1, 1, 0], "binary", ""),
        ([True, False, True], "binary", ""),
        ([7, 7, 7], "numerical", "constant"),
        (["x", "x"], "categorical", "constant"),
        ([f"id{i}" for i in range(100)], "identifier", "identifier"),
        ([np.nan, np.nan], "categorical", "missing"),
        ([1.0, 2.0, np.nan, 4.0, 5.0], "numerical", "probably categorical"),  # integral floats with a gap
    ],
)
def test_guess_column_type(values, expected, note_part):
    guess = guess_column_type(pd.Series(values))
    assert guess.type == expected
    assert note_part in guess.note


def test_infer_schema_defaults_and_overrides():
    real = pd.DataFrame({"age": [20, 30, 40, 50, 60] * 3, "sex": list("MFMFM") * 3, "id": range(15),
                         "zip": [1000, 2000, 3000, 4000, 5000] * 3})
    schema = infer_schema(real, sensitive="sex", overrides={"zip": "categorical"}, exclude=["id"])
    assert schema.types == {"age": "numerical", "sex": "binary", "zip": "categorical"}
    assert schema.key_columns == ["age", "zip"]
    assert column_notes(real)["age"].startswith("only 5 distinct")
    with pytest.raises(SchemaError, match="'nope'"):
        infer_schema(real, overrides={"nope": "numerical"})
    with pytest.raises(SchemaError, match="choose one of numerical, categorical, binary, date, identifier, text"):
        infer_schema(real, overrides={"age": "ordinal"})


def test_pairing_column_is_not_analysed():
    real = pd.DataFrame({"pid": [1, 2, 3], "a": [1.0, 2.0, 3.0]})
    schema = infer_schema(real, pairing="pid")
    assert schema.columns == ["a"] and schema.pairing_column == "pid"


@pytest.fixture
def tables():
    real = pd.DataFrame({"age": [30.0, 40.0, np.nan, 50.0], "job": ["a", None, "b", "a"], "sick": ["y", "n", "n", "y"]})
    synth = pd.DataFrame({"age": [30.0, 41.0, 52.0], "job": ["a", "c", None], "sick": ["y", "y", "n"]})
    return real, synth


SCHEMA = Schema({"age": "numerical", "job": "categorical", "sick": "binary"}, sensitive="sick")


@pytest.mark.parametrize(
    "schema, message",
    [
        (Schema({"age": "numerical", "job": "numerical"}), "'job' is declared numerical but real holds text such as 'a'"),
        (Schema({"age": "numerical", "job": "binary"}), "'job' is declared binary but takes 3 values"),
        (Schema({"age": "numerical", "zzz": "categorical"}), "real has no column 'zzz'"),
        (Schema({"age": "numerical", "job": "categorical"}, sensitive="sick"), "sensitive column 'sick' is not among"),
        (Schema({"age": "numerical", "job": "categorical"}, key=["age", "nope"]), "Key column(s) 'nope'"),
        (Schema({"age": "numerical", "job": "categorical"}, key=[]), "key (quasi-identifier) list is empty"),
        (Schema({"age": "numerical", "job": "categorical"}, key=["job"], sensitive="job"), "both a key and the sensitive"),
        (Schema({"age": "ordinal"}), "choose one of numerical, categorical, binary"),
        (Schema({"age": "numerical"}, missing="mean"), "Missing-value policy 'mean'"),
        (Schema({"age": "numerical", "job": "categorical"}, pairing="row"), "equal row counts"),
        (Schema({"age": "numerical"}, pairing="pid"), "pairing id column 'pid' is missing from real"),
        (Schema({"age": "numerical"}, seed=-5), "seed must be a whole number from 0 to 2147483647 (got -5)"),
        (Schema({"age": "numerical"}, seed=0.5), "seed must be a whole number"),
    ],
)
def test_schema_validation_messages(tables, schema, message):
    real, synth = tables
    with pytest.raises(SchemaError) as err:
        schema.validate(real, synth)
    assert message in str(err.value)


def test_columns_not_named_by_text_are_refused():
    # Found by tests/metrics/test_pathological.py: a table with integer column labels (pd.DataFrame(array),
    # read_csv(header=None)) ended in "TypeError: sequence item 0: expected str instance, int found" when a
    # column was constant, and otherwise in a JSON report that breaks its schema (column names are text).
    real = pd.DataFrame({0: [1.0, 2.0, 3.0], 1: ["a", "b", "a"], 2: [7.0, 7.0, 7.0]})
    with pytest.raises(SchemaError, match="Column 0 is not named by text") as err:
        evaluate(real, real.copy(), infer_schema(real), metrics="all")
    assert err.value.column == "0"


def test_duplicate_pairing_ids_are_rejected():
    real = pd.DataFrame({"pid": [1, 1, 2], "a": [1.0, 2.0, 3.0]})
    with pytest.raises(SchemaError, match="repeats values in real"):
        Schema({"a": "numerical"}, pairing="pid").validate(real, real)


def test_prepare_drops_rows_with_missing_numbers_and_keeps_missing_categories(tables):
    real, synth = tables
    data = prepare(real, synth, SCHEMA)
    assert data.dropped == {"real": 1, "synthetic": 0}
    assert list(data.real["job"]) == ["a", MISSING, "a"]
    assert list(data.synthetic["job"]) == ["a", "c", MISSING]
    assert data.real["age"].dtype == np.float64
    assert any("1 row(s) with a missing numerical value" in w for w in data.warnings)


def test_prepare_imputes_the_real_median(tables):
    real, synth = tables
    data = prepare(real, synth, SCHEMA.with_changes(missing="impute"))
    assert data.real["age"].tolist() == [30.0, 40.0, 40.0, 50.0]


def test_integral_floats_and_ints_are_the_same_category():
    real = pd.DataFrame({"code": [1, 2, 3], "x": [0.1, 0.2, 0.3]})
    synth = pd.DataFrame({"code": [1.0, 2.0, np.nan], "x": [0.1, 0.2, 0.3]})
    data = prepare(real, synth, Schema({"code": "categorical", "x": "numerical"}))
    assert list(data.synthetic["code"]) == ["1", "2", MISSING]


def test_all_missing_column_is_reported_with_file_name():
    real = pd.DataFrame({"a": [1.0, 2.0], "b": [np.nan, np.nan]})
    with pytest.raises(AllMissingColumnError, match="'b' of real.csv have no values"):
        prepare(real, real, Schema({"a": "numerical", "b": "numerical"}), names={"real": "real.csv"})


def test_pairing_survives_dropped_rows():
    real = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0]})
    synth = pd.DataFrame({"a": [1.5, 2.5, np.nan, 4.5]})
    data = prepare(real, synth, Schema({"a": "numerical"}, pairing="row"))
    # synthetic rows kept: 0, 1, 3 → twins at original real rows 0, 1 (dropped), 3 → kept positions 0, -1, 2
    assert data.pair_index.tolist() == [0, -1, 2]


def test_pairing_by_id_column():
    real = pd.DataFrame({"pid": ["p1", "p2", "p3"], "a": [1.0, 2.0, 3.0]})
    synth = pd.DataFrame({"pid": ["p3", "p9", "p1"], "a": [3.1, 9.0, 1.1]})
    data = prepare(real, synth, infer_schema(real, pairing="pid"))
    assert data.pair_index.tolist() == [2, -1, 0]
    assert "pid" not in data.real.columns


def test_identifier_like_text_columns_are_checked_not_analysed_by_default():
    # Issue 56: they were left out in silence; now they are identifiers, checked for reproduced values.
    real = pd.DataFrame({"patient": [f"p{i:03d}" for i in range(60)], "age": np.arange(60.0) % 7 + 20,
                         "dx": ["a", "b", "c"] * 20})
    assert guess_column_type(real["patient"]).identifier
    schema = infer_schema(real)
    assert "patient" not in schema.types and schema.identifiers == ["patient"]
    assert schema.kind("patient") == "identifier" and schema.left_out == {}
    assert infer_schema(real, overrides={"patient": "categorical"}).types["patient"] == "categorical"
    assert "checked for members' values copied" in column_notes(real)["patient"]


def test_an_infinite_number_is_named_but_an_infinite_category_is_text(tables):
    real, synth = tables
    synth = synth.assign(age=[30.0, -np.inf, 52.0])
    with pytest.raises(SchemaError, match="Column 'age' of synthetic holds an infinite value in row 2") as err:
        Schema({"age": "numerical", "job": "categorical"}, missing="impute").validate(real, synth)
    assert (err.value.file, err.value.column) == ("synthetic", "age")
    Schema({"age": "categorical", "job": "categorical"}).validate(real, synth)  # "-inf" is a category then
    assert guess_column_type(pd.Series([1.0, np.inf, 3.0, 4.5])).type == "numerical"  # no RuntimeWarning


@pytest.mark.parametrize(
    "name, values, expected, note_part",
    [
        ("postcode", [2000, 3051, 4217, 5063, 6151, 7004, 2601, 3121, 4101, 8123, 9311, 2000], "categorical",
         "suggests codes"),
        ("area", [2011, 3051, 4217, 5063, 6151, 7004, 2601, 3121, 4101, 8123, 9311, 2011], "categorical",
         "4-digit whole number"),  # fixed-width digits, whatever the name
        ("ZipCode", [1234, 55123, 60601, 90210, 10001, 30301, 2139, 94105, 73301, 80202, 33101, 98101],
         "categorical", "suggests codes"),  # ZIP codes that lost their leading zero
        ("patient_id", list(range(1000, 1040)), "identifier", "identifier"),
        ("postcode", list(range(2000, 2040)), "categorical", "suggests codes"),  # one a row: still not an id
        ("year", list(range(1990, 2020)), "numerical", ""),  # 4 digits, but years are quantities
        ("amount", [1000, 2500, 3000, 4000, 5500, 6000, 7000, 8000, 9000, 1500, 2000], "numerical", ""),  # round
        ("income", [31234, 45321, 52113, 61234, 77123, 81234, 92341, 38123, 49871, 55555, 67891],
         "numerical", ""),  # a quantity word wins over the fixed width
        ("age", list(range(20, 60)), "numerical", ""),
    ],
)
def test_numeric_looking_codes_are_categorical_with_a_note(name, values, expected, note_part):
    guess = guess_column_type(pd.Series(values, name=name))
    assert (guess.type, guess.code) == (expected, expected in ("categorical", "identifier"))
    assert note_part in guess.note
    assert guess.identifier == ("identifier" in note_part)
    if guess.identifier:
        assert guess.identifier and name not in infer_schema(pd.DataFrame({name: values, "x": values})).types


@pytest.mark.parametrize(
    "frame, expected",
    [
        (pd.DataFrame({"age": [30, 41, 52, 60], "diagnosis": ["flu", "none", "asthma", "none"],
                       "salary": [1.5, 2.0, 3.1, 2.2]}), "diagnosis"),  # a diagnosis before a salary
        (pd.DataFrame({"Age": [30, 41, 52, 60], "AnnualIncome": [1.5, 2.0, 3.1, 2.2]}), "AnnualIncome"),
        (pd.DataFrame({"age": [30, 41, 52, 60], "job": list("abca"), "y": [0, 1, 1, 0]}), "y"),  # last, binary
        (pd.DataFrame({"age": [30, 41, 52, 60], "height": [1.5, 1.6, 1.7, 1.8]}), None),  # nothing suggests one
        (pd.DataFrame({"income_id": list(range(1000, 1030)), "x": [1.5] * 15 + [2.5] * 15}), "x"),  # never an id
    ],
)
def test_a_sensitive_column_is_proposed_when_the_data_suggest_one(frame, expected):
    from privcore.data.schema import suggest_sensitive

    found = suggest_sensitive(frame)
    assert (found.column if found else None) == expected
    if found:
        assert found.reason


# ------------------------------------------------------------------ category texts (one per distinct value)
from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from privcore.data.schema import _category_text, canonical_categories, category_texts  # noqa: E402

_VALUES = st.one_of(st.text(max_size=3), st.integers(-3, 3), st.floats(-3, 3, width=32), st.just(float("nan")),
                    st.booleans(), st.none())


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(_VALUES, max_size=30), st.sampled_from(["object", "infer"]))
def test_canonical_categories_write_every_value_as_its_own_text(values, dtype):
    """The distinct-value path gives what writing each value on its own gives, for every kind and mix of
    kinds (True, 1 and 1.0 are equal keys but different categories)."""
    series = pd.Series(values, dtype=object if dtype == "object" else None)
    got = canonical_categories(series)
    expected = [None if pd.isna(v) else _category_text(v) for v in series.astype(object)]
    assert [None if pd.isna(v) else v for v in got] == expected
    assert all(isinstance(v, str) for v in got if not pd.isna(v))


def test_canonical_categories_keep_true_and_one_apart():
    assert canonical_categories(pd.Series([True, 1, 1.0, 1.5, "1"])).tolist() == ["True", "1", "1", "1.5", "1"]


def _canonical_categories_per_value(series: pd.Series) -> pd.Series:
    """canonical_categories as it was before its checks were vectorised (a generator over the values, the mixed
    kinds written value by value): the reference the vectorised one must match exactly."""
    from privcore.data.schema import _ONE_KIND

    out = series.astype(object).copy()
    values = out.to_numpy()
    mask = pd.notna(values)
    present = values[mask]
    if all(type(value) is str for value in present):
        return out
    if pd.api.types.infer_dtype(present, skipna=False) in _ONE_KIND:
        codes, uniques = pd.factorize(present)
        out[mask] = np.array([_category_text(v) for v in uniques], dtype=object)[codes]
    else:
        out[mask] = [_category_text(v) for v in present]
    return out


_MORE_VALUES = st.one_of(_VALUES, st.sampled_from([np.str_("a"), np.int64(1), np.float32(1.0), np.float64(-0.0),
                                                   np.bool_(True), pd.NA, float("inf")]),
                         st.decimals(allow_nan=False, places=1, min_value=-2, max_value=2))


@settings(max_examples=300, deadline=None)
@given(st.lists(_MORE_VALUES, max_size=40), st.sampled_from(["object", "infer"]))
def test_canonical_categories_match_the_per_value_version(values, dtype):
    """The same values of the same types as the per-value version, for text, numbers, booleans, numpy scalars,
    a str subclass (numpy.str_), Decimals and missing values, in every mix."""
    try:
        series = pd.Series(values, dtype=object if dtype == "object" else None)
    except (TypeError, ValueError):
        return
    got, expected = canonical_categories(series), _canonical_categories_per_value(series)
    assert [(type(v), v) if not pd.isna(v) else None for v in got] == \
        [(type(v), v) if not pd.isna(v) else None for v in expected]
    assert got.index.equals(expected.index) and got.dtype == expected.dtype


@settings(max_examples=200, deadline=None)
@given(st.lists(_MORE_VALUES, max_size=40), st.sampled_from(["object", "infer"]))
# pandas factorizes text as C strings: "" and "\x00" were one category (found by this test).
@example(["", "\x00", 0], "object")
def test_category_texts_are_canonical_categories_with_their_missing_mask(values, dtype):
    """The texts of :func:`category_texts` are those of canonical_categories, its mask their missing values, and the
    table given is left as it was (prepare fills the missing values in the texts returned)."""
    try:
        series = pd.Series(values, dtype=object if dtype == "object" else None)
    except (TypeError, ValueError):
        return
    before = series.copy()
    texts, missing = category_texts(series)
    expected = _canonical_categories_per_value(series)
    assert [(type(v), v) if not pd.isna(v) else None for v in texts] == \
        [(type(v), v) if not pd.isna(v) else None for v in expected]
    assert missing.tolist() == expected.isna().tolist()
    texts[missing] = "(missing)"
    pd.testing.assert_series_equal(series, before)


def _prepared_reference(table: pd.DataFrame, schema: Schema, medians: dict) -> tuple[pd.DataFrame, np.ndarray]:
    """prepare's definition for one table, column by column through pandas: the typed table and the rows kept."""
    out = pd.DataFrame(index=pd.RangeIndex(len(table)))
    numerical = schema.columns_of("numerical")
    for col in schema.columns:
        if col in numerical:
            out[col] = pd.to_numeric(table[col], errors="coerce").astype("float64").to_numpy()
        else:
            out[col] = canonical_categories(table[col]).fillna(MISSING).to_numpy()
    keep = np.ones(len(table), dtype=bool)
    if numerical and schema.missing == "impute":
        out[numerical] = out[numerical].fillna(medians)
    elif numerical:
        keep = ~out[numerical].isna().any(axis=1).to_numpy()
    return out[keep].reset_index(drop=True), keep


def _random_column(rng, kind: str, style: int, n: int) -> pd.Series:
    """A column of ``kind`` in one of several forms: float, nullable int, numbers as text or objects, booleans,
    pandas categories, mixed 1 / "1" / 2.0, each with some missing values of any NA kind."""
    if kind == "numerical":
        numbers = rng.normal(size=n).round(2)
        column = [pd.Series(numbers), pd.Series(rng.integers(0, 9, n)).astype("Int64"),
                  pd.Series([str(x) for x in numbers], dtype=object), pd.Series(numbers.astype(object))][style % 4]
    else:
        k = 2 if kind == "binary" else 3
        column = [pd.Series(rng.choice(["a", "b", "c"][:k], n), dtype=object),
                  pd.Series(rng.integers(0, k, n).astype(float)), pd.Series(rng.choice([True, False], n)),
                  pd.Series(rng.choice(["x", "y", "z"][:k], n)).astype("category"),
                  pd.Series(rng.choice(np.array([1, "1", 2.0][:k], dtype=object), n), dtype=object)][style % 5]
    missing = rng.random(n) < rng.choice([0.0, 0.1])
    if missing.any():
        column = column.astype("float64") if style % 4 == 0 and kind == "numerical" else column.astype(object)
        column[missing] = [np.nan, None, pd.NA][int(rng.integers(0, 3))]
    return column


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["drop", "impute"]))
def test_prepare_gives_the_column_by_column_definition(seed, policy):
    """prepare's tables, values and types of every cell, rows kept and rows dropped are those of the definition
    applied column by column through pandas, for numbers as floats, nullable ints, text and objects, and categories as
    text, numbers, booleans, pandas categories and mixed kinds, with missing values of every NA kind."""
    rng = np.random.default_rng(seed)
    types = {f"c{i}": str(rng.choice(["numerical", "categorical", "binary"])) for i in range(int(rng.integers(1, 5)))}
    styles = {c: int(rng.integers(0, 20)) for c in types}
    tables = [pd.DataFrame({c: _random_column(rng, t, styles[c], n) for c, t in types.items()})
              for n in rng.integers(1, 30, size=3)]
    schema = Schema(types, missing=policy)
    try:
        prepared = prepare(tables[0], tables[1], schema, tables[2])
    except AllMissingColumnError:
        assert any(t[c].isna().all() for t in tables for c in types)
        return
    numerical = schema.columns_of("numerical")
    medians = {c: float(pd.to_numeric(tables[0][c], errors="coerce").median()) for c in numerical}
    for role, table in zip(("real", "synthetic", "holdout"), tables):
        expected, keep = _prepared_reference(table, schema, medians)
        got = prepared.table(role)
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
        assert [[type(v) for v in got[c]] for c in got] == [[type(v) for v in expected[c]] for c in expected]
        assert np.array_equal(prepared.kept[role], np.flatnonzero(keep))
        assert prepared.dropped[role] == int((~keep).sum())
