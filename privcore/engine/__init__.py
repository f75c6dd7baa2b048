"""The shared vector space and the one nearest-neighbour engine behind every distance metric.

``encoding`` (Euclidean and FAMD spaces), ``neighbors`` (exact top-two and k-nearest passes, chunked; built
on ``operands``, ``candidates``, ``tiles`` (large passes read a chunk's scores a tile at a time), ``chunks``,
``kdtree``, ``within_radius`` and ``results``),
``neighbors_both_ways`` (each pair of rows once), ``neighbors_distinct`` (repeated rows searched once),
``gpu`` and ``cluster`` (the same passes on a GPU or a Dask cluster) and ``context`` (one evaluation's
cache of spaces and passes, and the :class:`MetricContext` a metric reads). Imports only the layers below.
"""
