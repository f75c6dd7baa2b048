"""Tests of the Anonymeter-style attacks: singling out, linkability, inference.

Published values (issue 5, from Anonymeter's own tests): linkability on the 4-row example and inference
on the 2-row tables. Plus the numerical-tolerance Choice of metrics.md §3, the neighbour search, the
missing-value policy, seeding, and property tests.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privcore.base.errors import ColumnMismatchError, SchemaError
from privcore.base.stats import success_rate
from privcore.metrics.attacks import (
    AttackOutcome,
    gower_knn,
    inference,
    inference_success,
    linkability,
    singling_out,
    singling_out_multivariate,
    singling_out_univariate,
)
from privcore.metrics.attacks.singling_out import (
    QueryTable,
    multivariate_queries,
    singling_out_probability_integral,
)
from privcore.metrics.details import AttackRates, Rate

# --------------------------------------------------------------------------- linkability (published)

LINK_REAL = pd.DataFrame({"col0": [0, 0, 4, 0], "col1": [0, 1, 9, 4]})
LINK_SYN = pd.DataFrame({"col0": [0, 1, 4, 9], "col1": [0, 1, 4, 9]})
LINK_TYPES = {"col0": "numerical", "col1": "numerical"}


def _link(k, confidence, **kw):
    return linkability(LINK_REAL, LINK_SYN, column_types=LINK_TYPES, aux_cols=(["col0"], ["col1"]),
                       n_neighbors=k, n_attacks=4, confidence=confidence, **kw)


def test_linkability_published_k1_confidence0():
    out = _link(1, 0)
    assert out.main.value == 0.25
    assert out.risk == 0.25 and out.interval == (0.25, 0.25)
    assert out.details["main"]["links"] == {0: [0]}  # real row 0 is linked through synthetic row 0


def test_linkability_published_k1_confidence95():
    out = _link(1, 0.95)
    assert out.risk == pytest.approx(0.3725, abs=1e-4)
    np.testing.assert_allclose(out.interval, (0.0456, 0.6994), atol=1e-4)


def test_linkability_published_k2():
    assert _link(2, 0).main.value == 1.0
    out = _link(2, 0.95)
    assert out.risk == pytest.approx(0.7551, abs=1e-4)
    np.testing.assert_allclose(out.interval, (0.5102, 1.0), atol=1e-4)


@pytest.mark.parametrize("k", [3, 4])
def test_linkability_large_k_links_everything(k):
    assert _link(k, 0).main.value == 1.0


def test_linkability_k_larger_than_synthetic_is_capped():
    out = _link(9, 0)
    assert out.params["n_neighbors"] == 4
    assert any("exceeds" in w for w in out.warnings)


def test_linkability_baseline_rate_without_ties():
    # no ties: sets of exactly k among 4 synthetic rows meet with probability 1/4 (k=1) and 5/6 (k=2)
    rng = np.random.default_rng(42)
    real = pd.DataFrame({"c0": rng.uniform(0, 3, size=400), "c1": rng.uniform(0, 3, size=400)})
    syn = pd.DataFrame({"c0": [0.0, 1.0, 2.0, 3.0], "c1": [3.0, 0.0, 2.0, 1.0]})
    types = {"c0": "numerical", "c1": "numerical"}
    for k, expected in [(1, 0.25), (2, 5 / 6)]:
        out = linkability(real, syn, column_types=types, aux_cols=("c0", "c1"), n_neighbors=k, n_attacks=400)
        assert set(out.details["main"]["n_neighbors_0"]) == set(out.details["main"]["n_neighbors_1"]) == {k}
        assert out.baseline.value == pytest.approx(expected, abs=0.06)
        assert out.details["baseline"]["mean_set_sizes"] == [k, k]


def test_linkability_averages_ties_and_baseline_uses_sets_of_k():
    rng = np.random.default_rng(42)
    real = pd.DataFrame(rng.choice(["a", "b"], size=(400, 2)), columns=["c0", "c1"])
    syn = pd.DataFrame([["a", "a"], ["b", "b"], ["a", "a"], ["a", "a"]], columns=["c0", "c1"])
    types = {"c0": "categorical", "c1": "categorical"}
    out = linkability(real, syn, column_types=types, aux_cols=("c0", "c1"), n_attacks=400, confidence=0)
    main = out.details["main"]
    t = real.loc[main["targets"]]
    # "a" ties with synthetic rows 0, 2 and 3, "b" matches row 1 alone: the sets hold every tie
    assert main["n_neighbors_0"] == np.where(t["c0"] == "a", 3, 1).tolist()
    assert main["n_neighbors_1"] == np.where(t["c1"] == "a", 3, 1).tolist()
    # (a, a): each half picks one of rows 0/2/3 at random, the same one with probability 3 / (3 · 3);
    # (b, b): both pick row 1; mixed halves never meet
    expected = np.where(t["c0"] != t["c1"], 0.0, np.where(t["c0"] == "a", 1 / 3, 1.0))
    np.testing.assert_allclose(main["linked"], expected)
    assert out.n_main == pytest.approx(expected.sum())
    assert all(sorted(main["links"][lab]) == ([0, 2, 3] if t.loc[lab, "c0"] == "a" else [1])
               for lab in main["links"])
    # baseline: two random single rows among 4 coincide with probability 1/4, whatever ties the main attack met
    assert out.baseline.value == pytest.approx(0.25)
    assert out.details["baseline"]["mean_set_sizes"] == [1.0, 1.0]
    out2 = linkability(real, syn, column_types=types, aux_cols=("c0", "c1"), n_neighbors=2, n_attacks=400,
                       confidence=0)
    main2 = out2.details["main"]
    t2 = real.loc[main2["targets"]]
    # k = 2: "a" picks 2 of rows 0, 2, 3; "b" takes row 1 and one of rows 0, 2, 3. (a, a): two 2-sets of 3 rows
    # always meet; (a, b) or (b, a): the single pick among 0/2/3 misses the 2-set with probability 1/3;
    # (b, b): both hold row 1.
    expected2 = np.where(t2["c0"] == t2["c1"], 1.0, 2 / 3)
    np.testing.assert_allclose(main2["linked"], expected2)
    assert out2.baseline.value == pytest.approx(5 / 6)  # 1 − C(2, 2) / C(4, 2)


def test_linkability_copy_with_coarse_halves_links_each_target_by_its_share_of_ties():
    """Halves shared by many people: an exact copy links a target with probability |S0 ∩ S1| / (|S0| · |S1|)."""
    rng = np.random.default_rng(11)
    real = pd.DataFrame({c: rng.choice(list("abc"), size=300) for c in ("p", "q", "r", "s")})
    real["x"] = rng.integers(0, 4, size=300)
    types = {"p": "categorical", "q": "categorical", "r": "categorical", "s": "categorical", "x": "numerical"}
    out = linkability(real, real.copy(), column_types=types, aux_cols=(["p", "q"], ["r", "s", "x"]),
                      n_attacks=300, confidence=0)
    main = out.details["main"]
    sizes0, sizes1 = np.array(main["n_neighbors_0"]), np.array(main["n_neighbors_1"])
    assert np.mean(sizes0 > 1) > 0.9  # almost every first half is shared
    np.testing.assert_allclose(main["linked"], np.array(main["n_common"]) / (sizes0 * sizes1))
    assert all(target in syn for target, syn in main["links"].items())  # each can link through its own copy
    assert 0 < out.main.value < 0.5


def _brute_links(halves, k, tol_scale=1e-12):
    dists = []
    for q_num, q_cat, c_num, c_cat in halves:
        both = np.vstack([q_num, c_num])
        r = both.max(axis=0) - both.min(axis=0) if q_num.shape[1] else np.ones(0)
        r[~(r > 0)] = 1.0
        d = (np.abs(q_num[:, None, :] - c_num[None, :, :]) / r).sum(-1)
        d = d + (q_cat[:, None, :] != c_cat[None, :, :]).sum(-1)
        p = q_num.shape[1] + q_cat.shape[1]
        member = d <= np.sort(d, axis=1)[:, k - 1 : k] + tol_scale * p
        dists.append((d, member))
    return dists


@pytest.mark.parametrize("k", [1, 2, 5])
def test_pooled_links_matches_brute_force(k):
    from privcore.metrics.attacks.linkability import pooled_links

    rng = np.random.default_rng(k)
    m, n = 53, 211

    def half(n_num, n_cat, rows):
        return rng.integers(0, 3, size=(rows, n_num)).astype(float), rng.integers(0, 2, size=(rows, n_cat))

    halves = [(*half(1, 1, m), *half(1, 1, n)), (*half(0, 2, m), *half(0, 2, n))]
    res = pooled_links(halves, k, np.random.default_rng(0), max_stored=4, chunk_elements=500)
    (d0, m0), (d1, m1) = _brute_links(halves, k)
    np.testing.assert_array_equal(res["sizes"], np.column_stack([m0.sum(1), m1.sum(1)]))
    np.testing.assert_array_equal(res["n_common"], (m0 & m1).sum(1))
    np.testing.assert_array_equal(res["linked"], (m0 & m1).any(1))
    np.testing.assert_allclose(res["kth"], np.column_stack([np.sort(d0, 1)[:, k - 1], np.sort(d1, 1)[:, k - 1]]))
    s = max(4, k)
    for i in range(m):
        for name, d, member in (("neighbors_0", d0, m0), ("neighbors_1", d1, m1), ("common", d0 + d1, m0 & m1)):
            row = res[name][i]
            kept = row[row >= 0]
            assert kept.size == min(s, member[i].sum())  # capped, never padded while members remain
            assert member[i, kept].all() and len(set(kept.tolist())) == kept.size
            assert np.all(np.diff(d[i, kept]) >= -1e-9)  # nearest first
            if kept.size < member[i].sum():  # the ones left out are no closer than the last one kept
                assert d[i, member[i]].max() >= d[i, kept[-1]] - 1e-9
        kept0 = res["neighbors_0"][i] >= 0
        np.testing.assert_allclose(res["distances_0"][i][kept0], d0[i, res["neighbors_0"][i][kept0]])
    # equal seeds give equal orders; the chunk size changes nothing
    again = pooled_links(halves, k, np.random.default_rng(0), max_stored=4, chunk_elements=10**6)
    for key in res:
        np.testing.assert_array_equal(res[key], again[key])


@pytest.mark.parametrize("k", [1, 2, 3])
def test_link_probability_is_the_average_over_every_way_of_breaking_ties(k):
    """Exact enumeration: each half's k nearest are the strictly closer records plus every equally likely choice
    among those tied with the k-th; the success is the share of (first set, second set) pairs that meet."""
    from itertools import combinations

    from privcore.metrics.attacks.linkability import pooled_links

    rng = np.random.default_rng(10 + k)
    m, n = 25, 9

    def half(n_num, n_cat, rows):
        return rng.integers(0, 2, size=(rows, n_num)).astype(float), rng.integers(0, 2, size=(rows, n_cat))

    halves = [(*half(1, 1, m), *half(1, 1, n)), (*half(0, 2, m), *half(0, 2, n))]
    res = pooled_links(halves, k, np.random.default_rng(0))
    (d0, _), (d1, _) = _brute_links(halves, k)
    for i in range(m):
        choices = []
        for d in (d0[i], d1[i]):
            t = np.sort(d)[k - 1]
            closer = set(np.flatnonzero(d < t - 1e-9).tolist())
            tied = np.flatnonzero(np.abs(d - t) <= 1e-9).tolist()
            choices.append([closer | set(c) for c in combinations(tied, k - len(closer))])
        meet = [bool(a & b) for a in choices[0] for b in choices[1]]
        assert res["success"][i] == pytest.approx(np.mean(meet), abs=1e-12)
        assert res["linked"][i] == (res["success"][i] > 0)


def test_linkability_large_tie_sets_are_counted_but_stored_capped():
    real = pd.DataFrame({"a": ["x"] * 5 + ["y"], "b": ["u"] * 5 + ["v"]})
    syn = pd.DataFrame({"a": ["x"] * 200 + ["y"], "b": ["u"] * 200 + ["v"]})
    types = {"a": "categorical", "b": "categorical"}
    out = linkability(real, syn, column_types=types, aux_cols=("a", "b"), n_attacks=6, confidence=0)
    main = out.details["main"]
    # the five "x" targets pick the same one of 200 tied rows on both halves with probability 1/200
    assert out.n_main == pytest.approx(5 / 200 + 1)
    for i, target in enumerate(main["targets"]):
        expected = 200 if target < 5 else 1
        assert main["n_neighbors_0"][i] == main["n_neighbors_1"][i] == main["n_common"][i] == expected
        assert len(main["neighbors_0"][i]) == len(main["links"][target]) == min(expected, 10)
        assert len(main["distances_0"][i]) == len(main["neighbors_0"][i])
    # the 200 tied rows are stored in a seeded random order, not by position
    first = [main["neighbors_0"][i] for i, t in enumerate(main["targets"]) if t < 5][0]
    assert first != sorted(first)


def test_linkability_copy_links_unique_records_and_control_does_not():
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300), "c": rng.normal(size=300)})
    control = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300), "c": rng.normal(size=300)})
    types = dict.fromkeys("abc", "numerical")
    out = linkability(real, real, control, column_types=types, aux_cols=(["a"], ["b", "c"]), n_attacks=200)
    assert out.main.value > 0.95 and out.n_main == 200
    assert out.n_control <= 5
    assert out.risk > 0.9 and out.warnings == []
    # every linked target is linked through its own copy
    links = out.details["main"]["links"]
    assert all(syn == [target] for target, syn in links.items())


# --------------------------------------------------------------------------- inference (published + choice)

INF_TYPES = {"c0": "categorical", "c1": "categorical"}


@pytest.mark.parametrize(
    "syn, expected",
    [
        ([["a", "b"], ["c", "d"]], 1.0),
        ([["a", "b"], ["c", "e"]], 0.5),
        ([["a", "h"], ["c", "g"]], 0.0),
    ],
)
def test_inference_published_rates(syn, expected):
    real = pd.DataFrame([["a", "b"], ["c", "d"]], columns=["c0", "c1"])
    syn = pd.DataFrame(syn, columns=["c0", "c1"])
    out = inference(real, syn, real, column_types=INF_TYPES, secret="c1", aux_cols=["c0"], n_attacks=2,
                    confidence=0)
    assert (out.main.value, out.main.error) == (expected, 0.0)
    assert (out.control.value, out.control.error) == (expected, 0.0)


def test_inference_numerical_secret_copy_is_rate_one():
    rng = np.random.default_rng(1)
    real = pd.DataFrame({"x": rng.normal(size=50), "y": rng.normal(size=50), "s": rng.normal(size=50) * 100})
    out = inference(real, real, column_types=dict.fromkeys("xys", "numerical"), secret="s", n_attacks=50,
                    confidence=0)
    assert out.main.value == 1.0
    assert out.details["main"]["guesses"] == out.details["main"]["secrets"]


@pytest.mark.parametrize(
    "guess, secret, expected",
    [
        (1.0, 1.0, True),
        (1.0, 1.04, True),
        (1.0, 1.06, False),
        (10.0, 9.6, True),  # |0.4| <= 0.05 * 9.6 = 0.48
        (10.0, 9.5, False),  # |0.5| >  0.05 * 9.5 = 0.475 (Anonymeter, dividing by the guess: 0.05 -> True)
        (-5.0, 10.0, False),  # Anonymeter: 15 / -5 = -3 <= 0.05 -> True; metrics.md's Choice fixes this
        (0.0, 0.0, True),
        (1e-9, 0.0, False),  # a secret of 0 needs an exact guess
        (np.nan, np.nan, True),
        (np.nan, 1.0, False),
    ],
)
def test_inference_numerical_tolerance_is_relative_to_secret(guess, secret, expected):
    assert inference_success(np.array([guess]), np.array([secret]), numerical=True)[0] == expected


def test_inference_categorical_missing_secret_matches_missing_guess():
    real = pd.DataFrame({"k": ["a", "b", "c"], "s": ["x", None, "z"]})
    syn = pd.DataFrame({"k": ["a", "b", "c"], "s": ["x", np.nan, "y"]})
    out = inference(real, syn, column_types={"k": "categorical", "s": "categorical"}, secret="s",
                    n_attacks=3, confidence=0)
    assert out.n_main == 2
    assert sorted(map(str, out.details["main"]["guesses"])) == ["None", "x", "y"]


def test_inference_argument_errors():
    real = pd.DataFrame({"k": [1, 2], "s": ["x", "y"]})
    with pytest.raises(SchemaError):
        inference(real, real, column_types={"k": "numerical", "s": "categorical"}, secret="t")
    with pytest.raises(SchemaError):
        inference(real, real, column_types={"k": "numerical", "s": "categorical"}, secret="s", aux_cols=["s"])
    with pytest.raises(SchemaError):
        inference(real, real, column_types={"s": "categorical"}, secret="s")


# --------------------------------------------------------------------------- singling out


def _population(rng, n):
    return pd.DataFrame({
        "city": rng.choice([f"c{i}" for i in range(5)], size=n),
        "sex": rng.choice(["f", "m"], size=n),
        "age": rng.integers(20, 60, size=n),
    })


SO_TYPES = {"city": "categorical", "sex": "binary", "age": "numerical"}


def test_univariate_singling_out_flags_copied_unique_values():
    """A per-column resampler that copies rare real values is caught by univariate singling out."""
    rng = np.random.default_rng(0)
    real, control = _population(rng, 400), _population(rng, 400)
    # every real person gets one unique value of "job"; the holdout people have their own unique jobs
    real["job"] = [f"job{i}" for i in range(400)]
    control["job"] = [f"other{i}" for i in range(400)]
    types = {**SO_TYPES, "job": "categorical"}
    # column-wise resampling of the real table: rare values come through as they are
    leaky = pd.DataFrame({c: rng.permutation(real[c].to_numpy()) for c in real.columns})
    out = singling_out_univariate(real, leaky, control, column_types=types, n_attacks=100)
    assert out.attack == "singling_out_univariate"
    assert out.result.n_main_total == 100
    assert out.n_main >= 95  # "job == 'jobN'" singles out real person N
    assert out.n_control <= 5
    assert out.risk > 0.8 and out.interval[0] > 0.7
    hits = [q for q in out.details["queries"] if q["real_success"] and q["query"].startswith("job ==")]
    assert hits and all(real.loc[q["real_row"], "job"] == q["query"].split("'")[1] for q in hits)
    # the same generator without the unique column leaks nothing the holdout does not
    fresh = _population(rng, 400)
    fresh["job"] = [f"new{i}" for i in range(400)]
    clean = singling_out_univariate(real, fresh, control, column_types=types, n_attacks=100)
    assert clean.risk < 0.2


def test_singling_out_on_a_copy_always_succeeds():
    rng = np.random.default_rng(3)
    real = _population(rng, 300).assign(income=rng.lognormal(10, 1, size=300).round())
    types = {**SO_TYPES, "income": "numerical"}
    for mode in ("univariate", "multivariate"):
        out = singling_out(real, real, column_types=types, mode=mode, n_attacks=50, confidence=0)
        assert out.result.n_main_total == 50
        assert out.main.value == 1.0
        assert out.result.n_baseline_total == out.result.n_main_total
        assert len(out.details["baseline_queries"]) == out.result.n_main_total


_PY_OPS = {"==": "__eq__", "!=": "__ne__", ">": "__gt__", "<": "__lt__", ">=": "__ge__", "<=": "__le__"}


def _select(df: pd.DataFrame, query: str) -> pd.DataFrame:
    """Rows of ``df`` matching a rendered predicate ("col op value & ..."), evaluated independently."""
    import ast

    mask = pd.Series(True, index=df.index)
    for term in query.split(" & "):
        col, op, value = term.split(" ", 2)
        mask &= getattr(df[col], _PY_OPS[op])(ast.literal_eval(value))
    return df[mask]


def test_multivariate_queries_single_out_in_synthetic():
    rng = np.random.default_rng(4)
    real, syn = _population(rng, 300), _population(rng, 300)
    out = singling_out_multivariate(real, syn, column_types=SO_TYPES, n_attacks=40, n_cols=2)
    syn_dedup = syn.drop_duplicates()
    assert out.details["n_queries_generated"] == len(out.details["queries"]) > 0
    for q in out.details["queries"]:
        assert len(_select(syn_dedup, q["query"])) == 1
        assert q["query"].count("&") == 1
        selected = _select(real.drop_duplicates(), q["query"])
        assert q["real_success"] == (len(selected) == 1)
        if q["real_success"]:
            assert selected.index[0] == q["real_row"]


def _every_pair_queries(syn, numerical, n_queries, n_cols, max_attempts, rng, batch_size=1000):
    """Anonymeter's multivariate search as written: every drawn (row, columns) pair builds its predicate."""
    medians = [float(np.median(v)) if numerical[j] else None for j, v in enumerate(syn.values)]
    found, seen, attempts = [], set(), 0
    while len(found) < n_queries and attempts < max_attempts:
        b = min(batch_size, max_attempts - attempts)
        rows = rng.integers(0, syn.n, size=b)
        cols = np.sort(np.argsort(rng.random((b, len(syn.values))), axis=1)[:, :n_cols], axis=1)
        for r, cs in zip(rows.tolist(), cols.tolist()):
            q = tuple((j, ">=" if float(syn.values[j][r]) > medians[j] else "<=", float(syn.values[j][r]))
                      if numerical[j] else (j, "==", int(syn.values[j][r])) for j in cs)
            if q not in seen and syn.count(q) == 1:
                seen.add(q)
                found.append(q)
                if len(found) >= n_queries:
                    break
        attempts += b
    return found, attempts


