"""What both audit designs share.

The error, the budget's declared settings, the column queries, the ROC summary and the report's face. The targeted
(:mod:`privcore.audit.targeted`) and shared (:mod:`privcore.audit.shared`) designs import this module and never each
other.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, ClassVar

import numpy as np

from privcore.base import InputError, jsonable, roc_statistics
from privcore.data import MAX_SEED, Param, ParamError, check_value
from privcore.engine import nearest_k

#: False-positive rates at which the audit reports the true-positive rate (as JSON keys).
FPR_LEVELS = {"0": 0.0, "0.01": 0.01, "0.1": 0.1}
#: Nearest records behind the Achilles score and the distance features.
NEIGHBOURS = 5
#: Numbers match when they differ by at most this share of the column's range in the real table.
NUMERICAL_TOLERANCE = 0.05
#: Bootstrap resamples behind every interval of the audit.
BOOTSTRAP = 500


def nearest_distances(query: np.ndarray, reference: np.ndarray, k: int) -> np.ndarray:
    """Distances of each query row to its ``k`` nearest reference rows, nearest first (``inf`` where fewer).

    The engine's exact search (``privcore.engine.neighbors.nearest_k``): candidates from a chunked matrix
    product, distances recomputed as ``sqrt(Σ (q − r)²)``, so they do not depend on the BLAS. One thread: the
    audit already runs its models on every core.

    >>> nearest_distances(np.array([[0.0], [5.0]]), np.array([[1.0], [3.0], [4.0]]), 2).tolist()
    [[1.0, 3.0], [1.0, 2.0]]
    """
    if len(query) == 0:
        return np.empty((0, k))
    return nearest_k(query, reference, k, workers=1).distance


def nearest_others(encoded: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
    """Distances of each of ``rows`` to its ``k`` nearest *other* rows of ``encoded`` (``inf`` where fewer).

    A row's own entry is left out by position, so an identical row elsewhere still counts at distance 0.

    >>> nearest_others(np.array([[0.0], [1.0], [1.0], [3.0]]), np.array([0, 1, 3]), 2).tolist()
    [[1.0, 1.0], [0.0, 1.0], [2.0, 2.0]]
    """
    rows = np.asarray(rows, dtype=np.int64)
    if len(rows) == 0:
        return np.empty((0, k))
    found = nearest_k(encoded[rows], encoded, k + 1, workers=1)
    own = found.index == rows[:, None]
    # Without its own entry among the k + 1 (k identical rows ahead of it), the first k are the others.
    drop = np.where(own.any(axis=1), own.argmax(axis=1), k)
    keep = np.ones(found.index.shape, dtype=bool)
    keep[np.arange(len(rows)), drop] = False
    return found.distance[keep].reshape(len(rows), k)


class AuditError(InputError):
    """Audit settings that cannot work (too few rows, no models, a generator that never works)."""


def random_queries(n_columns: int, n_queries: int, rng: np.random.Generator) -> np.ndarray:
    """``n_queries`` random column subsets (rows of a 0/1 matrix), of sizes uniform in 1..n_columns."""
    out = np.zeros((n_queries, n_columns), dtype=np.float64)
    for q in range(n_queries):
        size = int(rng.integers(1, n_columns + 1))
        out[q, rng.choice(n_columns, size=size, replace=False)] = 1.0
    return out


def roc_summary(member_scores: np.ndarray, nonmember_scores: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """AUC and the largest TPR with FPR ≤ each level of :data:`FPR_LEVELS`, for rows of resamples at once.

    Parameters
    ----------
    member_scores, nonmember_scores : numpy.ndarray
        Shape (b, n_in) and (b, n_out): the attack's scores of models trained with and without the target.

    Returns
    -------
    auc : numpy.ndarray
        Shape (b,): P(member score > non-member score), ties counted ½.
    tpr_at : dict
        FPR level key → shape (b,) TPR: with k = ⌊level·n_out⌋ non-members allowed above the threshold,
        the share of members scoring above the (k+1)-th highest non-member.

    Examples
    --------
    >>> auc, tpr = roc_summary(np.array([[0.9, 0.6, 0.4]]), np.array([[0.5, 0.3, 0.6, 0.1]]))
    >>> float(auc[0]), float(tpr["0"][0])
    (0.7916666666666666, 0.3333333333333333)
    """
    members, non = np.atleast_2d(member_scores), np.atleast_2d(nonmember_scores)
    scores = np.hstack([members, non])
    # Ranks over every replicate at once keep each row's order, which is all the ROC depends on.
    _, ranks = np.unique(scores, return_inverse=True)
    ranks = ranks.reshape(scores.shape)
    labels = np.r_[np.ones(members.shape[1], dtype=np.int8), np.zeros(non.shape[1], dtype=np.int8)]
    stats = roc_statistics(ranks, np.broadcast_to(labels, scores.shape), int(ranks.max()) + 1,
                           tuple(FPR_LEVELS.values()))
    return stats.auc, {key: stats.tpr_at[level] for key, level in FPR_LEVELS.items()}


#: The owner named in a budget setting's message: "Models (audit.models) must be …".
OWNER = "audit"


def seed_param(help_text: str) -> Param:
    """The audit's seed, declared alike in both designs."""
    return Param("seed", "int", 0, "Seed", help_text, minimum=0, maximum=MAX_SEED)


