"""The Results page's membership view (dashboard.membership_view; issue 14 item 4)."""

from __future__ import annotations

import doctest

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import membership_view as V
from privcore import Schema, evaluate
from privcore.base import epsilon_words
from privcore.demo import load_scenario
from privcore.metrics.registry import battery_ids


def _report(name, metrics=("mia_best",), n=400):
    d = load_scenario(name, n=n)
    return evaluate(d.real, d.synthetic, Schema(types=dict(d.types)), metrics=list(metrics), holdout=d.holdout,
                    params={m: {"n_boot": 50} for m in metrics}, strict=True)


@pytest.fixture(scope="module")
def copy_report():
    return _report("exact_copy")


def test_docstring_examples():
    assert doctest.testmod(V).failed == 0


def test_the_table_lists_every_attack_with_low_fpr_rates(copy_report):
    details = V.battery_details(copy_report)
    table = V.membership_table(details)
    assert len(table) == len(battery_ids()) and list(table["strongest"]).count("★ strongest") == 1
    assert {"AUC", "95 % interval", "p (Holm)", "TPR at FPR 0.1 %", "TPR at FPR 1 %", "TPR at FPR 10 %"} <= set(table)
    assert set(table["TPR at FPR 0.1 %"]) == {"n/a"}  # 200 non-members cannot show an FPR of 0.1 %
    strongest = table[table["strongest"] != ""].iloc[0]
    assert strongest["attack"] == V.short_attack(details.selected_attack)


def test_the_summary_states_the_epsilon_bound_in_one_sentence(copy_report):
    details = V.battery_details(copy_report)
    text = V.membership_summary(details)
    assert "better than a coin flip" in text and "no generator that is differentially private with ε below" in (
        text.lower())
    # Written as everywhere else (the answer too): two significant digits, rounded down.
    assert f"ε below {epsilon_words(details.epsilon_lower_bound)} " in text


def test_without_mia_best_there_is_nothing_to_show():
    assert V.battery_details(_report("exact_copy", ("mia_distance",))) is None
    assert V.battery_details(None) is None


def test_the_view_renders_the_table_and_both_figures(copy_report):
    def page(report):
        from dashboard.membership_view import membership_view

        membership_view(report, key="t")

    at = AppTest.from_function(page, args=(copy_report,), default_timeout=60).run()
    assert not at.exception
    assert len(at.dataframe) == 2  # every attack, and the choice on each half
    assert f"strongest of {len(battery_ids())} membership attacks" in at.markdown[1].value
    assert len(at.get("plotly_chart")) == 2
    empty = AppTest.from_function(page, args=(_report("exact_copy", ("mia_distance",)),), default_timeout=60).run()
    assert not empty.exception and "strongest attack" in empty.caption[0].value


def test_the_learn_paragraph_explains_low_fpr_and_epsilon():
    assert "low FPR" in V.LEARN_LOW_FPR and "ε" in V.LEARN_LOW_FPR and "log-log" in V.LEARN_LOW_FPR


def test_the_view_says_which_attack_each_half_chose_and_how_often_the_choices_agreed(copy_report):
    details = V.battery_details(copy_report)
    table = V.choice_table(details)
    assert list(table["chosen on half"]) == ["A", "B"] and list(table["counted on half"]) == ["B", "A"]
    assert list(table["attack chosen"]) == [V.short_attack(s.attack) for s in details.splits]
    assert all(value.endswith(" %") for value in table["led on resamples"])
    text = V.membership_summary(details)
    if details.choices_agree:
        assert "Both halves chose the same attack" in text
    else:
        assert "The halves disagreed" in text
    assert f"{100 * details.splits[0].choice_votes.get(details.splits[0].attack, 0):.0f} %" in text
    assert "resamples" in details.choice_rule

