
"""Configure page: inferred types, edits through the editor's session state, inline SchemaErrors."""

from .conftest import (
    CONFIGURE,
    DATA,
    assert_no_exception,
    assert_points_to_the_data_page,
    open_page,
    seed_session,
    texts,
)


def _edit(at, edits):
    # AppTest cannot type into a data_editor; a keyed editor is seeded through its edit state.
    at.session_state["column_editor"] = {"edited_rows": edits, "added_rows": [], "deleted_rows": []}
    return at.run()


def test_deep_link_without_data_points_to_the_data_page():
    at = open_page(CONFIGURE).run()
    assert_points_to_the_data_page(at)


def test_inferred_types_and_notes_are_shown():
    at = open_page(CONFIGURE)
    seed_session(at)
    at.run()
    assert_no_exception(at)
    shown = at.data_editor[0].value.set_index("column")
    assert shown["type"].to_dict() == {"age": "numerical", "sex": "binary", "job": "categorical",
                                       "income": "binary"}
    assert shown["analyse"].all()
    assert at.selectbox(key="cfg_sensitive").value == "income"
    assert at.multiselect(key="cfg_key").value == ["age", "sex", "job"]  # analysed, not sensitive
    assert at.session_state["schema"].sensitive == "income"
    assert "Settings are valid" in texts(at.success)


def test_editing_a_type_changes_the_schema():
    at = open_page(CONFIGURE)
    seed_session(at)
    at.run()
    _edit(at, {0: {"type": "categorical"}, 1: {"analyse": False}})
    assert_no_exception(at)
    schema = at.session_state["schema"]
    assert schema.types == {"age": "categorical", "job": "categorical", "income": "binary"}
    assert at.multiselect(key="cfg_key").value == ["age", "job"]  # the default key follows


def test_declaring_a_text_column_numerical_shows_the_schema_error():
    at = open_page(CONFIGURE)
    seed_session(at)
    at.run()
    _edit(at, {2: {"type": "numerical"}})
    assert_no_exception(at)
    assert "Column 'job' is declared numerical" in texts(at.error)
    assert at.session_state["schema"] is None  # never an invalid schema for the later pages


def test_roles_persist_across_pages_and_conflicts_are_explained():
    at = open_page(CONFIGURE)
    seed_session(at)
    at.run()
    at.multiselect(key="cfg_key").set_value(["age", "job"]).run()
    at.selectbox(key="cfg_sensitive").set_value("job").run()
    assert "'job' is both a key and the sensitive column" in texts(at.error)
    at.multiselect(key="cfg_key").set_value(["age"]).run()
    at.number_input(key="cfg_seed").set_value(7).run()
    at.switch_page(DATA).run()
    at.switch_page(CONFIGURE).run()
    assert_no_exception(at)
    schema = at.session_state["schema"]
    assert (schema.sensitive, schema.key, schema.seed) == ("job", ["age"], 7)
    assert at.selectbox(key="cfg_sensitive").value == "job"


def test_row_pairing_needs_equal_row_counts():
    at = open_page(CONFIGURE)
    tables = seed_session(at)
    synth = tables.synthetic["synth"]
    tables.synthetic["synth"] = type(synth).from_frame("synth", synth.frame.head(30))
    at.run()
    at.selectbox(key="cfg_pairing").set_value("Same row order").run()
    assert_no_exception(at)
    assert "Pairing by row order needs equal row counts" in texts(at.error)


def test_sidebar_shows_the_sensitive_column_just_chosen():
    at = open_page(CONFIGURE)
    seed_session(at)
    at.run()
    at.selectbox(key="cfg_sensitive").set_value("job").run()
    assert_no_exception(at)
    assert "Sensitive column: **job**" in texts(at.sidebar.markdown)


def test_an_infinite_number_is_named_with_file_column_and_row():
    # The Data page loads "inf" as a number (privcore.data.io.load_table); the schema check names it here.
    import numpy as np

    from dashboard.session.state import LoadedTable

    at = open_page(CONFIGURE)
    tables = seed_session(at)
    frame = tables.real.frame.astype({"age": float})
    frame.loc[2, "age"] = np.inf
    at.session_state["tables"] = tables.__class__(real=LoadedTable.from_frame("real.csv", frame),
                                                  synthetic=tables.synthetic, holdout=tables.holdout)
    at.run()
    assert_no_exception(at)
    error = texts(at.error)
    assert "Column 'age'" in error and "real.csv" in error and "infinite value in row 3" in error, error
    assert at.session_state["schema"] is None


def test_uploaded_data_get_a_proposed_sensitive_column_and_code_columns_a_note():
    import numpy as np
    import pandas as pd

    from .conftest import csv_bytes

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.integers(18, 90, 60), "postcode": rng.integers(1000, 9999, 60),
                          "job": rng.choice(["nurse", "clerk", "farmer"], 60),
                          "diagnosis": rng.choice(["flu", "asthma", "none"], 60)})
    at = open_page(DATA).run()
    for role, name in (("real", "real.csv"), ("synthetic", "syn.csv")):
        value = (name, csv_bytes(frame), "text/csv")
        at.file_uploader(key=f"upload_{role}").set_value(value if role == "real" else [value])
        at.run()
    assert at.session_state["schema"].sensitive == "diagnosis"
    at.switch_page(CONFIGURE)
    at.run()
    assert_no_exception(at)
    shown = at.data_editor[0].value.set_index("column")
    assert shown.loc["postcode", "type"] == "categorical"
    assert "postcode" in shown.loc["postcode", "note"] and "choose numerical" in shown.loc["postcode", "note"]
    assert at.selectbox(key="cfg_sensitive").value == "diagnosis"
    assert "Proposed from the data: 'diagnosis'" in texts(at.caption)
    at.selectbox(key="cfg_sensitive").set_value("(none)").run()  # a default the user can change
    assert at.session_state["schema"].sensitive is None
    assert "Proposed from the data" not in texts(at.caption)


def test_a_threat_model_preset_sets_the_key_and_says_what_each_attack_treats_as_secret():
    at = open_page(CONFIGURE)
    seed_session(at)
    at.run()
    assert "as secret: income." in texts(at.caption)  # the default key: everything but the sensitive column
    at.button(key="cfg_preset_demographics").click().run()
    assert_no_exception(at)
    assert at.multiselect(key="cfg_key").value == ["age", "sex"]
    assert at.session_state["schema"].key == ["age", "sex"]
    captions = texts(at.caption)
    assert "“Demographics only”: key set to age, sex" in captions
    assert "as secret: job and income." in captions and "sensitive column only: income." in captions
    at.button(key="cfg_preset_demographics_location").click().run()
    assert at.session_state["schema"].key == ["age", "sex"]
    assert "no location column was recognised" in texts(at.caption)
    at.button(key="cfg_preset_all_but_sensitive").click().run()
    assert at.session_state["schema"].key is None  # the default again: it follows the sensitive column
    assert at.multiselect(key="cfg_key").value == ["age", "sex", "job"]


def test_a_preset_that_matches_no_column_says_so_and_keeps_the_key():
    at = open_page(CONFIGURE)
    seed_session(at)
    at.run()
    _edit(at, {0: {"analyse": False}, 1: {"analyse": False}})  # age and sex left out: no demographic column
    at.button(key="cfg_preset_demographics").click().run()
    assert_no_exception(at)
    assert "“Demographics only” matches no column of this table" in texts(at.warning)
    assert at.multiselect(key="cfg_key").value == ["job"]
    assert at.session_state["schema"].key is None
