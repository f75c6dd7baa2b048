"""The metric registry: every metric's identity, metadata and plain-language explanation.

Each metric module registers one :class:`MetricInfo` per metric with :func:`register`. The dashboard,
the command line and :func:`privcore.evaluate` only ever read from here, so a metric's explanation is
written once, next to its code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from privcore.data import Param
from privcore.metrics import load_all
from privcore.metrics.details import Details

if TYPE_CHECKING:  # pragma: no cover
    from privcore.engine import MetricContext
    from privcore.metrics.results import MetricOutput

#: Requirements a metric may declare; evaluate() turns a missing one into a "not applicable" reason.
NEEDS_REASONS: dict[str, str] = {
    "sensitive": "needs a sensitive column (what an attacker wants to learn): choose one among the column settings.",
    "categorical_sensitive": "needs a categorical or binary sensitive column; the chosen one is numerical.",
    "holdout": "needs a holdout table (real records not used to train the generator): upload one with the other "
               "tables.",
    "pairing": "needs a pairing between synthetic and real rows (the same row order, or an id column in both "
               "tables): set it among the column settings.",
    "identifiers": "needs an identifier or free-text column (names, e-mail addresses, id numbers): declare one among "
                   "the column settings (--identifier, --text).",
}

#: Figures a metric may declare (``MetricInfo.figures``), drawn from the report's shared neighbour passes:
#: distances to the nearest synthetic / real / holdout record in the metric's space, the normalised
#: distance n(y) with the CVP/DVP thresholds, and the FAMD map with nearest-neighbour links.
SHARED_FIGURES = ("distances", "normalised_distances", "famd_map")
SPACES = ("E", "phi", "E_idscore")

#: What a metric assumes of the data, checked by "Does this metric apply here?"
#: (:func:`privcore.evaluation.interpret.metric_applies`): exact matching on every column or on the key columns
#: (continuous columns make copies rare), distances in the encoded space (which lose meaning in high
#: dimensions), or distances on the FAMD projection (which keeps only part of the variation).
ASSUMPTIONS = ("", "exact match on every column", "exact match on the key columns", "distance", "projection")

#: Where a metric may run while an evaluation has a background thread (:mod:`privcore.evaluation.background`):
#: ``""`` on the main thread in turn; ``"background"`` on the background thread from the start; ``"either"`` on
#: whichever thread comes to it first. Both need a metric whose result depends on its seed alone, not on the thread
#: or the threads beside it. The shared caches fill one thread at a time (``SharedComputation``'s lock), and a pass
#: reports progress only on the thread that set the callback, so either kind may read neighbour passes.
THREADS = ("", "background", "either")

FAMILIES = (
    "Simulation-based",
    "Distance-based",
    "Classifier-based",
    "Attack-based",
    "Holdout proxy tests",
    "Membership inference",
    "SynQP",
    "Reconstruction",
    "Utility",
)

#: The family of the utility and fidelity measures (metrics.md §6): "higher is better" scores, no privacy risk.
UTILITY_FAMILY = "Utility"

#: The utility measures cheap enough for the "quick" preset (no model trained; measured on the demo, see
#: :func:`quick_metrics`).
QUICK_UTILITY = ("utility_shapes", "utility_pairs")
#: The attack-based checks cheap enough for the "quick" preset with or without a holdout.
QUICK_CHECKS = ("reproduced_identifiers",)


def is_utility(info: "MetricInfo") -> bool:
    """Whether ``info`` is a utility measure (its result carries a utility score instead of a risk)."""
    return info.family == UTILITY_FAMILY


def family_heading(family: str) -> str:
    """A family's heading over its metrics: "Distance-based metrics", but "Holdout proxy tests" as it is.

    Examples
    --------
    >>> family_heading("Distance-based"), family_heading("Holdout proxy tests")
    ('Distance-based metrics', 'Holdout proxy tests')
    """
    return family if family.endswith(("tests", "metrics")) else f"{family} metrics"


@dataclass(frozen=True)
class Explanation:
    """Plain-language explanation shown verbatim by the dashboard (metrics.md §4).

    Attributes
    ----------
    attack : str
        The attack the metric simulates and what the attacker is assumed to know.
    steps : tuple of str
        The attack in 2–4 numbered steps.
    high : str
        What a high score means, one plain sentence.
    low : str
        What a low score means, one plain sentence.
    blind_spots : str
        Known blind spots.
    note : str
        The Erratum/Choice note of metrics.md, one sentence (empty if none).
    """

    attack: str
    steps: tuple[str, ...]
    high: str
    low: str
    blind_spots: str
    note: str = ""


@dataclass(frozen=True)
class MetricInfo:
    """Identity, metadata and implementation of one metric.

    Attributes
    ----------
    id : str
        Command-line id (``crp``, ``dcr``...).
    name : str
        Human name.
    family : str
        One of :data:`FAMILIES`.
    summary : str
        One-line description.
    attacker_knows : str
        What the attacker is assumed to know.
    needs : frozenset of str
        Subset of :data:`NEEDS_REASONS` keys.
    per_record_unit : str
        ``"real"``, ``"synthetic"`` or ``"none"``: what ``per_record`` is indexed by.
    raw_meaning : str
        The direction and meaning of ``raw`` in the original definition.
    reference : str
        Source reference.
    explanation : Explanation
        Texts shown by the dashboard.
    compute : callable
        ``compute(ctx: MetricContext) -> MetricOutput``; raises ``NotApplicable`` with a reason.
    details_type : type
        The kind of evidence ``compute`` returns as ``details`` (a :class:`privcore.metrics.details.Details`
        subclass); the figures are chosen by it.
    params : tuple of Param
        The user-settable parameters (:mod:`privcore.data.params`): type, default, range and help of each.
    space : str or None
        The vector space the metric reads neighbours from: ``"E"``, ``"phi"`` (FAMD Φk) or
        ``"E_idscore"``; None for exact-match and attack metrics.
    figures : tuple of str
        Figures drawn from the shared neighbour passes besides those of the details type, from
        :data:`SHARED_FIGURES`.
    min_rows : int
        Minimum rows needed in the real and synthetic tables.
    baseline : bool
        Whether the §5 fresh-sample baseline (holdout in place of synthetic) is computed.
    uses_classifier : bool
        Trains a model (slow); excluded from the "quick" preset, except the membership-inference attacks that
        join it when a holdout is loaded (:func:`quick_metrics`).
    interval_kind : str
        ``""``, ``"wilson"``, ``"bootstrap"`` or ``"standard error"``: where ``interval`` comes from.
    passes : tuple of (space, query role, reference role)
        The neighbour passes ``compute`` may read through ``ctx.neighbours`` (roles as the metric names them;
        in a baseline the holdout plays "synthetic"). An evaluation that will read both directions between
        two tables computes them from one block (:mod:`privcore.engine.neighbors_both_ways`); a test checks that
        every pass a metric computes is declared.
    size_matched : bool
        The value depends on the size of the table searched or scored (distances to the closest record shrink
        as the table grows; exact-match and hit counts grow with it): with a holdout of another size than the
        synthetic table, its excess over the baseline is taken between like-sized tables
        (:class:`privcore.metrics.results.SizeMatch`).
    tolerance_only : tuple of (space, role, role)
        Pairs of tables of ``passes`` whose d_min/d_max the metric reads only for the tie tolerance, through
        ``ctx.tie_tolerance``, or not at all (DCR): where every chosen metric with a pass between them says so, their passes leave
        the farthest pair out (:mod:`privcore.engine.tolerance`). Results are the same either way.
    order : int
        Display order: metrics are listed by it wherever they are listed (the Metrics page, the report, the
        JSON). Unique; a metric without one sorts last.
    cost : (float, float) or None
        Measured cost: seconds for the metric and its fresh-sample baseline at
        :data:`privcore.evaluation.estimate.REFERENCE_ROWS` rows in all, and the exponent of its growth with the
        size. The time estimate reads it; say in a comment where it was measured.
    reference_level : float or None
        The risk a perfect generator gets where it is not 0 (a classifier at chance scores 0.5): the reference of
        the risk when no holdout gives a fresh-sample baseline.
    threshold : float or None
        The default shareability threshold on risk above the reference where the metric's source gives one
        (None: :data:`privcore.evaluation.interpret.DEFAULT_THRESHOLD`).
    assumption : str
        What the metric assumes of the data, from :data:`ASSUMPTIONS`.
    thread : str
        Where it may run beside a background thread, from :data:`THREADS`.
    one_thread_blas : bool
        Every BLAS call of the metric already runs on one thread (the engine's passes, the FAMD fit), so it may
        run while a background thread holds BLAS at one thread: its result is the same either way. BLAS's
        rounding depends on its thread count, so a metric that calls BLAS on every core must leave this False.
    null : callable or None
        ``null(ctx, output, draws, seed) -> (value, values)`` for a test of members against non-members (the holdout
        proxy tests, SD-MIA): its value and what it scores when the two groups it compares swap labels at random,
        the fresh-sample reference of metrics.md §5 for a metric whose own baseline would compare the holdout with
        itself (:func:`privcore.evaluation.size_match.permutation_match`).
    compared_by : callable or None
        ``compared_by(output) -> float``: the score the size-matched comparison reads in place of ``output.risk``,
        for a metric whose own score is a step function of its table (MDCR's median of distances that take few
        values: :func:`privcore.metrics.distance.closest.mdcr_compared`); None to compare the risk itself.
    scorer : object or None
        A membership attack's scorer (:class:`privcore.metrics.membership._base.Scorer`): the attacks that have
        one make the battery that the strongest attack compares, in display order.
    """

    id: str
    name: str
    family: str
    summary: str
    attacker_knows: str
    needs: frozenset[str]
    per_record_unit: str
    raw_meaning: str
    reference: str
    explanation: Explanation
    compute: Callable[["MetricContext"], "MetricOutput"]
    details_type: type[Details]
    params: tuple[Param, ...] = ()
    space: str | None = None
    figures: tuple[str, ...] = ()
    min_rows: int = 2
    baseline: bool = True
    uses_classifier: bool = False
    interval_kind: str = ""
    passes: tuple[tuple[str, str, str], ...] = ()
    tolerance_only: tuple[tuple[str, str, str], ...] = ()
    size_matched: bool = False
    order: int = 1_000_000
    cost: tuple[float, float] | None = None
    reference_level: float | None = None
    threshold: float | None = None
    assumption: str = ""
    thread: str = ""
    one_thread_blas: bool = False
    scorer: Any = None
    null: Any = None
    compared_by: Any = None

    @property
    def default_params(self) -> dict[str, Any]:
        """Parameter name → default (None where the default is derived from the schema)."""
        return {p.name: p.default_for(None) for p in self.params}

    def param(self, name: str) -> Param:
        """The declaration of parameter ``name`` (KeyError if the metric has none of that name)."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


_REGISTRY: dict[str, MetricInfo] = {}

#: The 17 metrics of the review of privacy metrics (PrivEval's, in ``shared/seeds/``), in display order.
REVIEW_METRICS = ("zcap", "gcap", "air", "crp", "cvp", "dvp", "dmlp", "auth", "idscore", "nsnd", "nndr", "dcr", "mdcr",
                  "nnaa", "mir", "hidr", "hitr")


def register(info: MetricInfo) -> MetricInfo:
    """Add a metric to the registry (ids are unique)."""
    if info.id in _REGISTRY and _REGISTRY[info.id] is not info:
        raise ValueError(f"metric id {info.id!r} registered twice")
    unknown = set(info.needs) - set(NEEDS_REASONS)
    if unknown:
        raise ValueError(f"metric {info.id!r} declares unknown needs {sorted(unknown)}")
    if info.family not in FAMILIES:
        raise ValueError(f"metric {info.id!r} has unknown family {info.family!r}")
    if not (isinstance(info.details_type, type) and issubclass(info.details_type, Details)):
        raise ValueError(f"metric {info.id!r} declares no details type (a privcore.metrics.details.Details subclass)")
    if info.space is not None and info.space not in SPACES:
        raise ValueError(f"metric {info.id!r} has unknown space {info.space!r}")
    unknown = set(info.figures) - set(SHARED_FIGURES)
    if unknown or (set(info.figures) & {"distances", "normalised_distances"} and info.space is None):
        raise ValueError(f"metric {info.id!r} declares figures {sorted(info.figures)} it cannot have")
    if len({p.name for p in info.params}) != len(info.params):
        raise ValueError(f"metric {info.id!r} declares a parameter twice")
    if info.assumption not in ASSUMPTIONS:
        raise ValueError(f"metric {info.id!r} has unknown assumption {info.assumption!r}; one of {ASSUMPTIONS}")
    if info.thread not in THREADS:
        raise ValueError(f"metric {info.id!r} has unknown thread {info.thread!r}; one of {THREADS}")
    same_place = [m.id for m in _REGISTRY.values() if m.order == info.order and m.id != info.id]
    if same_place:
        raise ValueError(f"metric {info.id!r} has the display order {info.order} of {same_place[0]!r}")
    _REGISTRY[info.id] = info
    return info


def _load_all() -> None:
    # Every family registers on import; done on first use, so importing the registry stays cheap.
    load_all()


def get(metric_id: str) -> MetricInfo:
    """Return the metric registered under ``metric_id`` (KeyError if unknown)."""
    _load_all()
    return _REGISTRY[metric_id]


def all_metrics() -> list[MetricInfo]:
    """Every registered metric in display order."""
    _load_all()
    return sorted(_REGISTRY.values(), key=lambda m: (m.order, m.id))


def metric_ids() -> list[str]:
    """Ids of every registered metric in display order."""
    return [m.id for m in all_metrics()]


def battery_ids() -> tuple[str, ...]:
    """The membership attacks that the strongest attack compares: every metric with a scorer, in display order.

    The display order also breaks ties between equally strong attacks.

    Examples
    --------
    >>> battery_ids()[:3]
    ('mia_distance', 'mia_calibrated', 'mia_domias')
    """
    return tuple(m.id for m in all_metrics() if m.scorer is not None)


def reference_metrics() -> list[str]:
    """Ids of the metrics that take a reference table (a ``reference`` parameter of kind ``"table"``).

    The one list behind ``evaluate(reference=...)``, the command line's ``--reference`` and the dashboard's
    reference upload, so that all three hand the table to the same attacks and give the same answer.

    Returns
    -------
    list of str
        In display order; every membership attack that compares with outside real people, ``mia_stacked``
        and ``mia_best`` among them.

    Examples
    --------
    >>> {"mia_calibrated", "mia_domias", "mia_stacked", "mia_best"} <= set(reference_metrics())
    True
    """
    return [m.id for m in all_metrics() if any(p.name == "reference" and p.kind == "table" for p in m.params)]


#: The family whose attacks join the "quick" preset when a holdout is loaded: the decisive evidence.
DECISIVE_DEFAULT_FAMILY = "Membership inference"


def quick_metrics(holdout: bool = False) -> list[str]:
    """The "quick" preset, which is also the default choice of metrics.

    Without a holdout: the simulation- and distance-based metrics that train no model (a few seconds on
    thousands of rows). With a holdout: the same, plus every membership-inference attack that needs the holdout
    (``mia_best`` among them), because they are the decisive evidence of the verdict
    (:mod:`privcore.evaluation.verdict`): without them the best answer is "release with caution". They train
    small models; :func:`privcore.evaluation.estimate.estimate_seconds` says how long the choice takes.

    Examples
    --------
    >>> "mia_best" in quick_metrics(holdout=True), "mia_best" in quick_metrics(holdout=False)
    (True, False)
    """
    fast = [m.id for m in all_metrics() if not m.uses_classifier and m.family in FAMILIES[:3]]
    fast += [m for m in QUICK_UTILITY if m in _REGISTRY]  # the cheap utility measures (no model), beside the risk
    # Members' names found in the synthetic table: no model, a lookup per person (not applicable, and said so, on a
    # table without identifier columns).
    fast += [m for m in QUICK_CHECKS if m in _REGISTRY]
    if not holdout:
        return fast
    return fast + [m.id for m in all_metrics() if m.family == DECISIVE_DEFAULT_FAMILY and "holdout" in m.needs]


def presets(holdout: bool = False) -> dict[str, list[str]]:
    """The metric presets of product.md, restricted to what is registered.

    ``holdout`` says whether a holdout table is loaded: the "quick" preset then includes the membership
    attacks (:func:`quick_metrics`), and "all 17 review metrics" the strongest of them (``mia_best``). Without
    an attack the verdict cannot clear a table (:mod:`privcore.evaluation.verdict`): the review's metrics alone
    would answer "release with caution" even for a fresh sample of real people with a holdout loaded.

    Examples
    --------
    >>> presets(holdout=True)["all 17 review metrics"][-1], "mia_best" in presets()["all 17 review metrics"]
    ('mia_best', False)
    """
    ids = metric_ids()
    registered = set(ids)
    attacks = [m for m in ids if get(m).family in FAMILIES[3:] and get(m).family != UTILITY_FAMILY]
    review = [m for m in REVIEW_METRICS if m in registered]
    if holdout and "mia_best" in registered:  # the decisive evidence, one attack standing for the battery
        review.append("mia_best")
    return {
        "quick": quick_metrics(holdout),
        "all 17 review metrics": review,
        "attacks (needs holdout)": attacks,
        "utility": [m for m in ids if get(m).family == UTILITY_FAMILY],
        "everything": ids,
    }
