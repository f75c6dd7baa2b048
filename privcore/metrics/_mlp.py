"""D-MLP's network: scikit-learn's ``MLPClassifier`` training, step for step, without its overhead.

Same draws and floating-point operations as scikit-learn for D-MLP's configuration (metrics.md §2.2.3).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable

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
    """``MLPClassifier(hidden_layer_sizes=(hidden,), early_stopping=True, max_iter, random_state)`` for labels 0/1.

    Trained in the features' precision (float32 or float64).

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

    Notes
    -----
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
    :func:`privcore.metrics.classifier.compute_dmlp`). Its five folds train together (:func:`fit_together`):
    each array operation serves every fold's network at once, each product still one BLAS call per network,
    so every network is bit for bit the one trained alone (at 10,000 + 10,000 Adult rows on one thread
    2.51 → 2.24 s for the five folds).
    """

    def __init__(self, hidden: int = 100, max_iter: int = 300, random_state: int = 0):
        self.hidden = hidden
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_iter_ = 0

    def fit(self, features: np.ndarray, labels: np.ndarray) -> DetectionMLP:
        """Train on ``features`` (n, d) float32/float64 and ``labels`` (n,) in {0, 1}."""
        fit_together([self], features, labels, [np.arange(len(labels))])
        return self

    def predict_proba(self, features: np.ndarray) -> np.ndarray:
        """Columns P(label 0), P(label 1), in the features' precision."""
        p = _forward(features, self._params)
        return np.hstack([1 - p, p])


def fit_together(models: list[DetectionMLP], features: np.ndarray, labels: np.ndarray,
                 rows: list[np.ndarray], widen: Callable[[], int] | None = None) -> None:
    """Fit ``models[i]`` on ``features[rows[i]]`` and ``labels[rows[i]]``, each exactly as its own fit would.

    Each is fitted exactly as its own :meth:`DetectionMLP.fit` would, the networks stacked and trained in lockstep.

    D-MLP trains one network per cross-validation fold. Per batch, each network's products are a few
    microseconds of arithmetic surrounded by about twenty array operations on 200 × 100 values; stacked,
    one operation serves every network (each product is still its own BLAS call on the same operands, so
    every value is bit for bit that of the network trained alone; tests/metrics/test_mlp.py checks it), and
    one thread keeps every core but one free for other work, without the networks' threads contending for
    the interpreter. Networks train together where their training parts have the same size (the same
    batches and steps); a network leaves the stack when it stops early.

    Parameters
    ----------
    models : list of DetectionMLP
        Networks with the same ``hidden`` and ``max_iter``; their seeds may differ.
    features : numpy.ndarray
        (n, d) float32 or float64, shared by all (never copied whole).
    labels : numpy.ndarray
        (n,) in {0, 1}.
    rows : list of numpy.ndarray
        Each network's training rows (indices into ``features``).
    widen : callable, optional
        Asked between epochs how many threads the networks may use now (default: one); where it grants more,
        the stack is split among that many threads for the rest of the training. The networks do not change.
    """
    if len({(m.hidden, m.max_iter) for m in models}) > 1:
        raise ValueError("networks trained together need the same hidden layer and iteration limit")
    starts = [_start(model, features, labels, own) for model, own in zip(models, rows)]
    by_size: dict[int, list[_Network]] = {}
    for network in starts:
        by_size.setdefault(len(network.train), []).append(network)
    for networks in by_size.values():
        _train_stack(networks, features, labels, models[0].hidden, models[0].max_iter, widen)
    for model, network in zip(models, starts):
        model.n_iter_ = network.n_iter
        model._params = _views(network.best, network.shapes)


class _Network:
    """One network's state before and after training.

    Its random stream, its split (indices into the shared features), its initial and best parameters.
    """

    def __init__(self, rng, flat, shapes, train, validation, validation_labels):
        self.rng, self.flat, self.shapes = rng, flat, shapes
        self.train, self.validation, self.validation_labels = train, validation, validation_labels
        self.best, self.best_score, self.stalled, self.n_iter = flat.copy(), -np.inf, 0, 0


