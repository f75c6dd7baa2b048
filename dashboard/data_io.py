"""Glue between the pages and privcore: uploads, the demo, the Configure form and metric availability.

Every function takes the session state as a plain mapping (``st.session_state`` in the app, a dict in
tests) and never imports Streamlit, so the pages stay short and this logic can be tested on its own.

Session-state keys used here besides the contract of :mod:`dashboard.state`:

- ``schema_draft`` — the Configure form as the user left it (see :func:`current_draft`); it may be
  invalid, whereas ``schema`` only ever holds a schema that passed :meth:`privcore.Schema.validate`
  on the Configure page (or the inferred/demo one set when data is loaded).
- ``upload_log`` — uploaded file id → outcome, so that a file still sitting in an uploader is parsed
  once, and a table the user removed is not added back on the next rerun.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field, replace
from pathlib import PurePath
from types import SimpleNamespace
from typing import Any, Iterable, MutableMapping

import pandas as pd

from privcore import registry
from privcore.demo import list_scenarios, load_scenario
from privcore.errors import ColumnMismatchError, InputError
from privcore.evaluate import unmet_need
from privcore.io import check_column_kinds_agree, check_no_all_missing, check_same_columns, load_table
from privcore.schema import COLUMN_TYPES, Schema, guess_column_type, infer_schema

from dashboard.state import LoadedTable, Tables

logger = logging.getLogger(__name__)

#: Extensions the uploaders accept. ``xls`` is accepted on purpose: privcore then explains how to
#: convert an old workbook, which is kinder than the browser silently refusing the file.
UPLOAD_TYPES = ["csv", "tsv", "txt", "gz", "parquet", "pq", "xlsx", "xlsm", "xls"]

DEFAULT_DEMO = "noisy_copy"
ROLES = ("real", "synthetic", "holdout")

GENERIC_READ_ERROR = (
    "Something unexpected went wrong while reading {name}, and the file was not loaded. Check that "
    "it is a CSV, TSV, Parquet or Excel (.xlsx) table with a header row, or save it again in one of "
    "those formats and retry."
)


# ------------------------------------------------------------------------------------------ uploads


def parse_upload(uploaded: Any, name: str | None = None) -> tuple[pd.DataFrame | None, str | None]:
    """Parse one uploaded file with :func:`privcore.io.load_table`, never raising.

    Parameters
    ----------
    uploaded : UploadedFile, bytes or path
        What the user uploaded (anything ``load_table`` accepts).
    name : str, optional
        Name used in messages; defaults to the file name.

    Returns
    -------
    frame : pandas.DataFrame or None
        The parsed table, or None when it could not be read.
    message : str or None
        A user-facing explanation when ``frame`` is None.
    """
    name = name or getattr(uploaded, "name", None) or "the uploaded file"
    try:
        return load_table(uploaded, name=name), None
    except InputError as exc:  # privcore's messages are written for the person who uploaded
        return None, str(exc)
    except MemoryError:
        return None, (
            f"{name} is too large to hold in memory here. Upload a sample of the rows, or save the "
            "table as Parquet, and try again."
        )
    except Exception as exc:  # noqa: BLE001 — a traceback must never reach the user
        # Only the exception type is logged: its message could quote the user's data.
        logger.warning("unexpected error while parsing an upload: %s", type(exc).__name__)
        return None, GENERIC_READ_ERROR.format(name=name)


def default_table_name(filename: str) -> str:
    """A short table name from a file name: the stem, without ``.gz`` and the format suffix.

    Examples
    --------
    >>> default_table_name("ctgan_run3.csv.gz")
    'ctgan_run3'
    """
    path = PurePath(filename)
    if path.suffix.lower() == ".gz":
        path = PurePath(path.stem)
    return path.stem or filename


def unique_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)``… if it is already taken."""
    taken = set(taken)
    if name not in taken:
        return name
    n = 2
    while f"{name} ({n})" in taken:
        n += 1
    return f"{name} ({n})"


