"""Metrics page: families, presets, and why a metric cannot run on the loaded data."""

import pytest

from dashboard import data_io
from privcore import registry
from privcore.registry import Explanation, MetricInfo
from .conftest import METRICS, assert_no_exception, open_page, seed_session, texts

FAKE = "test_needs_holdout"


@pytest.fixture
def holdout_metric():
    """A registered metric that needs a holdout, whatever the real metric modules provide today."""
    info = MetricInfo(
        id=FAKE, name="Test holdout metric", family="Membership inference",
        summary="Only for the dashboard tests.", attacker_knows="Nothing.",
        needs=frozenset({"holdout"}), per_record_unit="none", raw_meaning="", reference="",
        explanation=Explanation(attack="", steps=(), high="", low="", blind_spots=""),
        compute=lambda ctx: None,
    )
    registry.register(info)
    yield info
    registry._REGISTRY.pop(FAKE, None)


def _available(ids, at):
    """The ids that can run on the data seeded in ``at`` (computed apart from the page)."""
    reasons = data_io.metric_availability(at.session_state["tables"], at.session_state["schema"])
    return [m for m in ids if reasons[m] is None]


def _open(**seed):
    at = open_page(METRICS)
    seed_session(at, **seed)
    return at.run()


def test_deep_link_without_data_points_to_the_data_page():
    at = open_page(METRICS).run()
    assert_no_exception(at)
    assert "Data page" in texts(at.info)
    assert [link.value for link in at.page_link] == ["Go to the Data page"]


def test_without_a_schema_points_to_the_configure_page():
    at = _open(schema=False)
    assert_no_exception(at)
    assert [link.value for link in at.page_link] == ["Go to the Configure page"]


def test_every_metric_is_listed_by_family_and_quick_is_the_default():
    at = _open()
    assert_no_exception(at)
    families = [e.label for e in at.expander]
    assert families == [f for f in registry.FAMILIES if any(m.family == f for m in registry.all_metrics())]
    boxes = {box.key for box in at.checkbox}
    assert boxes == {f"metric::{m.id}" for m in registry.all_metrics()}
    body = texts(at.markdown)
    for info in registry.all_metrics():
        assert info.summary in body
    assert at.session_state["selected_metrics"] == _available(registry.presets()["quick"], at)


def test_presets_select_their_metrics(holdout_metric):
    at = _open(holdout=True)
    for name, ids in registry.presets().items():
        at.button(key=f"preset::{name}").click().run()
        assert_no_exception(at)
        assert at.session_state["selected_metrics"] == _available(ids, at), name
    assert FAKE in at.session_state["selected_metrics"]  # "everything" includes it, holdout present
    at.button(key="preset::clear").click().run()
    assert at.session_state["selected_metrics"] == []
    assert "No metric selected" in texts(at.warning)


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
