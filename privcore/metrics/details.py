"""The evidence behind a score: one frozen dataclass per kind of evidence.

Every metric declares the kind it returns (``MetricInfo.details_type``); the JSON, the JSON Schema and the
figures are derived from the types (see :class:`Details`).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterator

import numpy as np

from privcore.base import jsonable

__all__ = [
    "Details", "records", "Rate", "KeyMatches", "AttributeInference", "CopyCounts", "NormalisedDistances",
    "NearestDistances", "AdversarialAccuracy", "ProjectionDistances", "PairedRecords", "ClassifierScores",
    "NumericalMatches", "AttackRates", "SinglingOutAttack", "LinkabilityAttack", "InferenceAttack",
    "ProxyTest", "IdenticalShares", "MembershipScores", "BatteryAttack", "HeldOutSplit", "MembershipBattery",
    "EpsilonSeries", "UtilityDetails", "ColumnShapes", "PairTrends", "ModelScore", "ModelUtility", "Discrimination",
    "DETAILS_TYPES",
]


def records(unit: str = "real", *, default: Any = None) -> Any:
    """A field holding one value per record (or record-level traces): kept in Python, left out of JSON.

    ``unit`` is ``"real"`` (indexed like the real table; the record explorer shows it per person),
    ``"synthetic"``, ``"holdout"`` or ``"attack"`` (one entry per attack target or query).
    """
    return field(default=default, metadata={"records": unit})


@dataclass(frozen=True)
class Details:
    """Base of every kind of evidence; ``kind`` names it in JSON.

    Notes
    -----
    Every metric declares the kind it returns (``MetricInfo.details_type``) and returns an instance of it as
    ``MetricOutput.details``; :func:`privcore.evaluate` checks that it does. Three things are derived from the
    types, never written by hand:

    - the JSON of a report's ``details`` (:meth:`Details.to_json`): every field except those marked
      :func:`records` (values per record, and the attack's record-level traces, which stay in Python for the
      figures and the record explorer, so that a report never grows with the table);
    - the JSON Schema of each kind (:meth:`Details.json_schema`), part of ``python -m privcore schema``;
    - the figures: :mod:`privcore.report.figures` draws by details type.

    A details object can also be read like a read-only mapping (``details["auc"]``,
    ``details.get("ratio")``, ``"passes" in details``) for scripts.
    """

    kind: ClassVar[str] = "details"
    #: Whether the figures include the distribution of the metric's per-record risks.
    per_record_figure: ClassVar[bool] = True

    # -- read-only mapping view, for scripts and notebooks -------------------------------------------
    def __getitem__(self, name: str) -> Any:
        if name not in self._names():
            raise KeyError(name)
        return getattr(self, name)

    def __contains__(self, name: object) -> bool:
        return name in self._names() and getattr(self, str(name)) is not None

    def get(self, name: str, default: Any = None) -> Any:
        """The field ``name`` when it exists and is not None, else ``default``."""
        value = getattr(self, name, None) if name in self._names() else None
        return default if value is None else value

    def keys(self) -> Iterator[str]:
        """Names of the fields that hold a value."""
        return (f.name for f in dataclasses.fields(self) if getattr(self, f.name) is not None)

    def items(self) -> Iterator[tuple[str, Any]]:
        """(name, value) of the fields that hold a value, in declaration order."""
        return ((name, getattr(self, name)) for name in self.keys())

    @classmethod
    def _names(cls) -> set[str]:
        return {f.name for f in dataclasses.fields(cls)}

    # -- derived from the types ------------------------------------------------------------------------
    @classmethod
    def record_fields(cls, unit: str | None = None) -> list[str]:
        """Names of the :func:`records` fields (of one unit, or all)."""
        return [f.name for f in dataclasses.fields(cls)
                if "records" in f.metadata and (unit is None or f.metadata["records"] == unit)]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values of every field but the :func:`records` ones, with ``kind`` first."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in dataclasses.fields(self):
            if "records" not in f.metadata:
                out[f.name] = jsonable(getattr(self, f.name))
        return out

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """JSON Schema of :meth:`to_json` for this kind (nested kinds by ``$ref`` to ``#/$defs``)."""
        hints = typing.get_type_hints(cls)
        props: dict[str, Any] = {"kind": {"const": cls.kind}}
        required = ["kind"]
        for f in dataclasses.fields(cls):
            if "records" in f.metadata:
                continue
            props[f.name] = _type_schema(hints[f.name])
            required.append(f.name)
        return {"title": cls.__name__, "description": _first_line(cls.__doc__), "type": "object",
                "properties": props, "required": required, "additionalProperties": False}


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0] if text else ""


