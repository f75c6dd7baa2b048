"""The reconstruction attack in words and as a table, for the Results page's Reconstruction view and the Learn page.

This module imports neither Streamlit nor plotting.
"""

from __future__ import annotations

import pandas as pd

from privcore.metrics import Reconstruction, metric_name

__all__ = ["RECONSTRUCTION_METRICS", "NO_RECONSTRUCTION", "reconstruction_result", "reconstruction_summary",
           "leak_words", "exposed_table"]

#: The reconstruction metrics, in the order in which one speaks for the report: the honest best first.
RECONSTRUCTION_METRICS = ("recon_best", "recon_learned", "recon_nearest")

#: What the view says when no reconstruction metric ran.
NO_RECONSTRUCTION = ("No reconstruction metric ran, so there is nothing to show here. Choose the Reconstruction "
                     "metrics on the Metrics page (\"Reconstruction: the strongest attack\" runs both attacks) and run "
                     "the evaluation again. They need a holdout (real people who were not in the training data): the "
                     "attack on them tells what anyone could infer from the population apart from what the synthetic "
                     "table leaked.")


def reconstruction_result(report) -> tuple[str, Reconstruction] | None:
    """The id and details of the reconstruction metric that speaks for ``report``; None when none did.

    The first of :data:`RECONSTRUCTION_METRICS` that ran and applied.
    """
    if report is None:
        return None
    for metric_id in RECONSTRUCTION_METRICS:
        if metric_id in report:
            result = report[metric_id]
            if result.applicable and isinstance(result.details, Reconstruction):
                return metric_id, result.details
    return None


def _list(names: list[str], most: int = 6) -> str:
    shown = list(names[:most]) + ([f"{len(names) - most} more"] if len(names) > most else [])
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def leak_words(details: Reconstruction) -> str:
    """What the advantage and its interval say, in a few plain words.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> leak_words(SimpleNamespace(advantage=0.15, advantage_interval=(0.12, 0.18)))  # doctest: +NORMALIZE_WHITESPACE
    'the synthetic table lets the attacker fill in the records of the people it was made from better than those of
    other people: it leaks about them'
    >>> leak_words(SimpleNamespace(advantage=-0.01, advantage_interval=(-0.02, 0.01)))  # doctest: +ELLIPSIS
    'no clear difference between members and non-members: ...'
    """
    interval = details.advantage_interval
    if interval is None:
        direction = "better" if details.advantage > 0 else "no better"
        return (f"the attacker does {direction} on members than on non-members, but without an interval (bootstrap "
                "replicates set to 0) this cannot be told from chance")
    if interval[0] > 0:
        return ("the synthetic table lets the attacker fill in the records of the people it was made from better "
                "than those of other people: it leaks about them")
    if interval[1] < 0:
        return "the attacker does worse on members than on non-members: no sign of a leak"
    return ("no clear difference between members and non-members: what the attacker gets right, it gets from "
            "patterns true of everyone")


def reconstruction_summary(details: Reconstruction, metric_id: str = "recon_best") -> str:
    """One plain paragraph (Markdown) on a reconstruction attack's result.

    Parameters
    ----------
    details : Reconstruction
        The metric's details.
    metric_id : str
        The metric, for its name.

    Returns
    -------
    str
    """
    interval = details.advantage_interval
    shown = "" if interval is None else f" (95 % interval {interval[0]:+.3f} to {interval[1]:+.3f})"
    attack = {"nearest": "copying the nearest synthetic records", "learned": "models trained on the synthetic table"}
    chosen = (" (the stronger of the two attacks on one half of the people; scored here on the other half)"
              if details.choice else "")
    text = (f"**{metric_name(metric_id)}.** Knowing {_list(details.key)} of a person, the attacker fills in the other "
            f"{len(details.secret)} column(s) ({_list(details.secret)}) by {attack.get(details.attack, details.attack)}"
            f"{chosen}. It scores **{details.members:.3f}** on the {details.n_members:,} people the table was made "
            f"from and **{details.nonmembers:.3f}** on {details.n_nonmembers:,} other real people (1 = every value "
            f"right, rare values counting more): an advantage of **{details.advantage:+.3f}**{shown}, so "
            f"{leak_words(details)}.")
    if details.population is not None:
        text += (f" With other real people's data released instead of the synthetic table, the same attack scores "
                 f"{details.population:.3f} on the members: that much anyone could infer from the population.")
    return text


def exposed_table(details: Reconstruction) -> pd.DataFrame:
    """The most exposed members: one row per column reconstructed beyond the non-members' rate.

    True value and reconstruction side by side.

    Columns: ``real row``, ``column``, ``true value``, ``reconstructed``, ``people with this value`` (the share
    of the members who share the true value; "a number" for a numerical column) and ``exposure`` (the member's
    mean over the secret columns of how far the reconstruction beats the non-members' rate). Members in the
    details' order (most exposed first), each member's columns rarest true value first.

    Examples
    --------
    >>> from privcore.metrics.reconstruction._base import ExposedRecord
    >>> from types import SimpleNamespace
    >>> d = SimpleNamespace(exposed=[ExposedRecord(7, 0.4, ["job", "age"], ["pilot", "52"], ["pilot", "50"],
    ...                                            [0.01, None])])
    >>> exposed_table(d).iloc[0][["column", "true value", "reconstructed", "people with this value"]].tolist()
    ['job', 'pilot', 'pilot', '1.0 %']
    >>> exposed_table(d).iloc[1][["true value", "reconstructed", "people with this value"]].tolist()
    ['52', '50', 'a number']
    """
    rows = []
    for record in details.exposed:
        for column, true, guess, share in zip(record.columns, record.true, record.reconstructed, record.rarity):
            rows.append({"real row": int(record.row), "column": column, "true value": true, "reconstructed": guess,
                         "people with this value": "a number" if share is None else f"{100 * share:.1f} %",
                         "exposure": round(float(record.exposure), 3)})
    return pd.DataFrame(rows, columns=["real row", "column", "true value", "reconstructed", "people with this value",
                                       "exposure"])