def _start(model: DetectionMLP, features, labels, own_rows) -> _Network:
    """The network's initial weights and its early-stopping split, drawn from its seed as scikit-learn does."""
    rng = np.random.RandomState(model.random_state)
    dtype = features.dtype
    weights, biases = [], []
    for fan_in, fan_out in ((features.shape[1], model.hidden), (model.hidden, 1)):
        bound = np.sqrt(6.0 / (fan_in + fan_out))  # Glorot, factor 6 for a ReLU network
        weights.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(dtype, copy=False))
        biases.append(rng.uniform(-bound, bound, fan_out).astype(dtype, copy=False))
    # scikit-learn binarises the labels to a boolean column and stratifies the split on it. Stratified on
    # the labels as a vector: the same classes in the same order, so the same split as scikit-learn's
    # column, without its multilabel path (which joins every row's labels into a string: 0.7 s per fold at
    # 100,000 + 100,000 rows). The split's positions depend on the labels and the random stream only, so
    # splitting the row indices gives the rows scikit-learn's split of the arrays would.
    own_rows = np.asarray(own_rows)
    target = np.asarray(labels)[own_rows].astype(bool)
    train, validation = train_test_split(own_rows, random_state=rng, test_size=VALIDATION_FRACTION,
                                         stratify=target)
    shapes = [w.shape for w in weights] + [b.shape for b in biases]
    flat = np.concatenate([a.ravel() for a in weights + biases])
    return _Network(rng, flat, shapes, train, np.asarray(features)[validation],
                    np.asarray(labels)[validation].astype(bool))


def _train_stack(networks: list[_Network], features, labels, hidden: int, max_iter: int, widen=None) -> None:
    """Train networks with training parts of one size in lockstep (see :func:`fit_together`)."""
    n_train = len(networks[0].train)
    # Parameters and Adam's moments: one row per network, each row in scikit-learn's order (coefs, then
    # intercepts), so Adam updates all of them in a handful of array operations, elementwise the same
    # arithmetic.
    flat = np.stack([net.flat for net in networks])
    state = _StackState(list(networks), flat, np.zeros_like(flat), np.zeros_like(flat),
                        [np.arange(n_train, dtype=int) for _ in networks], step=0)
    _continue_stack(state, features, np.asarray(labels).astype(bool), hidden, max_iter, widen)


class _StackState:
    """Where a stack's training stands between epochs.

    Its networks, their parameters and Adam's moments (one row each), each network's running order of its training rows,
    and the step count (the same for all: they started together).
    """

    def __init__(self, active, flat, first_moment, second_moment, orders, step):
        self.active, self.flat, self.first_moment, self.second_moment = active, flat, first_moment, second_moment
        self.orders, self.step = orders, step

    def part(self, keep: list[int]) -> _StackState:
        """The state of the networks at positions ``keep`` (copies of their rows)."""
        return _StackState([self.active[i] for i in keep], self.flat[keep], self.first_moment[keep],
                           self.second_moment[keep], [self.orders[i] for i in keep], self.step)


def _continue_stack(state: _StackState, features, target, hidden: int, max_iter: int, widen=None) -> None:
    """Train a stack's networks on from ``state`` until each stops early or reaches ``max_iter`` epochs.

    ``widen``: None, or a callable asked between epochs how many threads the stack may use now (D-MLP beside
    the other metrics gets one, and more once they are done). Where it grants more, the stack's networks are
    dealt to that many stacks, each trained on by a thread of its own: every network's state moves with it,
    so it trains exactly as it would on one thread.
    """
    n_train, d = len(state.active[0].train), features.shape[1]
    batch = min(BATCH_SIZE, n_train)
    while state.active[0].n_iter < max_iter:
        threads = min(widen(), len(state.active)) if widen is not None else 1
        if threads > 1:
            parts = [state.part(list(range(i, len(state.active), threads))) for i in range(threads)]
            with ThreadPoolExecutor(max_workers=threads - 1) as pool:
                jobs = [pool.submit(_continue_stack, part, features, target, hidden, max_iter) for part in parts[1:]]
                _continue_stack(parts[0], features, target, hidden, max_iter)
                for job in jobs:
                    job.result()
            return
        active, flat = state.active, state.flat
        count = len(active)
        grad = np.empty_like(flat)
        buffers = (np.empty(flat.shape, dtype=np.float64), np.empty_like(flat))
        params, grads = _stacked_views(flat, hidden, d), _stacked_views(grad, hidden, d)
        x_batch = np.empty((count, batch, d), dtype=features.dtype)
        y_batch = np.empty((count, batch, 1), dtype=bool)
        # This epoch's order of each network's training rows, as rows of the shared features.
        epoch_rows = np.empty((count, n_train), dtype=np.intp)
        for i, net in enumerate(active):
            state.orders[i] = shuffle(state.orders[i], random_state=net.rng)
            np.take(net.train, state.orders[i], out=epoch_rows[i], mode="clip")
        for start in range(0, n_train, batch):
            size = min(batch, n_train - start)
            state.step += 1
            chosen = epoch_rows[:, start : start + size]
            x, y = x_batch[:, :size], y_batch[:, :size]
            # mode="clip": the positions are valid, and the default ("raise") writes through a buffer (2.5x slower).
            np.take(features, chosen, axis=0, out=x, mode="clip")
            np.take(target, chosen, out=y[..., 0], mode="clip")
            _gradients(x, y, params, grads)
            _adam_step(flat, grad, state.first_moment, state.second_moment, state.step, buffers)
        still = []
        for i, net in enumerate(active):
            net.n_iter += 1
            score = _accuracy(net.validation, net.validation_labels, _views(flat[i], net.shapes))
            net.stalled = net.stalled + 1 if score < net.best_score + TOL else 0
            if score > net.best_score:
                net.best_score = score
                net.best = flat[i].copy()
            if net.stalled <= N_ITER_NO_CHANGE:
                still.append(i)
        if not still:
            return
        if len(still) < count:  # networks that stopped leave the stack
            state = state.part(still)


