"""Metrics page: families, presets, why a metric cannot run on the loaded data, metric parameters."""

import pytest

from dashboard import metric_choice, reference_table
from dashboard.session.state import LoadedTable
from privcore import evaluate
from privcore.metrics import registry
from privcore.metrics.details import CopyCounts
from privcore.metrics.registry import Explanation, MetricInfo

from .conftest import (
    CONFIGURE,
    METRICS,
    assert_no_exception,
    assert_points_to_the_data_page,
    open_page,
    people,
    seed_session,
    texts,
)

RESULTS = "pages/4_Results.py"

FAKE = "test_needs_holdout"


@pytest.fixture
def holdout_metric():
    """A registered metric that needs a holdout, whatever the real metric modules provide today."""
    info = MetricInfo(
        id=FAKE, name="Test holdout metric", family="Membership inference",
        summary="Only for the dashboard tests.", attacker_knows="Nothing.",
        needs=frozenset({"holdout"}), per_record_unit="none", raw_meaning="", reference="",
        explanation=Explanation(attack="", steps=(), high="", low="", blind_spots=""),
        compute=lambda ctx: None, details_type=CopyCounts,
    )
    registry.register(info)
    yield info
    registry._REGISTRY.pop(FAKE, None)


def _available(ids, at):
    """The ids that can run on the data seeded in ``at`` (computed apart from the page)."""
    reasons = metric_choice.metric_availability(at.session_state["tables"], at.session_state["schema"])
    return [m for m in ids if reasons[m] is None]


def _open(**seed):
    at = open_page(METRICS)
    seed_session(at, **seed)
    return at.run()


def test_deep_link_without_data_points_to_the_data_page():
    at = open_page(METRICS).run()
    assert_points_to_the_data_page(at)


def test_without_a_schema_points_to_the_configure_page():
    at = _open(schema=False)
    assert_no_exception(at)
    assert [link.value for link in at.main.page_link] == ["Go to the Configure page"]


def test_every_metric_is_listed_by_family_and_quick_is_the_default():
    at = _open()
    assert_no_exception(at)
    families = [e.label for e in at.expander if e.label not in ("Parameters", "Shared setting: the FAMD projection")]
    assert families == [f for f in registry.FAMILIES if any(m.family == f for m in registry.all_metrics())]
    boxes = {box.key for box in at.checkbox}
    assert boxes == {f"metric::{m.id}" for m in registry.all_metrics()}
    body = texts(at.markdown)
    for info in registry.all_metrics():
        assert info.summary in body
    assert at.session_state["selected_metrics"] == _available(registry.presets()["quick"], at)


def test_presets_select_their_metrics(holdout_metric):
    at = _open(holdout=True)
    for name, ids in registry.presets(holdout=True).items():
        at.button(key=f"preset::{name}").click().run()
        assert_no_exception(at)
        assert at.session_state["selected_metrics"] == _available(ids, at), name
    assert FAKE in at.session_state["selected_metrics"]  # "everything" includes it, holdout present
    at.button(key="preset::clear").click().run()
    assert at.session_state["selected_metrics"] == []
    assert "No metric selected" in texts(at.warning)


@pytest.mark.slow
def test_a_metric_needing_a_holdout_says_why_it_cannot_run(holdout_metric):
    at = _open(holdout=False)
    assert_no_exception(at)
    box = at.checkbox(key=f"metric::{FAKE}")
    assert box.disabled and box.value is False
    entry = next(m.value for m in at.markdown if holdout_metric.summary in m.value)
    assert "Cannot run here" in entry and "needs a holdout table" in entry
    assert "--holdout" not in entry  # command-line hints are not shown on the page
    at.button(key="preset::everything").click().run()
    assert FAKE not in at.session_state["selected_metrics"]
    assert FAKE in texts(at.info)  # named among the metrics left out of the preset

    with_holdout = _open(holdout=True)
    entry = next(m.value for m in with_holdout.markdown if holdout_metric.summary in m.value)
    assert "Can run" in entry
    assert not with_holdout.checkbox(key=f"metric::{FAKE}").disabled


# ------------------------------------------------------------------------------------------ parameters


def _everything():
    """The page with a holdout and every metric that can run selected (so every parameter is shown)."""
    at = _open(holdout=True)
    at.button(key="preset::everything").click().run()
    assert_no_exception(at)
    return at


def test_each_selected_metric_with_parameters_has_a_parameters_expander():
    at = _open()  # the quick preset: air, cvp, dvp and nnaa have parameters
    quick_with_params = [m for m in at.session_state["selected_metrics"] if metric_choice.param_specs(m)]
    assert quick_with_params and "cvp" in quick_with_params
    assert sum(e.label == "Parameters" for e in at.expander) == len(quick_with_params)
    box = at.number_input(key="param::cvp::threshold")
    assert box.value == pytest.approx(0.2) and "Default: 0.2" in box.help
    assert box.min == 0 and box.max == 1
    at.checkbox(key="metric::cvp").uncheck().run()
    assert not any(n.key == "param::cvp::threshold" for n in at.number_input)


