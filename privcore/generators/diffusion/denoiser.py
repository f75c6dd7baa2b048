"""TabDDPM's denoiser: an MLP with a sinusoidal timestep embedding (Kotelnikov et al. 2023, §3, "MLPDiffusion").

The input x_t (numbers and one-hot categories) is projected to the embedding's width and added to the
timestep's embedding; an MLP of ReLU layers then outputs, in one vector, the predicted Gaussian noise of the
numerical columns and the logits of x_0 for every categorical column.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

__all__ = ["timestep_embedding", "MLPDenoiser"]


def timestep_embedding(t: torch.Tensor, dim: int, max_period: float = 10_000.0) -> torch.Tensor:
    """The sinusoidal embedding of Vaswani et al. (2017) as in guided diffusion.

    [cos(t·f_i), sin(t·f_i)], frequencies f_i = max_period^(−i/(dim/2)); an odd ``dim`` gets a zero last column.
    """
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32, device=t.device) / half)
    args = t.to(torch.float32)[:, None] * freqs[None]
    emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
    return torch.nn.functional.pad(emb, (0, dim % 2))


class MLPDenoiser(nn.Module):
    """ε̂ for the numbers and x̂_0's logits for the categories, from x_t and t.

    Parameters
    ----------
    d_in : int
        Numerical columns plus one-hot slots of the categorical columns.
    d_out : int
        Numerical columns plus the categorical columns' logits.
    widths : sequence of int
        The hidden layers (TabDDPM tunes 2–6 layers of 64–1024 units; ReLU, no dropout by default).
    dim_t : int
        Width of the timestep embedding and of the input projection (TabDDPM: 128).
    """

    def __init__(self, d_in: int, d_out: int, widths: Sequence[int], dim_t: int = 128) -> None:
        super().__init__()
        self.dim_t = dim_t
        self.proj = nn.Linear(d_in, dim_t)
        self.time_embed = nn.Sequential(nn.Linear(dim_t, dim_t), nn.SiLU(), nn.Linear(dim_t, dim_t))
        layers: list[nn.Module] = []
        width = dim_t
        for hidden in widths:
            layers += [nn.Linear(width, hidden), nn.ReLU()]
            width = hidden
        layers.append(nn.Linear(width, d_out))
        self.mlp = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        """The denoiser's output for the noisy rows ``x`` at timesteps ``t``."""
        return self.mlp(self.proj(x) + self.time_embed(timestep_embedding(t, self.dim_t)))