_NUMBER = {"type": ["number", "null"]}  # non-finite numbers are written as null


def _type_schema(tp: Any) -> dict[str, Any]:
    """JSON Schema of a field's type annotation."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        options = [_type_schema(a) for a in args if a is not type(None)]
        schema = options[0] if len(options) == 1 else {"anyOf": options}
        return {"anyOf": [schema, {"type": "null"}]} if type(None) in args else schema
    if tp is float:
        return dict(_NUMBER)
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is str:
        return {"type": "string"}
    if tp is Any:
        return {}
    if tp is np.ndarray:
        return {"type": "array", "items": dict(_NUMBER)}
    if origin in (list, tuple):
        if origin is tuple and args and args[-1] is not Ellipsis:
            item = _type_schema(args[0]) if len(set(args)) == 1 else {}
            return {"type": "array", "items": item, "minItems": len(args), "maxItems": len(args)}
        return {"type": "array", "items": _type_schema(args[0]) if args else {}}
    if origin is dict:
        return {"type": "object", "additionalProperties": _type_schema(args[1]) if args else {}}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return {"$ref": f"#/$defs/{tp.__name__}"}
    raise TypeError(f"no JSON Schema for {tp!r}")


# ======================================================================================= the kinds


@dataclass(frozen=True)
class Rate(Details):
    """A success rate with its error (half-width of the interval) and the counts behind it."""

    kind: ClassVar[str] = "rate"
    value: float
    error: float
    n_success: float | None = None
    n_total: int | None = None

    @property
    def interval(self) -> tuple[float, float]:
        """(value − error, value + error) clipped to [0, 1]."""
        return max(0.0, self.value - self.error), min(1.0, self.value + self.error)


@dataclass(frozen=True)
class KeyMatches(Details):
    """Exact or closest matches on the key columns and how often they reveal the sensitive value (ZCAP, GCAP)."""

    kind: ClassVar[str] = "key_matches"
    pool_size: np.ndarray = records()
    correct: np.ndarray = records()
    hamming_distance: np.ndarray | None = records()
    matched_share: float | None = None
    real_rows_matched: int | None = None
    n_keys: int | None = None
    exact_match_share: float | None = None


@dataclass(frozen=True)
class AttributeInference(Details):
    """Weighted guesses of the sensitive value from the nearest synthetic records on the keys (AIR)."""

    kind: ClassVar[str] = "attribute_inference"
    pool_size: np.ndarray = records()
    true_positives: np.ndarray = records()
    false_positives: np.ndarray = records()
    false_negatives: np.ndarray = records()
    f1: np.ndarray = records()
    weight: np.ndarray = records()
    nearest_distance: np.ndarray = records()
    tie_tolerance: float = 0.0
    entropy: float = 0.0
    distinct_tuples: int = 0


@dataclass(frozen=True)
class CopyCounts(Details):
    """Verbatim copies of real records in the synthetic table (CRP)."""

    kind: ClassVar[str] = "copy_counts"
    copied_distinct_rows: int
    real_rows_copied: int
    synthetic_rows_copies: int


@dataclass(frozen=True)
class NormalisedDistances(Details):
    """Each real record's distance to its nearest synthetic record, and n(y) rescaled by d_min/d_max (CVP, DVP, NSND)."""

    kind: ClassVar[str] = "normalised_distances"
    d_yz: np.ndarray = records()
    nearest_synthetic: np.ndarray = records()
    n: np.ndarray = records()
    d_min: float = 0.0
    d_max: float = 0.0
    threshold: float | None = None


@dataclass(frozen=True)
class NearestDistances(Details):
    """Distances from each real record to its nearest synthetic and nearest other real record (Auth, IdScore, MDCR)."""

    kind: ClassVar[str] = "nearest_distances"
    d_yz: np.ndarray = records()
    d_yy: np.ndarray = records()
    nearest_synthetic: np.ndarray | None = records()
    nearest_real: np.ndarray | None = records()
    median_d_yz: float | None = None
    median_d_yy: float | None = None
    entropy: dict[str, float] | None = None
    weight: dict[str, float] | None = None