@settings(max_examples=40, deadline=None, derandomize=True)
@given(rows=st.integers(1, 40), kinds=st.lists(st.booleans(), min_size=1, max_size=6), levels=st.integers(1, 4),
       n_cols=st.integers(1, 4), n_queries=st.sampled_from([3, 30, 1000]), max_attempts=st.sampled_from([500, 5000]),
       batch_size=st.sampled_from([7, 1000]), seed=st.integers(0, 2**16))
def test_skipping_tried_pairs_keeps_the_search_of_every_pair(rows, kinds, levels, n_cols, n_queries, max_attempts,
                                                              batch_size, seed):
    rng = np.random.default_rng(seed)
    columns = [np.round(rng.normal(size=rows), 1) if numerical else rng.integers(0, levels, rows).astype(float)
               for numerical in kinds]
    table = QueryTable(columns)
    mine, reference = np.random.default_rng(seed + 1), np.random.default_rng(seed + 1)
    assert (multivariate_queries(table, kinds, n_queries, n_cols, max_attempts, mine, batch_size)
            == _every_pair_queries(table, kinds, n_queries, n_cols, max_attempts, reference, batch_size))
    assert mine.random() == reference.random()  # the same draws, so the attack's later draws are the same too


def test_singling_out_baseline_queries_evaluated_on_real():
    rng = np.random.default_rng(5)
    real, syn = _population(rng, 200), _population(rng, 200)
    out = singling_out_multivariate(real, syn, column_types=SO_TYPES, n_attacks=30, n_cols=2)
    real_d = real.drop_duplicates()
    n = 0
    for q in out.details["baseline_queries"]:
        success = len(_select(real_d, q["query"])) == 1
        assert success == q["real_success"]
        n += success
    assert n == out.n_baseline