@dataclass
class UploadOutcome:
    """What happened to one uploaded file (kept in ``upload_log`` under its file id)."""

    role: str
    filename: str
    error: str | None = None
    table_name: str | None = None


def process_uploads(state: MutableMapping, role: str, files: Iterable[Any]) -> bool:
    """Parse the files of one uploader that were not seen before and store the good ones.

    Parameters
    ----------
    state : mapping
        The session state (``tables``, ``schema``, ``schema_draft``, ``demo``, ``upload_log``).
    role : {"real", "synthetic", "holdout"}
        Which uploader the files come from.
    files : iterable of UploadedFile
        The uploader's current value (None entries are ignored).

    Returns
    -------
    bool
        True if the loaded tables changed (the caller reruns so the sidebar is up to date).

    Notes
    -----
    A real or holdout upload replaces the previous table of that role; synthetic uploads are added,
    named after the file stem. Loading a demo and then uploading a file removes the demo tables
    first, so the two are never mixed silently.
    """
    log: dict[str, UploadOutcome] = state.setdefault("upload_log", {})
    changed = False
    for file in files:
        if file is None:
            continue
        file_id = getattr(file, "file_id", None) or f"{file.name}:{getattr(file, 'size', '')}"
        if file_id in log:
            continue
        frame, error = parse_upload(file)
        outcome = UploadOutcome(role=role, filename=file.name, error=error)
        log[file_id] = outcome
        if frame is None:
            continue
        if state.get("demo"):
            clear_tables(state)
        tables: Tables = state["tables"]
        if role == "real":
            set_real(state, LoadedTable.from_frame(file.name, frame))
            outcome.table_name = file.name
        elif role == "holdout":
            tables.holdout = LoadedTable.from_frame(file.name, frame)
            outcome.table_name = file.name
        else:
            name = unique_name(default_table_name(file.name), tables.synthetic)
            tables.synthetic[name] = LoadedTable.from_frame(name, frame)
            outcome.table_name = name
        changed = True
    return changed


def upload_errors(state: MutableMapping, files: Iterable[Any]) -> list[tuple[str, str]]:
    """(file name, message) for each file now in an uploader that could not be loaded."""
    log: dict[str, UploadOutcome] = state.get("upload_log", {})
    out = []
    for file in files:
        if file is None:
            continue
        outcome = log.get(getattr(file, "file_id", None) or f"{file.name}:{getattr(file, 'size', '')}")
        if outcome is not None and outcome.error:
            out.append((file.name, outcome.error))
    return out


def set_real(state: MutableMapping, table: LoadedTable) -> None:
    """Make ``table`` the real table; if its content changed, start again from the inferred schema.

    Also selects the quick metric preset when no metric is selected yet.
    """
    tables: Tables = state["tables"]
    previous = tables.real
    tables.real = table
    if previous is None or previous.content_hash != table.content_hash:
        state["schema"] = infer_schema(table.frame)
        state["schema_draft"] = None  # rebuilt from the new schema by the Configure page
    if not state.get("selected_metrics"):
        # The Results page runs what is selected; without a visit to the Metrics page, run "quick".
        state["selected_metrics"] = list(registry.presets()["quick"])


def clear_tables(state: MutableMapping) -> None:
    """Forget every loaded table and everything derived from it (schema, draft, demo marker)."""
    state["tables"] = Tables()
    state["schema"] = None
    state["schema_draft"] = None
    state["demo"] = None


def remove_table(state: MutableMapping, role: str, name: str | None = None) -> None:
    """Remove the real or holdout table, or the synthetic table called ``name``."""
    tables: Tables = state["tables"]
    if role == "real":
        tables.real = None
        state["schema"] = None
        state["schema_draft"] = None
    elif role == "holdout":
        tables.holdout = None
    else:
        tables.synthetic.pop(name, None)
    if tables.real is None and not tables.synthetic and tables.holdout is None:
        state["demo"] = None


