"""Tests for privcore.data.io: loading tables and checking them against each other.

Every input is built in memory; nothing here reads a data file from the repository.
"""

from __future__ import annotations

import gzip
import io
import os
import time

import numpy as np
import pandas as pd
import pytest

from privcore.base.errors import (
    AllMissingColumnError,
    ColumnMismatchError,
    ColumnTypeConflictError,
    DuplicateColumnsError,
    EmptyFileError,
    FileTooLargeError,
    InputError,
    NoHeaderError,
    TooFewRowsError,
    UnparseableFileError,
)
from privcore.data.io import (
    MAX_UPLOAD_MB,
    check_column_kinds_agree,
    check_min_rows,
    check_no_all_missing,
    check_same_columns,
    load_table,
    validate_tables,
)

SUPPORTED = "Supported formats"


class Upload(io.BytesIO):
    """Stands in for Streamlit's UploadedFile: a BytesIO with a name and a size."""

    def __init__(self, data: bytes, name: str):
        super().__init__(data)
        self.name = name
        self.size = len(data)


def parquet_bytes(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()


def excel_bytes(df: pd.DataFrame, **kwargs) -> bytes:
    buf = io.BytesIO()
    df.to_excel(buf, index=False, **kwargs)
    return buf.getvalue()


SAMPLE = pd.DataFrame(
    {
        "age": [39, 50, 38],
        "workclass": ["State-gov", "Self-emp", "Private"],
        "hours": [40.5, 13.0, None],
    }
)


# ------------------------------------------------------------------------------ reading formats


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_delimiters_are_detected(delimiter):
    text = delimiter.join(["age", "city", "score"]) + "\n"
    text += "".join(delimiter.join(row) + "\n" for row in [["39", "Köln", "1.5"], ["50", "Paris", "2"]])
    df = load_table(text.encode("utf-8"), "people.csv")
    assert list(df.columns) == ["age", "city", "score"]
    assert df["city"].tolist() == ["Köln", "Paris"]
    assert df["age"].dtype == np.int64


def test_semicolon_file_with_commas_inside_values():
    # Commas inside values must not fool the detector: ';' splits every line the same way.
    data = b"name;address;age\nAnna;Main St, 5;31\nBen;Elm St, 12;42\nCara;Oak Rd, 1;29\n"
    df = load_table(data, "people.csv")
    assert df["address"].tolist() == ["Main St, 5", "Elm St, 12", "Oak Rd, 1"]


def test_excel_sep_hint_line_is_honoured():
    df = load_table(b"sep=;\na;b\n1,5;x\n", "hint.csv")
    assert list(df.columns) == ["a", "b"]
    assert df["a"].tolist() == ["1,5"]


def test_latin1_file_with_accented_values():
    data = "name;city;dish\nMüller;Zürich;café crème\nRenée;Besançon;très bon\n".encode("latin-1")
    df = load_table(data, "latin1.csv")
    assert df["name"].tolist() == ["Müller", "Renée"]
    assert df["dish"].tolist() == ["café crème", "très bon"]


def test_utf8_with_bom_has_clean_first_column_name():
    data = "\ufeffage,name\n39,Zoë\n".encode("utf-8")
    df = load_table(data, "bom.csv")
    assert list(df.columns) == ["age", "name"]
    assert df["name"].tolist() == ["Zoë"]


def test_utf16_with_bom_excel_unicode_text():
    data = "age\tname\n39\tZoë\n40\tÅsa\n".encode("utf-16")
    df = load_table(data, "unicode.txt")
    assert df.to_dict("list") == {"age": [39, 40], "name": ["Zoë", "Åsa"]}


@pytest.mark.parametrize("token", ["?", "", "NA", "N/A", "NaN", "null", "None", " ? "])
def test_missing_tokens_become_nan(token):
    data = f"id,age,workclass\n1,39,Private\n2,{token},{token}\n3,50,State-gov\n".encode()
    df = load_table(data, "adult.csv")
    assert df["age"].isna().tolist() == [False, True, False]
    assert df["workclass"].isna().tolist() == [False, True, False]
    assert df["age"].dtype == np.float64  # a missing value rules out int64


def test_leading_spaces_are_stripped_like_uci_adult():
    data = b" age , workclass, income\n39, State-gov, <=50K\n50, Self-emp-not-inc , >50K\n"
    df = load_table(data, "adult.csv")
    assert list(df.columns) == ["age", "workclass", "income"]
    assert df["workclass"].tolist() == ["State-gov", "Self-emp-not-inc"]
    assert df["income"].tolist() == ["<=50K", ">50K"]
    assert df["age"].dtype == np.int64


def test_column_types():
    data = b"i,f,fi,t,mixed\n1,1.5,1.0,a,1\n2,2.5,2.0,b,x\n3,,3.0,c,3\n"
    df = load_table(data, "types.csv")
    assert df["i"].dtype == np.int64
    assert df["f"].dtype == np.float64
    assert df["fi"].dtype == np.int64  # integral values without missing ones
    assert df["t"].dtype == object and df["t"].tolist() == ["a", "b", "c"]
    assert df["mixed"].tolist() == ["1", "x", "3"]  # one non-number keeps the column text
    assert isinstance(df.index, pd.RangeIndex)


def test_blank_index_column_is_named_like_pandas():
    # Files written with pandas' default index=True start with an unnamed column.
    df = load_table(b",age\n0,39\n1,50\n", "indexed.csv")
    assert list(df.columns) == ["Unnamed: 0", "age"]


def test_trailing_delimiters_and_empty_rows_are_dropped():
    df = load_table(b"a,b,\n1,2,\n,,\n3,4,\n", "trailing.csv")
    assert df.to_dict("list") == {"a": [1, 3], "b": [2, 4]}


def test_parquet_round_trip():
    original = SAMPLE.assign(city=[" Köln", "Paris ", "?"])
    df = load_table(parquet_bytes(original), "sample.parquet")
    assert list(df.columns) == ["age", "workclass", "hours", "city"]
    assert df["age"].dtype == np.int64
    assert df["hours"].isna().tolist() == [False, False, True]
    assert df["city"].tolist()[:2] == ["Köln", "Paris"] and pd.isna(df["city"].iloc[2])


def test_parquet_named_index_is_kept_as_a_column():
    original = SAMPLE.set_index(pd.Index([7, 8, 9], name="id"))
    buf = io.BytesIO()
    original.to_parquet(buf)
    df = load_table(buf.getvalue(), "indexed.parquet")
    assert df["id"].tolist() == [7, 8, 9]


def test_excel_round_trip():
    original = SAMPLE.assign(city=[" Köln", "Paris", "N/A"])
    df = load_table(excel_bytes(original), "sample.xlsx")
    assert list(df.columns) == ["age", "workclass", "hours", "city"]
    assert df["age"].dtype == np.int64
    assert df["hours"].tolist()[:2] == [40.5, 13.0]
    assert df["city"].tolist()[:2] == ["Köln", "Paris"] and pd.isna(df["city"].iloc[2])


def test_excel_blank_rows_above_header_are_skipped():
    df = load_table(excel_bytes(SAMPLE, startrow=2), "offset.xlsx")
    assert list(df.columns) == ["age", "workclass", "hours"]
    assert len(df) == 3


@pytest.mark.parametrize("name", ["adult.csv.gz", "adult.gz", None])
def test_gzip_csv(name):
    data = gzip.compress(b"age,workclass\n39, State-gov\n50, Private\n")
    df = load_table(data, name)
    assert df.to_dict("list") == {"age": [39, 50], "workclass": ["State-gov", "Private"]}


def test_content_wins_over_a_wrong_extension():
    df = load_table(parquet_bytes(SAMPLE), "really_parquet.csv")
    assert df["workclass"].tolist() == SAMPLE["workclass"].tolist()


def test_uploaded_file_like_object():
    upload = Upload(b"age;city\n39;Lyon\n", "upload.csv")
    df = load_table(upload)
    assert df.to_dict("list") == {"age": [39], "city": ["Lyon"]}


def test_file_like_with_read_only_uses_its_name_in_messages():
    class Reader:
        name = "/somewhere/deep/reader.csv"

        def read(self, n=-1):
            return b""

    with pytest.raises(EmptyFileError, match=r"^reader\.csv is empty"):
        load_table(Reader())


def test_path_source(tmp_path):
    path = tmp_path / "real.csv"
    path.write_bytes(b"age,income\n39,100\n")
    assert load_table(path).to_dict("list") == {"age": [39], "income": [100]}
    assert load_table(str(path), "custom name").shape == (1, 2)


def test_missing_path_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="nope.csv was not found"):
        load_table(tmp_path / "nope.csv")


