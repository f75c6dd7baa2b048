"""privcore.base.logsumexp equals SciPy's logsumexp(axis=1) bit for bit."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

from privcore.base.logsumexp import logsumexp_rows


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(1, 12), columns=st.integers(1, 80),
       scale=st.sampled_from([1e-300, 1e-3, 1.0, 40.0, 800.0]), rounded=st.booleans())
def test_equal_to_scipy_bit_for_bit(seed, rows, columns, scale, rounded):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(rows, columns)) * scale
    if rounded:  # several elements equal to a row's largest
        a = np.round(a)
    np.testing.assert_array_equal(logsumexp_rows(a), logsumexp(a, axis=1))


def test_rows_scipy_decides_keep_its_rules():
    a = np.array([[0.0, -np.inf], [-np.inf, -np.inf], [np.inf, 0.0], [np.nan, 0.0], [1000.0, 1000.0]])
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(logsumexp_rows(a), logsumexp(a, axis=1))


def test_a_kernel_density_block():
    d2 = np.random.default_rng(0).random((300, 2000)) * 40
    np.testing.assert_array_equal(logsumexp_rows(d2 * -0.5), logsumexp(d2 * -0.5, axis=1))
