"""Per-evaluation shared state: encoded tables and neighbour passes computed once, read by every metric."""

from __future__ import annotations

import functools
import pickle
import threading
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from privcore.base import resolve_workers
from privcore.data import PreparedData, Schema
from privcore.engine.encoding import EuclideanSpace, FAMDProjection
from privcore.engine.gpu import check_device
from privcore.engine.neighbors import DEFAULT_CHUNK_ELEMENTS, Neighbours, PairExtremes, nearest_two
from privcore.engine.neighbors_both_ways import applicable as both_ways_applicable
from privcore.engine.neighbors_both_ways import nearest_two_both_ways
from privcore.engine.neighbors_distinct import DistinctRows, distinct_rows, expand_within
from privcore.engine.neighbors_distinct import expand as expand_distinct
from privcore.engine.neighbors_distinct import pays as distinct_pays
from privcore.engine.subset_passes import POOL, SubsetPasses
from privcore.engine.tolerance import TieTolerance, d_max_bounds

SpaceFactory = Callable[[PreparedData], Any]
#: Subsample encodings kept at once (:meth:`SharedComputation.encoded`).
RECENT_SUBSAMPLES = 2


def _euclidean(data: PreparedData, columns: list[str] | None = None) -> EuclideanSpace:
    others = [df for df in (data.synthetic, data.holdout) if df is not None]
    return EuclideanSpace(data.real, others, data.schema, columns=columns)


def _key_space(data: PreparedData) -> EuclideanSpace:
    return _euclidean(data, data.schema.key_columns)


def _famd(data: PreparedData, famd_components: int | None) -> FAMDProjection:
    return FAMDProjection(data.real, data.schema, famd_components)


def _filled_once(found: Callable[..., Any] | None = None) -> Callable[[Callable], Callable]:
    """Fill a cache under the evaluation's lock, so that one thread fills it and the others read the result.

    Two threads of one evaluation (a metric beside D-MLP, privcore.evaluation.background) may ask for the same pass:
    the second waits for the first and reads its result instead of computing it again. ``found(self, *args)`` returns
    the cached value, or None where it is not filled yet: a filled value is read without the lock (a dict lookup is
    atomic, and a value is stored only once it is complete), so that a thread reading what is there never waits for
    a pass another thread is computing. The lock is re-entrant because filling one cache fills others (a pass encodes
    its tables first); with one lock for these caches no two fills can wait for each other.
    """
    def decorate(method: Callable) -> Callable:
        @functools.wraps(method)
        def filled(self, *args, **kwargs):
            if found is not None:
                value = found(self, *args, **kwargs)
                if value is not None:
                    return value
            with self._lock:
                return method(self, *args, **kwargs)

        return filled

    return decorate


# Module-level functions, not lambdas, so that a finished evaluation can be pickled (see __getstate__).
#: Spaces every metric can ask for by name; metrics may also pass their own factory.
STANDARD_SPACES: dict[str, SpaceFactory] = {
    "E": _euclidean,
    "E_keys": _key_space,
}


