"""Register the Anonymeter-style attacks (metrics.md §3) in the metric registry.

``risk`` is the residual risk with the holdout as control (else the main attack's Wilson rate); see
:func:`compute_singling_out_univariate`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privcore.base import NotApplicable
from privcore.data import Param
from privcore.engine import MetricContext
from privcore.metrics.attacks._common import AttackOutcome
from privcore.metrics.attacks.inference import DEFAULT_TOLERANCE, inference
from privcore.metrics.attacks.linkability import linkability
from privcore.metrics.attacks.singling_out import DEFAULT_MAX_ATTEMPTS, singling_out
from privcore.metrics.details import AttackRates, InferenceAttack, LinkabilityAttack, Rate, SinglingOutAttack
from privcore.metrics.registry import Explanation, MetricInfo, register
from privcore.metrics.results import MetricOutput

REFERENCE = (
    "Giomi, Boenisch, Wehmeyer and Tasnádi, A Unified Framework for Quantifying Privacy Risk in Synthetic "
    "Data, Proceedings on Privacy Enhancing Technologies (PoPETs) 2023(2); implementation: Anonymeter "
    "(github.com/statice/anonymeter)"
)

CONFIDENCE = 0.95

RAW_MEANING = (
    "Success rate of the main attack (synthetic data against training records), Wilson-score centre at 95 %; "
    "higher = the attack worked more often. It includes what the attack would achieve against anyone, which "
    "the risk removes using the holdout."
)

_RISK_STEP = (
    "Risk = (main − control) / (1 − control) on Wilson-score success rates at 95 %, clipped to [0, 1]; without "
    "a holdout, the main attack's success rate."
)

_NO_HOLDOUT = (
    " Without a holdout the risk is the main attack's raw success rate, which also counts what the attack "
    "achieves against people who were never in the training data; give a holdout for the residual risk."
)


#: The details type of each attack.
_DETAILS_TYPES: dict[str, type[AttackRates]] = {
    "singling_out_univariate": SinglingOutAttack,
    "singling_out_multivariate": SinglingOutAttack,
    "linkability": LinkabilityAttack,
    "inference": InferenceAttack,
}


def _rate(rate, n_success=None, n_total=None) -> Rate | None:
    if rate is None:
        return None
    return Rate(value=rate.value, error=rate.error, n_success=n_success, n_total=n_total)


def _details(out: AttackOutcome) -> AttackRates:
    """The attack's typed details: the four rates, and the attack's own details by name.

    Its per-attack records ``main``/``control``/``baseline`` go under
    ``attack_main``/``attack_control``/``attack_baseline``.
    """
    res = out.result
    counts = (
        (0, 0, 0, 0, None, None)
        if res is None
        else (res.n_main, res.n_main_total, res.n_baseline, res.n_baseline_total, res.n_control, res.n_control_total)
    )
    fields: dict[str, Any] = {
        "main": _rate(out.main, counts[0], counts[1]),
        "baseline": _rate(out.baseline, counts[2], counts[3]),
        "control": _rate(out.control, counts[4], counts[5]),
        "residual": _rate(out.residual),
        "confidence": out.confidence,
        "attack": out.attack,
    }
    for key, value in out.details.items():
        fields["attack_" + key if key in ("main", "baseline", "control") else key] = value
    # A key the attack adds without a field to hold it fails here (TypeError) rather than being dropped.
    return _DETAILS_TYPES[out.attack](**fields)


def _output(out: AttackOutcome, per_record: np.ndarray | None) -> MetricOutput:
    return MetricOutput(
        risk=float(out.risk),
        raw=float(out.raw),
        per_record=per_record,
        details=_details(out),
        params=dict(out.params),
        interval=(float(out.interval[0]), float(out.interval[1])),
        warnings=list(out.warnings),
    )


def _columns_param(value: Any, allowed: list[str], what: str) -> list[str]:
    if not isinstance(value, (str, list, tuple)):
        raise NotApplicable(f"{what} must be a list of column names; got {value!r}.")
    cols = [value] if isinstance(value, str) else list(value)
    unknown = [c for c in cols if c not in allowed]
    if unknown:
        raise NotApplicable(f"{what} names column(s) {', '.join(map(repr, unknown))} that are not analysed.")
    return cols


def _singling_out(ctx: MetricContext, mode: str) -> MetricOutput:
    schema = ctx.schema
    columns = schema.columns
    if ctx.params.get("columns") is not None:
        columns = _columns_param(ctx.params["columns"], schema.columns, "columns")
    types = {c: schema.types[c] for c in columns}
    out = singling_out(
        ctx.real,
        ctx.synthetic,
        ctx.holdout,
        column_types=types,
        mode=mode,
        columns=columns,
        n_attacks=int(ctx.params.get("n_attacks", 500)),
        n_cols=int(ctx.params.get("n_cols", 3)),
        max_attempts=int(ctx.params.get("max_attempts", DEFAULT_MAX_ATTEMPTS)),
        seed=ctx.seed,
        confidence=CONFIDENCE,
    )
    per_record = np.zeros(len(ctx.real))
    for q in out.details.get("queries", []):
        if q["real_success"] and q["real_row"] is not None:
            per_record[int(q["real_row"])] = 1.0
    return _output(out, per_record)


def compute_singling_out_univariate(ctx: MetricContext) -> MetricOutput:
    """Univariate singling out (metrics.md §3); see :mod:`privcore.metrics.attacks.singling_out`.

    Notes
    -----
    ``singling_out_univariate``, ``singling_out_multivariate``, ``linkability`` and ``inference`` wrap the pure
    functions of this package. For each, ``risk`` is the residual risk ``(main − control)/(1 − control)``
    clipped to [0, 1] with the holdout as control, or without a holdout the main attack's Wilson rate;
    ``raw`` is the main attack's success rate (Wilson centre at 95 %); ``interval`` is the 95 % interval
    of ``risk``. ``details`` is a :class:`~privcore.metrics.details.SinglingOutAttack`,
    :class:`~privcore.metrics.details.LinkabilityAttack` or :class:`~privcore.metrics.details.InferenceAttack`: ``main``,
    ``baseline``, ``control`` and ``residual`` as :class:`~privcore.metrics.details.Rate` (what the dashboard's interval
    plot reads) and the attack's own details (queries, links, guesses; its per-attack records ``main``,
    ``control``, ``baseline`` as ``attack_main``, ``attack_control``, ``attack_baseline``). ``per_record`` is
    indexed by real record: 1 if the attack succeeded on that record, 0 if it failed, NaN if the record was not
    attacked (singling out marks the records singled out by a successful predicate and 0 elsewhere).
    """
    return _singling_out(ctx, "univariate")


def compute_singling_out_multivariate(ctx: MetricContext) -> MetricOutput:
    """Multivariate singling out (metrics.md §3); see :mod:`privcore.metrics.attacks.singling_out`."""
    return _singling_out(ctx, "multivariate")


def default_aux_split(key_columns: list[str]) -> tuple[list[str], list[str]]:
    """The default two auxiliary column sets: key columns dealt alternately (1st, 3rd… / 2nd, 4th…)."""
    return list(key_columns[0::2]), list(key_columns[1::2])


def _per_target(n: int, targets: list, success: list) -> np.ndarray:
    per_record = np.full(n, np.nan)
    per_record[np.asarray(targets, dtype=np.int64)] = np.asarray(success, dtype=float)
    return per_record


def compute_linkability(ctx: MetricContext) -> MetricOutput:
    """Linkability (metrics.md §3); see :mod:`privcore.metrics.attacks.linkability`."""
    schema = ctx.schema
    aux = ctx.params.get("aux_cols")  # when given, two disjoint non-empty column lists (check_value)
    if aux is None:
        keys = schema.key_columns
        if len(keys) < 2:
            raise NotApplicable("needs at least two key columns to split into the attacker's two tables.")
        aux = default_aux_split(keys)
    cols = list(dict.fromkeys(list(aux[0]) + list(aux[1])))
    out = linkability(
        ctx.real,
        ctx.synthetic,
        ctx.holdout,
        column_types={c: schema.types[c] for c in cols},
        aux_cols=(list(aux[0]), list(aux[1])),
        n_neighbors=int(ctx.params.get("n_neighbors", 1)),
        n_attacks=int(ctx.params.get("n_attacks", 500)),
        seed=ctx.seed,
        confidence=CONFIDENCE,
    )
    main = out.details["main"]
    return _output(out, _per_target(len(ctx.real), main["targets"], main["linked"]))


def compute_inference(ctx: MetricContext) -> MetricOutput:
    """Inference (metrics.md §3); see :mod:`privcore.metrics.attacks.inference`."""
    schema = ctx.schema
    secret = schema.sensitive
    if secret is None:
        raise NotApplicable("needs a sensitive column: choose one on the Configure page (--sensitive).")
    aux = ctx.params.get("aux_cols")  # when given, analysed columns other than the sensitive one (check_value)
    if aux is None:
        aux = [c for c in schema.key_columns if c != secret]
    if not aux:
        raise NotApplicable("needs at least one key column besides the sensitive one.")
    out = inference(
        ctx.real,
        ctx.synthetic,
        ctx.holdout,
        column_types={c: schema.types[c] for c in aux + [secret]},
        secret=secret,
        aux_cols=aux,
        n_attacks=int(ctx.params.get("n_attacks", 500)),
        tolerance=float(ctx.params.get("tolerance", DEFAULT_TOLERANCE)),
        seed=ctx.seed,
        confidence=CONFIDENCE,
    )
    main = out.details["main"]
    return _output(out, _per_target(len(ctx.real), main["targets"], main["success"]))


def _n_attacks(what: str) -> Param:
    return Param("n_attacks", "int", 500, "Number of attacks",
                 f"How many {what} the attacker tries; more give a narrower interval but take longer.",
                 minimum=1, maximum=100_000, step=50)


_COMMON = dict(
    family="Attack-based",
    per_record_unit="real",
    raw_meaning=RAW_MEANING,
    reference=REFERENCE,
    min_rows=2,
    baseline=False,
    interval_kind="wilson",
)

register(
    MetricInfo(
        id="singling_out_univariate",
        order=200,
        cost=(0.12, 1.0),
        name="Singling out (univariate, Anonymeter)",
        summary="Do values that occur once in the synthetic table point at exactly one real training person?",
        attacker_knows="Only the synthetic table. The attacker claims that a value seen once there (or a column's "
        "smallest or largest value) describes exactly one real person.",
        needs=frozenset(),
        explanation=Explanation(
            attack="Singling out (WP29): the attacker, holding only the synthetic table, writes one-column "
            "predicates such as \"native country is X\" that match exactly one synthetic record and claims each "
            "also matches exactly one real person in the training data.",
            steps=(
                "From the synthetic table, build up to 500 one-column predicates that match exactly one synthetic "
                "row: \"column = value\" for each value seen once, and \"column ≤ minimum\" or \"column ≥ maximum\" "
                "for numbers.",
                "Count the predicates that match exactly one record of the real training table (main attack) and of "
                "the holdout (control, corrected for the holdout's size), out of the 500 attacks asked for (as "
                "Anonymeter: a predicate that could not be built counts as failed); a baseline attacker tries 500 "
                "random one-column predicates.",
                _RISK_STEP,
            ),
            high="Values that are rare in the synthetic table single out real training people much more often than "
            "people who were not in the training data: rare real values were copied.",
            low="Rare synthetic values single out training people no more often than anyone else.",
            blind_spots="Looks at one column at a time, so combinations of ordinary values are the multivariate "
            "version's job; a success means a predicate matches one real person, not that the rest of that "
            "person's record leaked; a synthetic table with few rare values yields few predicates, and as the "
            "predicates that cannot be built count as failed attacks, the risk is then at most their share of 500 "
            "(an exact copy of a table with 50 rare values scores at most 0.1 here)."
            + _NO_HOLDOUT,
            note="",
        ),
        compute=compute_singling_out_univariate,
        details_type=SinglingOutAttack,
        params=(_n_attacks("one-column predicates"),),
        **_COMMON,
    )
)

register(
    MetricInfo(
        id="singling_out_multivariate",
        order=210,
        cost=(0.47, 1.2),
        name="Singling out (multivariate, Anonymeter)",
        summary="Do combinations of three attributes that fit exactly one synthetic record fit exactly one real "
        "training person?",
        attacker_knows="Only the synthetic table. The attacker claims that a combination of attribute values that "
        "fits exactly one synthetic record also fits exactly one real person.",
        needs=frozenset(),
        explanation=Explanation(
            attack="Singling out (WP29): the attacker, holding only the synthetic table, combines three attributes of "
            "a synthetic record (\"age ≥ 70 and occupation is X and country is Y\") into a predicate that fits that "
            "record alone, and claims it also fits exactly one real person in the training data.",
            steps=(
                "Draw random synthetic records and three random columns; turn the record's values into a predicate "
                "(a category must be equal; a number above the column's median gives \"≥ value\", otherwise "
                "\"≤ value\") and keep it if it fits exactly one synthetic row, until 500 are found.",
                "Count the predicates that fit exactly one record of the real training table (main attack) and of the "
                "holdout (control, corrected for the holdout's size), out of the 500 attacks asked for; a baseline "
                "attacker tries 500 predicates with random columns, values and comparisons.",
                _RISK_STEP,
            ),
            high="Combinations that describe one synthetic record describe one real training person much more often "
            "than one person outside the training data: individual records shine through.",
            low="Such combinations single out training people no more often than anyone else.",
            blind_spots="Only three columns per predicate and only predicates of this one shape are tried, so a "
            "low score is not a proof of safety; a success means a predicate fits one real person, not that their "
            "whole record leaked; if fewer than 500 predicates can be found (coarse or small data, or the cap of "
            "200,000 tries) the missing ones count as failed attacks, so the risk is at most the share found."
            + _NO_HOLDOUT,
            note="",
        ),
        compute=compute_singling_out_multivariate,
        details_type=SinglingOutAttack,
        params=(
            _n_attacks("predicates"),
            Param("n_cols", "int", 3, "Columns per predicate", "How many attributes each predicate combines.",
                  minimum=1, maximum=50, step=1),
            Param("max_attempts", "int", DEFAULT_MAX_ATTEMPTS, "Maximum attempts",
                  "At most this many synthetic records are tried when looking for predicates, so the attack "
                  "stops on coarse data.", minimum=1_000, maximum=100_000_000, step=10_000),
        ),
        **_COMMON,
    )
)

register(
    MetricInfo(
        id="linkability",
        order=220,
        cost=(0.33, 1.1),
        name="Linkability (Anonymeter)",
        summary="Can the synthetic table link two separate pieces of information about the same real person?",
        attacker_knows="Two tables about the real people that share no identifier, each holding part of the key "
        "columns, plus the synthetic table.",
        needs=frozenset(),
        explanation=Explanation(
            attack="Linkability (WP29): the attacker holds two tables about the same people without a common "
            "identifier (one with some key columns, one with the others) and uses the synthetic table as a bridge: "
            "two records are linked when their nearest synthetic records coincide.",
            steps=(
                "Pick up to 500 real training records and split each into the two column sets.",
                "For each half, find the k closest synthetic records (k = 1 by default; distance: numerical "
                "differences scaled by the column's range plus 1 for each differing category); when several are "
                "exactly as close, the k are picked at random, and the record counts the chance that the two "
                "groups share a synthetic record.",
                "The same is done for holdout records (control), and a baseline attacker picks two groups of k "
                "synthetic records at random.",
                _RISK_STEP,
            ),
            high="Synthetic records reconnect the separate pieces of real training people much more often than "
            "those of people outside the training data: the synthetic rows carry real individuals' combinations.",
            low="The synthetic table links training people's pieces no more often than anyone else's.",
            blind_spots="The result depends on how the columns are split: if each half alone is shared by many "
            "people, holdout records link almost as often as training records and the residual risk stays low "
            "even for a copy; a success means the two halves meet at a synthetic record, not that the attacker "
            "knows it is right." + _NO_HOLDOUT,
            note="Choice: without a user-chosen split, the key columns are dealt alternately into the two sets "
            "(1st, 3rd, 5th… and 2nd, 4th…). Choice: when several synthetic records are as close as the k-th, "
            "each record counts its chance of being linked over every way of breaking the tie (Anonymeter breaks "
            "such ties by sort order, one arbitrary way), so that repeated rows add no luck to the comparison "
            "with the holdout.",
        ),
        compute=compute_linkability,
        details_type=LinkabilityAttack,
        params=(
            _n_attacks("real records"),
            Param("n_neighbors", "int", 1, "Neighbours k",
                  "How many nearest synthetic records each half of a record is matched to; a larger k links more "
                  "easily.", minimum=1, maximum=100, step=1),
            Param("aux_cols", "column_pair", None, "Auxiliary column sets",
                  "The columns of the attacker's two tables (two disjoint, non-empty sets).",
                  rule="the key columns dealt alternately into two sets (1st, 3rd… and 2nd, 4th…)",
                  derive=lambda schema: [list(part) for part in default_aux_split(schema.key_columns)]),
        ),
        **_COMMON,
    )
)

register(
    MetricInfo(
        id="inference",
        order=230,
        cost=(0.14, 1.2),
        name="Attribute inference (Anonymeter)",
        summary="Can an attacker who knows a person's key attributes guess their sensitive value from the "
        "closest synthetic record?",
        attacker_knows="A target's key columns (quasi-identifiers), plus the synthetic table; not the sensitive "
        "value.",
        needs=frozenset({"sensitive"}),
        explanation=Explanation(
            attack="Inference (WP29): the attacker knows a target's key columns and wants the sensitive value; they "
            "find the synthetic record closest to the target on the key columns and read off its sensitive value.",
            steps=(
                "Pick up to 500 real training records as targets; the attacker sees only their key columns.",
                "For each target take the closest synthetic record on the key columns (numerical differences scaled "
                "by the column's range plus 1 for each differing category) and guess its sensitive value; a number "
                "counts as guessed when it is within 5 % of the true value. When several records are equally close, "
                "the target counts the share of them whose value would be a right guess.",
                "Do the same for holdout records (control); a baseline attacker guesses the sensitive value of a "
                "random synthetic record.",
                _RISK_STEP,
            ),
            high="The synthetic table reveals training people's sensitive values much more often than it lets the "
            "attacker guess those of people outside the training data.",
            low="Guesses about training people are no better than guesses about anyone else: whatever can be "
            "inferred is a pattern of the population, not a leak about individuals.",
            blind_spots="A single nearest record is a simple guesser, so a stronger model may infer more; when the "
            "sensitive value follows from the key columns for everyone, the main rate is high for the holdout as "
            "well and only the residual risk tells the difference." + _NO_HOLDOUT,
            note="Choice: a numerical sensitive value counts as guessed when |guess − secret| ≤ 0.05·|secret| "
            "(relative to the true value), where Anonymeter divides by the guess, which would count every negative "
            "guess as correct.",
        ),
        compute=compute_inference,
        details_type=InferenceAttack,
        params=(
            _n_attacks("real records"),
            Param("aux_cols", "columns", None, "Columns the attacker knows",
                  "The attributes the attacker knows about each person and uses to find the closest synthetic "
                  "record.", rule="the key columns except the sensitive one", exclude_sensitive=True,
                  derive=lambda schema: [c for c in schema.key_columns if c != schema.sensitive]),
            Param("tolerance", "float", DEFAULT_TOLERANCE, "Relative tolerance",
                  "A guessed numerical sensitive value counts as correct when it is within this share of the true "
                  "value (0.05 = within 5 %); unused for a categorical sensitive column.",
                  minimum=0.0, step=0.01),
        ),
        **_COMMON,
    )
)
