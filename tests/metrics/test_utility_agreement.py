"""Issue 37 item 6: where privcore's utility numbers share a definition with SDMetrics' Quality Report, they agree
(checked here against hand-computed values and scipy/numpy, without the peers installed; the peers themselves are
compared in ``bench/bench_utility_peers.py``), and the faster paths give the same numbers as before.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ks_2samp

from privcore import Schema, evaluate
from privcore.metrics.utility._base import bin_column, ks_complement, pearson, shares, tvd
from privcore.metrics.utility.discriminator import discriminate


def _tvd(real, other) -> float:
    binned = bin_column(pd.Series(real), pd.Series(other), "categorical")
    return tvd(shares(binned.real, binned.n_bins), shares(binned.other, binned.n_bins))


def test_categorical_tvd_by_hand_with_missing_as_a_bin_and_left_out_as_sdmetrics_does():
    real = ["a", "a", "b", None]
    other = ["a", "b", "b", "c"]
    # Shares: real a ½, b ¼, missing ¼; other a ¼, b ½, c (only in the other table) ¼.
    assert _tvd(real, other) == pytest.approx(0.5 * (0.25 + 0.25 + 0.25 + 0.25))
    # SDMetrics' TVComplement drops missing values first: real a ⅔, b ⅓ against a ¼, b ½, c ¼.
    tv_complement = 1 - 0.5 * (abs(2 / 3 - 1 / 4) + abs(1 / 3 - 1 / 2) + 1 / 4)
    assert 1 - _tvd([v for v in real if v is not None], other) == pytest.approx(tv_complement, abs=1e-12)


def test_categorical_bins_of_text_numbers_and_a_category_dtype_agree():
    text = pd.Series(["1", "2", None, "10"])
    numbers = pd.Series([1, 2.0, None, 10], dtype=object)
    other = pd.Series(["2", "3", "1"])
    expected = bin_column(text, other, "categorical")
    assert expected.labels == ["1", "10", "2", "missing", "only in the other table"]
    assert expected.real.tolist() == [0, 2, 3, 1] and expected.other.tolist() == [2, 4, 0]
    for kind in ("category", "string"):
        same = bin_column(text.astype(kind), other.astype(kind), "categorical")
        assert same.real.tolist() == expected.real.tolist() and same.other.tolist() == expected.other.tolist()
        assert same.labels == expected.labels
    mixed = bin_column(numbers, other, "categorical")  # str(2.0) is "2.0": a category of its own
    assert mixed.labels == ["1", "10", "2.0", "missing", "only in the other table"]
    assert mixed.real.tolist() == [0, 2, 3, 1] and mixed.other.tolist() == [4, 4, 0]


def test_ks_complement_and_pearson_agree_with_scipy_and_numpy():
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 20, 500).astype(float), rng.integers(2, 25, 700).astype(float)  # many ties
    assert ks_complement(a, b) == pytest.approx(1 - ks_2samp(a, b).statistic, abs=1e-12)
    x, y = rng.normal(size=400), rng.normal(size=400)
    y = y + 0.5 * x
    assert pearson(x, y) == pytest.approx(np.corrcoef(x, y)[0, 1], abs=1e-12)


def test_fits_on_threads_give_the_same_scores_as_on_one():
    rng = np.random.default_rng(0)

    def people(n):
        x = rng.normal(size=n)
        return pd.DataFrame({"x": x, "z": rng.normal(size=n),
                             "y": np.where(x + rng.normal(scale=0.5, size=n) > 0, "a", "b")})

    real, synthetic, holdout = people(300), people(300), people(300)
    schema = Schema({"x": "numerical", "z": "numerical", "y": "binary"}, sensitive="y")
    one, two = (evaluate(real, synthetic, schema, holdout=holdout, metrics=["utility_mle", "utility_discriminator"],
                         workers=w, seed=1) for w in (1, 2))
    for metric in ("utility_mle", "utility_discriminator"):
        first, second = one[metric].to_dict(), two[metric].to_dict()
        first.pop("seconds"), second.pop("seconds")
        assert first == second
    features = rng.normal(size=(200, 3))
    assert discriminate(features, features + 0.3, 0, workers=1) == discriminate(features, features + 0.3, 0, workers=3)
