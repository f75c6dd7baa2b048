"""Configure page: column types, columns to analyse, key, sensitive column, pairing, options.

The key can come from a "what the attacker knows" preset (``dashboard.threat_presets``). The form lives in
``st.session_state["schema_draft"]``; every run rebuilds the schema from it, validates it and stores it in
``st.session_state["schema"]`` only when it is valid.
"""

import streamlit as st

from dashboard import reference_table, schema_form, threat_presets
from dashboard.page_setup import METRICS_PAGE, require_tables, setup_page
from privcore.data import COLUMN_KINDS, KIND_MEANINGS, MAX_SEED, THREAT_MODELS

EDITOR = "column_editor"
WIDGETS = (EDITOR, "cfg_sensitive", "cfg_key", "cfg_pairing", "cfg_missing", "cfg_seed", threat_presets.NOTE)

setup_page("Configure")
state = st.session_state
tables = require_tables()
draft = schema_form.current_draft(state, tables, WIDGETS)


def _seed(key: str, value) -> None:
    # Widgets are initialised from the draft through session state (not value=/index=), so a value
    # the user picked survives reruns and a return to this page shows the draft again.
    if key not in state:
        state[key] = value


def _choose_key() -> None:
    state["schema_draft"]["key"] = list(state["cfg_key"])
    state.pop(threat_presets.NOTE, None)


def _default_key() -> None:
    state["schema_draft"]["key"] = None
    state.pop(threat_presets.NOTE, None)


st.title("Configure")
st.markdown(
    "Check how each column should be treated; untick *Analyse* to leave a column out (the report lists it, "
    "with the reason). The kinds:\n\n"
    + "\n".join(f"- **{kind}**: {meaning}" for kind, meaning in KIND_MEANINGS.items())
)

st.subheader("Columns")
edited = st.data_editor(
    schema_form.editor_frame(draft),
    key=EDITOR,
    hide_index=True,
    num_rows="fixed",
    height=min(35 * (len(draft["columns"]) + 1) + 3, 630),  # every column visible up to ~17 rows
    disabled=["column", "distinct values", "note"],
    column_config={
        "column": st.column_config.TextColumn("Column"),
        "type": st.column_config.SelectboxColumn(
            "Kind", options=list(COLUMN_KINDS), required=True,
            help="Inferred from the real table; change it if it is wrong (the kinds are explained above)."),
        "analyse": st.column_config.CheckboxColumn("Analyse", help="Include this column in the metrics."),
        "distinct values": st.column_config.NumberColumn("Distinct values", help="In the real table."),
        "note": st.column_config.TextColumn("Why you may want to check", width="large"),
    },
)
schema_form.apply_editor(draft, edited)
columns = draft["columns"]

st.subheader("Roles")
st.markdown(
    "The **sensitive column** is what an attacker wants to learn about a person (an income, a "
    "diagnosis). The **key** (quasi-identifiers) is what the attacker is assumed to know already "
    "(age, postcode, sex): the columns used to find a person's record."
)
_seed("cfg_sensitive", draft["sensitive"] or schema_form.NO_SENSITIVE)
sensitive = st.selectbox("Sensitive column", [schema_form.NO_SENSITIVE, *columns], key="cfg_sensitive",
                         help="Metrics that simulate guessing a sensitive value need one.")
draft["sensitive"] = None if sensitive == schema_form.NO_SENSITIVE else sensitive
if (note := schema_form.sensitive_note(draft)) is not None:
    st.caption(note)

st.markdown("**What the attacker knows.** A preset sets the key from the columns' names; check it below.")
presets = st.columns(len(THREAT_MODELS))
for column, model in zip(presets, THREAT_MODELS):
    column.button(model.label, key=f"cfg_preset_{model.id}", on_click=threat_presets.apply_preset,
                  args=(state, model.id), width="stretch")
if (note := state.get(threat_presets.NOTE)) is not None:
    found, text = note
    if found:
        st.caption(text)
    else:
        st.warning(text, icon=":material/person_search:")

if draft["key"] is None:
    # Not chosen by the user: the key follows the default as columns and the sensitive one change.
    state["cfg_key"] = schema_form.default_key(draft)
else:
    _seed("cfg_key", draft["key"])
key = st.multiselect("Key (quasi-identifiers)", columns, key="cfg_key", on_change=_choose_key,
                     help="Default: every analysed column except the sensitive one.")
if draft["key"] is not None:
    st.button("Use the default key", key="cfg_key_reset", on_click=_default_key,
              help="Every analysed column except the sensitive one.")
st.caption(threat_presets.secret_columns_sentence(draft))

st.subheader("Pairing and options")
pairing = schema_form.pairing_options(draft)
_seed("cfg_pairing", schema_form.pairing_label(draft))
chosen = st.selectbox(
    "Pairing between synthetic and real rows", list(pairing), key="cfg_pairing",
    help="Some generators produce one synthetic row per real row. If so, say how they match: by "
         "position (row i of each table) or by an id column present in both. Most do not: choose "
         "no pairing.")
draft["pairing"] = pairing[chosen]

options = st.columns(2)
_seed("cfg_missing", draft["missing"])
draft["missing"] = options[0].radio(
    "Missing numbers", ["drop", "impute"], key="cfg_missing",
    format_func={"drop": "Drop rows that have one", "impute": "Fill in the real table's median"}.get,
    help="Missing values in categorical and binary columns are kept as their own category.")
_seed("cfg_seed", int(draft["seed"]))
draft["seed"] = int(options[1].number_input(
    "Seed", min_value=0, max_value=MAX_SEED, step=1, key="cfg_seed",
    help="Fixes every random step, so the same data and settings give the same scores."))

schema = schema_form.schema_from_draft(draft)
problem = schema_form.validate_schema(schema, tables)
shown_in_sidebar = getattr(state.get("schema"), "sensitive", "(no schema)")
if problem:
    state["schema"] = None
    st.error(problem, icon=":material/error:")
else:
    state["schema"] = schema
    st.success(f"Settings are valid: {len(schema.columns)} analysed columns, key of "
               f"{len(schema.key_columns)}, sensitive column: {schema.sensitive or 'none'}.",
               icon=":material/check_circle:")
    st.page_link(METRICS_PAGE, label="Next: choose metrics", icon=":material/arrow_forward:")
if state.get("reference") is not None:
    # The reference table is checked under the column settings too: a column declared categorical here may
    # hold text in it, and one declared numerical again may not.
    reference_table.sync_reference(state)

# The sidebar was drawn before this run changed the schema: redraw once so it never shows stale settings.
if getattr(state.get("schema"), "sensitive", "(no schema)") != shown_in_sidebar:
    st.rerun()
