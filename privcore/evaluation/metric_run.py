"""One metric's run in an evaluation: its score, the fresh-sample baseline and comparison, or a utility's reference."""

from __future__ import annotations

import math
import time
import traceback
from dataclasses import dataclass, replace

import numpy as np

from privcore.base import InputError, NotApplicable
from privcore.data import BINARY, CATEGORICAL, PreparedData
from privcore.engine import MetricContext, SharedComputation
from privcore.evaluation.size_match import PERMUTATION_DRAWS, permutation_match, size_match
from privcore.metrics import (
    FRESH_SAMPLE,
    MATCH_REPEATS,
    MetricOutput,
    MetricResult,
    NormalisedDistances,
    SizeMatch,
    UtilityScore,
    registry,
)


def unmet_need(info: registry.MetricInfo, data: PreparedData, is_baseline: bool = False) -> str | None:
    """The reason ``info`` cannot run on ``data``, or None when it can."""
    schema = data.schema
    if "sensitive" in info.needs or "categorical_sensitive" in info.needs:
        if schema.sensitive is None:
            return registry.NEEDS_REASONS["sensitive"]
    if "categorical_sensitive" in info.needs and schema.types.get(schema.sensitive) not in (CATEGORICAL, BINARY):
        return f"needs a categorical or binary sensitive column; '{schema.sensitive}' is numerical."
    if "holdout" in info.needs and (data.holdout is None or is_baseline):
        return registry.NEEDS_REASONS["holdout"]
    if "pairing" in info.needs and (data.pair_index is None or is_baseline):
        return registry.NEEDS_REASONS["pairing"]
    if "identifiers" in info.needs and not schema.checked_columns:
        return registry.NEEDS_REASONS["identifiers"]
    other = data.holdout if is_baseline else data.synthetic
    other_name = "holdout" if is_baseline else "synthetic"
    for name, df in (("real", data.real), (other_name, other)):
        if len(df) < info.min_rows:
            return f"needs at least {info.min_rows} rows in the {name} table, which has {len(df)}."
    return None


#: The comparison's reading of a metric that declares ``compared_by`` (MDCR), said on its card.
COMPARED_READING = ("each median of distances read as the mean of the middle 10 % of them (where distances repeat, "
                    "an ordinary median jumps from one value to the next; this one moves with their shares)")


