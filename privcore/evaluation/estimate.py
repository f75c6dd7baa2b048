"""How long an evaluation will take, estimated from the tables' sizes before anything runs.

The Metrics page states it next to the chosen metrics, so that a user who keeps the default choice (with a
holdout: the membership attacks too, :func:`privcore.metrics.registry.quick_metrics`) knows what waits.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from privcore.evaluation.size_match import FIRST_SPREAD, REPEATS
from privcore.metrics import registry

__all__ = ["REFERENCE_ROWS", "estimate_seconds", "describe_estimate"]

#: Rows of real + synthetic + holdout at which every metric's ``cost`` (:class:`~privcore.metrics.registry.MetricInfo`)
#: was measured.
REFERENCE_ROWS = 9000

#: Shared work (encodings, the FAMD projection, the neighbour passes) done once for every metric that reads
#: neighbours: (seconds at :data:`REFERENCE_ROWS`, exponent).
SHARED_COST = (1.8, 1.2)

#: Preparing the tables and starting the work, once per synthetic table (seconds).
FIXED_SECONDS = 1.0

#: A metric without a calibration: a typical cost of its kind.
FAMILY_COST: dict[str, tuple[float, float]] = {
    "Classifier-based": (1.5, 1.3),
    "Membership inference": (1.5, 1.3),
}
DEFAULT_COST = (0.5, 1.2)


def _cost(metric_id: str) -> tuple[float, float]:
    try:
        info = registry.get(metric_id)
    except KeyError:
        return DEFAULT_COST
    if info.cost is not None:
        return info.cost
    return FAMILY_COST.get(info.family, (1.5, 1.3) if info.uses_classifier else DEFAULT_COST)


def _reads_neighbours(metric_id: str) -> bool:
    try:
        info = registry.get(metric_id)
    except KeyError:
        return True
    return bool(info.passes) or info.space is not None


def estimate_seconds(metric_ids: Iterable[str], real_rows: int, synthetic_rows: int | Sequence[int],
                     holdout_rows: int | None = None) -> float:
    """Estimated seconds to evaluate ``metric_ids`` on every synthetic table (see Notes for the calibration).

    Parameters
    ----------
    metric_ids : iterable of str
        The metrics to run.
    real_rows : int
        Rows of the real table.
    synthetic_rows : int or sequence of int
        Rows of the synthetic table, or of each synthetic table (each is evaluated in turn).
    holdout_rows : int, optional
        Rows of the holdout (None without one: no fresh-sample baseline and no membership attack).

    Notes
    -----
    The model is a calibration, not a guarantee: each metric's seconds were measured on the noisy-copy demo
    (Adult, 14 columns) with real, synthetic and holdout tables of 3,000 and 12,000 rows each, on two busy CPU
    cores, all the metrics of the quick preset and the membership battery run together:

    ======================  =====  =====  =====  =====
    rows in each table      1,000  3,000  6,000  12,000
    measured (s)              4.9    9.9   19.8    49.4
    this model (s)            3.8   10.9   23.3    51.6
    ======================  =====  =====  =====  =====

    The whole membership battery with ``mia_best`` alone took 7.6 s at 3,000 rows (the model says 8.8); the
    other twelve metrics together 4.7 s at 3,000 and 23.9 s at 12,000 rows (7.3 and 33.8).

    A metric's time grows as ``seconds × (size / 9,000) ** exponent``, where ``size`` is the rows of the real,
    the synthetic and the holdout table together (9,000 for the demo); the neighbour spaces and passes that
    metrics share are counted once. A metric not calibrated here (a new one) gets its family's typical cost.
    ``mia_best`` runs every attack of the battery it compares, so choosing it alone costs the battery.

    Examples
    --------
    >>> quick = ["crp", "cvp", "dcr"]
    >>> estimate_seconds(quick, 3000, 3000, 3000) < estimate_seconds(quick, 30000, 30000, 30000)
    True
    >>> estimate_seconds(quick, 3000, [3000, 3000], 3000) == 2 * estimate_seconds(quick, 3000, 3000, 3000)
    True
    """
    ids = list(dict.fromkeys(metric_ids))
    if "mia_best" in ids:  # it runs the whole battery itself
        ids += [m for m in registry.battery_ids() if m not in ids]
    sizes = [synthetic_rows] if isinstance(synthetic_rows, int) else list(synthetic_rows)
    total = 0.0
    for rows in sizes:
        scale = (real_rows + rows + (holdout_rows or 0)) / REFERENCE_ROWS
        seconds = FIXED_SECONDS + sum(a * scale ** b for a, b in map(_cost, ids))
        if holdout_rows:
            seconds += _size_match_seconds(ids, real_rows, rows, holdout_rows)
        if any(_reads_neighbours(m) for m in ids):
            seconds += SHARED_COST[0] * scale ** SHARED_COST[1]
        total += seconds
    return total


def _size_match_seconds(ids: list[str], real_rows: int, synthetic_rows: int, holdout_rows: int) -> float:
    """The extra runs of the size-matched metrics (:mod:`privcore.evaluation.size_match`).

    Each of their calibrated costs covers the metric and its baseline, two runs at the tables' sizes; the comparison
    adds ten runs at the smaller table's size where the sizes differ, and five to ten on the pooled tables where they
    are less than two to one (counted as five: most comparisons settle on the first five; the demo's quick run, 3,000
    rows per table, took 1.47x as long with the comparison as without, three interleaved pairs on two busy cores).
    """
    matched, larger = min(synthetic_rows, holdout_rows), max(synthetic_rows, holdout_rows)
    runs = (REPEATS if synthetic_rows != holdout_rows else 0) + (FIRST_SPREAD if larger < 2 * matched else 0)
    scale = (real_rows + 2 * matched) / REFERENCE_ROWS
    matched_ids = [m for m in ids if m in registry.metric_ids() and registry.get(m).size_matched]
    return sum(runs * a / 2 * scale ** b for a, b in map(_cost, matched_ids))


def describe_estimate(seconds: float, rows: Mapping[str, object]) -> str:
    """One sentence with the estimate and what it is based on, for the Metrics page.

    ``rows`` has ``"real"`` (int), ``"synthetic"`` (a list of ints, one per table) and ``"holdout"`` (int or None).

    Examples
    --------
    >>> describe_estimate(9.6, {"real": 3000, "synthetic": [3000], "holdout": 3000})
    'Estimated time: about 10 seconds (from the tables’ sizes: 3,000 real, 3,000 synthetic and 3,000 holdout rows; measured on two CPU cores, so it varies with the server and its load).'
    """
    synthetic = rows.get("synthetic") or []
    tables = (f"{synthetic[0]:,} synthetic" if len(synthetic) == 1 else
              f"{len(synthetic)} synthetic tables of {', '.join(f'{n:,}' for n in synthetic)}")
    holdout = rows.get("holdout")
    parts = [f"{rows['real']:,} real", tables] + ([f"{holdout:,} holdout"] if holdout is not None else [])
    listed = ", ".join(parts[:-1]) + " and " + parts[-1]
    return (f"Estimated time: {_duration(seconds)} (from the tables’ sizes: {listed} rows; measured on two "
            "CPU cores, so it varies with the server and its load).")


def duration_words(seconds: float) -> str:
    """An estimated duration in words, as :func:`describe_estimate` writes it ("about 10 seconds")."""
    return _duration(seconds)


def _duration(seconds: float) -> str:
    """A rounded duration: "under 5 seconds", "about 10 seconds", "about 3 minutes".

    >>> _duration(2), _duration(9.6), _duration(44), _duration(130), _duration(7300)
    ('under 5 seconds', 'about 10 seconds', 'about 45 seconds', 'about 2 minutes', 'about 2 hours')
    """
    if seconds < 5:
        return "under 5 seconds"
    if seconds < 60:
        return f"about {int(5 * round(seconds / 5))} seconds"
    if seconds < 3600:
        minutes = round(seconds / 60)
        return f"about {minutes} minute{'s' if minutes != 1 else ''}"
    hours = round(seconds / 3600)
    return f"about {hours} hour{'s' if hours != 1 else ''}"
