"""The shadow-model audit of a generator (privcore.audit.targeted; issue 10)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from scipy.stats import binom
from sklearn.metrics import roc_auc_score, roc_curve

from privcore.audit.targeted import (
    FPR_LEVELS,
    AuditError,
    AuditSettings,
    achilles_scores,
    audit,
    chance_share_above,
    roc_summary,
)
from privcore.base.errors import TooFewRowsError
from privcore.data.schema import Schema
from privcore.demo import load_scenario
from privcore.generators import make_generator

SMALL = AuditSettings(targets=2, random_targets=2, shadow_models=8, eval_models=10, n_queries=40, seed=0)


@pytest.fixture(scope="module")
def adult():
    demo = load_scenario("fresh_sample", n=2000)
    return demo.real, Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)


def built_in(name):
    return lambda population: make_generator(name, population=population)


# ------------------------------------------------------------------------------------------ pieces


@hsettings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=12), st.lists(st.integers(0, 4), min_size=1, max_size=25))
def test_roc_summary_agrees_with_sklearn(members, non):
    members, non = np.array(members, float), np.array(non, float)
    labels, scores = np.r_[np.ones(len(members)), np.zeros(len(non))], np.r_[members, non]
    auc, tpr = roc_summary(members, non)
    assert auc[0] == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
    fpr, sk_tpr, _ = roc_curve(labels, scores, drop_intermediate=False)
    for key, level in FPR_LEVELS.items():
        assert tpr[key][0] == pytest.approx(sk_tpr[fpr <= level + 1e-12].max(), abs=1e-12)


def test_achilles_score_ranks_the_outlier_first():
    rng = np.random.default_rng(0)
    points = np.vstack([rng.normal(0, 0.1, (50, 2)), [[5.0, 5.0]]])
    scores = achilles_scores(points)
    assert int(np.argmax(scores)) == 50
    # by hand on a line: nearest two of 0 are 1, 2 → 1.5; of 1 are 0, 2 → 1; of 10 are 2, 1 → 8.5
    assert achilles_scores(np.array([[0.0], [1.0], [2.0], [10.0]]), k=2).tolist() == [1.5, 1.0, 1.5, 8.5]


def test_chance_of_an_auc_above_a_threshold():
    # Exact for 1 vs 1 model: AUC is 0 or 1 with probability ½ each.
    assert chance_share_above(0.6, 1, 1) == pytest.approx(0.5, abs=0.02)
    # Symmetry: P(AUC > 0.5) + P(AUC < 0.5) + P(AUC = 0.5) = 1, and more models concentrate it near 0.5.
    assert chance_share_above(0.6, 10, 10) > chance_share_above(0.6, 50, 50) > 0
    assert chance_share_above(0.6, 10, 10) == pytest.approx(0.22, abs=0.03)


# --------------------------------------------------------------------------------------- the attack


@pytest.mark.slow
def test_an_exact_copy_is_caught_for_every_target(adult):
    real, schema = adult
    report = audit(real.iloc[:800], None, schema, settings=SMALL, make=built_in("exact_copy"))
    aucs = [t.auc for t in report.targets]
    assert len(aucs) == 4 and min(aucs) >= 0.9, aucs
    assert report.summary["share_auc_above_0.8"] == 1.0
    assert "not private" in report.summary["verdict"]


@pytest.mark.slow
def test_a_generator_that_ignores_its_training_data_is_the_calibrated_null(adult):
    real, schema = adult
    budget = AuditSettings(targets=4, random_targets=4, shadow_models=10, eval_models=20, n_queries=40, seed=3)
    report = audit(real.iloc[:1200], None, schema, settings=budget, make=built_in("fresh_sample"))
    aucs = np.array([t.auc for t in report.targets])
    assert abs(aucs.mean() - 0.5) < 0.1, aucs
    # No more targets above 0.6 than chance predicts (99 % binomial bound).
    chance = report.summary["chance_share_above_0.6"]
    assert (aucs > 0.6).sum() <= binom.ppf(0.99, len(aucs), chance), (aucs, chance)


@pytest.mark.slow
def test_independent_histograms_expose_the_rare_targets_more_than_random_ones(adult):
    # Meeus et al.: outliers are the vulnerable ones; the marginals of a small training set move visibly
    # when a record with rare values joins it.
    real, schema = adult
    budget = AuditSettings(targets=5, random_targets=5, shadow_models=30, eval_models=20, n_queries=60, seed=1,
                           training_rows=300)
    report = audit(real, None, schema, settings=budget, make=built_in("independent_histograms"))
    means = report.summary["mean_auc"]
    assert means["vulnerable"] > means["random"] + 0.05, means


# ------------------------------------------------------------------------------------- settings, errors


@pytest.mark.slow
def test_same_seed_same_report(adult):
    real, schema = adult
    a = audit(real.iloc[:600], None, schema, settings=SMALL, make=built_in("independent_histograms"))
    b = audit(real.iloc[:600], None, schema, settings=SMALL, make=built_in("independent_histograms"))
    strip = lambda d: {k: v for k, v in d.items() if k not in ("seconds", "timings")}  # noqa: E731
    assert strip(a.to_dict()) == strip(b.to_dict())
    document = json.loads(json.dumps(a.to_dict(), allow_nan=False))
    assert set(document) >= {"targets", "summary", "generator", "settings"}
    target = document["targets"][0]
    assert set(target) >= {"row", "chosen", "auc", "auc_interval", "tpr_at"}
    assert set(target["tpr_at"]) == {"0", "0.01", "0.1"}
    assert {"share_auc_above_0.6", "share_auc_above_0.8", "dcr_test"} <= set(document["summary"])
    assert [t["chosen"] for t in document["targets"]] == ["vulnerable"] * 2 + ["random"] * 2


@pytest.mark.parametrize("change, fragment", [
    ({"shadow_models": 0}, r"Shadow models per side \(audit.shadow_models\) must be between 1 and 1000"),
    ({"targets": 0, "random_targets": 0}, "at least one target"),
    ({"eval_models": 2}, "eval_models"),
    ({"seed": -1}, "seed"),
])
def test_bad_settings_are_named(adult, change, fragment):
    real, schema = adult
    values = {**SMALL.__dict__, **change}
    with pytest.raises(AuditError, match=fragment):
        audit(real.iloc[:600], None, schema, settings=AuditSettings(**values), make=built_in("exact_copy"))


def test_too_few_rows_for_the_three_splits(adult):
    real, schema = adult
    with pytest.raises(TooFewRowsError, match="too few to split"):
        audit(real.iloc[:30], None, schema, settings=SMALL, make=built_in("exact_copy"))


class Flaky:
    """Fails on every third fit; otherwise copies its training rows."""

    def __init__(self):
        self.calls = 0

    def fit(self, table, types=None):
        self.calls += 1
        if self.calls % 3 == 0:
            raise RuntimeError("out of memory (simulated)")
        self.table = table
        return self

    def sample(self, n, seed=0):
        return self.table.sample(n, replace=True, random_state=seed).reset_index(drop=True)


class Broken:
    def fit(self, table, types=None):
        return self

    def sample(self, n, seed=0):
        return pd.DataFrame({"nonsense": np.zeros(n)})


@pytest.mark.slow
def test_a_generator_failing_on_some_models_is_reported_not_fatal(adult):
    real, schema = adult
    report = audit(real.iloc[:600], Flaky(), schema, settings=SMALL, generator_name="flaky")
    assert all(t.failed_models > 0 and t.auc is not None for t in report.targets)
    assert any("out of memory (simulated)" in w for w in report.warnings)


def test_a_generator_returning_the_wrong_columns_fails_with_a_named_error(adult):
    real, schema = adult
    with pytest.raises(AuditError, match="failed on every model.*without the column"):
        audit(real.iloc[:600], Broken(), schema, settings=SMALL, generator_name="broken")


# ------------------------------------------------------------------------------------------ command line


def cli(*args, cwd=None):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "privcore", "audit", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


@pytest.mark.slow
def test_cli_lists_the_generators_with_their_settings():
    proc = cli("--list-generators")
    assert proc.returncode == 0
    for name in ("exact_copy", "fresh_sample", "independent_histograms", "dp_marginals", "partial_copy"):
        assert name in proc.stdout
    assert "epsilon" in proc.stdout


@pytest.mark.slow
def test_cli_audit_writes_json_and_html(tmp_path):
    assert cli_demo(tmp_path).returncode == 0
    proc = cli("--real", "real.csv", "--generator", "dp_marginals", "--generator-param", "epsilon=2",
               "--targets", "1", "--random-targets", "1", "--shadow-models", "4", "--eval-models", "6",
               "--json", "out.json", "--html", "out.html", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    document = json.loads((tmp_path / "out.json").read_text())
    assert document["generator_settings"] == {"epsilon": 2} and len(document["targets"]) == 2
    # The machine name (with the settings as typed) in "generator"; the answer's name in words beside it.
    title = "Differentially private marginals with privacy budget ε = 2"
    assert document["generator"] == "dp_marginals epsilon=2" and document["generator_label"] == title
    assert set(document["targets"][0]["tpr_at"]) == {"0", "0.01", "0.1"}
    page = (tmp_path / "out.html").read_text()
    assert "Shadow-model membership audit" in page and "<script" not in page and "http" not in page.split("<body>")[1]
    assert f"<h1>Shadow-model membership audit: {title}</h1>" in page and "dp_marginals" not in page


def cli_demo(tmp_path):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "privcore", "demo", "noisy_copy", "--out", str(tmp_path),
                           "--rows", "300"], capture_output=True, text=True, timeout=120)


@pytest.mark.slow
@pytest.mark.parametrize("args, fragment", [
    (["--generator", "nope"], "Unknown generator 'nope'"),
    (["--generator", "dp_marginals", "--generator-param", "epsilon=-1"], "dp_marginals.epsilon"),
    (["--generator", "exact_copy", "--shadow-models", "0"], "shadow_models"),
    (["--generator", "exact_copy", "--seed", "-5"], "--seed -5"),
    (["--generator", "exact_copy", "--json", "/no/such/dir/out.json"], "does not exist"),
    (["--generator", "exact_copy", "--generator-param", "epsilon"], "KEY=VALUE"),
    ([], "--generator NAME"),
])
def test_cli_bad_settings_exit_2_with_a_named_message(args, fragment):
    proc = cli("--demo", "exact_copy", *args)
    assert proc.returncode == 2, proc.stderr
    assert fragment in proc.stderr and proc.stderr.count("\n") == 1


# --------------------------------------------------------------------------------- ε lower bounds


def test_clopper_pearson_and_epsilon_by_hand():
    from scipy.stats import binomtest

    from privcore.base.stats import clopper_pearson_lower, clopper_pearson_upper, epsilon_lower_bound

    # One-sided 95 % bounds: all 10 of 10 → 0.05^(1/10); none of 10 → 1 − 0.05^(1/10).
    assert clopper_pearson_lower(10, 10) == pytest.approx(0.05 ** 0.1, rel=1e-12)
    assert clopper_pearson_upper(0, 10) == pytest.approx(1 - 0.05 ** 0.1, rel=1e-12)
    # Against scipy's exact interval (two-sided 90 % = two one-sided 95 % bounds).
    interval = binomtest(7, 20).proportion_ci(confidence_level=0.90, method="exact")
    assert clopper_pearson_lower(7, 20) == pytest.approx(interval.low, rel=1e-10)
    assert clopper_pearson_upper(7, 20) == pytest.approx(interval.high, rel=1e-10)
    # ε = ln(TPR_lo / FPR_hi) for a perfect test; the second branch ln((1 − FPR_hi)/(1 − TPR_lo)) wins when
    # every member and many non-members are flagged; an inverted test rules nothing out; δ lowers ε.
    assert epsilon_lower_bound(10, 10, 0, 10) == pytest.approx(np.log(0.05 ** 0.1 / (1 - 0.05 ** 0.1)))
    second = np.log((1 - clopper_pearson_upper(40, 100)) / (1 - clopper_pearson_lower(100, 100)))
    assert epsilon_lower_bound(100, 100, 40, 100) == pytest.approx(second) and second > 2.5
    assert epsilon_lower_bound(0, 10, 10, 10) == 0.0
    assert epsilon_lower_bound(10, 10, 0, 10, delta=0.1) < epsilon_lower_bound(10, 10, 0, 10)
    assert epsilon_lower_bound(50, 100, 50, 100) == 0.0


@pytest.mark.slow
def test_an_exact_copy_generator_has_a_large_epsilon_bound(adult):
    real, schema = adult
    budget = AuditSettings(targets=1, random_targets=1, shadow_models=8, eval_models=100, n_queries=30, seed=0)
    report = audit(real.iloc[:1000], None, schema, settings=budget, make=built_in("exact_copy"))
    # 50 + 50 evaluation models, all told apart: ln(0.05^(1/50) / (1 − 0.05^(1/50))) ≈ 2.78.
    assert all(t.epsilon_lower_bound > 2.5 for t in report.targets), [t.epsilon_lower_bound for t in report.targets]
    assert report.to_dict()["targets"][0]["epsilon_lower_bound"] > 2.5


@pytest.mark.slow
def test_the_dp_generator_at_epsilon_1_never_exceeds_its_epsilon(adult):
    # A test of the audit and of the DP generator together: a bound above 1 would mean one of them is wrong.
    real, schema = adult
    budget = AuditSettings(targets=3, random_targets=2, shadow_models=15, eval_models=60, n_queries=40, seed=2,
                           training_rows=200)
    report = audit(real.iloc[:1000], None, schema, settings=budget,
                   make=lambda population: make_generator("dp_marginals", epsilon=1.0, population=population))
    bounds = [t.epsilon_lower_bound for t in report.targets]
    assert all(b is not None and b <= 1.0 for b in bounds), bounds
