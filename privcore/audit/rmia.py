"""RMIA on the shared audit's models.

Each record's closeness to a target output, calibrated on the shadow models and compared with population records
(Zarifzadeh et al., ICML 2024, "Low-Cost High-Power Membership Inference Attacks").
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp
from scipy.stats import rankdata

from privcore.audit.crossfit import model_folds

__all__ = ["BANDWIDTH_FLOOR", "GAMMA", "bandwidth", "log_signal", "pairwise_scores", "rmia_against", "rmia_scores"]

#: RMIA's threshold on the pairwise likelihood ratio LR(x)/LR(z): the paper's default of 1 (x beats z), which
#: :func:`pairwise_scores` computes as a rank.
GAMMA = 1.0
#: Smallest kernel bandwidth: a pool of exact copies (every distance 0) must not divide by zero.
BANDWIDTH_FLOOR = 1e-6


def bandwidth(distances: np.ndarray) -> float:
    """The kernel's bandwidth: the median nearest-row distance in ``distances`` (shape (..., K)), floored.

    Examples
    --------
    >>> bandwidth(np.array([[[0.5, 2.0]], [[1.5, 3.0]], [[1.0, 9.0]]]))
    1.0
    """
    return max(float(np.median(distances[..., 0])), BANDWIDTH_FLOOR)


def log_signal(distances: np.ndarray, h: float) -> np.ndarray:
    """``log p(x | θ)``: the log of the mean Laplace kernel over the K nearest synthetic rows (see the notes).

    Parameters
    ----------
    distances : numpy.ndarray
        Shape (..., K): each record's distances to its K nearest synthetic rows.
    h : float
        The bandwidth (:func:`bandwidth`).

    Returns
    -------
    numpy.ndarray
        Shape (...): at most 0 (every neighbour an exact copy).

    Examples
    --------
    >>> float(log_signal(np.array([0.0, 0.0]), 1.0)), round(float(log_signal(np.array([1.0, 1.0]), 1.0)), 6)
    (0.0, -1.0)
    """
    return logsumexp(-np.asarray(distances, dtype=float) / h, axis=-1) - math.log(distances.shape[-1])


def pairwise_scores(log_lr: np.ndarray) -> np.ndarray:
    """RMIA's score of every record on one target model, from the records' ``log LR`` on that model.

    The score is the share of the *other* records z with ``LR(x)/LR(z) > γ`` (ties ½).

    Examples
    --------
    >>> pairwise_scores(np.array([0.0, 2.0, 1.0, 1.0])).tolist()
    [0.0, 1.0, 0.5, 0.5]
    """
    log_lr = np.asarray(log_lr, dtype=float)
    n = log_lr.shape[-1]
    if n < 2:
        return np.full(log_lr.shape, 0.5)
    # γ = 1: x beats z when log LR(x) > log LR(z), so the score is x's average rank among the records, less itself.
    return (rankdata(log_lr, axis=-1) - 1.0) / (n - 1)


def _log_reference(log_p: np.ndarray, membership: np.ndarray, shadows: np.ndarray) -> np.ndarray:
    """``log Pr(x)`` for every record; shape (records,).

    Half the mean signal over the ``shadows`` trained with x, half over those without it (the mean over every shadow
    where one side is empty).
    """
    inside = membership[shadows].astype(float)
    seen = log_p[shadows]
    n_in, n_out = inside.sum(axis=0), (1.0 - inside).sum(axis=0)
    with np.errstate(divide="ignore"):
        mean_in = logsumexp(seen, b=inside, axis=0) - np.log(np.maximum(n_in, 1.0))
        mean_out = logsumexp(seen, b=1.0 - inside, axis=0) - np.log(np.maximum(n_out, 1.0))
    both = np.logaddexp(mean_in, mean_out) - math.log(2.0)
    return np.where(n_in == 0, mean_out, np.where(n_out == 0, mean_in, both))


def rmia_against(log_p: np.ndarray, membership: np.ndarray, shadows: np.ndarray,
                 scored: np.ndarray) -> np.ndarray:
    """RMIA scores (minus ½) of the models in ``scored``, each against the ``shadows`` other than itself.

    Parameters
    ----------
    log_p : numpy.ndarray
        Shape (models, records): :func:`log_signal` of every record on every model.
    membership : numpy.ndarray
        Shape (models, records); only the shadows' rows are read.
    shadows, scored : numpy.ndarray
        Boolean masks over the models. A scored model among the shadows is left out of its own reference
        (so that a classifier trained on shadow models sees scores made as the target's are).

    Returns
    -------
    numpy.ndarray
        Shape (scored models, records), in [−½, ½]; 0 where no shadow is left.
    """
    rows = np.flatnonzero(scored)
    out = np.zeros((len(rows), log_p.shape[1]))
    shared = _log_reference(log_p, membership, shadows) if not (shadows & scored).any() else None
    for j, k in enumerate(rows):
        mine = shadows.copy()
        mine[k] = False
        if not mine.any():
            continue
        reference = shared if shared is not None else _log_reference(log_p, membership, mine)
        out[j] = pairwise_scores(log_p[k] - reference) - 0.5
    return out


def rmia_scores(distances: np.ndarray, membership: np.ndarray, usable: np.ndarray, folds: int) -> np.ndarray:
    """RMIA's score of every (model, record) pair, the shadows of model k being the usable models of the other folds.

    Parameters
    ----------
    distances : numpy.ndarray
        Shape (models, records, K): distances to the K nearest synthetic rows of each model's output.
    membership : numpy.ndarray
        Shape (models, records), True where the record trained the model.
    usable : numpy.ndarray
        Shape (models,), False for failed models.
    folds : int
        Number of folds (model ``k`` in fold ``k mod folds``).

    Returns
    -------
    numpy.ndarray
        Shape (models, records): ``score − ½`` in [−½, ½] (above 0: "trained with this record"); NaN for failed
        models.

    Notes
    -----
    **The signal.** RMIA needs ``p(x | θ)``, how likely model θ makes record x. A black-box auditor has only θ's
    synthetic output S, so the signal is a kernel density of x in S over its :data:`~privcore.audit._base.NEIGHBOURS`
    nearest synthetic rows, whose distances ``d_1 ≤ … ≤ d_K`` in the space E the shared audit already holds among its
    features (:class:`privcore.audit.features.SharedFeatures`, ``distance 1..K``)::

        p(x | θ) = (1/K) · Σ_j exp(−d_j / h)

    a Laplace kernel (exact copies, ``d = 0``, count 1; far rows nearly 0). The bandwidth ``h`` is the median of the
    nearest-row distance ``d_1`` over every record and every *shadow* model (:func:`bandwidth`), so the target model's
    output does not set it; it is floored at :data:`BANDWIDTH_FLOOR`. Everything is computed in logs
    (:func:`log_signal`), so a record far from every synthetic row keeps a finite, comparable signal.

    **The reference.** For target model k and record x, the shadow models are the models of the other folds (model
    ``k`` is in fold ``k mod folds``, as in :mod:`privcore.audit.crossfit`); ``Pr(x)`` is RMIA's online
    average over them, half over the shadows trained with x and half over those trained without it (the plain
    mean over the shadows when one side has none)::

        LR_k(x) = p(x | θ_k) / Pr(x),    Pr(x) = ½ mean_{θ' ∋ x} p(x | θ') + ½ mean_{θ' ∌ x} p(x | θ')

    A record that every model reproduces well (a common profile) thus has a high ``p`` and a high ``Pr``: only what
    θ_k does *more* for it than models like it counts. The shadows' membership is known (the auditor trained them),
    the target's is never used: neither its labels nor its output enter its reference.

    **The pairwise test.** The population records ``z`` are the other records of the audited pool (people from the
    same population; about half of them trained any given model, which the attack is not told). RMIA's score is the
    share of them that x beats on the same target model::

        score_k(x) = Pr_z[ LR_k(x) / LR_k(z) > γ ],   γ = :data:`GAMMA` (ties count ½)

    so that what makes one target model reproduce everyone better (a model close to the population, a large
    output) cancels. Its scores are in [0, 1]; :func:`rmia_scores` returns ``score − ½`` so that, as for the
    other attacks of the audit, a score above 0 says "trained with this record".

    Examples
    --------
    Outputs that hold exactly their training records: on every model, each member outranks each non-member.

    >>> member = np.random.default_rng(0).random((16, 30)) < 0.5
    >>> distances = np.where(member, 0.0, 1.0)[:, :, None].repeat(2, axis=2)
    >>> scores = rmia_scores(distances, member, np.ones(16, bool), folds=2)
    >>> all(row[m].min() > row[~m].max() for row, m in zip(scores, member))
    True
    """
    scores = np.full(membership.shape, np.nan)
    for shadows, test in model_folds(usable, folds):
        if not shadows.any():
            continue
        log_p = log_signal(distances, bandwidth(distances[shadows]))
        scores[test] = rmia_against(log_p, membership, shadows, test)
    return scores
