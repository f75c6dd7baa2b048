"""Reproduced identifiers (issue 56 item 3): members' names found in the synthetic table, against the holdout's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore import Schema, evaluate
from privcore.evaluation.verdict import DO_NOT_RELEASE, RELEASE, verdict
from privcore.metrics.identifiers import ValueIndex, found_people, normalised, rarity_weights, within_one_edit

LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz"))


def levenshtein(a: str, b: str) -> int:
    """The textbook dynamic programme, as the reference for :func:`within_one_edit`."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
    return row[-1]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcé ", max_size=7), st.text(alphabet="abcé ", max_size=7))
def test_within_one_edit_agrees_with_levenshtein(a, b):
    assert within_one_edit(a, b) == (levenshtein(a, b) <= 1)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="abcd", min_size=1, max_size=6), min_size=1, max_size=30),
       st.text(alphabet="abcd", min_size=1, max_size=6))
def test_the_index_finds_exactly_the_rows_one_edit_away(values, query):
    index = ValueIndex(values)
    expected = [row for row, v in enumerate(values)
                if (levenshtein(query, v) <= 1 if min(len(query), len(v)) >= 4 else query == v)]
    assert index.rows(query) == expected


def test_values_are_compared_as_written_alike():
    assert normalised("  ANNE  Marie") == normalised("anne marie") == "anne marie"
    assert normalised("Ｊｏｈｎ") == "john"  # full-width letters (NFKC)
    assert normalised(None) is None and normalised(" ") is None


def test_found_people_by_hand():
    people = {"first": ["anna", "bert", None, "carl"], "last": ["smith", "jones", "x", "brown"]}
    synthetic = {"first": ["anna", "bert", "carl"], "last": ["smyth", "jonas", "white"]}
    # anna smith ~ anna smyth (one edit); bert jones ~ bert jonas (one edit); carl brown: last name differs; the
    # third person has no first name.
    assert found_people(people, synthetic, fuzzy={"first", "last"}).tolist() == [True, True, False, False]
    assert found_people(people, synthetic, fuzzy=set()).tolist() == [False, False, False, False]
    # values of one person must be in one synthetic row: anna's first name and carl's last name do not make one
    people = {"first": ["anna"], "last": ["white"]}
    assert found_people(people, synthetic, fuzzy=set()).tolist() == [False]


def test_rarity_weights_count_people_with_the_same_values():
    keys = [("john", "smith"), ("john", "smith"), ("ada", "byron"), (None, "x")]
    assert rarity_weights(keys).tolist() == [0.5, 0.5, 1.0, 0.0]


def people(n: int, seed: int, names: tuple[np.ndarray, np.ndarray]) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    firsts, lasts = names
    weights = 1 / np.arange(1, len(firsts) + 1)
    born = pd.Timestamp("1950-01-01") + pd.to_timedelta(rng.integers(0, 15000, n), unit="D")
    return pd.DataFrame({"first": rng.choice(firsts, n, p=weights / weights.sum()), "last": rng.choice(lasts, n),
                         "born": born.strftime("%Y-%m-%d"), "height": rng.integers(150, 200, n),
                         "team": rng.choice(list("abcdef"), n)})


@pytest.fixture(scope="module")
def population():
    rng = np.random.default_rng(7)

    def names(k, lo, hi):
        return np.array(["".join(rng.choice(LETTERS, rng.integers(lo, hi))).title() for _ in range(k)])
    return names(150, 4, 8), names(1500, 5, 10)


SCHEMA = Schema({"first": "identifier", "last": "identifier", "born": "date", "height": "numerical",
                 "team": "categorical"})


def test_a_fresh_sample_finds_no_more_members_than_chance(population):
    real, synthetic, holdout = (people(800, seed, population) for seed in (1, 2, 3))
    report = evaluate(real, synthetic, SCHEMA, metrics=["reproduced_identifiers"], holdout=holdout)
    result = report["reproduced_identifiers"]
    assert result.applicable and result.interval[0] <= 0.0 + 1e-12
    assert verdict(report).level == RELEASE


def test_planted_name_copies_are_found_and_stop_the_release(population):
    real, synthetic, holdout = (people(800, seed, population) for seed in (1, 2, 3))
    copied = np.random.default_rng(0).choice(800, 60, replace=False)
    synthetic.loc[copied, ["first", "last"]] = real.loc[copied, ["first", "last"]].to_numpy()
    synthetic.loc[copied[:5], "born"] = real.loc[copied[:5], "born"].to_numpy()
    report = evaluate(real, synthetic, SCHEMA, metrics=["reproduced_identifiers"], holdout=holdout)
    d = report["reproduced_identifiers"].details
    chance = d.holdout_found[0]
    assert d.members_found[0] >= 60 and d.members_found[0] - chance >= 50
    with_birth = d.checks.index("first + last + born (exactly)")
    assert d.members_found[with_birth] >= 5 and d.holdout_found[with_birth] <= 1
    assert all("*" in example for example in d.examples) and len(d.examples) == 5
    answer = verdict(report)
    assert answer.level == DO_NOT_RELEASE
    assert "members' first + last (exactly) are in the synthetic table" in answer.evidence[0].text


def test_without_a_holdout_it_counts_but_never_decides(population):
    real, synthetic = people(400, 1, population), people(400, 2, population)
    synthetic.loc[:99, ["first", "last"]] = real.loc[:99, ["first", "last"]].to_numpy()
    report = evaluate(real, synthetic, SCHEMA, metrics=["reproduced_identifiers", "crp"])
    result = report["reproduced_identifiers"]
    assert not result.applicable and not result.failed
    assert "members' first + last (exactly) found in the synthetic table" in result.reason
    assert "upload a holdout" in result.reason
    assert verdict(report).level != DO_NOT_RELEASE


def test_without_identifier_columns_it_says_how_to_declare_them():
    real = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", "y", "x"]})
    report = evaluate(real, real.copy(), metrics=["reproduced_identifiers"], holdout=real.copy())
    assert "--identifier" in report["reproduced_identifiers"].reason


def test_the_figure_compares_members_with_the_holdout(population):
    from privcore.report.figures import metric_figures

    real, synthetic, holdout = (people(300, seed, population) for seed in (1, 2, 3))
    synthetic.loc[:29, ["first", "last"]] = real.loc[:29, ["first", "last"]].to_numpy()
    report = evaluate(real, synthetic, SCHEMA, metrics=["reproduced_identifiers"], holdout=holdout)
    figures = metric_figures(report, "reproduced_identifiers")
    assert len(figures) == 1
    figure = figures[0]
    members, chance = figure.fig.data
    assert members.y[0] == "first + last (exactly)" and members.x[0] >= 30 / 300
    assert chance.x[0] < members.x[0]
    assert "never saw" in figure.caption and "first + last (exactly)" in figure.alt
