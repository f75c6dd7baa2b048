"""Metrics page: every registered metric by family, whether it can run on the loaded data, presets.

The choice is stored as metric ids in ``st.session_state["selected_metrics"]`` (default: the quick
preset); the Results page runs them.
"""

import streamlit as st

from dashboard import data_io
from dashboard.page_setup import RESULTS_PAGE, require_schema, setup_page
from privcore import registry

setup_page("Metrics")
state = st.session_state
schema = require_schema()
tables = state["tables"]

metrics = registry.all_metrics()
reasons = data_io.metric_availability(tables, schema)
presets = registry.presets()

PRESET_HELP = {
    "quick": "Fast checks that train no model: usually a few seconds.",
    "all 17 review metrics": "The 17 metrics compared in the review this tool follows.",
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
}


def _box(metric_id: str) -> str:
    return f"metric::{metric_id}"


def _apply_preset(name: str | None) -> None:
    wanted = presets[name] if name else []
    chosen = [m for m in wanted if reasons.get(m) is None]
    for info in metrics:
        state[_box(info.id)] = info.id in chosen
    left_out = [m for m in wanted if m not in chosen]
    state["preset_note"] = (
        f"Preset “{name}”: {len(chosen)} metric(s) selected." if name else "No metric selected."
    ) + (f" Left out because they cannot run on this data: {', '.join(left_out)} (the reasons are "
         "shown below)." if left_out else "")


# A fresh visit (no checkbox state yet) starts from the stored choice, or the quick preset.
if not any(_box(info.id) in state for info in metrics):
    start = set(state.get("selected_metrics") or presets["quick"])
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

buttons = st.columns(len(presets) + 1)
for column, name in zip(buttons, presets):
    column.button(name.capitalize(), key=f"preset::{name}", on_click=_apply_preset, args=(name,),
                  help=PRESET_HELP.get(name), width="stretch")
buttons[-1].button("Clear", key="preset::clear", on_click=_apply_preset, args=(None,),
                   help="Untick every metric.", width="stretch")
if state.get("preset_note"):
    st.info(state.pop("preset_note"), icon=":material/info:")

for family in registry.FAMILIES:
    members = [info for info in metrics if info.family == family]
    if not members:
        continue
    with st.expander(family, expanded=True):
        st.caption(FAMILY_HELP.get(family, ""))
        for info in members:
            reason = reasons[info.id]
            st.checkbox(f"**{info.name}** (`{info.id}`)", key=_box(info.id), disabled=reason is not None)
            lines = [info.summary, f"*Attacker knows:* {info.attacker_knows}"]
            if reason is None:
                lines.append(":material/check_circle: **Can run** with your data.")
            else:
                lines.append(f":material/block: **Cannot run here:** this metric {reason}")
            st.markdown("  \n".join(lines))

state["selected_metrics"] = [info.id for info in metrics if state.get(_box(info.id))]
chosen = state["selected_metrics"]
if chosen:
    st.success(f"{len(chosen)} metric(s) selected: {', '.join(chosen)}.", icon=":material/check_circle:")
    st.page_link(RESULTS_PAGE, label="Next: run them on the Results page", icon=":material/arrow_forward:")
else:
    st.warning("No metric selected: choose a preset or tick at least one metric.", icon=":material/warning:")
