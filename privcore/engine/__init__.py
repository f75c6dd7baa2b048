"""The shared vector space and the one nearest-neighbour engine behind every distance metric.

``encoding`` (the spaces), ``neighbors`` (the exact passes and the modules they are built on),
``neighbors_both_ways``, ``neighbors_distinct``, ``gpu``, ``cluster`` and ``context`` (one evaluation's cache and
the :class:`MetricContext` a metric reads). Imports only the layers below.
"""