def test_setting_a_parameter_stores_only_the_override():
    at = _everything()
    assert at.session_state["metric_params"] == {}  # untouched widgets store nothing
    at.number_input(key="param::cvp::threshold").set_value(0.1).run()
    at.number_input(key="param::linkability::n_neighbors").set_value(3).run()
    assert_no_exception(at)
    assert at.session_state["metric_params"] == {"cvp": {"threshold": 0.1}, "linkability": {"n_neighbors": 3}}
    assert "Changed from the default: Closeness threshold." in texts(at.caption)
    at.number_input(key="param::linkability::n_neighbors").set_value(1).run()  # back to the default
    assert at.session_state["metric_params"] == {"cvp": {"threshold": 0.1}}
    at.multiselect(key="param::inference::aux_cols").set_value(["age"]).run()
    at.text_input(key="param::sd_idr::epsilons").set_value("3, 0.5, 0").run()
    assert at.session_state["metric_params"]["inference"] == {"aux_cols": ["age"]}
    assert at.session_state["metric_params"]["sd_idr"] == {"epsilons": [0.0, 0.5, 3.0]}
    assert not at.error


def test_an_invalid_linkability_split_shows_a_message_and_is_not_stored():
    at = _everything()
    first, second = (at.multiselect(key=f"param::linkability::aux_cols::{i}") for i in (0, 1))
    assert first.value and second.value  # the default split of the key columns
    second.set_value(first.value + ["income"]).run()
    assert "must not share a column" in texts(at.error)
    assert "linkability" not in at.session_state["metric_params"]
    at.multiselect(key="param::linkability::aux_cols::1").set_value([]).run()
    assert "needs at least one column" in texts(at.error)
    assert "linkability" not in at.session_state["metric_params"]
    at.multiselect(key="param::linkability::aux_cols::0").set_value(["age", "sex"]).run()
    at.multiselect(key="param::linkability::aux_cols::1").set_value(["job"]).run()
    assert not at.error
    assert at.session_state["metric_params"]["linkability"] == {"aux_cols": [["age", "sex"], ["job"]]}


def test_invalid_budgets_and_an_empty_inference_set_are_explained_and_not_stored():
    at = _everything()
    at.text_input(key="param::sd_mia::epsilons").set_value("0, -1").run()
    assert "must be a number ≥ 0" in texts(at.error) and "runs with 0, 1, 2, 3" in texts(at.error)
    at.text_input(key="param::sd_mia::epsilons").set_value("one").run()
    assert "'one' is not" in texts(at.error)
    at.multiselect(key="param::inference::aux_cols").set_value([]).run()
    assert "at least one column" in texts(at.error)
    assert at.session_state["metric_params"] == {}


def test_values_survive_a_visit_to_another_page_and_reset_restores_the_defaults():
    at = _everything()
    at.number_input(key="param::mia_domias::bandwidth").set_value(0.5).run()
    at.multiselect(key="param::linkability::aux_cols::1").set_value([]).run()  # invalid: kept as typed
    # as the Data page leaves it after a reference upload
    plain = {"tables": at.session_state["tables"], "metric_params": dict(at.session_state["metric_params"])}
    reference_table.set_reference(plain, LoadedTable.from_frame("ref.csv", people(30, seed=9)))
    at.session_state["reference"] = plain["reference"]
    at.session_state["metric_params"] = plain["metric_params"]
    at.switch_page(CONFIGURE)
    at.run()
    # In a browser session Streamlit forgets the values of widgets that were not drawn in a run.
    for key in ("param::mia_domias::bandwidth", "param::linkability::aux_cols::1"):
        if key in at.session_state:
            del at.session_state[key]
    at.switch_page(METRICS)
    at.run()
    assert_no_exception(at)
    assert at.number_input(key="param::mia_domias::bandwidth").value == 0.5
    assert at.multiselect(key="param::linkability::aux_cols::1").value == []
    assert "needs at least one column" in texts(at.error)
    assert "Reference set: the reference table **ref.csv**" in texts(at.caption)
    at.button(key="param_reset::mia_domias").click().run()
    at.button(key="param_reset::linkability").click().run()
    assert at.number_input(key="param::mia_domias::bandwidth").value == 0.0
    assert at.multiselect(key="param::linkability::aux_cols::1").value  # the default split again
    assert not at.error
    # the reference table (set on the Data page) is not a page parameter: reset keeps it
    # (every metric that declares a reference table gets it: the attacks of the membership battery too)
    assert set(at.session_state["metric_params"]) == set(reference_table.REFERENCE_METRICS) >= {"mia_calibrated", "mia_domias"}
    assert set(at.session_state["metric_params"]["mia_domias"]) == {"reference"}


