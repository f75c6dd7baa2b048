"""Sequential CART in the manner of synthpop's default method (Nowok, Raab and Dibben 2016)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from privcore.data import Param
from privcore.generators.base import BaseGenerator, GeneratorSettingError, check_settings_of, is_numerical, match_dtypes

__all__ = ["SequentialCART"]

#: Stand-in for a missing number in the trees' inputs (below any real value, so one split isolates it).
MISSING_NUMBER = -1e9


class SequentialCART(BaseGenerator):
    """synthpop-style sequential CART; see Notes.

    Parameters
    ----------
    min_leaf : int, default 5
        Fewest training rows in a leaf (synthpop's ``minbucket``); 1 copies training rows.
    column_order : list of str, optional
        Every column of the training table once, in the order of synthesis; None: the table's order.

    Attributes (after ``fit``)
    --------------------------
    order : list of str
        The order of synthesis.
    trees : dict
        ``{column: fitted tree}`` for every column after the first.

    Notes
    -----
    The columns are synthesised one after another, in ``column_order`` (default: the table's order). The
    first column is drawn from its training values (with replacement). Each later column has a decision tree
    (a classifier for categorical and binary columns, a regressor for numerical ones, at least ``min_leaf``
    training rows per leaf) fitted on the earlier columns of the training table; a synthetic row whose
    earlier values fall into a leaf takes the column's value from a training row of that leaf drawn at
    random (synthpop's "donor" draw, without its optional smoothing). Values are therefore always training
    values of that column, and with ``min_leaf = 1`` every synthetic row is a training row: the memorising
    end of the method, useful as a real generator that leaks.

    Trees see a categorical column as the ordinal code of its category in sorted text order (missing as the
    text ``"None"``/``"nan"``), and a missing number as -10⁹, below every real value; synthpop splits
    categories into groups instead, which gives the trees other splits but the same kind of model. The trees
    are grown in ``fit`` (deterministic: ``random_state=0``), the donors drawn in ``sample`` from its seed.
    """

    name = "cart"
    #: ``column_order`` must list every training column once, known only at fit: :meth:`_order` checks that.
    PARAMS = (Param("min_leaf", "int", 5, "Fewest rows per leaf", "Fewest training rows in a tree leaf; 1 copies "
                    "training rows.", minimum=1),
              Param("column_order", "columns", None, "Column order", "The order columns are synthesised in (every "
                    "column once).", rule="not set: the table's order"))

    def __init__(self, *, min_leaf: int = 5, column_order: Sequence[str] | None = None) -> None:
        super().__init__()
        checked = check_settings_of(self.name, self.PARAMS, {"min_leaf": min_leaf, "column_order": column_order})
        self.min_leaf, self.column_order = checked["min_leaf"], checked["column_order"]

    def settings(self):
        """The generator's settings (for reports and ``repr``)."""
        return {"min_leaf": self.min_leaf, "column_order": self.column_order}

    # -- fit --------------------------------------------------------------------------------------
    def _fit(self) -> None:
        self.order = self._order()
        self._categories = {c: np.array(sorted(self.table[c].astype(str).unique()), dtype=object)
                            for c in self.order if not is_numerical(self.types, c)}
        self._train_features = features = self._features(self.table)
        self.trees, self._donors = {}, {}
        for j, col in enumerate(self.order[1:], start=1):
            tree = self._tree(col)
            tree.fit(features[:, :j], self._target(col))
            leaves = tree.apply(features[:, :j])
            # training rows grouped by leaf: a leaf's rows are a slice, found by searchsorted
            rows = np.argsort(leaves, kind="stable")
            self.trees[col], self._donors[col] = tree, (rows, leaves[rows])

    def _order(self) -> list[str]:
        columns = list(self.table.columns)
        if self.column_order is None:
            return columns
        unknown = [c for c in self.column_order if c not in columns]
        missing = [c for c in columns if c not in self.column_order]
        repeated = sorted({c for c in self.column_order if self.column_order.count(c) > 1})
        problems = ([f"names {', '.join(map(repr, unknown))}, not in the training table"] if unknown else []) + (
            [f"lacks {', '.join(map(repr, missing))}"] if missing else []) + (
            [f"repeats {', '.join(map(repr, repeated))}"] if repeated else [])
        if problems:
            raise GeneratorSettingError(f"cart: column_order must list every training column once; it "
                                        f"{' and '.join(problems)}.")
        return list(self.column_order)

    def _tree(self, col: str):
        # Imported on the first fit: scikit-learn takes about 0.4 s to import, which the command line's
        # start (it lists the generators) and every evaluation that fits no CART should not pay.
        from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

        if is_numerical(self.types, col):
            return DecisionTreeRegressor(min_samples_leaf=self.min_leaf, random_state=0)
        return DecisionTreeClassifier(min_samples_leaf=self.min_leaf, random_state=0)

    def _target(self, col: str) -> np.ndarray:
        if is_numerical(self.types, col):
            return pd.to_numeric(self.table[col], errors="coerce").fillna(MISSING_NUMBER).to_numpy(float)
        return self.table[col].astype(str).to_numpy()

    def _features(self, frame: pd.DataFrame) -> np.ndarray:
        """The trees' inputs: one float column per column of ``self.order``."""
        out = np.empty((len(frame), len(self.order)))
        for j, col in enumerate(self.order):
            if is_numerical(self.types, col):
                out[:, j] = pd.to_numeric(frame[col], errors="coerce").fillna(MISSING_NUMBER).to_numpy(float)
            else:
                out[:, j] = np.searchsorted(self._categories[col], frame[col].astype(str).to_numpy())
        return out

    # -- sample -----------------------------------------------------------------------------------
    def _draw(self, n, rng):
        real = self.table
        first = self.order[0]
        rows = {first: rng.integers(0, len(real), n)}  # the training row each synthetic value comes from
        features = np.empty((n, len(self.order)))
        for j, col in enumerate(self.order):
            if j:
                order, sorted_leaves = self._donors[col]
                leaf = self.trees[col].apply(features[:, :j])
                start = np.searchsorted(sorted_leaves, leaf, side="left")
                stop = np.searchsorted(sorted_leaves, leaf, side="right")
                rows[col] = order[start + (rng.random(n) * (stop - start)).astype(np.int64)]
            # a synthetic value is a training value, so its tree input is that training row's input
            features[:, j] = self._train_features[rows[col], j]
        out = pd.DataFrame({c: real[c].to_numpy()[rows[c]] for c in real.columns}, columns=real.columns)
        return match_dtypes(out, real)
