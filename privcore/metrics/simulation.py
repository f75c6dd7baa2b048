"""Simulation-based metrics (metrics.md §1; review §2.1): ZCAP, GCAP, AIR, CRP."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcore.context import MetricContext
from privcore.registry import Explanation, MetricInfo, register
from privcore.results import MetricOutput

REVIEW = "Trudslev et al., A review of privacy metrics for synthetic tabular data (PrivEval)"


def compute_crp(ctx: MetricContext) -> MetricOutput:
    """Common Row Proportion.

    ``risk = |{distinct z ∈ Z : z = y for some y ∈ Y}| / (|Y| + 1e-8)``, equality on every analysed
    attribute (constant columns included). per_record (real) = 1 if an exact synthetic copy exists.

    Examples
    --------
    >>> from privcore import evaluate
    >>> import pandas as pd
    >>> real = pd.DataFrame({"a": [1, 2, 3, 4], "b": list("xyxy")})
    >>> round(evaluate(real, real.iloc[[0, 0, 1]], metrics="crp")["crp"].risk, 6)
    0.5
    """
    columns = ctx.schema.columns
    real = ctx.real[columns]
    synthetic = ctx.synthetic[columns].drop_duplicates()
    copied = synthetic.merge(real.drop_duplicates(), on=columns, how="inner")
    n_copied = len(copied)
    flagged = real.merge(synthetic.assign(_copied=True), on=columns, how="left")["_copied"]
    per_record = flagged.notna().to_numpy(dtype=float)
    return MetricOutput(
        risk=n_copied / (len(real) + 1e-8),
        raw=n_copied / (len(real) + 1e-8),
        per_record=per_record,
        details={"copied_distinct_rows": int(n_copied), "real_rows_copied": int(per_record.sum())},
    )


register(
    MetricInfo(
        id="crp",
        name="Common Row Proportion (CRP)",
        family="Simulation-based",
        summary="Share of real records that appear verbatim in the synthetic data.",
        attacker_knows="Nothing beyond the synthetic table: anyone can look for exact copies of real people.",
        needs=frozenset(),
        per_record_unit="real",
        raw_meaning="Same as risk: higher = more real rows copied.",
        reference=f"{REVIEW}, §2.1.4.",
        explanation=Explanation(
            attack="Someone who holds a real person's full record checks whether that exact record occurs in the "
            "synthetic table; a copy confirms the person was in the training data and reveals every attribute.",
            steps=(
                "Take the distinct rows of the synthetic table.",
                "Count how many of them equal some real record on every column.",
                "Divide by the number of real records.",
            ),
            high="Many real records were copied verbatim: the synthetic table republishes real people.",
            low="No synthetic row is an exact copy of a real record.",
            blind_spots="Misses near-copies (one value changed or a number off by one) and copies of rare values "
            "inside otherwise new rows; with continuous columns exact copies are rare even for a leaky generator.",
            note="",
        ),
        compute=compute_crp,
        min_rows=1,
    )
)
