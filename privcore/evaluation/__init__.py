"""One evaluation from tables to an answer.

``evaluate`` runs the chosen metrics on the shared engine, ``outcome`` is the :class:`Report` of all results,
``interpret`` gives levels, the three questions and record flags, and ``verdict`` one release decision. Interpretation
only: nothing here draws or imports Plotly.
"""

from privcore.base import lazy_face

#: Each name of the face and the module that defines it (loaded on first access).
_FACE: dict[str, str] = {
    "describe_estimate": "estimate", "duration_words": "estimate", "estimate_seconds": "estimate",
    "check_dp_epsilon": "evaluate", "resolve_metric_ids": "evaluate", "unmet_need": "metric_run",
    "validated_params": "evaluate", "with_reference": "evaluate",
    "Answer": "interpret", "assess": "interpret", "Assessment": "interpret", "dataset_shareable": "interpret",
    "info_of": "interpret", "LEVEL_BANDS": "interpret", "LEVELS": "interpret", "metric_applies": "interpret",
    "THRESHOLD_REASON": "interpret", "what_it_loses": "interpret",
    "combined_json": "outcome", "Report": "outcome",
    "children_per_person": "related", "evaluate_people": "related", "evaluate_related": "related", "person_tables": "related",
    "Dataset": "dataset", "EvaluationOptions": "dataset", "evaluate_dataset": "run", "evaluate_tables": "evaluate",
    "best_tradeoff": "tradeoff", "NO_UTILITY": "tradeoff", "tradeoff_point": "tradeoff", "tradeoff_points": "tradeoff",
    "tradeoff_sentence": "tradeoff", "TradeoffPoint": "tradeoff",
    "audit_severity": "verdict", "audit_verdict": "verdict", "CAUTION": "verdict", "DO_NOT_RELEASE": "verdict",
    "KIND_WORDS": "verdict", "RELEASE": "verdict", "VERDICT_STYLE": "verdict", "VerdictRule": "verdict",
}

__all__ = lazy_face(__name__, _FACE, globals())
