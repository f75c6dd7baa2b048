"""The JSON contract of ``python -m privcore audit --json``: a JSON Schema for each design.

``$defs/audit_report`` of ``python -m privcore schema`` is :func:`audit_report_schema`.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from privcore.audit.shared import RecordResult, SharedSettings
from privcore.audit.targeted import AuditSettings, TargetResult

_NUMBER_OR_NULL = {"type": ["number", "null"]}
_AUC = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
_SHARE = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
_INTERVAL = {"anyOf": [{"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 1},
                        "minItems": 2, "maxItems": 2}, {"type": "null"}]}
_FPR_LEVELS = {"type": "object", "additionalProperties": _AUC,
               "description": "true-positive rate at each false-positive rate (key: the FPR as text, '0' = the "
                              "lowest the models allow)"}
_DCR_TEST = {"anyOf": [{"type": "null"}, {
    "type": "object", "description": "the DCR holdout test on one output: the distance proxy beside the attack",
    "properties": {"passes": {"type": "boolean"}, "risk": _SHARE,
                   "p_synthetic": {"type": "number", "minimum": 0,
                                   "description": "5th percentile of the synthetic rows' distances to the training"},
                   "p_holdout": {"type": "number", "minimum": 0,
                                 "description": "the same for the holdout rows"}},
    "required": ["passes", "risk", "p_synthetic", "p_holdout"]}]}
#: The utility of the same output (privcore.audit.one_output): the evaluation's utility line, cited by the verdict.
_UTILITY = {"anyOf": [{"type": "null"}, {
    "type": "object", "description": "what one output keeps, relative to a fresh sample of real people (the records "
                                     "its model never saw): column shapes and column-pair trends",
    "properties": {"relative": {"type": "number", "minimum": 0, "maximum": 1,
                                "description": "mean share of a fresh sample's score, each measure capped at 1"},
                   "measures": {"type": "object", "additionalProperties": {"type": ["number", "null"]}},
                   "keeps": {"type": "array", "items": {"type": "string"}},
                   "loses": {"type": "array", "items": {"type": "string"}},
                   "text": {"type": "string"}},
    "required": ["relative", "measures", "text"]}]}

#: Each per-record field of the shared design, described.
RECORD_FIELDS: dict[str, dict[str, Any]] = {
    "row": {"type": "integer", "minimum": 0, "description": "position of the record in the real table as given"},
    "auc": {**_AUC, "description": "membership AUC over the models that did not train its attack (null: too "
                                   "few models with or without it)"},
    "auc_interval": {**_INTERVAL, "description": "95 % bootstrap interval of the AUC over the models"},
    "tpr_at": _FPR_LEVELS,
    "epsilon_lower_bound": {"type": ["number", "null"], "minimum": 0,
                            "description": "ε that any DP guarantee of the generator must at least have, at 95 % "
                                           "confidence"},
    "epsilon_lower_bound_familywise": {"type": ["number", "null"], "minimum": 0,
                                       "description": "the same at confidence 1 − 0.05/records, so that the "
                                                      "largest over all records holds at 95 %"},
    "p_value": {**_SHARE, "description": "one-sided Mann-Whitney p-value of 'no membership signal'"},
    "models_in": {"type": "integer", "minimum": 0, "description": "models trained with the record"},
    "models_out": {"type": "integer", "minimum": 0, "description": "models trained without it"},
    "nearest_real_distance": {**_NUMBER_OR_NULL, "minimum": 0,
                              "description": "distance to the nearest other real record (E space)"},
    "nearest_synthetic_distance": {**_NUMBER_OR_NULL, "minimum": 0,
                                   "description": "median distance to its nearest synthetic row, models with it"},
    "nearest_synthetic_distance_out": {**_NUMBER_OR_NULL, "minimum": 0,
                                       "description": "the same over models without it"},
    "why": {"type": ["string", "null"], "description": "the evidence in one sentence (exposed records)"},
}

#: Each per-target field of the targeted design, described.
TARGET_FIELDS: dict[str, dict[str, Any]] = {
    "row": RECORD_FIELDS["row"],
    "chosen": {"enum": ["vulnerable", "random"], "description": "how the target was picked"},
    "vulnerability": {"type": "number", "description": "mean distance to its nearest other records (Achilles)"},
    "auc": {**_AUC, "description": "membership AUC of the meta-classifier on the evaluation models"},
    "auc_interval": RECORD_FIELDS["auc_interval"],
    "tpr_at": _FPR_LEVELS,
    "tpr_at_interval": {"type": "object", "additionalProperties": _INTERVAL},
    "shadow_models": {"type": "integer", "minimum": 0},
    "eval_models": {"type": "integer", "minimum": 0},
    "failed_models": {"type": "integer", "minimum": 0},
    "epsilon_lower_bound": RECORD_FIELDS["epsilon_lower_bound"],
}

_SUMMARY_COMMON = {
    "share_auc_above_0.6": _SHARE, "share_auc_above_0.8": _SHARE, "share_clearly_exposed": _SHARE,
    "chance_share_above_0.6": _SHARE, "max_epsilon_lower_bound": {"type": ["number", "null"], "minimum": 0},
    "dcr_test": _DCR_TEST, "utility": _UTILITY,
    "verdict": {"type": "string", "description": "the audit's answer in words"},
}


_SPREAD = {"type": "object", "description": "median, smallest and largest over the target models",
           "properties": {k: _NUMBER_OR_NULL for k in ("median", "min", "max")}, "required": ["median", "min", "max"]}
_MODEL_ATTACK = {"type": "object", "properties": {
    "model": {"type": "integer", "minimum": 0}, "members": {"type": "integer", "minimum": 0},
    "non_members": {"type": "integer", "minimum": 0}, "auc": _AUC, "auc_interval": _INTERVAL,
    "tpr_at": {**_FPR_LEVELS, "description": "TPR at FPR 0, 0.001 and 0.01 (null: too few non-members to measure "
                                             "it)"}},
    "required": ["model", "members", "non_members", "auc", "auc_interval", "tpr_at"], "additionalProperties": False}
_MODELS_SUMMARY = {"type": "object", "properties": {
    "models_scored": {"type": "integer", "minimum": 0}, "auc": _SPREAD, "tpr_at_fpr_0": _SPREAD,
    "share_models_interval_above_0.5": _SHARE,
    "chance": {"type": "object", "description": "the same attack with the training sets shuffled among the models"}},
    "required": ["models_scored", "auc", "tpr_at_fpr_0", "chance"]}
#: An attack read per target model (privcore.audit.per_model.per_model_entry).
_PER_MODEL = {"type": "object", "description": "per target model, its pool members against its non-members",
              "properties": {"models": {"type": "array", "items": _MODEL_ATTACK}, "summary": _MODELS_SUMMARY},
              "required": ["models", "summary"], "additionalProperties": False}
#: The white-box attack of the shared design (privcore.audit.whitebox.WhiteBoxResult.to_dict).
_WHITEBOX = {"anyOf": [{"type": "null"}, {
    "type": "object", "description": "the attack on each trained model's per-record loss (null: not run)",
    "properties": {
        "threat_model": {"type": "string", "description": "what the white-box attacker has, in words"},
        "loss_columns": {"type": "integer", "minimum": 1, "description": "losses per record (one per timestep)"},
        "models": {"type": "array", "description": "per target model, its pool members against its non-members",
                   "items": _MODEL_ATTACK},
        "records": {"type": "array", "description": "per record, the white-box score's AUC over the models",
                    "items": {"type": "object", "properties": {
                        "row": {"type": "integer", "minimum": 0}, "auc": _AUC, "auc_interval": _INTERVAL,
                        "mean_score_in": _NUMBER_OR_NULL, "mean_score_out": _NUMBER_OR_NULL},
                        "required": ["row", "auc", "auc_interval"], "additionalProperties": False}},
        "summary": _MODELS_SUMMARY},
    "required": ["threat_model", "loss_columns", "models", "records", "summary"], "additionalProperties": False}]}


_ATTACK_SHARES = {
    "type": "object", "description": "one attack's shares over the audited records, each beside what chance gives",
    "properties": {"records_scored": {"type": "integer", "minimum": 0}, "mean_auc": _AUC,
                   "share_auc_above_0.6": _SHARE, "share_auc_above_0.8": _SHARE, "share_interval_above_0.5": _SHARE,
                   "chance_share_above_0.6": _SHARE, "chance_share_interval_above_0.5": {
                       **_SHARE, "description": "the same attack rerun with the training sets shuffled among the "
                                                "models (the same shuffles as today's attack's chance level)"}},
    "required": ["records_scored", "mean_auc", "share_auc_above_0.6", "share_auc_above_0.8",
                 "share_interval_above_0.5", "chance_share_above_0.6", "chance_share_interval_above_0.5"],
    "additionalProperties": False}
#: The stronger black-box attacks of the shared design beside today's (privcore.audit.stronger.StrongerResult).
_STRONGER = {"anyOf": [{"type": "null"}, {
    "type": "object", "description": "RMIA and the gradient-boosted meta-classifier on the same features as the "
                                     "attack of the summary, cross-fitted over the same models (null: not run); "
                                     "the summary and verdict stay that attack's",
    "properties": {
        "attacks": {"type": "object", "description": "each stronger attack in words",
                    "properties": {"rmia": {"type": "string"}, "meta": {"type": "string"}},
                    "required": ["rmia", "meta"], "additionalProperties": False},
        "records": {"type": "array", "description": "per record, each stronger attack's AUC over the models",
                    "items": {"type": "object", "properties": {
                        "row": {"type": "integer", "minimum": 0}, "rmia_auc": _AUC, "rmia_auc_interval": _INTERVAL,
                        "meta_auc": _AUC, "meta_auc_interval": _INTERVAL},
                        "required": ["row", "rmia_auc", "rmia_auc_interval", "meta_auc", "meta_auc_interval"],
                        "additionalProperties": False}},
        "summary": {"type": "object", "properties": {"rmia": _ATTACK_SHARES, "meta": _ATTACK_SHARES},
                    "required": ["rmia", "meta"], "additionalProperties": False},
        "per_model": {"type": "object", "description": "each stronger attack read per target model",
                      "properties": {"rmia": _PER_MODEL, "meta": _PER_MODEL}, "additionalProperties": False}},
    "required": ["attacks", "records", "summary"], "additionalProperties": False}]}


def _settings_schema(kind: type) -> dict[str, Any]:
    return {"type": "object", "properties": {f.name: {"type": ["number", "null"]} for f in fields(kind)},
            "required": [f.name for f in fields(kind)]}


def _common(design: str, entries: str, entry: dict[str, Any], settings: type, summary: dict[str, Any],
            required_summary: list[str], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "design": {"const": design},
            "generator": {"type": "string", "description": "generator name, built-in or MODULE:ATTR"},
            "generator_label": {"type": "string", "description": "the generator in words, as the verdict names "
                                                                 "it (its label and the settings given)"},
            "generator_settings": {"type": "object"},
            "real": {"type": "string", "description": "the real table audited (file or demo)"},
            "settings": _settings_schema(settings),
            "splits": {"type": "object", "additionalProperties": {"type": ["number", "null"]}},
            entries: {"type": "array", "items": entry},
            "summary": {"type": "object", "properties": {**_SUMMARY_COMMON, **summary},
                        "required": required_summary},
            "warnings": {"type": "array", "items": {"type": "string"}},
            "seconds": {"type": "number", "minimum": 0},
            "timings": {"type": "object", "additionalProperties": {"type": "number", "minimum": 0}},
            **(extra or {}),
        },
        "required": ["design", "generator", "settings", "splits", entries, "summary", "warnings"],
        "additionalProperties": False,
    }


def _entry(described: dict[str, dict[str, Any]], kind: type, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    names = [f.name for f in fields(kind) if f.name not in skip]
    return {"type": "object", "properties": {n: described[n] for n in names}, "required": names,
            "additionalProperties": False}


def audit_report_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12, self-contained) of both audit designs' ``--json`` documents.

    Returns
    -------
    dict
        ``oneOf`` the shared design (``"design": "shared"``, one entry per audited record under
        ``records``) and the targeted design (``"design": "targeted"``, one per target under ``targets``).

    Raises
    ------
    KeyError
        A result dataclass has a field this contract does not describe.

    Notes
    -----
    The record and target entries are derived from the result dataclasses' fields
    (:class:`privcore.audit.shared.RecordResult`, :class:`privcore.audit.targeted.TargetResult`) and the settings from the
    settings dataclasses, so a field added there without a description here fails the contract test rather than going
    undocumented.
    """
    share = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
    shared = _common("shared", "records", _entry(RECORD_FIELDS, RecordResult), SharedSettings, {
        "records_scored": {"type": "integer", "minimum": 0},
        "mean_auc": _AUC, "chance_share_above_0.8": share, "share_interval_above_0.5": share,
        "chance_share_interval_above_0.5": share,
        "max_epsilon_lower_bound_per_record": {"type": ["number", "null"], "minimum": 0,
                                               "description": "the largest record's own 95 % bound (not "
                                                              "corrected for the number of records)"},
    }, ["records_scored", "share_auc_above_0.6", "verdict"], {"whitebox": _WHITEBOX, "stronger": _STRONGER,
        "per_model": {"anyOf": [{"type": "null"}, {**_PER_MODEL, "description": "the attack of the summary read per "
                                                                                "target model"}]}})
    targeted = _common("targeted", "targets", _entry(TARGET_FIELDS, TargetResult, ("eval_scores", "eval_labels")),
                       AuditSettings, {
                           "mean_auc": {"type": "object", "additionalProperties": _AUC,
                                        "description": "mean AUC per kind of target (vulnerable, random)"},
                       }, ["share_auc_above_0.6", "verdict"])
    return {"title": "privcore membership audit", "description": "python -m privcore audit --json: the "
            "shadow-model membership audit of a generator, by design", "oneOf": [shared, targeted]}