def test_thirty_thousand_rows_load_quickly():
    rng = np.random.default_rng(0)
    n = 30_000
    frame = pd.DataFrame(
        {
            "age": rng.integers(17, 90, n),
            "workclass": rng.choice([" Private", " State-gov", " ?"], n),
            "hours": rng.normal(40, 10, n).round(1),
            **{f"cat{i}": rng.choice([" a", " b", " c"], n) for i in range(8)},
            **{f"num{i}": rng.integers(0, 10_000, n) for i in range(4)},
        }
    )
    data = frame.to_csv(index=False).encode()
    start = time.perf_counter()
    df = load_table(data, "big.csv")
    elapsed = time.perf_counter() - start
    assert df.shape == (n, 15)
    # A guard against pathological slowness only (e.g. a per-row Python loop), generous enough for a busy
    # 2-core machine; speed targets live in bench/.
    assert elapsed < 10.0, f"loading 30k rows took {elapsed:.2f}s"


# ------------------------------------------------------------------------------- load errors


@pytest.mark.parametrize(
    "make_source",
    [
        pytest.param(lambda data: data, id="bytes"),
        pytest.param(lambda data: Upload(data, "big.csv"), id="upload"),
    ],
)
def test_file_too_large(make_source):
    data = b"age,income\n" + b"39,100\n" * 200
    with pytest.raises(FileTooLargeError) as info:
        load_table(make_source(data), "big.csv", max_bytes=1024)
    message = str(info.value)
    assert message.startswith("big.csv is 1.4 KB")
    assert "1 KB limit" in message
    assert "sample of the rows" in message
    assert info.value.file == "big.csv"


