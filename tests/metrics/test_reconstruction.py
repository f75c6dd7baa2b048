"""The reconstruction family (issue 40 items 1, 2 and 5): scores by hand, the advantage on the demo's ladder, the
honest best, the verdict and the JSON."""

from __future__ import annotations

import json

import jsonschema
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore import Schema, evaluate
from privcore.demo import load_scenario
from privcore.evaluation.verdict import DO_NOT_RELEASE, verdict
from privcore.metrics.reconstruction import _base as reconstruction_base
from privcore.metrics.reconstruction._base import (
    DRAW_BLOCK,
    advantage_interval,
    column_score,
    hits,
    secret_columns,
    table_score,
    truth_of,
)
from privcore.report.json_schema import report_schema

ALL = "recon_nearest,recon_learned,recon_best"
#: What the attacker knows in the ladder tests: demographics; the rest of the record is secret.
DEMOGRAPHICS = ["age", "gender", "race", "marital-status", "native-country", "relationship"]


def _steveng9(truth: list, guess: list) -> float:
    """The NIST CRC red team's categorical score, written out as in their scoring.py (rarity weight N / n_v)."""
    n = len(truth)
    counts = pd.Series(truth).value_counts()
    weights = np.array([n / counts[v] for v in truth])
    right = np.array([t == g for t, g in zip(truth, guess)], dtype=float)
    return float((right * weights).sum() / weights.sum())


def test_rarity_weighted_accuracy_by_hand():
    # Five targets: "a" ×3, "b" ×1, "c" ×1. Right: two of the "a", the "c". Weights 5/3, 5, 5; the largest sum is
    # 3·5/3 + 5 + 5 = 15; the score (2·5/3 + 5) / 15 = 0.5556 — the mean of the recalls 2/3, 0, 1.
    truth = truth_of(pd.DataFrame({"s": ["a", "a", "a", "b", "c"]}), "s", "categorical", float("nan"))
    hit = hits(truth, np.array(["a", "a", "b", "a", "c"]))
    assert hit.tolist() == [1.0, 1.0, 0.0, 0.0, 1.0]
    assert column_score(truth, hit) == pytest.approx((2 / 3 + 0 + 1) / 3)
    assert column_score(truth, hit) == pytest.approx(_steveng9(list("aaabc"), list("aabac")))
    # guessing the common value for everyone scores 1 / (number of values), not its share
    assert column_score(truth, hits(truth, np.array(["a"] * 5))) == pytest.approx(1 / 3)


def test_numerical_closeness_by_hand():
    truth = truth_of(pd.DataFrame({"x": [0.0, 5.0, 10.0, np.nan]}), "x", "numerical", 20.0)
    hit = hits(truth, np.array([2.0, 5.0, 50.0, 1.0]))
    assert hit[:3].tolist() == [0.9, 1.0, 0.0]  # error 2 of a range of 20; exact; capped at the range
    assert column_score(truth, hit) == pytest.approx((0.9 + 1.0 + 0.0) / 3)  # the missing value is left out
    assert table_score([truth], [hit]) == pytest.approx(column_score(truth, hit))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from("abcd"), min_size=2, max_size=40), st.integers(0, 2 ** 16))
def test_scores_agree_with_the_red_teams_formula_and_stay_in_range(values, seed):
    rng = np.random.default_rng(seed)
    guess = rng.choice(list("abcd"), size=len(values))
    truth = truth_of(pd.DataFrame({"s": values}), "s", "categorical", float("nan"))
    score = column_score(truth, hits(truth, guess))
    assert 0.0 <= score <= 1.0
    assert score == pytest.approx(_steveng9(values, list(guess)))


def test_exchangeable_groups_have_an_interval_around_zero():
    # Members and non-members drawn from one distribution with one guessing rule: the advantage's interval covers 0.
    rng = np.random.default_rng(3)
    covered = 0
    for seed in range(3):
        a, b = rng.choice(list("xyz"), 400), rng.choice(list("xyz"), 400)
        ta = truth_of(pd.DataFrame({"s": a}), "s", "categorical", float("nan"))
        tb = truth_of(pd.DataFrame({"s": b}), "s", "categorical", float("nan"))
        guess_a, guess_b = rng.choice(list("xyz"), 400), rng.choice(list("xyz"), 400)
        low, high = advantage_interval([ta], [hits(ta, guess_a)], [tb], [hits(tb, guess_b)], 300, seed)
        covered += low <= 0.0 <= high
    assert covered == 3


def _ladder(name: str, seed: int = 0, n: int = 600, key=None, metrics: str = ALL):
    demo = load_scenario(name, n=n, seed=seed)
    schema = Schema(types=dict(demo.types), key=key or list(demo.key), sensitive=demo.sensitive, seed=seed)
    return evaluate(demo.real, demo.synthetic, schema, metrics=metrics, holdout=demo.holdout, seed=seed,
                    params={m: {"n_boot": 200} for m in metrics.split(",")})


