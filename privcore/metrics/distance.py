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
"""

from __future__ import annotations

from privcore.metrics.distance_closest import AUTH, CVP, DVP, MDCR, NSND
from privcore.metrics.hitr import HITR, hit_counts  # noqa: F401  (hit_counts re-exported)
from privcore.metrics.idscore import IDSCORE, attribute_entropy  # noqa: F401  (attribute_entropy re-exported)
from privcore.metrics.nnaa import NNAA
from privcore.metrics.registry import register

# One registration order for the whole family, as before the family was split into modules.
for _info in (CVP, DVP, AUTH, IDSCORE, NSND, MDCR, NNAA, HITR):
    register(_info)
