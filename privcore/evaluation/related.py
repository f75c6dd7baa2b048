"""Evaluate related tables per person: each person's rows summarised into one row, then the usual evaluation."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from privcore.data import (
    NUMERICAL,
    ROW_SET,
    Relation,
    Schema,
    check_related,
    infer_schema,
    people_table_name,
    person_table,
)
from privcore.evaluation.dataset import Dataset, EvaluationOptions
from privcore.evaluation.evaluate import evaluate, evaluate_tables
from privcore.evaluation.outcome import Report
from privcore.evaluation.sequences import sequence_fidelity

Tables = Mapping[str, pd.DataFrame]


def evaluate_related(real: Tables, synthetic: Tables, relations: Sequence[Relation], *,
                     holdout: Tables | None = None, metrics: str = "quick", sensitive: str | None = None,
                     seed: int = 0, names: Mapping[str, Mapping[str, str]] | None = None, **options: Any) -> Report:
    """Evaluate a release of related tables (people and their rows) at the level of the person.

    Parameters
    ----------
    real, synthetic : mapping of str to DataFrame
        The tables by name: one table of people and the child tables named by ``relations``.
    relations : sequence of Relation
        How each child table points to the people table (``visits.patient_id=patients.id``).
    holdout : mapping of str to DataFrame, optional
        The same tables for real people who were not used for training: the membership attacks and the
        fresh-sample references, per person.
    metrics : str
        As for :func:`privcore.evaluation.evaluate.evaluate` (default the quick preset).
    sensitive : str, optional
        A column of the person table (a people column, or a summary such as ``"visits.ward.most"``).
    seed : int
    names : mapping, optional
        Role → table name → file name, for the messages.
    **options
        Passed on to :func:`~privcore.evaluation.evaluate.evaluate` (``workers``, ``progress``, ``params``...).

    Returns
    -------
    Report
        The evaluation of the person tables (:func:`privcore.data.related.person_table`), with ``related`` saying
        which tables and relations it read, how many people and rows each role holds, how far the number of rows
        per person differs from the real one (``children_per_person``) and each child table's utility
        (:func:`table_utility`).

    Notes
    -----
    Evaluated row by row, a person with 40 rows counts 40 times, and what gives a person away is often the
    combination of their rows (a career of seasons), which no single row shows. Here each person is one record:
    membership, singling out, linkability and the distance metrics ask whether the synthetic *people* are closer to
    the training people than to other real people, and the verdict counts people.
    """
    return evaluate_people(Dataset(real, synthetic, holdout, relations=tuple(relations), sensitive=sensitive,
                                   names=dict(names or {})), metrics, EvaluationOptions(seed=seed, **options))


def evaluate_people(dataset: Dataset, metrics: str = "quick", options: EvaluationOptions | None = None) -> Report:
    """:func:`evaluate_related` on a :class:`~privcore.evaluation.dataset.Dataset` of related tables.

    Parameters
    ----------
    dataset : Dataset
        Every role's tables by name and their relations (``dataset.related``); a ``reference`` role's people join
        the membership attacks' reference as for one table.
    metrics : str
        As for :func:`~privcore.evaluation.evaluate.evaluate`.
    options : EvaluationOptions, optional
        How to run it; the seed defaults to 0.

    Returns
    -------
    Report
        As :func:`evaluate_related`'s.
    """
    options = options or EvaluationOptions()
    seed = 0 if options.seed is None else options.seed
    relations = list(dataset.relations)
    people, schema = person_tables(dataset, seed)
    real, real_people = dataset.real, people["real"]
    report = evaluate_tables(Dataset(real_people, people["synthetic"], people.get("holdout"), people.get("reference"),
                                     schema), metrics, replace(options, seed=seed))
    roles = {role: getattr(dataset, role) for role in ("real", "synthetic", "holdout")
             if getattr(dataset, role) is not None}  # the rows and utility lines: the release, real and fresh people
    parent = people_table_name(relations)
    report.related = {
        "people_table": parent,
        "relations": [{"child": r.child, "column": r.column, "parent": r.parent, "parent_column": r.parent_column,
                       "order": r.order} for r in relations],
        "rows": {role: {name: int(len(table)) for name, table in tables.items()} for role, tables in roles.items()},
        "children_per_person": {r.child: children_per_person(roles, r) for r in relations},
        "table_utility": table_utility(roles, relations, seed),
        "sequences": {r.child: sequence_fidelity(roles, r) for r in relations if r.order is not None},
        "text": (f"Evaluated per person: each of the {len(real[parent]):,} real people of {parent} is one record, "
                 f"with their rows of {', '.join(r.child for r in relations)} summarised (how many, their typical "
                 "values and, for an ordered table, the span and gaps); a person with many rows counts once."),
    }
    report.warnings.insert(0, report.related["text"])
    return report


def person_tables(dataset: Dataset, seed: int = 0) -> tuple[dict[str, pd.DataFrame], Schema]:
    """Each role's related tables checked and made one row per person, and the schema they are evaluated with.

    Parameters
    ----------
    dataset : Dataset
        Related tables (``dataset.related``), with ``sensitive`` naming a person-table column or None.
    seed : int
        The schema's seed.

    Returns
    -------
    people : dict
        Role → person table (:func:`privcore.data.related.person_table`, the real tables' kinds for every role).
    schema : Schema
        Inferred on the real people, with each child's whole set of rows (``child.set``) checked as an identifier and
        every summary of numbers numerical. The dashboard loads the same tables and settings.

    Raises
    ------
    InputError
        Where a role's tables do not join (:func:`privcore.data.related.check_related`: the role, table and column).
    """
    relations, names = list(dataset.relations), dataset.names
    roles = {role: getattr(dataset, role) for role in ("real", "synthetic", "holdout", "reference")
             if getattr(dataset, role) is not None}
    for role, tables in roles.items():
        check_related(tables, relations, role, names.get(role))
    real_people, kinds = person_table(roles["real"], relations)
    people = {"real": real_people}
    for role in roles:
        if role != "real":
            people[role], _ = person_table(roles[role], relations, kinds)
    sensitive = dataset.sensitive
    inferred = infer_schema(real_people, sensitive=sensitive) if sensitive else infer_schema(real_people)
    # Each child table's whole set of rows per person is checked as an identifier: a career copied under other
    # attributes reappears whole, whatever its summaries show (privcore.data.related.row_sets).
    sets = [f"{r.child}.{ROW_SET}" for r in relations]
    # A summary of numbers is a number, whatever the real people's few values suggest (a gap of 0 or 1 year in every
    # real career is not a yes/no column: a release with a gap of 1.5 must be read, not refused).
    summaries = tuple(f"{r.child}." for r in relations)
    types = {c: (NUMERICAL if c.startswith(summaries) and pd.api.types.is_numeric_dtype(real_people[c]) else kind)
             for c, kind in inferred.types.items() if c not in sets}
    key = None if inferred.key is None else [c for c in inferred.key if c not in sets]
    return people, Schema(types=types, key=key, sensitive=inferred.sensitive, seed=seed, dates=list(inferred.dates),
                          identifiers=list(dict.fromkeys([*inferred.identifiers, *sets])), texts=list(inferred.texts))


def children_per_person(roles: Mapping[str, Tables], relation: Relation) -> dict[str, Any]:
    """How far the synthetic number of rows per person differs from the real one, beside a fresh sample's.

    The total variation distance between the distributions of rows per person (0 = the same shares of people with
    0, 1, 2... rows; 1 = no count in common), for the synthetic people and, as the reference, the holdout's; and the
    Kolmogorov-Smirnov statistic between them (``*_ks``: the largest gap between the two shares of people with at
    most k rows), whose complement is SDMetrics' ``CardinalityShapeSimilarity``.

    Examples
    --------
    >>> people = pd.DataFrame({"id": [1, 2]})
    >>> real = {"p": people, "c": pd.DataFrame({"pid": [1, 1, 2]})}
    >>> synthetic = {"p": people, "c": pd.DataFrame({"pid": [1, 2]})}
    >>> children_per_person({"real": real, "synthetic": synthetic}, Relation("c", "pid", "p", "id"))
    {'synthetic': 0.5, 'holdout': None, 'synthetic_ks': 0.5, 'holdout_ks': None, 'real_mean': 1.5, 'synthetic_mean': 1.0}
    """
    def counts(tables: Tables) -> pd.Series:
        owners = tables[relation.child][relation.column].astype(str).value_counts()
        keys = tables[relation.parent][relation.parent_column].astype(str)
        return keys.map(owners).fillna(0).astype(np.int64)

    real = counts(roles["real"])

    def shares(other: pd.Series) -> pd.DataFrame:
        both = pd.concat([real.value_counts(normalize=True), other.value_counts(normalize=True)], axis=1)
        return both.fillna(0.0).sort_index()

    def distance(other: pd.Series) -> float:
        share = shares(other)
        return round(float(0.5 * np.abs(share.iloc[:, 0] - share.iloc[:, 1]).sum()), 6)

    def ks(other: pd.Series) -> float:
        cumulative = shares(other).cumsum()
        return round(float(np.abs(cumulative.iloc[:, 0] - cumulative.iloc[:, 1]).max()), 9)

    synthetic = counts(roles["synthetic"])
    holdout = counts(roles["holdout"]) if "holdout" in roles else None
    return {"synthetic": distance(synthetic), "holdout": None if holdout is None else distance(holdout),
            "synthetic_ks": ks(synthetic), "holdout_ks": None if holdout is None else ks(holdout),
            "real_mean": round(float(real.mean()), 6), "synthetic_mean": round(float(synthetic.mean()), 6)}


#: The utility measures read on each child table and on each child joined to its people (their pairs across tables).
TABLE_MEASURES = ("utility_shapes", "utility_pairs")


def table_utility(roles: Mapping[str, Tables], relations: Sequence[Relation], seed: int = 0) -> dict[str, Any]:
    """Utility of each child table's rows and of its columns' relations to the people's, beside a fresh sample's.

    Per child table (its key left out): column shapes and pairs (:mod:`privcore.metrics.utility`). Per child
    joined to its people (each child row with its person's columns, keys left out): the pairs, whose trends across
    the two tables (a player's birth year and the season's year) no table alone shows. Each score is given with the
    holdout's, as every utility measure is (``relative``: the share of what a fresh sample keeps).
    """
    out: dict[str, Any] = {}
    for r in relations:
        def child(tables: Tables) -> pd.DataFrame:
            return tables[r.child].drop(columns=[r.column])

        def joined(tables: Tables) -> pd.DataFrame:
            people = tables[r.parent].rename(columns=lambda c: f"{r.parent}.{c}")
            rows = tables[r.child].merge(people, left_on=r.column, right_on=f"{r.parent}.{r.parent_column}",
                                         how="left")
            return rows.drop(columns=[r.column, f"{r.parent}.{r.parent_column}"])

        out[r.child] = _utility(roles, child, TABLE_MEASURES, seed)
        out[f"{r.parent} + {r.child}"] = _utility(roles, joined, ("utility_pairs",), seed)
    return out


def _utility(roles: Mapping[str, Tables], view, measures: Sequence[str], seed: int) -> dict[str, Any]:
    real = view(roles["real"])
    holdout = view(roles["holdout"]) if "holdout" in roles else None
    report = evaluate(real, view(roles["synthetic"]), infer_schema(real), metrics=list(measures), holdout=holdout,
                      seed=seed)
    scores = {}
    for measure in measures:
        result = report.results.get(measure)
        utility = getattr(result, "utility", None)
        scores[measure] = None if utility is None else {
            "score": round(float(utility.score), 6),
            "reference": None if utility.reference is None else round(float(utility.reference), 6),
            "relative": None if utility.relative is None else round(float(utility.relative), 6)}
    return scores
