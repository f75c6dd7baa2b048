"""Uploads and loaded tables: parsing uploaded files, the demo and the reference table.

No Streamlit import, so the Data page stays short and this logic can be tested on its own.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import Any, Iterable, MutableMapping, Sequence

import pandas as pd

from dashboard.reference_table import reference_problem, set_reference, sync_reference
from dashboard.schema_form import schema_from_draft, validate_schema
from dashboard.session import user_limits
from dashboard.session.state import DEFAULT_CHOICE, LoadedTable, Tables
from privcore.base import InputError
from privcore.data import Schema, infer_schema, load_table, suggest_sensitive
from privcore.demo import list_scenarios, load_scenario
from privcore.evaluation import check_dp_epsilon
from privcore.metrics import registry

logger = logging.getLogger(__name__)


#: Extensions the uploaders accept. ``xls`` is accepted on purpose: privcore then explains how to
#: convert an old workbook, which is kinder than the browser silently refusing the file.
UPLOAD_TYPES = ["csv", "tsv", "txt", "gz", "parquet", "pq", "xlsx", "xlsm", "xls"]

#: The scenario ``streamlit run app.py -- --demo`` loads when no name follows the flag, and the home page's
#: "Start with demo data" button.
DEFAULT_DEMO = "noisy_copy"
ROLES = ("real", "synthetic", "holdout", "reference")

GENERIC_READ_ERROR = (
    "Something unexpected went wrong while reading {name}, and the file was not loaded. Check that "
    "it is a CSV, TSV, Parquet or Excel (.xlsx) table with a header row, or save it again in one of "
    "those formats and retry."
)


# ------------------------------------------------------------------------------------------ uploads


def parse_upload(uploaded: Any, name: str | None = None) -> tuple[pd.DataFrame | None, str | None]:
    """Parse one uploaded file with :func:`privcore.data.io.load_table`, never raising.

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

    Session-state keys used here besides the contract of :mod:`dashboard.session.state`:

    - ``upload_log`` — uploaded file id → outcome, so that a file still sitting in an uploader is parsed
      once, and a table the user removed is not added back on the next rerun.
    - ``reference`` — the optional reference table (:mod:`dashboard.reference_table`).
    - ``schema_draft`` — the Configure form (see :mod:`dashboard.schema_form`); reset to None here whenever
      the real table is replaced or removed, so that the form is rebuilt for the new table.
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
        try:  # a signed-in user's share of the server's memory (dashboard.session.user_limits); no-op without sign-in
            user_limits.check_memory(user_limits.table_bytes(frame), f"'{file.name}'")
        except user_limits.UserLimitReached as exc:
            outcome.error = str(exc)
            continue
        if role == "reference":
            table = LoadedTable.from_frame(file.name, frame)
            outcome.error = reference_problem(state["tables"], table, state.get("schema"))
            if outcome.error is None:
                set_reference(state, table)
                outcome.table_name = file.name
                changed = True
            continue
        if state.get("demo"):
            state[REPLACED_DEMO] = replaced_demo_notice(state["tables"], file.name)
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


#: Session-state key: what an upload removed when it replaced the demo (shown on the Data page), or None.
REPLACED_DEMO = "replaced_demo"
#: Session-state key of the description of related tables loaded per person (:mod:`dashboard.related_upload`);
#: None once other tables are loaded.
RELATED = "related"


