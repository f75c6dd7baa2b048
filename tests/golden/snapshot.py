"""Snapshots of what every demo scenario reports and draws, to prove a refactoring changed nothing.

:func:`snapshot` evaluates every metric on every demo scenario (small tables, so the test stays quick)
and records, per metric, the JSON-contract fields of the result, its per-record risks and the data of
every explanatory figure (traces and axis titles, caption, alt text and title). Numbers are rounded to
10 significant digits, so that only a real change shows up, not the last bit of a float.

``python tests/golden/snapshot.py OUT.json.gz`` writes a snapshot; ``tests/report/test_golden.py`` compares the
current code with the one stored in this folder, which was taken before metric parameters, details and
figures were declared per metric (commit 320299e).
"""

from __future__ import annotations

import gzip
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import plotly.io as pio

#: Rows per table: small enough for a quick test, large enough for every metric to apply.
ROWS = 400
#: Result fields of the JSON contract as it was before details were added to it.
RESULT_FIELDS = ("risk", "raw", "applicable", "reason", "baseline", "interval", "params", "warnings")
SIGNIFICANT = 10


def rounded(value: Any) -> Any:
    """``value`` with every float rounded to :data:`SIGNIFICANT` significant digits (recursively)."""
    if isinstance(value, dict):
        return {str(k): rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v) for v in value]
    if isinstance(value, np.ndarray):
        return rounded(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if not math.isfinite(value):
            return str(value)
        return float(f"{value:.{SIGNIFICANT}g}")
    if isinstance(value, np.integer):
        return int(value)
    return value


def figure_data(figure) -> dict[str, Any]:
    """The content of one :class:`privcore.report.figures.Figure`: traces, axis titles and the words."""
    spec = json.loads(pio.to_json(figure.fig, validate=False))
    layout = spec.get("layout", {})
    axes = {key: (value.get("title") or {}).get("text") for key, value in layout.items()
            if key.startswith(("xaxis", "yaxis")) and isinstance(value, dict)}
    return rounded({
        "title": figure.title,
        "caption": figure.caption,
        "alt": figure.alt,
        "traces": spec.get("data", []),
        "axes": axes,
    })


def snapshot(rows: int = ROWS, metrics: str | list[str] = "all") -> dict[str, Any]:
    """Every scenario → every metric (or those of ``metrics``) → its result fields, per-record risks and figures."""
    from privcore import Schema, evaluate
    from privcore.demo import list_scenarios, load_scenario
    from privcore.report.figures import metric_figures

    out: dict[str, Any] = {}
    for scenario in list_scenarios():
        demo = load_scenario(scenario.name, n=rows)
        schema = Schema(types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive, seed=0)
        report = evaluate(demo.real, demo.synthetic, schema, metrics=metrics, holdout=demo.holdout, seed=0,
                          strict=True)
        contract = report.to_dict()
        metrics = {}
        for metric_id, result in report.items():
            fields = {k: contract["metrics"][metric_id][k] for k in RESULT_FIELDS}
            metrics[metric_id] = {
                "result": rounded(fields),
                "per_record": rounded(result.per_record) if result.per_record is not None else None,
                "figures": [figure_data(f) for f in metric_figures(report, metric_id)],
            }
        out[scenario.name] = {"metrics": metrics, "warnings": contract["warnings"], "rows": contract["rows"]}
    return out


def write(path: str | Path, rows: int = ROWS) -> None:
    """Write :func:`snapshot` as gzipped JSON."""
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        json.dump(snapshot(rows), handle, sort_keys=True)


def read(path: str | Path) -> dict[str, Any]:
    """Read a snapshot written by :func:`write`."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


if __name__ == "__main__":  # pragma: no cover
    write(sys.argv[1])
