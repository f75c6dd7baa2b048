"""Results page: run the chosen metrics, then explain every score.

Runs privcore behind a button (``dashboard.runner``, cached per session); draws score cards, a comparison,
privacy against utility, the reconstruction attack, one metric in detail, a per-record explorer and the downloads.
"""

import re

import streamlit as st

from dashboard import components as C
from dashboard import membership_view as MV
from dashboard import metric_choice, runner, uploads
from dashboard.audit.citation_panel import audit_citations
from dashboard.page_setup import METRICS_PAGE, require_schema, setup_page
from dashboard.reconstruction_view import reconstruction_view
from dashboard.tradeoff_view import tradeoff_view
from privcore.base import NotApplicable
from privcore.evaluation import combined_json
from privcore.evaluation import interpret as R
from privcore.report import figures as F
from privcore.report import html_report

setup_page("Results", icon=":material/monitoring:")
state = st.session_state
schema = require_schema()
tables = state["tables"]
# The same count as the Metrics page: metrics that cannot run on this data are left out, with the reason.
selection = metric_choice.sync_selection(state, tables, schema)
metric_ids = selection.runnable

st.title("Results")
holdout = f" and the holdout **{tables.holdout.name}**" if tables.holdout is not None else " (no holdout)"
st.markdown(
    f"{len(metric_ids)} metric(s) on {len(tables.synthetic)} synthetic table(s), measured against the real "
    f"table **{tables.real.name}**{holdout}."
)
if selection.note():
    st.caption(selection.note())
related = state.get(uploads.RELATED)
if related:  # the loaded tables are related tables' person tables
    st.info(related.text, icon=":material/group:")
if not metric_ids:
    st.warning("No metric is selected, so there is nothing to run. Choose metrics or a preset on the Metrics "
               "page.", icon=":material/checklist:")
    st.page_link(METRICS_PAGE, label="Choose metrics", icon=":material/arrow_forward:")

clicked = st.button(
    "Run evaluation", type="primary", icon=":material/play_arrow:", disabled=not metric_ids, key="run_evaluation",
    help="Select at least one metric on the Metrics page first." if not metric_ids else
    "Runs every selected metric on every synthetic table. Results are kept for this session only.",
)
# A tab's one-click offer (add a metric and run again) asks for a run as the button does.
clicked = state.pop(metric_choice.RUN_REQUESTED, False) or clicked
reports = runner.run(state) if clicked else runner.cached_results(state)
if reports is None:
    if metric_ids:
        st.info("Press **Run evaluation** to compute the scores. Nothing is computed until you do; results are "
                "kept in this browser session only.", icon=":material/info:")
    st.stop()

key = state["last_run_key"]
st.caption(f"Computed in {sum(r.seconds for r in reports.values()):.1f} s. Changing the data or any setting "
           "starts a new run; returning here with the same settings reuses these results.")
name = st.selectbox("Synthetic table to examine", list(reports), key=f"table::{key}") if len(reports) > 1 \
    else next(iter(reports))
report = reports[name]
st.subheader("The answer")
rule = C.verdict_rule_form(state)
for table_name, table_report in reports.items():
    # A declared ε-DP guarantee is read against the attacks at display time: declaring one needs no new run.
    table_report.dp_epsilon = uploads.declared_epsilon(state, table_name)
    C.verdict_panel(table_name, table_report, rule)
    audit_citations(state, table_name, tables.real.content_hash)
n_real = len(report.data.real)


def record_picker() -> int:
    """The real person the metric detail and the record explorer look at: in those two tabs only, kept between them."""
    kept = f"record-row::{key}::{name}"
    row = int(st.number_input(
        "Real person to examine (row number in the real table)", min_value=0, max_value=n_real - 1,
        value=int(state.get(kept, R.riskiest_record(report))), key=f"record::{key}::{name}",
        help="Starts at the person flagged by the most metrics; the record explorer shows the same person.",
    ))
    state[kept] = row
    return row


# Stateful tabs: the active tab survives reruns, and only its content is computed.
TABS = ["Score cards", "Side by side", "Privacy and utility", "Membership", "Reconstruction", "Metric in detail",
        "Record explorer", "Downloads"]
cards, compare, tradeoff, membership, reconstruction, detail, records, downloads = st.tabs(
    TABS, key="results_tab", on_change="rerun")

if cards.open:
    with cards:
        C.level_legend()
        for warning in report.warnings:
            st.warning(warning, icon=":material/warning:")
        C.score_cards(report)

