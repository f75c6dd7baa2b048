"""Human names of metrics and attacks for labels, tables and sentences (the registry holds the full names)."""

from __future__ import annotations

import re

from privcore.metrics import registry

#: Short labels for axes and tables where the full names do not fit.
SHORT_NAMES = {
    "singling_out_univariate": "Singling out (1 column)",
    "singling_out_multivariate": "Singling out (several)",
    "linkability": "Linkability",
    "inference": "Inference",
    "dcr_test": "DCR test",
    "nndr_test": "NNDR test",
    "ims_test": "IMS test",
    "mia_distance": "MIA distance",
    "mia_calibrated": "MIA calibrated",
    "mia_domias": "MIA DOMIAS",
    "mia_value_reuse": "MIA value reuse",
    "sd_idr": "SD-IDR",
    "sd_mia": "SD-MIA",
}


def short_name(metric_id: str) -> str:
    """A short label: the acronym of the registered name ("CRP"), or :data:`SHORT_NAMES`, or the id."""
    if metric_id in SHORT_NAMES:
        return SHORT_NAMES[metric_id]
    name = metric_name(metric_id)
    match = re.search(r"\(([^(),]{1,12})\)\s*$", name)
    return match.group(1) if match else metric_id


def metric_name(metric_id: str) -> str:
    """The registered human name of a metric (the id itself when unknown)."""
    try:
        return registry.get(metric_id).name
    except KeyError:
        return metric_id


#: Short names of the attacks for legends and tables.
ATTACK_NAMES = {
    "mia_distance": "distance",
    "mia_calibrated": "calibrated distance",
    "mia_domias": "density ratio (DOMIAS)",
    "mia_gen_lra": "likelihood ratio (Gen-LRA)",
    "mia_classifier": "classifier",
    "mia_density_count": "synthetic rows nearby",
    "mia_dpi": "plagiarism index (DPI)",
    "mia_value_reuse": "value reuse",
    "mia_learned": "learned attack",
    "mia_stacked": "stacked attack",
}


def short_attack(attack_id: str) -> str:
    """The attack's short name ("distance", "classifier"…), or its id when unknown."""
    return ATTACK_NAMES.get(attack_id, attack_id)

