"""The tables and what is said about them.

Reading files (``io`` and its helpers), column types and roles (``schema``), cleaning and aligning tables
(``prepare``), memory estimates (``memory``), checked settings (``params``) and related tables of people and their
rows (``related``). Imports only :mod:`privcore.base`.
"""

from privcore.base import lazy_face

#: Each name of the face and the module that defines it (loaded on first access).
_FACE: dict[str, str] = {
    "COLUMN_KINDS": "column_kinds", "DATE": "column_kinds", "IDENTIFIER": "column_kinds",
    "KIND_MEANINGS": "column_kinds", "TEXT": "column_kinds",
    "column_lines": "column_list", "column_report": "column_list", "ColumnEntry": "column_list",
    "check_column_kinds_agree": "io", "check_no_all_missing": "io", "check_same_columns": "io", "load_table": "io",
    "MAX_UPLOAD_MB": "io", "validate_tables": "io",
    "machine_memory": "memory", "parse_size": "memory",
    "check_params": "params", "check_settings": "params", "check_value": "params", "format_numbers": "params",
    "Param": "params", "ParamError": "params",
    "MISSING": "prepare", "PreparedData": "prepare",
    "BINARY": "schema", "CATEGORICAL": "schema", "check_seed": "schema", "COLUMN_TYPES": "schema",
    "guess_column_type": "schema", "infer_schema": "schema", "MAX_MAGNITUDE": "schema", "MAX_SEED": "schema",
    "NUMERICAL": "schema", "Schema": "schema", "suggest_sensitive": "schema",
    "only": "table_checks", "read_columns": "table_checks",
    "check_related": "related", "NO_ROWS": "related", "people_table_name": "related", "person_table": "related",
    "ROW_SET": "related", "row_sets": "related",
    "Relation": "related",
    "preset_key": "threat_models", "secret_sentence": "threat_models", "THREAT_MODELS": "threat_models",
}

__all__ = lazy_face(__name__, _FACE, globals())
