"""Statistics core shared by every attack-based evaluation.

Rates follow Anonymeter (Giomi et al. 2023, PoPETs; ``anonymeter.stats.confidence``) exactly, so that the
published reference values are reproduced to the last digit. ROC curves and AUC live in :mod:`privcore.base.roc`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

# scipy.stats is imported inside the functions that use its quantiles: it costs about 0.4 s at start-up, and
# this module is imported (for its result types) by every evaluation, most of which never call them.

__all__ = [
    "SuccessRate",
    "Risk",
    "AttackResult",
    "BootstrapInterval",
    "probit",
    "success_rate",
    "residual_risk",
    "clip_risk",
    "residual_risk_clipped",
    "bootstrap_interval",
    "bootstrap_replicates",
    "percentile_interval",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "BASELINE_WARNING",
    "CONTROL_WARNING",
]

#: Warning shown when the main attack is not better than the baseline (random-guessing) attack.
BASELINE_WARNING = (
    "The main attack did not beat the baseline random-guessing attack (main success rate {main:.3f}, "
    "baseline {baseline:.3f}), so these results cannot be trusted: the attacker learnt nothing from the "
    "synthetic data that guessing does not give. Try more attacks, other auxiliary columns, or check the data."
)

#: Warning shown when the control attack always succeeds (the residual risk is then undefined).
CONTROL_WARNING = (
    "The control attack (against the holdout) succeeded every time, so the residual privacy risk "
    "cannot be measured."
)


@dataclass(frozen=True)
class SuccessRate:
    """Estimate of an attack's success rate (or of a risk) with a symmetric error.

    Parameters
    ----------
    value : float
        Best estimate.
    error : float
        Half-width of the confidence interval at the confidence level it was computed for.
    """

    value: float
    error: float

    @property
    def interval(self) -> tuple[float, float]:
        """``(value - error, value + error)`` clipped to ``[0, 1]``."""
        return clip_risk(self).interval

    def to_risk(self) -> "Risk":
        """The value and interval clipped to ``[0, 1]`` (see :func:`clip_risk`)."""
        return clip_risk(self)

    def __iter__(self):  # allows ``value, error = rate``
        yield self.value
        yield self.error


@dataclass(frozen=True)
class Risk:
    """A privacy risk in ``[0, 1]`` with its (possibly asymmetric after clipping) interval.

    Parameters
    ----------
    value : float
        Point estimate, clipped to ``[0, 1]``.
    interval : tuple of float
        ``(low, high)``, each clipped to ``[0, 1]``.
    """

    value: float
    interval: tuple[float, float]

    def __iter__(self):  # allows ``value, (low, high) = risk``
        yield self.value
        yield self.interval


def probit(confidence: float) -> float:
    r"""Two-sided normal quantile for a confidence level.

    .. math:: z = \Phi^{-1}\left(\tfrac{1 + c}{2}\right)

    ``probit(0) == 0`` exactly, ``probit(0.95) ≈ 1.96``.
    """
    _check_confidence(confidence)
    from scipy.stats import norm  # imported here: see the note on scipy.stats above

    return float(norm.ppf(0.5 * (1.0 + confidence)))


def _check_confidence(confidence: float) -> None:
    if not (0.0 <= confidence < 1.0) or math.isnan(confidence):
        raise ValueError(f"confidence must be in [0, 1), got {confidence!r}.")


def success_rate(n_success: float, n_total: int, confidence: float = 0.95) -> SuccessRate:
    r"""Wilson-score estimate of a Bernoulli success rate.

    With :math:`k` successes out of :math:`n` attacks and :math:`z` = :func:`probit` of the
    confidence level,

    .. math::

        \hat p = \frac{k + z^2/2}{n + z^2}, \qquad
        \Delta = \frac{z}{n + z^2}\sqrt{\frac{k(n-k)}{n} + \frac{z^2}{4}} .

    The centre is a weighted mean of :math:`k/n` and 1/2; with ``confidence=0`` (:math:`z = 0`)
    it is exactly :math:`k/n` with zero error. The operations are those of Anonymeter's
    ``success_rate``, so results agree bit for bit (e.g. 23 of 100 at 0.95 gives
    ``0.23998824451588613 ± 0.08155558571285167``).

    Parameters
    ----------
    n_success : float
        Number of successful attacks, ``0 <= n_success <= n_total``. It may be fractional (the
        size-corrected control count of singling out is).
    n_total : int
        Number of attacks, ``> 0``.
    confidence : float, default 0.95
        Confidence level of the error, in ``[0, 1)``.

    Returns
    -------
    SuccessRate
        ``value`` = :math:`\hat p`, ``error`` = :math:`\Delta`.

    References
    ----------
    E. B. Wilson, "Probable inference, the law of succession, and statistical inference",
    JASA 22, 209-212 (1927).
    """
    if n_total is None or n_total <= 0:
        raise ValueError(f"n_total must be positive, got {n_total!r}.")
    if not (0 <= n_success <= n_total):
        raise ValueError(f"n_success must be between 0 and n_total={n_total}, got {n_success!r}.")
    z = probit(confidence)

    z_squared = z * z
    n_success_var = n_success * (n_total - n_success) / n_total
    denominator = n_total + z_squared

    rate = (n_success + 0.5 * z_squared) / denominator
    error = (z / denominator) * math.sqrt(n_success_var + 0.25 * z_squared)
    return SuccessRate(value=float(rate), error=float(error))


def residual_risk(main: SuccessRate, control: SuccessRate) -> SuccessRate:
    r"""Excess success of the main attack over the control attack (not clipped).

    .. math::

        R = \frac{p_m - p_c}{1 - p_c}, \qquad
        \Delta R = \sqrt{\left(\frac{\Delta p_m}{|1 - p_c|}\right)^2
                        + \left(\frac{(p_m - 1)\,\Delta p_c}{(1 - p_c)^2}\right)^2}

    (first-order propagation of the two independent errors, as Anonymeter's
    ``residual_success``). :math:`R` is negative when the control records are easier to attack
    than the training records; :func:`clip_risk` maps it to ``[0, 1]``.

    Parameters
    ----------
    main : SuccessRate
        Success rate of the attack on the training (real) records.
    control : SuccessRate
        Success rate of the same attack on the control (holdout) records.

    Returns
    -------
    SuccessRate
        The residual risk and its propagated error. If ``control.value == 1`` the residual is
        undefined and both fields are NaN.
    """
    if control.value >= 1.0:
        return SuccessRate(value=float("nan"), error=float("nan"))
    residual = (main.value - control.value) / (1.0 - control.value)

    der_wrt_main = 1 / abs(1 - control.value)
    der_wrt_control = (main.value - 1) / (1 - control.value) ** 2

    error = math.sqrt((main.error * der_wrt_main) ** 2 + (control.error * der_wrt_control) ** 2)
    return SuccessRate(value=float(residual), error=float(error))


def clip_risk(rate: SuccessRate) -> Risk:
    r"""Clip a value and its symmetric interval to ``[0, 1]``.

    .. math::

        v' = \min(\max(v, 0), 1), \quad
        [\,\min(\max(v - \Delta, 0), 1),\ \min(\max(v + \Delta, 0), 1)\,]

    (Anonymeter's ``bind_value``). NaN stays NaN.
    """

    def _clip(x: float) -> float:
        return x if math.isnan(x) else min(max(x, 0.0), 1.0)

    return Risk(
        value=_clip(rate.value),
        interval=(_clip(rate.value - rate.error), _clip(rate.value + rate.error)),
    )


def residual_risk_clipped(main: SuccessRate, control: SuccessRate) -> Risk:
    """:func:`residual_risk` followed by :func:`clip_risk`."""
    return clip_risk(residual_risk(main, control))


@dataclass(frozen=True)
class AttackResult:
    r"""Counts of an attack evaluation and everything derived from them.

    An evaluation runs three attacks with the same budget: the *main* attack (synthetic data used
    against the real training records), the *baseline* attack (an attacker who guesses at random,
    without using the synthetic data) and, when a holdout is given, the *control* attack (the main
    attack's procedure against holdout records that were not used for training).

    Risk (:meth:`risk`):

    * with a control: :math:`\mathrm{clip}\left(\frac{p_m - p_c}{1 - p_c}\right)` with its
      propagated interval;
    * without: the main attack's Wilson rate, clipped.

    Parameters
    ----------
    n_main, n_main_total : float, int
        Successes and attempts of the main attack.
    n_baseline, n_baseline_total : float, int
        Successes and attempts of the baseline attack.
    n_control, n_control_total : float or None, int or None
        Successes and attempts of the control attack (``None`` without a holdout).
    confidence : float, default 0.95
        Default confidence level for rates, risk and warnings.
    """

    n_main: float
    n_main_total: int
    n_baseline: float
    n_baseline_total: int
    n_control: float | None = None
    n_control_total: int | None = None
    confidence: float = 0.95

    def __post_init__(self):
        _check_confidence(self.confidence)
        if (self.n_control is None) != (self.n_control_total is None):
            raise ValueError("n_control and n_control_total must both be given or both be None.")

    def _c(self, confidence: float | None) -> float:
        return self.confidence if confidence is None else confidence

    @property
    def has_control(self) -> bool:
        """Whether a control (holdout) attack was run."""
        return self.n_control is not None

    def main_rate(self, confidence: float | None = None) -> SuccessRate:
        """Wilson rate of the main attack."""
        return success_rate(self.n_main, self.n_main_total, self._c(confidence))

    def baseline_rate(self, confidence: float | None = None) -> SuccessRate:
        """Wilson rate of the baseline (random-guessing) attack."""
        return success_rate(self.n_baseline, self.n_baseline_total, self._c(confidence))

    def control_rate(self, confidence: float | None = None) -> SuccessRate | None:
        """Wilson rate of the control attack, or ``None`` without a holdout."""
        if not self.has_control:
            return None
        return success_rate(self.n_control, self.n_control_total, self._c(confidence))

    def residual(self, confidence: float | None = None) -> SuccessRate | None:
        """Unclipped residual risk (:func:`residual_risk`), or ``None`` without a holdout."""
        if not self.has_control:
            return None
        return residual_risk(self.main_rate(confidence), self.control_rate(confidence))

    def risk(self, confidence: float | None = None, baseline: bool = False) -> Risk:
        """Privacy risk in ``[0, 1]`` with its interval.

        Parameters
        ----------
        confidence : float, optional
            Confidence level; defaults to the one the result was created with.
        baseline : bool, default False
            Return the baseline attack's rate (clipped) instead.
        """
        if baseline:
            return clip_risk(self.baseline_rate(confidence))
        if not self.has_control:
            return clip_risk(self.main_rate(confidence))
        return clip_risk(self.residual(confidence))

    def warnings(self, confidence: float | None = None) -> list[str]:
        """Plain-language warnings about the validity of the result."""
        out = []
        main, base = self.main_rate(confidence), self.baseline_rate(confidence)
        if base.value >= main.value:
            out.append(BASELINE_WARNING.format(main=main.value, baseline=base.value))
        control = self.control_rate(confidence)
        if control is not None and control.value >= 1.0:
            out.append(CONTROL_WARNING)
        return out

    def to_dict(self, confidence: float | None = None) -> dict:
        """Counts, rates (value, error), residual and risk as plain Python values."""
        c = self._c(confidence)

        def _rate(r: SuccessRate | None):
            return None if r is None else {"value": r.value, "error": r.error}

        risk = self.risk(c)
        return {
            "confidence": c,
            "n_main": self.n_main,
            "n_main_total": self.n_main_total,
            "n_baseline": self.n_baseline,
            "n_baseline_total": self.n_baseline_total,
            "n_control": self.n_control,
            "n_control_total": self.n_control_total,
            "main": _rate(self.main_rate(c)),
            "baseline": _rate(self.baseline_rate(c)),
            "control": _rate(self.control_rate(c)),
            "residual": _rate(self.residual(c)),
            "risk": risk.value,
            "interval": list(risk.interval),
            "warnings": self.warnings(c),
        }


@dataclass(frozen=True)
class BootstrapInterval:
    """Result of :func:`bootstrap_interval`.

    Parameters
    ----------
    value : float
        The statistic on the original data.
    interval : tuple of float
        Percentile interval ``(low, high)``.
    confidence : float
        Confidence level of the interval.
    n_boot : int
        Number of bootstrap replicates drawn.
    n_failed : int
        Replicates whose statistic was NaN (e.g. a resample with one class only); they are left
        out of the percentiles.
    samples : numpy.ndarray
        The replicate values (for plots).
    """

    value: float
    interval: tuple[float, float]
    confidence: float
    n_boot: int
    n_failed: int = 0
    samples: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False, compare=False)


def bootstrap_interval(
    statistic: Callable[..., float | np.ndarray],
    *arrays: Sequence | np.ndarray,
    n_boot: int = 1000,
    seed: int | np.random.Generator | None = 0,
    confidence: float = 0.95,
    vectorized: bool = False,
    strata: Sequence | np.ndarray | None = None,
    max_chunk_elements: int = 4_000_000,
) -> BootstrapInterval:
    r"""Seeded percentile-bootstrap interval of a statistic of one or more paired arrays.

    Each replicate draws :math:`n` row positions with replacement (within each stratum when
    ``strata`` is given, which keeps group sizes fixed -- use it with the member/non-member
    labels of a membership-inference attack) and applies the *same* positions to every array.
    The interval is

    .. math:: \left[\,q_{(1-c)/2}(\theta^*),\ q_{(1+c)/2}(\theta^*)\,\right]

    of the replicate values :math:`\theta^*` (linear interpolation between order statistics).

    Parameters
    ----------
    statistic : callable
        ``statistic(*arrays) -> float``. With ``vectorized=True`` it receives arrays with an extra
        leading axis of replicates (shape ``(b, n, ...)``) and must return ``b`` values; this is
        much faster for statistics that numpy can batch (means, rank-based AUC, ...).
    *arrays : array-like
        One or more arrays of equal length ``n`` along the first axis.
    n_boot : int, default 1000
        Number of replicates.
    seed : int, numpy.random.Generator or None, default 0
        Seed of the resampling; equal seeds give equal intervals (in either mode). A Generator is
        used as it is (and advanced), for callers that draw several bootstraps from one stream.
    confidence : float, default 0.95
        Coverage of the interval.
    vectorized : bool, default False
        See ``statistic``.
    strata : array-like, optional
        Group label of each row; rows are resampled within their group.
    max_chunk_elements : int
        Upper bound on ``replicates x n`` indices held in memory at once.

    Returns
    -------
    BootstrapInterval
    """
    arrs = _bootstrap_arrays(arrays)
    _check_confidence(confidence)
    value = float(statistic(*(a[None, ...] for a in arrs))[0]) if vectorized else float(statistic(*arrs))
    samples = bootstrap_replicates(statistic, *arrs, n_boot=n_boot, seed=seed, vectorized=vectorized, strata=strata,
                                   max_chunk_elements=max_chunk_elements)
    return BootstrapInterval(
        value=value,
        interval=percentile_interval(samples, confidence),
        confidence=confidence,
        n_boot=n_boot,
        n_failed=int(np.isnan(samples).sum()),
        samples=samples,
    )


def _bootstrap_arrays(arrays: Sequence) -> list[np.ndarray]:
    if not arrays:
        raise ValueError("bootstrap_interval needs at least one array.")
    arrs = [np.asarray(a) for a in arrays]
    n = arrs[0].shape[0]
    if n == 0 or any(a.shape[0] != n for a in arrs):
        raise ValueError("bootstrap_interval needs non-empty arrays of equal length.")
    return arrs


def bootstrap_replicates(
    statistic: Callable[..., float | np.ndarray],
    *arrays: Sequence | np.ndarray,
    n_boot: int = 1000,
    seed: int | np.random.Generator | None = 0,
    vectorized: bool = False,
    strata: Sequence | np.ndarray | None = None,
    max_chunk_elements: int = 4_000_000,
    threads: int = 1,
) -> np.ndarray:
    """The replicate values of a seeded bootstrap (the draws behind :func:`bootstrap_interval`).

    Replicates are drawn in chunks of at most ``max_chunk_elements // n``; within a chunk of ``b``
    replicates, each stratum (in the sorted order of the ``strata`` labels) draws its ``(b, size)``
    positions with ``rng.integers`` in turn, so equal seeds, strata and chunks give equal resamples.

    Parameters
    ----------
    statistic, *arrays, n_boot, seed, vectorized, strata, max_chunk_elements
        As for :func:`bootstrap_interval`. The statistic may return several values per replicate (shape
        ``(b, k)`` when vectorized, a length-``k`` array otherwise): one pass then gives the replicates of
        ``k`` statistics of the same resamples.
    threads : int
        Chunks whose vectorized statistic is evaluated at once on threads (numpy's array operations release
        the GIL). The positions are still drawn chunk after chunk on the calling thread, so the replicates
        are the same for every ``threads``; the statistic must not keep state between calls.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_boot,)``, or ``(n_boot, k)`` for a statistic with ``k`` values; NaN where the statistic
        was undefined on a resample.

    Examples
    --------
    >>> bootstrap_replicates(lambda a: a.mean(axis=-1), np.array([1.0, 1.0]), n_boot=3, vectorized=True).tolist()
    [1.0, 1.0, 1.0]
    """
    arrs = _bootstrap_arrays(arrays)
    if n_boot < 1:
        raise ValueError(f"n_boot must be positive, got {n_boot!r}.")
    n = arrs[0].shape[0]
    if strata is None:
        groups = [np.arange(n)]
    else:
        strata_arr = np.asarray(strata)
        if strata_arr.shape[0] != n:
            raise ValueError("strata must have the same length as the arrays.")
        _, inverse = np.unique(strata_arr, return_inverse=True)
        groups = [np.flatnonzero(inverse == g) for g in range(inverse.max() + 1)]

    rng = np.random.default_rng(seed)  # a Generator passes through unchanged
    chunk = max(1, min(n_boot, max_chunk_elements // max(n, 1)))
    sizes = [min(chunk, n_boot - done) for done in range(0, n_boot, chunk)]

    consecutive = [bool(g.size) and int(g[-1]) - int(g[0]) + 1 == g.size for g in groups]

    def positions(b: int) -> np.ndarray:
        # Each stratum's block of columns in turn, written in place: a stratum of consecutive rows (the members
        # then the non-members) is an offset of its draws, no gather and no concatenation (half the time).
        idx = np.empty((b, n), dtype=np.int64)
        column = 0
        for g, offset_only in zip(groups, consecutive):
            draws = rng.integers(0, g.size, size=(b, g.size))
            block = idx[:, column : column + g.size]
            if offset_only:
                np.add(draws, g[0], out=block)
            else:
                block[...] = g[draws]
            column += g.size
        return idx

    def evaluate(idx: np.ndarray) -> np.ndarray:
        b = idx.shape[0]
        if vectorized:
            vals = np.asarray(statistic(*(a[idx] for a in arrs)), dtype=float)
            if vals.ndim == 0 or vals.shape[0] != b:
                raise ValueError("A vectorized statistic must return one value per replicate.")
        else:
            vals = np.array([np.asarray(statistic(*(a[idx[j]] for a in arrs)), dtype=float) for j in range(b)])
        return vals.reshape(b) if vals.size == b else vals.reshape(b, -1)

    if threads <= 1 or not vectorized or len(sizes) < 2:
        return np.concatenate([evaluate(positions(b)) for b in sizes], axis=0)
    from concurrent.futures import ThreadPoolExecutor  # only here: most bootstraps run on one thread

    # At most ``threads`` chunks wait or run beyond the one being drawn, so memory stays a few chunks.
    parts, pending = [], []
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for b in sizes:
            pending.append(pool.submit(evaluate, positions(b)))
            if len(pending) > threads:
                parts.append(pending.pop(0).result())
        parts.extend(future.result() for future in pending)
    return np.concatenate(parts, axis=0)


def percentile_interval(samples: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The ``(1 − c)/2`` and ``(1 + c)/2`` quantiles of bootstrap replicates, NaN replicates left out.

    Parameters
    ----------
    samples : numpy.ndarray
        Replicate values of one statistic (as from :func:`bootstrap_replicates`).
    confidence : float
        Coverage ``c`` of the interval.

    Returns
    -------
    tuple of float
        ``(low, high)`` by linear interpolation between order statistics; ``(nan, nan)`` when every
        replicate is NaN.

    Examples
    --------
    >>> percentile_interval(np.arange(101.0), 0.5)
    (25.0, 75.0)
    """
    _check_confidence(confidence)
    samples = np.asarray(samples, dtype=float)
    ok = samples[~np.isnan(samples)]
    if ok.size == 0:
        return float("nan"), float("nan")
    low, high = np.quantile(ok, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(low), float(high)


def clopper_pearson_lower(successes: int, trials: int, confidence: float = 0.95) -> float:
    """One-sided Clopper–Pearson lower bound of a binomial proportion (0 when there is no success).

    Examples
    --------
    >>> round(clopper_pearson_lower(10, 10), 6)  # 0.05 ** (1 / 10)
    0.741134
    >>> clopper_pearson_lower(0, 10)
    0.0
    """
    _check_confidence(confidence)
    if trials <= 0 or successes <= 0:
        return 0.0
    from scipy.stats import beta  # imported here: see the note on scipy.stats above

    return float(beta.ppf(1 - confidence, successes, trials - successes + 1))


def clopper_pearson_upper(successes: int, trials: int, confidence: float = 0.95) -> float:
    """One-sided Clopper–Pearson upper bound of a binomial proportion (1 when every trial succeeded).

    Examples
    --------
    >>> round(clopper_pearson_upper(0, 10), 6)  # 1 − 0.05 ** (1 / 10)
    0.258866
    """
    _check_confidence(confidence)
    if trials <= 0 or successes >= trials:
        return 1.0
    from scipy.stats import beta  # imported here: see the note on scipy.stats above

    return float(beta.ppf(confidence, successes + 1, trials - successes))


def epsilon_lower_bound(true_positives: int, positives: int, false_positives: int, negatives: int, *,
                        delta: float = 0.0, confidence: float = 0.95) -> float:
    """The smallest ε that an (ε, δ)-differentially private mechanism would need to allow this test.

    Any (ε, δ)-DP mechanism bounds every membership test: TPR ≤ e^ε·FPR + δ and 1 − FPR ≤ e^ε·(1 − TPR) + δ.
    With the one-sided ``confidence`` Clopper–Pearson lower bound of TPR and upper bound of FPR,
    ``ε ≥ max(0, ln((TPR_lo − δ)/FPR_hi), ln((1 − FPR_hi − δ)/(1 − TPR_lo)))`` (metrics.md §3).

    Parameters
    ----------
    true_positives, positives : int
        Members the test flags, and members tested.
    false_positives, negatives : int
        Non-members it flags, and non-members tested.
    delta : float
        The δ of the DP claim (default 0).
    confidence : float
        Confidence of each one-sided bound.

    Examples
    --------
    A perfect test on 10 members and 10 non-members rules out ε below ln(0.741134 / 0.258866):

    >>> round(epsilon_lower_bound(10, 10, 0, 10), 4)
    1.0519
    >>> epsilon_lower_bound(5, 10, 5, 10)  # a coin flip rules nothing out
    0.0
    """
    tpr_low = clopper_pearson_lower(true_positives, positives, confidence)
    fpr_high = clopper_pearson_upper(false_positives, negatives, confidence)
    bounds = [0.0]
    if tpr_low - delta > 0 and fpr_high > 0:
        bounds.append(math.log((tpr_low - delta) / fpr_high))
    if 1 - fpr_high - delta > 0 and tpr_low < 1:
        bounds.append(math.log((1 - fpr_high - delta) / (1 - tpr_low)))
    return max(bounds)


def epsilon_words(bound: float) -> str:
    """An ε lower bound as every text writes it: two significant digits, rounded down, never up.

    A lower bound rounded up would claim more than was shown (1.66 written "1.7" rules out generators with ε = 1.65,
    which the attack did not); rounded down to one decimal, 0.04 would read "0.0" and say nothing. The answer, the
    Membership tab, the HTML report and the JSON texts all write the bound with this function, so they agree.

    Examples
    --------
    >>> epsilon_words(1.66), epsilon_words(2.14), epsilon_words(0.0412), epsilon_words(12.6), epsilon_words(2.3)
    ('1.6', '2.1', '0.041', '12', '2.3')
    >>> epsilon_words(0.04), epsilon_words(2.04), epsilon_words(0.0), epsilon_words(-1.0)
    ('0.04', '2', '0', '0')
    """
    value = float(bound)
    if not value > 0 or not math.isfinite(value):
        return "0" if not value > 0 else f"{value:g}"
    exponent = math.floor(math.log10(value))
    decimals = max(0, 1 - exponent)
    scale = 10.0 ** (1 - exponent)
    # A tiny allowance: 2.3 is 22.999999999999996 tenths in binary, and must not be written 2.2.
    floored = math.floor(value * scale * (1 + 1e-12)) / scale
    text = f"{floored:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def holm_adjust(p_values) -> np.ndarray:
    """Holm's step-down adjustment of p-values for testing several hypotheses at once.

    The ``i``-th smallest p-value (1-based) is multiplied by ``m − i + 1``, then made non-decreasing in
    that order and capped at 1 (Holm 1979); rejecting where the adjusted value is ≤ α keeps the chance of
    any false rejection ≤ α whatever the dependence between the tests.

    Examples
    --------
    >>> holm_adjust([0.01, 0.04, 0.03]).tolist()  # 0.01·3, then max(0.03·2, 0.03), then max(0.04·1, 0.06)
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=float)
    m = len(p)
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = scaled
    return out