if compare.open:
    with compare:
        st.dataframe(C.side_by_side(reports), hide_index=True, width="stretch")
        C.show_figure(F.scores_chart(reports), key=f"overview::{key}")

if tradeoff.open:
    with tradeoff:
        tradeoff_view(reports, rule, name, key)

if membership.open:
    with membership:
        MV.membership_view(report, key=f"membership::{key}::{name}")

if reconstruction.open:
    with reconstruction:
        reconstruction_view(report, key=f"reconstruction::{key}::{name}")

if detail.open:
    with detail:
        metric = st.selectbox("Metric", list(report), format_func=F.metric_name, key=f"metric::{key}::{name}")
        row = record_picker()
        C.score_card(metric, report[metric])
        for i, figure in enumerate(F.metric_figures(report, metric)):
            C.show_figure(figure, key=f"fig::{key}::{name}::{metric}::{i}")
        C.attack_details(report, metric)
        C.explanation_panel(metric)
        st.markdown("#### Three questions")
        utility = R.assess(metric, report[metric]).is_utility
        if utility:  # a utility measure: read against a fresh sample, no risk threshold
            low, high = R.UTILITY_BANDS
            threshold = R.default_threshold(metric)
            st.caption(f"A utility measure, higher is better: it keeps nearly all at {high:.0%} or more of what a "
                       f"fresh sample of real people keeps, part from {low:.0%}, little below.")
        else:
            threshold = st.number_input(
                "Shareability threshold: the most risk above the reference you accept", min_value=0.0, max_value=1.0,
                value=R.default_threshold(metric), step=0.01, key=f"threshold::{metric}", help=R.THRESHOLD_REASON,
            )
            st.caption(f"Default {R.default_threshold(metric):g}. {R.THRESHOLD_REASON}")
        C.three_questions(report, metric, row, threshold)
        if report[metric].applicable and not utility:  # a utility measure is about the table, not one person
            st.markdown(f"#### Worked computation for real row {row}")
            C.worked_computation(report, metric, row)

if records.open:
    with records:
        row = record_picker()
        st.markdown(f"#### Real row {row}")
        st.dataframe(report.data.real.iloc[[row]], width="stretch")
        if related and len(related.people) == n_real:  # one person per row, none dropped: their own rows
            for child, rows in related.rows_of(row).items():
                st.markdown(f"**This person's rows of {child}** (summarised in the row above)")
                st.dataframe(rows, hide_index=True, width="stretch")
        st.markdown("**Nearest synthetic records** (in the encoded space E, from the shared neighbour search)")
        try:
            st.dataframe(R.nearest_records(report, row, "E"), width="stretch")
        except NotApplicable as exc:  # metrics that need no distances ran; this table needs the space E
            st.info(f"No nearest records to show: {exc}", icon=":material/info:")
        st.markdown("**Which metrics flag this person**")
        flags = C.record_flag_table(report, row)
        if flags.empty:
            st.info("None of the metrics that ran gives a per-person value.")
        else:
            st.dataframe(flags, hide_index=True, width="stretch")
        st.markdown("#### Metrics disagree")
        C.disagreement_panel(report, key=f"disagree::{key}::{name}")

if downloads.open:
    with downloads:
        st.markdown("Everything stays on this machine: the files are built in memory when you click.")
        settings = {"schema": schema.to_dict(), "metrics": metric_ids,
                    "metric_params": state.get("metric_params") or {},
                    "tables": {"real": tables.real.name, "synthetic": list(reports),
                               "holdout": tables.holdout.name if tables.holdout is not None else None}}
        for table_name, rep in reports.items():
            slug = re.sub(r"[^A-Za-z0-9_-]+", "-", table_name).strip("-") or "synthetic"
            st.download_button(f"JSON for “{table_name}”", data=rep.to_json(rule=rule), file_name=f"privacy-{slug}.json",
                               mime="application/json", icon=":material/download:", on_click="ignore",
                               key=f"json::{key}::{table_name}")
        if len(reports) > 1:
            st.download_button("JSON for all tables", data=combined_json(reports, settings=settings, rule=rule),
                               file_name="privacy-all-tables.json", mime="application/json",
                               icon=":material/download:", on_click="ignore", key=f"json-all::{key}")
        st.download_button(
            "Self-contained HTML report",
            data=lambda: html_report(reports, settings=settings, rule=rule).encode("utf-8"),
            file_name="privacy-report.html", mime="text/html", icon=":material/description:", on_click="ignore",
            key=f"html::{key}", help="One file with every score, explanation and figure; opens offline.",
        )
