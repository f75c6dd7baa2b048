"""The session-state contract every page reads and writes.

Uploader values vanish when the user changes page, so parsed tables are copied here together with a
content hash; results are cached per session under a key made of those hashes and the settings, and are
never written to disk or shared between sessions.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

import pandas as pd


@dataclass(frozen=True)
class LoadedTable:
    """A parsed table with the name the user knows it by and a hash of its content."""

    name: str
    frame: pd.DataFrame
    content_hash: str

    @classmethod
    def from_frame(cls, name: str, frame: pd.DataFrame) -> "LoadedTable":
        """The loaded table ``name`` of ``frame``, with the frame's content hash."""
        return cls(name=name, frame=frame, content_hash=content_hash(frame))


@dataclass
class Tables:
    """Everything the user has loaded."""

    real: LoadedTable | None = None
    synthetic: dict[str, LoadedTable] = field(default_factory=dict)
    holdout: LoadedTable | None = None

    @property
    def ready(self) -> bool:
        """A real table and at least one synthetic table are loaded."""
        return self.real is not None and bool(self.synthetic)

    def fingerprint(self) -> str:
        """A short hash of the loaded tables' content hashes (real, synthetic by name, holdout)."""
        parts = [
            self.real.content_hash if self.real else "-",
            *[f"{n}={t.content_hash}" for n, t in sorted(self.synthetic.items())],
            self.holdout.content_hash if self.holdout else "-",
        ]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def content_hash(frame: pd.DataFrame) -> str:
    """Hash of every value, column name and dtype (st.cache_data would only sample a large frame)."""
    digest = hashlib.sha256()
    digest.update(json.dumps([list(map(str, frame.columns)), list(map(str, frame.dtypes))]).encode())
    digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return digest.hexdigest()[:16]


def run_key(tables: Tables, schema_dict: dict, metric_ids: list[str], params: dict) -> str:
    """Cache key of one evaluation run: the data's hashes plus every setting.

    A table given as a parameter, such as the membership attacks' reference, counts by its content hash.
    """
    settings = json.dumps([schema_dict, sorted(metric_ids), params], sort_keys=True, default=_settings_value)
    return hashlib.sha256((tables.fingerprint() + settings).encode()).hexdigest()[:16]


def _settings_value(value):
    if isinstance(value, pd.DataFrame):
        return f"table {content_hash(value)}"
    return str(value)


#: Session-state key: True while the metric choice is the default one and follows the data.
DEFAULT_CHOICE = "metrics_default"
#: Session-state key: the chosen metrics that cannot run on the loaded data (named, not counted).
LEFT_OUT = "metrics_left_out"

DEFAULTS = {
    "tables": Tables,
    "schema": lambda: None,
    "selected_metrics": list,
    "metric_params": dict,
    "results": dict,
    "last_run_key": lambda: None,
    "demo": lambda: None,
    "lab_results": dict,
    "lab_timings": dict,
    "audit_estimates": dict,
    "lab_ladder": list,
    "lab_ladder_log": dict,
}


#: Keys beyond :data:`DEFAULTS` that hold the user's work and must survive a reload
#: (:mod:`dashboard.session.persistence`): drafts of forms, the membership attacks' reference table, the FAMD
#: setting, audit results, the verdict rule and whether the metric choice is the default.
PERSISTED_EXTRA = (
    "schema_draft",
    "metric_param_draft",
    "reference",
    "famd_components",
    "audit_results",
    "audit_tables",
    "verdict_rule",
    "replaced_demo",  # names an uploaded file: forgotten with the rest
    "related",  # related tables' people and rows (dashboard.related_upload): the user's data, forgotten with it
    DEFAULT_CHOICE,
    LEFT_OUT,
)
#: The Metrics page's tick boxes, ``metric::<id>`` (restorable: a checkbox value may be set ahead of the
#: box being drawn). Other widget keys are not restored: their forms are rebuilt from the keys above.
_METRIC_BOX = re.compile(r"metric::[a-z0-9_]+")


def persisted_keys(state) -> list[str]:
    """The keys of ``state`` that hold the user's work (what a reload restores and "forget" deletes)."""
    names = list(DEFAULTS) + list(PERSISTED_EXTRA)
    try:
        present = list(state.filtered_state) if hasattr(state, "filtered_state") else list(state.keys())
    except Exception:  # a state that cannot list its keys still has the named ones
        present = []
    return names + [k for k in present if isinstance(k, str) and _METRIC_BOX.fullmatch(k)]


def init_state(session_state) -> None:
    """Create every key of the contract that is not there yet (call first on every page).

    Notes
    -----
    Keys in ``st.session_state`` (all created by :func:`init_state`):

    - ``tables`` — :class:`Tables`: the real table, the named synthetic tables, the optional holdout.
    - ``schema`` — :class:`privcore.Schema` or None until the Configure page (or the demo) sets one.
    - ``selected_metrics`` — list of metric ids chosen on the Metrics page (only those that can run on the
      loaded data: :func:`dashboard.metric_choice.sync_selection`).
    - ``metrics_default`` (:data:`DEFAULT_CHOICE`, optional) — True while that choice is the default one and
      follows the data (the quick preset, with the membership attacks once a holdout is loaded).
    - ``metrics_left_out`` (:data:`LEFT_OUT`, optional) — chosen metrics that cannot run on the loaded data.
    - ``metric_params`` — metric id → parameter overrides.
    - ``results`` — run key (:func:`run_key`) → {synthetic name → privcore Report}.
    - ``last_run_key`` — the run key of the results shown on the Results page.
    - ``demo`` — name of the loaded demo scenario, or None.
    """
    for key, make in DEFAULTS.items():
        if key not in session_state:
            session_state[key] = make()
