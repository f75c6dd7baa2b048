"""Built-in, offline demo data: UCI Adult samples, synthetic tables from simple generators, related players' tables.

Data: UCI Adult (Becker, B. & Kohavi, R. (1996), UCI Machine Learning Repository,
https://doi.org/10.24432/C5XW20), licence CC BY 4.0, vendored as package data.
"""

from privcore.base import lazy_face

#: Each name of the face and the module that defines it (loaded on first access).
_FACE: dict[str, str] = {
    "ADULT_TYPES": "adult", "DEFAULT_N": "adult", "load_adult": "adult", "sample_positions": "adult",
    "SENSITIVE": "adult",
    "DemoData": "scenarios", "generate": "scenarios", "list_scenarios": "scenarios", "load_scenario": "scenarios",
    "Scenario": "scenarios", "SCENARIOS": "scenarios",
    "joined": "related", "load_related": "related", "RELATED_SCENARIOS": "related", "RELATED_TITLES": "related",
    "RelatedScenario": "related",
}

__all__ = lazy_face(__name__, _FACE, globals())
