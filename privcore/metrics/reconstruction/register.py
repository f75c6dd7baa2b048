"""The declarations of the reconstruction metrics (family "Reconstruction"): texts, parameters and settings."""

from __future__ import annotations

from privcore.metrics.reconstruction._base import STEVENG9, Reconstruction
from privcore.metrics.reconstruction.metrics import (
    CONFIDENCE,
    N_BOOT,
    K,
    compute_best,
    compute_learned,
    compute_nearest,
)
from privcore.metrics.registry import Explanation, MetricInfo, register

FAMILY = "Reconstruction"

_KNOWS = ("The key columns (quasi-identifiers) of a target, as someone who knows a person's age, sex, postcode and "
          "so on; the released synthetic table. The attacker wants every other column of the person's record.")
_SCORE = ("Each categorical column counts a right guess more the rarer its true value (the rarity-weighted accuracy of "
          "the NIST CRC red team); a number counts by how close the guess comes, relative to the column's range. The "
          "same attack is scored on training members and on people who were not in the training data.")
_HIGH = ("The synthetic table lets an attacker fill in the training members' records better than those of other "
         "real people: it carries something of those individuals, beyond what the population reveals.")
_LOW = ("The attacker reconstructs members no better than non-members: what it guesses right, it guesses from "
        "patterns true of everyone (which the population reference shows), not from the people in the training data.")
_BLIND = ("It measures one attacker's skill: a cleverer attacker may do better. Attributes that anyone could infer "
          "from the population are not counted as a leak (compare the population reference), and a generator that "
          "keeps no relation between columns gives nothing to reconstruct from, which is not the same as useful "
          "privacy (see the utility measures).")
_REFERENCE = f"{STEVENG9}; Anonymeter's inference attack (Giomi et al. 2023) for the nearest-record guess"


#: The nearest-record attack (k ≤ 2) reads the engine's passes from members and non-members to the synthetic table and
#: from members to the holdout (the population reference); the learned attack's chain order reads each released
#: table's own nearest-record pass (the synthetic table, and the holdout for the population reference).
NEAREST_PASSES = (("E_keys", "real", "synthetic"), ("E_keys", "holdout", "synthetic"), ("E_keys", "real", "holdout"))
CHAIN_PASSES = (("E_keys", "synthetic", "synthetic"), ("E_keys", "holdout", "holdout"))


def _info(metric_id: str, name: str, summary: str, steps: tuple[str, ...], compute, params, note: str,
          passes: tuple[tuple[str, str, str], ...] = (), **facts) -> MetricInfo:
    return MetricInfo(
        id=metric_id, name=name, family=FAMILY, summary=summary, attacker_knows=_KNOWS,
        needs=frozenset({"holdout"}), per_record_unit="real",
        raw_meaning="Members' reconstruction score − non-members' (signed; the risk is this at least 0).",
        reference=_REFERENCE,
        explanation=Explanation(attack=_KNOWS + " " + _SCORE, steps=steps, high=_HIGH, low=_LOW, blind_spots=_BLIND,
                                note=note),
        compute=compute, details_type=Reconstruction, params=params, min_rows=2, baseline=False,
        interval_kind="bootstrap", passes=passes, **facts)


_COMPARE = ("Score the guesses on the training members and, in the same way, on the holdout (people the generator "
            "never saw); the advantage is the difference, with a bootstrap interval.")
_POPULATION = ("Run the same attack with the holdout released instead of the synthetic table: what data about other "
               "real people lets anyone infer about the members (the population reference).")

register(_info(
    "recon_nearest", "Reconstruction from the nearest records",
    "Can an attacker who knows a person's key columns fill in the rest of their record from the nearest synthetic "
    "records, better for the people in the training data than for others?",
    ("For each target, find the synthetic records nearest on the key columns (in the shared key space).",
     "Guess each other column as the most common value among them (the mean for a number).", _COMPARE, _POPULATION),
    compute_nearest, (K, N_BOOT, CONFIDENCE),
    "Choice: with k = 1 (default) the guess is the single nearest record's, as in Anonymeter's inference attack.",
    NEAREST_PASSES,
    order=400,
    # Noisy-copy demo, 3 × 3,000 rows, six demographic key columns and eight secret ones, alone on a loaded
    # 2-core machine: 1.65 s.
    cost=(1.6, 1.1)))

register(_info(
    "recon_learned", "Reconstruction by learned predictors",
    "Can an attacker who knows a person's key columns predict the rest of their record with models trained on the "
    "synthetic table, better for the people in the training data than for others?",
    ("Train one gradient-boosted model (LightGBM) per other column on the synthetic table, the key columns as inputs.",
     "Chain them: the column the synthetic table predicts best comes first, and each guess informs the next models.",
     _COMPARE, _POPULATION),
    compute_learned, (N_BOOT, CONFIDENCE),
    "Choice: the chain's order is chosen on the synthetic table alone (how well each column of a synthetic record "
    "is given by its nearest other synthetic record on the key columns), never on the real people.", CHAIN_PASSES,
    order=410,
    cost=(8.0, 1.0)))  # as recon_nearest: 8.05 s (LightGBM, 3 × 8 models)

register(_info(
    "recon_best", "Reconstruction: the strongest attack (honest best)",
    "Of the nearest-record and the learned reconstruction, how much does the stronger one reveal about the training "
    "members, measured on people it was not chosen on?",
    ("Run both reconstruction attacks on every member and non-member.",
     "Choose the one with the larger advantage on a random half of the members and non-members.",
     "Report the chosen attack's advantage on the other half, with its bootstrap interval there: choosing the larger "
     "of two advantages on the same people would overstate it.", _POPULATION),
    compute_best, (K, N_BOOT, CONFIDENCE),
    "Choice: the honest split of mia_best, for reconstruction: half the targets choose, the other half measure.",
    NEAREST_PASSES + CHAIN_PASSES,
    order=420,
    cost=(9.0, 1.0)))  # as recon_nearest: 7.9 s, running both attacks and sharing their reconstructions