def test_a_parameter_set_on_the_page_reaches_evaluate():
    at = _open()
    at.button(key="preset::clear").click().run()
    at.checkbox(key="metric::cvp").check().run()
    at.number_input(key="param::cvp::threshold").set_value(0.5).run()
    assert at.session_state["selected_metrics"] == ["cvp"]
    at.switch_page(RESULTS)
    at.run()
    at.button(key="run_evaluation").click().run(timeout=120)
    assert_no_exception(at)
    state = at.session_state
    report = state["results"][state["last_run_key"]]["synth"]
    assert report["cvp"].params["threshold"] == 0.5
    tables, schema = state["tables"], state["schema"]
    expected = evaluate(tables.real.frame, tables.synthetic["synth"].frame, schema, metrics=["cvp"],
                        params={"cvp": {"threshold": 0.5}})["cvp"].risk
    default = evaluate(tables.real.frame, tables.synthetic["synth"].frame, schema, metrics=["cvp"])["cvp"].risk
    assert report["cvp"].risk == pytest.approx(expected) and expected != pytest.approx(default)


def test_famd_axes_setting_reaches_the_run_key():
    from dashboard import runner

    at = open_page(METRICS)
    seed_session(at)
    at.run()
    before = runner.current_run_key(at.session_state)
    at.number_input(key="famd_k_input").set_value(2).run()
    assert_no_exception(at)
    assert at.session_state["famd_components"] == 2
    assert runner.current_run_key(at.session_state) != before


# ------------------------------------------------------------------- the default choice (issue 23 item 1, 5)


def _results_count(at) -> str:
    """The Results page's "N metric(s) on …" line for the state of ``at``."""
    at.switch_page(RESULTS)
    at.run()
    assert_no_exception(at)
    return next(m.value for m in at.markdown if "metric(s) on" in m.value)


def test_with_a_holdout_the_default_choice_runs_the_membership_attacks_and_states_its_time():
    at = _open(holdout=True)
    assert_no_exception(at)
    chosen = at.session_state["selected_metrics"]
    assert "mia_best" in chosen and "mia_distance" in chosen and "crp" in chosen
    assert chosen == _available(registry.quick_metrics(holdout=True), at)
    assert at.session_state[metric_choice.DEFAULT_CHOICE] is True
    body = texts(at.markdown)
    assert "Estimated time:" in body and "40 real, 40 synthetic and 40 holdout rows" in body
    assert "membership attacks" in texts(at.caption)


def test_without_a_holdout_the_page_says_what_to_upload_and_the_default_follows_a_holdout_loaded_later():
    at = _open(holdout=False)
    assert not any(m.startswith("mia_") for m in at.session_state["selected_metrics"])
    assert "upload a holdout" in texts(at.info)
    assert "not used to train the generator" in texts(at.info)
    at.session_state["tables"].holdout = LoadedTable.from_frame("holdout.csv", people(40, seed=3))
    at.run()
    assert_no_exception(at)
    assert "mia_best" in at.session_state["selected_metrics"]
    assert at.checkbox(key="metric::mia_best").value is True


def test_a_choice_made_by_hand_no_longer_follows_the_data():
    at = _open(holdout=False)
    at.checkbox(key="metric::cvp").uncheck().run()
    assert at.session_state[metric_choice.DEFAULT_CHOICE] is False
    at.session_state["tables"].holdout = LoadedTable.from_frame("holdout.csv", people(40, seed=3))
    at.run()
    assert not any(m.startswith("mia_") for m in at.session_state["selected_metrics"])
    at.button(key="preset::quick").click().run()  # the quick preset is the default again: it follows the data
    assert "mia_best" in at.session_state["selected_metrics"]
    assert at.session_state[metric_choice.DEFAULT_CHOICE] is True


def test_metrics_and_results_count_the_same_metrics_and_name_the_one_left_out():
    at = _open(holdout=True)  # no pairing: HidR, in the quick preset, cannot run
    assert "hidr" not in at.session_state["selected_metrics"]
    n = len(at.session_state["selected_metrics"])
    assert f"{n} metric(s) selected" in texts(at.success)
    assert "Left out of the count and of the run" in texts(at.caption) and "Hidden Rate" in texts(at.caption)
    assert _results_count(at).startswith(f"{n} metric(s) on 1 synthetic table(s)")
    assert "Hidden Rate" in texts(at.caption)  # the same note on the Results page