def test_singling_out_without_any_predicate_is_zero_with_warning():
    real = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
    out = singling_out_univariate(real, real, real, column_types={"a": "categorical", "b": "categorical"})
    assert out.result is None
    assert out.risk == 0.0 and out.interval == (0.0, 0.0)
    assert any("no claim" in w for w in out.warnings)


def test_singling_out_n_cols_capped():
    rng = np.random.default_rng(6)
    out = singling_out_multivariate(_population(rng, 100), _population(rng, 100), column_types=SO_TYPES,
                                    n_cols=5, n_attacks=10)
    assert out.params["n_cols"] == 3 and any("n_cols" in w for w in out.warnings)


def test_singling_out_control_size_correction():
    rng = np.random.default_rng(7)
    real, syn, control = _population(rng, 1500), _population(rng, 1500), _population(rng, 500)
    for df in (real, syn, control):
        df["income"] = rng.lognormal(10, 1, size=len(df)).round()
    types = {**SO_TYPES, "income": "numerical"}
    out = singling_out_multivariate(real, syn, control, column_types=types, n_attacks=100)
    factor = out.details["control_correction"]
    assert factor is not None and 0 < factor < 1  # singling out is easier in the smaller holdout
    assert 0 <= out.n_control <= out.result.n_main_total
    assert not any("holdout" in w for w in out.warnings)


