"""The learned membership attack (``mia_learned``, issue 14: the strongest attack at least equals the best
published battery).

Its honesty is the point: no record may be scored by a model that saw its label, and ``mia_best`` must only
choose with scores learned on the choosing half. These tests watch every fit, check the features against
distances computed by hand, and pin its strength on the demo leaks and its chance level on a fresh sample.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from privcore import evaluate
from privcore.data.schema import Schema
from privcore.demo import load_scenario
from privcore.metrics.details import MembershipScores
from privcore.metrics.membership import _base, seeded_halves
from privcore.metrics.membership._base import stratified_folds


def _run(name, n, metrics=("mia_learned",), seed=0, workers=None, params=None):
    d = load_scenario(name, n=n)
    schema = Schema(types=dict(d.types))
    merged = {m: {"n_boot": 0} for m in metrics}
    for m, p in (params or {}).items():
        merged[m].update(p)
    return evaluate(d.real, d.synthetic, schema, metrics=list(metrics), holdout=d.holdout, seed=seed,
                    params=merged, strict=True, workers=workers)


@pytest.fixture
def watched_fits(monkeypatch):
    """Every fit of the learned attack: (training rows, scored rows)."""
    fits = []
    original = _base.fit_and_score

    def watched(features, labels, train, score_rows, extra_rows, seed, settings):
        fits.append((np.asarray(train).copy(), np.asarray(score_rows).copy(), labels.copy()))
        return original(features, labels, train, score_rows, extra_rows, seed, settings)

    monkeypatch.setattr(_base, "fit_and_score", watched)
    return fits


def test_no_record_is_scored_by_a_model_that_saw_it_and_the_halves_never_mix(watched_fits):
    report = _run("noisy_copy", 400)
    res = report["mia_learned"]
    n_real = 400
    members = res.details.member_positions
    nonmembers = res.details.nonmember_positions
    # Rows of the feature matrix: the real rows, then the non-members.
    member_rows, nonmember_rows = np.asarray(members), n_real + np.arange(len(nonmembers))
    halves = seeded_halves(len(members), len(nonmembers), 0)
    half_of = {}
    for name, (hm, hn) in halves.items():
        for row in np.r_[member_rows[hm], nonmember_rows[hn]]:
            half_of[int(row)] = name
    assert len(watched_fits) == 12  # 5 folds in each of the two halves, then one model per half for the other
    # The fits run on a thread pool, in any order: a model for the other half scores a whole half.
    across = [f for f in watched_fits if len(f[0]) + len(f[1]) == len(half_of)]
    within = [f for f in watched_fits if len(f[0]) + len(f[1]) < len(half_of)]
    assert len(across) == 2 and len(within) == 10
    scored_once = np.concatenate([s for _, s, _ in within])
    assert sorted(scored_once.tolist()) == sorted(half_of)  # every labelled record scored exactly once
    for train, scored, labels in within:
        assert not set(train.tolist()) & set(scored.tolist())
        assert {half_of[int(r)] for r in train} == {half_of[int(r)] for r in scored}  # one half only
        assert 0 < labels[train].mean() < 1
    # What mia_best counts on a half: one model trained on all of the other half, and nothing else.
    for train, scored, labels in across:
        assert len({half_of[int(r)] for r in train}) == 1 and len({half_of[int(r)] for r in scored}) == 1
        assert {half_of[int(r)] for r in train} != {half_of[int(r)] for r in scored}
    assert sorted(np.concatenate([s for _, s, _ in across]).tolist()) == sorted(half_of)


def test_features_are_the_distances_to_the_nearest_synthetic_and_reference_rows(monkeypatch):
    # Two numerical columns standardised by Y's spread; k = 2 nearest in Z and in R, checked by brute force.
    rng = np.random.default_rng(3)
    real = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40) * 10})
    synthetic = real + rng.normal(scale=0.05, size=real.shape)
    holdout = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40) * 10})
    seen = {}
    original = _base.fit_and_score

    def keep(features, labels, train, score_rows, extra_rows, seed, settings):
        seen["features"] = features
        return original(features, labels, train, score_rows, extra_rows, seed, settings)

    monkeypatch.setattr(_base, "fit_and_score", keep)
    report = evaluate(real, synthetic, Schema({"a": "numerical", "b": "numerical"}), metrics="mia_learned",
                      holdout=holdout, params={"mia_learned": {"n_boot": 0, "k": 2}}, strict=True)
    res = report["mia_learned"]
    reference = holdout.iloc[res.details.reference_positions]
    nonmembers = holdout.iloc[res.details.nonmember_positions]
    sd = real.std(ddof=0)

    def nearest(rows, table, k):
        q, t = (rows / sd).to_numpy(), (table / sd).to_numpy()
        d = np.sqrt(((q[:, None, :] - t[None, :, :]) ** 2).sum(axis=2))
        return np.sort(d, axis=1)[:, :k]

    records = pd.concat([real, nonmembers])
    expected = np.c_[nearest(records, synthetic, 2), nearest(records, reference, 2)]
    np.testing.assert_allclose(seen["features"], expected, rtol=1e-9, atol=1e-12)
    assert res.params["k"] == 2 and res.params["folds_per_half"] == 5


def test_training_rows_that_play_no_role_get_the_mean_of_every_fold_model(watched_fits, monkeypatch):
    # 300 training rows against 300 holdout rows: 150 non-members, so 150 training rows are members and
    # the other 150 are scored by all ten models.
    extras = []
    original = _base.fit_and_score

    def keep(features, labels, train, score_rows, extra_rows, seed, settings):
        scored, extra = original(features, labels, train, score_rows, extra_rows, seed, settings)
        extras.append((np.asarray(extra_rows), extra))
        return scored, extra

    monkeypatch.setattr(_base, "fit_and_score", keep)
    res = _run("noisy_copy", 300)["mia_learned"]
    unlabelled = np.setdiff1d(np.arange(300), res.details.member_positions)
    assert len(unlabelled) == 150
    fold_models = [(rows, extra) for rows, extra in extras if len(rows)]  # the two models across halves score none
    assert len(fold_models) == 10 and len(extras) == 12
    for rows, _ in fold_models:
        np.testing.assert_array_equal(rows, unlabelled)
    np.testing.assert_allclose(res.per_record[unlabelled], np.mean([e for _, e in fold_models], axis=0))
    assert np.isfinite(res.per_record).all()


@pytest.mark.slow
def test_it_finds_the_noisy_copy_better_than_every_fixed_rule_and_stays_at_chance_on_a_fresh_sample():
    battery = ["mia_distance", "mia_calibrated", "mia_gen_lra", "mia_dpi", "mia_learned"]
    noisy = _run("noisy_copy", 1500, metrics=battery)
    fixed = max(noisy[m].raw for m in battery[:-1])
    assert noisy["mia_learned"].raw >= fixed + 0.03, (noisy["mia_learned"].raw, fixed)
    for seed in (0, 1):
        fresh = _run("fresh_sample", 1500, seed=seed)["mia_learned"]
        assert 0.45 <= fresh.raw <= 0.55, fresh.raw


@pytest.mark.slow
def test_the_strongest_attack_beats_the_published_battery_on_the_noisy_copy():
    # Synth-MIA's best attack on the noisy-copy demo reached AUC 0.836 (issue 14's table); its best on an exact
    # copy of 3,000 Adult rows 0.977. mia_best reports on records it did not choose on.
    d = load_scenario("noisy_copy", n=3000)
    best = evaluate(d.real, d.synthetic, Schema(types=dict(d.types)), metrics="mia_best", holdout=d.holdout,
                    params={"mia_best": {"n_boot": 0}}, strict=True)["mia_best"]
    assert best.raw >= 0.836, best.raw
    # The stacked attack (issue 23) includes the learned attack's distances and is mia_best's default.
    assert best.details.selected_attack in ("mia_learned", "mia_stacked")


@pytest.mark.slow
def test_same_seed_same_scores_whatever_the_number_of_workers():
    one = _run("noisy_copy", 300, workers=1)["mia_learned"]
    two = _run("noisy_copy", 300, workers=2)["mia_learned"]
    np.testing.assert_array_equal(one.per_record, two.per_record)
    np.testing.assert_array_equal(one.details.nonmember_scores, two.details.nonmember_scores)
    other_seed = _run("noisy_copy", 300, seed=1)["mia_learned"]
    assert not np.array_equal(one.per_record, other_seed.per_record)


def test_too_few_people_to_learn_from_is_said_plainly():
    schema = Schema({"x": "numerical"})
    real = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]})
    small_holdout = evaluate(real, real.copy(), schema, metrics="mia_learned", holdout=real + 0.5,
                             params={"mia_learned": {"n_boot": 0}})["mia_learned"]
    assert not small_holdout.applicable and "at least 8 rows" in small_holdout.reason
    # Three training rows play the members: one half gets a single member, too few to learn from and score.
    three = real.iloc[:3]
    few_members = evaluate(three, three.copy(), schema, metrics="mia_learned",
                           holdout=pd.DataFrame({"x": np.arange(8) + 0.5}),
                           params={"mia_learned": {"n_boot": 0}})["mia_learned"]
    assert not few_members.applicable
    assert "at least 4 members and 4 non-members" in few_members.reason


def test_awkward_tables_run_a_constant_column_and_categories_only_the_holdout_has():
    d = load_scenario("noisy_copy", n=300)
    real, synthetic, holdout = d.real.copy(), d.synthetic.copy(), d.holdout.copy()
    real["constant"], synthetic["constant"], holdout["constant"] = 1.0, 1.0, 1.0
    holdout.loc[holdout.index[:5], "workclass"] = "Only-in-holdout"
    types = {**dict(d.types), "constant": "numerical"}
    res = evaluate(real, synthetic, Schema(types=types), metrics="mia_learned", holdout=holdout,
                   params={"mia_learned": {"n_boot": 0}}, strict=True)["mia_learned"]
    assert res.applicable and 0.0 <= res.risk <= 1.0 and isinstance(res.details, MembershipScores)


def test_stratified_folds_keep_the_proportions_and_cover_everyone_once():
    rng = np.random.default_rng(0)
    parts = stratified_folds(np.arange(10), np.arange(10, 17), 3, rng)
    assert sorted(np.concatenate(parts).tolist()) == list(range(17))
    assert [int((p < 10).sum()) for p in parts] == [4, 3, 3]
    assert [int((p >= 10).sum()) for p in parts] == [3, 2, 2]


def test_its_auc_is_the_auc_of_its_scores():
    res = _run("noisy_copy", 400)["mia_learned"]
    members = res.per_record[res.details.member_positions]
    labels = np.r_[np.ones(len(members)), np.zeros(len(res.details.nonmember_scores))]
    assert res.raw == pytest.approx(roc_auc_score(labels, np.r_[members, res.details.nonmember_scores]))


def test_gen_lra_and_the_learned_attack_share_one_standardised_pass_to_the_synthetic_rows(monkeypatch):
    labels = []
    original = _base.nearest_k

    def counted(*args, label="", **kwargs):
        labels.append(label)
        return original(*args, label=label, **kwargs)

    monkeypatch.setattr(_base, "nearest_k", counted)
    _run("noisy_copy", 300, metrics=("mia_learned", "mia_gen_lra"))
    assert labels.count("records→synthetic (standardised)") == 1
