"""One block for both directions (issue 12, item 1): a pass within one table computes each pair once, and
real→synthetic with synthetic→real come from one pass; both give exactly the plain engine's neighbours,
distances, ties and extremes, and an evaluation uses them only where its metrics read both directions."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from privcore import evaluate
from privcore.base.jsonvalues import without_timings
from privcore.data.schema import Schema
from privcore.demo import load_scenario
from privcore.engine import candidates as C
from privcore.engine import neighbors as N
from privcore.engine import neighbors_both_ways as B
from privcore.engine import operands as O
from privcore.engine.context import SharedComputation
from privcore.engine.neighbors_both_ways import RunningTopTwo, nearest_two_both_ways, nearest_two_within
from privcore.evaluation.evaluate import planned_passes
from privcore.metrics import registry


def plain(query, reference, **kwargs):
    """The plain engine's matrix path on the CPU, row by row (the reference result)."""
    return N.nearest_two(query, reference, method="matrix", device="cpu", **kwargs)


def plain_within(table, **kwargs):
    """The plain engine's pass within one table, with the sweep switched off."""
    original = B.MIN_ROWS
    B.MIN_ROWS = 10**12
    try:
        return plain(table, table, exclude_self=True, **kwargs)[0]
    finally:
        B.MIN_ROWS = original


def tables(seed, n=500, m=430, d=12):
    """Grid values and one-hot columns: exact duplicates, distance-0 pairs across tables, many equal
    distances, and two rows closer to one query row than float32 can tell apart."""
    rng = np.random.default_rng(seed)
    numbers = rng.integers(0, 20, size=(n + m, 3)) / 19.0
    codes = rng.integers(0, 3, size=(n + m, d - 3))
    table = np.hstack([numbers, (codes == 1).astype(float)])
    query, reference = table[:n].copy(), table[n:].copy()
    query[:30] = reference[:30]
    reference[100:120] = reference[120:140]
    query[300:310] = query[310:320]  # duplicates within the query table
    reference[200] = query[250] + np.r_[1.0, np.zeros(d - 1)] * 0.5
    reference[201] = query[250] + np.r_[1.0 - 2e-9, np.zeros(d - 1)] * 0.5
    return query, reference


def assert_same(got, expected):
    np.testing.assert_array_equal(got.distance, expected.distance)
    np.testing.assert_array_equal(got.index, expected.index)


@pytest.mark.parametrize("seed, chunk_elements, workers", [(0, 20_000, 1), (1, 50_000, 2), (2, 7_000, 2),
                                                           (3, 10**7, 1)])
def test_within_one_table_equals_the_plain_engine(seed, chunk_elements, workers):
    query, reference = tables(seed)
    for table in (query, reference, np.vstack([query, query])):
        got = nearest_two_within(table, chunk_elements=chunk_elements, workers=workers)
        assert_same(got, plain_within(table, chunk_elements=chunk_elements, workers=workers))
    # The brute force agrees too (self excluded by position, lowest index first among equal distances).
    d = cdist(query, query)
    np.fill_diagonal(d, np.inf)
    order = np.argsort(d, axis=1, kind="stable")[:, :2]
    got = nearest_two_within(query, chunk_elements=chunk_elements, workers=workers)
    np.testing.assert_allclose(got.distance, np.take_along_axis(d, order, axis=1), rtol=0, atol=1e-12)
    distance = np.take_along_axis(d, order, axis=1)
    clear = distance[:, 1] - distance[:, 0] > 1e-12  # cdist may round a near tie the other way
    np.testing.assert_array_equal(got.index[clear, 0], order[clear, 0])


@pytest.mark.parametrize("seed, chunk_elements, workers", [(0, 20_000, 1), (1, 50_000, 2), (4, 9_000, 2)])
def test_both_ways_equals_two_plain_passes(seed, chunk_elements, workers):
    query, reference = tables(seed)
    forward, backward, extremes = nearest_two_both_ways(query, reference, with_extremes=True,
                                                        chunk_elements=chunk_elements, workers=workers)
    expected_forward, expected_extremes = plain(query, reference, with_extremes=True,
                                                chunk_elements=chunk_elements, workers=workers)
    expected_backward, _ = plain(reference, query, chunk_elements=chunk_elements, workers=workers)
    assert_same(forward, expected_forward)
    assert_same(backward, expected_backward)
    assert extremes == expected_extremes
    assert forward.i1[250] == 201  # the near tie float32 cannot see is resolved exactly
    assert backward.i1[201] == 250