def test_singling_out_probability_integral():
    assert singling_out_probability_integral(10, 0, 1) == pytest.approx(1 / 11)
    with pytest.raises(ValueError):
        singling_out_probability_integral(10, 0.5, 0.2)


def test_query_table_counts_match_pandas():
    rng = np.random.default_rng(8)
    a = rng.integers(0, 10, size=500).astype(float)
    b = rng.integers(0, 3, size=500)
    table = QueryTable([a, b])
    for op in ("==", "!=", ">", "<", ">=", "<="):
        for v in (0.0, 4.0, 9.0, 11.0):
            q = ((0, op, v), (1, "!=", 1))
            expected = int(np.sum(eval(f"a {op} v") & (b != 1)))
            assert table.count(q) == expected == table.match(q).size
            assert table.count(q, limit=2) == min(expected, 2)


# --------------------------------------------------------------------------- neighbour search


def test_gower_knn_matches_brute_force():
    rng = np.random.default_rng(9)
    qn, cn = rng.normal(size=(37, 2)), rng.normal(size=(201, 2))
    qc, cc = rng.integers(0, 3, size=(37, 2)), rng.integers(0, 3, size=(201, 2))
    idx, dist = gower_knn(qn, qc, cn, cc, 5, np.random.default_rng(0), chunk_elements=1000)
    ranges = np.vstack([qn, cn]).max(axis=0) - np.vstack([qn, cn]).min(axis=0)
    full = (np.abs(qn[:, None, :] - cn[None, :, :]) / ranges).sum(-1) + (qc[:, None, :] != cc[None, :, :]).sum(-1)
    np.testing.assert_allclose(dist, np.sort(full, axis=1)[:, :5])
    np.testing.assert_allclose(np.take_along_axis(full, idx, axis=1), dist)


