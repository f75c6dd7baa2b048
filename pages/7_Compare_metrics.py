"""Compare metrics: the metric lab (:mod:`privcore.lab`) on the real table loaded on the Data page.

Leak types, levels, metrics and seeds (or a supplied ladder), a run-time estimate, the run and its figures and
downloads. Logic in :mod:`dashboard.lab.view`; labs are kept in this session only.
"""

import streamlit as st

from dashboard import components as C
from dashboard import uploads as UP
from dashboard.lab import estimate as LE
from dashboard.lab import ladder as LL
from dashboard.lab import runs as LR
from dashboard.lab import view as V
from dashboard.page_setup import require_real_table, setup_page
from dashboard.session.persistence import keep_alive
from privcore.report import figures as F
from privcore.report import lab_figures as LF

setup_page("Compare metrics", icon=":material/compare_arrows:")
state = st.session_state

st.title("Compare metrics: which metric notices which leak")
st.markdown(
    "Every metric promises to measure privacy risk, but each one looks for a different kind of leak. This lab "
    "tests them on **your own table**: it makes synthetic tables that leak on purpose, from no leak (fresh real "
    "people) to a strong leak, runs the metrics on each, and reports which metric notices which leak, and from "
    "which strength. Several seeds per level show how much a score moves by chance alone."
)
with st.expander("How the lab works", icon=":material/school:"):
    st.markdown(
        "- **Three real tables.** The real table is split into a *training* table (what the leaks copy from), "
        "a *holdout* for the metrics and a *population* of fresh real rows (a holdout loaded on the Data page "
        "is split into the last two).\n"
        "- **Leak types**, each with a strength from 0 to 1: "
        + "; ".join(f"*{LF.leak_label(leak)}*: {V.leak_description(leak)}" for leak in V.LADDER) + ".\n"
        "- **Detection.** A level counts as noticed when, on every seed, the metric's risk is above every "
        "fresh sample's risk by more than 0.01; a metric notices a leak *from* the lowest level from which "
        "every stronger level is noticed too.\n"
        "- **Agreement**: Spearman's rank correlation of two metrics' risks over every table of the lab."
    )
real, schema, inferred = require_real_table()
tables = state["tables"]
holdout = tables.holdout.frame if tables.holdout is not None else None
names = {"real": tables.real.name, **({"holdout": tables.holdout.name} if tables.holdout is not None else {})}
if inferred:
    st.caption("Column types are inferred from the real table. To change them, load a synthetic table too and "
               "review them on the Configure page.")

mode = st.radio("Synthetic tables to test the metrics on", list(V.MODES), format_func=V.MODES.get,
                key=V.widget_key("mode"), persist_state="session")
available, unavailable = V.leak_choices(schema)
metric_help = "Metrics run with the parameters set on the Metrics page."
if mode == V.GENERATED:
    left, right = st.columns(2)
    left.button("Quick settings (for the browser)", icon=":material/bolt:", key=V.widget_key("preset", "quick"),
                on_click=V.apply_preset, args=(state, "quick", available, schema.seed),
                help="2 leak types, levels 0, 0.5 and 1, 2 seeds, 5 fast metrics.")
    right.button("Full default (as the command line)", icon=":material/all_inclusive:",
                 key=V.widget_key("preset", "full"), on_click=V.apply_preset,
                 args=(state, "full", available, schema.seed),
                 help="Every leak type, levels 0 to 1 in steps of 0.25, 3 seeds, the 19 default metrics: minutes.")
    V.start_with_preset(state, "quick", available, schema.seed)
    leaks = st.multiselect("Leak types", available, format_func=LF.leak_label, key=V.widget_key("leaks"), persist_state="session",
                           help="; ".join(f"{LF.leak_label(k)}: {V.leak_description(k)}" for k in available))
    if unavailable:
        st.caption("Not offered here: " + " ".join(f"**{LF.leak_label(k)}** {why}" for k, why in unavailable.items()))
    cols = st.columns(3)
    levels = cols[0].text_input("Leak levels (0 = no leak, 1 = strongest)", key=V.widget_key("levels"), persist_state="session",
                                help="Comma-separated numbers from 0 to 1; 0 is always run.")
    seeds = cols[1].number_input("Seeds per level", min_value=1, max_value=100, step=1, key=V.widget_key("seeds"), persist_state="session",
                                 help="Synthetic tables per leak type and level. With 2 a level without any effect "
                                      "passes the detection rule by chance 1 time in 6; with 3, 1 in 20.")
    seed = cols[2].number_input("Seed", min_value=0, max_value=2**31 - 1, step=1, key=V.widget_key("seed"), persist_state="session",
                                help="Fixes the split of the real table, every synthetic table and every metric.")
