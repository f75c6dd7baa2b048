"""Metrics page: every registered metric by family, whether it can run, presets and parameters.

It says whether each metric can run on the loaded data and shows the parameters of the selected metrics. The choice is
stored in ``st.session_state["selected_metrics"]`` and the changed parameters in ``metric_params`` (see
:mod:`dashboard.metric_choice`).
"""

import streamlit as st

from dashboard import metric_choice
from dashboard.page_setup import DATA_PAGE, RESULTS_PAGE, require_schema, setup_page
from dashboard.reference_table import REFERENCE_METRICS
from dashboard.session.state import DEFAULT_CHOICE, LEFT_OUT
from privcore.evaluation import describe_estimate, estimate_seconds
from privcore.metrics import registry

setup_page("Metrics")
state = st.session_state
schema = require_schema()
tables = state["tables"]

metrics = registry.all_metrics()
reasons = metric_choice.metric_availability(tables, schema)
presets = registry.presets(holdout=tables.holdout is not None)

PRESET_HELP = {
    "quick": "The default: fast checks that train no model and, when a holdout is loaded, the membership "
             "attacks (the decisive evidence). The estimated time is shown below.",
    "all 17 review metrics": "The 17 metrics compared in the review this tool follows and, when a holdout is "
                             "loaded, the strongest membership attack (the decisive evidence).",
    "attacks (needs holdout)": "Attacks on individuals and membership tests; most need a holdout table.",
    "everything": "Every metric. Those that train a model can take minutes on large tables.",
}
FAMILY_HELP = {
    "Simulation-based": "Play the attacker directly: look for real records copied into the synthetic "
                        "data, or guess a person's sensitive value from the records that match them.",
    "Distance-based": "Measure how close synthetic records sit to real ones: a synthetic record almost "
                      "identical to a real person can reveal that person.",
    "Classifier-based": "Train a model on the synthetic data; if it finds real people or predicts their "
                        "sensitive values too well, the data carries traces of them.",
    "Attack-based": "Published attacks with explicit background knowledge: singling a person out, "
                    "linking two pieces of information, inferring a hidden value.",
    "Holdout proxy tests": "Are synthetic records closer to the training records than to real records "
                           "the generator never saw (the holdout)? If so, it memorised.",
    "Membership inference": "Can an attacker tell whether a given person was in the training data, "
                            "just by looking at the synthetic data?",
    "SynQP": "The SynQP framework's identity-disclosure and membership-inference scores.",
    "Reconstruction": "Can an attacker who knows a person's key columns fill in the rest of their record, better "
                      "for the people in the training data than for others?",
}


def _box(metric_id: str) -> str:
    return f"metric::{metric_id}"


def _param_key(metric_id: str, name: str, part: int | None = None) -> str:
    return f"param::{metric_id}::{name}" + ("" if part is None else f"::{part}")


def _widget_keys(metric_id: str) -> list[str]:
    keys = []
    for spec in metric_choice.param_specs(metric_id):
        parts = (0, 1) if spec.kind == "column_pair" else (None,)
        keys += [_param_key(metric_id, spec.name, part) for part in parts]
    return keys


def _remember(key: str) -> None:
    """on_change of a parameter widget: keep what the user gave, for when they come back to the page."""
    state.setdefault("metric_param_draft", {})[key] = state[key]


def _seed(key: str, value) -> None:
    """Show the user's last value (the draft), else ``value``: the stored override or the default."""
    state[key] = state.setdefault("metric_param_draft", {}).get(key, value)


def _reset(metric_id: str) -> None:
    metric_choice.reset_params(state, metric_id, _widget_keys(metric_id))


