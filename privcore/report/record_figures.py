"""Figures of which real people a synthetic table exposes: narrowing the crowd, rare values, per-person flags.

The Learn and Results pages draw them from the tables themselves (:func:`narrowing_steps`,
:func:`rare_values_copied`) or from the flags of several metrics (records × metrics booleans). Conventions of
:mod:`privcore.report.figure_base`. This module imports no Streamlit.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from privcore.base import OKABE_ITO, ROLE_COLOURS
from privcore.report.figure_base import Figure, apply_layout, empty_figure

__all__ = ["narrowing", "narrowing_steps", "rare_values_copied", "rare_values", "flag_counts", "flag_overlap"]


def narrowing(steps: Sequence[tuple[str, int]], *, title: str = "How knowing more narrows the crowd") -> Figure:
    """Number of real records still matching after each extra attribute an attacker learns."""
    if not steps:
        return empty_figure(title, "No steps to show.")
    labels = [s[0] for s in steps]
    counts = [int(s[1]) for s in steps]
    colours = [OKABE_ITO["vermillion"] if c <= 1 else ROLE_COLOURS["real"] for c in counts]
    fig = go.Figure(go.Bar(x=labels, y=counts, marker={"color": colours}, text=[f"{c:,}" for c in counts],
                           textposition="outside"))
    apply_layout(fig, title, "what the attacker knows (cumulative)", "real people matching", height=400)
    fig.update_yaxes(type="log")
    caption = ("Each bar counts the real people who match everything the attacker knows so far; when it reaches one, "
               "that person is singled out.")
    alt = "Bar chart, log scale: " + "; ".join(f"{l}: {c:,} people" for l, c in zip(labels, counts)) + "."
    return Figure(fig, caption, alt, title)


def narrowing_steps(real, columns: Sequence[str], row: int | None = None) -> tuple[int, list[tuple[str, int]]]:
    """How many real records match a person as an attacker learns ``columns`` one after the other.

    When ``row`` is None, picks the first record that becomes unique at the latest possible step (so the
    example needs several ordinary facts, not one exotic value). Returns the row and the steps
    (label, number of matching real records), starting with everyone.
    """
    frame = real[list(columns)].astype(str)
    codes = np.zeros(len(frame), dtype=np.int64)
    counts_per_step = []
    for col in columns:
        codes = pd.factorize(pd.Series(codes).astype(str) + "|" + frame[col].to_numpy())[0]
        counts_per_step.append(np.bincount(codes)[codes])
    if row is None:
        unique_at = np.full(len(frame), len(columns) + 1)
        for step, counts in reversed(list(enumerate(counts_per_step))):
            unique_at[counts == 1] = step
        finite = unique_at[unique_at <= len(columns) - 1]
        target = int(finite.max()) if len(finite) else len(columns) - 1
        candidates = np.flatnonzero(unique_at == target)
        row = int(candidates[0]) if len(candidates) else 0
    steps = [("nothing (everyone)", len(frame))]
    for col, counts in zip(columns, counts_per_step):
        steps.append((f"+ {col} = {real[col].iloc[row]}", int(counts[row])))
    return row, steps


def rare_values_copied(real, synthetic, columns: Sequence[str], max_count: int = 1):
    """Values held by at most ``max_count`` real people, per column, and whether the synthetic table has them.

    Returns a DataFrame with ``column``, ``value``, ``real people``, ``synthetic rows``, ``real row``
    (the first real record holding the value).
    """
    rows = []
    for col in columns:
        counts = real[col].value_counts(dropna=False)
        rare = counts[counts <= max_count]
        if rare.empty:
            continue
        syn_counts = synthetic[col].value_counts(dropna=False)
        for value, n in rare.items():
            where = np.flatnonzero((real[col] == value).to_numpy())
            rows.append({"column": col, "value": value, "real people": int(n),
                         "synthetic rows": int(syn_counts.get(value, 0)),
                         "real row": int(where[0]) if len(where) else -1})
    return pd.DataFrame(rows, columns=["column", "value", "real people", "synthetic rows", "real row"])


def rare_values(
    rows: Sequence[Mapping[str, Any]],
    *,
    title: str = "Rare real values that reappear in the synthetic data",
) -> Figure:
    """Per column: values rare in the real table, and how many of those the synthetic table copies.

    Parameters
    ----------
    rows : sequence of mapping
        Each with ``column``, ``rare`` (number of values held by very few real people) and ``copied``
        (how many of those appear in the synthetic table).
    """
    rows = [r for r in rows if r.get("rare", 0) > 0]
    if not rows:
        return empty_figure(title, "No rare values in the real table.")
    cols = [r["column"] for r in rows]
    fig = go.Figure()
    fig.add_trace(go.Bar(x=cols, y=[r["rare"] for r in rows], name="rare in the real data",
                         marker={"color": ROLE_COLOURS["real"]}))
    fig.add_trace(go.Bar(x=cols, y=[r["copied"] for r in rows], name="…and present in the synthetic data",
                         marker={"color": ROLE_COLOURS["synthetic"], "pattern": {"shape": "/"}}))
    apply_layout(fig, title, "column", "number of distinct values")
    fig.update_layout(barmode="group")
    caption = ("Values that very few real people have are fingerprints: each orange bar counts such fingerprints "
               "that the synthetic table hands to an attacker.")
    alt = "Grouped bar chart. " + "; ".join(
        f"{r['column']}: {r['rare']} rare values, {r['copied']} copied" for r in rows) + "."
    return Figure(fig, caption, alt, title)


def flag_counts(flags) -> Figure:
    """How many metrics flag each real record (``flags``: DataFrame, records × metrics, booleans)."""
    title = "How many metrics flag each real person"
    if flags is None or flags.shape[1] == 0 or len(flags) == 0:
        return empty_figure(title, "No metric gives per-person flags.")
    per_record = flags.sum(axis=1).to_numpy()
    m = flags.shape[1]
    counts = np.bincount(per_record, minlength=m + 1)
    colours = [ROLE_COLOURS["real"] if k == 0 else OKABE_ITO["vermillion"] if k == m else OKABE_ITO["orange"]
               for k in range(m + 1)]
    fig = go.Figure(go.Bar(x=list(range(m + 1)), y=counts, marker={"color": colours},
                           text=[f"{c:,}" for c in counts], textposition="outside",
                           hovertemplate="flagged by %{x} metric(s): %{y:,} people<extra></extra>"))
    apply_layout(fig, title, f"number of metrics (of {m}) that flag the person", "real people")
    some = int(np.sum((per_record > 0) & (per_record < m)))
    caption = ("People in the middle bars are flagged by some metrics and not by others: the metrics disagree about "
               "them, so one score alone would give a partial picture.")
    alt = (f"Bar chart over {len(flags):,} real people: {counts[0]:,} flagged by no metric, {counts[m]:,} by all {m}, "
           f"{some:,} by some but not all.")
    return Figure(fig, caption, alt, title)


def flag_overlap(flags) -> Figure:
    """Heatmap: records flagged by the row metric but not by the column metric."""
    title = "Where metrics disagree: flagged by one, not by the other"
    if flags is None or flags.shape[1] < 2:
        return empty_figure(title, "At least two metrics with per-person flags are needed.")
    f = flags.to_numpy(dtype=bool)
    names = [str(c) for c in flags.columns]
    short = names
    matrix = (f[:, :, None] & ~f[:, None, :]).sum(axis=0)
    fig = go.Figure(go.Heatmap(
        z=matrix, x=short, y=short, text=matrix, texttemplate="%{text}",
        colorscale=[[0.0, "#FFFFFF"], [1.0, OKABE_ITO["blue"]]], showscale=True,
        hovertemplate="flagged by %{y}, not by %{x}: %{z:,} people<extra></extra>",
        colorbar={"title": {"text": "people"}},
    ))
    apply_layout(fig, title, "…but not flagged by this metric", "flagged by this metric…",
                 height=max(380, 200 + 36 * len(names)))
    fig.update_yaxes(autorange="reversed", showgrid=False)
    fig.update_xaxes(showgrid=False, tickangle=-45)
    off = matrix + matrix.T
    np.fill_diagonal(off, -1)
    i, j = np.unravel_index(int(np.argmax(off)), off.shape)
    caption = ("Each cell counts real people the row's metric flags while the column's metric does not; dark cells "
               "mark pairs of metrics that see different risks.")
    alt = (f"Heatmap of {len(names)} metrics. The largest disagreement is between {names[i]} and {names[j]}: "
           f"{matrix[i, j]:,} people flagged only by the first and {matrix[j, i]:,} only by the second.")
    return Figure(fig, caption, alt, title)
