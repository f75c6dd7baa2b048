"""The JSON contract of a report, as a JSON Schema derived from the declarations."""

from __future__ import annotations

from typing import Any

from privcore.audit import audit_report_schema
from privcore.lab import lab_report_schema
from privcore.metrics import DETAILS_TYPES, RECONSTRUCTION_DETAILS, registry

DRAFT = "https://json-schema.org/draft/2020-12/schema"

_NUMBER_OR_NULL = {"type": ["number", "null"]}
_RISK = {"type": ["number", "null"], "minimum": 0, "maximum": 1}


_VERDICT = {
    "description": "One answer for the custodian, by the documented rule of privcore.evaluation.verdict (its thresholds in "
                   "'rule'); attacks and membership inference decide, proxies only support.",
    "type": "object",
    "properties": {
        "level": {"enum": ["release", "release with caution", "do not release"]},
        "headline": {"type": "string"},
        "evidence": {"type": "array", "maxItems": 3, "items": {
            "type": "object",
            "properties": {"metric": {"type": "string"}, "name": {"type": "string"},
                           "weight": {"enum": ["decisive", "supporting"]}, "excess": _NUMBER_OR_NULL,
                           "lower_excess": _NUMBER_OR_NULL,
                           "pushes_to": {"enum": ["release", "release with caution", "do not release"]},
                           "text": {"type": "string"},
                           "kind": {"enum": ["attack", "similarity", "membership"],
                                    "description": "an attack decides; similarity (closeness beyond a fresh sample "
                                                   "of the same size) and membership (members against non-members) "
                                                   "support, weighed apart"}},
            "required": ["metric", "weight", "excess", "pushes_to", "text"]}},
        "not_tested": {"type": "array", "items": {"type": "string"}},
        "next_step": {"type": ["string", "null"],
                      "description": "what would make the answer decisive (a holdout to upload, attacks to run)"},
        "rule": {"type": "object", "properties": {"decisive_at": {"type": "number"}, "caution_at": {"type": "number"},
                                                  "supporting_at": {"type": "number"},
                                                  "similarity_at": {"type": "number"},
                                                  "useful_at": {"type": "number"},
                                                  "keeps_little_below": {"type": "number"},
                                                  "text": {"type": "array", "items": {"type": "string"}}}},
        "guarantee": {"anyOf": [{"type": "null"}, {
            "type": "object",
            "description": "a declared ε-differential-privacy guarantee read against the membership attacks",
            "properties": {"epsilon": {"type": "number", "exclusiveMinimum": 0},
                           "auc_bound": {"type": "number", "description": "e^ε / (1 + e^ε): no attack's AUC above"},
                           "measured_auc": _NUMBER_OR_NULL, "measured_lower": _NUMBER_OR_NULL,
                           "broken": {"type": "boolean"}, "text": {"type": "string"}},
            "required": ["epsilon", "auc_bound", "broken", "text"]}]},
        "utility": {"anyOf": [{"type": "null"}, {
            "type": "object",
            "description": "what the table keeps and loses relative to a fresh sample of real people, from the utility "
                           "measures that ran (privcore.evaluation.utility_line); never changes the privacy answer",
            "properties": {
                "measures": {"type": "array", "items": {"type": "object", "properties": {
                    "metric": {"type": "string"}, "name": {"type": "string"}, "what": {"type": "string"},
                    "score": {"type": "number"}, "relative": _NUMBER_OR_NULL, "worst": {"type": "string"}},
                    "required": ["metric", "score", "relative"]}},
                "relative": {**_NUMBER_OR_NULL, "description": "mean share of a fresh sample's score, each measure "
                                                               "capped at 1 (null without a holdout)"},
                "keeps": {"type": "array", "items": {"type": "string"}},
                "loses": {"type": "array", "items": {"type": "string"}},
                "keeps_little": {"type": "boolean", "description": "passes on privacy while a measure keeps less "
                                                                  "than keeps_little_below of a fresh sample's"},
                "text": {"type": "string"},
                "useful_at": {"type": "number"}, "keeps_little_below": {"type": "number"}},
            "required": ["measures", "relative", "keeps_little", "text"]}]},
        "failed": {"type": "array", "items": {"type": "string"},
                   "description": "metrics that stopped on an internal error (a defect to report); while a privacy "
                                  "metric is among them the level is never 'release'"},
    },
    "required": ["level", "headline", "evidence", "not_tested", "rule"],
}


