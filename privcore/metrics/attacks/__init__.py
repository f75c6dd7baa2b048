"""Anonymeter-style attacks (Giomi et al. 2023, PoPETs): singling out, linkability and inference.

Each attack is a pure function of pandas DataFrames returning an :class:`AttackOutcome`; registration in the
metric registry lives in :mod:`privcore.metrics.attacks.register`.
"""

from privcore.metrics.attacks._common import AttackOutcome, gower_knn
from privcore.metrics.attacks.inference import inference, inference_success
from privcore.metrics.attacks.linkability import linkability
from privcore.metrics.attacks.singling_out import (
    singling_out,
    singling_out_multivariate,
    singling_out_univariate,
)

__all__ = [
    "AttackOutcome",
    "gower_knn",
    "inference",
    "inference_success",
    "linkability",
    "singling_out",
    "singling_out_multivariate",
    "singling_out_univariate",
]
