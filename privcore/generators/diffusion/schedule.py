"""The noise schedule shared by TabDDPM's Gaussian and multinomial diffusions (numpy only, no torch)."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from types import SimpleNamespace

import numpy as np

__all__ = ["SCHEDULES", "Schedule", "cosine_betas", "linear_betas", "make_schedule"]

#: The schedules TabDDPM offers.
SCHEDULES = ("cosine", "linear")


def cosine_betas(timesteps: int, s: float = 0.008, max_beta: float = 0.999) -> np.ndarray:
    """Nichol & Dhariwal (2021), eq. 17: ᾱ(t) = cos²(((t/T + s)/(1 + s))·π/2), β_t = 1 − ᾱ(t+1)/ᾱ(t).

    Clipped at ``max_beta`` so that the last steps do not divide by a vanishing ᾱ (their §3.2).

    >>> np.round(cosine_betas(4), 4).tolist()
    [0.153, 0.417, 0.7079, 0.999]
    """
    def alpha_bar(x: float) -> float:
        return math.cos((x + s) / (1 + s) * math.pi / 2) ** 2

    return np.array([min(1 - alpha_bar((i + 1) / timesteps) / alpha_bar(i / timesteps), max_beta)
                     for i in range(timesteps)])


def linear_betas(timesteps: int, max_beta: float = 0.999) -> np.ndarray:
    """Ho et al. (2020): β from 1e−4 to 0.02 over 1,000 steps, the ends scaled by 1000/T for other T.

    Below 50 steps the scaled end passes 1; β is clipped at ``max_beta`` as the cosine schedule's is.

    >>> linear_betas(1000)[[0, -1]].tolist(), float(linear_betas(10)[-1])
    ([0.0001, 0.02], 0.999)
    """
    scale = 1000 / timesteps
    return np.minimum(np.linspace(scale * 1e-4, scale * 0.02, timesteps, dtype=np.float64), max_beta)


@dataclass(frozen=True)
class Schedule:
    """Every per-timestep constant the two diffusions read (arrays of length T, float64).

    Attributes
    ----------
    betas, alphas, alphas_cumprod, alphas_cumprod_prev :
        β_t, α_t = 1 − β_t, ᾱ_t = ∏_{s≤t} α_s, and ᾱ_{t−1} (1 at t = 0).
    log_alpha, log_1m_alpha, log_cumprod_alpha, log_1m_cumprod_alpha :
        log α_t, log(1 − α_t), log ᾱ_t, log(1 − ᾱ_t): the multinomial diffusion works in log space
        (Hoogeboom et al. 2021).
    posterior_variance, posterior_log_variance_clipped, posterior_mean_coef1, posterior_mean_coef2 :
        The Gaussian posterior q(x_{t−1} | x_t, x_0) of Ho et al. (2020), eq. 6–7: variance
        β̃_t = β_t (1 − ᾱ_{t−1})/(1 − ᾱ_t), mean coef1·x_0 + coef2·x_t. Its log is clipped at t = 0 (where
        β̃ is 0) to β̃_1, as in the reference code.
    model_log_variance :
        The reverse process's fixed variance ("fixed large" of Ho et al.: σ²_t = β_t, with β̃_1 at t = 0),
        the choice of the TabDDPM code.

    Notes
    -----
    Timesteps are indexed ``t = 0 … T−1`` as in the TabDDPM code (Kotelnikov et al. 2023, after Ho et al. 2020
    and Nichol & Dhariwal 2021): ``betas[t]`` is the variance added by step ``t`` and ``alphas_cumprod[t]`` is
    ᾱ after step ``t`` (ᾱ_{t+1} in the papers' one-based notation). Everything is computed in float64 here and
    cast to the model's float32 once, by :meth:`Schedule.to_torch`.
    """

    betas: np.ndarray
    alphas: np.ndarray
    alphas_cumprod: np.ndarray
    alphas_cumprod_prev: np.ndarray
    log_alpha: np.ndarray
    log_1m_alpha: np.ndarray
    log_cumprod_alpha: np.ndarray
    log_1m_cumprod_alpha: np.ndarray
    posterior_variance: np.ndarray
    posterior_log_variance_clipped: np.ndarray
    posterior_mean_coef1: np.ndarray
    posterior_mean_coef2: np.ndarray
    model_log_variance: np.ndarray

    @property
    def timesteps(self) -> int:
        """T, the number of diffusion steps."""
        return len(self.betas)

    def to_torch(self, device: str = "cpu") -> SimpleNamespace:
        """The same arrays as float32 torch tensors on ``device`` (torch imported here, not at module level)."""
        import torch  # lazy: optional extra privcore[tabddpm]

        return SimpleNamespace(timesteps=self.timesteps, **{
            f.name: torch.as_tensor(getattr(self, f.name), dtype=torch.float32, device=device) for f in fields(self)})


def _log_1m_exp(a: np.ndarray) -> np.ndarray:
    """log(1 − eᵃ) for a ≤ 0, accurate near 0 (where 1 − eᵃ ≈ −a)."""
    return np.log(-np.expm1(a))


def make_schedule(timesteps: int, kind: str = "cosine") -> Schedule:
    """The schedule of ``timesteps`` steps, ``"cosine"`` (TabDDPM's default) or ``"linear"``.

    >>> s = make_schedule(100)
    >>> bool(np.allclose(np.exp(s.log_cumprod_alpha), s.alphas_cumprod)), round(float(s.alphas_cumprod[-1]), 6)
    (True, 0.0)
    """
    if kind not in SCHEDULES:
        raise ValueError(f"unknown schedule {kind!r}; the schedules are {', '.join(SCHEDULES)}")
    betas = cosine_betas(timesteps) if kind == "cosine" else linear_betas(timesteps)
    alphas = 1.0 - betas
    alphas_cumprod = np.cumprod(alphas)
    prev = np.append(1.0, alphas_cumprod[:-1])
    log_alpha = np.log(alphas)
    log_cumprod_alpha = np.cumsum(log_alpha)
    posterior_variance = betas * (1.0 - prev) / (1.0 - alphas_cumprod)
    # β̃ is 0 at t = 0; its log is taken at t = 1 instead (the step t = 0 adds no noise anyway).
    clipped = np.log(np.append(posterior_variance[1], posterior_variance[1:])) if timesteps > 1 \
        else np.log(betas)
    return Schedule(
        betas=betas, alphas=alphas, alphas_cumprod=alphas_cumprod, alphas_cumprod_prev=prev,
        log_alpha=log_alpha, log_1m_alpha=_log_1m_exp(log_alpha), log_cumprod_alpha=log_cumprod_alpha,
        log_1m_cumprod_alpha=_log_1m_exp(log_cumprod_alpha),
        posterior_variance=posterior_variance, posterior_log_variance_clipped=clipped,
        posterior_mean_coef1=betas * np.sqrt(prev) / (1.0 - alphas_cumprod),
        posterior_mean_coef2=(1.0 - prev) * np.sqrt(alphas) / (1.0 - alphas_cumprod),
        model_log_variance=np.log(np.append(posterior_variance[1], betas[1:])) if timesteps > 1 else np.log(betas),
    )
