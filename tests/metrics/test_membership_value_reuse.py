"""The value-reuse membership attack and the lab's value-reuse leak (issue 43, item 1).

Hand-computed scores on a tiny table (a user reference table fixes members, non-members and R), the
per-record sentence the record explorer shows, hypothesis properties (finite, ≥ 0, row order free), and the
issue's demonstration on the demo population: a generator that reuses a nearly unique column's values
(the ``value_reuse`` leak) is caught clearly by the attack and by ``mia_best``, a fresh sample is not.

The vendored Adult extract has no ``fnlwgt`` (its 14 columns leave the census weight out), so the demo
population gets a stand-in: a seeded log-normal integer weight per person (94 % of the 32,561 values
distinct, as Adult's own ``fnlwgt`` has 21,648 distinct values).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privcore import evaluate
from privcore.data.schema import Schema
from privcore.demo import ADULT_TYPES, load_adult, sample_positions
from privcore.evaluation import interpret as R
from privcore.generators import LADDER, make_generator
from privcore.metrics import registry
from privcore.metrics.membership import value_reuse
from privcore.metrics.membership.reuse import reasons
from privcore.metrics.membership.stacked import input_attacks

N = 1500


def run(real, synthetic, holdout, reference, metrics=("mia_value_reuse",), types=None, seed=0):
    types = types or {c: "numerical" for c in real.columns}
    params = {m: {"n_boot": 200, "reference": reference} for m in metrics}
    return evaluate(real, synthetic, Schema(dict(types)), metrics=list(metrics), holdout=holdout, seed=seed,
                    params=params, strict=True)


# ------------------------------------------------------------------------------------------------
# By hand
# ------------------------------------------------------------------------------------------------

# Members are all of REAL and non-members all of HOLD (equal sizes, a user reference table).
REAL = pd.DataFrame({"w": [101.0, 102.0, 103.0], "sex": ["F", "M", "F"]})
HOLD = pd.DataFrame({"w": [201.0, 202.0, 203.0], "sex": ["F", "F", "M"]})
SYN = pd.DataFrame({"w": [101.0, 103.0, 103.0, 202.0, 999.0], "sex": ["F", "F", "F", "F", "F"]})
REF = pd.DataFrame({"w": [103.0, 300.0, 301.0, 302.0], "sex": ["F", "F", "F", "M"]})
TYPES = {"w": "numerical", "sex": "binary"}


def test_scores_by_hand():
    # |R| = 4. w: 101 (in Z, 0 in R) → log 5; 102 (not in Z) → 0; 103 (in Z, 1 in R) → log 5/2; 201, 203 not in Z;
    # 202 in Z, 0 in R → log 5. sex: F in Z, 3 in R → log 5/4; M not in Z → 0.
    res = run(REAL, SYN, HOLD, REF, types=TYPES)["mia_value_reuse"]
    f = math.log(5 / 4)
    assert res.per_record == pytest.approx([math.log(5) + f, 0.0, math.log(5 / 2) + f])
    assert res.details.member_scores == pytest.approx([math.log(5) + f, 0.0, math.log(5 / 2) + f])
    assert res.details.nonmember_scores == pytest.approx([f, math.log(5) + f, 0.0])
    # Each member against each non-member (ties ½): 1 + ½ + 1, 0 + 0 + ½, 1 + 0 + 1 of 9 pairs.
    assert res.raw == pytest.approx(5 / 9)


def test_reasons_name_the_heaviest_reused_value():
    res = run(REAL, SYN, HOLD, REF, types=TYPES)["mia_value_reuse"]
    got = list(res.details.reasons)
    assert got[0] == ("w = 101 appears 1 time in the release and in 0 % of real people (0 of the 4 in the "
                      "reference).")
    assert got[1] == "None of its values appears in the release."
    assert got[2].startswith("w = 103 appears 2 times in the release and in 25 % of real people (1 of the 4")


def test_the_record_explorer_says_which_value_gave_a_person_away():
    report = run(REAL, SYN, HOLD, REF, types=TYPES)
    answer = R.person_at_risk(report, "mia_value_reuse", 0)
    assert "What gave the score: w = 101 appears 1 time in the release" in answer.text
    # The worked computation lists the same sentence among the per-record quantities.
    per_record, _ = R.worked_computation(report, "mia_value_reuse", 0)
    assert "w = 101 appears 1 time" in dict(per_record.values.tolist())["reasons"]


def test_missing_is_a_value_and_numbers_are_compared_exactly():
    records = pd.DataFrame({"x": [1.0, 1.0000001, np.nan]})
    got = value_reuse(records, pd.DataFrame({"x": [1.0, np.nan]}), pd.DataFrame({"x": [5.0, 6.0, 7.0]}), ["x"])
    assert got.scores.tolist() == pytest.approx([math.log(4), 0.0, math.log(4)])
    assert reasons(records, got)[2].startswith("x = missing appears 1 time")


# ------------------------------------------------------------------------------------------------
# Properties
# ------------------------------------------------------------------------------------------------

values = st.lists(st.sampled_from([0.0, 1.0, 2.5, 7.0, 1e6, -3.0, np.nan]), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values, values, values, st.randoms(use_true_random=False))
def test_scores_are_finite_non_negative_and_free_of_row_order(records, synthetic, reference, rnd):
    frames = [pd.DataFrame({"x": v, "c": [str(a) for a in v]}) for v in (records, synthetic, reference)]
    got = value_reuse(*frames, ["x", "c"])
    assert np.all(np.isfinite(got.scores)) and np.all(got.scores >= 0)
    # At most log(|R| + 1) per column.
    assert np.all(got.scores <= 2 * math.log(len(reference) + 1) + 1e-12)
    shuffled = [f.sample(frac=1.0, random_state=rnd.randrange(2**31)).reset_index(drop=True) for f in frames[1:]]
    order = np.array(rnd.sample(range(len(records)), len(records)))
    again = value_reuse(frames[0].iloc[order].reset_index(drop=True), *shuffled, ["x", "c"])
    assert again.scores == pytest.approx(got.scores[order], abs=1e-12)


# ------------------------------------------------------------------------------------------------
# The demonstration on the demo population
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def population():
    """Training, holdout and fresh real people of the demo population, with a nearly unique weight column."""
    adult = load_adult()
    adult["fnlwgt"] = np.round(np.random.default_rng(43).lognormal(12.0, 0.5, len(adult))).astype(int)
    types = {**ADULT_TYPES, "fnlwgt": "numerical"}
    real, holdout, fresh = (adult.iloc[p].reset_index(drop=True) for p in sample_positions(N, parts=3))
    return real, holdout, fresh, types


def _evaluate(population, synthetic, metrics):
    real, holdout, _, types = population
    return evaluate(real, synthetic, Schema(types), metrics=list(metrics), holdout=holdout, seed=0,
                    params={m: {"n_boot": 300} for m in metrics}, strict=True)


def test_value_reuse_is_a_lab_leak_type_that_reuses_the_unique_column(population):
    real, _, fresh, types = population
    assert "value_reuse" in LADDER
    generator = make_generator("value_reuse", level=1.0, population=fresh).fit(real, types)
    assert generator.columns == ["fnlwgt"]  # the numerical column with the most distinct values
    synthetic = generator.sample(N, 0)
    # Every row keeps a fresh person's other values and takes a training record's weight.
    assert set(synthetic["fnlwgt"]) == set(real["fnlwgt"])
    others = [c for c in real.columns if c != "fnlwgt"]
    assert synthetic[others].equals(make_generator("fresh_sample", population=fresh).fit(real, types).sample(N, 0)[
        others])


@pytest.mark.slow
def test_the_attack_catches_reused_unique_values_and_mia_best_picks_it_up(population):
    real, _, fresh, types = population
    synthetic = make_generator("value_reuse", level=1.0, population=fresh).fit(real, types).sample(N, 0)
    report = _evaluate(population, synthetic, ("mia_value_reuse", "mia_distance", "mia_best"))
    attack = report["mia_value_reuse"]
    assert attack.raw >= 0.75 and attack.details.auc_interval[0] > 0.7
    # The distance attack reads this release at chance: the rest of every row is a fresh person's.
    assert report["mia_distance"].details.auc_interval[0] < 0.5 < report["mia_distance"].details.auc_interval[1]
    best = report["mia_best"]
    assert "mia_value_reuse" in best.details.attacks
    assert best.raw >= 0.75 and best.details.held_out_auc_interval[0] > 0.7
    # Nearly every training record is given away by its own reused weight, and the record explorer says so.
    named = np.array([r.startswith("fnlwgt = ") for r in attack.details.reasons])
    assert named.mean() > 0.8
    row = int(np.flatnonzero(named)[0])
    assert attack.details.reasons[row].startswith(f"fnlwgt = {real['fnlwgt'].iloc[row]} appears")
    assert "What gave the score: fnlwgt =" in R.person_at_risk(report, "mia_value_reuse", row).text


@pytest.mark.slow
def test_without_the_attack_mia_best_misses_the_leak(population, monkeypatch):
    """The leak is the value-reuse attack's own: with the battery as it was, mia_best reads it near chance."""
    from privcore.metrics.membership import best as membership_best
    from privcore.metrics.membership import stacked as membership_stacked

    real, _, fresh, types = population
    synthetic = make_generator("value_reuse", level=1.0, population=fresh).fit(real, types).sample(N, 0)
    without = tuple(a for a in registry.battery_ids() if a != "mia_value_reuse")
    monkeypatch.setattr(membership_best, "battery_ids", lambda: without)
    monkeypatch.setattr(membership_stacked, "battery_ids", lambda: without)
    best = _evaluate(population, synthetic, ("mia_best",))["mia_best"]
    assert best.raw < 0.6


def test_a_fresh_sample_sits_at_chance(population):
    _, _, fresh, _ = population
    report = _evaluate(population, fresh, ("mia_value_reuse",))
    low, high = report["mia_value_reuse"].details.auc_interval
    assert low < 0.5 < high


def test_the_attack_feeds_the_stacked_attack():
    assert "mia_value_reuse" in registry.battery_ids() and "mia_value_reuse" in input_attacks()
