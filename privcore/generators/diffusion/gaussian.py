"""Gaussian diffusion of the numerical columns (Ho et al. 2020), as TabDDPM uses it for quantile-normalised numbers.

Every function takes the schedule as tensors (:meth:`~privcore.generators.diffusion.schedule.Schedule.to_torch`)
and the noise as an argument, never drawing random numbers itself: the caller's seeded ``torch.Generator``
draws all of them, so training, sampling and the per-record loss are reproducible.
"""

from __future__ import annotations

from types import SimpleNamespace

import torch

__all__ = ["extract", "q_sample", "q_mean_variance", "q_posterior_mean_variance", "predict_x0_from_eps",
           "p_sample", "eps_loss"]


def extract(values: torch.Tensor, t: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """``values[t]`` shaped to broadcast over ``like`` (one row per record, ones for the other dimensions)."""
    return values[t].reshape(-1, *([1] * (like.dim() - 1)))


def q_mean_variance(x0: torch.Tensor, t: torch.Tensor, s: SimpleNamespace) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean and variance of q(x_t | x_0) = N(√ᾱ_t x_0, (1 − ᾱ_t) I) (Ho et al. 2020, eq. 4)."""
    return extract(s.alphas_cumprod, t, x0).sqrt() * x0, (1.0 - extract(s.alphas_cumprod, t, x0)).expand_as(x0)


def q_sample(x0: torch.Tensor, t: torch.Tensor, noise: torch.Tensor, s: SimpleNamespace) -> torch.Tensor:
    """x_t = √ᾱ_t x_0 + √(1 − ᾱ_t) ε, a draw of q(x_t | x_0) for the given standard normal ``noise``."""
    a = extract(s.alphas_cumprod, t, x0)
    return a.sqrt() * x0 + (1.0 - a).sqrt() * noise


def q_posterior_mean_variance(x0: torch.Tensor, xt: torch.Tensor, t: torch.Tensor,
                              s: SimpleNamespace) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean and variance of q(x_{t−1} | x_t, x_0) (Ho et al. 2020, eq. 6–7)."""
    mean = extract(s.posterior_mean_coef1, t, x0) * x0 + extract(s.posterior_mean_coef2, t, xt) * xt
    return mean, extract(s.posterior_variance, t, x0).expand_as(x0)


def predict_x0_from_eps(xt: torch.Tensor, t: torch.Tensor, eps: torch.Tensor, s: SimpleNamespace) -> torch.Tensor:
    """x̂_0 = (x_t − √(1 − ᾱ_t) ε̂)/√ᾱ_t: eq. 4 solved for x_0 with the predicted noise."""
    a = extract(s.alphas_cumprod, t, xt)
    return (xt - (1.0 - a).sqrt() * eps) / a.sqrt()


def p_sample(eps: torch.Tensor, xt: torch.Tensor, t: torch.Tensor, noise: torch.Tensor,
             s: SimpleNamespace) -> torch.Tensor:
    """One ancestral step x_t → x_{t−1} ~ N(μ̃(x_t, x̂_0), σ²_t) (Ho et al. 2020, Algorithm 2).

    The mean is the posterior mean at the predicted x̂_0 (not clipped: quantile-normalised values are
    unbounded); the variance is TabDDPM's fixed σ²_t = β_t. No noise is added at t = 0.
    """
    mean, _ = q_posterior_mean_variance(predict_x0_from_eps(xt, t, eps, s), xt, t, s)
    nonzero = (t != 0).to(xt.dtype).reshape(-1, *([1] * (xt.dim() - 1)))
    return mean + nonzero * (0.5 * extract(s.model_log_variance, t, xt)).exp() * noise


def eps_loss(eps: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
    """The simplified loss of Ho et al. (2020), eq. 14, per record: the mean over columns of (ε − ε̂)²."""
    return ((noise - eps) ** 2).mean(dim=tuple(range(1, eps.dim())))
