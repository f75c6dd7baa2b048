"""Distance-based metrics in the vector space E (metrics.md §2; review §2.2): CVP, DVP, Auth, IdScore,
NSND, MDCR, NNAA and HitR.

Every metric here reads its nearest neighbours from the shared engine (``ctx.neighbours``), so CVP, DVP,
NSND, MDCR, Auth and NNAA share the passes real→synthetic, real→real, synthetic→real and
synthetic→synthetic in E, and the §5 baseline (holdout in place of the synthetic table) reuses the
real→real pass. IdScore registers its own weighted space ``"E_idscore"`` so its two passes are cached
too. Only NNAA with tables of different sizes computes extra neighbours itself: inside random subsets,
where the nearest *other* row is not the full table's. HitR needs no distances at all.

Ties (metrics.md §0): two distances closer than ``1e-12 · d_max`` (``d_max`` = the largest
real–synthetic distance in the space used) compare as equal; each comparison below says which way a tie
goes.

The package follows scikit-learn's ``neighbors/_base.py`` rule: :mod:`._base` holds what the metrics share (the
nearest synthetic record of each real one and its normalised distance, the checks, the words of their
explanations); the concrete modules import it and never each other (an import-linter contract in
pyproject.toml): :mod:`.closest` (CVP, DVP, NSND, Auth, MDCR), :mod:`.idscore`, :mod:`.nnaa` and :mod:`.hitr`.
This module is the face: it registers the family's metrics, in one order, and re-exports what other modules use.
"""

from __future__ import annotations

from privcore.metrics.distance.closest import AUTH, CVP, DVP, MDCR, NSND
from privcore.metrics.distance.hitr import HITR, hit_counts  # noqa: F401  (hit_counts re-exported)
from privcore.metrics.distance.idscore import IDSCORE, attribute_entropy  # noqa: F401  (re-exported)
from privcore.metrics.distance.nnaa import NNAA
from privcore.metrics.registry import register

# One registration order for the whole family, as before the family was split into modules.
for _info in (CVP, DVP, AUTH, IDSCORE, NSND, MDCR, NNAA, HITR):
    register(_info)