def test_file_too_large_path_is_refused_before_reading(tmp_path):
    path = tmp_path / "big.csv"
    path.write_bytes(b"a\n" + b"1\n" * 100)
    with pytest.raises(FileTooLargeError, match="big.csv is 202 bytes, over the 100 bytes limit"):
        load_table(path, max_bytes=100)


def test_gzip_content_counts_against_the_limit():
    data = gzip.compress(b"a\n" + b"1\n" * 10_000)
    assert len(data) < 2048
    with pytest.raises(FileTooLargeError, match="bomb.csv.gz decompresses to more than"):
        load_table(data, "bomb.csv.gz", max_bytes=2048)


def test_default_limit_is_200_mb():
    assert MAX_UPLOAD_MB == 200
    assert load_table.__kwdefaults__["max_bytes"] == 200 * 1024 * 1024


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="no-bytes"),
        pytest.param(b"\n \n\t\n", id="whitespace"),
        pytest.param(gzip.compress(b""), id="empty-gzip"),
    ],
)
def test_empty_file(data):
    with pytest.raises(EmptyFileError) as info:
        load_table(data, "real.csv")
    assert str(info.value).startswith("real.csv is empty.")
    assert "header row of column names" in str(info.value)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"age,income\n", id="csv"),
        pytest.param(b"age,income\n,\n?,NA\n", id="only-empty-rows"),
        pytest.param(excel_bytes(pd.DataFrame(columns=["age", "income"])), id="xlsx"),
    ],
)
def test_header_only_file(data):
    with pytest.raises(EmptyFileError) as info:
        load_table(data, "real.csv")
    message = str(info.value)
    assert "real.csv has a header row (age, income) but no data rows" in message
    assert "Export the table again" in message


