"""Metric choice: which metrics can run on the loaded data, and the parameters the Metrics page offers.

No Streamlit import, so the Metrics page stays short and this logic can be tested on its own. The
``reference`` parameter is set from the Data page by :mod:`dashboard.uploads`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Iterable, MutableMapping

from dashboard.reference_table import store_overrides
from dashboard.session.state import DEFAULT_CHOICE, LEFT_OUT, Tables
from privcore.data import Param, ParamError, Schema, check_value, format_numbers
from privcore.evaluation import unmet_need
from privcore.metrics import registry

# ------------------------------------------------------------------------------ metric availability


def metric_availability(tables: Tables, schema: Schema) -> dict[str, str | None]:
    """For every registered metric, why it cannot run on the loaded data (None when it can).

    Uses :func:`privcore.evaluation.evaluate.unmet_need`, the very check ``evaluate`` applies, on the tables as
    loaded (before missing-value handling), once per synthetic table; the reasons found are joined.

    Notes
    -----
    ``unmet_need`` reads ``schema``, ``real``, ``synthetic``, ``holdout`` and ``pair_index`` of a
    prepared data set. Preparing every table just to list metrics would be slow, so a light stand-in
    carries the raw tables, and ``pair_index`` only says whether a pairing is configured (whether it
    actually matches rows is checked by the Configure page's validation and by ``evaluate``).
    """
    holdout = None if tables.holdout is None else tables.holdout.frame
    probes = [
        SimpleNamespace(schema=schema, real=tables.real.frame, synthetic=t.frame, holdout=holdout,
                        pair_index=None if schema.pairing is None else True)
        for t in tables.synthetic.values()
    ]
    out: dict[str, str | None] = {}
    for info in registry.all_metrics():
        reasons = list(dict.fromkeys(r for p in probes if (r := unmet_need(info, p)) is not None))
        out[info.id] = " ".join(without_cli_flags(r) for r in reasons) or None
    return out


def without_cli_flags(reason: str) -> str:
    """A registry reason without its command-line hints, which mean nothing on a web page.

    Examples
    --------
    >>> without_cli_flags("needs a holdout table: upload one (--holdout).")
    'needs a holdout table: upload one.'
    >>> without_cli_flags("needs a pairing (same row order or an id column, --pairing).")
    'needs a pairing (same row order or an id column).'
    """
    reason = re.sub(r",?\s*--[a-z][a-z-]*", "", reason)
    return re.sub(r"\s*\(\s*\)", "", reason)


# ------------------------------------------------------------------------------- the choice itself



@dataclass(frozen=True)
class Selection:
    """The metrics a run would compute, and those wanted that cannot run here (id → reason)."""

    runnable: list[str]
    left_out: dict[str, str]
    default: bool

    def note(self) -> str:
        """One sentence on the metrics left out and why ("" when none)."""
        if not self.left_out:
            return ""
        parts = " ".join(f"{registry.get(m).name} {reason.rstrip('.')}." for m, reason in self.left_out.items())
        return f"Left out of the count and of the run, because this data does not allow it: {parts}"


def default_choice(tables: Tables) -> list[str]:
    """The default metric ids for the loaded tables.

    The quick preset, with the membership attacks when a holdout is loaded (what cannot run is removed later).
    """
    return list(registry.quick_metrics(holdout=tables.holdout is not None))


def sync_selection(state: MutableMapping, tables: Tables, schema: Schema,
                   reasons: dict[str, str | None] | None = None) -> Selection:
    """Bring ``selected_metrics`` up to date with the data and return what a run computes.

    While the choice is the default (:data:`DEFAULT_CHOICE`), it is recomputed from the tables
    (:func:`default_choice`); an empty choice with nothing ticked yet starts as the default. Metrics that
    cannot run on the loaded data are removed from ``selected_metrics`` and reported in ``left_out``, so the
    Metrics page, the Results page and the run count the same metrics.

    Notes
    -----
    Session-state keys used here besides the contract of :mod:`dashboard.session.state`:

    - ``metric_param_draft`` — Metrics page widget key → the value the user last gave it (valid or not), so
      that a parameter widget shows the same value after a visit to another page.
    - ``metrics_default`` (:data:`DEFAULT_CHOICE`) — True while the choice is the default one (the quick preset,
      :func:`privcore.metrics.registry.quick_metrics`): it then follows the data, so that loading a holdout adds
      the membership attacks. Ticking a box or choosing another preset makes the choice the user's own.
    - ``metrics_left_out`` (:data:`LEFT_OUT`) — the chosen metrics that cannot run on the loaded data: not counted,
      named with their reason on the Metrics and Results pages, and selected again when the data allows them.

    One metric count everywhere: :func:`sync_selection` keeps in ``selected_metrics`` only the metrics that can
    run on the loaded data, and says which of those wanted were left out and why; the Metrics and Results pages
    both show that count and that note.
    """
    reasons = metric_availability(tables, schema) if reasons is None else reasons
    default = bool(state.get(DEFAULT_CHOICE))
    if default:
        wanted = default_choice(tables)
    else:  # the user's choice, and what it wanted that could not run (it comes back when the data allows it)
        wanted = list(dict.fromkeys([*(state.get("selected_metrics") or []), *(state.get(LEFT_OUT) or [])]))
    runnable = [m for m in wanted if m in reasons and reasons[m] is None]
    left_out = {m: reasons[m] for m in wanted if reasons.get(m) is not None}
    state["selected_metrics"] = runnable
    state[LEFT_OUT] = list(left_out)
    return Selection(runnable, left_out, default)


#: Session-state key: True when a page asked for the evaluation to run again at once (the Results page pops it).
RUN_REQUESTED = "run_requested"


def add_and_run(state: MutableMapping, metric_id: str) -> None:
    """Add ``metric_id`` to the chosen metrics and ask the Results page to run again (a button's callback).

    The choice becomes the user's own (no longer the default that follows the data), with the metric's box ticked
    on the Metrics page, so that the next runs keep it.
    """
    chosen = list(state.get("selected_metrics") or [])
    if metric_id not in chosen:
        chosen.append(metric_id)
    state["selected_metrics"] = chosen
    state[DEFAULT_CHOICE] = False
    state[f"metric::{metric_id}"] = True
    state[RUN_REQUESTED] = True


# ------------------------------------------------------------------------------- metric parameters


def param_specs(metric_id: str) -> tuple[Param, ...]:
    """The parameters the Metrics page shows for ``metric_id``: its declared, settable ones.

    Tables are set on the Data page.
    """
    return tuple(p for p in registry.get(metric_id).params if p.settable)


def param_default(param: Param, schema: Schema) -> Any:
    """The value the metric uses when not overridden.

    That is the declared default, or the one derived from the schema (e.g. linkability's two column sets from the key).
    """
    return param.default_for(schema)


def param_options(param: Param, schema: Schema) -> list[str]:
    """The columns a column parameter can take: the analysed ones (but the sensitive one where excluded)."""
    return [c for c in schema.columns if not (param.exclude_sensitive and c == schema.sensitive)]


def number_format(param: Param) -> str | None:
    """A number widget's format with as many decimals as the declared step ("%.3f" for 0.005)."""
    if param.kind != "float" or param.step is None:
        return None
    decimals = max(0, -math.floor(math.log10(param.step) + 1e-9)) if param.step < 1 else 1
    return f"%.{max(decimals, 1)}f"


def describe_value(param: Param, value: Any) -> str:
    """A parameter value as the page prints it."""
    if param.kind == "column_pair":
        return "; ".join(f"table {i + 1}: {', '.join(part) or '(none)'}" for i, part in enumerate(value))
    if param.kind == "columns":
        return ", ".join(value) or "(none)"
    if param.kind == "numbers":
        return format_numbers(value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def check_param(metric_id: str, param: Param, value: Any, schema: Schema) -> tuple[Any, str | None]:
    """Validate a widget's value with :func:`privcore.data.params.check_value`.

    It is the check ``evaluate`` and the command line apply; returns (the value to store, None) or (None, the very same
    sentence).

    Examples
    --------
    >>> schema = Schema({"a": "numerical", "b": "categorical"})
    >>> check_param("sd_idr", registry.get("sd_idr").param("epsilons"), "3, 0, 1", schema)
    ([0.0, 1.0, 3.0], None)
    >>> check_param("linkability", registry.get("linkability").param("aux_cols"), [["a"], ["a", "b"]], schema)[1]
    'Auxiliary column sets (linkability.aux_cols): the two column sets must not share a column; a is in both.'
    """
    try:
        return check_value(metric_id, param, value, schema), None
    except ParamError as exc:
        return None, str(exc)


def _same(param: Param, a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    if param.kind in ("int", "float"):
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-12)
    if param.kind == "column_pair":
        return [set(p) for p in a] == [set(p) for p in b]
    if param.kind in ("columns", "numbers"):
        return set(a) == set(b)
    return a == b


def current_param(state: MutableMapping, metric_id: str, param: Param, schema: Schema) -> Any:
    """The value the next run uses: the stored override, else the default."""
    own = (state.get("metric_params") or {}).get(metric_id) or {}
    return own[param.name] if param.name in own else param_default(param, schema)


def set_param(state: MutableMapping, metric_id: str, param: Param, value: Any, schema: Schema) -> str | None:
    """Check ``value`` and store it in ``metric_params`` if it differs from the default.

    Returns the user-facing problem (nothing is stored then), or None. A value equal to the default
    removes the override, so that a default derived from the key keeps following the key.

    Notes
    -----
    Parameter values that differ from a metric's default are stored in ``metric_params`` (see
    :mod:`dashboard.session.state`).
    """
    clean, problem = check_param(metric_id, param, value, schema)
    if problem is not None:
        return problem
    params: dict = state.setdefault("metric_params", {})
    own = dict(params.get(metric_id) or {})
    if _same(param, clean, param_default(param, schema)):
        own.pop(param.name, None)
    else:
        own[param.name] = clean
    store_overrides(params, metric_id, own)
    return None


def reset_params(state: MutableMapping, metric_id: str, widget_keys: Iterable[str] = ()) -> None:
    """Drop the overrides of ``metric_id``'s page parameters and forget the widgets' drafts.

    The reference table stays; the widgets then show the defaults again.
    """
    params: dict = state.setdefault("metric_params", {})
    own = {k: v for k, v in (params.get(metric_id) or {}).items()
           if k not in {param.name for param in param_specs(metric_id)}}
    store_overrides(params, metric_id, own)
    draft = state.setdefault("metric_param_draft", {})
    for key in widget_keys:
        draft.pop(key, None)
        state.pop(key, None)
