"""Passes over distinct rows (issue 12, item 1): tables with repeated rows are searched once per distinct row and
the results expanded to every row are exactly the engine's on the whole tables: the lowest index among equal
distances, a row's own copies at distance 0, −0.0 equal to 0.0, and the same extremes."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privcore import evaluate
from privcore.base.jsonvalues import without_timings
from privcore.data.schema import Schema
from privcore.demo import load_scenario
from privcore.engine import neighbors_distinct as D
from privcore.engine.neighbors import nearest_two
from privcore.engine.neighbors_both_ways import nearest_two_both_ways
from privcore.engine.neighbors_distinct import distinct_rows, expand, expand_within, pays


def repeated(seed, n, distinct, d=6, scale=2):
    """``n`` rows drawn from ``distinct`` rows of a small grid: repeats of every multiplicity, equal distances
    between different rows, and some −0.0."""
    rng = np.random.default_rng(seed)
    pool = rng.integers(-scale, scale + 1, size=(distinct, d)).astype(float)
    table = pool[rng.integers(0, distinct, n)]
    table[rng.random(table.shape) < 0.1] *= -1.0  # −0.0 where the value is 0
    return table


def assert_same(got, expected):
    np.testing.assert_array_equal(got.distance, expected.distance)
    np.testing.assert_array_equal(got.index, expected.index)


def test_distinct_rows_keep_the_order_of_first_occurrence_and_every_copy():
    table = np.array([[2.0, 0.0], [1.0, 1.0], [2.0, -0.0], [1.0, 1.0], [3.0, 3.0], [1.0, 1.0]])
    rows = distinct_rows(table)
    assert rows.points.tolist() == [[2.0, 0.0], [1.0, 1.0], [3.0, 3.0]]
    assert rows.inverse.tolist() == [0, 1, 0, 1, 2, 1]
    assert rows.copies.tolist() == [2, 3, 1]
    assert [rows.copy_rank(r).tolist() for r in range(3)] == [[0, 1, 4], [2, 3, -1], [-1, 5, -1]]
    assert distinct_rows(np.zeros((3, 0))).inverse.tolist() == [0, 0, 0]
    assert len(distinct_rows(np.zeros((0, 2))).points) == 0


@pytest.mark.parametrize("seed, n, distinct", [(0, 500, 40), (1, 300, 300), (2, 64, 1)])
def test_hashing_the_rows_groups_them_as_sorting_their_bytes(seed, n, distinct, monkeypatch):
    table = repeated(seed, n, distinct)
    table[::7, 0] = np.nan  # NaN never equals itself: the check fails and sorting, which compares bytes, decides
    for case in (repeated(seed, n, distinct), table):
        canonical = case + 0.0
        expected = D._grouped_by_sorting(canonical)
        hashed = D._grouped_by_hash(canonical)
        if np.isnan(case).any():
            assert hashed[0] is None
        else:
            for got, want in zip(hashed, expected):
                np.testing.assert_array_equal(got, want)
        got = distinct_rows(case)
        np.testing.assert_array_equal(got.inverse, expected[0])
    # Every row on one hash (a collision between different rows): the check catches it and sorting decides.
    monkeypatch.setattr(D, "_multipliers", lambda columns: np.zeros(columns, dtype=np.uint64))
    case = repeated(seed, n, distinct)
    assert len(D._grouped_by_sorting(case + 0.0)[2]) > 2  # more than one distinct row
    assert D._grouped_by_hash(case + 0.0)[0] is None
    np.testing.assert_array_equal(distinct_rows(case).inverse, D._grouped_by_sorting(case + 0.0)[0])


@pytest.mark.parametrize("seed, n, m, k", [(0, 300, 250, 12), (1, 200, 220, 60), (2, 50, 40, 3), (3, 120, 5, 2),
                                           (4, 9, 400, 1)])
def test_a_pass_between_two_tables_equals_the_engine_on_every_row(seed, n, m, k):
    query, reference = repeated(seed, n, k), repeated(seed + 100, m, max(1, k // 2))
    query_rows, reference_rows = distinct_rows(query), distinct_rows(reference)
    on_points, ext_points = nearest_two(query_rows.points, reference_rows.points, with_extremes=True)
    expected, ext_expected = nearest_two(query, reference, with_extremes=True)
    assert_same(expand(on_points, query_rows, reference_rows), expected)
    assert ext_points == ext_expected


@pytest.mark.parametrize("seed, n, k", [(0, 300, 12), (1, 200, 90), (2, 40, 1), (3, 2, 1), (4, 3, 2), (5, 150, 149)])
def test_a_pass_within_one_table_puts_a_rows_own_copies_first(seed, n, k):
    table = repeated(seed, n, k)
    rows = distinct_rows(table)
    on_points, _ = nearest_two(rows.points, rows.points, exclude_self=True)
    expected, _ = nearest_two(table, table, exclude_self=True, method="matrix")
    assert_same(expand_within(on_points, rows), expected)


def test_both_directions_on_distinct_rows():
    query, reference = repeated(7, 400, 30), repeated(8, 350, 25)
    query_rows, reference_rows = distinct_rows(query), distinct_rows(reference)
    forward, backward, extremes = nearest_two_both_ways(query_rows.points, reference_rows.points, with_extremes=True)
    expected_forward, expected_extremes = nearest_two(query, reference, with_extremes=True)
    assert_same(expand(forward, query_rows, reference_rows), expected_forward)
    assert_same(expand(backward, reference_rows, query_rows), nearest_two(reference, query)[0])
    assert extremes == expected_extremes


def test_a_wrong_expansion_is_caught():
    """The second neighbour is the nearer of the nearest row's second copy and the next row's first copy:
    always taking the next row's (a plausible mistake) gives other neighbours here, so the tests can fail."""

    class WithoutSecondCopies(D.DistinctRows):
        def copy_rank(self, rank):
            return super().copy_rank(rank) if rank == 0 else np.full(len(self.points), -1)

    query, reference = repeated(9, 200, 10), repeated(10, 200, 10)
    query_rows, reference_rows = distinct_rows(query), distinct_rows(reference)
    on_points, _ = nearest_two(query_rows.points, reference_rows.points)
    expected = nearest_two(query, reference)[0]
    mistaken = WithoutSecondCopies(reference_rows.points, reference_rows.inverse, reference_rows.rows,
                                   reference_rows.starts)
    assert not np.array_equal(expand(on_points, query_rows, mistaken).index, expected.index)
    assert_same(expand(on_points, query_rows, reference_rows), expected)