@dataclass(frozen=True)
class AdversarialAccuracy(Details):
    """Nearest-neighbour adversarial accuracy: the four nearest distances and the two terms (NNAA)."""

    kind: ClassVar[str] = "adversarial_accuracy"
    d_yz: np.ndarray = records()
    d_yy: np.ndarray = records()
    baseline_value: float | None = None
    #: Synthetic → nearest real / other synthetic distances; None when the larger table was subsampled.
    d_zy: np.ndarray | None = records("synthetic")
    d_zz: np.ndarray | None = records("synthetic")
    #: Which table ("real" or "synthetic") was cut to the smaller size at random; None for equal sizes.
    subsampled: str | None = None
    #: NNAA of each random subset when subsampled, else None.
    repeat_values: list[float] | None = None
    real_term: float = 0.0
    synthetic_term: float = 0.0


@dataclass(frozen=True)
class ProjectionDistances(Details):
    """Nearest distances in the FAMD projection Φk, with the projection's size (DCR, NNDR)."""

    kind: ClassVar[str] = "projection_distances"
    k: int
    rank: int
    explained_inertia: float
    dropped_constant: list[str]
    distance: np.ndarray | None = records()
    nearest_synthetic: np.ndarray | None = records()
    ratio: np.ndarray | None = records("synthetic")
    d1: np.ndarray | None = records("synthetic")
    d2: np.ndarray | None = records("synthetic")
    nearest_real: np.ndarray | None = records("synthetic")
    tie_tolerance: float | None = None
    zero_distance_rows: int | None = None


@dataclass(frozen=True)
class PairedRecords(Details):
    """Whether each real record's own synthetic twin is its nearest synthetic record (HidR)."""

    kind: ClassVar[str] = "paired_records"
    #: The FAMD projection Φk the distances are measured in (as :class:`ProjectionDistances`).
    k: int
    rank: int
    explained_inertia: float
    dropped_constant: list[str]
    #: Synthetic rows with a real twin.
    pairs: int | None = None
    #: Per real row: distance to its closest synthetic twin (NaN without one), to its nearest synthetic
    #: row, and whether it has a twin.
    twin_distance: np.ndarray | None = records()
    nearest_synthetic_distance: np.ndarray | None = records()
    has_twin: np.ndarray | None = records()
    hits: int = 0
    paired_real_rows: int = 0
    synthetic_rows: int = 0
    tie_tolerance: float | None = None


@dataclass(frozen=True)
class ClassifierScores(Details):
    """Held-out scores of a classifier telling real from synthetic records, one per fold or repeat (D-MLP, MIR)."""

    kind: ClassVar[str] = "classifier_scores"
    scores: np.ndarray
    score_label: str
    baseline_auc: float | None = None
    probability_real: np.ndarray | None = records()
    probability_synthetic: np.ndarray | None = records("synthetic")
    fold_iterations: list[int] | None = None
    standard_error: float | None = None
    seeds: list[int] | None = None
    times_in_test: np.ndarray | None = records()
    test_size: float | None = None
    n_features: int | None = None


@dataclass(frozen=True)
class NumericalMatches(Details):
    """Synthetic look-alikes: equal categories and numbers within a share of their range (HitR)."""

    kind: ClassVar[str] = "numerical_matches"
    hits_per_real: np.ndarray = records()
    hitting_pairs: int = 0
    h: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class AttackRates(Details):
    """Success rates of the main, baseline and control attacks with intervals, and the residual (Anonymeter)."""

    kind: ClassVar[str] = "attack_rates"
    main: Rate
    baseline: Rate
    control: Rate | None
    residual: Rate | None
    confidence: float | None
    attack: str
    missing: dict[str, int] | None = None


@dataclass(frozen=True)
class SinglingOutAttack(AttackRates):
    """Singling out: the predicates tried and which of them single out a real person."""

    kind: ClassVar[str] = "singling_out"
    n_queries_requested: int = 0
    n_queries_generated: int = 0
    n_attempts: int | None = None
    rows_after_deduplication: dict[str, int] | None = None
    control_correction: float | None = None
    queries: list[dict[str, Any]] = records("attack", default=())
    baseline_queries: list[Any] = records("attack", default=())


@dataclass(frozen=True)
class LinkabilityAttack(AttackRates):
    """Linkability: the attacker's two column sets and, per target, the neighbours of each half."""

    kind: ClassVar[str] = "linkability"
    aux_cols: list[list[str]] = field(default_factory=list)
    ties: str | None = None
    max_stored: int | None = None
    attack_main: dict[str, Any] | None = records("attack")
    attack_control: dict[str, Any] | None = records("attack")
    attack_baseline: dict[str, Any] | None = records("attack")