def _parameters(info) -> None:
    """The "Parameters" expander of one selected metric: a widget per declared parameter, checked and stored."""
    specs = metric_choice.param_specs(info.id)
    with st.expander("Parameters", icon=":material/tune:"):
        for spec in specs:
            current = metric_choice.current_param(state, info.id, spec, schema)
            default = metric_choice.param_default(spec, schema)
            help_text = f"{spec.help} Default: {metric_choice.describe_value(spec, default)}."
            key = _param_key(info.id, spec.name)
            if spec.kind in ("int", "float"):
                cast = int if spec.kind == "int" else float
                low, high = (None if b is None else cast(b) for b in (spec.minimum, spec.maximum))
                _seed(key, cast(min(max(current, low), high) if high is not None else max(current, low)))
                value = st.number_input(
                    spec.label, min_value=low, max_value=high, step=cast(spec.step),
                    format=metric_choice.number_format(spec), key=key, help=help_text,
                    on_change=_remember, args=(key,))
            elif spec.kind == "numbers":
                _seed(key, metric_choice.describe_value(spec, current))
                value = st.text_input(spec.label, key=key, help=help_text, on_change=_remember, args=(key,),
                                      placeholder=spec.describe_default())
            elif spec.kind == "columns":
                options = metric_choice.param_options(spec, schema)
                _seed(key, list(current))
                state[key] = [c for c in state[key] if c in options]  # columns no longer analysed drop out
                value = st.multiselect(spec.label, options, key=key, help=help_text, on_change=_remember,
                                       args=(key,))
            else:  # column_pair: the attacker's two tables
                options = metric_choice.param_options(spec, schema)
                st.markdown(f"**{spec.label}**: the attacker holds two tables about the same people, "
                            "with these columns; they share no identifier and no column.")
                value = []
                halves = st.columns(2)
                for part, column in enumerate(halves):
                    part_key = _param_key(info.id, spec.name, part)
                    _seed(part_key, list(current[part]) if len(current) > part else [])
                    state[part_key] = [c for c in state[part_key] if c in options]
                    value.append(column.multiselect(
                        f"Table {part + 1}", options, key=part_key, help=help_text, on_change=_remember,
                        args=(part_key,)))
            problem = metric_choice.set_param(state, info.id, spec, value, schema)
            if problem:
                in_use = metric_choice.current_param(state, info.id, spec, schema)
                st.error(f"{problem} This value is not used: until it is fixed, {info.id} runs with "
                         f"{metric_choice.describe_value(spec, in_use)}.", icon=":material/error:")
        if info.id in REFERENCE_METRICS:
            reference = (state.get("metric_params", {}).get(info.id) or {}).get("reference")
            if reference is not None:
                name = getattr(state.get("reference"), "name", "you uploaded")
                st.caption(f"Reference set: the reference table **{name}** ({len(reference):,} rows) from "
                           "the Data page.")
            else:
                st.caption("Reference set: half of the holdout, drawn at random. Upload a reference table "
                           "(real people in neither the training data nor the holdout) on the Data page to "
                           "use it instead.")
        changed = [spec.label for spec in specs if spec.name in (state["metric_params"].get(info.id) or {})]
        st.caption(f"Changed from the default: {', '.join(changed)}." if changed else "All defaults.")
        st.button("Reset to defaults", key=f"param_reset::{info.id}", on_click=_reset, args=(info.id,),
                  icon=":material/restart_alt:", disabled=not changed and not any(
                      k in state.get("metric_param_draft", {}) for k in _widget_keys(info.id)))


def _chosen_by_hand() -> None:
    """on_change of a tick box: the choice is now the user's own and no longer follows the data."""
    state[DEFAULT_CHOICE] = False


def _apply_preset(name: str | None) -> None:
    wanted = presets[name] if name else []
    chosen = [m for m in wanted if reasons.get(m) is None]
    for info in metrics:
        state[_box(info.id)] = info.id in chosen
    state[DEFAULT_CHOICE] = name == "quick"  # the quick preset is the default: it follows the data
    state[LEFT_OUT] = []  # the note below names what the preset left out
    left_out = [m for m in wanted if m not in chosen]
    state["preset_note"] = (
        f"Preset “{name}”: {len(chosen)} metric(s) selected." if name else "No metric selected."
    ) + (f" Left out because they cannot run on this data: {', '.join(left_out)} (the reasons are "
         "shown below)." if left_out else "")


# A fresh visit (no checkbox state yet) starts from the stored choice, or the default one; while the choice is
# the default, it follows the data (a holdout adds the membership attacks).
fresh = not any(_box(info.id) in state for info in metrics)
if fresh and not state.get("selected_metrics"):
    state[DEFAULT_CHOICE] = True
selection = metric_choice.sync_selection(state, tables, schema, reasons)
if fresh or selection.default:
    start = set(selection.runnable)
    for info in metrics:
        state[_box(info.id)] = info.id in start
for info in metrics:
    if reasons[info.id] is not None:
        state[_box(info.id)] = False  # a metric that cannot run is never silently selected