def rename_synthetic(state: MutableMapping, old: str, new: str) -> str | None:
    """Rename a synthetic table, keeping the order; return an error message or None on success."""
    tables: Tables = state["tables"]
    new = (new or "").strip()
    if new == old:
        return None
    if not new:
        return "A synthetic table needs a name; the previous name was kept."
    if new in tables.synthetic:
        return f"Another synthetic table is already called {new!r}; choose a different name."
    tables.synthetic = {
        (new if name == old else name): (replace(t, name=new) if name == old else t)
        for name, t in tables.synthetic.items()
    }
    return None


# --------------------------------------------------------------------------------------------- demo


def scenario_choices() -> dict[str, Any]:
    """Demo scenarios by name, in teaching order (each has ``title`` and ``description``)."""
    return {s.name: s for s in list_scenarios()}


def load_demo(state: MutableMapping, name: str = DEFAULT_DEMO) -> None:
    """Replace everything loaded with a demo scenario, its holdout and its schema.

    Also selects the quick metric preset when no metric is selected yet, so that "start with the
    demo" leads straight to results.
    """
    demo = load_scenario(name)
    # Copies: the demo loader may cache its frames, and pages must never share mutable data.
    state["tables"] = Tables(
        real=LoadedTable.from_frame("Adult sample (real)", demo.real.copy()),
        synthetic={demo.scenario.title: LoadedTable.from_frame(demo.scenario.title, demo.synthetic.copy())},
        holdout=LoadedTable.from_frame("Adult holdout", demo.holdout.copy()),
    )
    state["schema"] = Schema(
        types=dict(demo.types), key=list(demo.key), sensitive=demo.sensitive, seed=int(demo.seed)
    )
    state["schema_draft"] = None
    state["demo"] = name
    if not state.get("selected_metrics"):
        state["selected_metrics"] = list(registry.presets()["quick"])


# -------------------------------------------------------------------------------- table summaries


def describe(role: str, name: str) -> str:
    """How a table is named in messages: "the synthetic table 'ctgan'"."""
    return f"the {role} table '{name}'"


def sentence(message: str) -> str:
    """The message with a capital first letter (privcore messages may start with a table name)."""
    return message[:1].upper() + message[1:]