@dataclass(frozen=True)
class InferenceAttack(AttackRates):
    """Inference: the secret column, what the attacker knows, and per target the guess and whether it was right."""

    kind: ClassVar[str] = "inference"
    secret: str = ""
    aux_cols: list[str] = field(default_factory=list)
    numerical_secret: bool = False
    tolerance: float | None = None
    attack_main: dict[str, Any] | None = records("attack")
    attack_control: dict[str, Any] | None = records("attack")
    attack_baseline: dict[str, Any] | None = records("attack")


@dataclass(frozen=True)
class ProxyTest(Details):
    """A holdout proxy test: a percentile of synthetic→real against holdout→real values (DCR and NNDR tests)."""

    kind: ClassVar[str] = "proxy_test"
    percentile: float
    p_synthetic: float
    p_holdout: float
    ratio: float | None
    passes: bool
    synthetic_values: np.ndarray = records("synthetic")
    holdout_values: np.ndarray = records("holdout")
    closer_to_real_share: float | None = None
    closer_to_real_count: int | None = None
    closer_to_real_expected: float | None = None
    synthetic_to_holdout: np.ndarray | None = records("synthetic")
    tie_tolerance: float | None = None


@dataclass(frozen=True)
class IdenticalShares(Details):
    """Shares of synthetic and of holdout rows identical to a real training record (IMS test)."""

    kind: ClassVar[str] = "identical_shares"
    ims_synthetic: float
    ims_holdout: float
    identical_synthetic: int
    identical_holdout: int
    passes: bool


@dataclass(frozen=True)
class MembershipScores(Details):
    """A membership attack's scores of members and non-members, its ROC curve and statistics with intervals."""

    kind: ClassVar[str] = "membership_scores"
    per_record_figure: ClassVar[bool] = False  # the member/non-member score histogram shows them
    auc: float
    advantage: float
    roc_fpr: np.ndarray
    roc_tpr: np.ndarray
    tpr_at: dict[str, float]
    n_boot: int
    confidence: float
    auc_interval: tuple[float, float] | None
    advantage_interval: tuple[float, float] | None
    tpr_at_interval: dict[str, tuple[float, float] | None]
    n_members: int
    n_nonmembers: int
    per_record_meaning: str
    reference: str | None = None
    tie_tolerance: float | None = None
    kde_points: dict[str, int] | None = None
    bandwidths: dict[str, float] | None = None
    member_scores: np.ndarray = records("attack")
    nonmember_scores: np.ndarray = records("attack")
    member_positions: np.ndarray = records("attack")
    nonmember_positions: np.ndarray = records("attack")
    reference_positions: np.ndarray | None = records("attack")
    #: Per real row, a sentence saying what in the record gave it its score (the value-reuse attack: the
    #: reused value that weighed most); None for attacks whose score has no such part.
    reasons: np.ndarray | None = records("real")


@dataclass(frozen=True)
class BatteryAttack(Details):
    """One attack of the membership battery on all members and non-members.

    AUC with its bootstrap interval, one-sided p-value for AUC > 0.5 (raw and Holm-adjusted over the battery) and TPR at
    low FPR.
    """

    kind: ClassVar[str] = "battery_attack"
    auc: float
    auc_interval: tuple[float, float] | None
    p_value: float
    p_value_holm: float
    #: FPR (as written, "0.001", "0.01", "0.1") → the largest TPR at an FPR ≤ it; None where the non-members
    #: are too few to measure that FPR (fewer than 1/FPR).
    tpr_at: dict[str, float | None]
    advantage: float
    roc_fpr: np.ndarray = records("attack")
    roc_tpr: np.ndarray = records("attack")


