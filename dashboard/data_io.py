"""Glue between the pages and privcore: uploads, the demo, the Configure form and metric availability.

Every function takes the session state as a plain mapping (``st.session_state`` in the app, a dict in
tests) and never imports Streamlit, so the pages stay short and this logic can be tested on its own.

Session-state keys used here besides the contract of :mod:`dashboard.state`:

- ``schema_draft`` — the Configure form as the user left it (see :func:`current_draft`); it may be
  invalid, whereas ``schema`` only ever holds a schema that passed :meth:`privcore.Schema.validate`
  on the Configure page (or the inferred/demo one set when data is loaded).
- ``upload_log`` — uploaded file id → outcome, so that a file still sitting in an uploader is parsed
  once, and a table the user removed is not added back on the next rerun.
- ``reference`` — the optional reference table (:class:`LoadedTable` or None): real records of the same
  population that were neither used for training nor are in the holdout. While it fits the real table,
  :func:`sync_reference` puts it into ``metric_params`` as the ``reference`` parameter of
  :data:`REFERENCE_METRICS`; the results cache key counts it by its content hash
  (:func:`dashboard.state.run_key`) and reports describe it without printing its rows.
- ``metric_param_draft`` — Metrics page widget key → the value the user last gave it (valid or not), so
  that a parameter widget shows the same value after a visit to another page.
"""

from __future__ import annotations

import logging
import math
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
ROLES = ("real", "synthetic", "holdout", "reference")

#: Metrics that take the reference table as their ``reference`` parameter.
REFERENCE_METRICS = ("mia_calibrated", "mia_domias")

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


def _file_id(file: Any) -> str:
    """The key of an uploaded file in ``upload_log`` (Streamlit's file id; name and size for stand-ins)."""
    return getattr(file, "file_id", None) or f"{file.name}:{getattr(file, 'size', '')}"


def process_uploads(state: MutableMapping, role: str, files: Iterable[Any]) -> bool:
    """Parse the files of one uploader that were not seen before and store the good ones.

    Parameters
    ----------
    state : mapping
        The session state (``tables``, ``schema``, ``schema_draft``, ``demo``, ``upload_log``).
    role : {"real", "synthetic", "holdout", "reference"}
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
    first, so the two are never mixed silently. A reference table is checked against the real table
    (demo or not) and only stored when it fits: it replaces the previous one.
    """
    log: dict[str, UploadOutcome] = state.setdefault("upload_log", {})
    changed = False
    for file in files:
        if file is None:
            continue
        file_id = _file_id(file)
        if file_id in log:
            continue
        frame, error = parse_upload(file)
        outcome = UploadOutcome(role=role, filename=file.name, error=error)
        log[file_id] = outcome
        if frame is None:
            continue
        if role == "reference":
            table = LoadedTable.from_frame(file.name, frame)
            outcome.error = reference_problem(state["tables"], table)
            if outcome.error is None:
                set_reference(state, table)
                outcome.table_name = file.name
                changed = True
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
        outcome = log.get(_file_id(file))
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
    sync_reference(state)  # a reference that does not fit the new real table is no longer passed on


def clear_tables(state: MutableMapping) -> None:
    """Forget every loaded table (the reference too) and everything derived from it."""
    state["tables"] = Tables()
    state["schema"] = None
    state["schema_draft"] = None
    state["demo"] = None
    set_reference(state, None)


def remove_table(state: MutableMapping, role: str, name: str | None = None) -> None:
    """Remove the real, holdout or reference table, or the synthetic table called ``name``."""
    if role == "reference":
        set_reference(state, None)
        return
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
    sync_reference(state)


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
    set_reference(state, None)  # the demo replaces everything loaded
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


# ------------------------------------------------------------------------------- reference table


def reference_problem(tables: Tables, reference: LoadedTable) -> str | None:
    """Why ``reference`` cannot serve as the reference table of ``tables`` (None when it fits).

    It must have the real table's columns, no empty column, and numbers or text in the same columns.
    """
    if tables.real is None:
        return (f"The reference table {reference.name} is checked against the real table: load the real "
                "table first, then upload the reference table again.")
    problem = reference_fit_problem(tables, reference)
    return None if problem is None else problem.message


def reference_fit_problem(tables: Tables, reference: LoadedTable) -> FitProblem | None:
    """The first way ``reference`` does not fit the real table (with the mismatched columns), or None."""
    if tables.real is None:
        return None
    real_name, name = describe("real", tables.real.name), describe("reference", reference.name)
    try:
        check_same_columns(tables.real.frame, reference.frame, real_name, name)
    except ColumnMismatchError as exc:
        return FitProblem("reference", reference.name, sentence(str(exc)), list(exc.missing), list(exc.extra))
    try:
        check_no_all_missing(reference.frame, name)
        check_column_kinds_agree({real_name: tables.real.frame, name: reference.frame})
    except InputError as exc:
        return FitProblem("reference", reference.name, sentence(str(exc)))
    return None


