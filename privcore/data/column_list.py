"""Every uploaded column, said: analysed with its kind, checked for reproduced values, or left out with the reason.

Nothing is left out in silence: the JSON report's ``columns``, the command line's printout, the Results
page and the HTML report all come from :func:`column_report`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Iterable

from privcore.data.column_kinds import DATE, IDENTIFIER, TEXT
from privcore.data.schema import Schema

ANALYSED, CHECKED, LEFT_OUT = "analysed", "checked", "left out"

#: How to bring a left-out column back, in the dashboard and on the command line alike.
INCLUDE = ("tick Analyse on the Configure page and choose its kind, or name it with one of --numerical, "
           "--categorical, --binary, --date, --identifier, --text")


@dataclass(frozen=True)
class ColumnEntry:
    """What happened to one column of the real table.

    Attributes
    ----------
    column : str
    status : str
        :data:`ANALYSED` (in the distance spaces and the metrics), :data:`CHECKED` (an identifier or free text, checked
        for members' values reproduced in the synthetic table) or :data:`LEFT_OUT`.
    kind : str or None
        numerical, categorical, binary, date, identifier or text; None when left out.
    role : str
        For an analysed column: "sensitive", "key" or "analysed, not a key"; else "".
    reason : str
        Why it is left out (or a note on how it is read); "" when there is nothing to say.
    include : str
        How to include a left-out column; "" otherwise.
    """

    column: str
    status: str
    kind: str | None
    role: str
    reason: str
    include: str

    def to_dict(self) -> dict[str, Any]:
        """The entry as plain JSON values."""
        return asdict(self)


def column_report(columns: Iterable[Any], schema: Schema, constant: Iterable[str] = ()) -> list[ColumnEntry]:
    """One entry per column of the real table as uploaded, in its order.

    Parameters
    ----------
    columns : iterable
        The real table's columns, as uploaded.
    schema : Schema
        The schema of the evaluation.
    constant : iterable of str
        Analysed columns constant in the real table (left out of the distance spaces, kept by exact-match metrics).

    Returns
    -------
    list of ColumnEntry

    Examples
    --------
    >>> schema = Schema({"age": "numerical", "born": "date", "name": "identifier"}, left_out={"x": "no values"})
    >>> [(e.column, e.status, e.kind) for e in column_report(["name", "age", "born", "x"], schema)]
    [('name', 'checked', 'identifier'), ('age', 'analysed', 'numerical'), ('born', 'analysed', 'date'), ('x', 'left out', None)]
    """
    constant = set(constant)
    key = set(schema.key_columns)
    entries = []
    for col in columns:
        col = str(col)
        kind = schema.kind(col)
        if col in schema.columns:
            role = "sensitive" if col == schema.sensitive else "key" if col in key else "analysed, not a key"
            reason = ("read as a number of days since 1970-01-01, so that dates a day apart count as close"
                      if kind == DATE else "")
            if col in constant:
                reason = "constant in the real table: left out of the distance spaces, kept by exact-match metrics"
            entries.append(ColumnEntry(col, ANALYSED, kind, role, reason, ""))
        elif kind in (IDENTIFIER, TEXT):
            what = "members' values" if kind == IDENTIFIER else "members' rare strings"
            entries.append(ColumnEntry(col, CHECKED, kind, "", f"not compared by distance; checked for {what} "
                                                              "reproduced in the synthetic table", ""))
        elif col == schema.pairing_column:
            entries.append(ColumnEntry(col, LEFT_OUT, None, "", "the pairing id: it says which real row a synthetic "
                                                               "row was made from", ""))
        else:
            reason = schema.left_out.get(col, "left out on request")
            include = "" if reason.startswith("it has no values") else INCLUDE
            entries.append(ColumnEntry(col, LEFT_OUT, None, "", reason, include))
    return entries


def column_lines(entries: list[ColumnEntry]) -> list[str]:
    """The entries in a few plain lines (the command line's printout, the Results page's summary).

    Examples
    --------
    >>> column_lines([ColumnEntry("age", ANALYSED, "numerical", "key", "", ""),
    ...               ColumnEntry("x", LEFT_OUT, None, "", "left out on request", INCLUDE)])[0]
    'Analysed (1): age (numerical, key).'
    """
    analysed = [e for e in entries if e.status == ANALYSED]
    checked = [e for e in entries if e.status == CHECKED]
    left = [e for e in entries if e.status == LEFT_OUT]
    lines = []
    if analysed:
        lines.append(f"Analysed ({len(analysed)}): "
                     + ", ".join(f"{e.column} ({e.kind}, {e.role})" for e in analysed) + ".")
    if checked:
        lines.append(f"Checked for values copied from members, not compared by distance ({len(checked)}): "
                     + ", ".join(f"{e.column} ({e.kind})" for e in checked) + ".")
    if left:
        lines.append(f"Left out ({len(left)}): " + "; ".join(f"{e.column}: {e.reason}" for e in left)
                     + (f". To include one, {INCLUDE}." if any(e.include for e in left) else "."))
    return lines
