"""PrivBayes: a Bayesian-network synthesizer (Zhang, Cormode, Procopiuc, Srivastava and Xiao 2017).

Without ε it is the non-private variant, DataSynthesizer's correlated-attribute mode ("Baynet"; Ping,
Stoyanovich and Howe 2017).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from privcore.data import MAX_SEED, Param
from privcore.generators.base import (
    BINS,
    BaseGenerator,
    PopulationMixin,
    category_codes,
    check_settings_of,
    is_integral,
    is_numerical,
    match_dtypes,
)

__all__ = ["PrivBayes", "Attribute", "mutual_information", "mi_sensitivity", "MAX_TABLE_CELLS"]

#: Largest conditional table (parent configurations × values) a candidate pair may need.
MAX_TABLE_CELLS = 1_000_000


@dataclass(frozen=True)
class Attribute:
    """One column as a discrete attribute: ``values`` (one code each) or ``edges`` (bins, + missing)."""

    column: str
    size: int
    values: np.ndarray | None = None
    edges: np.ndarray | None = None
    missing: bool = False
    integral: bool = False
    #: The last code counts training values outside a public domain and is never drawn.
    hidden: bool = False


def mutual_information(x: np.ndarray, parents: np.ndarray) -> float:
    """I(X; Π) in bits of two code vectors (``parents``: one code per joint parent configuration).

    >>> a = np.array([0, 0, 1, 1]); mutual_information(a, a), mutual_information(a, np.array([0, 1, 0, 1]))
    (1.0, 0.0)
    """
    if len(x) == 0:
        return 0.0
    _, xc = np.unique(x, return_inverse=True)
    _, p = np.unique(parents, return_inverse=True)
    return _mi(xc, int(xc.max()) + 1, p, int(p.max()) + 1)


def _mi(x: np.ndarray, n_x: int, p: np.ndarray, n_p: int) -> float:
    """:func:`mutual_information` of codes already in ``range(n_x)`` and ``range(n_p)``."""
    joint = np.bincount(x * n_p + p, minlength=n_x * n_p).reshape(n_x, n_p) / len(x)
    outer = joint.sum(axis=1, keepdims=True) * joint.sum(axis=0, keepdims=True)
    seen = joint > 0
    return float(max(np.sum(joint[seen] * np.log2(joint[seen] / outer[seen])), 0.0))


def mi_sensitivity(n: int, binary: bool) -> float:
    """The paper's sensitivity (bits) of I(X; Π) on n records, Lemma 4.1; 0 below two records.

    >>> round(mi_sensitivity(100, True), 5), round(mi_sensitivity(100, False), 5)
    (0.08079, 0.14173)
    """
    if n < 2:
        return 0.0
    if binary:
        return math.log2(n) / n + (n - 1) / n * math.log2(n / (n - 1))
    return 2 / n * math.log2((n + 1) / 2) + (n - 1) / n * math.log2((n + 1) / (n - 1))


class PrivBayes(PopulationMixin, BaseGenerator):
    """A Bayesian network of at most ``k`` parents per attribute, optionally ε-DP; see Notes.

    Parameters
    ----------
    k : int, default 2
        Most parents per attribute (0: independent marginals).
    bins : int, default 20
        Equal-width bins of a numerical column with more distinct values than this.
    epsilon : float or None, default None
        Total privacy budget; None (or ``math.inf``) learns without noise (DataSynthesizer's Baynet).
    beta : float, default 0.3
        Share of ε spent on the structure (the rest on the conditionals).
    seed : int, default 0
        Seed of the fit: the first attribute, the structure's random choices and the noise.
    population : DataFrame, optional
        Public rows (e.g. the holdout) whose values give an ε-DP fit its domain (see Notes); unused
        without ε.

    Attributes (after ``fit``)
    --------------------------
    attributes : list of Attribute
        One per column, in table order.
    network : list of (str, tuple of str)
        (column, its parents) in placement (topological) order.
    mi : dict
        I(X; Π) in bits of each placed pair with parents, ``{(column, parents): bits}``.
    conditionals : dict
        ``{column: array}`` of shape (parent configurations, values), rows summing to 1; a configuration's
        row index is its parents' codes in mixed radix (first parent most significant).
    counts : dict
        ``{column: array}``: the (noisy, clipped) counts each conditional is normalised from.

    Notes
    -----
    **Model.**

    Every column becomes a discrete attribute. Categorical and binary columns, and numerical columns with at
    most ``bins`` distinct values, keep their values (missing is a value). Other numerical columns get
    ``bins`` equal-width bins between the training min and max plus, if any value is missing, a missing bin;
    a sampled bin gives a value drawn uniformly within it (rounded and kept within the training range when
    the column holds whole numbers).

    Structure (GreedyBayes, the paper's Algorithm 4). The first attribute is drawn at random from the
    ``seed`` setting. While attributes are left, every candidate pair (X, Π) is scored, X an attribute not yet
    placed and Π a set of ``min(k, placed)`` placed attributes, by the mutual information I(X; Π) in bits of
    the training table; the best pair is placed (ties: the first in table order, parent sets in placement
    order). A candidate whose conditional table would exceed :data:`MAX_TABLE_CELLS` cells is skipped, and if
    none fits, parent sets one smaller are tried (down to none, which is always allowed).

    Conditionals. P(X | Π) from the counts of (Π, X) in the training table, one row per configuration of the
    parents (the full product of their domains). A configuration with no count (never seen in training, or
    all noise clipped away) falls back to the attribute's marginal from the same table, and to uniform if
    that is empty too. Rows are drawn attribute by attribute in placement order (ancestral sampling), all
    rows at once with numpy.

    **Differential privacy** (``epsilon`` set).

    As in the paper, neighbouring tables differ in one record's values and the number of records n is public.
    A share β (``beta``) of ε learns the structure, the rest (ε₂ = (1 − β)·ε) the conditionals.

    - Structure: each of the d − 1 choices after the first (free, random) attribute is one exponential
      mechanism over the candidate pairs with ε₁/(d − 1), ε₁ = β·ε: a pair is chosen with probability
      ∝ exp(ε₁·I / (2(d − 1)·Δ)), where Δ is the paper's sensitivity of I in bits (its Lemma 4.1):
      Δ = (1/n)·log₂ n + ((n − 1)/n)·log₂(n/(n − 1)) when X or Π has two values, and
      Δ = (2/n)·log₂((n + 1)/2) + ((n − 1)/n)·log₂((n + 1)/(n − 1)) otherwise. (Each candidate's score I/Δ
      has sensitivity at most 1, so one mechanism over candidates of both kinds is ε₁/(d − 1)-DP.) With
      ``k = 0`` there is no structure to learn and all of ε goes to the conditionals.
    - Conditionals (the paper's Algorithm 1): Laplace noise on the count table of each (Π, X) pair, whose L1
      sensitivity is 2 (one record moves one count down and one up). The first ``r = min(k, d − 1)``
      attributes have all earlier ones as parents, so their conditionals are marginals of the joint table of
      attribute r + 1, and only the d − r tables of attributes r + 1 … d are released, each with noise of scale
      2(d − r)/ε₂. (If the size limit above shrank an early parent set, every one of the d tables is
      released, with scale 2d/ε₂.) Negative noisy counts are clipped to 0 and each row renormalised.
    - The domain. The paper assumes a known (public) domain. Given a ``population`` (public rows about other
      people, e.g. the holdout), an ε-DP fit reads the domain from it and never from the training table:
      categories (and numerical columns with at most ``bins`` distinct values) are the population's values,
      plus one hidden cell that counts training values outside them and is never drawn (zeroing a cell of a
      noisy table is post-processing); other numerical columns get ``bins`` equal-width bins between the
      population's min and max (training values outside are clipped into the end bins), plus a missing bin
      when the column's dtype can hold one. Without a population (and always without ε, as in
      DataSynthesizer) the domain is read from the training table; the guarantee then covers the network and
      the conditionals given that domain, not the domain itself: a category seen once is revealed to exist,
      and the shared audit shows it (on 1,000 Adult records at ε = 1, native-country values held by one
      person appear in every output trained with them and never otherwise, an ε lower bound of 2.4).

    The noise, the structure's random choices and the first attribute come from the ``seed`` setting (default
    0) when the generator is fitted, not from ``sample``'s seed: one fit is one ε-DP release, and ``sample``
    only post-processes it. Refitting with the same ``seed`` repeats the same noise, so shadow models of an
    audit differ only by their training tables; give each release its own ``seed`` where that matters.
    """

    name = "privbayes"
    PARAMS = (Param("k", "int", 2, "Parents", "Most parents per column in the network (0: independent columns).",
                    minimum=0, maximum=10),
              BINS,
              Param("epsilon", "float", None, "Privacy budget ε", "Total ε of one fit; smaller is more private.",
                    minimum=1e-6, rule="not set: no noise (DataSynthesizer's Baynet)", infinite=True),
              Param("beta", "float", 0.3, "Structure share", "Share of ε spent on learning the network; the rest "
                    "noises its tables.", minimum=0.01, maximum=0.99),
              Param("seed", "int", 0, "Fit seed", "Seed of the first column, the DP structure choices and the noise.",
                    minimum=0, maximum=MAX_SEED))

    def __init__(self, *, k: int = 2, bins: int = 20, epsilon: float | None = None, beta: float = 0.3,
                 seed: int = 0, population: pd.DataFrame | None = None) -> None:
        super().__init__()
        self._set_population(population, False, "")
        checked = check_settings_of(self.name, self.PARAMS, {"k": k, "bins": bins, "beta": beta, "seed": seed,
                                                             "epsilon": epsilon})
        self.k, self.bins, self.beta, self.seed = checked["k"], checked["bins"], checked["beta"], checked["seed"]
        self.epsilon = None if checked["epsilon"] == math.inf else checked["epsilon"]  # ∞, like None: no noise

    def settings(self):
        """The generator's settings (for reports and ``repr``)."""
        return {"k": self.k, "bins": self.bins, "epsilon": self.epsilon, "beta": self.beta, "seed": self.seed}

    # -- fit --------------------------------------------------------------------------------------
    def _fit(self) -> None:
        super()._fit()
        # an ε-DP fit takes its domain from public rows when it has them (see the class Notes, "The domain")
        self._public = self._pop if self.epsilon is not None else None
        rng = np.random.default_rng(self.seed)
        self.attributes, codes = [], []
        for col in self.table.columns:
            attribute, code = self._discretise(col)
            self.attributes.append(attribute)
            codes.append(code)
        self._codes = np.column_stack(codes)
        self.network, self.mi = self._structure(rng)
        self.conditionals = self._conditionals(rng)

    def _discretise(self, col: str) -> tuple[Attribute, np.ndarray]:
        if self._public is not None:
            return self._discretise_public(col)
        x = self.table[col]
        if not is_numerical(self.types, col) or x.nunique() <= self.bins:
            code, values = category_codes(x)
            return Attribute(col, len(values), values=values), code
        v = x.to_numpy(dtype=float, na_value=np.nan)
        miss = np.isnan(v)
        edges = np.linspace(np.nanmin(v), np.nanmax(v), self.bins + 1)
        # bins [e_i, e_i+1), the last one closed; missing values take the extra last code
        code = np.where(miss, self.bins, np.clip(np.searchsorted(edges, v, side="right") - 1, 0, self.bins - 1))
        return Attribute(col, self.bins + int(miss.any()), edges=edges, missing=bool(miss.any()),
                         integral=is_integral(v)), code

    def _discretise_public(self, col: str) -> tuple[Attribute, np.ndarray]:
        """The column's attribute on the population's domain; training values only fill its counts."""
        x, pop = self.table[col], self._public[col]
        if not is_numerical(self.types, col) or pop.nunique() <= self.bins:
            _, values = category_codes(pop)
            keys = {_key(v): i for i, v in enumerate(values)}
            code = np.array([keys.get(_key(v), len(values)) for v in x.astype(object)], dtype=np.int64)
            return Attribute(col, len(values) + 1, values=np.append(values, [None]).astype(object),
                             hidden=True), code
        p = pop.to_numpy(dtype=float, na_value=np.nan)
        v = x.to_numpy(dtype=float, na_value=np.nan)
        # a missing bin where the dtype can hold a missing value: decided by the schema, not the data
        missing = not (pd.api.types.is_integer_dtype(x.dtype) or pd.api.types.is_bool_dtype(x.dtype)) \
            or bool(np.isnan(p).any())
        low, high = np.nanmin(p), np.nanmax(p)
        edges = np.linspace(low, high, self.bins + 1) if high > low else np.array([low, high])
        bins = len(edges) - 1
        code = np.clip(np.searchsorted(edges, v, side="right") - 1, 0, bins - 1)
        # a missing training value with no missing bin counts in the hidden cell
        code = np.where(np.isnan(v), bins, code)
        return Attribute(col, bins + 1, edges=edges, missing=missing, integral=is_integral(p),
                         hidden=not missing), code

    def _structure(self, rng: np.random.Generator) -> tuple[list[tuple[str, tuple[str, ...]]], dict]:
        cols = list(self.table.columns)
        d = len(cols)
        if self.k == 0 or d == 1:  # nothing to learn: independent marginals in table order
            return [(c, ()) for c in cols], {}
        sizes = [a.size for a in self.attributes]
        step_epsilon = None if self.epsilon is None else self.beta * self.epsilon / (d - 1)
        first = int(rng.integers(d))
        placed, network, mi = [first], [(cols[first], ())], {}
        # each parent set's configurations, renumbered 0 … seen − 1, computed once for every attribute
        parent_codes: dict[tuple[int, ...], tuple[np.ndarray, int]] = {}
        while len(placed) < d:
            candidates = self._candidates(placed, sizes)
            scores = np.empty(len(candidates))
            for i, (j, parents) in enumerate(candidates):
                if parents not in parent_codes:
                    _, inverse = np.unique(self._joint_code(parents, sizes), return_inverse=True)
                    parent_codes[parents] = (inverse, int(inverse.max()) + 1)
                scores[i] = _mi(self._codes[:, j], sizes[j], *parent_codes[parents])
            pick = self._choose(candidates, scores, sizes, step_epsilon, rng)
            j, parents = candidates[pick]
            placed.append(j)
            network.append((cols[j], tuple(cols[p] for p in parents)))
            mi[cols[j], tuple(cols[p] for p in parents)] = float(scores[pick])
        return network, mi

    def _candidates(self, placed: list[int], sizes: list[int]) -> list[tuple[int, tuple[int, ...]]]:
        left = [j for j in range(len(sizes)) if j not in placed]
        for width in range(min(self.k, len(placed)), -1, -1):
            # parent sets in placement order, so the first k attributes get all earlier ones as parents
            pairs = [(j, parents) for j in left for parents in combinations(placed, width)
                     if width == 0 or sizes[j] * math.prod(sizes[p] for p in parents) <= MAX_TABLE_CELLS]
            if pairs:
                return pairs
        return []  # pragma: no cover - width 0 always gives every attribute left

    def _choose(self, candidates, scores: np.ndarray, sizes: list[int], step_epsilon: float | None,
                rng: np.random.Generator) -> int:
        if step_epsilon is None:
            return int(np.argmax(scores))
        m = len(self.table)
        delta = np.array([mi_sensitivity(m, sizes[j] == 2 or math.prod(sizes[p] for p in parents) == 2)
                          for j, parents in candidates])
        if not np.all(delta > 0):  # fewer than two records: every pair equally likely
            return int(rng.integers(len(candidates)))
        logits = step_epsilon * scores / (2 * delta)
        weights = np.exp(logits - logits.max())
        return int(rng.choice(len(candidates), p=weights / weights.sum()))

    def _joint_code(self, parents: tuple[int, ...], sizes: list[int]) -> np.ndarray:
        """Mixed-radix index of each row's parent configuration (first parent most significant)."""
        code = np.zeros(len(self.table), dtype=np.int64)
        for p in parents:
            code = code * sizes[p] + self._codes[:, p]
        return code

    def _conditionals(self, rng: np.random.Generator) -> dict[str, np.ndarray]:
        cols = list(self.table.columns)
        index = {c: j for j, c in enumerate(cols)}
        sizes = [a.size for a in self.attributes]
        d = len(cols)
        r = min(self.k, d - 1)
        # the paper derives the first r conditionals from the joint of attribute r + 1 when every one of
        # them has all earlier attributes as parents; else each table is released on its own
        earlier = [tuple(c for c, _ in self.network[:i]) for i in range(d + 1)]
        derived = r > 0 and all(self.network[i][1] == earlier[i] for i in range(r + 1))
        released = range(r, d) if derived else range(d)
        if self.epsilon is None:
            scale = None
        else:  # without a structure to learn (k = 0, one column) the conditionals get all of ε
            epsilon2 = self.epsilon if self.k == 0 or d == 1 else (1 - self.beta) * self.epsilon
            scale = 2 * len(released) / epsilon2
        tables = {}
        for i in released:
            col, parents = self.network[i]
            pj = [index[p] for p in parents]
            counts = np.bincount(self._joint_code(tuple(pj), sizes) * sizes[index[col]] + self._codes[:, index[col]],
                                 minlength=math.prod(sizes[p] for p in pj) * sizes[index[col]]).astype(float)
            if scale is not None:
                counts = np.clip(counts + rng.laplace(0.0, scale, counts.size), 0.0, None)
            tables[col] = counts.reshape(-1, sizes[index[col]])
        if derived:  # joint over (X_1 … X_r, X_r+1) as an array with one axis per attribute
            joint = tables[self.network[r][0]].reshape([sizes[index[c]] for c in earlier[r + 1]])
            for i in range(r):
                marginal = joint.sum(axis=tuple(range(i + 1, r + 1)))
                tables[self.network[i][0]] = marginal.reshape(-1, sizes[index[self.network[i][0]]])
        self.counts = {col: tables[col] for col in cols}
        drawable = {}
        for attribute in self.attributes:
            table = tables[attribute.column]
            if attribute.hidden:  # post-processing: values outside the public domain are never drawn
                table = table.copy()
                table[:, -1] = 0.0
            drawable[attribute.column] = _normalise(table)
        return drawable

    # -- sample -----------------------------------------------------------------------------------
    def _draw(self, n, rng):
        index = {a.column: j for j, a in enumerate(self.attributes)}
        codes: dict[str, np.ndarray] = {}
        for col, parents in self.network:
            table = self.conditionals[col]
            config = np.zeros(n, dtype=np.int64)
            for p in parents:
                config = config * self.attributes[index[p]].size + codes[p]
            codes[col] = _draw_rows(table, config, rng)
        out = {a.column: _decode(a, codes[a.column], rng) for a in self.attributes}
        return match_dtypes(pd.DataFrame(out, columns=self.table.columns), self.table)


def _key(value) -> str:
    """A category's lookup key: missing values are one category (as :func:`category_codes` has it)."""
    return "\x00missing" if pd.isna(value) else str(value)


def _normalise(counts: np.ndarray) -> np.ndarray:
    """Rows of non-negative counts as probabilities; an empty row takes the table's marginal, or uniform."""
    marginal = counts.sum(axis=0)
    marginal = marginal / marginal.sum() if marginal.sum() > 0 else np.full(counts.shape[1], 1.0 / counts.shape[1])
    totals = counts.sum(axis=1, keepdims=True)
    return np.where(totals > 0, counts / np.where(totals > 0, totals, 1.0), marginal)


def _draw_rows(table: np.ndarray, config: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One value code per row from row ``config`` of ``table``, all rows in one ``searchsorted``.

    Row r's cumulative probabilities shifted by r lie in (r, r + 1], so the table flattened is increasing
    and the row's draw r + u lands in row r.
    """
    width = table.shape[1]
    cum = np.cumsum(table, axis=1)
    cum[:, -1] = 1.0  # rounding must not leave a gap at the row's end
    flat = (cum + np.arange(table.shape[0])[:, None]).ravel()
    pos = np.searchsorted(flat, config + rng.random(len(config)), side="right")
    return np.minimum(pos - config * width, width - 1)


def _decode(attribute: Attribute, code: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Values of the codes: the value itself, or a number drawn uniformly within the bin."""
    if attribute.values is not None:
        return attribute.values[code]
    edges, bins = attribute.edges, len(attribute.edges) - 1
    y = np.full(len(code), np.nan)
    ok = code < bins
    low, high = edges[code[ok]], edges[code[ok] + 1]
    y[ok] = low + rng.random(int(ok.sum())) * (high - low)
    if attribute.integral:
        y = np.round(np.clip(y, edges[0], edges[-1]))
    return y