def test_the_float32_path_and_its_float64_fallback_are_both_exercised(monkeypatch):
    query, reference = tables(5)
    operands = O._cpu_operands(query, reference, *O._norms_and_error_scale(query, reference)[:2], 1e-15)
    assert operands.fallback is not None  # float32 proposes the candidates here
    expected = plain_within(query, chunk_elements=20_000)
    expected_backward = plain(reference, query, chunk_elements=20_000)[0]
    fallbacks = []
    original = B._sweep_chunk

    def counting(sweep, start, operands=None):
        fallbacks.append(operands is not None)
        return original(sweep, start, operands)

    monkeypatch.setattr(B, "_sweep_chunk", counting)
    monkeypatch.setattr(B, "candidate_budget", lambda *args: 0.0)  # every chunk goes to float64
    assert_same(nearest_two_within(query, chunk_elements=20_000), expected)
    assert_same(nearest_two_both_ways(query, reference, chunk_elements=20_000)[1], expected_backward)
    assert any(fallbacks)


def test_columns_keep_every_pair_that_ends_among_their_final_two(monkeypatch):
    """A first bound far too tight would drop candidates: the results then differ (the test can fail)."""
    query, reference = tables(6)
    expected_backward = plain(reference, query, chunk_elements=20_000)[0]
    monkeypatch.setattr(B, "_first_bounds", lambda query, reference, *args: np.zeros(len(reference)))
    _, backward, _ = nearest_two_both_ways(query, reference, chunk_elements=20_000)
    assert not np.array_equal(backward.index, expected_backward.index)


@pytest.mark.parametrize("n, m", [(1, 1), (2, 5), (3, 3), (8, 9), (9, 200), (130, 7)])
def test_small_and_uneven_tables(n, m):
    rng = np.random.default_rng(n * 100 + m)
    query, reference = rng.integers(0, 2, (n, 10)).astype(float), rng.integers(0, 2, (m, 10)).astype(float)
    forward, backward, extremes = nearest_two_both_ways(query, reference, with_extremes=True, chunk_elements=64)
    expected_forward, expected_extremes = plain(query, reference, with_extremes=True, chunk_elements=64)
    assert_same(forward, expected_forward)
    assert_same(backward, plain(reference, query, chunk_elements=64)[0])
    assert extremes == expected_extremes
    assert_same(nearest_two_within(reference, chunk_elements=64), plain_within(reference, chunk_elements=64))


def test_running_top_two_merges_in_any_order_to_the_same_two():
    rng = np.random.default_rng(0)
    owners = rng.integers(0, 30, 600)
    neighbours = rng.permutation(600)  # each pair once
    exact = rng.integers(0, 5, 600).astype(float)  # many equal distances: the lowest index must win
    results = []
    for seed in range(3):
        order = np.random.default_rng(seed).permutation(600)
        top = RunningTopTwo(31)
        for part in np.array_split(order, 7):
            top.merge(owners[part], neighbours[part], exact[part])
        results.append((top.distance.copy(), top.index.copy()))
    expected_d, expected_i = C.select_two(owners, neighbours, exact, 31)
    for distance, index in results:
        np.testing.assert_array_equal(distance, expected_d)
        np.testing.assert_array_equal(index, expected_i)
    assert results[0][1][30].tolist() == [-1, -1]  # an owner without candidates keeps none


def test_nearest_two_takes_the_sweep_within_one_table_on_the_cpu_only(monkeypatch):
    query, _ = tables(7)
    assert not B.applicable(len(query), len(query), query.shape[1])  # too small to pay
    monkeypatch.setattr(B, "MIN_WORK", 0)
    calls = []
    monkeypatch.setattr(N, "nearest_two_within", lambda *a, **k: calls.append(1) or plain_within(a[0]))
    N.nearest_two(query, query, exclude_self=True)
    assert calls == [1]
    N.nearest_two(query, query, exclude_self=True, with_extremes=True)  # extremes: the plain engine
    N.nearest_two(query[:, :3], query[:, :3], exclude_self=True)  # three columns: the k-d tree
    assert calls == [1]


