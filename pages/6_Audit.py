"""Audit page: a membership audit of a generator on the real table, in one of two designs.

Shared design by default (:mod:`privcore.audit.shared`), targeted as a choice (:mod:`privcore.audit.targeted`).
Logic in :mod:`dashboard.audit.view` and :mod:`dashboard.audit.shared_view`; reports are kept in this session.
"""

import streamlit as st

from dashboard import components as C
from dashboard.audit import estimate as E
from dashboard.audit import shared_view as SV
from dashboard.audit import view as V
from dashboard.audit import whitebox_view as WV
from dashboard.audit.citation import remember
from dashboard.audit.shared_panel import show_shared_results
from dashboard.page_setup import require_real_table, setup_page
from dashboard.session.persistence import keep_alive
from privcore.report import audit_figure

setup_page("Audit", icon=":material/policy:")
state = st.session_state

st.title("Audit a generator")
st.markdown(
    "The other pages judge one synthetic table. This audit attacks the **generator**: it trains the generator many "
    "times on training sets with and without each real person, learns what their presence changes in the output, "
    "and then has to tell outputs apart. By default it attacks **every record at once** (each model is trained on "
    "a random half of them); the targeted design attacks a few chosen people with models of their own. An attack "
    "AUC of 0.5 means it cannot tell whether the person was in the training data; 1 means it always can. Only "
    "the real table is used."
)
with st.expander("What this audit does, what the attacker knows and its blind spots", icon=":material/school:"):
    V.explanation_markdown(st.markdown)
real, schema, inferred = require_real_table()
if inferred:
    st.caption("Column types are inferred from the real table. To change them, load a synthetic table too and "
               "review them on the Configure page.")


def number(param, key: str, default):
    """A number input for a setting declared as a Param, keeping its value across page switches."""
    return st.number_input(param.label, value=default, key=key, help=V.param_help(param),
                           placeholder=param.rule or None, persist_state="session", **V.number_input_args(param))


def setting(param, key: str, default):
    """A generator setting's widget: a number, or for a column list (cart's order) the columns in the order picked."""
    if param.kind == "columns":
        picked = st.multiselect(param.label, list(real.frame.columns), default=default, key=key,
                                help=V.param_help(param), placeholder=param.rule or None, persist_state="session")
        return picked or None  # nothing picked: the declared default (the table's order)
    return number(param, key, default)


design = st.radio("Design", list(SV.DESIGNS), format_func=SV.DESIGNS.get, key=V.widget_key("design"),
                  horizontal=True, persist_state="session",
                  help="Every record at once: one set of models, each trained on a random half of the audited "
                       "records, attacks all of them (who is exposed is not known in advance). A few targets: "
                       "models trained with and without each chosen person, a sharper test for a handful of people.")
shared = design == "shared"
available, unavailable = V.generator_choices(schema, real.frame)
left, right = st.columns(2, gap="large")
with left:
    st.subheader("Generator")
    name = st.selectbox(
        "Generator to audit", list(available), index=V.default_generator_index(available),
        key=V.widget_key("generator"), persist_state="session",
        format_func=lambda n: V.choice_label(available[n]),
        help="A generator installed on this server (built in, SDV's, or registered by the server's admin), "
             "retrained for every model. Those that need real people outside the training data (the fresh "
             "sample, the leak ladder) take them from the audit's auxiliary data.")
    spec = available[name]
    st.caption(spec.description)
    values = {p.name: setting(p, V.widget_key("setting", name, p.name), p.default) for p in spec.params}
    if not spec.params:
        st.caption("It has no settings.")
    if unavailable:
        st.caption("Not offered here: " + " ".join(f"**{n}** {why}" for n, why in unavailable.items()))
with right:
    st.subheader("Budget")
    if shared:
        given = {p.name: number(p, V.widget_key("shared", p.name), schema.seed if p.name == "seed" else p.default)
                 for p in SV.budget_params(len(real.frame))}
    else:
        given = {p.name: number(p, V.widget_key("budget", p.name), schema.seed if p.name == "seed" else p.default)
                 for p in V.BUDGET}
    # Offered only where it can run: the shared design, and a generator whose model gives a per-record loss.
    whitebox = shared and WV.offers_loss(spec, V.changed_settings(spec, values), schema, real.frame) and \
        st.checkbox(WV.OPTION_LABEL, value=True, key=V.widget_key("whitebox", name), help=WV.OPTION_HELP,
                    persist_state="session")
    # Off by default: on one worker the meta-classifier adds about a minute at 1,000 records and 64 models.
    stronger = shared and st.checkbox(SV.STRONGER_LABEL, value=False, key=V.widget_key("stronger", name),
                                      help=SV.STRONGER_HELP, persist_state="session")
