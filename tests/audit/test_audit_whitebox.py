"""The white-box attack of the shared audit (privcore.audit.whitebox; issue 38 item 2): each record's loss under
each trained model, a classifier cross-fitted over the models, TPR at low FPR per target model.

Tiny settings throughout: toy generators of our own (a bring-your-own generator with a ``per_record_loss``
method, as a user would write one) on a few hundred rows, and TabDDPM with a few training steps.
"""

from __future__ import annotations

import html
import json

import numpy as np
import pandas as pd
import pytest
from jsonschema import validate

from privcore.audit import AuditError
from privcore.audit.contract import audit_report_schema
from privcore.audit.shared import SharedSettings, audit_shared
from privcore.audit.whitebox import THREAT_MODEL, attack_losses, has_loss, loss_matrix, whitebox_result
from privcore.cli.main import main
from privcore.generators import GeneratorOutputError
from privcore.report.whitebox_figures import BAR_COLOUR, whitebox_figure
from tests.report.test_figures import check

COLUMNS = ["x", "y"]


def nearest_distance(records: pd.DataFrame, rows: pd.DataFrame) -> np.ndarray:
    a, b = records[COLUMNS].to_numpy(float), rows[COLUMNS].to_numpy(float)
    return np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)).min(axis=1)


class CopyWithLoss:
    """Memorises: outputs its training rows, and its loss is a record's distance to the nearest training row."""

    name = "copy_with_loss"

    def fit(self, table, types):
        self.table = table.reset_index(drop=True)
        return self

    def sample(self, n, seed):
        return self.table.sample(n=min(n, len(self.table)), random_state=seed).reset_index(drop=True)

    def per_record_loss(self, table, *, seed=0):
        return nearest_distance(table, self.table)


class FreshWithLoss:
    """A null: outputs population rows, and its loss (distance to the population, plus seeded noise) ignores
    the training set."""

    name = "fresh_with_loss"

    def __init__(self, population):
        self.population = population

    def fit(self, table, types):
        self.fitted_on = len(table)
        return self

    def sample(self, n, seed):
        return self.population.sample(n=n, replace=True, random_state=seed).reset_index(drop=True)

    def per_record_loss(self, table, *, seed=0):
        noise = np.random.default_rng([seed, self.fitted_on]).random(len(table))
        return nearest_distance(table, self.population) + 0.05 * noise


class NoLoss(CopyWithLoss):
    per_record_loss = None  # not callable: offers no loss


SETTINGS = SharedSettings(models=16, records=100, n_queries=4)


@pytest.fixture(scope="module")
def copy_report(toy_table):
    return audit_shared(toy_table, stronger=False, settings=SETTINGS, make=lambda population: CopyWithLoss())


@pytest.mark.slow
def test_a_memorising_loss_exposes_members_at_fpr_0(copy_report):
    white = copy_report.whitebox
    assert white is not None and white.summary["models_scored"] == SETTINGS.models
    tprs = [m.tpr_at["0"] for m in white.models]
    assert min(tprs) > 0.5, tprs
    assert white.summary["tpr_at_fpr_0"]["median"] > 0.5
    assert all(m.members + m.non_members == SETTINGS.records for m in white.models)
    # 100 records leave about 50 non-members per model: FPR 0.1 % and 1 % cannot be measured, so none is claimed.
    assert all(m.tpr_at["0.001"] is None and m.tpr_at["0.01"] is None for m in white.models)
    # The memorisation shows record by record too, and the shuffled-membership chance level stays low.
    assert np.median([r["auc"] for r in white.records]) > 0.9
    assert white.summary["chance"]["tpr_at_fpr_0"]["median"] < 0.2