else:
    st.markdown("Upload synthetic tables made from the real table, and give each a number: the smallest number is "
                "the reference (the least leaky setting, e.g. the smallest ε). Tables with the same number are "
                "repeats, like seeds.")
    files = st.file_uploader("Synthetic tables of the ladder", type=UP.UPLOAD_TYPES, accept_multiple_files=True,
                             key=V.widget_key("ladder_upload"))
    for filename, message in LL.add_ladder_files(state, files):
        st.error(f"{filename}: {message}", icon=":material/error:")
    for entry in state[LL.LADDER_TABLES]:
        name_col, label_col, remove_col = st.columns([3, 2, 1], vertical_alignment="bottom")
        name_col.markdown(f"**{entry.name}** ({len(entry.table.frame):,} rows)")
        label = label_col.number_input(f"Label of {entry.name}", value=float(entry.label), format="%g",
                                       key=V.widget_key("label", entry.name))
        LL.set_ladder_label(state, entry.name, label)
        remove_col.button("Remove", key=V.widget_key("remove", entry.name), on_click=LL.remove_ladder_table,
                          args=(state, entry.name), icon=":material/delete:")
    seed = st.number_input("Seed", min_value=0, max_value=2**31 - 1, value=schema.seed, step=1,
                           key=V.widget_key("ladder_seed"), persist_state="session",
                           help="Seeds the metrics' own randomness; the i-th table of a label gets seed + i.")
    if holdout is None:
        st.caption("No holdout is loaded: the metrics that need one (the attacks and the holdout tests) will not run, "
                   "and there is no fresh-sample baseline. Load one on the Data page for the full picture.")
state.setdefault(V.widget_key("metrics"), list(V.QUICK.metrics))
metrics = st.multiselect("Metrics", V.metric_options(), format_func=F.metric_name,
                         key=V.widget_key("metrics"), persist_state="session", help=metric_help)

params = LR.chosen_params(state.get("metric_params"), metrics)
if mode == V.GENERATED:
    settings, problem = V.check_generated(leaks, levels, seeds, metrics, seed)
    problem = problem or V.split_problem(real.frame, holdout, schema, settings["seed"], names)
else:
    entries = state[LL.LADDER_TABLES]
    settings, problem = V.check_supplied(entries, metrics, seed)
estimate = None
if not problem:
    if mode == V.GENERATED:
        needed = LE.generated_evaluations(settings)
        timing_key = LE.timing_key(real.content_hash, LR.table_hash(holdout), schema.to_dict(), settings["metrics"],
                                  settings["seed"], params)

        def measure():
            """Time two evaluations on probe tables generated from the real table."""
            training, evaluation, fresh = LE.generated_probe_tables(real.frame, holdout, schema, settings["seed"])
            return LE.time_evaluations(training, evaluation, fresh, schema, settings["metrics"], settings["seed"], params)
    else:
        needed = len(entries)
        timing_key = LE.timing_key(real.content_hash, LR.table_hash(holdout), schema.to_dict(), settings["metrics"],
                                  settings["seed"], params, LL.ladder_fingerprint(entries[:2]))

        def measure():
            """Time two evaluations on the first two supplied tables."""
            return LE.time_evaluations(real.frame, holdout, LL.supplied_probe_tables(entries), schema,
                                      settings["metrics"], settings["seed"], params)
    with st.spinner("Timing two evaluations on your table, to estimate the run time…"):
        measured, problem = LE.timing(state, timing_key, measure)
    if measured is not None:
        estimate = measured.seconds(needed)
        st.info(LE.estimate_text(estimate, needed, measured), icon=":material/timer:")