def test_unnamed_upload_message_starts_with_a_capital():
    with pytest.raises(EmptyFileError, match=r"^The uploaded table is empty\."):
        load_table(b"")


@pytest.mark.parametrize(
    "data, reason",
    [
        pytest.param(b"39,2174,40\n50,0,13\n", "every value in it is a number", id="numbers"),
        pytest.param(b"1.5,-2,3e4\n", "every value in it is a number", id="one-line"),
        pytest.param(
            b"39,State-gov,Male\n50,Private,Female\n39,Private,Male\n52,State-gov,Male\n",
            "also occurs further down the same column",
            id="repeated-values",
        ),
    ],
)
def test_no_header(data, reason):
    with pytest.raises(NoHeaderError) as info:
        load_table(data, "real.csv")
    message = str(info.value)
    assert "The first row of real.csv looks like data, not column names" in message
    assert reason in message
    assert "Add a header row" in message


def test_no_header_in_excel():
    data = excel_bytes(pd.DataFrame([[39, 2174], [50, 0]]), header=False)
    with pytest.raises(NoHeaderError, match="first row of sheet.xlsx"):
        load_table(data, "sheet.xlsx")


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"0,1,2\n5,6,7\n", id="pandas-default-names"),
        pytest.param(b"2019,2020,2021\n5,6,7\n", id="years"),
        pytest.param(b"age,sex\n39,female\n50,male\n", id="ordinary"),
        pytest.param(b"age,sex\n39,f\nage,sex\n50,m\n", id="repeated-header-row"),
        pytest.param(b"id,note\n1,x\n2,note\n", id="one-name-as-value"),
    ],
)
def test_header_heuristic_stays_quiet_on_plausible_names(data):
    assert len(load_table(data, "ok.csv")) >= 1


@pytest.mark.parametrize(
    "data, name",
    [
        pytest.param(b"age,income,age\n1,2,3\n", "dups.csv", id="csv"),
        pytest.param(b"age, income,age ,income\n1,2,3,4\n", "dups.csv", id="after-stripping"),
        pytest.param(
            excel_bytes(pd.DataFrame([[1, 2, 3]], columns=["age", "income", "x"]).rename(
                columns={"x": "age"}
            )),
            "dups.xlsx",
            id="xlsx",
        ),
    ],
)
def test_duplicate_columns(data, name):
    with pytest.raises(DuplicateColumnsError) as info:
        load_table(data, name)
    message = str(info.value)
    assert message.startswith(f"{name} has more than one column with the same name")
    assert "'age' (columns 1 and 3)" in message
    assert "Rename them" in message
    assert info.value.column == "age"


def test_duplicate_columns_in_parquet():
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table([pa.array([1]), pa.array([2]), pa.array([3])], names=["age", "x", "age"])
    buf = io.BytesIO()
    pq.write_table(table, buf)
    with pytest.raises(DuplicateColumnsError, match=r"dups.parquet .*'age' \(columns 1 and 3\)"):
        load_table(buf.getvalue(), "dups.parquet")


@pytest.mark.parametrize(
    "data, name, detail",
    [
        pytest.param(os.urandom(4096), "noise.csv", "looks like a binary file", id="binary"),
        pytest.param(
            b"a,b,c\n1,2,3\n4,5,6,7\n",
            "ragged.csv",
            "line 3 has 4 values but the header has 3",
            id="ragged",
        ),
        pytest.param(
            b"a;b\n1;2\n3;4;5\n", "ragged.csv", "same number of semicolons", id="ragged-semicolon"
        ),
        pytest.param(b'a,b\n1,"open\n2,3\n', "quote.csv", "never closed", id="unclosed-quote"),
        pytest.param(
            b"PAR1" + b"\x00garbage" * 20 + b"PAR1",
            "broken.parquet",
            "not a valid Parquet file",
            id="parquet",
        ),
        pytest.param(b"not parquet at all\n", "text.parquet", "not a valid Parquet", id="parquet-ext"),
        pytest.param(
            b"PK\x03\x04" + b"\x00" * 64, "broken.xlsx", "could not be read as an Excel", id="xlsx"
        ),
        pytest.param(
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "old.xls", "old-style .xls", id="xls"
        ),
        pytest.param(b"\x1f\x8b\x08\x00garbage", "broken.csv.gz", "could not be decompressed", id="gz"),
    ],
)
def test_unparseable_file(data, name, detail):
    with pytest.raises(UnparseableFileError) as info:
        load_table(data, name)
    message = str(info.value)
    assert name in message
    assert detail in message
    assert SUPPORTED in message
    assert info.value.file == name


