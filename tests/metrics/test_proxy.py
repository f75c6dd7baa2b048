"""Tests of the holdout proxy tests (privcore.metrics.proxy; metrics.md §3): DCR, NNDR and IMS tests.

Hand-worked examples (E coordinates are x / 10 for a numerical column whose real values span 0..10;
percentiles with numpy's linear interpolation: position (n − 1)·q/100 between sorted values), an
agreement test against a brute-force implementation with full distance matrices and an encoder written
straight from metrics.md §0, hypothesis property tests and the shared-pass check.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore import evaluate
from privcore.data.schema import Schema
from privcore.engine.neighbors import Neighbours
from privcore.metrics.proxy import nndr_values, percentile_ratio

IDS = ["dcr_test", "nndr_test", "ims_test"]


def run(real, synthetic, holdout, metrics=IDS, types=None, params=None, seed=0):
    types = types or {c: "numerical" for c in real.columns}
    return evaluate(real, synthetic, Schema(dict(types)), metrics=metrics, holdout=holdout, seed=seed,
                    params=params, strict=True)


def col(values):
    return pd.DataFrame({"x": [float(v) for v in values]})


# Y = {0, 2, 4, 10} (E: x/10), Z = {1, 3, 4.5, 7, 9.5}, H = {1.5, 6, 8, 11}
REAL, SYN, HOLD = col([0, 2, 4, 10]), col([1, 3, 4.5, 7, 9.5]), col([1.5, 6, 8, 11])


# ------------------------------------------------------------------------------------------------
# Hand-worked examples
# ------------------------------------------------------------------------------------------------


def test_dcr_test_by_hand():
    # DCR(Z→Y): 1→.1 (0 or 2), 3→.1, 4.5→.05, 7→.3 (4 or 10), 9.5→.05; sorted [.05 .05 .1 .1 .3];
    #   p5 at position 4·.05 = .2 → .05 + .2·0 = .05.
    # DCR(H→Y): 1.5→.05, 6→.2, 8→.2, 11→.1; sorted [.05 .1 .2 .2]; p5 at 3·.05 = .15 → .05 + .15·.05 = .0575.
    # ratio = .05/.0575 = 20/23; risk = 3/23.
    res = run(REAL, SYN, HOLD, "dcr_test")["dcr_test"]
    assert res.raw == pytest.approx(20 / 23, abs=1e-12)
    assert res.risk == pytest.approx(3 / 23, abs=1e-12)
    assert res.details["p_synthetic"] == pytest.approx(0.05, abs=1e-12)
    assert res.details["p_holdout"] == pytest.approx(0.0575, abs=1e-12)
    assert res.details["passes"] is False
    # per synthetic row: DCR < .0575 → 4.5 and 9.5.
    assert res.per_record.tolist() == [0, 0, 1, 0, 1]
    # Closer to Y than to H: z=1 (.1 vs .05 to 1.5) no; z=3 (.1 vs .15) yes; 4.5 (.05 vs .15) yes;
    # 7 (.3 vs .1) no; 9.5 (.05 vs .15) yes → 3/5; a fresh sample would give |Y|/(|Y|+|H|) = .5.
    assert res.details["closer_to_real_share"] == pytest.approx(0.6)
    assert res.details["closer_to_real_expected"] == pytest.approx(0.5)


def test_dcr_test_explanation_carries_the_caveat():
    from privcore.metrics import registry

    for mid in IDS:
        text = registry.get(mid).explanation.blind_spots
        assert "does not make the data private" in text and "DCR-Delusion" in text and "Holland" in text
        assert "does not make the data private" in registry.get(mid).explanation.low
        assert registry.get(mid).baseline is False
        assert registry.get(mid).needs == frozenset({"holdout"})


def test_nndr_test_by_hand():
    # Z: 1 → d1 = d2 = 1 (0 and 2): r = 1; 3 → 1, 1: r = 1; 4.5 → .5, 2.5: r = .2; 7 → 3, 3: r = 1;
    #    9.5 → .5, 5.5: r = 1/11. sorted [1/11, .2, 1, 1, 1]; p5 at .2 → 1/11 + .2·(.2 − 1/11) = 6.2/55.
    # H: 1.5 → .5, 1.5: 1/3; 6 → 2, 4: .5; 8 → 2, 4: .5; 11 → 1, 7: 1/7. sorted [1/7, 1/3, .5, .5];
    #    p5 at .15 → 1/7 + .15·(1/3 − 1/7) = 3.6/21.
    # ratio = (6.2/55)/(3.6/21) = 130.2/198; risk = 67.8/198.
    res = run(REAL, SYN, HOLD, "nndr_test")["nndr_test"]
    assert res.details["p_synthetic"] == pytest.approx(6.2 / 55, abs=1e-12)
    assert res.details["p_holdout"] == pytest.approx(3.6 / 21, abs=1e-12)
    assert res.raw == pytest.approx(130.2 / 198, abs=1e-12)
    assert res.risk == pytest.approx(67.8 / 198, abs=1e-12)
    np.testing.assert_allclose(res.details["synthetic_values"], [1, 1, 0.2, 1, 1 / 11], atol=1e-12)
    # per synthetic row: r < 3.6/21 ≈ .171 → only 9.5 (1/11).
    assert res.per_record.tolist() == [0, 0, 0, 0, 1]


def test_nndr_zero_when_exact_copy_even_with_duplicate_neighbours():
    # Y = {0, 0, 5}: z = 0 has d1 = d2 = 0 → r = 0 (not 0/0); z = 5 → d1 = 0, r = 0; z = 1 → 1/1... in E
    # (x/5): d1 = .2 (to 0), d2 = .2 (the other 0) → r = 1.
    res = run(col([0, 0, 5]), col([0, 5, 1]), col([2, 3, 4]), "nndr_test")["nndr_test"]
    np.testing.assert_allclose(res.details["synthetic_values"], [0.0, 0.0, 1.0])
    nb = Neighbours(np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 2.0]]), np.zeros((3, 2), dtype=int))
    assert nndr_values(nb).tolist() == [0.0, 0.0, 0.5]


def test_percentile_ratio_edge_cases():
    # both percentiles 0: equally close, ratio 1 (test passes); only the holdout's 0: ratio inf.
    assert percentile_ratio(np.zeros(3), np.zeros(3), 5) == (0.0, 0.0, 1.0)
    assert percentile_ratio(np.ones(3), np.zeros(3), 5) == (1.0, 0.0, float("inf"))
    # median of [0, 1, 2, 3] at position 1.5 → 1.5; of [1, 2] → 1.5: ratio 1.
    assert percentile_ratio(np.arange(4.0), np.array([1.0, 2.0]), 50) == (1.5, 1.5, 1.0)


def test_holdout_with_exact_matches_warns_and_passes():
    # 2 of 3 holdout rows equal a real row → p5(H→Y) = 0 and the DCR test cannot fail.
    res = run(col([0, 1, 2]), col([0, 1, 2]), col([0, 1, 5]), "dcr_test")["dcr_test"]
    assert res.risk == 0.0 and res.raw == 1.0
    assert any("cannot tell" in w for w in res.warnings)
    assert any("does not make the data private" in w for w in res.warnings)  # every pass carries the caveat
    failing = run(REAL, SYN, HOLD, "dcr_test")["dcr_test"]
    assert not any("does not make the data private" in w for w in failing.warnings)


def test_ims_test_by_hand_with_constant_column_and_duplicates():
    # Y = {(1,k), (2,k), (3,k)}; column c is constant in Y (dropped from E, kept for identical matches).
    # Z = (1,k) copy, (2,j) differs only in c, (7,k) new, (1,k) copy again → IMS(Z,Y) = 2/4 = .5.
    # H = (3,k) copy, 5, 6, 8 → IMS(H,Y) = 1/4. risk = .5 − .25 = .25, raw = .5.
    types = {"x": "numerical", "c": "categorical"}
    real = pd.DataFrame({"x": [1.0, 2, 3], "c": ["k"] * 3})
    syn = pd.DataFrame({"x": [1.0, 2, 7, 1], "c": ["k", "j", "k", "k"]})
    hold = pd.DataFrame({"x": [3.0, 5, 6, 8], "c": ["k"] * 4})
    report = run(real, syn, hold, IDS, types=types)
    ims = report["ims_test"]
    assert (ims.risk, ims.raw) == (0.25, 0.5)
    assert ims.per_record.tolist() == [1, 0, 0, 1]
    assert ims.details["ims_holdout"] == 0.25
    # In E (c dropped) row (2,j) is at distance 0 from (2,k): the DCR of that row is 0.
    assert report["dcr_test"].details["synthetic_values"][1] == 0.0
    # IMS smaller than the holdout's: risk 0, never negative.
    assert run(real, hold, syn, "ims_test", types=types)["ims_test"].risk == 0.0


# ------------------------------------------------------------------------------------------------
# Agreement with a brute-force implementation straight from metrics.md
# ------------------------------------------------------------------------------------------------


TYPES = {"a": "numerical", "b": "numerical", "c": "categorical", "s": "binary", "k": "numerical"}


def mixed(rng, n):
    return pd.DataFrame({
        "a": rng.integers(0, 6, n).astype(float),
        "b": np.round(rng.normal(0, 1, n), 1),
        "c": rng.choice(list("pqr"), n),
        "s": rng.choice(["y", "n"], n),
        "k": np.full(n, 3.0),  # constant in Y: out of E, in identical matches
    })


def brute_encode(real, tables):
    """metrics.md §0 E: min–max on Y, one-hot over the category union, binary one 0/1, constants dropped."""
    out = [[] for _ in tables]
    for colname, kind in TYPES.items():
        if real[colname].nunique() <= 1:
            continue
        if kind == "numerical":
            lo, hi = real[colname].min(), real[colname].max()
            for i, t in enumerate(tables):
                out[i].append(((t[colname] - lo) / (hi - lo)).to_numpy()[:, None])
        else:
            levels = sorted(set().union(*(set(t[colname]) for t in tables)))
            if kind == "binary":
                levels = levels[1:]
            for i, t in enumerate(tables):
                out[i].append(np.stack([(t[colname] == v).to_numpy(float) for v in levels], axis=1))
    return [np.hstack(parts) for parts in out]


def brute_force(real, syn, hold, q=5.0):
    ey, ez, eh = brute_encode(real, [real, syn, hold])
    dist = lambda a, b: np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2))  # noqa: E731
    dzy, dhy, dzh = np.sort(dist(ez, ey), axis=1), np.sort(dist(eh, ey), axis=1), dist(ez, eh)

    def ratio(p_syn, p_hold):
        return (1.0 if p_syn == 0 else np.inf) if p_hold == 0 else p_syn / p_hold

    dcr = ratio(np.percentile(dzy[:, 0], q), np.percentile(dhy[:, 0], q))
    r = lambda d: np.where(d[:, 0] == 0, 0.0, d[:, 0] / np.where(d[:, 1] == 0, 1, d[:, 1]))  # noqa: E731
    nndr = ratio(np.percentile(r(dzy), q), np.percentile(r(dhy), q))
    rows = lambda t: set(map(tuple, t[list(TYPES)].to_numpy().tolist()))  # noqa: E731
    real_rows = rows(real)
    ims = lambda t: np.mean([tuple(x) in real_rows for x in t[list(TYPES)].to_numpy().tolist()])  # noqa: E731
    d_max = dist(ey, ez).max()
    closer = np.mean(dzy[:, 0] < dzh.min(axis=1) - 1e-12 * d_max)
    return {"dcr_test": dcr, "nndr_test": nndr, "ims": (ims(syn), ims(hold)), "closer": closer}


@pytest.mark.parametrize("seed", range(6))
def test_agreement_with_brute_force(seed):
    rng = np.random.default_rng(seed)
    real, syn, hold = mixed(rng, 40), mixed(rng, 30), mixed(rng, 35)
    syn.iloc[:6] = real.iloc[:6].to_numpy()  # some copies
    hold.iloc[:2] = real.iloc[10:12].to_numpy()
    report = evaluate(real, syn, Schema(dict(TYPES)), metrics=IDS, holdout=hold, strict=True)
    expected = brute_force(real, syn, hold)
    for mid in ("dcr_test", "nndr_test"):
        assert report[mid].raw == pytest.approx(expected[mid], abs=1e-9)
        assert report[mid].risk == pytest.approx(max(0.0, 1 - expected[mid]), abs=1e-9)
    ims_syn, ims_hold = expected["ims"]
    assert report["ims_test"].raw == pytest.approx(ims_syn, abs=1e-12)
    assert report["ims_test"].risk == pytest.approx(max(0.0, ims_syn - ims_hold), abs=1e-12)
    assert report["dcr_test"].details["closer_to_real_share"] == pytest.approx(expected["closer"], abs=1e-12)


def test_other_percentile_parameter():
    # p50 of DCR(Z→Y) [.05 .05 .1 .1 .3] = .1; of DCR(H→Y) [.05 .1 .2 .2] at 1.5 → .15; ratio 2/3.
    res = run(REAL, SYN, HOLD, "dcr_test", params={"dcr_test": {"percentile": 50}})["dcr_test"]
    assert res.raw == pytest.approx(2 / 3, abs=1e-12)
    assert res.params["percentile"] == 50


@pytest.mark.parametrize("q", [-1, 101, "5"])
def test_bad_percentile_is_an_input_error(q):
    from privcore.base.errors import InputError

    with pytest.raises(InputError):
        run(REAL, SYN, HOLD, "dcr_test", params={"dcr_test": {"percentile": q}})


def test_passes_are_shared_and_not_repeated():
    report = evaluate(REAL, SYN, Schema({"x": "numerical"}), metrics=IDS + ["mia_distance"], holdout=HOLD,
                      strict=True, params={"mia_distance": {"n_boot": 10}})
    passes = report.shared.passes
    assert len(passes) == len(set(passes))
    assert ("E", "synthetic", "real") in passes and ("E", "holdout", "real") in passes


def test_not_applicable_without_holdout():
    report = evaluate(REAL, SYN, Schema({"x": "numerical"}), metrics=IDS, strict=True)
    for mid in IDS:
        assert not report[mid].applicable and "holdout" in report[mid].reason


# ------------------------------------------------------------------------------------------------
# Properties
# ------------------------------------------------------------------------------------------------


tables = st.integers(min_value=0, max_value=2**31 - 1)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(seed=tables, n=st.integers(3, 12), m=st.integers(1, 12), h=st.integers(2, 12))
def test_properties(seed, n, m, h):
    rng = np.random.default_rng(seed)
    real, syn, hold = mixed(rng, n), mixed(rng, m), mixed(rng, h)
    schema = Schema(dict(TYPES))
    report = evaluate(real, syn, schema, metrics=IDS, holdout=hold, strict=True)
    again = evaluate(real, syn, schema, metrics=IDS, holdout=hold, strict=True)
    shuffled = evaluate(real.sample(frac=1, random_state=seed % 1000), syn, schema, metrics=IDS, holdout=hold,
                        strict=True)
    for mid in IDS:
        assert 0.0 <= report[mid].risk <= 1.0
        assert report[mid].risk == again[mid].risk
        assert report[mid].risk == pytest.approx(shuffled[mid].risk, abs=1e-12)


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(seed=tables, n=st.integers(3, 12))
def test_copy_of_real_scores_one(seed, n):
    # Z = Y (same order or shuffled), H = Y shifted away on a numerical column: every test fails fully.
    rng = np.random.default_rng(seed)
    real = mixed(rng, n)
    real.loc[0, "a"], real.loc[1, "a"] = 0.0, 5.0  # a spans 0..5 so the shift below is never 0 in E
    real = real.drop_duplicates().reset_index(drop=True)
    hold = real.assign(a=real["a"] + 100.0)
    for syn in (real.copy(), real.sample(frac=1, random_state=1).reset_index(drop=True)):
        report = evaluate(real, syn, Schema(dict(TYPES)), metrics=IDS, holdout=hold, strict=True)
        for mid in IDS:
            assert report[mid].risk == 1.0, mid
