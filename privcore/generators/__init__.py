"""Synthetic-data generators under one protocol: for the metric lab, the shadow-model audit and the demo.

The protocol is :class:`Generator` (:mod:`privcore.generators.base`); the built-ins are made by name with
:func:`make_generator`; TabDDPM and SDV's synthesizers are optional extras. Errors are
:class:`privcore.base.errors.InputError` subclasses under :class:`GeneratorError`.
"""

from privcore.base import lazy_face

#: Each name of the face and the module that defines it (loaded on first access).
_FACE: dict[str, str] = {
    "as_generator": "adapters", "SDVAdapter": "adapters",
    "BaseGenerator": "base", "check_level": "base", "check_sample": "base", "Generator": "base",
    "GeneratorContextError": "base", "GeneratorError": "base", "GeneratorOutputError": "base",
    "GeneratorSettingError": "base", "per_record_loss": "base", "PerRecordLoss": "base",
    "UnknownGeneratorError": "base",
    "SequentialCART": "cart",
    "AttributeLeak": "copies", "ColumnResample": "copies", "ExactCopy": "copies", "FreshSample": "copies",
    "LEAK_ATTR": "copies", "NoisyCopy": "copies", "PartialCopy": "copies", "RareRecords": "copies",
    "ValueReuse": "copies",
    "DPMarginals": "models", "epsilon_to_level": "models", "GaussianCopula": "models", "Grid": "models",
    "Histogram": "models", "histogram_counts": "models", "IndependentHistograms": "models",
    "level_to_epsilon": "models", "RareLeak": "models", "rarest_categorical_rows": "models",
    "ENV_VARIABLE": "outside", "is_reference": "outside", "load_reference": "outside", "reference_maker": "outside",
    "registered_specs": "outside",
    "Attribute": "privbayes", "MAX_TABLE_CELLS": "privbayes", "mi_sensitivity": "privbayes",
    "mutual_information": "privbayes", "PrivBayes": "privbayes",
    "generator_label": "registry", "GENERATOR_SPECS": "registry", "generator_title": "registry",
    "get_generator_spec": "registry", "LADDER": "registry", "list_generators": "registry",
    "make_generator": "registry",
    "import_sdv": "sdv", "sdv_metadata": "sdv", "SDV_SPECS": "sdv", "SDVSynthesizer": "sdv",
    "GeneratorSpec": "spec", "install_command": "spec", "module_installed": "spec",
    "TabDDPM": "tabddpm",
}

#: Offered by the face but not star-exported: LEAK_ATTR, TabDDPM, rarest_categorical_rows.
_NOT_STARRED = {"LEAK_ATTR", "TabDDPM", "rarest_categorical_rows"}

__all__ = [name for name in lazy_face(__name__, _FACE, globals()) if name not in _NOT_STARRED]
