"""The tie tolerance from bounds on d_max (privcore.engine.tolerance) decides as the exact one does."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore import Schema, evaluate
from privcore.engine.candidates import exact_distances
from privcore.engine.neighbors import nearest_two
from privcore.engine.tolerance import TIE_FACTOR, TieTolerance, d_max_bounds
from privcore.evaluation import evaluate as evaluation


def exact_d_max(a, b):
    rows, cols = np.repeat(np.arange(len(a)), len(b)), np.tile(np.arange(len(b)), len(a))
    return float(exact_distances(a, b, rows, cols, 1 << 20).max())


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 30), m=st.integers(1, 30), d=st.integers(1, 6), seed=st.integers(0, 2**32 - 1),
       scale=st.sampled_from([1e-6, 1.0, 1e6]), coarse=st.booleans())
def test_bounds_hold_the_engines_d_max(n, m, d, seed, scale, coarse):
    rng = np.random.default_rng(seed)
    draw = (lambda shape: rng.integers(0, 2, shape).astype(float)) if coarse else (lambda shape: rng.normal(size=shape))
    a, b = scale * draw((n, d)), scale * draw((m, d)) + scale
    low, high = d_max_bounds(a, b)
    d_max = exact_d_max(a, b)
    assert low <= d_max <= high
    _, extremes = nearest_two(a, b, with_extremes=True, workers=1)
    assert extremes.d_max == d_max  # the pass's d_max is that exact distance


@settings(max_examples=200, deadline=None)
@given(low=st.floats(0.5, 2.0), ratio=st.floats(1.0, 3.0), share=st.floats(0.0, 1.0),
       offsets=st.lists(st.floats(-5.0, 5.0), min_size=1, max_size=20), strict=st.booleans())
def test_decisions_are_those_of_the_exact_tolerance(low, ratio, share, offsets, strict):
    """Comparisons whose margins lie below, inside and above the band the bounds leave (in units of 1e-12):
    the decision equals the exact tolerance's, and d_max is computed only where a margin lies in the band."""
    high = low * ratio
    d_max = low + share * (high - low)
    calls = []
    tolerance = TieTolerance(low, high, lambda: calls.append(1) or d_max)
    y = np.ones(len(offsets))
    x = y - np.array(offsets) * TIE_FACTOR  # y − x = offset × 1e-12

    def compare(t):
        return x < y - t if strict else x <= y - t

    got = tolerance.decide(compare)
    np.testing.assert_array_equal(got, compare(TIE_FACTOR * d_max))
    loose, tight = compare(TIE_FACTOR * low), compare(TIE_FACTOR * high)
    assert len(calls) == (0 if np.array_equal(loose, tight) else 1)


def test_a_known_d_max_is_used_as_is():
    tolerance = TieTolerance.known(3.0)
    assert tolerance.value == 3.0 * TIE_FACTOR
    assert tolerance.decide(lambda t: np.array([t])).tolist() == [3.0 * TIE_FACTOR]


@pytest.fixture
def idscore_tables():
    rng = np.random.default_rng(5)
    n = 2_500
    real = pd.DataFrame({"a": rng.normal(size=n).round(1), "b": rng.choice(list("pqrstu"), n),
                         "c": rng.choice(list("xyz"), n, p=[0.7, 0.2, 0.1])})
    synthetic = real.sample(frac=1.0, random_state=1).reset_index(drop=True)
    synthetic["a"] += rng.normal(scale=0.05, size=n)
    schema = Schema({"a": "numerical", "b": "categorical", "c": "categorical"})
    return real, synthetic, schema


def test_idscore_skips_the_farthest_pair_and_reports_what_the_exact_tolerance_gives(idscore_tables, monkeypatch):
    real, synthetic, schema = idscore_tables
    lazy = evaluate(real, synthetic, schema, metrics="idscore", seed=0, strict=True)
    assert ("E_idscore", "real", "synthetic") not in lazy.shared._extremes  # its pass left the farthest pair out
    monkeypatch.setattr(evaluation, "tolerance_only_pairs", lambda *args: set())
    exact = evaluate(real, synthetic, schema, metrics="idscore", seed=0, strict=True)
    assert ("E_idscore", "real", "synthetic") in exact.shared._extremes
    assert lazy["idscore"].risk == exact["idscore"].risk
    np.testing.assert_array_equal(lazy["idscore"].per_record, exact["idscore"].per_record)
    # Asked for afterwards, the extremes are those of the pass that computes them.
    assert lazy.shared.extremes("E_idscore", "real", "synthetic") == exact.shared._extremes[
        ("E_idscore", "real", "synthetic")]