def _stacked_views(flat, hidden, d):
    """Views ``w1``, ``w2``, ``b1``, ``b2`` of the stacked flat parameters (k, P).

    ``w1`` (k, d, hidden), ``w2`` (k, hidden, 1), ``b1`` (k, 1, hidden), ``b2`` (k, 1, 1): the per-network shapes with a
    leading network axis, biases broadcast over rows.
    """
    k, sizes = len(flat), (d * hidden, hidden, hidden, 1)
    bounds = np.cumsum((0,) + sizes)
    shapes = ((k, d, hidden), (k, hidden, 1), (k, 1, hidden), (k, 1, 1))
    return [flat[:, lo:hi].reshape(shape) for lo, hi, shape in zip(bounds[:-1], bounds[1:], shapes)]


def _gradients(x, y, params, grads):
    """Back-propagation of one batch per network into ``grads`` (views of the stacked flat gradients).

    ``x`` (k, n, d), ``y`` (k, n, 1) boolean. Every product is one BLAS call per network, as unstacked.
    """
    w1, w2, b1, b2 = params
    grad_w1, grad_w2, grad_b1, grad_b2 = grads
    n = x.shape[1]
    hidden = np.matmul(x, w1)
    hidden += b1
    np.maximum(hidden, 0, out=hidden)
    output = np.matmul(hidden, w2)
    output += b2
    expit(output, out=output)
    delta_out = output - y
    np.matmul(hidden.transpose(0, 2, 1), delta_out, out=grad_w2)
    grad_w2 += ALPHA * w2
    grad_w2 /= n
    _mean_over_rows(delta_out, grad_b2)
    # delta_out @ w2.T has an inner dimension of 1: a plain product gives the same values, faster.
    delta_hidden = np.multiply(delta_out, w2.transpose(0, 2, 1))
    np.multiply(delta_hidden, hidden > 0, out=delta_hidden)  # ReLU derivative
    np.matmul(x.transpose(0, 2, 1), delta_hidden, out=grad_w1)
    grad_w1 += ALPHA * w1
    grad_w1 /= n
    _mean_over_rows(delta_hidden, grad_b1)


def _mean_over_rows(values, out):
    """``np.mean(values, 1, out=out, keepdims=True)`` by numpy's own two steps, without their bookkeeping.

    The two steps are a sum along the rows, then a division by the count as a ``numpy.intp``, so in float64, rounded
    once into ``out``; the bookkeeping around them, left out here, takes about a third of its time on a batch.
    """
    np.add.reduce(values, 1, out=out, keepdims=True)
    np.true_divide(out, np.intp(values.shape[1]), out=out, casting="unsafe")


def _adam_step(params, grads, m, v, step, buffers):
    """scikit-learn's AdamOptimizer update, in place on the flat arrays.

    ``m = β1·m + (1 − β1)·g``, ``v = β2·v + (1 − β2)·g²``, ``p += −rate·m / (√v + ε)``. The rate is a float64 scalar, so
    (as there) the update is formed in float64 and rounded once into ``p``; ``buffers`` (a float64 and a parameter-dtype
    array) keep the step from allocating.
    """
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