def missing_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Missing values per column: count and share, one row per column, in table order."""
    counts = frame.isna().sum()
    share = counts / max(len(frame), 1)
    return pd.DataFrame(
        {"column": [str(c) for c in frame.columns], "missing values": counts.to_numpy(),
         "share": [f"{s:.1%}" for s in share.to_numpy()]}
    )


@dataclass
class FitProblem:
    """A way in which a loaded table does not fit the others.

    ``role`` and ``name`` say which loaded table the problem is shown with; ``missing`` and
    ``extra`` list the mismatched columns of a column mismatch.
    """

    role: str
    name: str
    message: str
    missing: list = field(default_factory=list)
    extra: list = field(default_factory=list)


def fit_problems(tables: Tables) -> list[FitProblem]:
    """Check every loaded table against the real one with privcore's checks, collecting all problems.

    Column mismatches come with the lists of missing and extra columns so that the page can explain
    them column by column; empty columns and numeric/text conflicts follow.
    """
    if tables.real is None:
        return []
    loaded = [("real", tables.real)] + [("synthetic", t) for t in tables.synthetic.values()]
    if tables.holdout is not None:
        loaded.append(("holdout", tables.holdout))
    # Messages name tables by role and name; this maps those descriptions back to the tables.
    described = {describe(role, t.name): (role, t) for role, t in loaded}
    real_name = describe("real", tables.real.name)
    problems: list[FitProblem] = []
    for name, (role, table) in described.items():
        if role == "real":
            continue
        try:
            check_same_columns(tables.real.frame, table.frame, real_name, name)
        except ColumnMismatchError as exc:
            problems.append(FitProblem(role, table.name, sentence(str(exc)), list(exc.missing),
                                       list(exc.extra)))
    for name, (role, table) in described.items():
        try:
            check_no_all_missing(table.frame, name)
        except InputError as exc:
            problems.append(FitProblem(role, table.name, sentence(str(exc))))
    try:
        check_column_kinds_agree({name: table.frame for name, (_, table) in described.items()})
    except InputError as exc:
        role, table = described.get(exc.file, ("real", tables.real))
        problems.append(FitProblem(role, table.name, sentence(str(exc))))
    return problems


def mismatch_frame(problem: FitProblem, real_name: str) -> pd.DataFrame:
    """One row per mismatched column saying where it is and where it is missing."""
    table = describe(problem.role, problem.name)
    rows = [(str(c), f"in {real_name}, missing from {table}") for c in problem.missing]
    rows += [(str(c), f"in {table}, not in {real_name}") for c in problem.extra]
    return pd.DataFrame(rows, columns=["column", "problem"])


# --------------------------------------------------------------------------- the Configure form


NO_SENSITIVE = "(none)"
PAIRING_NONE = "No pairing"
PAIRING_ROW = "Same row order"
PAIRING_COLUMN = "Id column: {}"


def draft_from_schema(schema: Schema | None, real: LoadedTable) -> dict[str, Any]:
    """The Configure form's content for ``real``, starting from ``schema`` (inferred when None).

    Returns
    -------
    dict
        ``columns`` (real table order), ``types`` and ``analyse`` (column → value, for every column),
        ``notes`` (inference notes), ``key`` (list, or None for "every analysed non-sensitive
        column"), ``sensitive``, ``pairing``, ``missing``, ``seed`` and ``real_hash``.
    """
    frame = real.frame
    schema = schema if schema is not None else infer_schema(frame)
    columns = [str(c) for c in frame.columns]
    guesses = {c: guess_column_type(frame[c]) for c in frame.columns}
    return {
        "columns": columns,
        "types": {c: schema.types.get(c, guesses[c].type) for c in columns},
        "analyse": {c: c in schema.types for c in columns},
        "notes": {c: guesses[c].note for c in columns},
        "distinct": {c: int(frame[c].nunique()) for c in columns},
        "key": None if schema.key is None else list(schema.key),
        "sensitive": schema.sensitive,
        "pairing": schema.pairing,
        "missing": schema.missing,
        "seed": int(schema.seed),
        "real_hash": real.content_hash,
    }


def current_draft(state: MutableMapping, tables: Tables, widget_keys: Iterable[str] = ()) -> dict:
    """The Configure form's draft for the loaded real table, (re)built when missing or stale.

    Parameters
    ----------
    state : mapping
        The session state.
    tables : Tables
        Loaded tables (a real table must be present).
    widget_keys : iterable of str
        Keys of the Configure widgets; forgotten when a stale draft is replaced, so that they do not
        show choices made for another table.
    """
    draft = state.get("schema_draft")
    if draft is not None and draft.get("real_hash") == tables.real.content_hash:
        return draft
    if draft is not None:
        for key in widget_keys:
            state.pop(key, None)
    draft = draft_from_schema(state.get("schema"), tables.real)
    state["schema_draft"] = draft
    return draft


def editor_frame(draft: dict) -> pd.DataFrame:
    """The table shown in the column editor: name, type, analyse flag, distinct count and note."""
    cols = draft["columns"]
    return pd.DataFrame(
        {
            "column": cols,
            "type": [draft["types"][c] for c in cols],
            "analyse": [bool(draft["analyse"][c]) for c in cols],
            "distinct values": [draft["distinct"][c] for c in cols],
            "note": [draft["notes"][c] for c in cols],
        }
    )


def apply_editor(draft: dict, edited: pd.DataFrame) -> None:
    """Copy types and analyse flags from the editor's (edited) table into the draft."""
    for row in edited.itertuples(index=False):
        column = row.column
        if column not in draft["types"]:
            continue
        if row.type in COLUMN_TYPES:  # an emptied cell keeps the previous type
            draft["types"][column] = row.type
        draft["analyse"][column] = bool(row.analyse)


def pairing_column(draft: dict) -> str | None:
    """The id column used for pairing, if pairing is by column."""
    return draft["pairing"] if draft["pairing"] not in (None, "row") else None


def analysed_columns(draft: dict) -> list[str]:
    """Columns ticked for analysis, in table order (the pairing id column is never analysed)."""
    return [c for c in draft["columns"] if draft["analyse"][c] and c != pairing_column(draft)]


def default_key(draft: dict) -> list[str]:
    """The key used when the user has not chosen one: every analysed non-sensitive column."""
    return [c for c in analysed_columns(draft) if c != draft["sensitive"]]


def pairing_options(draft: dict) -> dict[str, str | None]:
    """Label shown in the pairing select → ``Schema.pairing`` value."""
    options: dict[str, str | None] = {PAIRING_NONE: None, PAIRING_ROW: "row"}
    options.update({PAIRING_COLUMN.format(c): c for c in draft["columns"]})
    return options


def pairing_label(draft: dict) -> str:
    """The pairing select's label for the draft's pairing."""
    return next(label for label, value in pairing_options(draft).items() if value == draft["pairing"])


def schema_from_draft(draft: dict) -> Schema:
    """The :class:`privcore.Schema` the draft describes (not validated)."""
    return Schema(
        types={c: draft["types"][c] for c in analysed_columns(draft)},
        key=None if draft["key"] is None else list(draft["key"]),
        sensitive=draft["sensitive"],
        pairing=draft["pairing"],
        missing=draft["missing"],
        seed=int(draft["seed"]),
    )


def validate_schema(schema: Schema, tables: Tables) -> str | None:
    """Check ``schema`` against every loaded table; the user-facing problem, or None if it is valid."""
    holdout_name = describe("holdout", tables.holdout.name) if tables.holdout is not None else "holdout"
    try:
        schema.validate(
            tables.real.frame,
            {describe("synthetic", n): t.frame for n, t in tables.synthetic.items()},
            None if tables.holdout is None else tables.holdout.frame,
            real_name=describe("real", tables.real.name),
            holdout_name=holdout_name,
        )
    except InputError as exc:
        return sentence(str(exc))
    except Exception as exc:  # noqa: BLE001 — never a traceback; the data may be unusual
        logger.warning("unexpected error while validating a schema: %s", type(exc).__name__)
        return ("These settings could not be checked against the data. Check the column types "
                "(a column with mixed numbers and text is best declared categorical) and try again.")
    return None


# ------------------------------------------------------------------------------ metric availability


def metric_availability(tables: Tables, schema: Schema) -> dict[str, str | None]:
    """For every registered metric, why it cannot run on the loaded data (None when it can).

    Uses :func:`privcore.evaluate.unmet_need`, the very check ``evaluate`` applies, on the tables as
    loaded (before missing-value handling), once per synthetic table; the reasons found are joined.

    Notes
    -----
    ``unmet_need`` reads ``schema``, ``real``, ``synthetic``, ``holdout`` and ``pair_index`` of a
    prepared data set. Preparing every table just to list metrics would be slow, so a light stand-in
    carries the raw tables, and ``pair_index`` only says whether a pairing is configured (whether it
    actually matches rows is checked by the Configure page's validation and by ``evaluate``).
    """
    holdout = None if tables.holdout is None else tables.holdout.frame
    probes = [
        SimpleNamespace(schema=schema, real=tables.real.frame, synthetic=t.frame, holdout=holdout,
                        pair_index=None if schema.pairing is None else True)
        for t in tables.synthetic.values()
    ]
    out: dict[str, str | None] = {}
    for info in registry.all_metrics():
        reasons = list(dict.fromkeys(r for p in probes if (r := unmet_need(info, p)) is not None))
        out[info.id] = " ".join(without_cli_flags(r) for r in reasons) or None
    return out


def without_cli_flags(reason: str) -> str:
    """A registry reason without its command-line hints, which mean nothing on a web page.

    Examples
    --------
    >>> without_cli_flags("needs a holdout table: upload one (--holdout).")
    'needs a holdout table: upload one.'
    >>> without_cli_flags("needs a pairing (same row order or an id column, --pairing).")
    'needs a pairing (same row order or an id column).'
    """
    reason = re.sub(r",?\s*--[a-z][a-z-]*", "", reason)
    return re.sub(r"\s*\(\s*\)", "", reason)
