"""The Audit page's logic for the shared design: every record at once (:mod:`privcore.audit.shared`).

The targeted design's logic is :mod:`dashboard.audit.view`; the page's results section for this design is
:mod:`dashboard.audit.shared_panel`. No Streamlit import.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from dataclasses import asdict
from typing import Any, Callable, Mapping

import pandas as pd

from dashboard import compute, jobs
from privcore.audit import DEFAULT_RECORDS, SharedAuditReport, SharedSettings
from privcore.base import InputError
from privcore.data import Param, Schema

LOGGER = logging.getLogger(__name__)

#: The two designs the page offers, the default first, with their labels in words.
DESIGNS: dict[str, str] = {
    "shared": "Every record at once (shared models)",
    "targeted": "A few targets (shadow models per target)",
}
#: Exposed people whose evidence the page spells out.
TOP_WHY = 5


def budget_params(rows: int) -> tuple[Param, ...]:
    """The shared design's budget inputs: privcore's own declarations (same widgets, ranges and checks).

    Parameters
    ----------
    rows : int
        Rows of the real table: the records' default is min(1,000, rows), at least the fewest the audit takes (on
        a smaller table the audit itself says, by name, that it is too small). Their widget has no maximum tied
        to the table (a value kept from a larger table must not break the page); the audit takes at most every row.

    Returns
    -------
    tuple of Param
        ``models``, ``records`` and ``seed``.

    Examples
    --------
    >>> [(p.name, p.default, p.minimum) for p in budget_params(300)]
    [('models', 64, 8), ('records', 300, 20), ('seed', 0, 0)]
    """
    records = SharedSettings.param("records")
    records = dataclasses.replace(records, default=max(min(DEFAULT_RECORDS, rows), int(records.minimum)))
    return SharedSettings.param("models"), records, SharedSettings.param("seed")


def budget(values: Mapping[str, Any]) -> tuple[SharedSettings | None, str | None]:
    """:class:`~privcore.audit.shared.SharedSettings` from the budget inputs, checked; or None and the named error.

    >>> budget({"models": 4, "records": 40, "seed": 0})[1]
    'Models (audit.models) must be between 8 and 1000; got 4. It takes two models per fold (folds=4).'
    """
    try:
        given = {name: values[name] for name in ("models", "records", "seed") if values.get(name) is not None}
        return SharedSettings(**given).check(), None
    except InputError as error:
        return None, str(error)


def audited_records(rows: int, settings: SharedSettings) -> int:
    """Records a shared audit attacks on a table of ``rows`` rows: its ``records``, at most every row.

    >>> audited_records(300, SharedSettings(records=1000)), audited_records(5000, SharedSettings())
    (300, 1000)
    """
    return min(settings.records or DEFAULT_RECORDS, rows)


#: The Audit page's option of the stronger black-box attacks (:mod:`privcore.audit.stronger`), and its help.
STRONGER_LABEL = "Also run the stronger black-box attacks (RMIA and a meta-classifier)"
STRONGER_HELP = ("Two more attacks on the same synthetic outputs, no model access needed: RMIA compares each "
                 "record's signal with the population's, and a gradient-boosted meta-classifier combines every "
                 "signal the audit reads. They often find more exposed people than the default attack; the verdict "
                 "stays the default attack's. They add about a minute to a 1,000-record, 64-model audit.")


def audit_key(content_hash: str, schema: Schema, name: str, settings: Mapping[str, Any],
              shared_settings: SharedSettings, whitebox: bool = False, stronger: bool = False) -> str:
    """Cache key of one shared audit.

    It covers the design, the table's content hash, the schema, the generator, every setting and whether the white-box
    attack runs.

    Notes
    -----
    Reports are cached in the same session-state entry as the targeted ones
    (:func:`dashboard.audit.view.store`); the design is part of the key.
    """
    parts = json.dumps(["shared", content_hash, schema.to_dict(), name, dict(settings), asdict(shared_settings)]
                       + (["whitebox"] if whitebox else []) + (["stronger"] if stronger else []),
                       sort_keys=True, default=str)
    return hashlib.sha256(parts.encode()).hexdigest()[:16]


def run_audit(real: pd.DataFrame, schema: Schema, name: str, settings: Mapping[str, Any],
              shared_settings: SharedSettings,
              progress: Callable[[float, str], None] | None = None,
              whitebox: bool = False, stronger: bool = False) -> tuple[SharedAuditReport | None, str | None]:
    """Run the shared audit in the worker pool (with the white-box attack when ``whitebox``).

    Returns ``(report, None)``, or ``(None, message)`` (never a traceback).
    """
    try:
        report = compute.run_job(jobs.audit_generator_shared, real, schema, name, dict(settings), shared_settings,
                                 progress=progress, whitebox=whitebox, stronger=stronger)
    except InputError as error:
        return None, str(error)
    except MemoryError:
        return None, "The audit needs more memory than this machine has. Try fewer records or models."
    except Exception:  # noqa: BLE001 - a bug must not show a traceback to users; it goes to the server log
        LOGGER.exception("shared audit failed")
        return None, ("The audit stopped because of an internal error. Please report it with your settings (the "
                      "server log has the details).")
    return report, None


# --------------------------------------------------------------------------------------------- results


def _share(x: float | None) -> str:
    return "—" if x is None else f"{x:.0%}"


def summary_lines(summary: Mapping[str, Any]) -> list[str]:
    """The summary's shares in words, each next to what chance alone gives (measured by the audit itself).

    >>> summary_lines({"share_auc_above_0.6": 0.5, "chance_share_above_0.6": 0.08,
    ...                "share_interval_above_0.5": 0.3, "chance_share_interval_above_0.5": 0.07,
    ...                "share_clearly_exposed": 0.1})[0]
    '**50%** of the records give the attack an AUC above 0.6; chance alone gives about **8%**.'
    """
    if summary.get("share_auc_above_0.6") is None:
        return ["No attack could be trained and evaluated on any record."]
    return [
        f"**{_share(summary.get('share_auc_above_0.6'))}** of the records give the attack an AUC above 0.6; chance "
        f"alone gives about **{_share(summary.get('chance_share_above_0.6'))}**.",
        f"**{_share(summary.get('share_interval_above_0.5'))}** have a 95% interval wholly above 0.5; chance alone "
        f"gives about **{_share(summary.get('chance_share_interval_above_0.5'))}**.",
        f"**{_share(summary.get('share_clearly_exposed'))}** are clearly exposed: AUC above 0.8, an interval above "
        "0.5, and significant after correcting for testing every record at once.",
    ]


def stronger_lines(report: SharedAuditReport) -> list[str]:
    """The stronger black-box attacks' shares (:mod:`privcore.audit.stronger`) in words.

    Each stands beside today's attack's share and what chance gives it; empty when they did not run.

    >>> from privcore.audit import StrongerResult
    >>> shares = lambda s, c: {"share_interval_above_0.5": s, "chance_share_interval_above_0.5": c}
    >>> report = SharedAuditReport("g", SharedSettings(), [], {**shares(0.5, 0.08)}, [], 1.0, {},
    ...                            stronger=StrongerResult([], {"rmia": shares(0.4, 0.03), "meta": shares(0.8, 0.03)}))
    >>> stronger_lines(report)[0]
    'Under the meta-classifier, **80%** of the records have a 95% interval wholly above 0.5 (chance alone: about 3%), against **50%** under the attack above (chance: about 8%).'
    """
    strong = getattr(report, "stronger", None)  # a report pickled without the stronger attacks has none
    if strong is None:
        return []
    today, meta, rmia = report.summary, strong.summary["meta"], strong.summary["rmia"]
    key, chance = "share_interval_above_0.5", "chance_share_interval_above_0.5"
    return [
        (f"Under the meta-classifier, **{_share(meta.get(key))}** of the records have a 95% interval wholly above "
         f"0.5 (chance alone: about {_share(meta.get(chance))}), against **{_share(today.get(key))}** under the "
         f"attack above (chance: about {_share(today.get(chance))})."),
        f"RMIA alone: **{_share(rmia.get(key))}** (chance alone: about {_share(rmia.get(chance))}).",
    ]


def stronger_sentence(report: SharedAuditReport) -> str | None:
    """What the stronger attacks say, in one sentence (None when they did not run).

    The sentence goes in the box beside the DCR test and today's attack.
    """
    strong = getattr(report, "stronger", None)
    if strong is None:
        return None
    meta = strong.summary["meta"]
    share, chance = meta.get("share_interval_above_0.5"), meta.get("chance_share_interval_above_0.5") or 0.0
    if share is None:
        return "No stronger attack could be trained and evaluated."
    word = "**Leaks for some.**" if share > chance + 0.05 else "**No more found.**"
    return (f"{word} {_share(share)} of the records have an AUC interval wholly above 0.5 under the meta-classifier "
            f"(chance alone: about {_share(chance)}).")


def dcr_sentence(summary: Mapping[str, Any]) -> str:
    """What the DCR test says of model 0's output: its training records against the audited records it left out.

    >>> dcr_sentence({"dcr_test": {"passes": True, "p_synthetic": 0.5, "p_holdout": 0.4}})[:10]
    '**Passes.*'
    """
    dcr = summary.get("dcr_test")
    if not dcr:
        return "The DCR test could not be run on an output of this generator."
    verdict = ("**Passes.** The synthetic rows are no closer to their training records than the audited records "
               "left out of training are" if dcr.get("passes") else
               "**Fails.** The synthetic rows sit closer to their training records than the audited records left "
               "out of training do")
    return (f"{verdict} (5th percentile of the distance to the closest training record: {dcr['p_synthetic']:.3g} "
            f"for synthetic rows, {dcr['p_holdout']:.3g} for the others).")


def dcr_and_attack(summary: Mapping[str, Any]) -> tuple[str, str]:
    """What the DCR test on one output says and what the attack says, one sentence each, side by side."""
    dcr = dcr_sentence(summary)
    share6, chance = summary.get("share_auc_above_0.6"), summary.get("chance_share_above_0.6") or 0.0
    if share6 is None:
        return dcr, "No attack could be trained and evaluated."
    exposed, beyond = summary.get("share_clearly_exposed") or 0.0, share6 > chance + 0.1
    word = "**Leaks.**" if exposed else "**Leaks for some.**" if beyond or summary.get("share_auc_above_0.8") \
        else "**No leak found.**"
    return dcr, (f"{word} {_share(share6)} of the records give the attack an AUC above 0.6 (chance alone: about "
                 f"{_share(chance)}); {_share(exposed)} are clearly exposed.")


def _interval(pair: Any) -> str:
    return "—" if pair is None else f"{pair[0]:.2f} – {pair[1]:.2f}"


def _round(x: float | None, digits: int) -> float | None:
    return None if x is None else round(float(x), digits)


def exposure_order(report: SharedAuditReport) -> list[int]:
    """Indices of the records, the most exposed first: by the lower end of the AUC interval, then the AUC."""
    def exposure(i: int) -> tuple[float, float]:
        r = report.records[i]
        low = r.auc_interval[0] if r.auc_interval is not None else -1.0
        return -low, -(r.auc if r.auc is not None else -1.0)

    return sorted(range(len(report.records)), key=exposure)


def records_frame(report: SharedAuditReport) -> pd.DataFrame:
    """One line per audited record, the most exposed first (:func:`exposure_order`).

    Each line gives the record's AUC under the meta-classifier and, after a white-box attack, under it too (over the
    models, like today's AUC).
    """
    white = getattr(report, "whitebox", None)  # a report pickled without the white-box attack has none
    white_auc = {r["row"]: r["auc"] for r in white.records} if white is not None else None
    strong = getattr(report, "stronger", None)
    meta_auc = {r["row"]: r["meta_auc"] for r in strong.records} if strong is not None else None
    lines = []
    for i in exposure_order(report):
        r = report.records[i]
        line = {"real row": int(r.row), "AUC": _round(r.auc, 3), "AUC 95% interval": _interval(r.auc_interval),
                "ε lower bound": _round(r.epsilon_lower_bound, 2),
                "nearest real distance": _round(r.nearest_real_distance, 4),
                "nearest synthetic distance": _round(r.nearest_synthetic_distance, 4), "why": r.why or ""}
        if meta_auc is not None:
            line["meta-classifier AUC"] = _round(meta_auc.get(int(r.row)), 3)
        if white_auc is not None:
            line["white-box AUC"] = _round(white_auc.get(int(r.row)), 3)
        lines.append(line)
    extra = ["white-box AUC"] * (white_auc is not None) + ["meta-classifier AUC"] * (meta_auc is not None)
    columns = ["real row", "AUC", "AUC 95% interval", *extra, "ε lower bound", "nearest real distance",
               "nearest synthetic distance", "why"]
    return pd.DataFrame(lines, columns=columns)


def most_exposed_why(report: SharedAuditReport, top: int = TOP_WHY) -> list[str]:
    """The evidence sentences of the ``top`` most exposed records that have one (interval above 0.5)."""
    lines = []
    for i in exposure_order(report):
        r = report.records[i]
        if r.why:
            lines.append(f"**Real row {int(r.row)}** (AUC {r.auc:.2f}, interval {_interval(r.auc_interval)}): {r.why}")
        if len(lines) == top:
            break
    return lines


def report_json(report: SharedAuditReport) -> str:
    """The JSON download: :meth:`privcore.audit.shared.SharedAuditReport.to_dict`, indented."""
    return json.dumps(report.to_dict(), indent=2)
