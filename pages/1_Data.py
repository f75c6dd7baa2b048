"""Data page: upload the real, synthetic, holdout and reference tables, or load a built-in demo scenario.

Parsed tables are kept in ``st.session_state["tables"]`` by :mod:`dashboard.uploads` (uploader values vanish
on a page change); the reference table also fills the ``reference`` parameter of the attacks that use one.
"""

import streamlit as st

from dashboard import reference_table, related_upload, table_checks, uploads
from dashboard.page_setup import CONFIGURE_PAGE, setup_page
from privcore.data import MAX_UPLOAD_MB

setup_page("Data")
state = st.session_state
state.setdefault("reference", None)

st.title("Data")
st.markdown(
    "The **real table** is the data the generator learnt from. A **synthetic table** is what the "
    "generator produced; load several to compare them. A **holdout table** is optional: real records "
    "from the same population that the generator never saw. With it, the dashboard can run "
    "membership attacks and show how much risk any similar data would carry anyway."
)


def _uploader(role: str, label: str, help_text: str, multiple: bool = False, disabled: bool = False) -> None:
    """One uploader, its new files parsed into session state, and its errors right below it."""
    value = st.file_uploader(label, type=uploads.UPLOAD_TYPES, accept_multiple_files=multiple,
                             key=f"upload_{role}", help=help_text, disabled=disabled)
    files = value if multiple else [value]
    if uploads.process_uploads(state, role, files):
        st.rerun()  # so the sidebar summary, drawn ahead of the uploaders, shows the new table
    for _filename, message in uploads.upload_errors(state, files):
        st.error(message, icon=":material/error:")


if state.get(uploads.REPLACED_DEMO):
    st.info(state[uploads.REPLACED_DEMO], icon=":material/swap_horiz:")

upload_tab, demo_tab, related_tab = st.tabs(["Upload your tables", "Use a built-in demo",
                                             "Related tables (people and their rows)"])
with upload_tab:
    st.caption("CSV or TSV (delimiter and text encoding are detected), Parquet, or Excel (.xlsx), "
               f"up to {MAX_UPLOAD_MB} MB each. Files stay in this session's memory and are never "
               "written to disk.")
    _uploader("real", "Real table", "The table the synthetic data was generated from.")
    _uploader("synthetic", "Synthetic tables (one or more)",
              "Each file becomes one synthetic table, named after the file; you can rename it below.",
              multiple=True)
    _uploader("holdout", "Holdout table (optional)",
              "Real records from the same source that were not used to train the generator.")
    _uploader("reference", "Reference table (optional)",
              "Real records of the same population that were neither used to train the generator nor are "
              "in the holdout. Checked against the real table, so load that first.",
              disabled=state["tables"].real is None and state.get("reference") is None)
    st.caption("A **reference table** holds other real people (not in the training data, not in the "
               "holdout); the calibrated and DOMIAS membership attacks compare with it instead of with "
               "half of the holdout.")

with demo_tab:
    scenarios = uploads.scenario_choices()
    choice = st.selectbox("Demo scenario", list(scenarios), key="demo_choice",
                          index=list(scenarios).index(uploads.DEFAULT_DEMO),
                          format_func=lambda name: scenarios[name].title)
    st.markdown(scenarios[choice].description)
    st.caption(f"Lesson: {scenarios[choice].lesson}")
    st.button("Load this demo", icon=":material/dataset:", key="load_demo",
              on_click=uploads.load_demo, args=(state, choice),
              help="Replaces any loaded tables with the demo's real, synthetic and holdout tables "
                   "and its column settings.")
    if state.get("demo"):
        st.success(f"Demo loaded: **{scenarios[state['demo']].title}**. Census data from UCI Adult "
                   "(Becker & Kohavi 1996, CC BY 4.0).", icon=":material/check_circle:")

