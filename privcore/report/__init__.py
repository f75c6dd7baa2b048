"""Presentation: figures per family (Plotly), the HTML downloads and the JSON schema of the documents.

Everything here reads what the layers below computed and decided; nothing below imports it.
"""

from privcore.base import lazy_face

#: Each name of the face and the module that defines it (loaded on first access).
_FACE: dict[str, str] = {
    "audit_figure": "audit_figures", "shared_audit_figure": "audit_figures",
    "short_name": "figures",
    "html_report": "html",
    "report_schema": "json_schema",
    "leak_label": "lab_figures",
    "battery_auc_intervals": "membership_figures", "battery_roc_curves": "membership_figures",
    "choice_sentence": "membership_figures", "epsilon_sentence": "membership_figures",
    "share_words": "membership_figures",
    "attacks_per_model": "per_model_figures", "per_model_figure": "per_model_figures",
    "column_advantage_figure": "reconstruction_figures", "ordered_columns": "reconstruction_figures",
    "people_or_rows_figure": "related_figures",
    "exposed_table": "reconstruction_text", "leak_words": "reconstruction_text",
    "NO_RECONSTRUCTION": "reconstruction_text", "reconstruction_result": "reconstruction_text",
    "reconstruction_summary": "reconstruction_text",
    "fidelity_figures": "tradeoff_figures", "tradeoff_figure": "tradeoff_figures",
    "whitebox_figure": "whitebox_figures",
}

__all__ = lazy_face(__name__, _FACE, globals())
