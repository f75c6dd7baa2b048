"""Related tables on the Data page: people and their rows, loaded as one row per person for the rest of the dashboard."""

import pandas as pd

from dashboard import related_upload, uploads
from dashboard.session.state import Tables
from privcore.data import Relation
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
    assert "Evaluated per person" in at.session_state[uploads.RELATED].text
    assert "Evaluated per person" in texts(at.success)
    picture = at.get("graphviz_chart")[0].proto.spec
    assert '"seasons (their rows)" -> "players (one row per person)"' in picture and "player_id = id" in picture
    at.switch_page(RESULTS).run()
    assert_no_exception(at)
    assert "Evaluated per person" in texts(at.info)


def test_uploaded_related_tables_are_checked_then_loaded_per_person():
    scenario = load_related("people_fresh", players=60)
    frames = {f"{role} {part}": getattr(scenario, role)[table]
              for role in ("real", "synthetic") for part, table in (("people", "players"), ("child", "seasons"))}
    state = {"tables": Tables(), "reference": None}
    relation = Relation("rows", "player_id", "people", "id", "year")
    assert related_upload.apply_uploads(state, {k: v for k, v in frames.items() if k != "synthetic child"},
                                        relation) == "Upload synthetic child first."
    wrong = Relation("rows", "year", "people", "id", None)  # a column that names no player
    assert "name a year that people does not hold" in related_upload.apply_uploads(state, frames, wrong)
    assert state["tables"].real is None  # nothing loaded on an error
    assert related_upload.apply_uploads(state, frames, relation) is None
    real = state["tables"].real.frame
    assert len(real) == 60 and {"rows.rows", "rows.year.first", "rows.team.most"} <= set(real.columns)
    assert state["tables"].holdout is None and state["selected_metrics"]


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
    at.file_uploader(key="related_real_child").set_value(("rows.csv", b"", "text/csv")).run()
    assert_no_exception(at)
    assert "rows.csv" in texts(at.error)


def test_the_record_explorer_shows_the_persons_own_rows():
    state = {"tables": Tables(), "reference": None}
    related_upload.load_related_demo(state, "people_leak")
    related = state[uploads.RELATED]
    scenario = load_related("people_leak")
    first = scenario.real["players"]["id"].iloc[3]
    rows = related.rows_of(3)
    assert (rows["player_id"] == first).all() and len(rows) == (scenario.real["seasons"]["player_id"] == first).sum()
    assert rows["year"].is_monotonic_increasing
    assert state["tables"].real.frame["seasons.rows"].iloc[3] == len(rows)
