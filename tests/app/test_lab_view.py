"""The Compare-metrics page's logic (dashboard.lab.view) and the Learn page's lab lessons (dashboard.learn_lab)."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard import progress as PG
from dashboard.lab import estimate as LE
from dashboard.lab import ladder as LL
from dashboard.lab import runs as LR
from dashboard.lab import view as V
from dashboard.learn_lab import Draws, draws_sentence, walkthrough
from dashboard.session.state import LoadedTable
from privcore.data.schema import Schema
from privcore.lab import LabResult


class Upload:
    """A stand-in for Streamlit's UploadedFile: a name, an id and CSV bytes."""

    def __init__(self, name: str, text: str):
        self.name, self.file_id, self._bytes = name, f"id-{name}", text.encode()
        self.size = len(self._bytes)

    def getvalue(self):
        return self._bytes

    def read(self, *args):
        return self._bytes


def test_generated_settings_are_checked_with_the_labs_named_errors():
    settings, error = V.check_generated(["rare_records", "partial_copy"], "1, 0.5", "3", ["crp"], 7)
    assert error is None
    assert settings == {"leaks": ["rare_records", "partial_copy"], "levels": [0.0, 0.5, 1.0], "seeds": 3,
                        "metrics": ["crp"], "seed": 7}
    assert LE.generated_evaluations(settings) == (1 + 2 + 2) * 3
    for args, fragment in [((["nope"], "0,1", 2, ["crp"], 0), "Unknown leak type(s): nope"),
                           ((["partial_copy"], "0,1", 0, ["crp"], 0), "got 0"),
                           ((["partial_copy"], "0,1", 2, ["nope"], 0), "nope"),
                           ((["partial_copy"], "0,1", 2, ["crp"], -1), "seed")]:
        assert V.check_generated(*args)[0] is None and fragment in V.check_generated(*args)[1]


def test_leak_choices_leave_out_the_attribute_leak_without_a_sensitive_column():
    available, unavailable = V.leak_choices(Schema(types={"a": "numerical"}))
    assert "attribute_leak" not in available and "sensitive column" in unavailable["attribute_leak"]
    assert V.leak_choices(Schema(types={"a": "numerical", "b": "categorical"}, sensitive="b"))[1] == {}
    assert V.preset_values("full", available, 3)[V.widget_key("leaks")] == available


def test_estimate_rests_on_the_timing_and_says_it_is_an_estimate():
    timing = LE.Timing(first=3.0, next=1.0)
    assert timing.seconds(1) == 3.0 and timing.seconds(10) == 12.0
    text = LE.estimate_text(timing.seconds(10), 10, timing)
    assert text.startswith("Estimated run time: about 10 s for 10 evaluations")
    assert "an estimate" in text and "3.0 s for the first" in text


def test_timing_is_measured_once_and_an_input_error_becomes_a_message():
    state, calls = {}, []
    measured, error = LE.timing(state, "k", lambda: calls.append(1) or LE.Timing(1.0, 0.5))
    assert error is None and LE.timing(state, "k", lambda: calls.append(1))[0] is measured and calls == [1]
    from privcore.base.errors import InputError

    def bad():
        raise InputError("The synthetic table lacks column 'age'.")

    assert LE.timing(state, "other", bad) == (None, "The synthetic table lacks column 'age'.")


def test_store_keeps_the_most_recent_labs_only():
    state = {}
    for i in range(LR.MAX_CACHED_LABS + 2):
        LR.store(state, f"k{i}", LR.StoredLab(None, {}, None))
    assert list(state[LR.RESULTS]) == [f"k{i}" for i in range(2, LR.MAX_CACHED_LABS + 2)]
    assert LR.cached(state, None) is None and LR.cached(state, "k0") is None


def test_ladder_uploads_get_labels_from_file_names_are_parsed_once_and_can_be_removed():
    state = {}
    csv = "a,b\n1,x\n2,y\n"
    files = [Upload("ctgan_eps0.5.csv", csv), Upload("ctgan.csv", csv), Upload("broken.csv", "")]
    errors = LL.add_ladder_files(state, files)
    assert [name for name, _ in errors] == ["broken.csv"]
    assert [(e.name, e.label) for e in state[LL.LADDER_TABLES]] == [("ctgan_eps0.5", 0.5), ("ctgan", 1.0)]
    assert LL.add_ladder_files(state, files) == [] and len(state[LL.LADDER_TABLES]) == 2
    LL.set_ladder_label(state, "ctgan", 4)
    settings, error = V.check_supplied(state[LL.LADDER_TABLES], ["crp"], 0)
    assert error is None and settings["ladder"] == [("ctgan_eps0.5", 0.5), ("ctgan", 4.0)]
    LL.remove_ladder_table(state, "ctgan")
    assert V.check_supplied(state[LL.LADDER_TABLES], ["crp"], 0)[1].startswith("A supplied ladder needs tables at two")


def test_supplied_labels_must_be_finite_numbers():
    table = LoadedTable.from_frame("t", pd.DataFrame({"a": [1]}))
    entries = [LL.LadderTable("t", table, float("nan")), LL.LadderTable("u", table, 1.0)]
    assert "The label of t" in V.check_supplied(entries, ["crp"], 0)[1]


def test_progress_messages_count_tables():
    seen = []
    tick = PG.progress_update(lambda fraction, message: seen.append((fraction, message)))
    tick(0, 4, "partial_copy at level 0, seed 0")
    tick(4, 4, "statistics")
    assert seen == [(0.0, "Table 1 of 4: partial_copy at level 0, seed 0"), (1.0, "Statistics…")]


@pytest.mark.slow
def test_internal_errors_never_reach_the_user_as_a_traceback(caplog):
    result, error = LR.run_generated(pd.DataFrame({"a": [1.0]}), None, None, {"leaks": None, "levels": None,
                                                                            "seeds": None, "metrics": None,
                                                                            "seed": 0})
    assert result is None and error.startswith("The lab stopped because of an internal error")
    assert "server log" in error and "lab failed" in caplog.text


@pytest.mark.parametrize("resampler, fresh, detected, fragment", [
    ([0.4, 0.5], [0.0, 0.1], True, "more than chance"),
    ([0.05, 0.5], [0.0, 0.1], False, "only 1 of 2 draws"),
    ([0.01, 0.02], [0.3, 0.4], False, "finds it safer than real data"),
    ([0.05, 0.2], [0.1, 0.3], False, "the two overlap"),
])
def test_draws_sentence_says_what_the_draws_show(resampler, fresh, detected, fragment):
    assert fragment in draws_sentence("X", Draws("x", resampler, fresh, detected))


def test_walkthrough_names_who_notices_and_who_never_does():
    result = LabResult(runs=[], detection={"crp": {"partial_copy": 0.5, "column_resample": None},
                                           "dcr": {"partial_copy": 1.0, "column_resample": None}},
                       agreement={}, summary={}, curves={}, monotonicity={},
                       settings={"leaks": ["partial_copy", "column_resample"], "metrics": ["crp", "dcr"]})
    assert walkthrough(result) == [
        "**Partial copies**: noticed by CRP from level 0.5; noticed by DCR from level 1.",
        "**The negative control (per-column resampling)**: none of the metrics noticed it (CRP, DCR)."]