@dataclass(frozen=True)
class HeldOutSplit(Details):
    """One direction of the honest split: the attack and threshold chosen on one half, counted on the other.

    The halves are of the members and non-members.
    """

    kind: ClassVar[str] = "held_out_split"
    chosen_on: str
    attack: str
    #: AUC of the chosen attack on the half it was chosen on.
    choice_auc: float
    threshold: float
    auc: float
    advantage: float
    true_positives: int
    members: int
    false_positives: int
    nonmembers: int
    tpr_at: dict[str, float | None]
    epsilon_lower_bound: float
    roc_fpr: np.ndarray = records("attack")
    roc_tpr: np.ndarray = records("attack")
    #: The attack the choice starts from (mia_best's choice rule; None in reports made without the rule).
    default_attack: str | None = None
    #: Attack → share of the choice half's bootstrap resamples on which it had the highest AUC (attacks that
    #: never had it are left out): how often a plain contest agrees with the choice.
    choice_votes: dict[str, float] = field(default_factory=dict)
    #: Attack → share of the choice half's resamples on which its AUC was above the default attack's.
    wins_over_default: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class MembershipBattery(Details):
    """Every membership attack side by side, the strongest chosen on one half and reported on the other (mia_best).

    With the ε lower bound it implies.
    """

    kind: ClassVar[str] = "membership_battery"
    per_record_figure: ClassVar[bool] = False  # the ROC curves of every attack show the evidence
    #: The attack chosen in both directions of the split (when the two differ: the one of them with the
    #: higher AUC on all records).
    selected_attack: str
    attacks: dict[str, BatteryAttack]
    splits: list[HeldOutSplit]
    #: Mean over the two held-out halves, with percentile-bootstrap intervals (held-out halves resampled).
    held_out_auc: float
    held_out_auc_interval: tuple[float, float] | None
    held_out_advantage: float
    held_out_advantage_interval: tuple[float, float] | None
    tpr_at: dict[str, float | None]
    #: max over the two directions of the Clopper–Pearson bound of metrics.md §3 (0 = rules nothing out).
    epsilon_lower_bound: float
    delta: float
    epsilon_confidence: float
    n_boot: int
    confidence: float
    n_members: int
    n_nonmembers: int
    reference: str
    #: Attacks of the battery that could not run on these tables → why.
    not_applicable: dict[str, str] = field(default_factory=dict)
    member_positions: np.ndarray = records("attack")
    nonmember_positions: np.ndarray = records("attack")
    #: How the attack is chosen on each half, in words.
    choice_rule: str = ""
    #: Whether both halves chose the same attack.
    choices_agree: bool | None = None
    #: Mean over the two halves of the share of the half's resamples on which the kept attack had the highest
    #: AUC (how often a plain contest agreed with the choice).
    choice_agreement: float | None = None


@dataclass(frozen=True)
class EpsilonSeries(Details):
    """A value per matching tolerance ε, with the threshold it is compared with (SD-IDR, SD-MIA)."""

    kind: ClassVar[str] = "epsilon_series"
    epsilons: list[float]
    default_epsilon: float
    values: np.ndarray
    label: str
    threshold: float
    above_threshold: list[bool]
    categorical_keys: list[str]
    numerical_keys: list[str]
    #: The terms ``values`` is made of (name → one value per ε).
    terms: dict[str, np.ndarray] = field(default_factory=dict)
    #: Terms drawn beside ``values`` (name → legend label), in order.
    shown_terms: dict[str, str] = field(default_factory=dict)


# ------------------------------------------------------------------------- utility and fidelity (§6)
@dataclass(frozen=True)
class UtilityDetails(Details):
    """Base of the utility measures' evidence: ``utility`` is the score in [0, 1], higher = more useful.

    A utility measure reports no risk (``MetricResult.risk`` is None); :func:`privcore.evaluate` reads ``utility``
    here and the same measure with the holdout in place of the synthetic table, and reports both with their ratio
    as ``MetricResult.utility`` (:class:`privcore.metrics.results.UtilityScore`).
    """

    kind: ClassVar[str] = "utility"
    per_record_figure: ClassVar[bool] = False
    #: The score in [0, 1], higher = more useful.
    utility: float


@dataclass(frozen=True)
class ColumnShapes(UtilityDetails):
    """Per column, how far the binned distribution of the synthetic table lies from the real one (column shapes)."""

    kind: ClassVar[str] = "column_shapes"
    columns: list[str]
    #: Total variation distance ½ Σ |p_i − q_i| of the binned shares, per column.
    tvd: list[float]
    #: Hellinger distance sqrt(1 − Σ sqrt(p_i q_i)) of the binned shares (SynQP), per column.
    hellinger: list[float]
    #: Bins per column (numerical: the real table's quantile bins; categorical: one per category; plus one for
    #: missing values and one for values only the other table has, where they occur).
    bins: list[int]
    #: 1 − the two-sample Kolmogorov–Smirnov statistic on the raw values, numerical columns only (SDMetrics).
    ks_complement: dict[str, float]
    #: What ``utility`` averages, in words.
    averaged: str