with related_tab:
    st.markdown(
        "A **table of people** (patients, players, customers) and a **child table** of their rows (visits, seasons, "
        "purchases). Evaluated row by row, a person with 40 rows would count 40 times, and what gives a person away "
        "is often the combination of their rows. Here each person becomes **one record**: their columns plus a "
        "summary of their rows (how many, their typical values, and for rows in order their first value, span and "
        "gaps). The rest of the dashboard then evaluates people.")
    related_demos = related_upload.related_demo_choices()
    related_choice = st.selectbox("Built-in related tables (players and their seasons)", list(related_demos),
                                  key="related_demo_choice", format_func=lambda name: related_demos[name][0])
    st.caption(related_demos[related_choice][1])
    st.button("Load these related tables", icon=":material/family_history:", key="load_related_demo",
              on_click=related_upload.load_related_demo, args=(state, related_choice),
              help="Replaces any loaded tables with the players' tables, one row per player.")
    st.divider()
    st.caption("Or upload your own: for each role, the people table and one or more tables of their rows (each role's "
               "files of one table named alike, e.g. visits.csv).")
    people_files, child_files = {}, {}
    for role, label in (("real", "Real"), ("synthetic", "Synthetic"), ("holdout", "Holdout (optional)")):
        left, right = st.columns(2)
        people_files[role] = left.file_uploader(f"{label}: people", type=uploads.UPLOAD_TYPES,
                                                key=f"related_{role}_people")
        child_files[role] = right.file_uploader(f"{label}: their rows (one file per table)",
                                                type=uploads.UPLOAD_TYPES, accept_multiple_files=True,
                                                key=f"related_{role}_child")
    frames, read_errors = related_upload.parsed(people_files, child_files)
    for message in read_errors:
        st.error(message, icon=":material/error:")
    real_frames = frames.get("real", {})
    children = [name for name in real_frames if name != related_upload.PEOPLE]
    if related_upload.PEOPLE in real_frames and children:
        key = st.selectbox("People's key column", list(real_frames[related_upload.PEOPLE].columns), key="related_key")
        owners, orders = {}, {}
        for child in children:
            columns = list(real_frames[child].columns)
            left, right = st.columns(2)
            owners[child] = left.selectbox(f"{child}: column naming the person", columns, key=f"related_owner::{child}")
            order = right.selectbox(f"{child}: column ordering each person's rows (optional)", ["(none)", *columns],
                                    key=f"related_order::{child}")
            orders[child] = None if order == "(none)" else order
        if st.button("Evaluate per person", icon=":material/group:", key="related_apply"):
            problem = related_upload.apply_uploads(state, frames, key, owners, orders)
            if problem:
                st.error(problem, icon=":material/error:")
            else:
                st.rerun()
    if state.get(uploads.RELATED):
        st.success(state[uploads.RELATED].text, icon=":material/check_circle:")
        st.graphviz_chart(related_upload.schema_picture(state[uploads.RELATED]))
        st.caption("How the tables join: each row of the child table names its person; the dashboard evaluates one "
                   "record per person.")

tables = state["tables"]
reference = state.get("reference")
# Checked under the column settings (the Configure page's), as the command line checks under --categorical and
# --exclude: a column declared categorical or left out there is no longer reported here.
problems = table_checks.fit_problems(tables, state.get("schema"))
if reference is not None and (problem := reference_table.reference_fit_problem(tables, reference,
                                                                       state.get("schema"))) is not None:
    problem.message += (" The reference table is not used until it fits: the membership attacks use half of "
                        "the holdout instead.")
    problems.append(problem)
st.header("Loaded tables")
if tables.real is None and not tables.synthetic and tables.holdout is None and reference is None:
    st.write("Nothing loaded yet.")
elif tables.real is None:
    st.info("Load the real table too: the other tables are checked against it.", icon=":material/info:")


def _rename(old: str) -> None:
    error = uploads.rename_synthetic(state, old, state[f"rename::{old}"])
    if error:
        state[f"rename::{old}"] = old  # put the old name back in the box
        state["rename_error"] = error