def test_a_margin_inside_the_band_asks_for_the_exact_d_max(idscore_tables, monkeypatch):
    """Bounds so loose that every comparison falls in the band: the exact d_max is computed (one pass), and
    the result is still the exact tolerance's."""
    from privcore.engine import context

    real, synthetic, schema = idscore_tables
    monkeypatch.setattr(context, "d_max_bounds", lambda a, b: (1e-300, 1e300))
    loose = evaluate(real, synthetic, schema, metrics="idscore", seed=0, strict=True)
    assert ("E_idscore", "real", "synthetic") in loose.shared._extremes
    monkeypatch.setattr(evaluation, "tolerance_only_pairs", lambda *args: set())
    exact = evaluate(real, synthetic, schema, metrics="idscore", seed=0, strict=True)
    np.testing.assert_array_equal(loose["idscore"].per_record, exact["idscore"].per_record)
    assert loose.shared._extremes == exact.shared._extremes


def test_a_pair_read_for_its_extremes_too_keeps_them_in_its_pass():
    # DCR reads no extremes; NNDR and HidR read Φk's exact d_max, NNAA E's.
    assert evaluation.tolerance_only_pairs(["idscore", "dcr", "nndr"], False) == {("E_idscore", "real", "synthetic")}
    assert evaluation.tolerance_only_pairs(["dcr", "hidr", "nnaa"], True) == set()
    assert evaluation.tolerance_only_pairs(["dcr"], False) == {("phi", "real", "synthetic")}
    assert evaluation.tolerance_only_pairs(["auth", "idscore"], False) == {("E", "real", "synthetic"),
                                                                          ("E_idscore", "real", "synthetic")}
    assert evaluation.tolerance_only_pairs(["auth", "cvp"], False) == set()


def test_dcr_alone_skips_the_farthest_pair_with_the_same_result(idscore_tables, monkeypatch):
    """Issue 42: DCR reads no extremes, so alone its Φk pass leaves the farthest pair out; same result."""
    real, synthetic, schema = idscore_tables
    lazy = evaluate(real, synthetic, schema, metrics="dcr", seed=0, strict=True)
    assert ("phi", "real", "synthetic") not in lazy.shared._extremes
    monkeypatch.setattr(evaluation, "tolerance_only_pairs", lambda *args: set())
    exact = evaluate(real, synthetic, schema, metrics="dcr", seed=0, strict=True)
    assert ("phi", "real", "synthetic") in exact.shared._extremes
    assert lazy["dcr"].risk == exact["dcr"].risk
    np.testing.assert_array_equal(lazy["dcr"].per_record, exact["dcr"].per_record)
    np.testing.assert_array_equal(lazy["dcr"].details.nearest_synthetic, exact["dcr"].details.nearest_synthetic)


def test_auth_alone_skips_the_farthest_pair_with_the_same_result(idscore_tables, monkeypatch):
    """Issue 42: Auth reads E's d_max only for its tie tolerance; alone its pass leaves the farthest pair out."""
    real, synthetic, schema = idscore_tables
    lazy = evaluate(real, synthetic, schema, metrics="auth", seed=0, strict=True)
    assert ("E", "real", "synthetic") not in lazy.shared._extremes
    monkeypatch.setattr(evaluation, "tolerance_only_pairs", lambda *args: set())
    exact = evaluate(real, synthetic, schema, metrics="auth", seed=0, strict=True)
    assert ("E", "real", "synthetic") in exact.shared._extremes
    assert lazy["auth"].risk == exact["auth"].risk
    np.testing.assert_array_equal(lazy["auth"].per_record, exact["auth"].per_record)
    np.testing.assert_array_equal(lazy["auth"].details.d_yz, exact["auth"].details.d_yz)