def test_gower_knn_breaks_ties_at_random_but_reproducibly():
    q = np.zeros((1, 0))
    qc = np.zeros((1, 1), dtype=np.int64)
    cc = np.zeros((10, 1), dtype=np.int64)  # ten candidates at distance 0
    picks = [gower_knn(q, qc, np.zeros((10, 0)), cc, 1, np.random.default_rng(s))[0][0, 0] for s in range(40)]
    assert len(set(picks)) > 5
    again = [gower_knn(q, qc, np.zeros((10, 0)), cc, 1, np.random.default_rng(s))[0][0, 0] for s in range(40)]
    assert picks == again


# --------------------------------------------------------------------------- inputs


def test_missing_numerical_rows_dropped_or_imputed():
    real = pd.DataFrame({"x": [1.0, np.nan, 3.0, 4.0], "s": ["a", "b", "c", "d"]})
    types = {"x": "numerical", "s": "categorical"}
    out = inference(real, real, column_types=types, secret="s", confidence=0)
    assert out.details["missing"] == {"real": 1, "synthetic": 1}
    assert out.result.n_main_total == 3 and any("missing" in w for w in out.warnings)
    assert 1 not in out.details["main"]["targets"]
    imp = inference(real, real, column_types=types, secret="s", missing="median", confidence=0)
    assert imp.result.n_main_total == 4