# The targeted design has neither the white-box nor the stronger black-box attacks.
extra = {"whitebox": bool(whitebox), "stronger": bool(stronger)} if shared else {}

view = SV if shared else V  # the two designs' logic: the same functions, each for its budget and report
settings = V.changed_settings(spec, values)
budget, problem = view.budget(given)
problem = problem or V.generator_problem(name, settings, schema, real.frame)
estimate = None
if not problem:  # the generator timed on this table, once per choice; its error, if any, is the audit's too
    note = st.empty()
    with st.spinner("Timing the generator on your table, to estimate the run time…"):
        estimate, problem = E.measured(state, E.estimate_key(design, real.content_hash, schema, name, settings, budget,
                                                             **extra),
                                       real.frame, schema, name, settings, budget, design,
                                       progress=lambda fraction, message: note.caption(message), **extra)
    note.empty()
if problem:
    st.error(problem, icon=":material/error:")
else:
    st.info(E.estimate_text(estimate, SV.audited_records(len(real.frame), budget) if shared else None),
            icon=":material/timer:")
key = None if problem else view.audit_key(real.content_hash, schema, name, settings, budget, **extra)
clicked = st.button("Run audit", type="primary", icon=":material/play_arrow:", key="run_audit",
                    disabled=problem is not None, help="Trains the generator for every model; results are kept "
                    "for this session only.")
report = V.cached(state, key) if key else None
if clicked and key and report is None:
    bar = st.progress(0.0, text="Starting…")
    report, error = view.run_audit(real.frame, schema, name, settings, budget,
                                progress=V.throttled(lambda fraction, message: (bar.progress(fraction, text=message),
                                                                          keep_alive(st.session_state))), **extra)
    bar.empty()
    if error:
        st.error(error, icon=":material/error:")
        st.stop()
    V.store(state, key, report)
    remember(state, key, real.content_hash)
if report is None:
    if not problem:
        st.info("Press **Run audit** to start. Nothing is computed until you do.", icon=":material/info:")
    st.stop()

st.divider()
if shared:
    show_shared_results(report, key)
    st.stop()
summary, splits = report.summary, report.splits
level = V.verdict_level(summary)
icons = {"error": ":material/gpp_bad:", "warning": ":material/warning:", "success": ":material/verified_user:"}
getattr(st, level)(summary["verdict"], icon=icons[level])
st.caption(f"Audited in {report.seconds:.1f} s on {splits['rows']:,} rows: a target pool of {splits['target_pool']:,}, "
           f"{splits['auxiliary']:,} auxiliary rows for the shadow models and {splits['evaluation']:,} for the "
           f"evaluation models, training sets of {splits['training_rows']:,} rows.")
for column, (label, value, help_text) in zip(st.columns(4), V.summary_numbers(summary)):
    column.metric(label, value, help=help_text)
proxy, attack = V.proxy_and_attack(summary)
sides = st.columns(2)
with sides[0].container(border=True):
    st.markdown(f"**The proxy says** (DCR test on one synthetic output)  \n{proxy}")
with sides[1].container(border=True):
    st.markdown(f"**The attack says** (shadow models, per person)  \n{attack}")
for warning in report.warnings:
    st.warning(warning, icon=":material/warning:")

C.show_figure(audit_figure(report), key=f"audit-figure::{key}")
st.subheader("Targets")
st.dataframe(V.targets_frame(report), hide_index=True, width="stretch")
st.caption("TPR at FPR x: the share of models trained with the person that the attack flags while flagging at most "
           "a share x of the models trained without them (at FPR 0 it never accuses wrongly). ε lower bound: no "
           "generator that is ε-differentially private for this person with a smaller ε could let the attack do "
           "this well (95% confidence).")

st.subheader("The person at risk")
pick = st.selectbox("Target", V.target_order(report), format_func=lambda i: V.target_label(report, i),
                    key=f"audit-target::{key}", help="Starts at the target the attack exposes most.")
st.dataframe(real.frame.iloc[[int(report.targets[pick].row)]], width="stretch")  # rows of the table as given
st.download_button("Download the audit (JSON)", data=V.report_json(report), file_name=f"audit-{report.generator}.json",
                   mime="application/json", icon=":material/download:", on_click="ignore", key=f"audit-json::{key}")