def set_reference(state: MutableMapping, table: LoadedTable | None) -> None:
    """Store (or, with None, remove) the reference table and update ``metric_params`` accordingly."""
    state["reference"] = table
    sync_reference(state)


def sync_reference(state: MutableMapping) -> None:
    """Pass the reference table to :data:`REFERENCE_METRICS` through ``metric_params`` while it fits.

    Without a reference table, or when it no longer fits the real table (which was replaced), the
    ``reference`` entries are removed and the attacks fall back to half of the holdout. Other
    parameters in ``metric_params`` are left alone.
    """
    reference: LoadedTable | None = state.get("reference")
    tables: Tables | None = state.get("tables")
    usable = (reference is not None and tables is not None and tables.real is not None
              and reference_fit_problem(tables, reference) is None)
    params: dict = state.setdefault("metric_params", {})
    for metric_id in REFERENCE_METRICS:
        own = dict(params.get(metric_id) or {})
        current = own.get("reference")
        if usable:
            if current is not reference.frame:  # the run key hashes the frame's content (state.run_key)
                own["reference"] = reference.frame
        else:
            own.pop("reference", None)
        _store_overrides(params, metric_id, own)


def _store_overrides(params: dict, metric_id: str, own: dict) -> None:
    """Keep ``own`` as ``metric_id``'s entry of ``metric_params``; no entry at all when it is empty."""
    if own:
        params[metric_id] = own
    else:
        params.pop(metric_id, None)


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


# ------------------------------------------------------------------------------- metric parameters


@dataclass(frozen=True)
class ParamSpec:
    """How the Metrics page asks for one metric parameter.

    ``kind`` is ``"int"`` or ``"float"`` (a number input with ``min_value``/``max_value``/``step``),
    ``"aux_pair"`` (linkability's two auxiliary column sets), ``"columns"`` (a column list) or
    ``"epsilons"`` (comma-separated numbers ≥ 0). ``help`` says what the parameter does; the
    page appends its default.
    """

    name: str
    label: str
    kind: str
    help: str
    min_value: float | None = None
    max_value: float | None = None
    step: float | None = None
    format: str | None = None


def _n_attacks(what: str) -> ParamSpec:
    return ParamSpec("n_attacks", "Number of attacks", "int",
                     f"How many {what} the attacker tries; more give a narrower interval but take longer.",
                     1, 100_000, 50)


_N_BOOT = ParamSpec("n_boot", "Bootstrap replicates", "int",
                    "Resamples behind the confidence intervals of the AUC, TPR and advantage; 0 skips the "
                    "intervals (faster).", 0, 20_000, 100)
_CONFIDENCE = ParamSpec("confidence", "Confidence level", "float",
                        "Coverage of the bootstrap intervals (0.95 = 95 % intervals).", 0.5, 0.999, 0.005,
                        "%.3f")
_PERCENTILE = ParamSpec("percentile", "Percentile", "float",
                        "Which percentile of the distances is compared between synthetic and holdout rows "
                        "(5 = the closest 5 % of rows).", 0.0, 100.0, 0.5, "%.1f")
_EPSILONS = ParamSpec("epsilons", "Budgets ε", "epsilons",
                      "Comma-separated numbers ≥ 0: a real and a synthetic record match when their "
                      "categorical key values are equal and their numerical key values differ by at most ε "
                      "in total (in the columns' own units); the score is the one at the smallest non-zero ε.")