_RELATED = {
    "description": "Related tables evaluated per person (python -m privcore evaluate --real NAME=PATH ... --relation "
                   "CHILD.COLUMN=PARENT.COLUMN): every metric above reads one record per person, their child rows "
                   "summarised; absent for one table.",
    "type": "object",
    "properties": {
        "people_table": {"type": "string"},
        "relations": {"type": "array", "items": {"type": "object", "properties": {
            "child": {"type": "string"}, "column": {"type": "string"}, "parent": {"type": "string"},
            "parent_column": {"type": "string"}, "order": {"type": ["string", "null"]}},
            "required": ["child", "column", "parent", "parent_column", "order"], "additionalProperties": False}},
        "rows": {"type": "object", "description": "role -> table -> rows",
                 "additionalProperties": {"type": "object", "additionalProperties": {"type": "integer"}}},
        "children_per_person": {"type": "object", "description": "child table -> total variation distance between "
                                "the real and the synthetic (and the holdout's) distributions of rows per person, and their "
                                "Kolmogorov-Smirnov statistic (1 - SDMetrics' CardinalityShapeSimilarity)",
                                "additionalProperties": {"type": "object", "properties": {
                                    "synthetic": {"type": "number"}, "holdout": {"type": ["number", "null"]},
                                    "synthetic_ks": {"type": "number"}, "holdout_ks": {"type": ["number", "null"]},
                                    "real_mean": {"type": "number"}, "synthetic_mean": {"type": "number"}},
                                    "required": ["synthetic", "holdout", "synthetic_ks", "holdout_ks", "real_mean",
                                                 "synthetic_mean"],
                                    "additionalProperties": False}},
        "table_utility": {"type": "object", "description": "child table (and 'people + child', joined for pairs "
                          "across the two) -> utility measure -> {score, reference (the holdout's), relative}",
                          "additionalProperties": {"type": "object", "additionalProperties": {"anyOf": [
                              {"type": "null"},
                              {"type": "object", "properties": {"score": {"type": "number"},
                                                                "reference": {"type": ["number", "null"]},
                                                                "relative": {"type": ["number", "null"]}},
                               "required": ["score", "reference", "relative"], "additionalProperties": False}]}}},
        "sequences": {"type": "object", "description": "ordered child table -> 'gaps': 1 - the Kolmogorov-Smirnov "
                      "statistic between the real and each role's gaps between a person's consecutive rows; 'stays': "
                      "categorical column -> share of steps keeping their value, real and per role",
                      "additionalProperties": {"type": "object", "properties": {
                          "gaps": {"type": "object", "properties": {"synthetic": {"type": ["number", "null"]},
                                                                    "holdout": {"type": ["number", "null"]}},
                                   "required": ["synthetic", "holdout"], "additionalProperties": False},
                          "stays": {"type": "object", "additionalProperties": {
                              "type": "object", "properties": {"real": {"type": "number"},
                                                               "synthetic": {"type": ["number", "null"]},
                                                               "holdout": {"type": ["number", "null"]}},
                              "required": ["real", "synthetic", "holdout"], "additionalProperties": False}}},
                          "required": ["gaps", "stays"], "additionalProperties": False}},
        "text": {"type": "string"},
    },
    "required": ["people_table", "relations", "rows", "children_per_person", "table_utility", "text"],
    "additionalProperties": False,
}