def test_input_errors():
    real = pd.DataFrame({"x": [1, 2], "y": ["a", "b"]})
    with pytest.raises(SchemaError):
        singling_out(real, real, column_types={"x": "numeric", "y": "categorical"})
    with pytest.raises(ColumnMismatchError):
        singling_out(real, real[["x"]], column_types={"x": "numerical", "y": "categorical"})
    with pytest.raises(SchemaError):
        singling_out(real.assign(x=["1", "one"]), real, column_types={"x": "numerical", "y": "categorical"})
    with pytest.raises(SchemaError):
        linkability(real, real, column_types={"x": "numerical", "y": "categorical"}, aux_cols=(["x"], []))
    with pytest.raises(SchemaError):
        singling_out(real, real, column_types={"x": "numerical"}, n_attacks=0)


def test_n_attacks_larger_than_table_is_capped_with_warning():
    real = pd.DataFrame({"x": np.arange(10.0), "s": list("ababababab")})
    out = inference(real, real, column_types={"x": "numerical", "s": "binary"}, secret="s", n_attacks=500)
    assert out.result.n_main_total == 10
    assert any("fewer than n_attacks" in w for w in out.warnings)


def test_outcome_summary_is_plain():
    out = _link(1, 0.95)
    s = out.summary()
    assert s["attack"] == "linkability" and s["n_main"] == 1 and s["n_main_total"] == 4
    assert s["main"]["value"] == success_rate(1, 4).value and s["control"] is None
    assert isinstance(out, AttackOutcome) and out.raw == out.main.value