def test_an_evaluation_computes_both_directions_once_and_reports_the_same(demo, demo_schema, monkeypatch):
    monkeypatch.setattr(B, "MIN_WORK", 0)  # the demo is too small for the sweeps to pay
    schema = demo_schema
    metrics = ["cvp", "auth", "nnaa", "dcr_test", "mia_distance"]
    calls = []
    original = B.nearest_two_both_ways

    def counting(*args, **kwargs):
        calls.append(kwargs.get("label"))
        return original(*args, **kwargs)

    import privcore.engine.context as context

    monkeypatch.setattr(context, "nearest_two_both_ways", counting)
    report = evaluate(demo.real, demo.synthetic, schema, metrics=metrics, holdout=demo.holdout, seed=0, strict=True)
    # real⇄synthetic (NNAA reads synthetic→real), real⇄holdout (NNAA's baseline), synthetic⇄holdout (dcr_test).
    assert sorted(calls) == sorted(["real⇄synthetic in E", "real⇄holdout in E", "synthetic⇄holdout in E"])
    assert len(report.shared.passes) == len(set(report.shared.passes))
    monkeypatch.setattr(B, "MIN_ROWS", 10**12)  # every pass on its own, by the plain engine
    alone = evaluate(demo.real, demo.synthetic, schema, metrics=metrics, holdout=demo.holdout, seed=0, strict=True)
    assert len(calls) == 3
    assert without_timings(json.loads(report.to_json())) == without_timings(json.loads(alone.to_json()))


def test_a_pass_whose_reverse_is_not_planned_runs_alone(demo, demo_schema, monkeypatch):
    monkeypatch.setattr(B, "MIN_WORK", 0)
    schema = demo_schema
    import privcore.engine.context as context

    monkeypatch.setattr(context, "nearest_two_both_ways", lambda *a, **k: pytest.fail("reverse not needed"))
    report = evaluate(demo.real, demo.synthetic, schema, metrics=["cvp", "auth"], seed=0, strict=True)
    assert ("E", "synthetic", "real") not in report.shared.passes


@pytest.mark.slow
def test_every_pass_a_metric_computes_is_declared(demo):
    """``MetricInfo.passes`` plans the evaluation; a metric reading an undeclared pass would lose the fusion."""
    schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive)
    small = load_scenario("noisy_copy", n=120)
    for metric_id in registry.metric_ids():
        report = evaluate(small.real, small.synthetic, schema, metrics=[metric_id], holdout=small.holdout, seed=0,
                          strict=True)
        # A size-matched subset ("pool@…", "synthetic@…", "holdout@…") stands in for the synthetic table. The whole
        # tables' candidates and farthest rows its passes are read from (engine.subset_passes) are no pass to fuse.
        passes = {(space, *("synthetic" if "@" in role else role for role in roles))
                  for space, *roles in report.shared.passes if not roles[1].endswith(("nearest)", "(farthest)"))}
        undeclared = passes - planned_passes([metric_id], has_holdout=True)
        assert not undeclared, f"{metric_id} computes undeclared passes {sorted(undeclared)}"
    assert ("E", "holdout", "real") in planned_passes(["nnaa"], has_holdout=True)  # its baseline
    assert ("E", "holdout", "real") not in planned_passes(["nnaa"], has_holdout=False)


def test_a_pickled_evaluation_from_before_the_plan_still_loads(demo):
    import pickle

    schema = Schema(types=dict(demo.types))
    report = evaluate(demo.real, demo.synthetic, schema, metrics=["cvp"], seed=0)
    state = report.shared.__getstate__()
    del state["planned"]
    restored = SharedComputation.__new__(SharedComputation)
    restored.__setstate__(pickle.loads(pickle.dumps(state)))
    assert restored.planned == set()


def test_progress_counts_work_done_and_ends_at_one():
    """Within one table the chunks shrink (each row's pairs with later rows only): progress counts pairs, not
    chunks, so it moves evenly, never goes back and ends at exactly 1."""
    query, reference = tables(8)
    for run in (lambda p: nearest_two_within(query, chunk_elements=20_000, workers=2, progress=p),
                lambda p: nearest_two_both_ways(query, reference, chunk_elements=20_000, workers=2, progress=p)):
        seen = []
        run(lambda fraction, message: seen.append(fraction))
        assert len(seen) > 5 and seen[-1] == pytest.approx(1.0)
        assert all(b >= a for a, b in zip(seen, seen[1:]))
