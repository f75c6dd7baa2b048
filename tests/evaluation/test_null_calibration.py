"""A fresh sample of real people answers "release" (issue 60; metrics.md §5 "Which metrics may move the verdict").

A fresh sample is a "synthetic" table of real people drawn from the same population as the real table, touched by
no generator: nothing leaks. With a holdout every path must answer "release"; without one the table cannot be
cleared (no attack can be weighed), so the answer is "release with caution" by rule, saying only why and what to
upload, and never "do not release": no metric's evidence pushes it down.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privcore import Schema, evaluate
from privcore.demo import load_scenario
from privcore.evaluation.verdict import CAUTION, DO_NOT_RELEASE, RELEASE, UPLOAD_HOLDOUT, verdict
from privcore.metrics import registry

SMALL_TYPES = {"age": "numerical", "sex": "binary", "region": "categorical", "income": "categorical"}
#: The presets of the Metrics page a fresh sample is checked under ("all" is the command line's default).
PRESETS = ("quick", "all", "all 17 review metrics", "attacks (needs holdout)")


def small_population(n: int, seed: int) -> pd.DataFrame:
    """``n`` people of a 4-column population with few distinct rows (age in 5-year steps): many repeated rows."""
    rng = np.random.default_rng(seed)
    region = rng.choice(["north", "south", "east", "west", "centre"], size=n, p=[0.3, 0.25, 0.2, 0.15, 0.1])
    sex = rng.choice(["f", "m"], size=n)
    age = np.clip(np.round(rng.normal(45, 14, size=n) / 5) * 5, 20, 85)
    score = (age - 45) / 20 + (sex == "m") * 0.4 + (region == "centre") * 0.5 + rng.normal(0, 1, size=n)
    income = np.where(score < -0.4, "low", np.where(score < 0.8, "mid", "high"))
    return pd.DataFrame({"age": age, "sex": sex, "region": region, "income": income})


def small_tables(n: int = 500, seed: int = 0, ratio: int = 1):
    """Real, holdout and fresh synthetic tables of the small domain (disjoint draws of one population)."""
    people = small_population((2 + ratio) * n, seed)
    real, holdout, synthetic = people.iloc[:n], people.iloc[n:2 * n], people.iloc[2 * n:]
    return [t.reset_index(drop=True) for t in (real, holdout, synthetic)], Schema(SMALL_TYPES, sensitive="income")


def adult_tables(n: int = 500):
    d = load_scenario("fresh_sample", n=n)
    return [d.real, d.holdout, d.synthetic], Schema(types=dict(d.types), key=list(d.key), sensitive=d.sensitive)


def answer(tables, schema, metrics, with_holdout: bool):
    real, holdout, synthetic = tables
    params = {m: {"n_boot": 200} for m in registry.metric_ids() if m.startswith("mia_")}
    report = evaluate(real, synthetic, schema, metrics=metrics, holdout=holdout if with_holdout else None,
                      params=params, seed=0)
    return report, verdict(report)


@pytest.fixture(scope="module")
def small():
    return small_tables()


@pytest.fixture(scope="module")
def adult():
    return adult_tables()


def _shown(v):
    return [e.text for e in v.evidence] + list(v.not_tested)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("family", ["small", "adult"])
def test_a_fresh_sample_with_a_holdout_is_released(preset, family, request):
    tables, schema = request.getfixturevalue(family)
    _, v = answer(tables, schema, preset, True)
    assert v.level == RELEASE, _shown(v)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("family", ["small", "adult"])
def test_a_fresh_sample_without_a_holdout_says_only_why_it_cannot_be_cleared(preset, family, request):
    tables, schema = request.getfixturevalue(family)
    _, v = answer(tables, schema, preset, False)
    assert v.level == CAUTION, _shown(v)  # no attack can be weighed without a holdout: never cleared, never worse
    assert not [e.metric for e in v.evidence if e.pushes_to != RELEASE], _shown(v)
    assert "cannot be cleared" in v.headline and "holdout" in v.headline
    assert v.next_step == UPLOAD_HOLDOUT


def test_sd_idr_is_read_against_a_fresh_sample_of_the_same_size(small):
    # SD-IDR of a fresh sample of coarse data is far above 0 (0.4 here): only its excess over IDR(Y, H) may count.
    tables, schema = small
    report, v = answer(tables, schema, ["sd_idr", "mia_distance"], True)
    result = report["sd_idr"]
    assert result.risk > 0.2 and result.baseline is not None and result.size_match is not None
    assert result.size_match.interval[0] <= 0 <= result.size_match.interval[1]
    assert all(e.pushes_to == RELEASE for e in v.evidence if e.metric == "sd_idr")
    assert registry.get("sd_idr").baseline and registry.get("sd_idr").size_matched


def test_member_tests_are_read_against_their_groups_relabelled_at_random(adult):
    tables, schema = adult
    report, _ = answer(tables, schema, ["dcr_test", "nndr_test", "ims_test", "sd_mia", "mia_distance"], True)
    for metric_id in ("dcr_test", "nndr_test", "ims_test", "sd_mia"):
        match = report[metric_id].size_match
        assert match is not None and match.method == "permutation", metric_id
        assert match.interval[0] <= 0, (metric_id, match)
        assert "relabelled at random" in match.describe()


def test_without_a_holdout_anonymeter_and_classifiers_are_not_weighed_and_say_why(adult):
    tables, schema = adult
    report, v = answer(tables, schema, ["singling_out_univariate", "inference", "dmlp", "dvp", "crp"], False)
    assert report["inference"].applicable and report["inference"].risk > 0.3  # a fresh sample scores high too
    assert v.level != DO_NOT_RELEASE
    weighed = {e.metric for e in v.evidence}
    assert not weighed & {"singling_out_univariate", "inference", "dmlp", "dvp"}
    lines = "\n".join(v.not_tested)
    assert "without a control" in lines and "fidelity" in lines and "DVP cannot tell" in lines


def test_without_a_holdout_an_exact_copy_is_still_caught_by_similarity(adult):
    # The split of the real table (half against half) is a reference that exists: an exact copy stands out.
    (real, holdout, _), schema = adult
    report, v = answer([real, holdout, real.copy()], schema, "quick", False)
    crp = report["crp"].size_match
    assert crp is not None and crp.method == "split" and crp.beyond_chance
    assert v.level == CAUTION and any(e.pushes_to == CAUTION and e.kind == "similarity" for e in v.evidence)
    assert "similarity" in v.headline


@pytest.mark.slow
def test_leaks_are_still_caught_with_a_holdout(adult):
    (real, holdout, _), schema = adult
    _, v = answer([real, holdout, real.copy()], schema, "all", True)
    assert v.level == DO_NOT_RELEASE


SHAPES = st.fixed_dictionaries({
    "family": st.sampled_from(["small", "adult"]),
    "n": st.integers(150, 500),
    "ratio": st.sampled_from([1, 3]),
    "holdout": st.booleans(),
    "preset": st.sampled_from(["quick", "all"]),
    "seed": st.integers(0, 2**16),
})


@pytest.mark.slow
@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(shape=SHAPES)
def test_no_fresh_sample_of_any_drawn_shape_is_told_not_to_release(shape):
    if shape["family"] == "small":
        tables, schema = small_tables(shape["n"], shape["seed"], shape["ratio"])
    else:
        d = load_scenario("fresh_sample", n=(2 + shape["ratio"]) * shape["n"] // 3 + 1)
        rng = np.random.default_rng(shape["seed"])
        n = shape["n"]
        pool = pd.concat([d.real, d.holdout, d.synthetic], ignore_index=True)
        order = rng.permutation(len(pool))
        take = [order[:n], order[n:2 * n], order[2 * n:(2 + shape["ratio"]) * n]]
        tables = [pool.iloc[i].reset_index(drop=True) for i in take]
        schema = Schema(types=dict(d.types), key=list(d.key), sensitive=d.sensitive)
    _, v = answer(tables, schema, shape["preset"], shape["holdout"])
    assert v.level != DO_NOT_RELEASE, (shape, _shown(v))
    assert not [e.metric for e in v.evidence if e.pushes_to == DO_NOT_RELEASE], shape


def test_distances_rescaled_by_their_extremes_are_compared_with_a_fresh_sample_on_one_scale():
    # Real, holdout and synthetic people of one numerical population; the synthetic table holds one person far off,
    # whose pair with the real table is the farthest of all: on each table's own scale every n(y) of the synthetic
    # table shrinks, and NSND's risk (1 − mean n) reads far above the holdout's although the people are as far.
    rng = np.random.default_rng(5)
    columns = [f"x{i}" for i in range(6)]
    real, holdout, synthetic = (pd.DataFrame(rng.normal(size=(300, 6)), columns=columns) for _ in range(3))
    synthetic.iloc[0] = 40.0
    schema = Schema({c: "numerical" for c in columns})
    report = evaluate(real, synthetic, schema, metrics=["nsnd", "cvp"], holdout=holdout, seed=0)
    nsnd = report["nsnd"]
    assert nsnd.risk - nsnd.baseline > 0.05  # each table's own scale: a difference of scales, not of closeness
    for metric_id in ("nsnd", "cvp"):
        match = report[metric_id].size_match
        assert match.one_scale and "rescaled by the holdout's d_min and d_max" in match.describe()
        assert abs(match.excess) < 0.03 and match.interval[0] <= 0  # one scale: no closer than a fresh sample
    assert not [e for e in verdict(report).evidence if e.pushes_to != RELEASE]
    # The same far-off person among copies of the real people: one scale still sees them as copies.
    copied = real.copy()
    copied.iloc[0] = 40.0
    leak = evaluate(real, copied, schema, metrics=["nsnd"], holdout=holdout, seed=0)["nsnd"].size_match
    assert leak.excess > 0.05 and leak.interval[0] > 0  # all the way to the largest excess NSND allows here
