"""Related tables on the Data page: people and their rows, loaded as one row per person for the rest of the dashboard."""

import pandas as pd

from dashboard import related_upload, uploads
from dashboard.session.state import Tables
from privcore.demo import load_related

from .conftest import DATA, assert_no_exception, csv_bytes, open_page, texts

RESULTS = "pages/4_Results.py"


def test_the_related_demo_loads_one_row_per_player_and_the_results_page_says_so():
    at = open_page(DATA).run()
    at.selectbox(key="related_demo_choice").set_value("people_leak").run()
    at.button(key="load_related_demo").click().run()
    assert_no_exception(at)
    tables = at.session_state["tables"]
    scenario = load_related("people_leak")
    assert len(tables.real.frame) == len(scenario.real["players"])  # people, not seasons
    assert "seasons.rows" in tables.real.frame and tables.holdout is not None
    # The settings the evaluation of related tables uses: each player's whole set of seasons checked as an identifier,
    # a summary of numbers numerical even where every real career takes two values (a gap of 0 or 1 year).
    schema = at.session_state["schema"]
    assert "seasons.set" in schema.identifiers and schema.types["seasons.year.gap"] == "numerical"
    assert "Evaluated per person" in at.session_state[uploads.RELATED].text
    assert "Evaluated per person" in texts(at.success)
    picture = at.get("graphviz_chart")[0].proto.spec
    assert '"seasons (their rows)" -> "players (one row per person)"' in picture and "player_id = id" in picture
    at.switch_page(RESULTS).run()
    assert_no_exception(at)
    assert "Evaluated per person" in texts(at.info)


def test_uploaded_related_tables_are_checked_then_loaded_per_person():
    scenario = load_related("people_fresh", players=60)
    def visits(role):  # a second child table of each role's own players
        return getattr(scenario, role)["seasons"].rename(columns={"year": "visit"}).iloc[::2]

    frames = {role: {"people": getattr(scenario, role)["players"], "seasons": getattr(scenario, role)["seasons"]}
              for role in ("real", "synthetic")}
    state = {"tables": Tables(), "reference": None}
    owners, orders = {"seasons": "player_id"}, {"seasons": "year"}
    missing = {"real": frames["real"], "synthetic": {"people": frames["synthetic"]["people"]}}
    assert related_upload.apply_uploads(state, missing, "id", owners, orders) == (
        "Upload the synthetic people table and at least one table of their rows first.")
    assert "name a year that people does not hold" in related_upload.apply_uploads(
        state, frames, "id", {"seasons": "year"}, {"seasons": None})
    strays = {**frames, "synthetic": {**frames["synthetic"], "bills": visits("synthetic")}}
    assert "bills match no real table of rows" in related_upload.apply_uploads(state, strays, "id", owners, orders)
    assert state["tables"].real is None  # nothing loaded on an error
    two = {role: {**frames[role], "visits": visits(role)} for role in frames}
    assert related_upload.apply_uploads(state, two, "id", {**owners, "visits": "player_id"},
                                        {**orders, "visits": "visit"}) is None
    real = state["tables"].real.frame
    assert len(real) == 60 and {"seasons.rows", "seasons.year.first", "visits.rows", "visits.visit.span"} <= set(real)
    assert state["tables"].holdout is None and state["selected_metrics"]
    assert set(state[uploads.RELATED].rows_of(0)) == {"seasons", "visits"}
    picture = related_upload.schema_picture(state[uploads.RELATED])
    assert picture.count("-> \"people (one row per person)\"") == 2


def test_loading_another_table_forgets_the_related_tables():
    state = {"tables": Tables(), "reference": None}
    related_upload.load_related_demo(state, "people_fresh")
    assert state[uploads.RELATED]
    uploads.load_demo(state)
    assert state[uploads.RELATED] is None


def test_the_related_uploaders_read_files_and_say_which_could_not_be_read():
    at = open_page(DATA).run()
    at.file_uploader(key="related_real_people").set_value(("people.csv", csv_bytes(pd.DataFrame({"id": [1, 2]})),
                                                           "text/csv")).run()
    at.file_uploader(key="related_real_child").set_value([("rows.csv", b"", "text/csv")]).run()
    assert_no_exception(at)
    assert "rows.csv" in texts(at.error)


def test_the_record_explorer_shows_the_persons_own_rows():
    state = {"tables": Tables(), "reference": None}
    related_upload.load_related_demo(state, "people_leak")
    related = state[uploads.RELATED]
    scenario = load_related("people_leak")
    first = scenario.real["players"]["id"].iloc[3]
    rows = related.rows_of(3)["seasons"]
    assert (rows["player_id"] == first).all() and len(rows) == (scenario.real["seasons"]["player_id"] == first).sum()
    assert rows["year"].is_monotonic_increasing
    assert state["tables"].real.frame["seasons.rows"].iloc[3] == len(rows)


def test_related_tables_uploaded_through_the_widgets_load_per_person():
    scenario = load_related("people_leak", players=80)
    at = open_page(DATA).run()
    for role in ("real", "synthetic"):
        tables = getattr(scenario, role)
        at.file_uploader(key=f"related_{role}_people").set_value(
            ("players.csv", csv_bytes(tables["players"]), "text/csv")).run()
        at.file_uploader(key=f"related_{role}_child").set_value(
            [("seasons.csv", csv_bytes(tables["seasons"]), "text/csv")]).run()
    at.selectbox(key="related_key").set_value("id").run()
    at.selectbox(key="related_owner::seasons").set_value("player_id").run()
    at.selectbox(key="related_order::seasons").set_value("year").run()
    at.button(key="related_apply").click().run()
    assert_no_exception(at)
    assert not at.error, texts(at.error)
    real = at.session_state["tables"].real.frame
    assert len(real) == 80 and "seasons.year.span" in real
    assert "Evaluated per person" in texts(at.success)
