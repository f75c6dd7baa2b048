"""The docstring examples of dashboard modules that no other test runs with doctest: the helpers below the
views (progress text), the Compare-metrics page's modules, the Audit page's estimate and the sign-in settings."""

from __future__ import annotations

import doctest

import pytest

from dashboard import progress
from dashboard.audit import estimate as audit_estimate
from dashboard.lab import estimate as lab_estimate
from dashboard.lab import ladder as lab_ladder
from dashboard.lab import view as lab_view
from dashboard.session import sign_in

MODULES = [progress, lab_view, lab_estimate, lab_ladder, audit_estimate, sign_in]


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.__name__)
def test_docstring_examples(module):
    results = doctest.testmod(module)
    assert results.attempted > 0 and results.failed == 0