st.title("Metrics")
st.markdown(
    "Each metric imitates one attacker and measures how often they would succeed. Choose a preset or "
    "tick metrics one by one. A metric that cannot run on your data says why; adding what it needs "
    "(for example a holdout table on the Data page, or a sensitive column on the Configure page) "
    "makes it available."
)

# Widths by label length: equal columns cut "All 17 review metrics" and "Attacks (needs holdout)" at 1,400 px.
buttons = st.columns([max(6, len(name)) for name in presets] + [6])
for column, name in zip(buttons, presets):
    column.button(name.capitalize(), key=f"preset::{name}", on_click=_apply_preset, args=(name,),
                  help=PRESET_HELP.get(name), width="stretch")
buttons[-1].button("Clear", key="preset::clear", on_click=_apply_preset, args=(None,),
                   help="Untick every metric.", width="stretch")
if state.get("preset_note"):
    st.info(state.pop("preset_note"), icon=":material/info:")
rows = {"real": len(tables.real.frame), "synthetic": [len(t.frame) for t in tables.synthetic.values()],
        "holdout": None if tables.holdout is None else len(tables.holdout.frame)}
ticked = [info.id for info in metrics if state.get(_box(info.id))]
if ticked:  # the same count and estimate as at the bottom of the page, where the choice is listed
    estimate = describe_estimate(estimate_seconds(ticked, rows["real"], rows["synthetic"], rows["holdout"]), rows)
    st.caption(f":material/timer: {len(ticked)} metric(s) selected; {estimate[0].lower()}{estimate[1:]}")

for family in registry.FAMILIES:
    members = [info for info in metrics if info.family == family]
    if not members:
        continue
    with st.expander(family, expanded=True):
        st.caption(FAMILY_HELP.get(family, ""))
        for info in members:
            reason = reasons[info.id]
            st.checkbox(f"**{info.name}** (`{info.id}`)", key=_box(info.id), disabled=reason is not None,
                        on_change=_chosen_by_hand)
            lines = [info.summary, f"*Attacker knows:* {info.attacker_knows}"]
            if reason is None:
                lines.append(":material/check_circle: **Can run** with your data.")
            else:
                lines.append(f":material/block: **Cannot run here:** this metric {reason}")
            st.markdown("  \n".join(lines))
            if reason is None and state.get(_box(info.id)) and metric_choice.param_specs(info.id):
                _parameters(info)

with st.expander("Shared setting: the FAMD projection", icon=":material/scatter_plot:"):
    st.markdown(
        "DCR, NNDR and HidR measure distances after projecting every record onto the first *k* axes of a "
        "factor analysis of mixed data (FAMD) fitted on the real table. By default *k* = min(5, r), where r "
        "is the number of numerical columns plus categories minus categorical columns; the review leaves *k* "
        "open and PrivEval uses 2. Fewer axes blur records together, more axes keep more detail."
    )
    state.setdefault("famd_components", None)
    chosen_k = st.number_input("Number of FAMD axes k (0 = default)", min_value=0, max_value=50, step=1,
                               value=int(state["famd_components"] or 0), key="famd_k_input")
    state["famd_components"] = int(chosen_k) or None

state["selected_metrics"] = [info.id for info in metrics if state.get(_box(info.id))]
chosen = state["selected_metrics"]
if chosen:
    st.success(f"{len(chosen)} metric(s) selected: {', '.join(chosen)}.", icon=":material/check_circle:")
    seconds = estimate_seconds(chosen, rows["real"], rows["synthetic"], rows["holdout"])
    st.markdown(f":material/timer: {describe_estimate(seconds, rows)}")
    if selection.note():
        st.caption(selection.note())
    if tables.holdout is None:
        st.info("For a decisive answer, upload a holdout on the Data page: real records from the same population "
                "that were not used to train the generator. The default choice then adds the membership attacks, "
                "which test whether the people in the training data can be told apart.", icon=":material/upload_file:")
        st.page_link(DATA_PAGE, label="Upload a holdout on the Data page", icon=":material/upload_file:")
    elif state.get(DEFAULT_CHOICE):
        st.caption("Default choice: the fast checks and, because a holdout is loaded, the membership attacks "
                   "(mia_best among them), whose evidence decides the answer.")
    st.page_link(RESULTS_PAGE, label="Next: run them on the Results page", icon=":material/arrow_forward:")
else:
    st.warning("No metric selected: choose a preset or tick at least one metric.", icon=":material/warning:")
