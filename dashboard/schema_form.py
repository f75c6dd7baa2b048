"""The Configure form: its draft, the column editor, key, sensitive column and pairing, and validation.

No Streamlit import, so the Configure page stays short and this logic can be tested on its own.
"""

from __future__ import annotations

import logging
from typing import Any, Iterable, MutableMapping

import pandas as pd

from dashboard.session.state import LoadedTable, Tables
from dashboard.table_checks import describe, sentence
from privcore.base import InputError
from privcore.data import COLUMN_KINDS, IDENTIFIER, TEXT, Schema, guess_column_type, infer_schema, suggest_sensitive

logger = logging.getLogger(__name__)


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
        column"), ``sensitive``, ``suggested_sensitive`` (the column the data suggest and why, or None),
        ``pairing``, ``missing``, ``seed`` and ``real_hash``.
    """
    frame = real.frame
    schema = schema if schema is not None else infer_schema(frame)
    columns = [str(c) for c in frame.columns]
    guesses = {c: guess_column_type(frame[c]) for c in frame.columns}
    suggestion = suggest_sensitive(frame)
    return {
        "columns": columns,
        "types": {c: schema.kind(c) or guesses[c].type for c in columns},
        "analyse": {c: schema.kind(c) is not None for c in columns},
        "notes": {c: guesses[c].note for c in columns},
        "distinct": {c: int(frame[c].nunique()) for c in columns},
        "key": None if schema.key is None else list(schema.key),
        "sensitive": schema.sensitive,
        "suggested_sensitive": None if suggestion is None else [suggestion.column, suggestion.reason],
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

    Notes
    -----
    Session-state keys used here besides the contract of :mod:`dashboard.session.state`:

    - ``schema_draft`` — the Configure form as the user left it (see :func:`current_draft`); it may be
      invalid, whereas ``schema`` only ever holds a schema that passed :meth:`privcore.Schema.validate`
      on the Configure page (or the inferred/demo one set when data is loaded).
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
        if row.type in COLUMN_KINDS:  # an emptied cell keeps the previous type
            draft["types"][column] = row.type
        draft["analyse"][column] = bool(row.analyse)


def sensitive_note(draft: dict) -> str | None:
    """Why the chosen sensitive column was proposed, while it is the one the data suggested."""
    suggestion = draft.get("suggested_sensitive")
    if not suggestion or draft["sensitive"] != suggestion[0]:
        return None
    return (f"Proposed from the data: '{suggestion[0]}', because {suggestion[1]}. Choose another column, or "
            f"{NO_SENSITIVE}, if that is not what an attacker would want to learn.")


def pairing_column(draft: dict) -> str | None:
    """The id column used for pairing, if pairing is by column."""
    return draft["pairing"] if draft["pairing"] not in (None, "row") else None


def analysed_columns(draft: dict) -> list[str]:
    """Columns ticked for analysis, in table order (the pairing id column is never analysed)."""
    return [c for c in draft["columns"] if draft["analyse"][c] and c != pairing_column(draft)]


def default_key(draft: dict) -> list[str]:
    """The key used when the user has not chosen one: every analysed non-sensitive column.

    Identifier and text columns are not in it: they are checked for reproduced values, not compared by distance.
    """
    return [c for c in analysed_columns(draft) if c != draft["sensitive"]
            and draft["types"][c] not in (IDENTIFIER, TEXT)]


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
    analysed = analysed_columns(draft)
    return Schema(
        types={c: draft["types"][c] for c in analysed},
        left_out={c: ("the pairing id: it says which real row a synthetic row was made from"
                      if c == pairing_column(draft) else "left out on request (Analyse unticked on the Configure page)")
                  for c in draft["columns"] if c not in analysed},
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