@dataclass(frozen=True)
class PairTrends(UtilityDetails):
    """Per pair of columns, the association in the real and the synthetic table and their difference (pair trends)."""

    kind: ClassVar[str] = "pair_trends"
    columns: list[str]
    #: The two columns of each pair.
    pairs: list[list[str]]
    #: "pearson" (two numerical columns) or "cramers_v" (any other pair, numerical columns binned), per pair.
    measure: list[str]
    real: list[float]
    synthetic: list[float]
    #: |real − synthetic| per pair (Pearson's ρ in [−1, 1], Cramér's V in [0, 1]).
    difference: list[float]
    #: SDMetrics-style similarity per pair: 1 − |Δρ| / 2, or 1 − |ΔV| (spec §6).
    similarity: list[float]
    mean_similarity: float
    #: What ``utility`` is, in words.
    averaged: str


@dataclass(frozen=True)
class ModelScore(Details):
    """One target and one learner: trained on the synthetic and on the real table, both tested on the holdout."""

    kind: ClassVar[str] = "model_score"
    target: str
    learner: str
    #: "ROC AUC" (binary), "macro F1" (multi-class) or "R²" (numerical).
    score_name: str
    #: Mean over the seeds of the model trained on the synthetic table and tested on the holdout.
    synthetic: float
    synthetic_interval: tuple[float, float] | None
    #: The same model trained on the real table (train-real-test-holdout).
    real: float
    real_interval: tuple[float, float] | None
    #: synthetic / real (SynQP's MLE), uncapped.
    ratio: float
    ratio_interval: tuple[float, float] | None
    synthetic_per_seed: list[float]
    real_per_seed: list[float]


@dataclass(frozen=True)
class ModelUtility(UtilityDetails):
    """Train on synthetic, test on real (SynQP's MLE), per target and learner, with intervals over the seeds."""

    kind: ClassVar[str] = "model_utility"
    targets: list[str]
    learners: list[str]
    scores: list[ModelScore]
    #: Rows each model is trained on (the smaller of the real and the synthetic table) and tested on.
    train_rows: int
    test_rows: int
    seeds: list[int]
    #: The same measure for the fresh-sample reference, computed by the metric itself: the models trained on the
    #: real table score 1 against themselves.
    reference: float = 1.0


@dataclass(frozen=True)
class Discrimination(UtilityDetails):
    """How well a classifier tells real from synthetic rows, cross-fitted (discriminator AUC)."""

    kind: ClassVar[str] = "discrimination"
    auc: float
    fold_aucs: list[float]
    auc_interval: tuple[float, float] | None
    #: Rows of each table used (equal numbers: the larger table is cut at random).
    rows_per_table: int
    n_features: int
    learner: str


#: Every kind, for the JSON Schema.
@dataclass(frozen=True)
class ReproducedIdentifiers(Details):
    """Members' identifiers (names, e-mail, ids) and free text found in the synthetic table, against the holdout's.

    Each check is one combination of columns (a name; first and last name; a name with a birth date): a person's
    values are found when one synthetic row holds them all, each identifier or text exactly or one edit away and any
    other column exactly. Rates are rarity-weighted (a person counts 1 / the number of real people, members and
    holdout together, who share the same values), so that finding a common name is expected and a rare one is not.
    """

    kind: ClassVar[str] = "reproduced_identifiers"
    #: The figure compares members with the holdout; a per-record 0/1 histogram adds nothing.
    per_record_figure: ClassVar[bool] = False
    #: Each check's columns, joined with " + ".
    checks: list[str]
    #: Members found, per check (unweighted counts), and members with a value in every column of the check.
    members_found: list[int]
    members_checked: list[int]
    #: The same for the holdout (the chance level: real people the generator never saw); empty without a holdout.
    holdout_found: list[int]
    holdout_checked: list[int]
    #: Rarity-weighted rates of members and of the holdout, per check.
    members_rate: list[float]
    holdout_rate: list[float]
    #: The check the risk is read from (the most identifying: every identifier column together).
    decisive_check: str
    #: A few found members' values, masked ("J*** S****"), for the card.
    examples: list[str]
    #: Per real record: 1 when its values were found by the decisive check, else 0.
    found: np.ndarray = records()


DETAILS_TYPES: tuple[type[Details], ...] = (
    Rate, KeyMatches, AttributeInference, CopyCounts, NormalisedDistances, NearestDistances, AdversarialAccuracy,
    ProjectionDistances, PairedRecords, ClassifierScores, NumericalMatches, AttackRates, SinglingOutAttack,
    LinkabilityAttack, InferenceAttack, ProxyTest, IdenticalShares, MembershipScores, BatteryAttack, HeldOutSplit,
    MembershipBattery, EpsilonSeries, ColumnShapes, PairTrends, ModelScore, ModelUtility, Discrimination,
    ReproducedIdentifiers,
)