# --------------------------------------------------------------------------- properties

ATTACKS = ("singling_out_univariate", "singling_out_multivariate", "linkability", "inference")


def _random_tables(seed: int, n: int, n_cat: int):
    rng = np.random.default_rng(seed)

    def table(m):
        df = pd.DataFrame({"u": rng.normal(size=m), "v": rng.uniform(0, 100, size=m).round(3)})
        for j in range(n_cat):
            df[f"c{j}"] = rng.choice(list("abc"), size=m)
        return df

    types = {"u": "numerical", "v": "numerical", **{f"c{j}": "categorical" for j in range(n_cat)}}
    return table(n), table(n), table(n), types


def _run(name, real, syn, control, types, seed):
    if name == "linkability":
        cols = list(types)
        return linkability(real, syn, control, column_types=types, aux_cols=(["u"] + cols[2:3], ["v"] + cols[3:]),
                           n_attacks=30, seed=seed)
    if name == "inference":
        return inference(real, syn, control, column_types=types, secret="v", n_attacks=30, seed=seed)
    mode = name.rsplit("_", 1)[1]
    return singling_out(real, syn, control, column_types=types, mode=mode, n_attacks=30, n_cols=2,
                        max_attempts=3000, seed=seed)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(ATTACKS),
    data_seed=st.integers(0, 10_000),
    seed=st.integers(0, 10_000),
    n=st.integers(8, 60),
    n_cat=st.integers(0, 2),
    copy=st.booleans(),
)
def test_attack_properties(name, data_seed, seed, n, n_cat, copy):
    real, fresh, control, types = _random_tables(data_seed, n, n_cat)
    syn = real.copy() if copy else fresh
    out = _run(name, real, syn, control, types, seed)
    rates = [out.main, out.baseline, out.control]
    for r in rates:
        assert 0.0 <= r.value <= 1.0 and r.error >= 0.0
    assert 0.0 <= out.risk <= 1.0
    assert out.interval[0] <= out.risk <= out.interval[1]
    # determinism for a fixed seed
    again = _run(name, real, syn, control, types, seed)
    assert again.result == out.result and again.details == out.details
    # synthetic = real: the attack does at least as well on the training records as on the holdout
    if copy and out.result is not None:
        assert out.main.value >= out.control.value


# --------------------------------------------------------------------------- registration

ATTACK_IDS = ["singling_out_univariate", "singling_out_multivariate", "linkability", "inference"]


def test_registered_metadata():
    from privcore.metrics import registry

    for mid in ATTACK_IDS:
        info = registry.get(mid)
        assert info.family == "Attack-based" and info.interval_kind == "wilson" and not info.baseline
        assert "Giomi" in info.reference and "PoPETs" in info.reference
        assert 2 <= len(info.explanation.steps) <= 4
        assert info.explanation.high and info.explanation.low and info.explanation.blind_spots
    assert "0.05·|secret|" in registry.get("inference").explanation.note
    note = registry.get("linkability").explanation.note
    assert "every way of breaking the tie" in note and "Anonymeter breaks such ties by sort order" in note
    assert registry.get("inference").needs == frozenset({"sensitive"})


@pytest.fixture(scope="module")
def demo_reports():
    from privcore import evaluate
    from privcore.data.schema import Schema
    from privcore.demo import load_scenario

    out = {}
    for name in ("exact_copy", "column_resampler", "gaussian_copula"):
        d = load_scenario(name, n=300)
        schema = Schema(types=dict(d.types), key=list(d.key), sensitive=d.sensitive)
        out[name] = evaluate(d.real, d.synthetic, schema, metrics=ATTACK_IDS, holdout=d.holdout, strict=True)
    d = load_scenario("exact_copy", n=300)
    schema = Schema(types=dict(d.types), key=list(d.key), sensitive=d.sensitive)
    out["no_holdout"] = evaluate(d.real, d.synthetic, schema, metrics=ATTACK_IDS, strict=True)
    return out


