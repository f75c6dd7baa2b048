"""The set-up every page runs first: page config, session state, page navigation, sidebar summary, data guards."""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

from dashboard import run_timing, uploads
from dashboard.session import persistence, sign_in
from dashboard.session.state import LoadedTable, Tables, init_state
from dashboard.table_checks import FitProblem, blocking_problems, describe, problem_summary
from privcore.data import Schema, infer_schema

DATA_PAGE = "pages/1_Data.py"
CONFIGURE_PAGE = "pages/2_Configure.py"
METRICS_PAGE = "pages/3_Metrics.py"
RESULTS_PAGE = "pages/4_Results.py"
LEARN_PAGE = "pages/5_Learn.py"
AUDIT_PAGE = "pages/6_Audit.py"
HOME_PAGE = "app.py"

#: The home page's label in the page navigation. Streamlit's pages/ mechanism names the entry page
#: after its file ("app") and has no option to rename it, so the app hides Streamlit's own list
#: (``client.showSidebarNavigation = false`` in .streamlit/config.toml) and draws the same list with
#: ``st.page_link``: same pages, same order, same URLs (deep links unchanged), the home page "Home".
HOME_LABEL = "Home"
_PAGES_DIR = Path(__file__).resolve().parents[1] / "pages"


#: The browser-tab icon. An emoji, because Streamlit's front end turns an emoji into an inline SVG,
#: whereas a ":material/…:" page icon makes the browser fetch the favicon from fonts.gstatic.com,
#: a request leaving the machine (product.md: no remote fonts or icons).
PAGE_ICON = "🛡️"


#: On a narrow screen, tabs wrap onto a second line instead of hiding behind a scroll arrow (the Results page
#: has six); the active tab keeps its underline. The uploaders' line of accepted file types and the chosen items of a
#: multiselect wrap too (at 390 px Streamlit cut them with an ellipsis: "... XLSX, XLSM,…", a metric's name).
NARROW_SCREEN_CSS = """<style>
[data-testid="stTabs"] [role="tablist"] { flex-wrap: wrap; row-gap: 0.25rem; }
[data-testid="stTabs"] [role="tablist"] > button[data-testid^="stTabScroll"] { display: none; }
[data-testid="stFileUploaderDropzoneInstructions"] * { white-space: normal; overflow: visible; text-overflow: clip; }
[data-testid="stMultiSelectTagsContainer"] span { white-space: normal !important; overflow: visible !important;
  text-overflow: clip !important; max-width: 100% !important; height: auto !important; }
</style>"""


#: On a phone, the sidebar closes once a page is chosen from it, as Streamlit's own page list does (the app draws
#: its list with ``st.page_link``, which leaves the sidebar open over most of a 390-pixel screen). Only when the
#: page changed: a rerun on the same page leaves the sidebar as the visitor left it. 768 px is Streamlit's own
#: width below which the sidebar covers the page.
CLOSE_SIDEBAR_ON_PHONE = """<script>
(() => {
  const here = window.location.pathname;
  const last = window.sessionStorage.getItem("privcore-page");
  window.sessionStorage.setItem("privcore-page", here);
  if (last === null || last === here || window.innerWidth >= 768) return;
  const collapse = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
  if (collapse) collapse.click();
})();
</script>"""


def setup_page(title: str, icon: str = PAGE_ICON) -> None:
    """Configure the page, create missing session-state keys and draw the sidebar summary."""
    if icon.startswith(":material"):
        icon = PAGE_ICON  # see PAGE_ICON: a Material favicon is downloaded from Google
    st.set_page_config(page_title=f"{title} · Synthetic data privacy", page_icon=icon, layout="wide")
    run_timing.install_from_environment()  # the load test's measure of the server (off unless asked for)
    # With sign-in configured, a visitor who is not signed in gets the sign-in page and nothing else.
    owner = sign_in.gate(st.session_state)
    persistence.connect(st.session_state, owner)  # ahead of the defaults: a reload restores the user's work
    init_state(st.session_state)
    _page_navigation()
    st.html(NARROW_SCREEN_CSS)
    st.html(CLOSE_SIDEBAR_ON_PHONE, unsafe_allow_javascript=True)
    persistence.page_notice(st.session_state)
    _sidebar_summary(st.session_state["tables"])
    sign_in.sidebar_controls(st.session_state)
    persistence.sidebar_controls(st.session_state)


def navigation_pages() -> list[tuple[str, str]]:
    """``(script, label)`` of every page, home first, then ``pages/*.py`` in Streamlit's order and naming.

    Streamlit sorts the pages/ directory by the number a file name starts with, then by name, and labels
    a page with the rest of its name, underscores as spaces (``2_Configure.py`` → "Configure").
    """
    def number_and_name(path: Path) -> tuple[float, str, str]:
        match = re.match(r"(\d+)[_ -]*(.*)", path.stem)
        number, name = (float(match[1]), match[2]) if match else (float("inf"), path.stem)
        return number, name.lower(), name.replace("_", " ")

    files = [f for f in _PAGES_DIR.glob("*.py") if not f.name.startswith(".") and f.name != "__init__.py"]
    ordered = sorted(files, key=lambda f: number_and_name(f)[:2])
    return [(HOME_PAGE, HOME_LABEL)] + [(f"pages/{f.name}", number_and_name(f)[2]) for f in ordered]


