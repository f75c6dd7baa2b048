"""The reconstruction metrics: ``recon_nearest``, ``recon_learned`` and their honest best ``recon_best``."""

from __future__ import annotations

import numpy as np

from privcore.base import NotApplicable
from privcore.data import NUMERICAL, Param
from privcore.engine import MetricContext
from privcore.metrics.reconstruction._base import (
    CLOSENESS,
    RARITY_WEIGHTED,
    ColumnReconstruction,
    ExposedRecord,
    Reconstruction,
    Truth,
    advantage_interval,
    column_score,
    exposure,
    hits,
    secret_columns,
    table_score,
    truth_of,
)
from privcore.metrics.reconstruction.attacks import chain_order, learned_guess, nearest_guess
from privcore.metrics.results import MetricOutput

#: How many of the most exposed members the details list (with their true and reconstructed values).
EXPOSED_SHOWN = 10

N_BOOT = Param("n_boot", "int", 200, "Bootstrap replicates",
               "Resamples of members and non-members behind the advantage's interval; 0 skips it (faster).",
               minimum=0, maximum=20_000, step=100)
CONFIDENCE = Param("confidence", "float", 0.95, "Confidence level", "Coverage of the advantage's interval.",
                   minimum=0.5, maximum=0.999, step=0.005)
K = Param("k", "int", 1, "Nearest records", "How many nearest released records vote on each secret value (the "
          "most common value, or the mean of a number).", minimum=1, maximum=100, step=1)


def _setup(ctx: MetricContext) -> list[str]:
    if ctx.holdout is None:
        raise NotApplicable("it needs a holdout: the advantage compares the training members with people who were "
                            "not in the training data.")
    secret = secret_columns(ctx.schema)
    if not secret:
        raise NotApplicable("every analysed column is a key column, so nothing is left to reconstruct: choose fewer "
                            "key columns (what the attacker knows).")
    if not ctx.schema.key_columns:
        raise NotApplicable("there is no key column: the attacker would know nothing about the target.")
    return secret


def _truths(ctx: MetricContext, role: str, secret: list[str]) -> list[Truth]:
    table = {"real": ctx.real, "holdout": ctx.holdout}[role]
    out = []
    for column in secret:
        kind = ctx.schema.types[column]
        span = 0.0
        if kind == NUMERICAL:
            values = ctx.real[column].to_numpy(dtype=float)
            span = float(np.nanmax(values) - np.nanmin(values)) if len(values) else 0.0
        out.append(truth_of(table, column, kind, span))
    return out


def _guesses(ctx: MetricContext, attack: str, released: str, secret: list[str]) -> dict[str, dict]:
    """Target role → column → guesses of ``attack`` with ``released`` released."""
    targets = ["real", "holdout"] if released == "synthetic" else ["real"]
    if attack == "nearest":
        k = int(ctx.params.get("k", 1))
        return {role: nearest_guess(ctx, released, role, secret, k) for role in targets}
    return learned_guess(ctx, released, targets, secret)


class _Scored:
    """One attack's hits on members and non-members (synthetic released) and on members (holdout released)."""

    def __init__(self, ctx: MetricContext, attack: str, secret: list[str]):
        self.attack = attack
        self.members = _truths(ctx, "real", secret)
        self.nonmembers = _truths(ctx, "holdout", secret)
        released = _guesses(ctx, attack, "synthetic", secret)
        population = _guesses(ctx, attack, "holdout", secret)
        self.guess = released["real"]
        self.member_hits = [hits(t, released["real"][t.column]) for t in self.members]
        self.nonmember_hits = [hits(t, released["holdout"][t.column]) for t in self.nonmembers]
        self.population_hits = [hits(t, population["real"][t.column]) for t in self.members]

    def advantage(self, members: np.ndarray, nonmembers: np.ndarray) -> float:
        return (table_score(self.members, self.member_hits, members)
                - table_score(self.nonmembers, self.nonmember_hits, nonmembers))


def _exposed(scored: _Scored, beyond: np.ndarray, per_record: np.ndarray, rows: np.ndarray) -> list[ExposedRecord]:
    """The most exposed members among ``rows``: their columns reconstructed beyond the non-members' rate."""
    out = []
    for row in rows[np.argsort(-per_record[rows], kind="stable")][:EXPOSED_SHOWN]:
        if per_record[row] <= 0:
            break
        found = []
        for j, truth in enumerate(scored.members):
            if beyond[row, j] <= 0:
                continue
            share = None if truth.numerical else float(np.mean(truth.codes == truth.codes[row]))
            guess = scored.guess[truth.column][row]
            shown = f"{guess:.4g}" if truth.numerical else str(guess)
            value = f"{truth.values[row]:.4g}" if truth.numerical else str(truth.values[row])
            found.append((1.0 if share is None else share, truth.column, value, shown, share))
        found.sort(key=lambda f: f[0])  # rarest true value first
        out.append(ExposedRecord(int(row), float(per_record[row]), [f[1] for f in found], [f[2] for f in found],
                                 [f[3] for f in found], [f[4] for f in found]))
    return out


