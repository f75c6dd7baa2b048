"""Data page: uploads through the real file_uploader widgets, bad files, demo loading, removal."""

import io

import pandas as pd
import pytest

from dashboard import data_io
from dashboard.state import content_hash
from privcore.io import load_table
from .conftest import DATA, assert_no_exception, csv_bytes, open_page, people, texts


def _upload(at, role, files):
    at.file_uploader(key=f"upload_{role}").set_value(files)
    return at.run()


def test_without_data_the_page_says_nothing_is_loaded():
    at = open_page(DATA).run()
    assert_no_exception(at)
    assert len(at.file_uploader) == 3
    assert "Nothing loaded yet." in texts(at.markdown)


def test_upload_real_and_synthetic_csv():
    real, synthetic = people(40, seed=1), people(30, seed=2)
    at = open_page(DATA).run()
    _upload(at, "real", ("real.csv", csv_bytes(real), "text/csv"))
    _upload(at, "synthetic", [("ctgan_run.csv", csv_bytes(synthetic), "text/csv")])
    assert_no_exception(at)
    assert not at.error
    tables = at.session_state["tables"]
    assert tables.real.name == "real.csv"
    assert list(tables.synthetic) == ["ctgan_run"]  # default name: the file stem
    expected = content_hash(load_table(csv_bytes(real), "real.csv"))
    assert tables.real.content_hash == expected
    assert tables.synthetic["ctgan_run"].frame.shape == (30, 4)
    # the real table resets the schema to the inferred one
    assert at.session_state["schema"].types == {"age": "numerical", "sex": "binary",
                                                "job": "categorical", "income": "binary"}
    # previews (first rows) of both tables, counts, and the fit check
    assert len(at.dataframe) == 2
    assert at.dataframe[0].value.shape == (10, 4)
    assert "40 rows × 4 columns" in texts(at.markdown)
    assert "Every table has the same columns" in texts(at.success)
    assert "Next: check column types and roles" in [link.value for link in at.page_link]


def test_holdout_upload_in_parquet():
    buffer = io.BytesIO()
    people(25, seed=4).to_parquet(buffer, index=False)
    at = open_page(DATA).run()
    _upload(at, "real", ("real.csv", csv_bytes(people(20, 1)), "text/csv"))
    _upload(at, "holdout", ("holdout.parquet", buffer.getvalue(), "application/octet-stream"))
    assert_no_exception(at)
    holdout = at.session_state["tables"].holdout
    assert holdout.name == "holdout.parquet" and holdout.frame.shape == (25, 4)
    assert "Holdout table: holdout.parquet" in texts(at.markdown)


def test_numbers_in_one_table_and_text_in_another_are_explained():
    other = people(20, 2).assign(age="unknown")
    at = open_page(DATA).run()
    _upload(at, "real", ("real.csv", csv_bytes(people(20, 1)), "text/csv"))
    _upload(at, "synthetic", [("gen.csv", csv_bytes(other), "text/csv")])
    assert_no_exception(at)
    assert "Column 'age' is numeric in the real table 'real.csv' but text" in texts(at.error)


def test_rename_and_remove_a_synthetic_table():
    at = open_page(DATA).run()
    _upload(at, "real", ("real.csv", csv_bytes(people(20, 1)), "text/csv"))
    _upload(at, "synthetic", [("a.csv", csv_bytes(people(20, 2)), "text/csv"),
                              ("b.csv", csv_bytes(people(20, 3)), "text/csv")])
    at.text_input(key="rename::a").set_value("Model A").run()
    assert list(at.session_state["tables"].synthetic) == ["Model A", "b"]
    at.text_input(key="rename::b").set_value("Model A").run()  # names must stay unique
    assert list(at.session_state["tables"].synthetic) == ["Model A", "b"]
    assert "already called 'Model A'" in texts(at.warning)
    at.button(key="remove::synthetic::Model A").click().run()
    assert list(at.session_state["tables"].synthetic) == ["b"]
    at.run()  # the file is still in the uploader, but a removed table does not come back
    assert list(at.session_state["tables"].synthetic) == ["b"]
    assert_no_exception(at)


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"", "is empty"),
        (b"age,age,job\n1,2,x\n3,4,y\n", "more than one column with the same name"),
        (b"\x00\x01\x02binary", "text"),  # NUL bytes: not a text table
    ],
    ids=["empty", "duplicate-columns", "binary"],
)
def test_bad_file_shows_its_specific_message(content, expected):
    at = open_page(DATA).run()
    _upload(at, "real", ("bad.csv", content, "text/csv"))
    assert_no_exception(at)
    assert at.session_state["tables"].real is None
    assert len(at.error) == 1
    assert "bad.csv" in at.error[0].value and expected in at.error[0].value


def test_mismatched_columns_are_explained_column_by_column():
    real = people(20, 1)
    other = people(20, 2).rename(columns={"job": "Job"}).assign(extra=1).drop(columns="sex")
    at = open_page(DATA).run()
    _upload(at, "real", ("real.csv", csv_bytes(real), "text/csv"))
    _upload(at, "synthetic", [("gen.csv", csv_bytes(other), "text/csv")])
    assert_no_exception(at)
    message = texts(at.error)
    assert "does not have the same columns" in message
    assert "'job'" in message and "'Job'" in message and "'extra'" in message
    explained = next(df.value for df in at.dataframe if list(df.value.columns) == ["column", "problem"])
    assert set(explained["column"]) == {"sex", "job", "Job", "extra"}
    assert "missing from the synthetic table 'gen'" in explained.set_index("column").loc["sex", "problem"]
    assert "problem(s) with how the tables fit together" in texts(at.warning)


def test_unexpected_parser_failure_is_a_friendly_message(monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("internal detail that must not be shown")

    # AppTest runs the page in this process, so the page sees the patched loader.
    monkeypatch.setattr(data_io, "load_table", boom)
    at = open_page(DATA).run()
    _upload(at, "real", ("odd.csv", b"a,b\n1,2\n", "text/csv"))
    assert_no_exception(at)
    message = texts(at.error)
    assert "odd.csv" in message and "Something unexpected went wrong" in message
    assert "internal detail" not in message and "RuntimeError" not in message


def test_load_a_demo_scenario():
    at = open_page(DATA).run()
    at.selectbox(key="demo_choice").set_value("exact_copy").run()
    assert "handed over unchanged" in texts(at.markdown)  # the scenario's description
    at.button(key="load_demo").click().run()
    assert_no_exception(at)
    state = at.session_state
    assert state["demo"] == "exact_copy"
    tables = state["tables"]
    assert tables.ready and tables.holdout is not None
    pd.testing.assert_frame_equal(tables.real.frame, next(iter(tables.synthetic.values())).frame)
    assert state["schema"].sensitive == "income"
    assert "Demo loaded" in texts(at.success)


def test_uploading_after_a_demo_starts_afresh():
    at = open_page(DATA).run()
    at.button(key="load_demo").click().run()
    assert at.session_state["demo"] == "noisy_copy"
    _upload(at, "real", ("mine.csv", csv_bytes(people(20, 1)), "text/csv"))
    assert_no_exception(at)
    tables = at.session_state["tables"]
    assert at.session_state["demo"] is None
    assert tables.real.name == "mine.csv" and not tables.synthetic and tables.holdout is None
    assert "age" in at.session_state["schema"].types  # inferred from the new real table
