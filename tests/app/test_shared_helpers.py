"""The docstring examples of the dashboard's helpers below the views (formatting, progress text), which the
views' own doctest runs no longer reach since the helpers left them."""

from __future__ import annotations

import doctest

import pytest

from dashboard import formatting, progress


@pytest.mark.parametrize("module", [formatting, progress], ids=lambda module: module.__name__)
def test_docstring_examples(module):
    results = doctest.testmod(module)
    assert results.attempted > 0 and results.failed == 0
