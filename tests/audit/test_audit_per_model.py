"""Each shared-audit attack read per target model (privcore.audit.per_model): the benchmark's TPR at FPR 0."""

from __future__ import annotations

import doctest
import json

import numpy as np
import pytest

from privcore.audit import per_model as PM
from privcore.audit.shared import SharedSettings, audit_shared
from privcore.audit.tasks import GeneratorFactory
from privcore.data.schema import Schema
from privcore.demo import load_scenario


def test_docstring_examples():
    assert doctest.testmod(PM).failed == 0


def test_tpr_at_fpr_0_and_auc_by_hand():
    # Model 0: members score 5, 4, 1; non-members 3, 2, 0. Above the highest non-member (3): 2 of 3 members.
    # AUC: pairs (member > non-member) = 5:3, 4:3, 1:1 → 3 + 3 + 1 = 7 of 9.
    scores = np.array([[5.0, 4.0, 1.0, 3.0, 2.0, 0.0]])
    member = np.array([[True, True, True, False, False, False]])
    attack = PM.model_attacks(scores, member, np.array([True]), seed=0)[0]
    assert attack.members == 3 and attack.non_members == 3
    assert attack.tpr_at["0"] == pytest.approx(2 / 3) and attack.auc == pytest.approx(7 / 9)
    # Too few non-members for FPR 0.1 % or 1 %: not reported rather than read as FPR 0.
    assert attack.tpr_at["0.001"] is None and attack.tpr_at["0.01"] is None
    low, high = attack.auc_interval
    assert 0 <= low <= attack.auc <= high <= 1


def test_failed_and_unfinished_models_are_left_out():
    scores = np.array([[1.0, 0.0], [np.nan, 0.0], [0.0, 1.0]])
    member = np.array([[True, False], [True, False], [True, False]])
    attacks = PM.model_attacks(scores, member, np.array([True, True, False]), seed=0)
    assert [a.model for a in attacks] == [0]


def test_the_cyclic_shuffle_leaves_no_model_its_own_training_set():
    membership = np.eye(7, dtype=bool)  # each model's training set differs from every other's
    shuffled = PM.cyclic_shuffle(membership, seed=3)
    assert sorted(map(tuple, shuffled)) == sorted(map(tuple, membership))  # the same sets, moved
    assert not np.any(np.all(shuffled == membership, axis=1))


def test_the_summary_takes_median_and_range_over_the_models():
    models = [PM.ModelAttack(k, 10, 10, auc, (auc - 0.1, auc + 0.1), {"0": tpr, "0.001": None, "0.01": tpr})
              for k, (auc, tpr) in enumerate([(0.9, 0.4), (0.7, 0.0), (0.55, 0.1)])]
    summary = PM.models_summary(models, models[1:2])
    assert summary["models_scored"] == 3
    assert summary["tpr_at_fpr_0"] == {"median": 0.1, "min": 0.0, "max": 0.4}
    assert summary["auc"]["median"] == 0.7 and summary["share_models_interval_above_0.5"] == pytest.approx(2 / 3)
    assert summary["tpr_at_fpr_0.001"] == {"median": None, "min": None, "max": None}
    assert summary["chance"]["auc"]["median"] == 0.7


@pytest.fixture(scope="module")
def adult():
    demo = load_scenario("fresh_sample", n=600)
    return demo.real, Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)


@pytest.mark.slow
def test_an_exact_copy_is_told_apart_on_every_model_and_a_fresh_sample_is_not(adult):
    real, schema = adult
    reports = {name: audit_shared(real, None, schema, settings=SharedSettings(models=8, records=120, seed=0),
                                  make=GeneratorFactory(name))
               for name in ("exact_copy", "fresh_sample")}
    copy = reports["exact_copy"].to_dict()["per_model"]
    assert len(copy["models"]) == 8 and all(m["members"] + m["non_members"] == 120 for m in copy["models"])
    # A copy's members sit at distance 0 in every output; with 8 models a record seen on one side only in the
    # other folds has no rule (score 0), which keeps the per-model AUC below 1.
    assert copy["summary"]["auc"]["min"] > 0.75
    fresh = reports["fresh_sample"].to_dict()["per_model"]
    assert 0.3 < fresh["summary"]["auc"]["median"] < 0.7
    assert copy["summary"]["auc"]["median"] > fresh["summary"]["auc"]["median"] + 0.2
    # The stronger attacks (on by default in privcore) are read per model too, each with its chance level.
    stronger = reports["exact_copy"].to_dict()["stronger"]["per_model"]
    assert set(stronger) == {"rmia", "meta"} and all(len(e["models"]) == 8 for e in stronger.values())
    assert all("chance" in e["summary"] for e in stronger.values())
    json.dumps(reports["exact_copy"].to_dict(), allow_nan=False)


def test_the_per_model_figure_draws_every_attack_that_ran(adult):
    from privcore.report.per_model_figures import attacks_per_model, per_model_figure

    real, schema = adult
    report = audit_shared(real, None, schema, settings=SharedSettings(models=8, records=60, seed=1),
                          make=GeneratorFactory("exact_copy"), stronger=False)
    assert set(attacks_per_model(report)) == {"today"}
    figure = per_model_figure(report)
    assert len(figure.fig.data) == 1 and len(figure.fig.data[0].x) == 8
    assert figure.caption.count(".") == 1 and "with certainty" in figure.caption
    # A report kept from before the per-model reading: no attack, an empty figure that says why.
    report.per_model = None
    assert attacks_per_model(report) == {} and "No attack was read per trained model" in per_model_figure(report).alt
