"""Distance-based metrics in the vector space E (metrics.md §2; review §2.2).

CVP, DVP, Auth, IdScore, NSND, MDCR, NNAA and HitR. Ties (metrics.md §0): distances closer than ``1e-12 · d_max``
compare as equal. :mod:`._base` holds what the metrics share; this module registers the family's metrics in one order
and re-exports what others use.
"""

from __future__ import annotations

from privcore.metrics.distance.closest import AUTH, CVP, DVP, MDCR, NSND
from privcore.metrics.distance.hitr import HITR, hit_counts  # noqa: F401  (hit_counts re-exported)
from privcore.metrics.distance.idscore import IDSCORE, attribute_entropy  # noqa: F401  (re-exported)
from privcore.metrics.distance.nnaa import NNAA
from privcore.metrics.registry import register

# One registration order for the whole family.
for _info in (CVP, DVP, AUTH, IDSCORE, NSND, MDCR, NNAA, HITR):
    register(_info)