def test_the_json_states_the_threat_model_and_validates(copy_report):
    document = json.loads(json.dumps(copy_report.to_dict()))
    assert document["whitebox"]["threat_model"] == THREAT_MODEL
    assert "has each trained model" in THREAT_MODEL and "loss" in THREAT_MODEL
    assert [m["model"] for m in document["whitebox"]["models"]] == list(range(SETTINGS.models))
    assert {r["row"] for r in document["whitebox"]["records"]} == {r.row for r in copy_report.records}
    validate(document, audit_report_schema())


def test_the_figure_draws_each_models_tpr_at_fpr_0_beside_chance(copy_report):
    figure = whitebox_figure(copy_report.whitebox, copy_report.title)
    check(figure)
    bars, chance = figure.fig.data
    assert list(bars.y) == [m.tpr_at["0"] for m in copy_report.whitebox.models] and bars.marker.color == BAR_COLOUR
    median = copy_report.whitebox.summary["chance"]["tpr_at_fpr_0"]["median"]
    assert list(chance.y) == [median, median] and list(chance.x) == [-0.5, SETTINGS.models - 0.5]
    first = copy_report.whitebox.models[0].tpr_at["0"]
    assert figure.caption.count(".") == 1 and f"model 0 {first:.1%}" in figure.alt


@pytest.mark.slow
def test_a_loss_that_ignores_membership_stays_at_chance(toy_table):
    white = audit_shared(toy_table, stronger=False, settings=SETTINGS, make=FreshWithLoss).whitebox
    covering = [m.auc_interval[0] <= 0.5 <= m.auc_interval[1] for m in white.models]
    assert np.mean(covering) >= 0.75, [m.auc_interval for m in white.models]
    assert 0.4 <= white.summary["auc"]["median"] <= 0.6
    assert white.summary["tpr_at_fpr_0"]["median"] < 0.1


def test_a_generator_without_a_loss_gets_no_white_box_attack(toy_table):
    small = SharedSettings(models=8, records=40, n_queries=2)
    assert not has_loss(NoLoss()) and has_loss(CopyWithLoss())
    report = audit_shared(toy_table, stronger=False, settings=small, make=lambda population: NoLoss())
    assert report.whitebox is None and report.to_dict()["whitebox"] is None
    with pytest.raises(AuditError, match="per-record loss"):
        audit_shared(toy_table, stronger=False, settings=small, make=lambda population: NoLoss(), whitebox=True)
    # And one with a loss can be audited without it.
    assert audit_shared(toy_table, stronger=False,
                        settings=small, make=lambda population: CopyWithLoss(), whitebox=False).whitebox is None


def test_the_loss_matrix_is_one_finite_value_per_record_and_column(toy_table):
    model = CopyWithLoss().fit(toy_table.iloc[:50], {})
    losses = loss_matrix(model, toy_table, seed=0)
    assert losses.shape == (len(toy_table), 1) and np.all(np.isfinite(losses))
    assert np.all(losses[:50, 0] == 0) and np.all(losses[50:, 0] > 0)
    assert loss_matrix(NoLoss().fit(toy_table, {}), toy_table, seed=0) is None

    class Broken(CopyWithLoss):
        def per_record_loss(self, table, *, seed=0):
            return np.full(len(table), np.inf)

    with pytest.raises(GeneratorOutputError, match="finite"):
        loss_matrix(Broken().fit(toy_table, {}), toy_table, seed=0)


def test_a_fold_is_scored_without_its_own_membership():
    # The model attacked is never in the attack's training data: flipping the labels of fold 0's models leaves
    # their scores as they were, and changes the other folds' scores (whose classifiers learnt from fold 0).
    rng = np.random.default_rng(3)
    membership = rng.random((12, 40)) < 0.5
    losses = np.where(membership, 0.0, 1.0)[:, :, None] + 0.3 * rng.random((12, 40, 2))
    usable = np.ones(12, bool)
    flipped = membership.copy()
    flipped[0::3] = ~flipped[0::3]
    before, after = (attack_losses(losses, m, usable, folds=3) for m in (membership, flipped))
    assert np.array_equal(before[0::3], after[0::3])
    assert not np.allclose(before[1::3], after[1::3])