_SIZE_MATCH = {
    "description": "A size-dependent metric compared with its fresh-sample baseline at one table size: the larger "
                   "of the synthetic table and the holdout cut to the smaller one's size in seeded random subsets "
                   "(privcore.evaluation.size_match).",
    "type": "object",
    "properties": {
        "rows": {"type": "object"},
        "matched_rows": {"type": "integer", "minimum": 0},
        "subsampled": {"enum": ["synthetic", "holdout", None]},
        "repeats": {"type": "integer", "minimum": 0},
        "risk": {**_RISK, "description": "the synthetic score at matched_rows"},
        "baseline": {**_RISK, "description": "the holdout's score at matched_rows"},
        "excess": {**_NUMBER_OR_NULL, "description": "risk - baseline (null: the holdout is too small)"},
        "interval": {"anyOf": [{"type": "array", "items": _NUMBER_OR_NULL, "minItems": 2, "maxItems": 2},
                               {"type": "null"}],
                     "description": "95 % interval of the excess for a fresh sample of real people"},
        "too_small": {"type": ["string", "null"]},
        "method": {"enum": ["subsets", "permutation", "split"],
                   "description": "where the fresh sample comes from: the holdout cut to like sizes ('subsets'); a "
                                  "members-against-non-members test with its two groups relabelled at random "
                                  "('permutation', baseline = the relabellings' mean); or, without a holdout, half "
                                  "of the real table against the other half ('split', rows = the split's)"},
        "one_scale": {"type": "boolean",
                      "description": "true for the metrics that divide distances by the extremes of all pairs "
                                     "(CVP, DVP, NSND): both sides rescaled by the holdout's extremes (over its "
                                     "pairs with the real table)"},
        "reading": {"type": ["string", "null"],
                    "description": "how risk and baseline were read where not as the metric's own score (MDCR: "
                                   "its median of distances read as the mean of the middle 10 % of them); null otherwise"},
        "text": {"type": "string"},
    },
    "required": ["rows", "matched_rows", "subsampled", "repeats", "risk", "baseline", "excess", "interval",
                 "too_small", "method", "text"],
    "additionalProperties": False,
}


_UTILITY = {
    "description": "A utility measure's score beside what a fresh sample of real people keeps (metrics.md §6): the "
                   "same measure with the holdout in place of the synthetic table (for the model utility: the models "
                   "trained on the real table), compared between like-sized tables.",
    "type": "object",
    "properties": {
        "score": {**_RISK, "description": "the synthetic table's utility in [0, 1], higher is better"},
        "reference": {**_RISK, "description": "the fresh-sample reference's utility (null: no holdout)"},
        "relative": {"type": ["number", "null"], "minimum": 0,
                     "description": "score / reference at one size: the share of what a fresh sample keeps"},
        "reference_label": {"type": "string"},
        "matched_rows": {"type": ["integer", "null"], "minimum": 0},
        "matched_score": _NUMBER_OR_NULL,
        "repeats": {"type": "integer", "minimum": 0},
        "text": {"type": "string"},
    },
    "required": ["score", "reference", "relative", "reference_label", "matched_rows", "matched_score", "repeats",
                 "text"],
    "additionalProperties": False,
}


def _metric_schema(info: registry.MetricInfo) -> dict[str, Any]:
    schema = _risk_metric_schema(info)
    if not registry.is_utility(info):
        return schema
    # A utility measure: no privacy risk, a "higher is better" score beside its fresh-sample reference.
    props = schema["properties"]
    props["risk"] = {"type": "null", "description": "a utility measure carries no privacy risk"}
    props["baseline"] = {"type": "null", "description": "see utility.reference"}
    props["raw"] = {**_NUMBER_OR_NULL, "description": info.raw_meaning}
    props["scale"] = {"const": "utility", "description": "a utility measure: read utility, higher is better"}
    props["utility"] = {"anyOf": [{"$ref": "#/$defs/utility_score"}, {"type": "null"}],
                        "description": "the score, its fresh-sample reference and their ratio (null when the "
                                       "measure did not run)"}
    schema["required"] = [*schema["required"], "scale", "utility"]
    return schema