if problem:
    st.error(problem, icon=":material/error:")

key = None if problem else LR.lab_key(mode, real.content_hash, LR.table_hash(holdout), schema.to_dict(), settings,
                                     params, LL.ladder_fingerprint(state[LL.LADDER_TABLES]) if mode == V.SUPPLIED else None)
clicked = st.button("Run the lab", type="primary", icon=":material/play_arrow:", key=V.widget_key("run"),
                    disabled=problem is not None, help="Results are kept for this session only.")
stored = LR.cached(state, key)
if clicked and key and stored is None:
    bar = st.progress(0.0, text="Starting…")
    def progress(fraction: float, message: str) -> None:
        """Move the progress bar to ``fraction`` with ``message``, and count the run as use of the session."""
        bar.progress(fraction, text=message)
        keep_alive(state)  # a long lab counts as use: the session must not expire while it runs

    if mode == V.GENERATED:
        result, error = LR.run_generated(real.frame, holdout, schema, settings, params=params, names=names,
                                        progress=progress)
    else:
        result, error = LR.run_supplied(real.frame, holdout, schema, settings,
                                       {e.name: e.table.frame for e in entries}, params=params, names=names,
                                       progress=progress)
    bar.empty()
    if error:
        st.error(error, icon=":material/error:")
        st.stop()
    stored = LR.StoredLab(result, V.lab_document(result, names), estimate)
    LR.store(state, key, stored)
if stored is None:
    if not problem:
        st.info("Press **Run the lab** to start. Nothing is computed until you do.", icon=":material/info:")
    st.stop()

st.divider()
result, document = stored.result, stored.document
st.caption(V.run_caption(stored))
for error in result.errors:
    st.warning(f"Internal error in {error.splitlines()[0]}", icon=":material/warning:")
st.subheader("Which metric notices which leak")
C.show_figure(LF.detection_heatmap(document), key=f"lab-detection::{key}")
st.markdown("\n".join(f"- {line}" for line in V.summary_lines(result)))
st.subheader("Response curves")
scale = st.radio("Show", ["risk", "excess"], horizontal=True, key=V.widget_key("curves", key),
                 format_func={"risk": "Risk", "excess": "Excess risk (over the fresh-sample baseline)"}.get)
C.show_figure(LF.response_curves(document, value=scale), key=f"lab-curves::{key}::{scale}")
st.subheader("Do the metrics agree?")
C.show_figure(LF.agreement_heatmap(document), key=f"lab-agreement::{key}")
st.subheader("Privacy and utility across the levels")
if document.get("frontier"):
    st.markdown(V.frontier_text(document))
    C.show_figure(LF.frontier_figure(document), key=f"lab-frontier::{key}")
else:
    st.caption("This lab ran no utility measure, so there is no privacy–utility frontier to show.")
with st.expander("Monotonicity: Spearman ρ of risk against leak level"):
    st.dataframe(V.monotonicity_frame(result), width="stretch")
with st.expander(f"Every run ({len(result.runs):,} rows)"):
    st.dataframe(result.frame(), hide_index=True, width="stretch")
left, right = st.columns(2)
left.download_button("Download the lab (JSON)", data=V.report_json(document), file_name="metric-lab.json",
                     mime="application/json", icon=":material/download:", on_click="ignore", key=f"lab-json::{key}")
right.download_button("Self-contained HTML page", data=lambda: V.report_html(document), file_name="metric-lab.html",
                      mime="text/html", icon=":material/description:", on_click="ignore", key=f"lab-html::{key}",
                      help="One file with the tables, sentences and figures; opens offline.")
