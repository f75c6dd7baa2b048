"""The metric lab: which privacy metric notices which kind of leak, and from which leak level.

From a real table the lab builds synthetic tables on a *leak ladder* (:data:`privcore.generators.LADDER`,
one generator per leak type with a strength knob s ∈ [0, 1]), runs the chosen metrics on every table with
:func:`privcore.evaluate`, and reports per metric and leak type the response curve, the detection level,
the AUC against no leak, the monotonicity, the agreement between metrics, and one sentence per metric.

API
---
``run(real, schema=None, *, holdout=None, leaks=LADDER, levels=(0, 0.25, 0.5, 0.75, 1), seeds=3,
metrics=DEFAULT_METRICS, seed=0, params=None, margin=0.01, progress=None) -> LabResult``
    The generated ladder (:func:`~privcore.lab.runs.run`); settings are checked by
    :mod:`privcore.lab.settings`.
``run_ladder(real, {label: table or [tables]}, schema=None, *, holdout=None, metrics=..., seed=0, ...)``
    A supplied ladder, e.g. one generator at several ε (:func:`~privcore.lab.runs.run_ladder`).
``LabResult``
    ``runs``, ``detection``, ``agreement``, ``summary``, ``curves``, ``monotonicity``,
    ``not_applicable``, ``settings``; ``to_json()`` (schema: ``$defs/lab_report`` of
    ``python -m privcore schema``), ``frame()`` (the runs as a DataFrame).

How the tables are made
-----------------------
- **Three disjoint real tables** (:func:`~privcore.lab.runs.split_tables`): the *training* table the
  generators learn from (the metrics' real table), the metrics' *holdout*, and a *population* of fresh
  real rows that the ladder's unleaked rows come from. Without a holdout the real table is split 1/2,
  1/6, 1/3 (seeded); a given holdout is split 1/3 holdout, 2/3 population. The population is kept apart
  from the holdout because a synthetic table made of holdout rows would sit at distance 0 from the
  holdout and distort every holdout-based attack; it is twice the holdout so that each seed's fresh
  sample is a different subset of it. Every synthetic table has as many rows as the holdout, so its
  risks compare with the holdout's.
- **Seeds**: seed i (``seed + i``) draws the i-th synthetic table of every leak type and level and seeds
  its evaluation; for one seed the leak types share their fresh rows (common random numbers).
- **Reference = fresh samples**: per seed, the ``fresh_sample`` generator's table (population rows only)
  is evaluated too and listed as runs of leak ``"fresh_sample"`` at level 0. For ``partial_copy``,
  ``rare_records``, ``attribute_leak``, ``value_reuse`` and ``column_resample`` it *is* the level-0 table
  (evaluated once).
  ``noisy_copy`` at level 0 is training rows with one σ of noise and every category redrawn, and
  ``dp_marginals`` at level 0 is the ε = 0.1 model (ε = 0.1·1000^s, ∞ at s = 1): neither is a fresh
  sample, so every leak type is compared with the fresh-sample runs, not with its own level 0, and
  these two may be detected already at level 0 (the sentence then says "already at level 0").
- **Baselines**: a run's ``baseline`` is :func:`privcore.evaluate`'s fresh-sample baseline (the holdout
  in place of the synthetic table) for metrics that declare one; the attacks that use the holdout
  themselves (singling out, inference, the holdout tests, membership inference) have none there, and
  the lab gives them the risk of the same seed's fresh-sample table instead.
  ``settings["baseline_source"]`` says which. Excess risk = risk − baseline.
- **Shared passes**: one ``reuse`` dict serves every :func:`privcore.evaluate` call (the training table
  and holdout never change), so real→real and holdout passes are computed once for the whole lab; a
  table equal to one already evaluated with the same seed is not evaluated again.

Statistics (:mod:`privcore.lab.statistics`)
-------------------------------------------
- **Response curve** per metric and leak type: per level, the mean, sd, min and max risk over seeds, the
  mean, min and max excess risk, the AUC against the reference and whether the level is separated.
- **Detection level**: level k is *separated* when every seed's risk at k exceeds the largest reference
  risk by more than ``margin`` (0.01); the detection level is the smallest k from which every level of
  the grid is separated, None if the highest level is not. With 3 seeds a level without effect passes
  with probability at most 1/20 (exact one-sided Mann–Whitney test, U = 0). A leak not detected whose highest
  level still lifts the mean risk by more than the margin with an AUC ≥ 0.8 is said to raise the metric "but
  not beyond seed noise".
- **AUC** at level k: P(risk at k > reference risk), ties ½. **Monotonicity**: Spearman's ρ of risk
  against level over the leak type's runs. **Agreement**: Spearman's ρ between two metrics' risks over
  all runs of the chosen leak types.

Privacy–utility frontier (:mod:`privcore.lab.frontier`)
-------------------------------------------------------
Beside the privacy metrics, every table is measured for utility: column shapes and column-pair trends by default
(cheap: no model is trained; ``utility=False``, ``--no-utility``, leaves them out), and any utility measure named in
``metrics``, which joins the frontier rather than the detection statistics (a utility measure has no risk). Each
table becomes one point, as on the Results page: the verdict's strongest privacy evidence (an excess over a fresh
sample) against the utility kept relative to a fresh sample; ``LabResult.frontier`` holds the points and the JSON's
``"frontier"`` their mean, lowest and highest per leak type and level.

Errors (all :class:`privcore.base.errors.InputError`): :class:`UnknownLeakError`, :class:`LevelError` (level
outside [0, 1]), :class:`SeedsError` (zero seeds), :class:`UnknownLabMetricError`,
:class:`LabTableTooSmallError` (too few rows for the split), under :class:`LabError`.
"""

from privcore.lab import errors
from privcore.lab.errors import *  # noqa: F403 - the named errors, listed in errors.__all__
from privcore.lab.result import CurvePoint, LabResult, LabRun, lab_report_schema
from privcore.lab.runs import LabProgress, run, run_ladder, split_tables
from privcore.lab.settings import (
    DEFAULT_LEVELS,
    DEFAULT_METRICS,
    DEFAULT_SEEDS,
    MIN_PART_ROWS,
    REFERENCE,
    evaluations_needed,
)
from privcore.lab.statistics import DEFAULT_MARGIN

__all__ = [
    "run", "run_ladder", "LabProgress", "LabResult", "LabRun", "CurvePoint", "lab_report_schema", "split_tables",
    "evaluations_needed", "DEFAULT_LEVELS", "DEFAULT_METRICS", "DEFAULT_SEEDS", "DEFAULT_MARGIN", "MIN_PART_ROWS",
    "REFERENCE", *errors.__all__,
]
