"""A sequential-CART synthesiser in the manner of synthpop's default method (Nowok, Raab and Dibben 2016),
for benchmarks: a real generator family that leaks membership to a moderate degree, as the published
batteries' examples made by real generators do.

Now a thin wrapper over the built-in ``cart`` generator (:class:`privcore.generators.SequentialCART`): column 1
is drawn from its training values; every later column is drawn, for each synthetic row, from the training rows
in the leaf of a decision tree (fitted on the earlier columns, at least ``min_leaf`` rows per leaf) that the
synthetic row's earlier values fall into. (Before the generator existed the trees were grown with
``random_state=seed`` here; they are now grown with ``random_state=0``, so tables drawn for a seed other
than 0 differ from those of older benchmark runs.)
"""

from __future__ import annotations

import pandas as pd

from privcore.generators import make_generator


def sequential_cart(real: pd.DataFrame, types: dict, n: int, seed: int = 0, min_leaf: int = 5) -> pd.DataFrame:
    """``n`` synthetic rows from a sequential CART model of ``real`` (see the module docstring)."""
    return make_generator("cart", min_leaf=min_leaf).fit(real, types).sample(n, seed=seed)
