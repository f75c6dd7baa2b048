"""The home page: what the dashboard does, and the two ways to start (demo data or your own upload)."""

import sys

import streamlit as st

from dashboard import uploads
from dashboard.page_setup import CONFIGURE_PAGE, DATA_PAGE, LEARN_PAGE, RESULTS_PAGE, setup_page
from dashboard.session import persistence
from privcore.base import InputError


def render() -> None:
    """Draw the home page (``app.py`` runs it on every visit). Works with nothing loaded."""
    setup_page("Home")

    _load_requested_demo()

    st.title("How private is your synthetic data?")
    st.markdown(
        "Synthetic data is meant to look like a real table without revealing the people in it. This "
        "dashboard checks that promise: you give it the **real table** a generator learnt from and one or "
        "more **synthetic tables** it produced, and it measures how much the synthetic records give away "
        "about real people, with a plain explanation of every score."
    )

    who = st.columns(3)
    who[0].markdown(
        "**Data custodians** deciding whether a synthetic table may leave the building get scores, "
        "their reasoning and an exportable report."
    )
    who[1].markdown(
        "**Researchers** comparing generators or privacy measures see several synthetic tables and "
        "every metric side by side."
    )
    who[2].markdown(
        "**Learners** start from a built-in demo and see what each attack does to one person's record."
    )

    st.subheader("Start")
    start = st.columns(2)
    with start[0]:
        st.markdown(
            "**Try it on demo data.** A sample of the public UCI Adult census table, a synthetic copy "
            "with a little noise added, and a holdout of people the generator never saw."
        )
        if st.button("Start with demo data", type="primary", icon=":material/play_arrow:", key="start_demo"):
            uploads.load_demo(st.session_state, uploads.DEFAULT_DEMO)
            st.switch_page(RESULTS_PAGE)
    with start[1]:
        st.markdown(
            "**Use your own tables.** CSV, TSV, Parquet or Excel: the real table, one or more synthetic "
            "tables and, if you have one, a holdout table."
        )
        st.page_link(DATA_PAGE, label="Upload your data", icon=":material/upload_file:")

    tables = st.session_state["tables"]
    if tables.ready:
        st.info(
            f"Data is already loaded ({tables.real.name} and {len(tables.synthetic)} synthetic "
            "table(s)); you can review the settings or go straight to the results.",
            icon=":material/info:",
        )
        st.page_link(CONFIGURE_PAGE, label="Review column types and roles", icon=":material/tune:")

    st.subheader("What the scores can and cannot tell you")
    st.markdown(
        "- Each score imitates one kind of attacker (someone who looks for copied records, links records "
        "to people, or guesses a sensitive value) and says how often that attacker would succeed. "
        "A risk of 0 means the attack learns nothing; 1 means it always succeeds.\n"
        "- A low score means **this** attack failed on **this** data, not that the data is safe: other "
        "attacks, or an attacker who knows more, may still succeed. Metrics often disagree, and the "
        "dashboard shows where.\n"
        "- Scores are estimates from samples. With a **holdout table** (real people who were not used to "
        "train the generator) the dashboard can compare against the risk that any similar data carries, "
        "which makes the scores much easier to interpret.\n"
        "- No score proves legal anonymity. Use them as evidence for a decision, together with how the "
        "data will be shared and who could access it."
    )
    st.page_link(LEARN_PAGE, label="Learn how the attacks work, step by step", icon=":material/school:")

    st.subheader("Your data stays here")
    st.markdown(
        "Uploaded tables are held only in this server's memory. They are never written to disk, never "
        "shared with other sessions, and never sent anywhere. So that a reload does not lose your work, it is "
        "kept under a private, unguessable link (the address in your browser) and deleted "
        f"{persistence.idle_minutes():g} minutes after your last action, or at once with **Forget my data "
        "now** in the sidebar. The dashboard sends no usage statistics and loads no fonts or scripts from the "
        "internet."
    )


def _load_requested_demo() -> None:
    """Load the demo named on the command line into a new session that opened on the home page.

    The README's first command starts the server with ``--demo``: each new session that opens on the home page
    starts with the demo loaded (a deep link to another page still shows how to load data).
    """
    requested = uploads.demo_requested(sys.argv[1:])
    if not requested or st.session_state.get("demo_autoloaded"):
        return
    st.session_state["demo_autoloaded"] = True
    if st.session_state["tables"].ready:
        return
    try:
        uploads.load_demo(st.session_state, requested)
    except InputError as exc:  # an unknown scenario name on the command line
        st.error(f"The server was started with --demo {requested}, which could not be loaded: {exc}",
                 icon=":material/error:")
    else:
        st.rerun()  # redraw the sidebar summary with the loaded tables
