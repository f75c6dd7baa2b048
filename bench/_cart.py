"""A sequential-CART synthesiser in the manner of synthpop's default method (Nowok, Raab and Dibben 2016),
for benchmarks only: a real generator family that leaks membership to a moderate degree, as the published
batteries' examples made by real generators do.

Column 1 is drawn from its training values; every later column is drawn, for each synthetic row, from the
training rows in the leaf of a decision tree (fitted on the earlier columns, at least ``min_leaf`` rows per
leaf) that the synthetic row's earlier values fall into.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor


def _codes(frame: pd.DataFrame, types: dict, categories: dict) -> np.ndarray:
    cols = []
    for c in frame.columns:
        if types[c] == "numerical":
            cols.append(pd.to_numeric(frame[c], errors="coerce").fillna(-1e9).to_numpy(float))
        else:
            cols.append(pd.Categorical(frame[c].astype(str), categories=categories[c]).codes.astype(float))
    return np.column_stack(cols) if cols else np.empty((len(frame), 0))


def sequential_cart(real: pd.DataFrame, types: dict, n: int, seed: int = 0, min_leaf: int = 5) -> pd.DataFrame:
    """``n`` synthetic rows from a sequential CART model of ``real`` (see the module docstring)."""
    rng = np.random.default_rng(seed)
    columns = list(real.columns)
    categories = {c: sorted(real[c].astype(str).unique()) for c in columns if types[c] != "numerical"}
    out = pd.DataFrame(index=range(n))
    out[columns[0]] = real[columns[0]].to_numpy()[rng.integers(0, len(real), n)]
    for j, column in enumerate(columns[1:], start=1):
        earlier = columns[:j]
        x_train = _codes(real[earlier], types, categories)
        x_new = _codes(out[earlier], types, categories)
        target = real[column]
        if types[column] == "numerical":
            tree = DecisionTreeRegressor(min_samples_leaf=min_leaf, random_state=seed)
            tree.fit(x_train, pd.to_numeric(target, errors="coerce").fillna(-1e9))
        else:
            tree = DecisionTreeClassifier(min_samples_leaf=min_leaf, random_state=seed)
            tree.fit(x_train, target.astype(str))
        train_leaf, new_leaf = tree.apply(x_train), tree.apply(x_new)
        order = np.argsort(train_leaf, kind="stable")
        sorted_leaf = train_leaf[order]
        start = np.searchsorted(sorted_leaf, new_leaf, side="left")
        stop = np.searchsorted(sorted_leaf, new_leaf, side="right")
        donors = order[start + (rng.random(n) * (stop - start)).astype(int)]
        out[column] = target.to_numpy()[donors]
    return out