def _page_navigation() -> None:
    # Streamlit's own list is off in .streamlit/config.toml; should the server have been started without
    # that file (another working directory), switch it off here too, so that from the next run on the app
    # never shows two lists or the file name "app".
    if st.get_option("client.showSidebarNavigation"):
        st.set_option("client.showSidebarNavigation", False)
    query = persistence.page_query(st.session_state)  # keeps the session id in the URL
    with st.sidebar:
        for script, label in navigation_pages():
            st.page_link(script, label=label, query_params=query)


def _sidebar_summary(tables: Tables) -> None:
    with st.sidebar:
        st.caption("Loaded data")
        if tables.real is None:
            st.write("Nothing loaded yet.")
            return
        if st.session_state.get("demo"):
            st.write(f"Demo scenario: **{st.session_state['demo']}**")
        st.write(f"Real: **{tables.real.name}** ({len(tables.real.frame):,} rows)")
        for name, table in tables.synthetic.items():
            st.write(f"Synthetic: **{name}** ({len(table.frame):,} rows)")
        if tables.holdout is not None:
            st.write(f"Holdout: **{tables.holdout.name}** ({len(tables.holdout.frame):,} rows)")
        schema = st.session_state.get("schema")
        if schema is not None:
            st.write(f"Sensitive column: **{schema.sensitive or 'none'}**")


def require_tables() -> Tables:
    """The loaded tables; without a real and a synthetic table, say what to do and stop the page."""
    tables: Tables = st.session_state["tables"]
    if not tables.ready:
        st.info(
            "No data yet. Load a real table and at least one synthetic table, or start with the built-in "
            "demo, on the Data page.",
            icon=":material/upload_file:",
        )
        st.page_link(DATA_PAGE, label="Go to the Data page", icon=":material/arrow_forward:")
        st.stop()
    return tables


def require_real_table() -> tuple[LoadedTable, Schema, bool]:
    """The real table and its schema, for pages that need no synthetic table (the Audit page).

    Without a real table, say what to do and stop the page. Without a schema (the Configure page needs a
    synthetic table too), the column types are inferred from the real table; the flag says so.
    """
    tables: Tables = st.session_state["tables"]
    if tables.real is None:
        st.info("No real table yet. Load one on the Data page, or start with the built-in demo there.",
                icon=":material/upload_file:")
        st.page_link(DATA_PAGE, label="Go to the Data page", icon=":material/arrow_forward:")
        st.stop()
    schema = st.session_state.get("schema")
    if schema is None:
        return tables.real, infer_schema(tables.real.frame), True
    return tables.real, schema, False


def blocked_table_notice(problem: FitProblem, key: str) -> None:
    """One table that stops the evaluation: what is wrong, the fix, and a button to go on without it."""
    table = describe(problem.role, problem.name)
    if problem.role == "real":
        fix = ("every other table is checked against the real table, so fix its file and upload it again on the "
               "Data page.")
    else:
        fix = ("remove it on the Data page (and upload a corrected file if you want it evaluated), or go on "
               "without it: the other tables are then evaluated as usual.")
    st.error(f"**{table[:1].upper() + table[1:]} cannot be evaluated: {problem_summary(problem)}.** "
             f"{problem.message}\n\n**Fix:** {fix}", icon=":material/error:")
    if problem.role != "real":
        label = "the holdout" if problem.role == "holdout" else f"'{problem.name}'"
        st.button(f"Go on without {label}", key=f"{key}::without::{problem.role}::{problem.name}",
                  icon=":material/playlist_remove:", on_click=uploads.go_on_without,
                  args=(st.session_state, problem.role, problem.name),
                  help=f"Sets {table} aside (removes it from this session) so that the other tables get "
                       "results. Upload it again on the Data page once it is fixed.")


def require_fitting_tables(key: str) -> None:
    """Stop the page, naming each table that does not fit and its fix, while any table blocks the evaluation."""
    state = st.session_state
    problems = blocking_problems(state["tables"], state.get("schema"))
    if not problems:
        return
    names = sorted({describe(p.role, p.name) for p in problems})
    st.warning(f"Nothing can be computed while {' and '.join(names)} "
               f"{'does' if len(names) == 1 else 'do'} not fit the real table.", icon=":material/block:")
    shown = set()
    for problem in problems:
        if (problem.role, problem.name) in shown:
            st.error(problem.message, icon=":material/error:")  # a second problem of the same table
            continue
        shown.add((problem.role, problem.name))
        blocked_table_notice(problem, key)
    st.page_link(DATA_PAGE, label="Go to the Data page", icon=":material/arrow_forward:")
    st.stop()


def require_schema(key: str = "blocked"):
    """The configured schema; stop with a message when there is none or a loaded table does not fit.

    While a loaded table does not fit, name it with its fix and stop; without a schema, point to the Configure page and
    stop.
    """
    require_tables()
    require_fitting_tables(key)
    schema = st.session_state.get("schema")
    if schema is None:
        st.info("Column types and roles are not set yet: review them on the Configure page.",
                icon=":material/tune:")
        st.page_link(CONFIGURE_PAGE, label="Go to the Configure page", icon=":material/arrow_forward:")
        st.stop()
    return schema
