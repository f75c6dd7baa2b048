"""What an audit measures on *one* of the generator's outputs, beside its attack.

The DCR holdout test (the distance proxy, to show how little it says) and the utility the output keeps (so that the
audit's answer weighs privacy against usefulness, as the evaluation's verdict does:
:mod:`privcore.evaluation.utility_line`).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from privcore.data import Schema
from privcore.evaluation.evaluate import evaluate
from privcore.evaluation.utility_line import utility_line

#: The utility measures cited by the audit: the cheap ones (no model trained), those of the "quick" preset.
CITED_UTILITY = ("utility_shapes", "utility_pairs")


def _dcr(result) -> dict[str, Any] | None:
    if not result.applicable:
        return None
    return {"passes": bool(result.details.passes), "risk": result.risk, "p_synthetic": result.details.p_synthetic,
            "p_holdout": result.details.p_holdout}


def _utility(report) -> dict[str, Any] | None:
    line = utility_line(report)
    if line is None or line.relative is None:
        return None
    return {"relative": line.relative, "measures": {m.metric: m.relative for m in line.measures},
            "keeps": list(line.keeps), "loses": list(line.loses), "text": line.text}


def output_checks(training: pd.DataFrame, output: pd.DataFrame, unseen: pd.DataFrame,
                  schema: Schema) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The DCR holdout test and the utility line of one output, in one evaluation.

    Parameters
    ----------
    training : DataFrame
        The records the model was trained on.
    output : DataFrame
        What the model generated (the analysed columns).
    unseen : DataFrame
        Records of the same population the model never saw (as many as ``training`` where there are): the DCR
        test's holdout and the utility's fresh sample.
    schema : Schema

    Returns
    -------
    dcr_test, utility : dict or None
        ``dcr_test`` as the audit's JSON gives it; ``utility`` with ``relative`` (the mean share of what a fresh
        sample keeps), per measure its share, what it keeps and loses, and the line in words. None where the check
        could not run.

    Notes
    -----
    Both designs (targeted and shared) call :func:`output_checks` with one model's training records, its output and
    records it never saw; neither check is the audit's result, so a failure leaves it out (None) rather than failing
    the audit.
    """
    try:
        report = evaluate(training, output[list(schema.columns)], schema, metrics=("dcr_test", *CITED_UTILITY),
                          holdout=unseen)
    except Exception:  # noqa: BLE001 - context beside the audit's result, never the result itself
        return None, None
    return _dcr(report["dcr_test"]), _utility(report)