def _show_table(role: str, table, key: str) -> None:
    """Name, size, fit problems, preview and missing values of one loaded table; remove button."""
    frame = table.frame
    with st.container(border=True):
        head = st.columns([4, 1], vertical_alignment="center")
        head[0].markdown(f"**{role.capitalize()} table: {table.name}** · {len(frame):,} rows × "
                         f"{frame.shape[1]} columns")
        head[1].button("Remove", key=f"remove::{key}", icon=":material/delete:",
                       on_click=uploads.remove_table, args=(state, role, table.name))
        if role == "synthetic":
            # Seeded through session state rather than value=, which would clash with _rename's reset.
            state.setdefault(f"rename::{table.name}", table.name)
            st.text_input("Name shown in results", key=f"rename::{table.name}",
                          on_change=_rename, args=(table.name,))
            st.text_input("Declared differential privacy ε (optional)", key=uploads.epsilon_key(table.name),
                          placeholder="e.g. 1 — leave blank if its generator makes no such promise",
                          help="If the generator that made this table is ε-differentially private, say its ε: the "
                               "answer then shows the most any membership attack could achieve against such a "
                               "generator, and flags a measured attack beyond it as a broken guarantee.")
            epsilon_problem = uploads.epsilon_problem(state, table.name)
            if epsilon_problem:
                st.error(epsilon_problem, icon=":material/error:")
        for problem in problems:
            if (problem.role, problem.name) != (role, table.name):
                continue
            st.error(problem.message, icon=":material/error:")
            if problem.missing or problem.extra:
                st.dataframe(table_checks.mismatch_frame(problem, table_checks.describe("real", tables.real.name)),
                             hide_index=True)
        with st.expander("Preview and missing values"):
            st.caption("First 10 rows")
            st.dataframe(frame.head(10), hide_index=True)
            missing = table_checks.missing_summary(frame)
            if missing["missing values"].sum() == 0:
                st.caption("No missing values.")
            else:
                st.caption("Missing values per column")
                st.dataframe(missing, hide_index=True)


if tables.real is not None:
    _show_table("real", tables.real, "real")
if state.get("rename_error"):
    st.warning(state.pop("rename_error"), icon=":material/warning:")
for name, table in list(tables.synthetic.items()):
    _show_table("synthetic", table, f"synthetic::{name}")
if tables.holdout is not None:
    _show_table("holdout", tables.holdout, "holdout")
if reference is not None:
    _show_table("reference", reference, "reference")

blocking = table_checks.blocking_problems(tables, state.get("schema"))
if tables.real is not None and (tables.synthetic or tables.holdout is not None or reference is not None):
    if problems:
        st.warning(f"{len(problems)} problem(s) with how the tables fit together are shown above, "
                   "next to the table concerned. Fix the files and upload them again.",
                   icon=":material/warning:")
    else:
        st.success("Every table has the same columns as the real table, and each column holds the "
                   "same kind of values (numbers or text) in every table.",
                   icon=":material/check_circle:")

if tables.ready and blocking:
    # Not "Next" as if all were well: name each table that stops the evaluation, with its fix.
    st.subheader("Before you go on")
    for problem in table_checks.one_per_table(blocking):
        if problem.role == "real":
            st.error(f"The real table **{problem.name}** does not fit its settings: fix its file and upload it "
                     "again.", icon=":material/error:")
            continue
        st.error(f"**{table_checks.describe(problem.role, problem.name)}** stops the evaluation: "
                 f"{table_checks.problem_summary(problem)}. Remove it above and upload a corrected file, or go on "
                 "without it.", icon=":material/error:")
        label = "the holdout" if problem.role == "holdout" else f"'{problem.name}'"
        st.button(f"Go on without {label}", key=f"data::without::{problem.role}::{problem.name}",
                  icon=":material/playlist_remove:", on_click=uploads.go_on_without,
                  args=(state, problem.role, problem.name))
    if all(p.kind == "kinds" for p in blocking):
        st.page_link(CONFIGURE_PAGE, label="Or declare the column categorical on the Configure page",
                     icon=":material/tune:")
elif tables.ready:
    st.page_link(CONFIGURE_PAGE, label="Next: check column types and roles",
                 icon=":material/arrow_forward:")
elif tables.real is not None or tables.synthetic:
    st.info("Load a real table and at least one synthetic table to continue.", icon=":material/info:")