class SharedComputation:
    """Caches shared by all metrics of one evaluation.

    Parameters
    ----------
    data : PreparedData
        The prepared tables.
    famd_components : int, optional
        ``k`` of Φk (default metrics.md §0).
    chunk_elements : int
        Memory bound of the neighbour engine.
    workers : int, optional
        Threads of the neighbour passes and parallel model fits (default
        :func:`privcore.base.cores.usable_cores`); results do not depend on it.
    progress : callable, optional
        ``progress(fraction, message)`` for neighbour passes.
    reuse : dict, optional
        Kept by the caller between evaluations on the same real table, holdout and schema (see
        :func:`privcore.evaluate`): passes not involving the synthetic table are stored and taken from it.
    cluster : distributed.Client, optional
        Run the neighbour passes on a Dask cluster (:mod:`privcore.engine.cluster`); results are identical.
    device : {"auto", "cpu", "gpu"}
        Where the neighbour passes' matrix products run (:mod:`privcore.engine.gpu`); results are identical.

    Notes
    -----
    :class:`SharedComputation` lives for one :func:`privcore.evaluate` call. It memoises each vector space,
    each encoded table and each neighbour pass, so that two metrics asking for the same neighbours (for
    example CVP, DVP, NSND and MDCR all reading real→synthetic in E) share one pass, and the §5 baseline
    (holdout in place of synthetic) reuses the real→real pass. :class:`MetricContext` is the view one
    metric gets: role names ("real", "synthetic", "holdout") are resolved to tables, and in a baseline
    context "synthetic" means the holdout.
    """

    def __init__(
        self,
        data: PreparedData,
        *,
        famd_components: int | None = None,
        chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
        workers: int | None = None,
        progress: Callable[[float, str], None] | None = None,
        reuse: dict | None = None,
        cluster: Any = None,
        device: str = "auto",
    ):
        self.data = data
        self.workers = resolve_workers(workers)
        #: A ``distributed.Client`` whose workers compute the neighbour passes (privcore.engine.cluster), or None.
        self.cluster = cluster
        #: "auto", "cpu" or "gpu": where the matrix passes run (privcore.engine.gpu.resolve_device, per pass).
        self.device = check_device(device)
        # Passes that do not involve the synthetic table (real→real, and with a holdout most of the §5
        # baseline) are the same for every synthetic table compared against the same real table: when the
        # caller keeps ``reuse`` between evaluations, they are computed once for all of them.
        self._reuse = reuse
        self.chunk_elements = chunk_elements
        self.progress = progress
        self._factories: dict[str, SpaceFactory] = dict(STANDARD_SPACES)
        self._factories["phi"] = functools.partial(_famd, famd_components=famd_components)
        self._spaces: dict[str, Any] = {}
        self._encoded: dict[tuple[str, str], np.ndarray] = {}
        #: The last few subsamples' encodings (:data:`RECENT_SUBSAMPLES`), oldest first.
        self._recent: dict[tuple[str, str], np.ndarray] = {}
        self._neighbours: dict[tuple[str, str, str], Neighbours] = {}
        self._extremes: dict[tuple[str, str, str], PairExtremes] = {}
        self._distinct: dict[tuple[str, str], DistinctRows] = {}
        #: Every neighbour pass actually computed, in order: (space, query role, reference role).
        self.passes: list[tuple[str, str, str]] = []
        #: The passes this evaluation's metrics declare (:func:`planned_passes`): a pass whose reverse is
        #: planned computes both directions from one block.
        self.planned: set[tuple[str, str, str]] = set()
        #: Pairs of tables (:func:`pair_key`) whose extremes this evaluation's metrics read only for the tie
        #: tolerance (:func:`privcore.evaluation.evaluate.tolerance_only_pairs`): their first pass leaves the
        #: farthest pair out, and :meth:`tie_tolerance` computes it only where its bounds do not decide.
        self.tolerance_only: set[tuple[str, str, str]] = set()
        #: Pairs whose exact extremes were asked for: a pass still to come computes them.
        self._extremes_wanted: set[tuple[str, str, str]] = set()
        #: Results that several metrics of this evaluation read (e.g. each membership attack's scores, which
        #: ``mia_best`` compares): computed by the first metric that asks, see :meth:`cached`.
        self._cache: dict[Any, Any] = {}
        #: Every chosen metric's parameters as this evaluation runs it (set by :func:`privcore.evaluate`), so
        #: that a metric reusing another one's results uses that metric's settings.
        self.metric_params: dict[str, dict[str, Any]] = {}
        #: Size-matched subsamples (:meth:`subsample`): role name → (table role it is drawn from, row positions).
        self._subsamples: dict[str, tuple[str, np.ndarray]] = {}
        #: Where the subsamples' passes are read from (whole tables' candidates and farthest rows).
        self._subset = SubsetPasses()
        self._new_locks()

    def __getstate__(self) -> dict[str, Any]:
        """What a pickled evaluation keeps: every computed space, table and pass.

        The dashboard computes in worker processes and sends reports back. Left out: the progress callback, the caller's
        ``reuse`` dict (other evaluations' passes) and factories that cannot be pickled (spaces not built yet by a
        metric's own factory are rebuilt on demand only from the standard ones).
        """
        state = self.__dict__.copy()
        for lock in ("_lock", "_key_locks", "_key_locks_guard"):
            del state[lock]  # a lock cannot be pickled; the copy gets its own
        state["_progress"] = None
        state["_reuse"] = None
        state["_distinct"] = {}  # recomputed from the encoded tables when needed
        state["_recent"] = {}
        state["_subset"] = SubsetPasses()
        state["cluster"] = None
        # Where it is unpickled there may be no GPU; results do not depend on the device.
        state["device"] = "auto"
        state["_factories"] = {name: f for name, f in self._factories.items() if _picklable(f)}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "progress" in state:  # pickled before progress became a property
            state["_progress"] = state.pop("progress")
        self.__dict__.update(state)
        self._new_locks()
        self.__dict__.setdefault("_progress_owner", None)
        self.__dict__.setdefault("device", "auto")  # pickled without a device attribute
        self.__dict__.setdefault("planned", set())
        self.__dict__.setdefault("tolerance_only", set())
        self.__dict__.setdefault("_extremes_wanted", set())
        self.__dict__.setdefault("_distinct", {})
        self.__dict__.setdefault("_subsamples", {})
        self.__dict__.setdefault("_recent", {})
        self.__dict__.setdefault("_subset", SubsetPasses())

    def _new_locks(self) -> None:
        """The locks the caches fill under (:func:`_filled_once`, :meth:`cached`): new ones, never pickled."""
        self._lock = threading.RLock()
        self._key_locks: dict[Any, threading.RLock] = {}  # one per key of cached()
        self._key_locks_guard = threading.Lock()

    @property
    def progress(self) -> Callable[[float, str], None] | None:
        """``progress(fraction, message)`` of the metric running on the thread that set it (None: no report)."""
        return self._progress

    @progress.setter
    def progress(self, report: Callable[[float, str], None] | None) -> None:
        self._progress, self._progress_owner = report, threading.get_ident()

    def _progress_here(self) -> Callable[[float, str], None] | None:
        """The progress callback where the calling thread set it, else None.

        A metric beside D-MLP (on the evaluation's background thread) runs its passes silently: the callback reports
        the main thread's metric, and its fractions would be read as that metric's.
        """
        return self._progress if self._progress_owner == threading.get_ident() else None

    @_filled_once(lambda self, name, factory=None: self._spaces.get(name))
    def space(self, name: str, factory: SpaceFactory | None = None) -> Any:
        """The fitted space ``name`` (built on first use)."""
        if name not in self._spaces:
            if factory is not None:
                self._factories.setdefault(name, factory)
            self._spaces[name] = self._factories[name](self.data)
        return self._spaces[name]

    @_filled_once()
    def subsample(self, role: str, size: int, repeat: int, seed: int) -> str:
        """The role name of a random subset of ``size`` rows of table ``role``, drawn for ``repeat`` with ``seed``.

        Drawn without replacement: the same rows for the same arguments, so that every metric compared at one size reads
        the same subsample and its neighbour passes are shared.

        Examples
        --------
        >>> import pandas as pd
        >>> from privcore.data.prepare import prepare
        >>> from privcore.data.schema import infer_schema
        >>> real = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]})
        >>> shared = SharedComputation(prepare(real, real.copy(), infer_schema(real)))
        >>> role = shared.subsample("synthetic", 2, repeat=0, seed=0)
        >>> role, len(shared.table(role)), role == shared.subsample("synthetic", 2, repeat=0, seed=0)
        ('synthetic@2#0s0', 2, True)
        """
        name = f"{role}@{int(size)}#{int(repeat)}s{int(seed)}"
        if name not in self._subsamples:
            rows = len(self.table(role))
            rng = np.random.default_rng([int(seed), int(repeat), int(size), 1 if role == "synthetic" else 2])
            self._subsamples[name] = (role, np.sort(rng.choice(rows, size=int(size), replace=False)))
        return name

    def subsample_of(self, role: str) -> tuple[str, np.ndarray] | None:
        """The table a subsample is drawn from and its row positions there (sorted), or None for a whole table."""
        return self._subsamples.get(role)

    def pool_rows(self, role: str) -> np.ndarray | None:
        """Positions in the pool (the synthetic table, then the holdout) of the rows of table ``role``.

        The synthetic table, the holdout and every subsample of them or of the pool are sets of pool rows, so a
        metric that can score any set of rows of one table reads them all from one computation on the pool. None
        without a holdout, or for a role outside the pool (the real table).

        Examples
        --------
        >>> import pandas as pd
        >>> from privcore.data.prepare import prepare
        >>> from privcore.data.schema import infer_schema
        >>> real = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
        >>> shared = SharedComputation(prepare(real, real.copy(), infer_schema(real), holdout=real + 1))
        >>> shared.pool_rows("holdout").tolist(), shared.pool_rows(shared.subsample(POOL, 2, 0, 0)).tolist()
        ([3, 4, 5], [3, 4])
        """
        if self.data.holdout is None:
            return None
        n_synthetic = len(self.data.synthetic)
        base, rows = self._subsamples.get(role, (role, None))
        start = {"synthetic": 0, "holdout": n_synthetic, POOL: 0}.get(base)
        if start is None:
            return None
        if rows is None:
            return start + np.arange(len(self.table(base)))
        return start + rows

    def known_pass(self, space: str, query: str, reference: str) -> bool:
        """Whether the pass ``query → reference`` in ``space`` is computed already."""
        return (space, query, reference) in self._neighbours

    def table(self, role: str) -> pd.DataFrame:
        """The table playing ``role``: ``"real"``, ``"synthetic"``, ``"holdout"``, ``"pool"`` or a subsample of one.

        ``"pool"`` is the synthetic table and the holdout one after the other, the population a fresh sample is drawn
        from when the synthetic table is one; a subsample is a :meth:`subsample`.
        """
        if role in self._subsamples:
            base, rows = self._subsamples[role]
            return self.table(base).iloc[rows].reset_index(drop=True)
        if role == POOL:
            return pd.concat([self.data.synthetic, self.data.table("holdout")], ignore_index=True)
        return self.data.table(role)

    @_filled_once(lambda self, space, role: self._encoded.get((space, role)))
    def encoded(self, space: str, role: str) -> np.ndarray:
        """Table ``role`` encoded in ``space`` (cached); a subsample, its rows of the whole table's encoding (a copy each time)."""
        key = (space, role)
        if role in self._subsamples:
            # Not all kept: the size-matched comparisons draw ten subsamples per size and space, whose copies held
            # 700 MB at 1,500 rows of a 5,000-value code; their passes are kept, and the last few copies, which the
            # metric comparing on a subsample reads several times.
            if key not in self._recent:
                self._recent[key] = _read_only(self._subsample_encoded(space, role))
                while len(self._recent) > RECENT_SUBSAMPLES:
                    self._recent.pop(next(iter(self._recent)))
            return self._recent[key]
        if key not in self._encoded:
            if role == POOL:
                self._encoded[key] = np.vstack([self.encoded(space, "synthetic"), self.encoded(space, "holdout")])
            else:
                self._encoded[key] = self.space(space).transform(self.data.table(role))
            _read_only(self._encoded[key])
        return self._encoded[key]

    def _subsample_encoded(self, space: str, role: str) -> np.ndarray:
        """A subsample's rows of its table's encoding (a pool's from the synthetic table and the holdout, unstacked)."""
        base, rows = self._subsamples[role]
        if base != POOL:
            return np.ascontiguousarray(self.encoded(space, base)[rows])
        synthetic, holdout = self.encoded(space, "synthetic"), self.encoded(space, "holdout")
        cut = int(np.searchsorted(rows, len(synthetic)))
        return np.vstack([synthetic[rows[:cut]], holdout[rows[cut:] - len(synthetic)]])

    @_filled_once(lambda self, space, query, reference: self._neighbours.get((space, query, reference)))
    def neighbours(self, space: str, query: str, reference: str) -> Neighbours:
        """Nearest two ``reference`` rows of each ``query`` row in ``space``, computed once per evaluation.

        Self is excluded by position when both roles are the same table.
        """
        key = (space, query, reference)
        if key in self._neighbours:
            return self._neighbours[key]
        pair = pair_key(space, query, reference)
        # A subsample of the synthetic table ("synthetic@...") is as specific to it as the table itself.
        shareable = self._reuse is not None and not any(r.split("@")[0] in ("synthetic", POOL)
                                                        for r in (query, reference))
        if shareable:
            reused_neighbours = self._reuse.setdefault("neighbours", {})
            reused_extremes = self._reuse.setdefault("extremes", {})
            if key in reused_neighbours:
                self._neighbours[key] = reused_neighbours[key]
                if pair in reused_extremes:
                    self._extremes.setdefault(pair, reused_extremes[pair])
                return self._neighbours[key]
        derived = self._subset.derive(self, space, query, reference)
        computed = {key: derived} if derived is not None else self._compute_pass(space, query, reference)
        for pass_key, result in computed.items():
            if derived is None:
                self.passes.append(pass_key)
            self._neighbours[pass_key] = result
            if shareable:
                reused_neighbours[pass_key] = result
        if shareable and pair in self._extremes:
            reused_extremes.setdefault(pair, self._extremes[pair])
        return self._neighbours[key]

    def _compute_pass(self, space: str, query: str, reference: str) -> dict[tuple[str, str, str], Neighbours]:
        """Run the pass ``query → reference`` and, where planned and worth it, the reverse from the same block.

        The reverse runs where it is planned and not known yet and the pass runs on CPUs (this machine's or a
        cluster's): identical results, one pass. Tables with repeated rows are searched once per distinct row
        (:mod:`privcore.engine.neighbors_distinct`).
        """
        key, reverse = (space, query, reference), (space, reference, query)
        pair = pair_key(space, query, reference)
        query_rows, reference_rows = self.distinct(space, query), self.distinct(space, reference)
        on_points = distinct_pays(query_rows, reference_rows)
        a = query_rows.points if on_points else self.encoded(space, query)
        b = reference_rows.points if on_points else self.encoded(space, reference)

        def rows(result: Neighbours, of: DistinctRows, against: DistinctRows) -> Neighbours:
            return expand_distinct(result, of, against) if on_points else result

        engine = dict(chunk_elements=self.chunk_elements, workers=self.workers, progress=self._progress_here(),
                      cluster=self.cluster)
        reused = (self._reuse or {}).get("neighbours", {})
        # The first pass between two tables fixes d_min/d_max, unless the metrics read them only for the tie
        # tolerance (then the pass may take the key groups' shortcut, see tie_tolerance). The reverse pass
        # neither changes nor recomputes them (in Φk the exact farthest pair costs as much as the k-d tree's
        # whole search).
        want_extremes = pair not in self._extremes and (pair not in self.tolerance_only
                                                        or pair in self._extremes_wanted)
        if query == reference:
            result, _ = nearest_two(a, a, exclude_self=True, label=f"{query}→{reference} in {space}",
                                    device=self.device, **engine)
            return {key: expand_within(result, query_rows) if on_points else result}
        device = "cpu" if self.cluster is not None else self.device
        if (reverse in self.planned and reverse not in self._neighbours and reverse not in reused
                and both_ways_applicable(len(a), len(b), a.shape[1], device)):
            forward, backward, extremes = nearest_two_both_ways(a, b, with_extremes=want_extremes,
                                                                label=f"{query}⇄{reference} in {space}", **engine)
            if extremes is not None:
                self._extremes.setdefault(pair, extremes)
            return {key: rows(forward, query_rows, reference_rows),
                    reverse: rows(backward, reference_rows, query_rows)}
        result, extremes = nearest_two(a, b, with_extremes=want_extremes, label=f"{query}→{reference} in {space}",
                                       device=self.device, **engine)
        if extremes is not None:
            self._extremes[pair] = extremes
        return {key: rows(result, query_rows, reference_rows)}

    @_filled_once(lambda self, space, role: self._distinct.get((space, role)))
    def distinct(self, space: str, role: str) -> DistinctRows:
        """The distinct rows of table ``role`` in ``space`` (cached but for a subsample; not kept when pickled)."""
        key = (space, role)
        if role in self._subsamples:
            return distinct_rows(self.encoded(space, role))  # not kept, as its encoding (see encoded)
        if key not in self._distinct:
            self._distinct[key] = distinct_rows(self.encoded(space, role))
        return self._distinct[key]

    def cached(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()`` the first time ``key`` is asked for in this evaluation, the stored value after.

        For results shared between metrics beyond the neighbour passes (for example the membership attacks'
        scores, which ``mia_best`` compares without running the attacks again). ``key`` must name everything
        the value depends on besides the tables of this evaluation (metric, parameters, seed).

        Each key fills under a lock of its own: a long computation (a membership attack's models) on one thread
        keeps another thread from computing the same value meanwhile, not from reading or filling any other.
        """
        try:
            return self._cache[key]
        except KeyError:
            pass
        with self._key_locks_guard:
            key_lock = self._key_locks.setdefault(key, threading.RLock())
        with key_lock:
            if key not in self._cache:
                self._cache[key] = compute()
            return self._cache[key]

    @property
    def reusing(self) -> bool:
        """Whether the caller keeps ``reuse`` between evaluations (the same real table, holdout and schema)."""
        return self._reuse is not None

    def reused(self, key: Any) -> Any:
        """A result stored with :meth:`keep_for_reuse` by an evaluation sharing ``reuse``, or None.

        That evaluation is an earlier one, or this one.
        """
        return (self._reuse or {}).get("results", {}).get(key)

    @_filled_once()
    def keep_for_reuse(self, key: Any, value: Any) -> None:
        """Keep ``value`` for the later evaluations that share ``reuse`` (nothing without ``reuse``).

        ``key`` must name everything the value depends on besides the real table, the holdout and the schema (the
        fingerprint ``reuse`` checks): for example a digest of the encoded arrays the value was computed on.
        """
        if self._reuse is not None:
            self._reuse.setdefault("results", {})[key] = value

    @_filled_once(lambda self, space, a, b: self._extremes.get(pair_key(space, a, b)))
    def extremes(self, space: str, a: str, b: str) -> PairExtremes:
        """d_min and d_max over all pairs of tables ``a`` × ``b`` in ``space``."""
        pair = pair_key(space, a, b)
        if pair not in self._extremes:
            self._extremes_wanted.add(pair)
            derived = self._subset.extremes(self, space, a, b)
            if derived is not None:
                self._extremes[pair] = derived
            elif (space, a, b) not in self._neighbours and (space, b, a) not in self._neighbours:
                self.neighbours(space, a, b)  # its first pass computes them (unless read from whole tables')
            if pair not in self._extremes:
                # Its passes left the farthest pair out (a tolerance-only pair, or a subsample's pass read from its
                # table's): one pass for the extremes.
                _, self._extremes[pair] = nearest_two(self.encoded(space, a), self.encoded(space, b),
                                                      with_extremes=True, label=f"{a}→{b} in {space}",
                                                      chunk_elements=self.chunk_elements, workers=self.workers,
                                                      progress=self._progress_here(), device=self.device)
        return self._extremes[pair]

    def tie_tolerance(self, space: str, a: str, b: str) -> TieTolerance:
        """The tie tolerance (metrics.md §0) of tables ``a`` and ``b`` in ``space``: exact or bounded.

        Exact where d_max is known, else bounded, the exact d_max computed only where the bounds decide a comparison
        differently (:mod:`privcore.engine.tolerance`).
        """
        pair = pair_key(space, a, b)
        if pair in self._extremes:
            return TieTolerance.known(self._extremes[pair].d_max)
        low, high = d_max_bounds(self.encoded(space, a), self.encoded(space, b))
        return TieTolerance(low, high, lambda: self.extremes(space, a, b).d_max)


def _read_only(array: Any) -> Any:
    """``array``, marked read-only: every metric of the evaluation reads the same encoding.

    The engine keeps what it derives from a read-only table (its non-zeros, :mod:`privcore.engine.sparse_split`)
    while the table lives.
    """
    if isinstance(array, np.ndarray):
        array.flags.writeable = False
    return array


def _picklable(value: Any) -> bool:
    try:
        pickle.dumps(value)
    except Exception:  # lambdas and closures of metrics: dropped with a pickled evaluation
        return False
    return True


def pair_key(space: str, a: str, b: str) -> tuple[str, str, str]:
    """Key of the pair extremes of tables ``a`` and ``b``: the same whichever is the query.

    Examples
    --------
    >>> pair_key("E", "synthetic", "real")
    ('E', 'real', 'synthetic')
    """
    return (space, *sorted((a, b)))


class MetricContext:
    """What one metric sees: the tables by role, the schema, its parameters, the shared caches.

    In a baseline context (metrics.md §5) the role "synthetic" resolves to the holdout table and no
    holdout or pairing is available.
    """

    def __init__(
        self,
        shared: SharedComputation,
        params: Mapping[str, Any],
        seed: int,
        *,
        is_baseline: bool = False,
        workers: int | None = None,
        more_threads: Callable[[], int] | None = None,
        synthetic_role: str | None = None,
        common_scale: bool = False,
    ):
        self.shared = shared
        self.params = dict(params)
        self.seed = int(seed)
        self.is_baseline = is_baseline
        self._workers = workers
        #: None, or (for a metric running beside the others) a callable that says how many threads the metric
        #: may use now: ``workers`` while the others run, the evaluation's once they are done.
        self.more_threads = more_threads
        #: The table that plays "synthetic" (None: the synthetic table, or the holdout in a baseline), e.g. a
        #: size-matched subsample (:meth:`SharedComputation.subsample`); such a context is a stand-in like a
        #: baseline: no holdout, no pairing.
        self.synthetic_role = synthetic_role
        #: Whether distances rescaled by the extremes of all pairs use the holdout's (a fresh-sample comparison on
        #: one scale), not those of the table playing synthetic.
        self.common_scale = common_scale
        if synthetic_role is not None:
            self.is_baseline = True

    def _role(self, role: str) -> str:
        if self.is_baseline:
            if role == "synthetic":
                return self.synthetic_role or "holdout"
            if role == "holdout":
                raise KeyError("the holdout plays the synthetic table in a baseline computation")
        return role

    @property
    def schema(self) -> Schema:
        """The schema of the evaluated tables."""
        return self.shared.data.schema

    @property
    def real(self) -> pd.DataFrame:
        """The real (training) table."""
        return self.shared.data.real

    @property
    def synthetic(self) -> pd.DataFrame:
        """The synthetic table (the holdout, or the table playing it, in a baseline context)."""
        return self.shared.table(self._role("synthetic"))

    @property
    def holdout(self) -> pd.DataFrame | None:
        """The holdout table; None without one and in a baseline context."""
        return None if self.is_baseline else self.shared.data.holdout

    @property
    def workers(self) -> int:
        """Threads this metric may use: :func:`privcore.evaluate`'s ``workers``, or fewer beside the others.

        See :mod:`privcore.evaluation.background`.
        """
        return self.shared.workers if self._workers is None else self._workers

    @property
    def cluster(self) -> Any:
        """The Dask client whose workers may run this metric's independent fits (None: this machine)."""
        return self.shared.cluster

    @property
    def pair_index(self) -> np.ndarray | None:
        """For each synthetic row, the position of its real twin (−1: none); None without pairing."""
        return None if self.is_baseline else self.shared.data.pair_index

    def space(self, name: str, factory: SpaceFactory | None = None) -> Any:
        """The shared fitted space ``name`` (see :meth:`SharedComputation.space`)."""
        return self.shared.space(name, factory)

    def role_of(self, role: str) -> str:
        """The table that plays ``role`` here: "synthetic" is the holdout in a baseline, or a size-matched subsample."""
        return self._role(role)

    def encoded(self, space: str, role: str) -> np.ndarray:
        """Table ``role`` encoded in ``space`` (see :meth:`SharedComputation.encoded`)."""
        return self.shared.encoded(space, self._role(role))

    def neighbours(self, space: str, query: str, reference: str) -> Neighbours:
        """Nearest two ``reference`` rows of each ``query`` row (see :meth:`SharedComputation.neighbours`)."""
        return self.shared.neighbours(space, self._role(query), self._role(reference))

    def extremes(self, space: str, a: str = "real", b: str = "synthetic") -> PairExtremes:
        """d_min and d_max over all pairs of tables ``a`` × ``b`` (see :meth:`SharedComputation.extremes`)."""
        return self.shared.extremes(space, self._role(a), self._role(b))

    def tie_tolerance(self, space: str, a: str = "real", b: str = "synthetic") -> TieTolerance:
        """The tie tolerance of tables ``a`` and ``b`` (see :meth:`SharedComputation.tie_tolerance`)."""
        return self.shared.tie_tolerance(space, self._role(a), self._role(b))
