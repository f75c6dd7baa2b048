"""Data page: uploads through the real file_uploader widgets, bad files, demo loading, removal."""

import io
import json

import pandas as pd
import pytest

from dashboard import reference_table, uploads
from dashboard.session.state import LoadedTable, Tables, _settings_value, content_hash, run_key
from privcore.base.jsonvalues import jsonable
from privcore.data.io import load_table

from .conftest import DATA, assert_no_exception, csv_bytes, open_page, people, texts


def _upload(at, role, files):
    at.file_uploader(key=f"upload_{role}").set_value(files)
    return at.run()


def test_without_data_the_page_says_nothing_is_loaded():
    at = open_page(DATA).run()
    assert_no_exception(at)
    # The four tables of one evaluation, and a people and a child table per role on the related tables' tab.
    assert len(at.file_uploader) == 4 + 6
    assert at.file_uploader(key="upload_reference").disabled  # checked against the real table: load it first
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


@pytest.mark.slow
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
    monkeypatch.setattr(uploads, "load_table", boom)
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
    # ... and the page says which of the demo's tables went (they used to be dropped without a word).
    notice = texts(at.info)
    assert "Uploading mine.csv replaced the demo" in notice
    assert "real table (Adult sample (real))" in notice and "holdout (Adult holdout)" in notice
    assert "Noisy copy" in notice
    at.button(key="load_demo").click().run()  # loading a demo again: nothing was replaced
    assert "replaced the demo" not in texts(at.info)


# ------------------------------------------------------------------------------------------ reference


def test_reference_upload_is_stored_and_passed_to_the_membership_attacks():
    at = open_page(DATA).run()
    _upload(at, "real", ("real.csv", csv_bytes(people(40, 1)), "text/csv"))
    _upload(at, "synthetic", [("gen.csv", csv_bytes(people(40, 2)), "text/csv")])
    _upload(at, "reference", ("others.csv", csv_bytes(people(30, 7)), "text/csv"))
    assert_no_exception(at)
    assert not at.error
    reference = at.session_state["reference"]
    assert isinstance(reference, LoadedTable) and reference.name == "others.csv"
    assert reference.frame.shape == (30, 4)
    assert reference.content_hash == content_hash(load_table(csv_bytes(people(30, 7)), "others.csv"))
    assert "Reference table: others.csv" in texts(at.markdown)
    params = at.session_state["metric_params"]
    assert set(params) == set(reference_table.REFERENCE_METRICS)
    for metric_id in reference_table.REFERENCE_METRICS:
        passed = params[metric_id]["reference"]
        pd.testing.assert_frame_equal(pd.DataFrame(passed), reference.frame)
        # The results cache key counts the table by its content hash; no rows reach a key or an export.
        settings = json.dumps({"p": passed}, default=_settings_value)
        assert reference.content_hash in settings and "nurse" not in settings
        assert "nurse" not in json.dumps(jsonable({"reference": passed}))

    # replacing it changes the results cache key; removing it restores the default reference
    tables = at.session_state["tables"]
    before = run_key(tables, {}, ["mia_domias"], dict(params))
    _upload(at, "reference", ("others2.csv", csv_bytes(people(30, 8)), "text/csv"))
    assert at.session_state["reference"].name == "others2.csv"
    assert run_key(tables, {}, ["mia_domias"], dict(at.session_state["metric_params"])) != before
    at.button(key="remove::reference").click().run()
    assert at.session_state["reference"] is None
    assert at.session_state["metric_params"] == {}
    at.run()  # the file still in the uploader does not come back
    assert at.session_state["reference"] is None
    assert_no_exception(at)


def test_a_reference_with_other_columns_is_rejected_with_a_message():
    at = open_page(DATA).run()
    _upload(at, "real", ("real.csv", csv_bytes(people(40, 1)), "text/csv"))
    _upload(at, "reference", ("ref.csv", csv_bytes(people(30, 7).drop(columns="job")), "text/csv"))
    assert_no_exception(at)
    assert at.session_state["reference"] is None
    assert "metric_params" not in at.session_state or at.session_state["metric_params"] == {}
    message = texts(at.error)
    assert "ref.csv" in message and "does not have the same columns" in message and "'job'" in message


def test_a_reference_that_no_longer_fits_a_new_real_table_is_not_used():
    state = {"tables": Tables(), "schema": None, "metric_params": {"mia_domias": {"bandwidth": 0.5}}}
    uploads.set_real(state, LoadedTable.from_frame("real.csv", people(20, 1)))
    reference_table.set_reference(state, LoadedTable.from_frame("ref.csv", people(20, 5)))
    assert set(state["metric_params"]["mia_domias"]) == {"bandwidth", "reference"}
    uploads.set_real(state, LoadedTable.from_frame("other.csv", people(20, 1).drop(columns="job")))
    assert state["metric_params"] == {"mia_domias": {"bandwidth": 0.5}}  # other parameters stay
    assert "does not have the same columns" in reference_table.reference_fit_problem(state["tables"],
                                                                             state["reference"]).message
    uploads.load_demo(state, "exact_copy")  # a demo replaces everything, the reference too
    assert state["reference"] is None


def test_the_page_says_when_the_reference_no_longer_fits():
    at = open_page(DATA).run()
    _upload(at, "real", ("real.csv", csv_bytes(people(40, 1)), "text/csv"))
    _upload(at, "reference", ("ref.csv", csv_bytes(people(30, 7)), "text/csv"))
    _upload(at, "real", ("narrow.csv", csv_bytes(people(40, 1).drop(columns="sex")), "text/csv"))
    assert_no_exception(at)
    assert at.session_state["reference"].name == "ref.csv"  # kept, so that a fitting real table revives it
    assert "not used until it fits" in texts(at.error)
    assert "reference" not in (at.session_state["metric_params"].get("mia_calibrated") or {})
    assert "problem(s) with how the tables fit together" in texts(at.warning)
