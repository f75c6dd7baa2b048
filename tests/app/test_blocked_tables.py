"""A table that does not fit the real one names itself and its fix on every page it blocks (issue 23).

Data no longer offers "Next" as if all were well; Metrics and Results name each bad file (a mismatched
synthetic table, a second one with a number column stored as text) with "remove it on the Data page", and
"go on without it" lets the other tables get results.
"""

from __future__ import annotations

import pytest

from .conftest import DATA, METRICS, assert_no_exception, csv_bytes, open_page, people, texts

RESULTS = "pages/4_Results.py"


def _upload(at, role, files):
    at.file_uploader(key=f"upload_{role}").set_value(files)
    return at.run()


def _two_bad_and_one_good(page=DATA):
    """The Data page with a real table, a good synthetic table and two that do not fit, then ``page``."""
    mismatched = people(30, seed=2).rename(columns={"job": "occupation"})
    as_text = people(30, seed=3).astype({"age": str})
    as_text.loc[0, "age"] = "forty"  # a number column stored as text
    at = open_page(DATA).run()
    _upload(at, "real", ("real.csv", csv_bytes(people(40, seed=1)), "text/csv"))
    _upload(at, "synthetic", [("good.csv", csv_bytes(people(30, seed=4)), "text/csv"),
                              ("mismatch.csv", csv_bytes(mismatched), "text/csv"),
                              ("astext.csv", csv_bytes(as_text), "text/csv")])
    assert_no_exception(at)
    return at


def test_data_page_names_each_bad_table_instead_of_offering_next():
    at = _two_bad_and_one_good()
    links = [link.value for link in at.page_link]
    assert "Next: check column types and roles" not in links
    message = texts(at.error)
    assert "synthetic table 'mismatch'" in message and "synthetic table 'astext'" in message
    assert "synthetic table 'good'" not in message
    assert at.button(key="data::without::synthetic::mismatch") is not None
    at.button(key="data::without::synthetic::mismatch").click().run()
    at.button(key="data::without::synthetic::astext").click().run()
    assert list(at.session_state["tables"].synthetic) == ["good"]
    assert "Next: check column types and roles" in [link.value for link in at.page_link]


def test_a_type_conflict_alone_points_to_the_configure_page_too():
    as_text = people(30, seed=3).astype({"age": str})
    as_text.loc[0, "age"] = "forty"
    at = open_page(DATA).run()
    _upload(at, "real", ("real.csv", csv_bytes(people(40, seed=1)), "text/csv"))
    _upload(at, "synthetic", [("astext.csv", csv_bytes(as_text), "text/csv")])
    assert "Or declare the column categorical on the Configure page" in [link.value for link in at.page_link]


def _switch(at, page):
    at.switch_page(page)
    return at.run()


@pytest.mark.slow
def test_metrics_and_results_name_both_bad_files_and_the_fix():
    for page in (METRICS, RESULTS):
        at = _switch(_two_bad_and_one_good(), page)
        assert_no_exception(at)
        errors = texts(at.error)
        assert "The synthetic table 'mismatch' cannot be evaluated" in errors
        assert "The synthetic table 'astext' cannot be evaluated" in errors
        assert "'forty'" in errors  # what is wrong in the second file
        assert errors.count("remove it on the Data page") == 2
        assert "Column types and roles are not set yet" not in texts(at.info)
        assert not [b for b in at.button if b.key == "run_evaluation"]  # nothing to press that would fail
        assert "Go to the Data page" in [link.value for link in at.page_link]


def test_after_configure_found_the_settings_invalid_the_bad_file_is_still_named():
    at = _switch(_two_bad_and_one_good(), "pages/2_Configure.py")
    assert at.session_state["schema"] is None  # the form's settings do not fit 'mismatch'
    at = _switch(at, RESULTS)
    assert "The synthetic table 'mismatch' cannot be evaluated" in texts(at.error)
    assert "Column types and roles are not set yet" not in texts(at.info)


@pytest.mark.slow
def test_going_on_without_the_bad_files_gives_the_good_table_results():
    at = _switch(_two_bad_and_one_good(), "pages/2_Configure.py")
    at = _switch(at, RESULTS)
    at.button(key="blocked::without::synthetic::mismatch").click().run()
    at.button(key="blocked::without::synthetic::astext").click().run()
    assert_no_exception(at)
    assert not at.error
    assert list(at.session_state["tables"].synthetic) == ["good"]
    assert at.session_state["schema"] is not None  # the Configure form's settings fit what is left
    at.session_state["selected_metrics"] = ["crp", "dcr"]
    at.run()
    at.button(key="run_evaluation").click().run(timeout=120)
    assert_no_exception(at)
    assert not at.error
    assert at.session_state["last_run_key"] in at.session_state["results"]
