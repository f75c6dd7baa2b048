"""The audit's answer names the generator in words (issue 36 item 6): its label in the registry and the settings
given, never its machine name, in both designs, in the JSON's verdict and HTML headline, and in the figures' titles;
the machine name stays in the JSON's ``generator`` field."""

from __future__ import annotations

import doctest

import pytest

from privcore.audit.shared import SharedSettings, audit_shared
from privcore.audit.targeted import AuditSettings, audit
from privcore.audit.tasks import GeneratorFactory
from privcore.cli.audit import audit_html, shared_audit_html
from privcore.generators import generator_label, generator_title, registry
from privcore.report.audit_figures import audit_figure, shared_audit_figure

PRIVBAYES = generator_label("privbayes")
TINY_TARGETED = AuditSettings(targets=1, random_targets=1, shadow_models=4, eval_models=4, n_queries=20, seed=0)
TINY_SHARED = SharedSettings(models=8, records=40, seed=0)


@pytest.fixture(scope="module")
def shared_report(demo, demo_schema):
    real, schema = demo.real, demo_schema
    return audit_shared(real, None, schema, stronger=False, settings=TINY_SHARED, generator_name="privbayes",
                        make=GeneratorFactory("privbayes"))


def test_the_registry_names_privbayes_in_words():
    assert PRIVBAYES == "Bayesian network (PrivBayes)"
    assert generator_title("privbayes", {"epsilon": 1.0}) == "Bayesian network (PrivBayes) with privacy budget ε = 1"
    assert generator_title("privbayes", {"epsilon": None}) == PRIVBAYES  # a setting not set is not named
    assert doctest.testmod(registry).failed == 0


@pytest.mark.slow
def test_the_shared_audits_answer_uses_the_label_not_the_id(shared_report):
    verdict = shared_report.summary["verdict"]
    assert verdict.startswith(PRIVBAYES) or f"of {PRIVBAYES} " in verdict, verdict
    assert "privbayes" not in verdict
    document = shared_report.to_dict()
    assert document["generator"] == "privbayes" and document["generator_label"] == PRIVBAYES  # machine name kept
    page = shared_audit_html(document)
    assert f"audit: {PRIVBAYES}</h1>" in page and "privbayes" not in page
    assert shared_audit_figure(shared_report).title.startswith(PRIVBAYES)


@pytest.mark.slow
def test_the_targeted_audits_answer_uses_the_label_with_its_settings(demo, demo_schema):
    real, schema = demo.real, demo_schema
    title = generator_title("privbayes", {"k": 1})
    report = audit(real, None, schema, settings=TINY_TARGETED, generator_name="privbayes",
                   generator_label=title, make=GeneratorFactory("privbayes", {"k": 1}))
    verdict = report.summary["verdict"]
    assert title == "Bayesian network (PrivBayes) with parents = 1"
    assert title in verdict and "privbayes" not in verdict, verdict
    document = report.to_dict()
    assert document["generator"] == "privbayes" and document["generator_label"] == title
    assert f"audit: {title}</h1>" in audit_html(document)
    assert audit_figure(report).title.startswith(title)


def test_a_generator_made_by_name_is_named_by_its_label_without_being_told(demo, demo_schema):
    # No generator_name, no generator_label: the factory's name is looked up in the registry.
    real, schema = demo.real, demo_schema
    report = audit_shared(real, None, schema, stronger=False, settings=TINY_SHARED, make=GeneratorFactory("exact_copy"))
    assert report.generator == "exact_copy" and report.label == "Exact copy (worst case)"
    assert report.summary["verdict"].startswith("Exact copy (worst case) ")  # too few models to say more


def test_a_generator_of_ones_own_keeps_its_own_name(demo, demo_schema):
    real, schema = demo.real, demo_schema

    class Mine:
        def fit(self, table, types=None):
            self.table = table.reset_index(drop=True)
            return self

        def sample(self, n, seed=0):
            return self.table.sample(n, replace=True, random_state=seed).reset_index(drop=True)

    report = audit_shared(real, Mine(), schema, stronger=False, settings=TINY_SHARED)
    assert report.generator == report.label == "Mine" and "Mine" in report.summary["verdict"]