def replaced_demo_notice(tables: Tables, filename: str) -> str:
    """The sentence that says which of the demo's tables an upload removed, and what to upload next.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [1]})
    >>> demo = Tables(real=LoadedTable.from_frame("Adult sample (real)", frame),
    ...               synthetic={"Noisy copy": LoadedTable.from_frame("Noisy copy", frame)},
    ...               holdout=LoadedTable.from_frame("Adult holdout", frame))
    >>> replaced_demo_notice(demo, "patients.csv")[42:128]
    'its real table (Adult sample (real)), its synthetic table (Noisy copy) and its holdout'

    """
    parts = []
    if tables.real is not None:
        parts.append(f"its real table ({tables.real.name})")
    if tables.synthetic:
        names = ", ".join(tables.synthetic)
        parts.append(f"its synthetic table{'s' if len(tables.synthetic) > 1 else ''} ({names})")
    if tables.holdout is not None:
        parts.append(f"its holdout ({tables.holdout.name})")
    removed = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1] if parts else "its tables"
    return (f"Uploading {filename} replaced the demo: {removed} are no longer loaded, so that your tables and the "
            "demo's are never mixed. Upload your real table, your synthetic tables and, for a decisive answer, a "
            "holdout of real records the generator never saw.")


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

    Also selects the default metric choice (the quick preset, which follows the data) when no metric is
    selected yet.
    """
    tables: Tables = state["tables"]
    previous = tables.real
    tables.real = table
    state[RELATED] = None  # a real table of its own: no longer the person table of related tables
    if previous is None or previous.content_hash != table.content_hash:
        state["schema"] = inferred_schema(table.frame)
        state["schema_draft"] = None  # rebuilt from the new schema by the Configure page
    if not state.get("selected_metrics"):
        # The Results page runs what is selected; without a visit to the Metrics page, run the default
        # choice, which follows the data (a holdout loaded later adds the membership attacks).
        choose_default_metrics(state)
    sync_reference(state)  # a reference that does not fit the new real table is no longer passed on


def inferred_schema(frame: pd.DataFrame) -> Schema:
    """The settings proposed for a new real table: inferred types and maybe a sensitive column.

    A sensitive column is proposed when the data suggest one (:func:`privcore.data.schema.suggest_sensitive`); the
    Configure page can change both.
    """
    suggestion = suggest_sensitive(frame)
    return infer_schema(frame, sensitive=None if suggestion is None else suggestion.column)


def clear_tables(state: MutableMapping) -> None:
    """Forget every loaded table (the reference too) and everything derived from it."""
    state["tables"] = Tables()
    state["schema"] = None
    state["schema_draft"] = None
    state["demo"] = None
    state[RELATED] = None
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


def go_on_without(state: MutableMapping, role: str, name: str | None = None) -> None:
    """Set a table that does not fit aside (remove it) so that the other tables can be evaluated.

    When the Configure page had found the settings invalid because of that table (``schema`` is None), the
    settings it holds (``schema_draft``, else those inferred from the real table) are used again as soon as
    they fit the tables that are left.
    """
    remove_table(state, role, name)
    tables: Tables = state["tables"]
    if state.get("schema") is not None or tables.real is None:
        return
    draft = state.get("schema_draft")
    if draft is not None and draft.get("real_hash") == tables.real.content_hash:
        schema = schema_from_draft(draft)
    else:
        schema = inferred_schema(tables.real.frame)
    if tables.ready and validate_schema(schema, tables) is None:
        state["schema"] = schema


def epsilon_key(name: str) -> str:
    """The session key of the ε-differential-privacy guarantee declared for synthetic table ``name``."""
    return f"dp_epsilon::{name}"


def epsilon_problem(state: MutableMapping, name: str) -> str | None:
    """Why the ε declared for synthetic table ``name`` on the Data page is unusable, or None."""
    try:
        check_dp_epsilon(state.get(epsilon_key(name)))
    except InputError as exc:
        return f"Synthetic table “{name}”: {exc}"
    return None


def declared_epsilon(state: MutableMapping, name: str) -> float | None:
    """The ε-differential-privacy guarantee declared for synthetic table ``name``.

    None: none, or unusable, which the Data page says.
    """
    try:
        return check_dp_epsilon(state.get(epsilon_key(name)))
    except InputError:
        return None


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


def choose_default_metrics(state: MutableMapping) -> None:
    """Select the quick preset for the loaded tables and mark the choice as the default.

    The default follows the data (:func:`dashboard.metric_choice.sync_selection`).
    """
    tables: Tables = state["tables"]
    state["selected_metrics"] = list(registry.quick_metrics(holdout=tables.holdout is not None))
    state[DEFAULT_CHOICE] = True


# --------------------------------------------------------------------------------------------- demo


def scenario_choices() -> dict[str, Any]:
    """Demo scenarios by name, in teaching order (each has ``title`` and ``description``)."""
    return {s.name: s for s in list_scenarios()}


def demo_requested(argv: Sequence[str]) -> str | None:
    """The scenario named by ``streamlit run app.py -- --demo [NAME]``, or None.

    >>> demo_requested(["--demo"]), demo_requested(["--demo", "rare_leak"]), demo_requested([])
    ('noisy_copy', 'rare_leak', None)
    """
    if "--demo" not in argv:
        return None
    position = list(argv).index("--demo")
    following = argv[position + 1] if position + 1 < len(argv) else ""
    return following if following and not following.startswith("-") else DEFAULT_DEMO


def load_demo(state: MutableMapping, name: str = DEFAULT_DEMO) -> None:
    """Replace everything loaded with a demo scenario, its holdout and its schema.

    Also selects the default metric choice when no metric is selected yet (the quick preset: with the
    demo's holdout, the membership attacks too), so that "start with the demo" leads straight to a
    decisive answer.
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
    state[REPLACED_DEMO] = None
    state[RELATED] = None
    set_reference(state, None)  # the demo replaces everything loaded
    if not state.get("selected_metrics"):
        choose_default_metrics(state)
