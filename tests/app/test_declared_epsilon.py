"""A declared ε-differential-privacy guarantee on the Data page reaches the answer on the Results page (issue 36)."""

from __future__ import annotations

import pytest

from dashboard import uploads

from .conftest import DATA, assert_no_exception, open_page, texts
from .test_results_page import RESULTS, RUN_TIMEOUT, seed_demo


def test_a_bad_epsilon_is_refused_on_the_data_page_with_what_to_give():
    at = seed_demo(open_page(DATA))
    at.session_state[uploads.epsilon_key("noisy")] = "-2"
    at.run()
    assert_no_exception(at)
    assert "must be a number above 0" in texts(at.error) and "“noisy”" in texts(at.error)


@pytest.mark.slow
def test_a_declared_epsilon_is_read_against_the_attacks_without_a_new_run():
    at = seed_demo(open_page(RESULTS), metrics=["mia_distance", "mia_best"]).run()
    at.button(key="run_evaluation").click().run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    assert "declared guarantee" not in texts(at.markdown)
    key = at.session_state["last_run_key"]
    at.session_state[uploads.epsilon_key("noisy")] = "1"
    at.run(timeout=RUN_TIMEOUT)
    assert_no_exception(at)
    assert at.session_state["last_run_key"] == key  # the same results, read against the declaration
    shown = texts(at.markdown)
    # The noisy copy leaks: an ε = 1 generator could not let an attack reach it.
    assert "the declared guarantee is broken" in shown and "0.731" in shown
