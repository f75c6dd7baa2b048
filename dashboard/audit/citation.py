"""What the Results page cites from audits run in this session: the generator's audit beside a table's answer.

No Streamlit import: :func:`citations` is tested on plain mappings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, MutableMapping

from privcore.evaluation import audit_severity
from privcore.generators import generator_label

#: Session-state key: audit key → content hash of the real table audited.
AUDIT_TABLES = "audit_tables"
#: Demo scenarios whose generator has another name in the registry.
DEMO_GENERATORS = {"column_resampler": "column_resample"}


@dataclass(frozen=True)
class Citation:
    """One audit to cite beside one synthetic table's answer."""

    generator: str
    label: str
    design: str
    scope: str
    severity: str
    verdict: str
    same_generator: bool

    def sentence(self, table: str) -> str:
        """The citation in words, for ``table`` (markdown)."""
        whose = (f"**{self.label}**, the generator that made “{table}”," if self.same_generator else
                 f"**{self.label}**")
        applies = "" if self.same_generator else (
            f" It speaks for “{table}” only if that table was made by {self.label}.")
        return (f"An audit of {whose} ran in this session ({self.scope}): {self.verdict}{applies}")


def remember(state: MutableMapping, key: str, real_hash: str) -> None:
    """Note which real table the audit stored under ``key`` ran on (call after :func:`dashboard.audit.view.store`).

    Notes
    -----
    Session-state key used here besides :mod:`dashboard.audit.view`'s ``audit_results``: ``audit_tables``,
    audit key → content hash of the real table it audited (kept and pruned with the results).
    """
    results = state.get("audit_results") or {}
    tables = {k: v for k, v in (state.get(AUDIT_TABLES) or {}).items() if k in results}
    tables[key] = real_hash
    state[AUDIT_TABLES] = tables


def demo_generator(state: Mapping) -> str | None:
    """The registry name of the generator that made the demo's synthetic table, if the demo is loaded."""
    demo = state.get("demo")
    return DEMO_GENERATORS.get(demo, demo) if demo else None


def citations(state: Mapping, real_hash: str) -> list[Citation]:
    """The audits run in this session on the real table with ``real_hash``, most recent first.

    Parameters
    ----------
    state : mapping
        The session state (``audit_results``, ``audit_tables``, ``demo``).
    real_hash : str
        Content hash of the real table the results were computed on.

    Returns
    -------
    list of Citation
        One per audit of this real table; ``same_generator`` is true when the audited generator made the
        loaded demo's synthetic table.

    Notes
    -----
    A table's verdict speaks about one synthetic table; an audit speaks about the generator that made it, over
    many training sets, and is the stronger evidence about membership ("The DCR Delusion"). So when an audit of
    a generator ran in this session on the same real table, the Results page cites it under each table's
    answer, and says plainly when the audited generator is the one that made the table (known for the demo's
    tables) or that it applies only if it is.
    """
    tables = state.get(AUDIT_TABLES) or {}
    made_by = demo_generator(state)
    out = []
    for key, report in reversed(list((state.get("audit_results") or {}).items())):
        if tables.get(key) != real_hash:
            continue
        summary: Mapping[str, Any] = report.summary
        shared = "records_scored" in summary
        scope = (f"every record at once: {summary.get('records_scored', 0):,} records, "
                 f"{report.settings.models} models" if shared else
                 f"{len(report.targets)} targets, {report.splits.get('training_rows', 0):,}-row training sets")
        label = getattr(report, "label", None) or generator_label(report.generator)  # with its settings, in words
        out.append(Citation(generator=report.generator, label=label,
                            design="shared" if shared else "targeted", scope=scope,
                            severity=audit_severity(summary), verdict=str(summary.get("verdict", "")),
                            same_generator=made_by is not None and report.generator == made_by))
    return out
