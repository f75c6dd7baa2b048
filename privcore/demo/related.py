"""A built-in release of related tables: players and their seasons, fresh or leaking whole careers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privcore.data import Relation

#: The relation of the demo: each season names its player.
RELATION = Relation("seasons", "player_id", "players", "id", order="year")
TEAMS = ("Bears", "Cubs", "Hawks", "Lions", "Owls", "Rams", "Sox", "Wolves")
#: Games played in a season, in four steps: a season on its own is one of few combinations.
GAMES = (40, 80, 120, 160)
#: Related demo scenarios' short titles.
RELATED_TITLES = {"people_fresh": "Players: a league of other real players",
                  "people_leak": "Players: every career copied under a new player"}
#: Related demo scenarios and what each shows.
RELATED_SCENARIOS = {
    "people_fresh": "Synthetic players are other real players of the same league: nothing leaks, per row or per person.",
    "people_leak": "Each synthetic player has a new birth year, country and build, but the whole career (every season's "
                   "year, team and games) of a training player: no season row is unusual on its own, the "
                   "sequence gives the player away.",
}


@dataclass(frozen=True)
class RelatedScenario:
    """Related tables for the three roles, by table name, and the relation that joins them."""

    name: str
    description: str
    real: dict
    synthetic: dict
    holdout: dict
    relation: Relation


def league(players: int, rng: np.random.Generator, first_id: int = 0, longest: int = 12) -> dict[str, pd.DataFrame]:
    """``players`` players and their careers: 1 to ``longest`` seasons from their early twenties, on few teams.

    Each season on its own is ordinary (a year, one of eight teams, games in four steps: about as many combinations
    as seasons); a career of several seasons is a combination that few players share.
    """
    ids = np.arange(first_id, first_id + players)
    born = rng.integers(1960, 1990, players)
    people = pd.DataFrame({"id": ids, "born": born, "country": rng.choice(["US", "DR", "VE", "CU", "JP"], players,
                                                                          p=[0.6, 0.15, 0.1, 0.08, 0.07]),
                           "height": rng.normal(185, 6, players).round(), "bats": rng.choice(["L", "R"], players)})
    rows = []
    for player, year0 in zip(ids, born + rng.integers(20, 25, players)):
        team = rng.choice(TEAMS)
        for k in range(int(rng.integers(1, longest + 1))):
            if rng.random() < 0.2:
                team = rng.choice(TEAMS)
            rows.append((player, int(year0 + k), team, int(rng.choice(GAMES, p=(0.15, 0.25, 0.35, 0.25)))))
    seasons = pd.DataFrame(rows, columns=["player_id", "year", "team", "games"])
    return {"players": people, "seasons": seasons}


def load_related(name: str, players: int = 600, seed: int = 0) -> RelatedScenario:
    """A related scenario of :data:`RELATED_SCENARIOS`: real (training), holdout and synthetic players and seasons.

    Examples
    --------
    >>> s = load_related("people_leak", players=50)
    >>> sorted(s.real), len(s.synthetic["players"]), s.relation.order
    (['players', 'seasons'], 50, 'year')
    """
    if name not in RELATED_SCENARIOS:
        raise KeyError(f"unknown related scenario {name!r}; choose from {', '.join(RELATED_SCENARIOS)}")
    rng = np.random.default_rng(seed)
    real = league(players, rng, 0)
    holdout = league(players, rng, 100_000)
    synthetic = league(players, rng, 200_000)
    if name == "people_leak":
        # The synthetic players keep their own names and builds, but each gets the career of one training player.
        donor = rng.permutation(real["players"]["id"].to_numpy())
        owner = dict(zip(donor, synthetic["players"]["id"].to_numpy()))
        seasons = real["seasons"].copy()
        seasons["player_id"] = seasons["player_id"].map(owner)
        synthetic = {"players": synthetic["players"], "seasons": seasons.sort_values(["player_id", "year"])
                     .reset_index(drop=True)}
    return RelatedScenario(name, RELATED_SCENARIOS[name], real, synthetic, holdout, RELATION)


def joined(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The tables joined into one row per season (each player's columns copied onto every season), without the ids."""
    merged = tables["seasons"].merge(tables["players"], left_on="player_id", right_on="id", how="left")
    return merged.drop(columns=["player_id", "id"])
