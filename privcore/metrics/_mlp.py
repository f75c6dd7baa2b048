"""D-MLP's network: scikit-learn's ``MLPClassifier`` training, step for step, without its overhead.

D-MLP is defined (metrics.md §2.2.3) as ``MLPClassifier(hidden_layer_sizes=(100,), early_stopping=True,
max_iter=300, random_state=seed)`` on two classes. At 10,000 + 10,000 rows it fitted 5 × 20–40 epochs
of 72 batches of 200 rows, and most of each batch went to generic bookkeeping rather than arithmetic.
:class:`DetectionMLP` performs the same computation for exactly that configuration (one ReLU hidden
layer, logistic output, Adam, L2 penalty 1e-4, batches of 200, a stratified 10 % early-stopping split,
stop after 10 epochs without a validation-accuracy gain of 1e-4, best weights restored):

- the same random draws in the same order (weights, the validation split, each epoch's shuffle);
- the same floating-point operations on every parameter (tests/metrics/test_mlp.py checks that its
  probabilities and epoch counts equal scikit-learn's, in float64 and float32);
- minus work that cannot change the weights: the training loss (only reported by scikit-learn, never
  used for early stopping when ``early_stopping=True``), input validation, and the mask-indexing form of
  the ReLU derivative (a multiplication by the 0/1 mask here, which leaves every non-zero value as is).

Per batch that is about 1.6× less time in float64; D-MLP also trains in float32 (see
:func:`privcore.metrics.classifier.compute_dmlp`).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit
from sklearn.model_selection import train_test_split
from sklearn.utils import shuffle

#: scikit-learn's MLPClassifier defaults that D-MLP keeps.
ALPHA = 1e-4
LEARNING_RATE = 1e-3
BETA_1, BETA_2, EPSILON = 0.9, 0.999, 1e-8
BATCH_SIZE = 200
VALIDATION_FRACTION = 0.1
TOL = 1e-4
N_ITER_NO_CHANGE = 10


class DetectionMLP:
    """``MLPClassifier(hidden_layer_sizes=(hidden,), early_stopping=True, max_iter, random_state)`` for
    labels 0/1, trained in the features' precision (float32 or float64).

    Parameters
    ----------
    hidden : int
        Units of the hidden layer.
    max_iter : int
        Epochs at most.
    random_state : int
        Seed of the weights, the validation split and the shuffles (as scikit-learn's ``RandomState``).

    Attributes
    ----------
    n_iter_ : int
        Epochs run.
    """

    def __init__(self, hidden: int = 100, max_iter: int = 300, random_state: int = 0):
        self.hidden = hidden
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_iter_ = 0

    def fit(self, features: np.ndarray, labels: np.ndarray) -> DetectionMLP:
        """Train on ``features`` (n, d) float32/float64 and ``labels`` (n,) in {0, 1}."""
        rng = np.random.RandomState(self.random_state)
        dtype = features.dtype
        weights, biases = [], []
        for fan_in, fan_out in ((features.shape[1], self.hidden), (self.hidden, 1)):
            bound = np.sqrt(6.0 / (fan_in + fan_out))  # Glorot, factor 6 for a ReLU network
            weights.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(dtype, copy=False))
            biases.append(rng.uniform(-bound, bound, fan_out).astype(dtype, copy=False))
        # scikit-learn binarises the labels to a boolean column and stratifies the split on it.
        target = np.asarray(labels).reshape(-1, 1).astype(bool)
        # Stratified on the labels as a vector: the same classes in the same order, so the same split as
        # scikit-learn's column, without its multilabel path (which joins every row's labels into a string:
        # 0.7 s per fold at 100,000 + 100,000 rows).
        x_train, x_val, y_train, y_val = train_test_split(
            features, target, random_state=rng, test_size=VALIDATION_FRACTION, stratify=target.ravel()
        )
        y_val = y_val.ravel()
        # Parameters, gradients and Adam's moments each live in one flat array, in scikit-learn's order
        # (coefs, then intercepts), with per-layer views: Adam then updates all of them in a handful of
        # array operations instead of a handful per layer, elementwise the same arithmetic.
        shapes = [w.shape for w in weights] + [b.shape for b in biases]
        flat = np.concatenate([a.ravel() for a in weights + biases])
        params = _views(flat, shapes)
        grad_flat = np.empty_like(flat)
        grads = _views(grad_flat, shapes)
        first_moment, second_moment = np.zeros_like(flat), np.zeros_like(flat)
        buffers = (np.empty(flat.shape, dtype=np.float64), np.empty_like(flat))
        n_train = len(x_train)
        batch = min(BATCH_SIZE, n_train)
        order = np.arange(n_train, dtype=int)
        step = 0
        best_score, stalled = -np.inf, 0
        best_flat = flat.copy()
        self.n_iter_ = 0
        for _ in range(self.max_iter):
            order = shuffle(order, random_state=rng)
            for start in range(0, n_train, batch):
                rows = order[start : start + batch]
                step += 1
                self._gradients(x_train[rows], y_train[rows], params, grads)
                self._adam_step(flat, grad_flat, first_moment, second_moment, step, buffers)
            self.n_iter_ += 1
            score = self._accuracy(x_val, y_val, params)
            stalled = stalled + 1 if score < best_score + TOL else 0
            if score > best_score:
                best_score = score
                best_flat = flat.copy()
            if stalled > N_ITER_NO_CHANGE:
                break
        self._params = _views(best_flat, shapes)
        return self

    def predict_proba(self, features: np.ndarray) -> np.ndarray:
        """Columns P(label 0), P(label 1), in the features' precision."""
        p = _forward(features, self._params)
        return np.hstack([1 - p, p])

    @staticmethod
    def _gradients(x, y, params, grads):
        """Back-propagation of one batch into ``grads`` (views of the flat gradient array)."""
        w1, w2, b1, b2 = params
        grad_w1, grad_w2, grad_b1, grad_b2 = grads
        n = len(x)
        hidden = x @ w1
        hidden += b1
        np.maximum(hidden, 0, out=hidden)
        output = hidden @ w2
        output += b2
        expit(output, out=output)
        delta_out = output - y
        np.matmul(hidden.T, delta_out, out=grad_w2)
        grad_w2 += ALPHA * w2
        grad_w2 /= n
        np.mean(delta_out, 0, out=grad_b2)
        # delta_out @ w2.T has an inner dimension of 1: a plain product gives the same values, faster.
        delta_hidden = np.multiply(delta_out, w2.T)
        np.multiply(delta_hidden, hidden > 0, out=delta_hidden)  # ReLU derivative
        np.matmul(x.T, delta_hidden, out=grad_w1)
        grad_w1 += ALPHA * w1
        grad_w1 /= n
        np.mean(delta_hidden, 0, out=grad_b1)

    @staticmethod
    def _adam_step(params, grads, m, v, step, buffers):
        """scikit-learn's AdamOptimizer update, in place on the flat arrays: ``m = β1·m + (1 − β1)·g``,
        ``v = β2·v + (1 − β2)·g²``, ``p += −rate·m / (√v + ε)``. The rate is a float64 scalar, so (as
        there) the update is formed in float64 and rounded once into ``p``; ``buffers`` (a float64 and a
        parameter-dtype array) keep the step from allocating."""
        m *= BETA_1
        m += (1 - BETA_1) * grads
        v *= BETA_2
        v += (1 - BETA_2) * (grads * grads)
        rate = LEARNING_RATE * np.sqrt(1 - BETA_2**step) / (1 - BETA_1**step)
        update, denominator = buffers
        np.multiply(-rate, m, out=update)
        np.sqrt(v, out=denominator)
        denominator += EPSILON
        np.divide(update, denominator, out=update)
        params += update

    @staticmethod
    def _accuracy(x, y, params) -> float:
        p = _forward(x, params)
        if not np.all(np.isfinite(p)):  # scikit-learn scores a diverged network as NaN
            return np.nan
        return float(np.mean((p[:, 0] > 0.5) == y))


def _forward(x, params):
    w1, w2, b1, b2 = params
    hidden = x @ w1
    hidden += b1
    np.maximum(hidden, 0, out=hidden)
    output = hidden @ w2
    output += b2
    return expit(output, out=output)


def _views(flat, shapes):
    """Consecutive views of ``flat`` with the given shapes."""
    views, start = [], 0
    for shape in shapes:
        size = int(np.prod(shape))
        views.append(flat[start : start + size].reshape(shape))
        start += size
    return views