def _risk_metric_schema(info: registry.MetricInfo) -> dict[str, Any]:
    declared = {p.name: p.json_schema() for p in info.params}
    return {
        "title": info.name,
        "description": info.summary,
        "type": "object",
        "properties": {
            "risk": {**_RISK, "description": "risk in [0, 1]: 1 = no privacy, 0 = complete privacy"},
            "raw": {**_NUMBER_OR_NULL, "description": info.raw_meaning},
            "applicable": {"type": "boolean"},
            "reason": {"type": ["string", "null"], "description": "why the metric did not run"},
            "baseline": {**_RISK, "description": "the risk with the holdout in place of the synthetic table"},
            "interval": {"anyOf": [{"type": "array", "items": _NUMBER_OR_NULL, "minItems": 2, "maxItems": 2},
                                   {"type": "null"}],
                         "description": f"95 % interval of the risk ({info.interval_kind or 'none'})"},
            "seconds": {"type": "number", "minimum": 0},
            "params": {"type": "object", "properties": declared,
                       "description": "every parameter and seed used (the declared ones and those the metric "
                                      "fixes, such as the seed and the space)"},
            "warnings": {"type": "array", "items": {"type": "string"}},
            "details": {"anyOf": [{"$ref": f"#/$defs/{info.details_type.__name__}"}, {"type": "null"}],
                        "description": "the evidence behind the score (null when the metric did not run)"},
            "size_match": {"anyOf": [{"$ref": "#/$defs/size_match"}, {"type": "null"}],
                           "description": "the score and its baseline compared between like-sized tables (null: "
                                          "no baseline, or a metric whose value does not depend on the size)"},
            "failed": {"type": "boolean",
                       "description": "the metric stopped on an internal error (a defect to report, not a property "
                                      "of the data); the verdict is then never 'release'"},
        },
        "required": ["risk", "raw", "applicable", "reason", "baseline", "interval", "seconds", "params",
                     "warnings", "details"],
        "additionalProperties": False,
    }


def report_schema() -> dict[str, Any]:
    """JSON Schema of ``Report.to_json()`` (and of ``python -m privcore evaluate --json``).

    Notes
    -----
    ``python -m privcore schema`` prints :func:`report_schema`. Nothing in it is written by hand per metric:
    each metric's entry lists its declared parameters (:mod:`privcore.data.params`) and refers to the schema of
    its declared details type (:mod:`privcore.metrics.details`), so the schema changes when, and only when, a
    declaration does. The dashboard's JSON download, several reports under ``"tables"``, is described by
    ``$defs/dashboard_download``, the metric lab's report (``python -m privcore lab --json``) by
    ``$defs/lab_report``, the membership audit's (``python -m privcore audit --json``, both designs) by
    ``$defs/audit_report``.
    """
    metrics = {info.id: _metric_schema(info) for info in registry.all_metrics()}
    defs: dict[str, Any] = {kind.__name__: kind.json_schema() for kind in DETAILS_TYPES + RECONSTRUCTION_DETAILS}
    defs["size_match"] = _SIZE_MATCH
    defs["utility_score"] = _UTILITY
    defs["dashboard_download"] = {
        "description": "The dashboard's JSON download: one report per synthetic table, and the settings used.",
        "type": "object",
        "properties": {"tables": {"type": "object", "additionalProperties": {"$ref": "#"}},
                       "settings": {"type": "object"}},
        "required": ["tables"],
    }
    defs["lab_report"] = lab_report_schema()  # python -m privcore lab --json
    defs["audit_report"] = audit_report_schema()  # python -m privcore audit --json
    return {
        "$schema": DRAFT,
        "title": "privcore report",
        "description": "The privacy evaluation of one synthetic table against the real table it was trained on.",
        "type": "object",
        "properties": {
            "verdict": _VERDICT,
            "metrics": {"type": "object", "properties": metrics, "additionalProperties": False,
                        "description": "metric id → result; only the metrics that were asked for appear"},
            "warnings": {"type": "array", "items": {"type": "string"}},
            "rows": {"type": "object",
                     "properties": {"real": {"type": "integer"}, "synthetic": {"type": "integer"},
                                    "holdout": {"type": ["integer", "null"]}},
                     "required": ["real", "synthetic", "holdout"], "additionalProperties": False},
            "dp_epsilon": {"type": ["number", "null"],
                           "description": "the ε of a differential-privacy guarantee declared for the generator"},
            "columns": {"type": "array", "description": "every column of the real table as uploaded: analysed with "
                                                        "its kind, checked for reproduced values, or left out with "
                                                        "the reason and how to include it",
                        "items": {"type": "object", "properties": {
                            "column": {"type": "string"},
                            "status": {"enum": ["analysed", "checked", "left out"]},
                            "kind": {"enum": ["numerical", "categorical", "binary", "date", "identifier", "text",
                                              None]},
                            "role": {"type": "string"}, "reason": {"type": "string"}, "include": {"type": "string"}},
                            "required": ["column", "status", "kind", "role", "reason", "include"],
                            "additionalProperties": False}},
            "related": _RELATED,
        },
        "required": ["verdict", "metrics", "warnings", "rows"],
        "additionalProperties": False,
        "$defs": defs,
    }
