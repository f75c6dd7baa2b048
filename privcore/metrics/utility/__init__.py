"""Utility and fidelity measures (metrics.md §6), each declared like a metric in the family "Utility".

One module per measure, each registering itself on import; a utility measure is "higher is better": its
result carries no risk but a :class:`privcore.metrics.results.UtilityScore`.
"""

from privcore.metrics.utility import discriminator, mle, pairs, shapes  # noqa: F401  (each registers itself)
