"""Apply a validated schema to the tables: keep analysed columns, canonical values, missing-value policy.

After :func:`prepare`, numerical columns are float64 without missing values and categorical/binary
columns hold strings in which a missing value is its own category (:data:`MISSING`), as metrics.md §0
prescribes. Every later step (encoding, neighbours, metrics) reads only the prepared tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privcore.base import AllMissingColumnError, SchemaError
from privcore.data.column_kinds import ISO, boolean_spellings, date_days, date_format, numbers_of
from privcore.data.memory import check_memory
from privcore.data.schema import BINARY, NUMERICAL, Schema, category_texts

#: The category that stands for a missing categorical or binary value.
MISSING = "(missing)"


@dataclass
class PreparedData:
    """The tables of one evaluation, cleaned and typed.

    Attributes
    ----------
    real, synthetic : DataFrame
        Analysed columns only, rows renumbered 0..n-1.
    holdout : DataFrame or None
    pair_index : numpy.ndarray or None
        For synthetic row *i*, the position of its real twin in ``real`` (−1 if the twin was dropped
        or has no match); ``None`` without pairing.
    dropped : dict
        Table name → number of rows dropped for missing numerical values.
    warnings : list of str
    kept : dict
        Table role → positions, in the table as given, of the rows kept (row ``i`` of ``real`` is row
        ``kept["real"][i]`` of the real table given).
    """

    real: pd.DataFrame
    synthetic: pd.DataFrame
    holdout: pd.DataFrame | None
    schema: Schema
    pair_index: np.ndarray | None = None
    dropped: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    kept: dict[str, np.ndarray] = field(default_factory=dict)
    #: Table role → its identifier and text columns (``schema.checked_columns``) as text, missing as None, rows
    #: aligned with the prepared table; empty when the schema has none.
    checked: dict[str, pd.DataFrame] = field(default_factory=dict)

    def table(self, role: str) -> pd.DataFrame:
        """The table playing ``role`` (``"real"``, ``"synthetic"`` or ``"holdout"``)."""
        table = {"real": self.real, "synthetic": self.synthetic, "holdout": self.holdout}[role]
        if table is None:
            raise KeyError(f"no {role} table in this evaluation")
        return table


def prepare(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    schema: Schema,
    holdout: pd.DataFrame | None = None,
    *,
    names: dict[str, str] | None = None,
) -> PreparedData:
    """Validate ``schema`` against the tables and return them cleaned and typed.

    Parameters
    ----------
    real, synthetic, holdout : DataFrame
        Tables as loaded.
    schema : Schema
        Column types and roles.
    names : dict, optional
        Role → display name (file name) used in messages.

    Returns
    -------
    PreparedData

    Raises
    ------
    SchemaError
        From :meth:`Schema.validate`; among them :class:`~privcore.base.errors.ExtremeValueError` for ``inf``,
        ``-inf`` or a magnitude beyond ``privcore.data.schema.MAX_MAGNITUDE`` in a numerical column. These are
        refused under both missing-value policies, never dropped or imputed as if they were missing.
    MemoryBudgetError
        When the encoded tables would need more memory than :func:`privcore.data.memory.memory_budget` allows.
    """
    names = {"real": "real", "synthetic": "synthetic", "holdout": "holdout", **(names or {})}
    schema.validate(
        real, {names["synthetic"]: synthetic}, holdout, real_name=names["real"], holdout_name=names["holdout"]
    )
    numerical = schema.columns_of(NUMERICAL)
    # Each date column is read in the real table's format in every table (validation checked that they all read).
    formats = {col: date_format(real[col]) or ISO for col in schema.dates}
    # A yes/no flag written in several ways ("Yes", "yes", "YES") is read as its two case-folded words.
    spellings = {}
    for col in schema.columns_of(BINARY):
        levels = set()
        for df in (real, synthetic, holdout):
            if df is not None:
                levels |= set(str(v) for v in pd.unique(df[col].dropna()))
        if (folded := boolean_spellings(levels)) is not None:
            spellings[col] = folded
    raw = {"real": real, "synthetic": synthetic, "holdout": holdout}
    checked: dict[str, pd.DataFrame] = {}
    impute = schema.missing == "impute"
    medians: dict[str, float] = {}
    typed: dict[str, pd.DataFrame] = {}
    keep: dict[str, np.ndarray] = {}
    dropped: dict[str, int] = {}
    warnings: list[str] = []
    for role, df in raw.items():
        if df is None:
            continue
        columns, absent = _typed_columns(df, schema, numerical, formats)
        empty = [c for c in schema.columns if absent[c].all()]
        if empty:
            raise AllMissingColumnError(
                f"Column(s) {', '.join(repr(c) for c in empty)} of {names[role]} have no values at all; "
                "remove them from the analysis (or the file).",
                file=names[role],
                column=empty[0],
            )
        if impute and role == "real":  # the real table comes first; its every column has a value
            # From the typed values: a date's median is a number of days, "1,234" counts as 1234.
            medians = {c: float(np.nanmedian(columns[c])) for c in numerical}
        for col, folded in spellings.items():
            present = ~absent[col]
            columns[col][present] = [folded[str(v)] for v in columns[col][present]]
        for col in schema.columns:
            if col not in numerical:
                columns[col][absent[col]] = MISSING  # the column's own copy (category_texts)
            elif impute:
                columns[col][absent[col]] = medians[col]
        mask = np.ones(len(df), dtype=bool)
        if numerical and not impute:
            has_missing = np.logical_or.reduce([absent[c] for c in numerical])
            mask = ~has_missing
            if has_missing.any():
                warnings.append(
                    f"{names[role]}: {int(has_missing.sum())} row(s) with a missing numerical value were "
                    "dropped (choose median imputation to keep them)."
                )
        dropped[role] = int((~mask).sum())
        keep[role] = mask
        if dropped[role]:
            columns = {col: values[mask] for col, values in columns.items()}
        typed[role] = pd.DataFrame(columns, index=pd.RangeIndex(int(mask.sum())))
        if schema.checked_columns:
            checked[role] = pd.DataFrame({col: category_texts(df[col])[0][mask] for col in schema.checked_columns},
                                         index=pd.RangeIndex(int(mask.sum())))

    # Before anything is encoded: refuse what would not fit, rather than run out of memory half-way.
    check_memory(typed, schema)
    pair_index = _pair_index(real, synthetic, schema, keep, names) if schema.pairing else None
    return PreparedData(
        real=typed["real"],
        synthetic=typed["synthetic"],
        holdout=typed.get("holdout"),
        schema=schema,
        pair_index=pair_index,
        dropped=dropped,
        warnings=warnings,
        kept={role: np.flatnonzero(mask) for role, mask in keep.items()},
        checked=checked,
    )


def _typed_columns(df: pd.DataFrame, schema: Schema, numerical: list[str],
                   formats: dict[str, str]) -> tuple[dict, dict]:
    """Each analysed column of ``df`` as a new array (float64 numbers, category texts) and its missing cells.

    A missing cell stays missing here (NaN, or None among the texts). Validation has refused text in a numerical
    column (numbers written "1,234" read as numbers) and unreadable dates, so a number is missing exactly where the
    table as given has no value. A date column becomes days since 1970-01-01 (``formats``: column → format).
    """
    columns, absent = {}, {}
    for col in schema.columns:
        if col in formats:
            values = date_days(df[col], formats[col])[0]
            absent[col] = np.isnan(values)
        elif col in numerical:
            values = numbers_of(df[col]).to_numpy(dtype=np.float64, na_value=np.nan, copy=True)
            absent[col] = np.isnan(values)
        else:
            values, absent[col] = category_texts(df[col])
        columns[col] = values
    return columns, absent


def _pair_index(real, synthetic, schema: Schema, keep, names) -> np.ndarray:
    """Map each kept synthetic row to the kept position of its real twin (−1 when none)."""
    real_kept_pos = np.full(len(real), -1, dtype=np.int64)
    real_kept_pos[keep["real"]] = np.arange(int(keep["real"].sum()))
    if schema.pairing == "row":
        twin_original = np.arange(len(synthetic))
    else:
        col = schema.pairing
        lookup = pd.Series(np.arange(len(real)), index=real[col].to_numpy())
        twin_original = lookup.reindex(synthetic[col].to_numpy()).fillna(-1).to_numpy().astype(np.int64)
        if (twin_original < 0).all():
            raise SchemaError(
                f"No id in {names['synthetic']}'s column '{col}' matches an id in {names['real']}; "
                "check the pairing column.",
                column=col,
            )
    twins = np.where(twin_original >= 0, real_kept_pos[np.clip(twin_original, 0, None)], -1)
    return twins[keep["synthetic"]]
