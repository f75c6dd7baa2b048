"""Fixtures that test modules of more than one file share; pytest finds them for every test under ``tests/``.

A fixture that only one folder needs is in that folder's ``conftest.py`` (``tests/app``: the dashboard's AppTest
helpers and session-store clock; ``tests/browser``: the live server and the browser), one that only one module
needs stays in the module. All are module-scoped where they load data: each test module gets its own copy, as
when every module defined them, so that no test can see what a test of another module did to them.

privcore is imported inside the fixtures, not here: a test run that uses none of them (a browser test, the
start-up import probes) does not pay for it.
"""

from __future__ import annotations

import pytest

#: People in the demo tables of :func:`demo`.
DEMO_ROWS = 300


@pytest.fixture(scope="module")
def demo():
    """The demo's noisy copy (``noisy_copy``) at 300 people: ``real``, ``synthetic`` and ``holdout`` tables, the
    column ``types``, ``key`` and ``sensitive`` column (:class:`privcore.demo.DemoData`)."""
    from privcore.demo import load_scenario

    return load_scenario("noisy_copy", n=DEMO_ROWS)


@pytest.fixture(scope="module")
def demo_schema(demo):
    """The schema of :func:`demo`: its column types, key and sensitive column."""
    from privcore.data.schema import Schema

    return Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)


@pytest.fixture(scope="module")
def toy_table():
    """240 rows of two standard normal columns ``x``, ``y`` and a category ``c`` of three values (seed 0): a
    table the audit's shadow models fit in moments."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    return pd.DataFrame({"x": rng.normal(size=240), "y": rng.normal(size=240), "c": rng.choice(list("abc"), 240)})


@pytest.fixture(scope="module")
def dask_client():
    """The cluster privcore makes for ``--dask local:2``, closed after the module: worker processes with one thread
    each, so each fit limits BLAS to one thread in a process of its own, exactly as in this process. (A
    LocalCluster made by hand in a test left Dask's default MALLOC_TRIM_THRESHOLD_ to the next local cluster of
    the test process.) The modules that use it skip without ``distributed``."""
    from privcore.engine.cluster import connected

    with connected("local:2") as client:
        yield client