def test_registered_attacks_on_demo_scenarios(demo_reports):
    copy = demo_reports["exact_copy"]
    # at n = 300: multivariate 0.995, inference 0.969; linkability 0.737 (targets whose halves tie with other
    # records link with their share of the ties, as in Anonymeter); univariate 0.111, since only 70 one-column
    # predicates can be built and the rates are out of the 500 attacks asked for (Anonymeter's rule)
    for mid, floor in (("singling_out_multivariate", 0.9), ("inference", 0.9), ("linkability", 0.6),
                       ("singling_out_univariate", 0.05)):
        assert copy[mid].risk > floor and copy[mid].interval[0] > floor - 0.05, mid
    uni = copy["singling_out_univariate"].details
    assert uni.main.n_success == uni.n_queries_generated  # every predicate built singles out on the copy
    for mid in ATTACK_IDS:
        res = copy[mid]
        low, high = res.interval
        assert 0 <= low <= res.risk <= high <= 1
        assert isinstance(res.details, AttackRates)
        assert all(isinstance(res.details[k], Rate) for k in ("main", "baseline", "control", "residual"))
        assert res.details.main.n_total > 0 and res.raw == res.details.main.value
        assert len(res.per_record) == 300
    # the column resampler copies rare real values: they single out training people more often than holdout
    # people (27 against 9 of 500 at n = 300: risk 0.037 [0.013, 0.060]), a small risk out of 500 attacks; the
    # copula's do not (0.008)
    leaky = demo_reports["column_resampler"]["singling_out_univariate"]
    assert leaky.risk > 0.02 and leaky.interval[0] > 0
    assert leaky.details.main.n_success > 2 * leaky.details.control.n_success
    assert demo_reports["gaussian_copula"]["singling_out_univariate"].risk < 0.02
    flagged = np.flatnonzero(leaky.per_record == 1)
    # several successful predicates may single out the same person
    assert 0 < flagged.size <= leaky.details.main.n_success


def test_registered_attacks_without_holdout(demo_reports):
    for mid, res in demo_reports["no_holdout"].items():
        assert res.applicable
        assert res.details.control is None and res.details.residual is None
        assert res.risk == pytest.approx(res.raw)


def test_registered_not_applicable():
    from privcore import evaluate
    from privcore.data.schema import Schema

    real = pd.DataFrame({"a": np.arange(20.0), "b": list("xy") * 10})
    report = evaluate(real, real.copy(), Schema(types={"a": "numerical", "b": "binary"}, key=["a"]),
                      metrics=["linkability", "inference"], strict=True)
    assert not report["linkability"].applicable and "two key columns" in report["linkability"].reason
    assert not report["inference"].applicable and "sensitive" in report["inference"].reason


@pytest.mark.parametrize(
    "metric, params",
    [
        ("linkability", {"n_attacks": "many"}),
        ("linkability", {"n_neighbors": 1.5}),
        ("singling_out_multivariate", {"n_cols": "three"}),
        ("inference", {"tolerance": "five percent"}),
    ],
)
def test_registered_attacks_reject_bad_parameters_as_input_errors(metric, params):
    # A parameter of the wrong kind (e.g. --param linkability.n_attacks=many) is the user's input,
    # so it must be an InputError naming it, not a metric's "internal error".
    from privcore import evaluate
    from privcore.base.errors import InputError
    from privcore.data.schema import Schema

    real = pd.DataFrame({"a": np.arange(20.0), "b": list("xy") * 10, "c": list("pqrs") * 5})
    schema = Schema(types={"a": "numerical", "b": "binary", "c": "categorical"}, sensitive="c")
    with pytest.raises(InputError, match=next(iter(params))):
        evaluate(real, real.copy(), schema, metrics=[metric], params={metric: params})


@pytest.mark.parametrize("metric, aux_cols, fragment", [
    ("linkability", 5, "must be two lists of columns"),
    ("linkability", [["a"], ["a", "b"]], "must not share a column; a is in both"),
    ("linkability", [["a"], []], "needs at least one column"),
    ("inference", 5, "must be a list of column names"),
    ("inference", ["c"], "not among the analysed columns other than the sensitive one"),
    ("inference", ["zz"], "'zz'"),
])
def test_registered_attacks_aux_cols_of_the_wrong_shape_are_input_errors(metric, aux_cols, fragment):
    # The declared parameter is checked before any metric runs (privcore.data.params), with the message the
    # command line and the Metrics page show.
    from privcore import evaluate
    from privcore.base.errors import InputError
    from privcore.data.schema import Schema

    real = pd.DataFrame({"a": np.arange(20.0), "b": list("xy") * 10, "c": list("pqrs") * 5})
    schema = Schema(types={"a": "numerical", "b": "binary", "c": "categorical"}, sensitive="c")
    with pytest.raises(InputError, match=re.escape(fragment)):
        evaluate(real, real.copy(), schema, metrics=[metric], params={metric: {"aux_cols": aux_cols}})
