"""Exact distances of wide, mostly-zero rows (one-hot codes of many values): over their non-zeros, the same everywhere."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from privcore.engine import candidates


def _wide(rng: np.random.Generator, rows: int, codes: int, numbers: int) -> np.ndarray:
    table = np.zeros((rows, numbers + codes))
    table[:, :numbers] = rng.integers(0, 4, (rows, numbers)) / 3.0
    table[np.arange(rows), numbers + rng.integers(0, codes, rows)] = rng.choice([1.0, 0.7])
    return table


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), rows=st.integers(1, 40), codes=st.integers(260, 600),
       numbers=st.integers(0, 30), chunk=st.sampled_from([300, 5_000, 1 << 22]))
def test_wide_distances_agree_with_every_column_and_do_not_depend_on_the_pass(seed, rows, codes, numbers, chunk):
    rng = np.random.default_rng(seed)
    a, b = _wide(rng, rows, codes, numbers), _wide(rng, rows + 3, codes, numbers)
    b[: rows // 2] = a[: rows // 2]  # identical rows: exactly 0
    qr, rr = rng.integers(0, len(a), 200), rng.integers(0, len(b), 200)
    got = candidates.exact_distances(a, b, qr, rr, chunk)
    dense = candidates._exact_distances_dense(a, b, qr, rr, chunk)
    np.testing.assert_allclose(got, dense, rtol=1e-14, atol=1e-15)
    same = np.flatnonzero((a[qr] == b[rr]).all(axis=1))
    assert (got[same] == 0.0).all()
    # The same pair, asked alone, among other pairs, or from a subset of the table: the same bits.
    subset = np.unique(rr)
    at = np.searchsorted(subset, rr)
    alone = np.array([candidates.exact_distances(a, b[subset], qr[i:i + 1], at[i:i + 1], chunk)[0]
                      for i in range(0, 200, 17)])
    np.testing.assert_array_equal(alone, got[::17])
    # Read-only tables (the evaluation's encodings) are read through their kept CSR form: the same bits again.
    frozen_a, frozen_b = a.copy(), b.copy()
    frozen_a.flags.writeable = frozen_b.flags.writeable = False
    np.testing.assert_array_equal(candidates.exact_distances(frozen_a, frozen_b, qr, rr, chunk), got)


def test_rows_with_many_non_zeros_are_refined_over_every_column():
    rng = np.random.default_rng(1)
    a, b = rng.random((30, 300)), rng.random((20, 300))  # dense and wide: every pair takes the narrow path
    qr, rr = rng.integers(0, 30, 50), rng.integers(0, 20, 50)
    np.testing.assert_array_equal(candidates.exact_distances(a, b, qr, rr, 1 << 20),
                                  candidates._exact_distances_dense(a, b, qr, rr, 1 << 20))