class Budget:
    """The budget of an audit, every field declared once as a :class:`~privcore.data.params.Param` in ``PARAMS``.

    The dashboard builds its inputs from them; each is checked by :func:`~privcore.data.params.check_value`.

    A design's settings are a frozen dataclass deriving from this class; :meth:`check` refuses the first field
    out of its declared range with the declared sentence, then the design's rules between fields
    (:meth:`check_together`).
    """

    PARAMS: ClassVar[tuple[Param, ...]] = ()

    @classmethod
    def param(cls, name: str) -> Param:
        """The declaration of setting ``name``."""
        return next(p for p in cls.PARAMS if p.name == name)

    def declared(self, param: Param) -> Param:
        """``param`` as it applies to these settings (a design whose bound depends on another setting says so)."""
        return param

    def check(self):
        """Return these settings when every one is in range; raise :class:`AuditError` naming the first that is not."""
        for param in self.PARAMS:
            try:
                check_value(OWNER, self.declared(param), getattr(self, param.name))
            except ParamError as error:
                raise AuditError(str(error) + self.why(param.name)) from None
        self.check_together()
        return self

    def why(self, name: str) -> str:
        """What a setting's bound depends on, appended to its refusal ("" when fixed)."""
        return ""

    def check_together(self) -> None:
        """The design's rules between settings (none by default)."""


class AuditReportFace:
    """What both designs' reports share: how pages name the generator and the common part of the JSON contract.

    The contract is :mod:`privcore.audit.contract`. A report class sets ``design`` and ``per_person`` (its list of
    people).
    """

    design: ClassVar[str]
    per_person: ClassVar[str]

    @property
    def title(self) -> str:
        """How pages and figures name the generator: its label, else its name (a report from before labels)."""
        return self.label or self.generator

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of ``python -m privcore audit --json`` (:mod:`privcore.audit.contract`)."""
        return {
            "design": self.design,
            "generator": self.generator,
            "generator_label": self.title,
            "settings": jsonable(asdict(self.settings)),
            "splits": dict(self.splits),
            self.per_person: [person.to_json() for person in getattr(self, self.per_person)],
            "summary": jsonable(self.summary),
            "warnings": list(self.warnings),
            "seconds": round(self.seconds, 3),
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            **self.more_json(),
        }

    def more_json(self) -> dict[str, Any]:
        """The design's own entries after the common ones (none by default)."""
        return {}