def test_ragged_line_numbers_count_the_sep_hint_line():
    with pytest.raises(UnparseableFileError, match="line 4 has 3 values"):
        load_table(b"sep=;\na;b\n1;2\n3;4;5\n", "hint.csv")


# -------------------------------------------------------------------------------- table checks


def test_check_min_rows():
    df = pd.DataFrame({"age": [1, 2, 3]})
    with pytest.raises(TooFewRowsError) as info:
        check_min_rows(df, "real.csv", 5, "the distance metrics")
    message = str(info.value)
    assert message.startswith("real.csv has 3 rows; at least 5 are needed for the distance metrics.")
    assert "larger table" in message
    check_min_rows(df, "real.csv", 3, "anything")  # exactly enough


def test_check_min_rows_singular():
    with pytest.raises(TooFewRowsError, match="real.csv has 1 row;"):
        check_min_rows(pd.DataFrame({"a": [1]}), "real.csv", 2, "the classifier attack")


def test_all_missing_column_from_a_loaded_file():
    df = load_table(b"age,notes,comment\n39,?,\n50,NA,\n", "synth.csv")
    with pytest.raises(AllMissingColumnError) as info:
        check_no_all_missing(df, "synth.csv")
    message = str(info.value)
    assert message.startswith("synth.csv has 2 columns with no values at all: 'notes', 'comment'.")
    assert "remove them from every table" in message
    assert "(untick Analyse on the Configure page, or --exclude notes,comment)" in message  # or leave them out
    assert info.value.column == "notes"
    check_no_all_missing(df[["age"]], "synth.csv")


def test_all_missing_check_on_a_table_without_rows():
    with pytest.raises(EmptyFileError, match="real.csv has no data rows"):
        check_no_all_missing(pd.DataFrame({"a": []}), "real.csv")


def test_check_same_columns():
    real = pd.DataFrame(columns=["age", "income", "city"])
    synth = pd.DataFrame(columns=["city", "Age", "income", "zip"])
    with pytest.raises(ColumnMismatchError) as info:
        check_same_columns(real, synth, "real.csv", "synth.csv")
    error = info.value
    assert error.missing == ["age"]
    assert error.extra == ["Age", "zip"]
    message = str(error)
    assert "Missing from synth.csv (present in real.csv): 'age'." in message
    assert "Extra in synth.csv (not in real.csv): 'Age', 'zip'." in message
    assert "'Age' for 'age'" in message
    assert "order does not matter" in message


def test_check_same_columns_ignores_order_and_says_none():
    real = pd.DataFrame(columns=["a", "b", "c"])
    check_same_columns(real, pd.DataFrame(columns=["c", "a", "b"]), "real.csv", "synth.csv")
    with pytest.raises(ColumnMismatchError, match="Extra in holdout.csv .*: none") as info:
        check_same_columns(real, pd.DataFrame(columns=["a", "b"]), "real.csv", "holdout.csv")
    assert info.value.missing == ["c"] and info.value.extra == []


def test_column_kinds_agree_from_loaded_files():
    real = load_table(b"income,city\n12000,Lyon\n13000,Nice\n", "real.csv")
    synth = load_table(b"income,city\n12000,Lyon\n12k,Nice\n", "synth.csv")
    with pytest.raises(ColumnTypeConflictError) as info:
        check_column_kinds_agree({"real.csv": real, "synth.csv": synth})
    message = str(info.value)
    assert "'income' is numeric in real.csv but text in synth.csv (e.g. '12k')" in message
    assert "declare the column categorical" in message
    assert info.value.column == "income" and info.value.file == "synth.csv"


