"""Tables people hold (issue 56): codes of many values, wide tables, and no answer resting on a failed metric."""

from __future__ import annotations

import contextlib
import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

from privcore import Schema, evaluate
from privcore.data.prepare import prepare
from privcore.engine.encoding import EuclideanSpace
from privcore.evaluation.verdict import CAUTION, RELEASE, verdict
from privcore.metrics import registry

#: Metrics of the quick preset that read the shared space E (the ones that stopped on the int8 overflow).
E_METRICS = ["cvp", "dvp", "auth", "idscore", "nsnd", "mdcr", "nnaa", "mia_distance", "mia_classifier"]


def population(n: int, codes: int, seed: int, code_first: bool = True) -> pd.DataFrame:
    """People with a diagnosis code of ``codes`` values (first column) and four ordinary columns."""
    rng = np.random.default_rng(seed)
    table = {
        "age": rng.integers(18, 90, n),
        "sex": rng.choice(["F", "M"], n),
        "region": rng.choice(list("abcd"), n),
        "income": rng.normal(50, 10, n).round(1),
    }
    code = {"diagnosis": rng.choice([f"D{i:04d}" for i in range(codes)], n)}
    return pd.DataFrame({**code, **table} if code_first else {**table, **code})


def schema_of(table: pd.DataFrame, sensitive: str = "income") -> Schema:
    types = {c: ("numerical" if pd.api.types.is_numeric_dtype(table[c]) else
                 "binary" if table[c].nunique() == 2 else "categorical") for c in table.columns}
    return Schema(types=types, sensitive=sensitive)


@pytest.mark.parametrize("codes", [300, 3000])
def test_a_code_with_many_values_before_other_columns_runs_every_metric(codes):
    # On cbb4410 every metric reading E stopped with "OverflowError: Python integer 300 out of bounds for int8":
    # pandas keeps the codes of up to 127 categories as int8, and the one-hot offset of a later column passed 127.
    real, synthetic, holdout = (population(300, codes, seed) for seed in (1, 2, 3))
    report = evaluate(real, synthetic, schema_of(real), metrics=E_METRICS, holdout=holdout,
                      params={m: {"n_boot": 50} for m in E_METRICS if m.startswith("mia_")})
    assert not report.errors, report.errors[0][:400] if report.errors else ""
    assert all(result.applicable and not result.failed for result in report.values()), \
        {k: r.reason for k, r in report.items() if not r.applicable}


def test_one_hot_blocks_past_127_coordinates_are_placed_exactly():
    # 50 categoricals of four values after 50 numbers: blocks start well past int8's 127.
    rng = np.random.default_rng(0)
    table = pd.DataFrame({**{f"n{j}": rng.normal(size=40) for j in range(50)},
                          **{f"c{j}": rng.choice(list("wxyz"), 40) for j in range(50)}})
    schema = schema_of(table, sensitive=None)
    data = prepare(table, table.copy(), schema)
    space = EuclideanSpace(data.real, [data.synthetic], schema)
    encoded = space.transform(data.real)
    assert encoded.shape == (40, 50 + 50 * 4)
    for block in space.blocks[50:]:
        values = data.real[block.column].to_numpy()
        chosen = np.argmax(encoded[:, block.start:block.stop], axis=1)
        assert np.all(encoded[:, block.start:block.stop].sum(axis=1) == 1.0)
        assert np.array_equal(np.array(sorted(set(values)))[chosen], values)


def test_a_wide_table_of_a_hundred_columns_runs_the_distance_metrics():
    rng = np.random.default_rng(1)

    def draw(seed):
        r = np.random.default_rng(seed)
        return pd.DataFrame({**{f"n{j}": r.normal(size=200) for j in range(50)},
                             **{f"c{j}": r.choice(list("wxyz"), 200) for j in range(50)}})
    real, synthetic, holdout = draw(1), draw(2), draw(3)
    del rng
    report = evaluate(real, synthetic, schema_of(real, sensitive="c49"), metrics=["cvp", "dcr", "nnaa", "mdcr"],
                      holdout=holdout)
    assert not report.errors
    assert all(result.applicable for result in report.values())


@contextlib.contextmanager
def broken(metric_id: str):
    """``metric_id`` raises an internal error while the block runs (a planted defect)."""
    info = registry.get(metric_id)

    def fails(ctx):
        raise RuntimeError("planted defect")

    registry._REGISTRY[metric_id] = dataclasses.replace(info, compute=fails)
    try:
        yield info
    finally:
        registry._REGISTRY[metric_id] = info


@pytest.fixture(scope="module")
def report_with_a_failed_attack():
    """A fresh sample evaluated while the strongest membership attack is broken on purpose."""
    real, synthetic, holdout = (population(300, 6, seed) for seed in (1, 2, 3))
    with broken("mia_best"):
        return evaluate(real, synthetic, schema_of(real), metrics=["mia_distance", "mia_best", "crp"],
                        holdout=holdout, params={"mia_distance": {"n_boot": 50}})


def test_a_failed_attack_never_lets_the_table_be_released(report_with_a_failed_attack):
    # On cbb4410 the verdict answered "Release" from the attack that ran, with mia_best and 17 others failed.
    report = report_with_a_failed_attack
    assert report["mia_best"].failed and not report["mia_best"].applicable
    assert report["mia_distance"].applicable  # what ran finds nothing on a fresh sample ...
    answer = verdict(report)
    assert answer.level != RELEASE  # ... but the answer cannot rest on it
    assert answer.level == CAUTION
    assert answer.headline.startswith("No answer")
    assert "strongest" in answer.headline.lower() and "defect" in answer.headline
    assert answer.failed == [registry.get("mia_best").name]
    doc = json.loads(report.to_json())
    assert doc["metrics"]["mia_best"]["failed"] is True and doc["metrics"]["crp"]["failed"] is False
    assert doc["verdict"]["failed"] == answer.failed and doc["verdict"]["level"] == CAUTION


def test_a_failed_utility_measure_does_not_change_the_privacy_answer():
    real, synthetic, holdout = (population(300, 6, seed) for seed in (1, 2, 3))
    with broken("utility_shapes") as info:
        report = evaluate(real, synthetic, schema_of(real), metrics=["mia_distance", "utility_shapes"],
                          holdout=holdout, params={"mia_distance": {"n_boot": 50}})
    answer = verdict(report)
    assert answer.failed == [info.name]
    assert not answer.headline.startswith("No answer")