#: Metric id → its parameters as the Metrics page shows them (the ``reference`` table is set on the Data page).
PARAM_SPECS: dict[str, tuple[ParamSpec, ...]] = {
    "air": (ParamSpec("tolerance", "Relative tolerance", "float",
                      "A guessed numerical sensitive value counts as correct when it is within this share of "
                      "the true value (0.1 = within 10 %); unused for a categorical sensitive column.",
                      0.0, 1.0, 0.01),),
    "cvp": (ParamSpec("threshold", "Closeness threshold", "float",
                      "A real record counts as at risk when its closest synthetic record lies within this "
                      "share of the range of closest distances (0 = the closest, 1 = the farthest).",
                      0.0, 1.0, 0.01),),
    "dvp": (ParamSpec("threshold", "Distance threshold", "float",
                      "A real record counts as safe when its closest synthetic record lies at least this "
                      "share of the range of closest distances away (0 = the closest, 1 = the farthest).",
                      0.0, 1.0, 0.01),),
    "nnaa": (ParamSpec("repeats", "Repeats", "int",
                       "When the tables differ in size, how many random subsets of the larger one (each of "
                       "the smaller one's size) the accuracy is averaged over.", 1, 1000, 1),),
    "singling_out_univariate": (_n_attacks("one-column predicates"),),
    "singling_out_multivariate": (
        _n_attacks("predicates"),
        ParamSpec("n_cols", "Columns per predicate", "int",
                  "How many attributes each predicate combines.", 1, 50, 1),
        ParamSpec("max_attempts", "Maximum attempts", "int",
                  "At most this many synthetic records are tried when looking for predicates, so the "
                  "attack stops on coarse data.", 1_000, 100_000_000, 10_000),
    ),
    "linkability": (
        _n_attacks("real records"),
        ParamSpec("n_neighbors", "Neighbours k", "int",
                  "How many nearest synthetic records each half of a record is matched to; a larger k "
                  "links more easily.", 1, 100, 1),
        ParamSpec("aux_cols", "Auxiliary column sets", "aux_pair",
                  "The columns of the attacker's two tables (two disjoint, non-empty sets)."),
    ),
    "inference": (
        _n_attacks("real records"),
        ParamSpec("aux_cols", "Columns the attacker knows", "columns",
                  "The attributes the attacker knows about each person and uses to find the closest "
                  "synthetic record."),
        ParamSpec("tolerance", "Relative tolerance", "float",
                  "A guessed numerical sensitive value counts as correct when it is within this share of "
                  "the true value (0.05 = within 5 %); unused for a categorical sensitive column.",
                  0.0, 1.0, 0.01),
    ),
    "dcr_test": (_PERCENTILE,),
    "nndr_test": (_PERCENTILE,),
    "mia_distance": (_N_BOOT, _CONFIDENCE),
    "mia_calibrated": (_N_BOOT, _CONFIDENCE),
    "mia_domias": (
        _N_BOOT, _CONFIDENCE,
        ParamSpec("dims", "Projection dimensions", "int",
                  "How many coordinates of the low-dimensional projection the density estimates use.", 1, 20, 1),
        ParamSpec("kde_max_points", "Density estimate rows", "int",
                  "At most this many rows (a seeded sample) fit each density estimate; 0 = every row (slow "
                  "on large tables).", 0, 1_000_000, 1_000),
    ),
    "sd_idr": (_EPSILONS,),
    "sd_mia": (_EPSILONS,),
}


def param_specs(metric_id: str) -> tuple[ParamSpec, ...]:
    """The parameters the Metrics page shows for ``metric_id`` (those the metric actually declares)."""
    declared = registry.get(metric_id).default_params
    return tuple(spec for spec in PARAM_SPECS.get(metric_id, ()) if spec.name in declared)


def param_default(metric_id: str, spec: ParamSpec, schema: Schema) -> Any:
    """The value the metric uses when not overridden, as the widget shows it.

    ``aux_cols`` defaults to None in the registry, meaning "derived from the key": the key columns
    dealt alternately into two sets (linkability) or the key columns except the sensitive one
    (inference).
    """
    default = registry.get(metric_id).default_params[spec.name]
    if spec.kind == "aux_pair" and default is None:
        from privcore.metrics.attacks.register import default_aux_split

        return [list(part) for part in default_aux_split(schema.key_columns)]
    if spec.kind == "columns" and default is None:
        return [c for c in schema.key_columns if c != schema.sensitive]
    if spec.kind == "epsilons":
        return [float(e) for e in default]
    return default


def param_options(spec: ParamSpec, schema: Schema) -> list[str]:
    """The columns a column parameter can take: analysed columns (but the sensitive one for inference)."""
    if spec.kind == "columns":
        return [c for c in schema.columns if c != schema.sensitive]
    return list(schema.columns)


def format_epsilons(values: Iterable[float]) -> str:
    """``[0.0, 1.0, 2.5]`` → ``"0, 1, 2.5"``."""
    return ", ".join(f"{float(v):g}" for v in values)


