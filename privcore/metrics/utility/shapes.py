"""Column shapes (metrics.md §6): how closely each column's distribution in the synthetic table follows the real one."""

from __future__ import annotations

import numpy as np

from privcore.base import NotApplicable
from privcore.data import NUMERICAL
from privcore.engine import MetricContext
from privcore.metrics.details import ColumnShapes
from privcore.metrics.registry import Explanation, MetricInfo, register
from privcore.metrics.results import MetricOutput
from privcore.metrics.utility._base import (
    SDMETRICS,
    SYNQP,
    bin_column,
    column_kinds,
    hellinger,
    ks_complement,
    shares,
    tvd,
)

AVERAGED = "the mean over the columns of 1 − TVD of the binned shares"


def column_shapes(real, other, kinds: dict[str, str]) -> ColumnShapes:
    """The column-shape evidence of ``other`` (a synthetic table or the holdout) against ``real``.

    Notes
    -----
    Per column, on the shared bins of :mod:`privcore.metrics.utility._base` (numerical columns cut at the real table's
    quantiles into at most 20 bins): the total variation distance ``TVD = ½ Σ |p_i − q_i|`` and SynQP's Hellinger
    distance ``H = sqrt(1 − Σ sqrt(p_i q_i))`` of the binned shares, and for numerical columns SDMetrics' ``1 − KS``
    on the raw values. The score is the mean over the columns of ``1 − TVD``.

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"c": ["a", "a", "b", "b"]})
    >>> other = pd.DataFrame({"c": ["a", "a", "a", "b"]})
    >>> d = column_shapes(real, other, {"c": "categorical"})
    >>> d.tvd, round(d.hellinger[0], 6), d.utility
    ([0.25], 0.184592, 0.75)
    """
    columns = list(kinds)
    if not columns:
        raise NotApplicable("there is no analysed column to compare.")
    distances, hellingers, bins, ks = [], [], [], {}
    for column in columns:
        binned = bin_column(real[column], other[column], kinds[column])
        p, q = shares(binned.real, binned.n_bins), shares(binned.other, binned.n_bins)
        distances.append(tvd(p, q))
        hellingers.append(hellinger(p, q))
        bins.append(int(np.count_nonzero((p > 0) | (q > 0))))
        if kinds[column] == NUMERICAL:
            ks[column] = ks_complement(real[column].to_numpy(dtype=float), other[column].to_numpy(dtype=float))
    utility = float(np.clip(1.0 - np.mean(distances), 0.0, 1.0))
    return ColumnShapes(utility=utility, columns=columns, tvd=distances, hellinger=hellingers, bins=bins,
                        ks_complement=ks, averaged=AVERAGED)


def compute_shapes(ctx: MetricContext) -> MetricOutput:
    """Column shapes: ``utility = mean over columns of (1 − TVD)`` of the binned shares; ``raw`` the same.

    Examples
    --------
    >>> import pandas as pd
    >>> from privcore import evaluate
    >>> real = pd.DataFrame({"c": ["a", "a", "b", "b"], "x": [1.0, 2.0, 3.0, 4.0]})
    >>> other = pd.DataFrame({"c": ["a", "a", "a", "b"], "x": [1.0, 2.0, 3.0, 4.0]})
    >>> result = evaluate(real, other, metrics="utility_shapes")["utility_shapes"]
    >>> result.risk is None, result.utility.score
    (True, 0.875)
    """
    details = column_shapes(ctx.real, ctx.synthetic, column_kinds(ctx.schema))
    return MetricOutput(risk=None, raw=details.utility, details=details, params={"max_bins": 20})


register(MetricInfo(
    id="utility_shapes",
    order=180,
    # On the demo's 3 × 3,000 rows with its fresh-sample reference, on a shared, loaded 2-core
    # machine: 0.05 s while CRP took 0.09 s there (0.02 s unloaded), so scaled by that ratio.
    cost=(0.02, 1.0),
    name="Column shapes (fidelity of each column)",
    family="Utility",
    summary="How closely does each column's distribution in the synthetic table follow the real one?",
    attacker_knows="No attacker: a utility measure. It compares each column of the synthetic table with the same "
    "column of the real table.",
    needs=frozenset(),
    per_record_unit="none",
    raw_meaning="The mean over the columns of 1 − TVD of the binned shares (1 = every column's distribution kept).",
    reference=f"{SYNQP} (Hellinger distance); {SDMETRICS}",
    explanation=Explanation(
        attack="Not an attack: the measure asks how faithfully each column is reproduced, one column at a time. "
        "A useful synthetic table has the real table's spread of ages, mix of occupations and so on.",
        steps=(
            "Cut every numerical column at the real table's quantiles into at most 20 bins (equal shares of real "
            "people, tied values merged); every category is a bin, and so are missing values and values only the "
            "synthetic table has.",
            "For each column, compare the shares of real and synthetic rows in each bin: the total variation "
            "distance (half the summed gaps) and SynQP's Hellinger distance.",
            "The score is the mean over the columns of 1 − the total variation distance; it is compared with the "
            "same score of a fresh sample of real people (the holdout).",
        ),
        high="Each column's values come in about the same proportions as in the real table, as in a fresh sample "
        "of real people.",
        low="Some columns have clearly other proportions than in the real table: analyses of those columns on the "
        "synthetic data would mislead.",
        blind_spots="One column at a time: a table can keep every column's shape and still break how columns go "
        "together (see column-pair trends), and differences within a bin are not seen.",
        note="Choice: numerical columns are binned at the real table's quantiles (at most 20 bins) for both TVD and "
        "Hellinger; the score averages 1 − TVD (1 − KS on raw numbers is reported beside it, as in SDMetrics).",
    ),
    compute=compute_shapes,
    details_type=ColumnShapes,
    min_rows=1,
))
