"""Multinomial diffusion of the categorical columns (Hoogeboom et al. 2021) in log space, as TabDDPM uses it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace

import torch

from privcore.generators.diffusion.gaussian import extract

__all__ = ["PAD", "LOG_ZERO", "Categories", "log_onehot", "q_pred", "q_pred_one_timestep", "q_posterior", "p_pred",
           "draw", "q_sample", "kl", "log_categorical", "kl_prior", "multinomial_loss"]

#: Log-probability of a padding slot (exp underflows to exactly 0 in float32).
PAD = -1e4
#: Log of a one-hot vector's zeros (the TabDDPM code's log(1e−30)).
LOG_ZERO = math.log(1e-30)


@dataclass(frozen=True)
class Categories:
    """The categorical columns' sizes.

    Attributes
    ----------
    num_classes : torch.Tensor
        K_f of each of the F columns (long, shape ``(F,)``).
    mask : torch.Tensor
        ``(F, K)`` bool: True for a real category slot, False for padding.
    log_k : torch.Tensor
        log K_f, shape ``(F, 1)`` (broadcasts over a column's slots).

    Notes
    -----
    Layout: the categorical columns of a batch are one tensor of log-probabilities of shape ``(records, F, K)``
    for F columns, K being the most categories of any column; a column with fewer categories has padding slots,
    held at :data:`PAD` (a large negative finite number, so that padded slots have probability 0 and no
    ``-inf − -inf`` ever makes a NaN, in the loss or its gradient). A true zero of a one-hot vector is
    log(1e−30), as in the TabDDPM code.
    """

    num_classes: torch.Tensor
    mask: torch.Tensor
    log_k: torch.Tensor

    @classmethod
    def of(cls, num_classes, device: str | torch.device = "cpu") -> "Categories":
        """From the list of category counts."""
        k = torch.as_tensor(list(num_classes), dtype=torch.long, device=device)
        width = int(k.max()) if k.numel() else 1
        mask = torch.arange(width, device=device)[None, :] < k[:, None]
        return cls(k, mask, k.to(torch.float32).log()[:, None])

    @property
    def width(self) -> int:
        """K, the slots per column."""
        return self.mask.shape[1]


def _masked(x: torch.Tensor, cats: Categories) -> torch.Tensor:
    return torch.where(cats.mask, x, torch.full_like(x, PAD))


def _normalise(x: torch.Tensor, cats: Categories) -> torch.Tensor:
    """Log-probabilities that sum to one over each column's real categories."""
    x = _masked(x, cats)
    return _masked(x - torch.logsumexp(x, dim=-1, keepdim=True), cats)


def log_onehot(codes: torch.Tensor, cats: Categories) -> torch.Tensor:
    """Log of the one-hot vectors of ``codes`` (``(records, F)`` category numbers), with padding."""
    onehot = torch.nn.functional.one_hot(codes, cats.width).to(torch.float32)
    return _masked(onehot.clamp(min=1e-30).log(), cats)


def q_pred(log_x0: torch.Tensor, t: torch.Tensor, s: SimpleNamespace, cats: Categories) -> torch.Tensor:
    """Log q(x_t | x_0) = log(ᾱ_t x_0 + (1 − ᾱ_t)/K)."""
    return _masked(torch.logaddexp(log_x0 + extract(s.log_cumprod_alpha, t, log_x0),
                                   extract(s.log_1m_cumprod_alpha, t, log_x0) - cats.log_k), cats)


def q_pred_one_timestep(log_xt: torch.Tensor, t: torch.Tensor, s: SimpleNamespace, cats: Categories) -> torch.Tensor:
    """log(α_t x_t + (1 − α_t)/K): q(x_t | x_{t−1}) as a function of x_{t−1} (the transition is symmetric)."""
    return _masked(torch.logaddexp(log_xt + extract(s.log_alpha, t, log_xt),
                                   extract(s.log_1m_alpha, t, log_xt) - cats.log_k), cats)


def q_posterior(log_x0: torch.Tensor, log_xt: torch.Tensor, t: torch.Tensor, s: SimpleNamespace,
                cats: Categories) -> torch.Tensor:
    """Log q(x_{t−1} | x_t, x_0), Hoogeboom et al. (2021) §4; at t = 0 the "previous" state is x_0 itself.

    Notes
    -----
    Forward process (Hoogeboom et al. 2021, §4; TabDDPM §3): q(x_t | x_{t−1}) = Cat(α_t x_{t−1} + (1 − α_t)/K)
    and q(x_t | x_0) = Cat(ᾱ_t x_0 + (1 − ᾱ_t)/K). Posterior (their §4):
    q(x_{t−1} | x_t, x_0) ∝ [α_t x_t + (1 − α_t)/K] ⊙ [ᾱ_{t−1} x_0 + (1 − ᾱ_{t−1})/K]. The model predicts x_0's
    logits; p(x_{t−1} | x_t) is that posterior at the predicted x̂_0 (their §4). Random numbers come in as
    arguments (uniforms for the Gumbel-max draws), never drawn here.
    """
    previous = q_pred(log_x0, (t - 1).clamp(min=0), s, cats)
    at_zero = (t == 0).reshape(-1, *([1] * (log_x0.dim() - 1)))
    previous = torch.where(at_zero, log_x0, previous)
    return _normalise(previous + q_pred_one_timestep(log_xt, t, s, cats), cats)


def p_pred(logits: torch.Tensor, log_xt: torch.Tensor, t: torch.Tensor, s: SimpleNamespace,
           cats: Categories) -> torch.Tensor:
    """Log p(x_{t−1} | x_t): the posterior at x̂_0 = softmax of the model's logits (Hoogeboom et al. §4)."""
    log_x0 = _normalise(logits, cats)
    return q_posterior(log_x0, log_xt, t, s, cats)


def draw(log_probs: torch.Tensor, uniform: torch.Tensor, cats: Categories) -> torch.Tensor:
    """One category per column by the Gumbel-max trick, from ``uniform`` numbers in (0, 1) of the same shape."""
    gumbel = -torch.log(-torch.log(uniform.clamp(1e-30, 1.0 - 1e-7)))
    return _masked(log_probs + gumbel, cats).argmax(dim=-1)


def q_sample(log_x0: torch.Tensor, t: torch.Tensor, uniform: torch.Tensor, s: SimpleNamespace,
             cats: Categories) -> torch.Tensor:
    """Log one-hot of x_t ~ q(x_t | x_0)."""
    return log_onehot(draw(q_pred(log_x0, t, s, cats), uniform, cats), cats)


def kl(log_p: torch.Tensor, log_q: torch.Tensor, cats: Categories) -> torch.Tensor:
    """KL(p ‖ q) per record and column, ``(records, F)``."""
    terms = log_p.exp() * (log_p - log_q)
    return torch.where(cats.mask, terms, torch.zeros_like(terms)).sum(dim=-1)


def log_categorical(log_x0: torch.Tensor, log_prob: torch.Tensor, cats: Categories) -> torch.Tensor:
    """Log p(x_0) under ``log_prob`` for the one-hot ``log_x0``, per record and column."""
    terms = log_x0.exp() * log_prob
    return torch.where(cats.mask, terms, torch.zeros_like(terms)).sum(dim=-1)


def kl_prior(log_x0: torch.Tensor, s: SimpleNamespace, cats: Categories) -> torch.Tensor:
    """KL(q(x_T | x_0) ‖ uniform) per record, summed over columns (near 0 for a good schedule)."""
    last = torch.full((log_x0.shape[0],), s.timesteps - 1, dtype=torch.long, device=log_x0.device)
    uniform = _masked(-cats.log_k.expand(log_x0.shape[1:]).expand_as(log_x0), cats)
    return kl(q_pred(log_x0, last, s, cats), uniform, cats).sum(dim=-1)


def multinomial_loss(logits: torch.Tensor, log_x0: torch.Tensor, log_xt: torch.Tensor, t: torch.Tensor,
                     s: SimpleNamespace, cats: Categories) -> torch.Tensor:
    """TabDDPM's categorical loss per record.

    L_t = KL(q(x_{t−1} | x_t, x_0) ‖ p(x_{t−1} | x_t)) for t > 0 and the decoder's −log p(x_0 | x_1) at t = 0,
    summed over columns (Hoogeboom et al. 2021, §4); with t drawn uniformly (probability 1/T) the bound
    is T·L_t + KL(q(x_T | x_0) ‖ uniform), and TabDDPM divides it by the number of categorical columns.
    """
    log_true = q_posterior(log_x0, log_xt, t, s, cats)
    log_model = p_pred(logits, log_xt, t, s, cats)
    term = torch.where((t == 0)[:, None], -log_categorical(log_x0, log_model, cats), kl(log_true, log_model, cats))
    return (s.timesteps * term.sum(dim=-1) + kl_prior(log_x0, s, cats)) / log_x0.shape[1]
