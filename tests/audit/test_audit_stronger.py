"""The shared audit's stronger black-box attacks (privcore.audit.rmia, .meta, .stronger; issue 38 item 3): RMIA by
hand, the meta-classifier's cross-fitting, a memorising toy caught and a fresh-sample toy at chance, the JSON
contract, and the meta-classifier against today's per-record rule on two built-in generators.

Tiny settings throughout: toy generators on a few hundred rows, built-ins on 120 records and 16 models.
"""

from __future__ import annotations

import copy
import html
import json
import math

import numpy as np
import pytest
from jsonschema import ValidationError, validate

from privcore.audit.contract import audit_report_schema
from privcore.audit.meta import meta_scores
from privcore.audit.rmia import (
    bandwidth,
    log_signal,
    pairwise_scores,
    rmia_against,
    rmia_scores,
)
from privcore.audit.shared import SharedSettings, audit_shared
from privcore.audit.tasks import GeneratorFactory
from privcore.cli.audit import shared_audit_html
from privcore.data.schema import Schema
from privcore.demo import load_scenario


class CopyTraining:
    """Memorises: its output is its training rows."""

    name = "copy_training"

    def fit(self, table, types):
        self.table = table.reset_index(drop=True)
        return self

    def sample(self, n, seed):
        return self.table.sample(n=min(n, len(self.table)), random_state=seed).reset_index(drop=True)


class FreshPopulation:
    """A null: its output is population rows, whatever it trained on."""

    name = "fresh_population"

    def __init__(self, population):
        self.population = population

    def fit(self, table, types):
        return self

    def sample(self, n, seed):
        return self.population.sample(n=n, replace=True, random_state=seed).reset_index(drop=True)


TOY = SharedSettings(models=16, records=60, n_queries=4)


@pytest.fixture(scope="module")
def copy_report(toy_table):
    return audit_shared(toy_table, settings=TOY, make=lambda population: CopyTraining())


# ------------------------------------------------------------------------------------------------ RMIA by hand


def test_rmia_by_hand_on_known_signals():
    # Signals p(x|θ) of 3 records on 4 models; model 0 is the target, models 1-3 its shadows.
    p = np.array([[0.6, 0.25, 0.3],
                  [0.4, 0.20, 0.1],
                  [0.2, 0.20, 0.3],
                  [0.2, 0.40, 0.1]])
    member = np.array([[False, False, False],
                       [True, False, True],
                       [False, True, False],
                       [False, False, True]])
    # Pr(x) = ½ mean over shadows with x + ½ mean over shadows without it:
    #   record 0: ½·0.4 + ½·(0.2+0.2)/2 = 0.3;  record 1: ½·0.2 + ½·(0.2+0.4)/2 = 0.25;  record 2: ½·(0.1+0.1)/2 + ½·0.3 = 0.2
    # LR on the target: 0.6/0.3 = 2, 0.25/0.25 = 1, 0.3/0.2 = 1.5; each record against the two others (γ = 1):
    #   record 0 beats both (1), record 1 neither (0), record 2 one of two (½); scores are reported minus ½.
    expected = [0.5, -0.5, 0.0]
    shadows, target = np.array([False, True, True, True]), np.array([True, False, False, False])
    assert rmia_against(np.log(p), member, shadows, target)[0] == pytest.approx(expected)
    # A target among the shadows (a classifier's training pair) is left out of its own reference: same scores.
    assert rmia_against(np.log(p), member, np.ones(4, bool), target)[0] == pytest.approx(expected)
    assert pairwise_scores(np.array([1.0, 1.0, 0.0])).tolist() == [0.75, 0.75, 0.0]  # a tie counts ½


def test_the_signal_is_a_laplace_kernel_over_the_nearest_rows():
    distances = np.array([[0.0, 2.0], [1.0, 1.0]])
    assert log_signal(distances, 2.0) == pytest.approx([math.log((1 + math.exp(-1)) / 2), -0.5])
    # The bandwidth is the median nearest-row distance, floored so that exact copies do not divide by zero.
    assert bandwidth(np.array([[[0.0, 1.0]], [[3.0, 4.0]], [[1.0, 9.0]]])) == 1.0
    assert bandwidth(np.zeros((2, 3, 5))) > 0


def test_rmia_never_calibrates_a_model_on_its_own_output_or_labels():
    # Fold 0's models get an output that gives every member away; their RMIA scores are made from the other folds'
    # outputs and membership, so changing fold 0's membership (not its outputs) leaves them as they were.
    rng = np.random.default_rng(1)
    member = rng.random((12, 40)) < 0.5
    distances = rng.random((12, 40, 3)) + np.where(member, 0.0, 0.5)[:, :, None]
    flipped = member.copy()
    flipped[0::3] = ~flipped[0::3]
    before, after = (rmia_scores(distances, m, np.ones(12, bool), folds=3) for m in (member, flipped))
    assert np.array_equal(before[0::3], after[0::3])
    assert not np.allclose(before[1::3], after[1::3])


# ----------------------------------------------------------------------------------------- the meta-classifier


