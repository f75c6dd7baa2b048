"""Membership-inference attacks (family "Membership inference", metrics.md §3): can an attacker tell the people in
the training data from other real people, given the synthetic table?

Every attack plays the same game on the same members, non-members and reference set, and gives every record a
score (higher = "member"); how well the score separates the two groups is the risk. The package follows
scikit-learn's ``neighbors/_base.py`` rule: :mod:`._base` holds what the attacks share (roles, the ROC summary of
one attack, the parameters and texts, the evaluation-wide cache of scores, the kernel densities, Gen-LRA's
standardised space, the halves of ``mia_best`` and cross-fitting within them), and the concrete modules import it
and never each other (an import-linter contract in pyproject.toml):

- :mod:`.distance`: ``mia_distance`` and ``mia_calibrated``;
- :mod:`.domias`: ``mia_domias``;
- :mod:`.battery`: ``mia_gen_lra``, ``mia_classifier``, ``mia_density_count`` and ``mia_dpi``;
- :mod:`.reuse`: ``mia_value_reuse``;
- :mod:`.best`: ``mia_best``, the strongest attack chosen honestly;
- :mod:`.learned`: ``mia_learned``;
- :mod:`.stacked`: ``mia_stacked``.

Each concrete module registers its metrics on import; this module, the face, imports them in one order and
re-exports what other modules use.
"""

# In the order the attacks registered in before the family became a package.
from privcore.metrics.membership import battery, best, distance, domias, learned, reuse, stacked  # noqa: F401

# What other modules use, re-exported.
from privcore.metrics.membership._base import attack_summary, membership_sets, seeded_halves  # noqa: F401
from privcore.metrics.membership.reuse import value_reuse, value_text  # noqa: F401
