"""One evaluation object (privcore.evaluation.dataset): the same reports as the long-argument calls, one check."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore import (
    Dataset,
    EvaluationOptions,
    InputError,
    Relation,
    Schema,
    evaluate,
    evaluate_dataset,
    evaluate_related,
)


def _people(rng: np.random.Generator, n: int, first: int = 0) -> dict[str, pd.DataFrame]:
    people = pd.DataFrame({"id": np.arange(first, first + n), "age": rng.integers(20, 80, n),
                           "town": rng.choice(list("abcd"), n)})
    visits = pd.DataFrame({"pid": rng.choice(people["id"], 3 * n), "ward": rng.choice(["x", "y", "z"], 3 * n),
                           "cost": rng.normal(100, 20, 3 * n).round(1)})
    return {"people": people, "visits": visits}


def _table(rng: np.random.Generator, n: int) -> pd.DataFrame:
    return pd.DataFrame({"age": rng.integers(20, 80, n), "sex": rng.choice(["F", "M"], n),
                         "income": rng.normal(50, 10, n).round(1)})


def _same(one, other) -> None:
    assert list(one) == list(other)
    for metric in one:
        a, b = one[metric], other[metric]
        assert (a.risk, a.baseline, a.failed) == (b.risk, b.baseline, b.failed), metric
    assert one.dp_epsilon == other.dp_epsilon


def test_one_table_through_the_object_is_the_long_call():
    rng = np.random.default_rng(0)
    real, synthetic, holdout, reference = (_table(rng, n) for n in (300, 300, 200, 150))
    schema = Schema({"age": "numerical", "sex": "categorical", "income": "numerical"}, sensitive="income")
    long_call = evaluate(real, synthetic, schema, metrics="quick", holdout=holdout, reference=reference, seed=3,
                         dp_epsilon=2.0, params={"cvp": {"threshold": 0.2}})
    options = EvaluationOptions(seed=3, dp_epsilon=2.0, params={"cvp": {"threshold": 0.2}})
    via_object = evaluate_dataset(Dataset(real, synthetic, holdout, reference, schema), "quick", options)
    _same(long_call, via_object)
    assert via_object.related is None


def test_related_tables_through_the_object_are_the_related_call():
    rng = np.random.default_rng(1)
    real, synthetic, holdout = _people(rng, 150), _people(rng, 150, 1000), _people(rng, 150, 2000)
    relation = Relation("visits", "pid", "people", "id")
    long_call = evaluate_related(real, synthetic, [relation], holdout=holdout, metrics="quick", seed=2)
    dataset = Dataset(real, synthetic, holdout, relations=(relation,))
    via_object = evaluate_dataset(dataset, "quick", EvaluationOptions(seed=2))
    _same(long_call, via_object)
    assert via_object.related["people_table"] == "people"
    assert via_object.related["rows"]["real"] == {"people": 150, "visits": 450}


def test_related_tables_take_a_reference_and_a_declared_epsilon():
    rng = np.random.default_rng(2)
    real, synthetic, holdout, reference = (_people(rng, 120, k * 1000) for k in range(4))
    dataset = Dataset(real, synthetic, holdout, reference, relations=(Relation("visits", "pid", "people", "id"),))
    report = evaluate_dataset(dataset, "mia_distance", EvaluationOptions(seed=0, dp_epsilon=1.0))
    assert report.dp_epsilon == 1.0
    assert "reference" not in report.related["rows"]  # rows compare the release with the real and fresh people
    assert report["mia_distance"].applicable


@pytest.mark.parametrize("roles, words", [
    ({"synthetic": "tables"}, "synthetic data is several tables by name"),
    ({"relations": True, "real": "one"}, "real data is one table"),
    ({"relations": True, "schema": True}, "take no schema"),
])
def test_the_object_says_what_shape_each_role_needs(roles, words):
    rng = np.random.default_rng(3)
    one, tables = _table(rng, 20), _people(rng, 20)
    relations = (Relation("visits", "pid", "people", "id"),) if roles.get("relations") else ()
    real = one if roles.get("real") == "one" or not relations else tables
    synthetic = tables if roles.get("synthetic") == "tables" or relations else one
    schema = Schema({"age": "numerical"}) if roles.get("schema") else None
    with pytest.raises(InputError, match=words):
        Dataset(real, synthetic, schema=schema, relations=relations)


def test_the_command_line_builds_one_object_for_related_tables_with_every_option(tmp_path, capsys):
    from privcore.cli.main import main

    rng = np.random.default_rng(4)
    flags = []
    for k, role in enumerate(("real", "synthetic", "holdout", "reference")):
        for table, frame in _people(rng, 100, 1000 * k).items():
            frame.to_csv(tmp_path / f"{role}_{table}.csv", index=False)
            flags += [f"--{role}", f"{table}={tmp_path / f'{role}_{table}.csv'}"]
    out = tmp_path / "out.json"
    code = main(["evaluate", *flags, "--relation", "visits.pid=people.id", "--metrics", "mia_distance",
                 "--dp-epsilon", "1", "--json", str(out), "--quiet"])
    assert code in (0, 1), capsys.readouterr().err
    document = pd.read_json(out, typ="series")
    assert document["dp_epsilon"] == 1.0
    assert set(document["related"]["rows"]) == {"real", "synthetic", "holdout"}
    assert main(["evaluate", "--real", "a.csv", "--synthetic", "b.csv", "--reference", "r1.csv", "--reference",
                 "r2.csv"]) == 2
    assert "--reference is given 2 times" in capsys.readouterr().err