def test_the_meta_classifier_never_sees_the_attacked_models_labels():
    # Flipping the labels of fold 0's models leaves their scores exactly as they were (their classifier, its
    # inputs' calibration, today's rule and RMIA's shadows all come from folds 1 and 2), while the other folds'
    # scores change (their classifiers learnt from fold 0). A classifier that saw fold 0 would change it.
    rng = np.random.default_rng(3)
    member = rng.random((12, 50)) < 0.5
    features = rng.random((12, 50, 4)) + np.where(member, -0.3, 0.3)[:, :, None] * np.array([1.0, 1.0, 0.0, 0.0])
    flipped = member.copy()
    flipped[0::3] = ~flipped[0::3]
    usable = np.ones(12, bool)
    before, after = (meta_scores(features, m, usable, folds=3, distances=slice(0, 2)) for m in (member, flipped))
    assert np.array_equal(before[0::3], after[0::3])
    assert not np.allclose(before[1::3], after[1::3])
    # And it reads the signal: members score above non-members on the models it did not train on.
    assert before[member].mean() > before[~member].mean() + 0.5


@pytest.mark.slow
def test_a_memorising_generator_is_caught_by_both_attacks(copy_report):
    strong = copy_report.stronger
    for name in ("rmia", "meta"):
        summary = strong.summary[name]
        assert summary["records_scored"] == TOY.records
        assert summary["share_interval_above_0.5"] > 0.8, (name, summary)
        assert summary["chance_share_interval_above_0.5"] < 0.15, (name, summary)
    aucs = [r["meta_auc"] for r in strong.records]
    assert np.median(aucs) > 0.95 and {r["row"] for r in strong.records} == {r.row for r in copy_report.records}


@pytest.mark.slow
def test_a_fresh_sample_toy_stays_at_chance(toy_table):
    strong = audit_shared(toy_table, settings=TOY, make=FreshPopulation).stronger
    for name in ("rmia", "meta"):
        summary = strong.summary[name]
        assert summary["share_interval_above_0.5"] <= 0.1, (name, summary)
        assert 0.4 <= summary["mean_auc"] <= 0.6, (name, summary)
        assert summary["share_auc_above_0.8"] <= 0.05, (name, summary)


@pytest.mark.slow
def test_kept_inputs_rerun_the_stronger_attacks_to_the_same_result(copy_report, toy_table):
    # keep_inputs: another attack can be tried on the outputs an audit trained; rerun, the attacks give what the
    # audit reported, and the JSON is the same with or without the kept inputs.
    from privcore.audit import stronger_attack

    assert copy_report.attack_inputs is None
    kept = audit_shared(toy_table, settings=TOY, make=lambda population: CopyTraining(), keep_inputs=True)
    inputs = kept.attack_inputs
    assert inputs.features.shape[:2] == inputs.membership.shape == (TOY.models, TOY.records)
    assert inputs.usable.shape == (TOY.models,) and len(inputs.rows) == TOY.records
    again = stronger_attack(inputs.features, inputs.membership, inputs.usable, inputs.distances, inputs.folds,
                            inputs.seed, inputs.rows)
    assert again.to_dict() == kept.stronger.to_dict()
    strip = lambda document: {k: v for k, v in document.items() if k not in ("seconds", "timings")}  # noqa: E731
    assert strip(kept.to_dict()) == strip(copy_report.to_dict())


@pytest.mark.slow
def test_the_json_carries_the_stronger_attacks_and_validates(copy_report, toy_table):
    document = json.loads(json.dumps(copy_report.to_dict(), allow_nan=False))
    validate(document, audit_report_schema())
    strong = document["stronger"]
    assert set(strong["summary"]) == set(strong["attacks"]) == {"rmia", "meta"}
    assert len(strong["records"]) == TOY.records and document["timings"]["stronger_attack"] > 0
    # The schema describes the new fields: an AUC out of [0, 1] or an unknown field is refused.
    broken = copy.deepcopy(document)
    broken["stronger"]["records"][0]["meta_auc"] = 1.5
    with pytest.raises(ValidationError):
        validate(broken, audit_report_schema())
    broken = copy.deepcopy(document)
    broken["stronger"]["summary"]["meta"]["share_exposed"] = 0.5
    with pytest.raises(ValidationError):
        validate(broken, audit_report_schema())
    # Without the attacks the entry is null, and the document still validates.
    plain = audit_shared(toy_table, settings=TOY, make=lambda population: CopyTraining(), stronger=False)
    assert plain.stronger is None and plain.to_dict()["stronger"] is None
    validate(json.loads(json.dumps(plain.to_dict())), audit_report_schema())


def test_the_html_puts_them_beside_todays_attack(copy_report):
    page = shared_audit_html(json.loads(json.dumps(copy_report.to_dict())))
    assert "Stronger black-box attacks, beside today's" in page and "Meta-classifier" in page and "RMIA" in page
    assert page.index(html.escape("Today's attack")) < page.index("RMIA:") < page.index("Meta-classifier:")


# ------------------------------------------------------------------------------- against today's attack


@pytest.mark.slow
@pytest.mark.parametrize("name", ["privbayes", "cart"])
def test_the_meta_classifier_does_not_lose_to_todays_rule(name):
    demo = load_scenario("fresh_sample", n=400)
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)
    report = audit_shared(demo.real, None, schema, settings=SharedSettings(models=16, records=120, seed=0),
                          make=GeneratorFactory(name))
    today, meta = report.summary, report.stronger.summary["meta"]
    key, chance = "share_interval_above_0.5", "chance_share_interval_above_0.5"
    assert meta[key] >= today[key], (name, meta[key], today[key])
    # Above its own chance level, which is no higher than today's.
    assert meta[key] > meta[chance] + 0.1 and meta[chance] <= today[chance] + 0.02, (name, meta, today)
