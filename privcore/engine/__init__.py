"""The shared vector space and the one nearest-neighbour engine behind every distance metric.

``encoding`` (the spaces), ``neighbors`` (the exact passes and the modules they are built on),
``neighbors_both_ways``, ``neighbors_distinct``, ``gpu``, ``cluster`` and ``context`` (one evaluation's cache and
the :class:`MetricContext` a metric reads). Imports only the layers below.
"""

from privcore.base import lazy_face

#: Each name of the face and the module that defines it (loaded on first access).
_FACE: dict[str, str] = {
    "check_address": "cluster", "connected": "cluster", "map_on_cluster": "cluster",
    "MetricContext": "context", "pair_key": "context", "POOL": "context", "SharedComputation": "context",
    "EuclideanSpace": "encoding",
    "check_device": "gpu", "require_gpu": "gpu", "using_device": "gpu",
    "all_within": "neighbors", "count_within": "neighbors", "DEFAULT_CHUNK_ELEMENTS": "neighbors",
    "nearest_k": "neighbors", "nearest_two": "neighbors", "Neighbours": "neighbors", "PairExtremes": "neighbors",
    "nearest_two_both_ways": "neighbors_both_ways", "nearest_two_within": "neighbors_both_ways",
    "distinct_rows": "neighbors_distinct", "expand_within": "neighbors_distinct",
    "TIE_FACTOR": "tolerance",
}

__all__ = lazy_face(__name__, _FACE, globals())
