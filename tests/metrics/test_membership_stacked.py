"""The stacked membership attack and ``mia_best``'s steadier choice (issue 23).

``mia_stacked`` combines the battery's scores; it must be about as strong as the best single attack on the
demo leaks and a CART table, stay at chance on fresh samples, and — like every learned attack here — never
score a record with a model that saw its label. ``mia_best`` must report each half only with a choice and
models that never read that half's labels.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore import evaluate
from privcore.data.schema import Schema
from privcore.demo import load_scenario
from privcore.generators import make_generator
from privcore.metrics import registry
from privcore.metrics.membership import _base, seeded_halves
from privcore.metrics.membership import best as membership_best
from privcore.metrics.membership import stacked as membership_stacked
from privcore.metrics.membership.best import CHOICE_SUPPORT, choose_attack
from privcore.metrics.membership.stacked import input_attacks, standardised

BATTERY = registry.battery_ids()
INPUT_ATTACKS = input_attacks()

N = 1500  # 750 members and 750 non-members: the size at which the learned attack's own tests run


def _tables(name: str, n: int = N):
    d = load_scenario("noisy_copy" if name == "cart" else name, n=n)
    synthetic = (make_generator("cart").fit(d.real, dict(d.types)).sample(n, seed=0) if name == "cart"
                 else d.synthetic)
    return d.real, synthetic, d.holdout, Schema(types=dict(d.types))


def _battery(name: str, n: int = N, seed: int = 0, metrics=BATTERY):
    real, synthetic, holdout, schema = _tables(name, n)
    return evaluate(real, synthetic, schema, metrics=list(metrics), holdout=holdout, seed=seed,
                    params={m: {"n_boot": 0} for m in metrics}, strict=True)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["noisy_copy", "exact_copy", "cart"])
def test_stacked_is_at_least_the_best_single_attack_less_a_hundredth(name):
    report = _battery(name)
    single = {a: report[a].raw for a in BATTERY if a != "mia_stacked"}
    best = max(single, key=single.get)
    assert report["mia_stacked"].raw >= single[best] - 0.01, (report["mia_stacked"].raw, best, single[best])
    assert report["mia_stacked"].params["stacked_attacks"] == list(INPUT_ATTACKS)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_stacked_stays_at_chance_on_fresh_samples(seed):
    stacked = _battery("fresh_sample", seed=seed, metrics=("mia_stacked",))["mia_stacked"]
    assert 0.45 <= stacked.raw <= 0.55, stacked.raw


@pytest.mark.slow
def test_stacked_reads_the_battery_scores_once(monkeypatch):
    # The fixed-rule attacks are scored once per evaluation: asking for them and the stacked attack together
    # runs each scorer once (the stacked attack reads the cached scores and the learned attack's features).
    calls = []
    for attack_id in INPUT_ATTACKS + ("mia_learned",):
        info = registry.get(attack_id)

        def counted(*args, _score=info.scorer.score, _id=attack_id):
            calls.append(_id)
            return _score(*args)

        scorer = _base.Scorer(counted, info.scorer.param_names)
        monkeypatch.setitem(registry._REGISTRY, attack_id, dataclasses.replace(info, scorer=scorer))
    searches = []
    original = _base.nearest_k

    def counted_search(*args, **kwargs):
        searches.append(kwargs.get("label"))
        return original(*args, **kwargs)

    monkeypatch.setattr(_base, "nearest_k", counted_search)
    _battery("noisy_copy", n=300, metrics=BATTERY + ("mia_best",))
    assert sorted(calls) == sorted(INPUT_ATTACKS + ("mia_learned",))
    assert searches.count("records→reference (learned attack)") == 1


@pytest.fixture
def watched(monkeypatch):
    """Every fold model of the learned and stacked attacks (training rows, scored rows) and every choice
    of mia_best (the member and non-member positions it read)."""
    seen = {"fits": [], "choices": []}
    fit_learned, fit_stacked, choose = _base.fit_and_score, membership_stacked.fit_stack, choose_attack

    def learned(features, labels, train, score_rows, extra_rows, seed, settings):
        seen["fits"].append(("mia_learned", np.asarray(train).copy(), np.asarray(score_rows).copy()))
        return fit_learned(features, labels, train, score_rows, extra_rows, seed, settings)

    def stacked(features, labels, train, score_rows, extra_rows, seed, n_scores):
        seen["fits"].append(("mia_stacked", np.asarray(train).copy(), np.asarray(score_rows).copy()))
        return fit_stacked(features, labels, train, score_rows, extra_rows, seed, n_scores)

    def choice(scores, members, nonmembers, rng, repeats=membership_best.CHOICE_REPEATS):
        seen["choices"].append((np.asarray(members).copy(), np.asarray(nonmembers).copy()))
        return choose(scores, members, nonmembers, rng, repeats)

    monkeypatch.setattr(_base, "fit_and_score", learned)
    monkeypatch.setattr(membership_stacked, "fit_stack", stacked)
    monkeypatch.setattr(membership_best, "choose_attack", choice)
    return seen


@pytest.mark.slow
def test_no_record_is_reported_under_a_model_or_a_choice_that_saw_its_label(watched):
    n = 400
    details = _battery("noisy_copy", n=n, metrics=("mia_best",))["mia_best"].details
    members, nonmembers = np.asarray(details.member_positions), np.asarray(details.nonmember_positions)
    # Rows of the models' feature matrix: the real rows, then the non-members.
    member_rows, nonmember_rows = members, n + np.arange(len(nonmembers))
    halves = seeded_halves(len(members), len(nonmembers), 0)
    rows = {name: set(member_rows[hm].tolist()) | set(nonmember_rows[hn].tolist()) for name, (hm, hn) in
            halves.items()}
    # Every fold model trains on one half only and never scores a record it trained on; the one model per half
    # that mia_best counts with trains on a whole half and scores the whole other half.
    assert {a for a, _, _ in watched["fits"]} == {"mia_learned", "mia_stacked"}
    across = 0
    for _, train, scored in watched["fits"]:
        assert not set(train.tolist()) & set(scored.tolist())
        half = [name for name in rows if set(train.tolist()) <= rows[name]]
        assert len(half) == 1
        if set(train.tolist()) == rows[half[0]]:
            across += 1
            assert set(scored.tolist()) == rows["B" if half[0] == "A" else "A"]
        else:
            assert set(scored.tolist()) <= rows[half[0]]
    assert across == 4  # two attacks, one model per half
    # Each choice reads exactly its half; the half it is counted on is the other one.
    assert len(watched["choices"]) == 2
    for (read_m, read_n), split in zip(watched["choices"], details.splits):
        chosen_on, counted = halves[split.chosen_on], halves["B" if split.chosen_on == "A" else "A"]
        assert sorted(read_m.tolist()) == sorted(chosen_on[0].tolist())
        assert sorted(read_n.tolist()) == sorted(chosen_on[1].tolist())
        assert not set(read_m.tolist()) & set(counted[0].tolist())
        assert not set(read_n.tolist()) & set(counted[1].tolist())
        assert split.members == len(counted[0]) and split.nonmembers == len(counted[1])
        # No model behind the scores the choice read (the fold models) was trained on a counted record, and the
        # scores counted come from the model trained on the half the choice was made on.
        counted_rows = set(member_rows[counted[0]].tolist()) | set(nonmember_rows[counted[1]].tolist())
        for _, train, scored in watched["fits"]:
            whole_half = set(train.tolist()) in rows.values()
            if set(scored.tolist()) & rows[split.chosen_on] and not whole_half:
                assert not set(train.tolist()) & counted_rows
            if whole_half and set(scored.tolist()) == counted_rows:
                assert set(train.tolist()) == rows[split.chosen_on]


@pytest.mark.slow
def test_the_choice_rule_and_the_agreement_are_reported():
    report = _battery("noisy_copy", n=400, metrics=("mia_best",))
    best = report["mia_best"]
    details = best.details
    assert "95 %" in details.choice_rule and "resamples" in details.choice_rule
    assert details.choices_agree == (len({s.attack for s in details.splits}) == 1)
    for split in details.splits:
        assert split.default_attack == "mia_stacked"
        assert abs(sum(split.choice_votes.values()) - 1) < 1e-9
        if split.attack != split.default_attack:
            assert split.wins_over_default[split.attack] >= CHOICE_SUPPORT
    assert details.choice_agreement == pytest.approx(np.mean([s.choice_votes.get(s.attack, 0) for s in
                                                               details.splits]))
    as_json = report.to_dict()["metrics"]["mia_best"]["details"]
    assert as_json["choice_rule"] == details.choice_rule
    assert [s["attack"] for s in as_json["splits"]] == [s.attack for s in details.splits]
    assert "choice_votes" in as_json["splits"][0] and "choices_agree" in as_json


@settings(max_examples=25, deadline=None)
@given(gap=st.floats(0.0, 0.2), seed=st.integers(0, 2**16), n=st.integers(20, 120))
def test_another_attack_replaces_the_default_only_when_it_beats_it_on_most_resamples(gap, seed, n):
    rng = np.random.default_rng(seed)
    member = rng.normal(size=n)
    non = rng.normal(size=n)
    scores = {"mia_distance": (member + gap * 5, non), "mia_stacked": (member, non + rng.normal(size=n) * 0.1)}
    choice = choose_attack(scores, np.arange(n), np.arange(n), np.random.default_rng(seed), repeats=50)
    assert choice.default == "mia_stacked"
    assert choice.attack in scores
    if choice.attack == "mia_distance":
        assert choice.wins_over_default["mia_distance"] >= CHOICE_SUPPORT
    else:
        assert choice.wins_over_default["mia_distance"] < CHOICE_SUPPORT
    assert abs(sum(choice.votes.values()) - 1) < 1e-9


@given(st.lists(st.floats(-1e6, 1e6, allow_subnormal=False), min_size=2, max_size=40))
def test_standardised_scores_have_mean_zero_and_unit_spread_or_are_all_zero(values):
    z = standardised(np.asarray(values))
    assert np.all(np.isfinite(z))
    assert abs(z.mean()) < 1e-6
    assert abs(z.std() - 1) < 1e-6 or np.all(z == 0)