def _details(ctx: MetricContext, scored: _Scored, secret: list[str], members: np.ndarray, nonmembers: np.ndarray,
             order: list[str], choice: dict[str, float] | None) -> tuple[Reconstruction, np.ndarray]:
    n_boot, confidence = int(ctx.params.get("n_boot", 200)), float(ctx.params.get("confidence", 0.95))
    columns = []
    for j, (truth, other) in enumerate(zip(scored.members, scored.nonmembers)):
        m = column_score(truth, scored.member_hits[j], members)
        n = column_score(other, scored.nonmember_hits[j], nonmembers)
        interval = advantage_interval([truth], [scored.member_hits[j]], [other], [scored.nonmember_hits[j]],
                                      n_boot, ctx.seed + j + 1, confidence, members, nonmembers)
        columns.append(ColumnReconstruction(
            truth.column, CLOSENESS if truth.numerical else RARITY_WEIGHTED, m, n, m - n, interval,
            column_score(truth, scored.population_hits[j], members)))
    member_score = table_score(scored.members, scored.member_hits, members)
    nonmember_score = table_score(scored.nonmembers, scored.nonmember_hits, nonmembers)
    interval = advantage_interval(scored.members, scored.member_hits, scored.nonmembers, scored.nonmember_hits,
                                  n_boot, ctx.seed, confidence, members, nonmembers)
    beyond, per_record = exposure(scored.members, scored.member_hits, scored.nonmembers, scored.nonmember_hits)
    details = Reconstruction(
        attack=scored.attack, key=list(ctx.schema.key_columns), secret=secret, members=member_score,
        nonmembers=nonmember_score, advantage=member_score - nonmember_score, advantage_interval=interval,
        population=table_score(scored.members, scored.population_hits, members), columns=columns,
        exposed=_exposed(scored, beyond, per_record, members), n_members=len(members),
        n_nonmembers=len(nonmembers), order=order, choice=choice, beyond=beyond)
    return details, per_record


def _output(details: Reconstruction, per_record: np.ndarray, params: dict) -> MetricOutput:
    advantage = details.advantage
    return MetricOutput(risk=float(np.clip(advantage, 0.0, 1.0)), raw=float(advantage), per_record=per_record,
                        details=details, params=params,
                        interval=None if details.advantage_interval is None else
                        tuple(float(np.clip(v, 0.0, 1.0)) for v in details.advantage_interval))


def _everyone(ctx: MetricContext) -> tuple[np.ndarray, np.ndarray]:
    return np.arange(len(ctx.real)), np.arange(len(ctx.holdout))


def compute_nearest(ctx: MetricContext) -> MetricOutput:
    """Reconstruction from the nearest synthetic records on the key columns; risk = the advantage (at least 0).

    Notes
    -----
    Each attack is run three times: on the members (the real table) and on the non-members (the holdout) with the
    synthetic table released, and on the members with the holdout released (the population reference: what data about
    other real people lets anyone infer). The risk is the advantage, members' score − non-members' score (at least 0),
    with a bootstrap interval (the risk's interval is the advantage's, clipped to [0, 1] as the risk is; the details
    keep it signed); ``raw`` keeps the signed advantage.
    """
    secret = _setup(ctx)
    members, nonmembers = _everyone(ctx)
    details, per_record = _details(ctx, _Scored(ctx, "nearest", secret), secret, members, nonmembers, [], None)
    return _output(details, per_record, {"k": int(ctx.params.get("k", 1))})


def compute_learned(ctx: MetricContext) -> MetricOutput:
    """Reconstruction by chained LightGBM predictors trained on the synthetic table; risk = the advantage."""
    secret = _setup(ctx)
    members, nonmembers = _everyone(ctx)
    details, per_record = _details(ctx, _Scored(ctx, "learned", secret), secret, members, nonmembers,
                                   chain_order(ctx, "synthetic", secret), None)
    return _output(details, per_record, {})


def _halves(n: int, seed: int, salt: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.random.default_rng([seed, salt]).permutation(n)
    return np.sort(order[: n // 2]), np.sort(order[n // 2:])


def compute_best(ctx: MetricContext) -> MetricOutput:
    """The honest best of the two attacks: chosen by its advantage on one half, reported on the other half.

    The halves are of the members and non-members; the result is reported with its interval there.

    Notes
    -----
    ``recon_best`` chooses between the two attacks on one half of the targets (members and non-members halved at
    random) and reports the chosen one on the other half, as ``mia_best`` does: the larger of two advantages measured
    on the same records is biased upwards (the winner's curse).
    """
    secret = _setup(ctx)
    if len(ctx.real) < 4 or len(ctx.holdout) < 4:
        raise NotApplicable("the honest choice needs at least 4 members and 4 non-members (two on each half).")
    choose_m, report_m = _halves(len(ctx.real), ctx.seed, 1)
    choose_n, report_n = _halves(len(ctx.holdout), ctx.seed, 2)
    attacks = {name: _Scored(ctx, name, secret) for name in ("nearest", "learned")}
    choice = {name: float(s.advantage(choose_m, choose_n)) for name, s in attacks.items()}
    chosen = max(choice, key=lambda name: (np.nan_to_num(choice[name], nan=-2.0), name == "nearest"))
    order = chain_order(ctx, "synthetic", secret) if chosen == "learned" else []
    details, per_record = _details(ctx, attacks[chosen], secret, report_m, report_n, order, choice)
    return _output(details, per_record, {"k": int(ctx.params.get("k", 1))})