def test_distinct_rows_are_used_only_where_they_save_pairs():
    few = distinct_rows(repeated(0, 100, 10))
    unique = distinct_rows(np.arange(200.0).reshape(100, 2))
    assert pays(few, few) and pays(few, unique)
    assert not pays(unique, unique)


@pytest.fixture(scope="module")
def coarse():
    """Tables drawn with replacement from a few dozen people each: many repeated rows (as in a census extract
    of coarse attributes), and synthetic rows that copy real ones exactly."""
    demo = load_scenario("noisy_copy", n=400)
    real = demo.real.head(50).sample(400, replace=True, random_state=0).reset_index(drop=True)
    synthetic = pd.concat([demo.real.head(30), demo.synthetic.head(30)]).sample(400, replace=True, random_state=1)
    holdout = demo.holdout.head(40).sample(300, replace=True, random_state=2).reset_index(drop=True)
    return demo, (real, synthetic.reset_index(drop=True), holdout)


@pytest.mark.slow
def test_an_evaluation_on_repeated_rows_reports_the_same(coarse, monkeypatch):
    demo, (real, synthetic, holdout) = coarse
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)
    metrics = ["cvp", "dvp", "auth", "idscore", "nnaa", "mdcr", "dcr", "nndr", "air", "dcr_test", "mia_distance"]
    report = evaluate(real, synthetic, schema, metrics=metrics, holdout=holdout, seed=0, strict=True)
    assert D.pays(report.shared.distinct("E", "real"), report.shared.distinct("E", "synthetic"))
    monkeypatch.setattr(D, "MAX_PAIR_SHARE", -1.0)  # never on distinct rows
    alone = evaluate(real, synthetic, schema, metrics=metrics, holdout=holdout, seed=0, strict=True)
    assert without_timings(json.loads(report.to_json())) == without_timings(json.loads(alone.to_json()))
