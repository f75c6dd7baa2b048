"""Membership-inference attacks (family "Membership inference", metrics.md §3).

Whether an attacker can tell the people in the training data from other real people, given the synthetic table.
:mod:`._base` holds what the attacks share; each concrete module registers its metrics on import, and this module
imports them in one order and re-exports what other modules use.
"""

# The attacks register in this order (the registry's order of the family).
from privcore.metrics.membership import battery, best, distance, domias, learned, reuse, stacked  # noqa: F401

# What other modules use, re-exported.
from privcore.metrics.membership._base import attack_summary, membership_sets, seeded_halves  # noqa: F401
from privcore.metrics.membership.reuse import value_reuse, value_text  # noqa: F401