def test_exact_copy_members_are_reconstructed_and_the_verdict_cites_it():
    report = _ladder("exact_copy", metrics="recon_nearest,recon_best")  # the demo's key: everything but income
    nearest = report["recon_nearest"].details
    assert nearest.secret == ["income"] and nearest.members > 0.97
    assert nearest.advantage > 0.2 and nearest.advantage_interval[0] > 0.1
    v = verdict(report)
    assert v.level == DO_NOT_RELEASE and v.evidence[0].metric == "recon_best"
    assert not any(e.metric == "recon_nearest" for e in v.evidence)  # the honest best speaks for both
    document = json.loads(report.to_json())
    jsonschema.Draft202012Validator(report_schema()).validate(document)
    assert document["metrics"]["recon_best"]["details"]["kind"] == "reconstruction"


@pytest.fixture(scope="module")
def noisy():
    return _ladder("noisy_copy", key=DEMOGRAPHICS)


@pytest.mark.slow
def test_noisy_copy_leaks_beyond_the_population(noisy):
    for metric in ("recon_nearest", "recon_best"):
        d = noisy[metric].details
        assert d.advantage > 0 and d.advantage_interval[0] > 0, metric
        assert d.members > d.population  # the synthetic table tells more about members than other people do
    d = noisy["recon_nearest"].details
    assert set(d.secret) == set(secret_columns(Schema(dict(load_scenario("noisy_copy", n=10).types),
                                                       key=DEMOGRAPHICS, sensitive="income")))
    assert d.exposed and all(e.columns for e in d.exposed)
    rarity = [r for r in d.exposed[0].rarity if r is not None]
    assert rarity == sorted(rarity)  # rarest true value first
    assert noisy["recon_nearest"].per_record.shape == (600,)
    assert sorted(noisy["recon_learned"].details.order) == sorted(d.secret)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fresh_sample_interval_covers_zero(seed):
    report = _ladder("fresh_sample", seed=seed, key=DEMOGRAPHICS, metrics="recon_nearest,recon_best")
    for metric in ("recon_nearest", "recon_best"):
        low, high = report[metric].details.advantage_interval
        assert low <= 0.0 <= high, (metric, seed, low, high)


@pytest.mark.slow
def test_column_resampler_leaks_about_nothing():
    d = _ladder("column_resampler", key=DEMOGRAPHICS, metrics="recon_best")["recon_best"].details
    assert abs(d.advantage) < 0.03


def test_without_holdout_or_secret_it_says_why():
    demo = load_scenario("fresh_sample", n=100)
    schema = Schema(types=dict(demo.types), sensitive=demo.sensitive)
    result = evaluate(demo.real, demo.synthetic, schema, metrics="recon_nearest")["recon_nearest"]
    assert not result.applicable and "holdout" in result.reason
    everything = schema.with_changes(key=[c for c in demo.types], sensitive=None)
    result = evaluate(demo.real, demo.synthetic, everything, metrics="recon_nearest",
                      holdout=demo.holdout)["recon_nearest"]
    assert not result.applicable and "nothing is left to reconstruct" in result.reason


@settings(max_examples=40, deadline=None, derandomize=True)
@given(members=st.integers(0, 40), nonmembers=st.integers(1, 40), kinds=st.lists(st.booleans(), min_size=1, max_size=3),
       n_boot=st.sampled_from([1, 7, 50]), block=st.sampled_from([1, 30, DRAW_BLOCK]), seed=st.integers(0, 2**16))
def test_the_bootstrap_scores_every_draw_as_table_score_does(members, nonmembers, kinds, n_boot, block, seed):
    """The interval scores all draws at once, in blocks; drawn one by one with table_score it is the same."""
    rng = np.random.default_rng(seed)

    def group(n):
        truths, hits = [], []
        for numerical in kinds:
            if numerical:
                values = rng.normal(size=max(n, 1))
                values[rng.random(len(values)) < 0.2] = np.nan
                truths.append(truth_of(pd.DataFrame({"x": values}), "x", "numerical", 2.0))
                hits.append(rng.random(len(values)))
            else:
                labels = rng.choice(list("abc")[:int(rng.integers(1, 4))], max(n, 1))
                truths.append(truth_of(pd.DataFrame({"c": labels}), "c", "categorical", float("nan")))
                hits.append((rng.random(len(labels)) < 0.5).astype(float))
        return truths, hits

    (member_truths, member_hits), (other_truths, other_hits) = group(members), group(nonmembers)
    chosen = np.arange(members)  # no member at all when 0: every draw scores nan
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reconstruction_base, "DRAW_BLOCK", block)
        interval = advantage_interval(member_truths, member_hits, other_truths, other_hits, n_boot, seed,
                                      members=chosen)

    draw = np.random.default_rng([seed, 0x5EC0])
    one_by_one = []
    for _ in range(n_boot):
        m = chosen[draw.integers(0, len(chosen), len(chosen))]
        n = np.arange(nonmembers)[draw.integers(0, nonmembers, nonmembers)]
        one_by_one.append(table_score(member_truths, member_hits, m) - table_score(other_truths, other_hits, n))
    one_by_one = np.array(one_by_one)
    if not np.isfinite(one_by_one).any():
        assert np.isnan(interval).all()
    else:
        expected = np.quantile(one_by_one[np.isfinite(one_by_one)], [0.025, 0.975])
        np.testing.assert_allclose(interval, expected, rtol=0, atol=1e-12)