@dataclass
class MetricRun:
    """What one metric's run reads and where its internal errors go.

    Attributes
    ----------
    info : MetricInfo
        The metric's declaration (:class:`privcore.metrics.registry.MetricInfo`).
    shared : SharedComputation
        The evaluation's tables, spaces and neighbour passes.
    params : dict
        The metric's parameters (defaults with the user's settings).
    seed : int
    strict : bool
        Re-raise an internal error instead of recording it (tests).
    errors : list of str
        The evaluation's internal errors, each with its traceback: a failed metric is recorded here and marked
        ``failed`` on its result, and the rest of the evaluation goes on.
    """

    info: registry.MetricInfo
    shared: SharedComputation
    params: dict
    seed: int
    strict: bool
    errors: list[str]

    def result(self, workers: int | None = None, more_threads=None) -> MetricResult:
        """The metric's result: its score with the fresh-sample baseline and comparison, or a utility's reference.

        ``workers`` and ``more_threads`` as for :class:`privcore.engine.MetricContext` (for a metric run beside
        the others on a thread of its own).
        """
        info = self.info
        result = self._measure(workers, more_threads)
        if registry.is_utility(info):
            # A utility measure (metrics.md §6): no risk; its score beside what a fresh sample of real people keeps.
            started = time.perf_counter() - result.seconds
            result.scale = "utility"
            if result.applicable:
                result.utility = self._utility_score(result)
            result.seconds = time.perf_counter() - started
        return result

    def _utility_score(self, result: MetricResult) -> UtilityScore | None:
        """A utility measure's score, its fresh-sample reference and their ratio (:class:`UtilityScore`).

        The reference is the measure's own where it computes one (the model utility: the same models trained on the
        real table), else the §5 baseline's score (the holdout in place of the synthetic table). Where the holdout and
        the synthetic table differ in size, the larger is cut to the smaller one's size in
        :data:`privcore.metrics.utility._base.MATCH_REPEATS` seeded random subsets (the mean of their scores is taken),
        so the ratio compares like-sized tables: binned shares and associations of a smaller table stray further from
        the real table's by chance alone.
        """
        info, shared, params, seed = self.info, self.shared, self.params, self.seed
        details = result.details
        if details is None or getattr(details, "utility", None) is None:
            return None
        score = float(details.utility)
        own = getattr(details, "reference", None)
        if own is not None:
            own = float(own)
            return UtilityScore(score, own, score / own if own > 0 else None,
                                reference_label="the same models trained on the real table (train on real, test on the "
                                                "holdout)")
        base = result.baseline_output
        if base is None or getattr(base.details, "utility", None) is None:
            return UtilityScore(score)
        reference, matched_score, matched_rows, repeats = float(base.details.utility), score, None, 0
        n_synthetic, n_holdout = len(shared.data.synthetic), len(shared.data.holdout)

        def utility_on(role: str) -> float:
            output = info.compute(MetricContext(shared, params, seed, synthetic_role=role))
            return float(output.details.utility)

        if n_synthetic != n_holdout:
            larger, size = ("holdout", n_synthetic) if n_holdout > n_synthetic else ("synthetic", n_holdout)
            try:
                values = [utility_on(shared.subsample(larger, size, repeat, seed)) for repeat in range(MATCH_REPEATS)]
            except NotApplicable:
                values = []
            except Exception as exc:
                if self.strict:
                    raise
                self.errors.append(f"{info.id} (size match): {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
                values = []
            if values:
                matched_rows, repeats = size, len(values)
                if larger == "holdout":
                    reference = float(np.mean(values))
                else:
                    matched_score = float(np.mean(values))
        relative = matched_score / reference if reference > 0 else None
        return UtilityScore(score, reference, relative, FRESH_SAMPLE, matched_rows, matched_score, repeats)

    def _measure(self, workers: int | None = None, more_threads=None) -> MetricResult:
        """The metric on the synthetic table, then its baseline and the comparison between them."""
        info, shared, params, seed = self.info, self.shared, self.params, self.seed
        started = time.perf_counter()
        reason = unmet_need(info, shared.data)
        if reason is not None:
            return MetricResult(id=info.id, applicable=False, reason=reason, per_record_unit=info.per_record_unit,
                                params=params, seconds=time.perf_counter() - started)
        try:
            output = info.compute(MetricContext(shared, params, seed, workers=workers, more_threads=more_threads))
            result = _to_result(info, output, params, started)  # its range check is a metric's bug too
        except NotApplicable as exc:
            return MetricResult(id=info.id, applicable=False, reason=str(exc), per_record_unit=info.per_record_unit,
                                params=params, seconds=time.perf_counter() - started)
        except InputError:
            raise
        except Exception as exc:  # a bug in one metric must not take the whole evaluation down
            if self.strict:
                raise
            self.errors.append(f"{info.id}: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
            return MetricResult(id=info.id, applicable=False, per_record_unit=info.per_record_unit, params=params,
                                reason=f"internal error while computing {info.id} ({type(exc).__name__}); "
                                       "please report it with your settings.",
                                seconds=time.perf_counter() - started, failed=True)
        if info.baseline and shared.data.holdout is not None:
            baseline = self._baseline()
            if baseline is not None:
                result.baseline = baseline.risk
                result.baseline_output = baseline
                if info.size_matched and result.risk is not None and baseline.risk is not None:
                    result.size_match = self._size_match(result)
                # Between tables of different sizes only the size-matched excess says something (SizeMatch).
                if result.risk is not None and baseline.risk >= result.risk - 1e-12 and (
                        result.size_match is None or not result.size_match.subsampled):
                    result.warnings.append(
                        "A fresh sample of real people (the holdout) scores at least as high: this score says "
                        "nothing about the generator itself."
                    )
        if info.null is not None and shared.data.holdout is not None and result.risk is not None:
            result.size_match = self._permutation(result)
        result.seconds = time.perf_counter() - started
        return result

    def _permutation(self, result: MetricResult) -> SizeMatch | None:
        """A members-against-non-members test against its random relabellings (:func:`permutation_match`).

        None where the relabellings cannot be computed (the verdict then does not weigh the test).
        """
        info, shared, params, seed = self.info, self.shared, self.params, self.seed
        rows = {"real": len(shared.data.real), "synthetic": len(shared.data.synthetic),
                "holdout": len(shared.data.holdout)}
        try:
            value, null = info.null(MetricContext(shared, params, seed), result, PERMUTATION_DRAWS, seed)
            return permutation_match(rows, value, null)
        except NotApplicable:
            return None
        except Exception as exc:
            if self.strict:
                raise
            self.errors.append(f"{info.id} (relabelled): {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
            return None

    def _size_match(self, result: MetricResult) -> SizeMatch | None:
        """``result`` and its baseline compared between like-sized tables (:mod:`privcore.evaluation.size_match`).

        None where a subsample cannot be scored (the excess is then the whole tables').

        A metric that divides distances by the extremes of all pairs of its table (CVP, DVP, NSND: details
        :class:`~privcore.metrics.details.NormalisedDistances`) is compared on one scale, the holdout's extremes (over its
        pairs with the real table): each table's own d_max is set by its farthest row, which on wide numerical tables
        moved a fresh sample's NSND by ±0.15 against the holdout's (16 fresh samples of 24 columns, 1,500 rows: 3 beyond
        the interval), a difference of scales, not of closeness. The extremes of both tables together would let one
        far-off synthetic row shrink every n(y) of both, and hide copies behind it. A metric whose score is a step
        function of its table compares the smooth score it declares (``MetricInfo.compared_by``: MDCR's median read as
        the mean of the middle 10 % of its distances).
        """
        info, shared, params, seed = self.info, self.shared, self.params, self.seed
        one_scale = isinstance(result.details, NormalisedDistances)
        score = info.compared_by or (lambda output: output.risk)

        def risk_on(role: str) -> float:
            output = info.compute(MetricContext(shared, params, seed, synthetic_role=role, common_scale=one_scale))
            if output.risk is None or not math.isfinite(float(score(output))):
                raise NotApplicable(f"{info.id} gave no risk on a size-matched subsample")
            return float(score(output))

        rows = {"real": len(shared.data.real), "synthetic": len(shared.data.synthetic),
                "holdout": len(shared.data.holdout)}
        try:
            risk, baseline = ((risk_on("synthetic"), risk_on("holdout")) if one_scale
                              else (score(result), score(result.baseline_output)))
            match = size_match(info.name, rows, risk, baseline, risk_on,
                               lambda role, size, repeat: shared.subsample(role, size, repeat, seed))
            if info.compared_by is not None:
                match = replace(match, reading=COMPARED_READING)
            return replace(match, one_scale=True) if one_scale else match
        except NotApplicable:
            return None
        except Exception as exc:
            if self.strict:
                raise
            self.errors.append(f"{info.id} (size match): {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
            return None

    def _baseline(self) -> MetricOutput | None:
        """The metric with the holdout in place of the synthetic table (metrics.md §5), or None."""
        info, shared, params, seed = self.info, self.shared, self.params, self.seed
        if unmet_need(info, shared.data, is_baseline=True) is not None:
            return None
        try:
            output = info.compute(MetricContext(shared, params, seed, is_baseline=True))
            if output.risk is not None and not (0.0 <= float(output.risk) <= 1.0):
                raise AssertionError(f"{info.id} baseline returned risk {output.risk} outside [0, 1]")
            return output
        except NotApplicable:
            return None
        except Exception as exc:
            if self.strict:
                raise
            self.errors.append(f"{info.id} (baseline): {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
            return None


def _to_result(info, output: MetricOutput, params, started) -> MetricResult:
    risk = None if output.risk is None else float(output.risk)
    if risk is not None and not (0.0 <= risk <= 1.0):
        raise AssertionError(f"{info.id} returned risk {risk} outside [0, 1]")
    if not isinstance(output.details, info.details_type):
        raise AssertionError(f"{info.id} returned details of type {type(output.details).__name__}, not the declared "
                             f"{info.details_type.__name__}")
    return MetricResult(
        id=info.id,
        applicable=True,
        risk=risk,
        raw=None if output.raw is None else float(output.raw),
        per_record=output.per_record,
        per_record_unit=info.per_record_unit,
        details=output.details,
        params={**params, **output.params},
        interval=output.interval,
        warnings=list(output.warnings),
        seconds=time.perf_counter() - started,
    )
