"""The Compare-metrics page's supplied ladder: synthetic tables the user uploads, each with a numeric label.

No Streamlit import; the page reaches these through :mod:`dashboard.lab.view`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Iterable, MutableMapping, Sequence

import pandas as pd

from dashboard.session.state import LoadedTable
from dashboard.uploads import default_table_name, parse_upload, unique_name

LADDER_TABLES, LADDER_LOG = "lab_ladder", "lab_ladder_log"


@dataclass
class LadderTable:
    """An uploaded synthetic table of the supplied ladder, with its numeric label."""

    name: str
    table: LoadedTable
    label: float

def guess_label(filename: str) -> float | None:
    """The last number in a file's name, as a first guess at its label (``ctgan_eps0.5.csv`` → 0.5).

    >>> guess_label("ctgan_eps0.5.csv"), guess_label("dp-eps10.parquet"), guess_label("ctgan.csv")
    (0.5, 10.0, None)
    """
    numbers = re.findall(r"\d+(?:\.\d+)?", default_table_name(PurePath(filename).name))
    return float(numbers[-1]) if numbers else None


def add_ladder_files(state: MutableMapping, files: Iterable[Any]) -> list[tuple[str, str]]:
    """Parse the uploaded files not seen before into the supplied ladder; ``(file name, message)`` per bad file.

    A table's label is guessed from its file name (:func:`guess_label`), else its position in the ladder.

    Notes
    -----
    Session-state keys used here (declared in :data:`dashboard.session.state.DEFAULTS`), in the session's
    memory only:

    - ``lab_ladder`` — the supplied ladder: a list of :class:`LadderTable` (uploads vanish on a page change,
      so the parsed tables are kept here).
    - ``lab_ladder_log`` — uploaded file id → file name, so a file still in the uploader is parsed once and a
      table the user removed is not added back on the next rerun.
    """
    log: dict[str, str] = state.setdefault(LADDER_LOG, {})
    entries: list[LadderTable] = state.setdefault(LADDER_TABLES, [])
    errors = []
    for file in files or []:
        if file is None:
            continue
        file_id = getattr(file, "file_id", None) or f"{file.name}:{getattr(file, 'size', '')}"
        if file_id in log:
            continue
        log[file_id] = file.name
        frame, error = parse_upload(file)
        if frame is None:
            errors.append((file.name, error))
            continue
        name = unique_name(default_table_name(file.name), [e.name for e in entries])
        label = guess_label(file.name)
        entries.append(LadderTable(name, LoadedTable.from_frame(name, frame),
                                   float(len(entries)) if label is None else label))
    return errors


def remove_ladder_table(state: MutableMapping, name: str) -> None:
    """Drop one table from the supplied ladder (a button's ``on_click``)."""
    state[LADDER_TABLES] = [e for e in state.get(LADDER_TABLES, []) if e.name != name]


def set_ladder_label(state: MutableMapping, name: str, label: float) -> None:
    """Give one table of the supplied ladder a new label."""
    for entry in state.get(LADDER_TABLES, []):
        if entry.name == name:
            entry.label = float(label)


def ladder_fingerprint(entries: Sequence[LadderTable]) -> list[tuple[str, str, float]]:
    """The supplied ladder as (name, content hash, label), for cache keys."""
    return [(e.name, e.table.content_hash, float(e.label)) for e in entries]


def supplied_probe_tables(entries: Sequence[LadderTable]) -> list[pd.DataFrame]:
    """Two supplied tables to time (the first twice when there is one)."""
    tables = [e.table.frame for e in entries[:2]]
    return tables if len(tables) == 2 else tables * 2