def describe_value(spec: ParamSpec, value: Any) -> str:
    """A parameter value as the page prints it."""
    if spec.kind == "aux_pair":
        return "; ".join(f"table {i + 1}: {', '.join(part) or '(none)'}" for i, part in enumerate(value))
    if spec.kind == "columns":
        return ", ".join(value) or "(none)"
    if spec.kind == "epsilons":
        return format_epsilons(value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def check_param(spec: ParamSpec, value: Any, schema: Schema) -> tuple[Any, str | None]:
    """Validate a widget's value; returns (the value to store, None) or (None, a user-facing message).

    Examples
    --------
    >>> schema = Schema({"a": "numerical", "b": "categorical"})
    >>> check_param(PARAM_SPECS["sd_idr"][0], "3, 0, 1", schema)
    ([0.0, 1.0, 3.0], None)
    >>> check_param(PARAM_SPECS["linkability"][2], [["a"], ["a", "b"]], schema)[1]
    'The two auxiliary column sets must not share a column; a is in both.'
    """
    options = param_options(spec, schema)
    if spec.kind in ("int", "float"):
        try:
            number = float(value)
        except (TypeError, ValueError):
            return None, f"{spec.label} must be a number."
        if not math.isfinite(number) or isinstance(value, bool):
            return None, f"{spec.label} must be a number."
        if spec.kind == "int" and not number.is_integer():
            return None, f"{spec.label} must be a whole number."
        low, high = spec.min_value, spec.max_value
        if (low is not None and number < low) or (high is not None and number > high):
            return None, f"{spec.label} must be between {low:g} and {high:g}."
        return (int(number) if spec.kind == "int" else number), None
    if spec.kind == "epsilons":
        parts = [p.strip() for p in str(value or "").replace(";", ",").split(",") if p.strip()]
        numbers = []
        for part in parts:
            try:
                number = float(part)
            except ValueError:
                return None, f"{part!r} is not a number: give budgets as numbers separated by commas, e.g. 0, 1, 2, 3."
            if not math.isfinite(number) or number < 0:
                return None, f"Every budget ε must be a number ≥ 0; {part!r} is not."
            numbers.append(number)
        if not numbers:
            return None, "Give at least one budget ε, e.g. 0, 1, 2, 3."
        return sorted(set(numbers)), None
    if spec.kind == "columns":
        chosen = [c for c in options if c in set(value or ())]
        if not chosen:
            return None, "Choose at least one column the attacker knows."
        return chosen, None
    if spec.kind == "aux_pair":
        first, second = ([c for c in options if c in set(part or ())] for part in value)
        if not first or not second:
            return None, "Each of the attacker's two tables needs at least one column."
        shared = [c for c in first if c in second]
        if shared:
            return None, (f"The two auxiliary column sets must not share a column; {', '.join(shared)} "
                          f"{'is' if len(shared) == 1 else 'are'} in both.")
        return [first, second], None
    raise ValueError(f"unknown parameter kind {spec.kind!r}")


def _same(spec: ParamSpec, a: Any, b: Any) -> bool:
    if spec.kind in ("int", "float"):
        return a is not None and b is not None and math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-12)
    if spec.kind == "aux_pair":
        return a is not None and b is not None and [set(p) for p in a] == [set(p) for p in b]
    if spec.kind in ("columns", "epsilons"):
        return a is not None and b is not None and set(a) == set(b)
    return a == b


def current_param(state: MutableMapping, metric_id: str, spec: ParamSpec, schema: Schema) -> Any:
    """The value the next run uses: the stored override, else the default."""
    own = (state.get("metric_params") or {}).get(metric_id) or {}
    return own[spec.name] if spec.name in own else param_default(metric_id, spec, schema)


def set_param(state: MutableMapping, metric_id: str, spec: ParamSpec, value: Any, schema: Schema) -> str | None:
    """Check ``value`` and store it in ``metric_params`` if it differs from the default.

    Returns the user-facing problem (nothing is stored then), or None. A value equal to the default
    removes the override, so that a default derived from the key keeps following the key.
    """
    clean, problem = check_param(spec, value, schema)
    if problem is not None:
        return problem
    params: dict = state.setdefault("metric_params", {})
    own = dict(params.get(metric_id) or {})
    if _same(spec, clean, param_default(metric_id, spec, schema)):
        own.pop(spec.name, None)
    else:
        own[spec.name] = clean
    _store_overrides(params, metric_id, own)
    return None


def reset_params(state: MutableMapping, metric_id: str, widget_keys: Iterable[str] = ()) -> None:
    """Drop the overrides of ``metric_id``'s page parameters (the reference table stays) and forget the
    widgets' drafts, so that they show the defaults again."""
    params: dict = state.setdefault("metric_params", {})
    own = {k: v for k, v in (params.get(metric_id) or {}).items()
           if k not in {spec.name for spec in param_specs(metric_id)}}
    _store_overrides(params, metric_id, own)
    draft = state.setdefault("metric_param_draft", {})
    for key in widget_keys:
        draft.pop(key, None)
        state.pop(key, None)
