"""D-MLP's network (privcore.metrics._mlp) performs scikit-learn's MLPClassifier computation.

D-MLP is defined by ``MLPClassifier(hidden_layer_sizes=(100,), early_stopping=True, max_iter=300,
random_state=seed)``; :class:`DetectionMLP` must train the same network, so its probabilities and its
number of epochs are compared with scikit-learn's on tables where the network learns something (an
offset class) and where it cannot (identical distributions, early stopping after few epochs), in both
precisions the metric may use.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier

from privcore.metrics._mlp import N_ITER_NO_CHANGE, DetectionMLP, fit_together


def labelled_table(rng, n, d, offset):
    labels = np.r_[np.ones(n // 2, dtype=np.int64), np.zeros(n - n // 2, dtype=np.int64)]
    features = rng.normal(size=(n, d)) + offset * labels[:, None]
    return features, labels


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("offset, seed, max_iter", [(0.0, 0, 300), (0.7, 3, 300), (0.7, 5, 4)])
def test_same_probabilities_and_epochs_as_scikit_learn(dtype, offset, seed, max_iter):
    rng = np.random.default_rng(seed)
    features, labels = labelled_table(rng, 900, 12, offset)
    features = features.astype(dtype)
    test = np.arange(1, 900, 3)
    train = np.setdiff1d(np.arange(900), test)
    theirs = MLPClassifier(hidden_layer_sizes=(100,), early_stopping=True, max_iter=max_iter, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        theirs.fit(features[train], labels[train])
    ours = DetectionMLP(hidden=100, max_iter=max_iter, random_state=seed).fit(features[train], labels[train])
    assert ours.n_iter_ == theirs.n_iter_
    expected = theirs.predict_proba(features[test])
    got = ours.predict_proba(features[test])
    assert got.dtype == expected.dtype == dtype
    # The same operations in the same order: equal up to the last bit in practice; 1e-12 (float64) and
    # 1e-6 (float32) leave room only for a BLAS kernel that sums a product in another order.
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 if dtype == np.float64 else 1e-6)
    if offset > 0 and max_iter == 300:
        assert theirs.n_iter_ > 11  # the network learned beyond the first epochs: a real comparison


def test_same_seed_same_network_other_seed_other_network():
    features, labels = labelled_table(np.random.default_rng(1), 400, 5, 0.5)
    a = DetectionMLP(random_state=2).fit(features, labels).predict_proba(features)
    b = DetectionMLP(random_state=2).fit(features, labels).predict_proba(features)
    c = DetectionMLP(random_state=3).fit(features, labels).predict_proba(features)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_networks_trained_together_equal_each_trained_alone(dtype):
    """D-MLP's folds train stacked (fit_together): every network must be bit for bit the one trained alone,
    whether its training part has the size of the others' (one stack) or not (a stack of its own), and
    whichever epoch it stops at. Half the rows carry no signal, so the networks trained on them stop early
    (23-25 epochs) while the others learn on (32-40, their best epochs after the first ones left): a stack
    that mixed up whose state is whose when a network leaves it would change the networks still in it."""
    rng = np.random.default_rng(7)
    n = 600
    labels = np.tile(np.r_[np.ones(n // 2, dtype=np.int64), np.zeros(n // 2, dtype=np.int64)], 2)
    features = rng.normal(size=(2 * n, 9))
    features[n:] += 1.2 * labels[n:, None]  # the second half learnable, the first not
    features = features.astype(dtype)
    noise, signal = np.arange(n), np.arange(n, 2 * n)
    rows = [noise, signal, noise, signal, np.arange(0, 2 * n, 3)]
    seeds = [0, 1, 2, 3, 4]
    together = [DetectionMLP(random_state=s) for s in seeds]
    fit_together(together, features, labels, rows)
    epochs = []
    for model, own, seed in zip(together, rows, seeds):
        alone = DetectionMLP(random_state=seed).fit(features[own], labels[own])
        epochs.append(alone.n_iter_)
        assert model.n_iter_ == alone.n_iter_
        assert np.array_equal(model.predict_proba(features), alone.predict_proba(features))
    assert max(epochs[:4]) - N_ITER_NO_CHANGE > min(epochs[:4])  # the last network's best came after a leave


@pytest.mark.parametrize("granted", [[2], [1, 1, 1, 3], [1] * 30 + [2]])
def test_a_stack_split_among_threads_midway_trains_the_same_networks(granted):
    """D-MLP's stack takes more threads once the other metrics are done (``widen``): from the start, after a
    few epochs, or after some networks have left. Each network must still be the one trained alone."""
    rng = np.random.default_rng(11)
    n = 600
    labels = np.tile(np.r_[np.ones(n // 2, dtype=np.int64), np.zeros(n // 2, dtype=np.int64)], 2)
    features = rng.normal(size=(2 * n, 7)).astype(np.float32)
    features[n:] += 1.0 * labels[n:, None]
    rows = [np.arange(n), np.arange(n, 2 * n)] * 2 + [np.arange(n)]
    calls = []

    def widen():
        calls.append(1)
        return granted[min(len(calls), len(granted)) - 1]

    together = [DetectionMLP(random_state=s) for s in range(5)]
    fit_together(together, features, labels, rows, widen=widen)
    assert len(calls) >= min(len(granted), 2)
    for model, own, seed in zip(together, rows, range(5)):
        alone = DetectionMLP(random_state=seed).fit(features[own], labels[own])
        assert model.n_iter_ == alone.n_iter_
        assert np.array_equal(model.predict_proba(features), alone.predict_proba(features))


def test_networks_trained_together_need_the_same_shape():
    features, labels = labelled_table(np.random.default_rng(0), 100, 3, 0.5)
    with pytest.raises(ValueError, match="same hidden layer"):
        fit_together([DetectionMLP(hidden=10), DetectionMLP(hidden=20)], features, labels,
                     [np.arange(100), np.arange(100)])
