"""Tables to TabDDPM's two inputs and back: quantile-normalised numbers and category codes (numpy only)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privcore.generators.base import category_codes, is_integral, is_numerical, match_dtypes

__all__ = ["TableEncoding"]


class TableEncoding:
    """The fitted transforms of one training table.

    Attributes
    ----------
    numerical : list of str
        The modelled numerical columns, in table order (one Gaussian dimension each).
    categorical : list of tuple
        ``(column, categories, missing_of)`` per categorical dimension, in order: the category values (most
        frequent first) and, for a numerical column's missing-value companion, that column's name (else None).
    num_classes : list of int
        The number of categories of each categorical dimension.

    Notes
    -----
    As in TabDDPM (Kotelnikov et al. 2023, §3), each numerical column goes through scikit-learn's
    ``QuantileTransformer(output_distribution="normal")`` (so the Gaussian diffusion starts from roughly standard
    normal marginals) and each categorical or binary column becomes category codes (one-hot in the model).
    Additions for privcore's tables, which TabDDPM's benchmarks did not need:

    - a numerical column with missing values gets a companion two-category column "is missing", and its missing
      values are filled with the column's median prior to the transform; a sample puts them back where the
      companion says so;
    - a missing categorical value is a category of its own (as every privcore generator treats it);
    - a column with a single value (or only missing values) is not modelled: a sample repeats it;
    - a numerical column of whole numbers is sampled as whole numbers (rounded after the inverse transform).
    """

    def __init__(self, table: pd.DataFrame, types: Mapping[str, str], seed: int = 0) -> None:
        from sklearn.preprocessing import QuantileTransformer  # heavy: imported on the first fit

        self.columns = list(table.columns)
        self.like = table.iloc[:0]
        self.constant: dict[str, object] = {}
        self.numerical: list[str] = []
        self.categorical: list[tuple[str, np.ndarray, str | None]] = []
        self.integral: dict[str, bool] = {}
        self.median: dict[str, float] = {}
        numbers = []
        for col in self.columns:
            if is_numerical(types, col):
                values = pd.to_numeric(table[col], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
                present = values[~np.isnan(values)]
                if np.unique(present).size <= 1:  # constant (or nothing but missing): nothing to learn
                    self._constant_or_missing(col, table[col])
                    continue
                self.numerical.append(col)
                self.integral[col] = is_integral(values)
                self.median[col] = float(np.median(present))
                numbers.append(np.where(np.isnan(values), self.median[col], values))
                if present.size < values.size:
                    self.categorical.append((f"{col} is missing", np.array([False, True], dtype=object), col))
            else:
                codes, cats = category_codes(table[col])
                if cats.size <= 1:
                    self.constant[col] = cats[0] if cats.size else None
                    continue
                self.categorical.append((col, cats, None))
        self.num_classes = [len(cats) for _, cats, _ in self.categorical]
        self.quantiles = None
        if self.numerical:
            x = np.column_stack(numbers)
            # TabDDPM's settings: up to 1,000 quantiles, about 30 rows per quantile, every row used.
            self.quantiles = QuantileTransformer(output_distribution="normal",
                                                 n_quantiles=max(min(len(x) // 30, 1000), 10),
                                                 subsample=10**9, random_state=seed).fit(x)

    def _constant_or_missing(self, col: str, column: pd.Series) -> None:
        present = column.dropna()
        value = present.iloc[0] if len(present) else np.nan
        if column.isna().any() and len(present):  # one value, sometimes missing: model whether it is missing
            self.categorical.append((col, np.array([value, None], dtype=object), None))
        else:
            self.constant[col] = value

    # ------------------------------------------------------------------------------------------ forward
    def numbers(self, table: pd.DataFrame) -> np.ndarray:
        """The quantile-normalised numbers ``(rows, len(numerical))`` (missing values at the median)."""
        if not self.numerical:
            return np.zeros((len(table), 0))
        x = np.column_stack([
            np.nan_to_num(pd.to_numeric(table[col], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan),
                          nan=self.median[col]) for col in self.numerical])
        return self.quantiles.transform(x)

    def codes(self, table: pd.DataFrame) -> np.ndarray:
        """The category codes ``(rows, len(categorical))``; −1 for a value the training table did not have."""
        out = np.full((len(table), len(self.categorical)), -1, dtype=np.int64)
        for j, (col, cats, missing_of) in enumerate(self.categorical):
            if missing_of is not None:
                out[:, j] = table[missing_of].isna().to_numpy().astype(np.int64)
                continue
            keys = pd.Index(pd.Series(cats, dtype=object).map(_key))
            out[:, j] = keys.get_indexer(table[col].astype(object).map(_key))
        return out

    # ------------------------------------------------------------------------------------------ back
    def decode(self, numbers: np.ndarray, codes: np.ndarray) -> pd.DataFrame:
        """A table like the training table from sampled normalised numbers and category codes (same rows)."""
        n = len(numbers)
        out: dict[str, np.ndarray] = {}
        if self.numerical:
            values = self.quantiles.inverse_transform(numbers)
            for j, col in enumerate(self.numerical):
                out[col] = np.round(values[:, j]) if self.integral[col] else values[:, j]
        for j, (col, cats, missing_of) in enumerate(self.categorical):
            if missing_of is not None:
                out[missing_of] = np.where(codes[:, j] == 1, np.nan, out[missing_of])
            else:
                out[col] = cats[codes[:, j]]
        for col, value in self.constant.items():
            out[col] = np.full(n, value, dtype=object)
        frame = pd.DataFrame({col: out[col] for col in self.columns}, columns=self.columns)
        return match_dtypes(frame, self.like)


def _key(value: object) -> str:
    """A category's key, as :func:`~privcore.generators.base.category_codes` compares them.

    By text, every missing value (None, NaN, NaT) one category.
    """
    return "\x00missing" if pd.isna(value) else str(value)