def test_a_failed_model_is_left_out():
    rng = np.random.default_rng(4)
    membership = rng.random((8, 30)) < 0.5
    losses = [np.where(row, 0.0, 1.0)[:, None] + 0.1 * rng.random((30, 1)) for row in membership]
    losses[5] = None
    result = whitebox_result(losses, membership, np.ones(8, bool), 2, 0, np.arange(30))
    assert [m.model for m in result.models] == [0, 1, 2, 3, 4, 6, 7]
    assert all(m.auc == 1.0 for m in result.models)


@pytest.mark.slow
def test_tabddpm_runs_through_the_white_box_audit(toy_table):
    pytest.importorskip("torch", reason="privcore[tabddpm] (torch) is installed by requirements-dev.txt")
    from privcore.audit.tasks import GeneratorFactory

    tiny = {"timesteps": 8, "steps": 20, "batch_size": 32, "width": 16, "depth": 1}
    settings = SharedSettings(models=8, records=30, n_queries=2)
    report = audit_shared(toy_table.iloc[:60], stronger=False,
                          settings=settings, make=GeneratorFactory("tabddpm", tiny))
    white = report.whitebox
    assert white is not None and white.loss_columns == 8  # one column per timestep 0 … 7
    assert report.splits["failed_models"] == 0 and len(white.models) == 8
    assert all(0 <= m.auc <= 1 and 0 <= m.tpr_at["0"] <= 1 for m in white.models)
    assert report.timings["losses"] > 0


#: A generator of the user's own, on PYTHONPATH: resampled training rows, loss 0 on a training row and 1 otherwise.
OWN_MODULE = '''
import numpy as np


class LossyResampler:
    def fit(self, table, types):
        self.table = table.reset_index(drop=True)
        return self

    def sample(self, n, seed):
        return self.table.sample(n, replace=True, random_state=seed).reset_index(drop=True)

    def per_record_loss(self, table, *, seed=0):
        seen = set(map(tuple, self.table.astype(str).to_numpy()))
        return np.array([0.0 if tuple(row) in seen else 1.0 for row in table.astype(str).to_numpy()])
'''


def audit_cli(capsys, *args) -> tuple[int, str, str]:
    """``python -m privcore audit --demo exact_copy --quiet ARGS`` in this process: exit code, stdout, stderr."""
    capsys.readouterr()
    code = main(["audit", "--demo", "exact_copy", "--quiet", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.slow
def test_the_command_line_runs_it_for_a_generator_of_ones_own_and_refuses_it_without_a_loss(tmp_path, monkeypatch,
                                                                                           capsys):
    (tmp_path / "own_lossy.py").write_text(OWN_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    tiny = ["--design", "shared", "--models", "8", "--records", "40"]
    page = tmp_path / "audit.html"
    code, out, err = audit_cli(capsys, "--generator", "own_lossy:LossyResampler", *tiny, "--html", str(page))
    assert code == 0, err
    white = json.loads(out)["whitebox"]
    assert white["threat_model"] == THREAT_MODEL and len(white["models"]) == 8
    assert white["summary"]["tpr_at_fpr_0"]["median"] > 0.5  # its loss gives every training row away
    text = page.read_text(encoding="utf-8")
    assert "White-box attack: the model's loss" in text and html.escape(THREAT_MODEL) in text
    section = text[text.index("White-box attack"):text.index("Exposed records")]
    assert section.count("<tr><td>") == 8  # a line per model
    code, _, err = audit_cli(capsys, "--generator", "exact_copy", *tiny, "--whitebox", "on")
    assert code == 2 and "per-record loss" in err
    code, _, err = audit_cli(capsys, "--generator", "own_lossy:LossyResampler", "--whitebox", "on")
    assert code == 2 and "add --design shared" in err
