"""Advice that works in the dashboard (issue 43, item 3): the Data page's advice for a table that does not
fit ("declare the column categorical", "untick Analyse on the Configure page") is followed on the Configure
page, and then the Data page no longer reports the table, nothing blocks, and the Results page evaluates it.

The command line's side of the same messages is ``tests/cli/test_advice.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from dashboard import reference_table

from .conftest import CONFIGURE, DATA, assert_no_exception, csv_bytes, open_page, people, texts

RESULTS = "pages/4_Results.py"


def _upload(at, role, files):
    at.file_uploader(key=f"upload_{role}").set_value(files)
    return at.run()


def _switch(at, page):
    at.switch_page(page)
    return at.run()


def _edit(at, edits):
    # AppTest cannot type into a data_editor; a keyed editor is seeded through its edit state.
    at.session_state["column_editor"] = {"edited_rows": edits, "added_rows": [], "deleted_rows": []}
    return at.run()


def _text_in_age():
    """A synthetic table whose number column 'age' holds one text value."""
    frame = people(40, seed=2).astype({"age": object})
    frame.loc[0, "age"] = "forty"
    return frame


def _evaluates(at) -> None:
    """The Results page runs CRP and DCR on what is loaded, without an error."""
    at = _switch(at, RESULTS)
    at.session_state["selected_metrics"] = ["crp", "dcr"]
    at.run()
    at.button(key="run_evaluation").click().run(timeout=120)
    assert_no_exception(at)
    assert not at.error, texts(at.error)
    assert at.session_state["last_run_key"] in at.session_state["results"]


@pytest.mark.slow
@pytest.mark.parametrize("edit, advice", [
    ({"type": "categorical"}, "declare the column categorical (its type on the Configure page"),
    ({"analyse": False}, "untick Analyse on the Configure page"),
])
def test_text_in_a_number_column_is_fixed_on_the_configure_page_as_advised(edit, advice):
    at = open_page(DATA).run()
    _upload(at, "real", ("real.csv", csv_bytes(people(40, seed=1)), "text/csv"))
    _upload(at, "synthetic", [("astext.csv", csv_bytes(_text_in_age()), "text/csv")])
    assert_no_exception(at)
    message = texts(at.error)
    assert "Column 'age' is numeric in the real table 'real.csv' but text in the synthetic table 'astext'" in message
    assert "'forty'" in message and advice in message
    assert "Or declare the column categorical on the Configure page" in [link.value for link in at.page_link]

    at = _switch(at, CONFIGURE)
    at = _edit(at, {0: edit})  # row 0 is 'age'
    assert_no_exception(at)
    assert "Settings are valid" in texts(at.success)

    at = _switch(at, DATA)
    assert_no_exception(at)
    assert "'forty'" not in texts(at.error) and not at.warning, (texts(at.error), texts(at.warning))
    assert "Next: check column types and roles" in [link.value for link in at.page_link]
    _evaluates(at)


@pytest.mark.slow
def test_an_empty_column_is_fixed_by_unticking_it_as_advised():
    at = open_page(DATA).run()
    _upload(at, "real", ("real.csv", csv_bytes(people(40, seed=1)), "text/csv"))
    _upload(at, "synthetic", [("blank.csv", csv_bytes(people(40, seed=2).assign(job=np.nan)), "text/csv")])
    message = texts(at.error)
    assert "The synthetic table 'blank' has 1 column with no values at all: 'job'" in message
    assert "untick Analyse on the Configure page" in message

    at = _switch(at, CONFIGURE)
    at = _edit(at, {2: {"analyse": False}})  # row 2 is 'job'
    assert "Settings are valid" in texts(at.success)
    at = _switch(at, DATA)
    assert "no values at all" not in texts(at.error) and not at.warning
    _evaluates(at)


def test_a_reference_with_text_in_a_number_column_is_taken_once_the_column_is_categorical():
    at = open_page(DATA).run()
    _upload(at, "real", ("real.csv", csv_bytes(people(40, seed=1)), "text/csv"))
    _upload(at, "synthetic", [("gen.csv", csv_bytes(people(40, seed=2)), "text/csv")])
    _upload(at, "reference", ("ref.csv", csv_bytes(_text_in_age()), "text/csv"))
    assert at.session_state["reference"] is None
    assert "declare the column categorical (its type on the Configure page" in texts(at.error)

    at = _switch(at, CONFIGURE)
    _edit(at, {0: {"type": "categorical"}})
    at = _switch(at, DATA)
    _upload(at, "reference", ("ref (again).csv", csv_bytes(_text_in_age()), "text/csv"))  # uploaded again
    assert_no_exception(at)
    assert at.session_state["reference"].name == "ref (again).csv"
    assert not at.error, texts(at.error)
    for metric_id in reference_table.REFERENCE_METRICS:
        assert at.session_state["metric_params"][metric_id]["reference"] is at.session_state["reference"].frame

    # Declared numerical again, the reference no longer fits and is not passed on; the Data page says why.
    at = _switch(at, CONFIGURE)
    _edit(at, {0: {"type": "numerical"}})
    assert "reference" not in (at.session_state["metric_params"].get("mia_best") or {})
    at = _switch(at, DATA)
    assert "not used until it fits" in texts(at.error)
