"""Utility and fidelity measures (metrics.md §6), each declared like a metric in the family "Utility".

One module per measure, each registering itself on import: column shapes (:mod:`.shapes`), column-pair trends
(:mod:`.pairs`), train on synthetic and test on real (:mod:`.mle`) and the discriminator (:mod:`.discriminator`);
:mod:`._base` holds the bins and distances they share. A utility measure is "higher is better": its result carries
no risk (``MetricResult.risk`` is None) but a :class:`privcore.metrics.results.UtilityScore` (the score, the same
measure for a fresh sample of real people, and their ratio), filled in by :func:`privcore.evaluate`.
"""

from privcore.metrics.utility import discriminator, mle, pairs, shapes  # noqa: F401  (each registers itself)