def test_the_column_settings_apply_before_the_table_checks():
    # Issue 43: a column declared categorical may hold numbers in one table and text in another (both become
    # category text), and a column left out may be empty; a numerical column is still checked.
    from privcore.data.schema import Schema
    from privcore.data.table_checks import validate_tables

    real = load_table(b"income,city,notes\n12000,Lyon,a\n13000,Nice,b\n", "real.csv")
    synth = load_table(b"income,city,notes\n12000,Lyon,\n12k,Nice,\n", "synth.csv")
    names = {"real": "real.csv", "synthetic": "synth.csv"}
    with pytest.raises(AllMissingColumnError, match="--exclude notes"):
        validate_tables(real, synth, names=names)
    with pytest.raises(ColumnTypeConflictError, match="--categorical income"):
        validate_tables(real[["income", "city"]], synth[["income", "city"]], names=names)
    with pytest.raises(AllMissingColumnError, match="'notes'"):
        validate_tables(real, synth, names=names, schema=Schema({"income": "categorical", "city": "categorical",
                                                                 "notes": "categorical"}))
    validate_tables(real, synth, names=names, schema=Schema({"income": "categorical", "city": "categorical"}))
    with pytest.raises(ColumnTypeConflictError, match="'income' is numeric in real.csv but text in synth.csv"):
        validate_tables(real, synth, names=names, schema=Schema({"income": "numerical", "city": "categorical"}))


def test_column_kinds_ignore_columns_without_values():
    real = pd.DataFrame({"x": [1.0, 2.0]})
    synth = pd.DataFrame({"x": pd.Series([None, None], dtype=object)})
    check_column_kinds_agree({"real": real, "synth": synth})


def test_validate_tables_passes_and_reports_first_problem():
    real = pd.DataFrame({"age": [39, 50], "city": ["Lyon", "Nice"]})
    good = real.copy()
    validate_tables(real, {"copy": good}, holdout=good, names={"real": "real.csv"})

    with pytest.raises(ColumnMismatchError, match="hold.csv does not have the same columns"):
        validate_tables(
            real,
            {"copy": good},
            holdout=real[["age"]],
            names={"real": "real.csv", "holdout": "hold.csv"},
        )
    with pytest.raises(AllMissingColumnError, match="'city'") as info:
        validate_tables(real, {"gen": good.assign(city=None)}, names={"gen": "gen.parquet"})
    assert info.value.file == "gen.parquet"
    with pytest.raises(ColumnTypeConflictError, match="numeric in real.csv but text in gen.csv"):
        validate_tables(
            real,
            {"gen": good.assign(age=["39", "old"])},
            names={"real": "real.csv", "gen": "gen.csv"},
        )


def test_validate_tables_accepts_a_single_frame():
    real = pd.DataFrame({"a": [1]})
    with pytest.raises(ColumnMismatchError, match="^synthetic does not have"):
        validate_tables(real, pd.DataFrame({"b": [1]}))


def test_a_directory_is_called_a_directory_not_missing(tmp_path):
    for source in (tmp_path, str(tmp_path)):
        with pytest.raises(InputError, match="is a directory, not a table file") as caught:
            load_table(source)
        assert "not found" not in str(caught.value)


def test_infinities_and_numbers_beyond_float_range_stay_numbers():
    # pandas reads "inf" and "Infinity" but refuses "1e309"; all are read as ±inf so that the column stays
    # numerical and Schema.validate can name the row, instead of the column silently turning into text.
    df = load_table(b"x,y\n1,a\ninf,b\n-Infinity,c\n1e309,d\n-1E309,e\n1e308,f\n", "t.csv")
    assert df["x"].dtype == np.float64
    assert df["x"].tolist() == [1.0, np.inf, -np.inf, np.inf, -np.inf, 1e308]
    assert load_table(b"x,y\n1,a\ninfo,b\n", "t.csv")["x"].tolist() == ["1", "info"]  # words stay text
