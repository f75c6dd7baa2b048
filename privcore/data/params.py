"""Metric parameters, declared once next to the metric and checked by one function everywhere."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from privcore.base import InputError

if TYPE_CHECKING:  # pragma: no cover
    from privcore.data.schema import Schema

KINDS = ("int", "float", "numbers", "columns", "column_pair", "table", "choice")

#: JSON Schema of a value of each kind (for ``python -m privcore schema``).
KIND_JSON_SCHEMA: dict[str, dict[str, Any]] = {
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "numbers": {"type": "array", "items": {"type": "number"}},
    "columns": {"type": "array", "items": {"type": "string"}},
    "column_pair": {"type": "array", "items": {"type": "array", "items": {"type": "string"}},
                    "minItems": 2, "maxItems": 2},
    "table": {"type": "string", "description": "a description of the table, never its rows"},
    "choice": {"type": "string"},
}


class ParamError(InputError):
    """A metric parameter has a value of the wrong kind or outside its range."""


@dataclass(frozen=True)
class Param:
    """One user-settable parameter of a metric.

    Attributes
    ----------
    name : str
        Name used in ``params`` and on the command line (``--param ID.NAME=VALUE``).
    kind : str
        One of :data:`KINDS`.
    default : object
        The value used when none is given; None for a default derived from the schema (see ``rule``).
    label : str
        Short human name shown by the dashboard ("Closeness threshold").
    help : str
        One sentence: what the parameter changes.
    minimum, maximum : float, optional
        Inclusive range of a number (for ``numbers``, of each number).
    step : float, optional
        Widget step on the Metrics page.
    rule : str
        For a derived default: the rule in words ("the key columns except the sensitive one").
    derive : callable, optional
        ``derive(schema) -> value``: the derived default, for display.
    exclude_sensitive : bool
        A column parameter whose columns must not include the sensitive column.
    choices : tuple of str
        The words a ``choice`` may be.
    infinite : bool
        A number that may also be ``math.inf`` (ε = ∞: no noise), beyond its finite range.

    Notes
    -----
    Each metric lists its user-settable parameters as :class:`Param` declarations in its registry entry.
    The declaration is the single source of the parameter's type, default (or the rule that derives it),
    range, help text and label: :func:`privcore.evaluate`, the command line (``--param ID.NAME=VALUE``,
    ``python -m privcore metrics``) and the dashboard's Metrics page all read it, and all of them validate
    a value with :func:`check_value`, so a bad value gets the same sentence in every place.
    """

    name: str
    kind: str
    default: Any
    label: str
    help: str
    minimum: float | None = None
    maximum: float | None = None
    step: float | None = None
    rule: str = ""
    derive: Callable[["Schema"], Any] | None = None
    exclude_sensitive: bool = False
    choices: tuple[str, ...] = ()
    infinite: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"parameter {self.name!r} has unknown kind {self.kind!r}")
        if (self.kind == "choice") != bool(self.choices) or (self.choices and self.default not in self.choices):
            raise ValueError(f"parameter {self.name!r}: a choice declares its words, its default among them")
        if self.default is None and not self.rule and self.kind != "table":
            raise ValueError(f"parameter {self.name!r} has no default and no rule deriving one")

    @property
    def settable(self) -> bool:
        """Whether ``--param`` and the Metrics page set it (tables come as files or uploads)."""
        return self.kind != "table"

    def default_for(self, schema: "Schema | None") -> Any:
        """The value used when none is given: the default, or the one derived from ``schema``."""
        if self.default is None and self.derive is not None and schema is not None:
            return self.derive(schema)
        if isinstance(self.default, (list, tuple)):
            return list(self.default)
        return self.default

    def describe_range(self) -> str:
        """The allowed values in words ("0 to 1", "whole number ≥ 1", "two disjoint column lists")."""
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind in ("int", "float", "numbers"):
            what = {"int": "whole number", "float": "number", "numbers": "list of numbers"}[self.kind]
            low, high = self.minimum, self.maximum
            if low is not None and high is not None:
                return f"{what}, {_num(low)} to {_num(high)}"
            if low is not None:
                return f"{what} ≥ {_num(low)}"
            return what
        return {"columns": "list of analysed columns", "column_pair": "two disjoint lists of analysed columns",
                "table": "a table file"}[self.kind]

    def describe_default(self) -> str:
        """The default in words: its value, or its rule."""
        if self.default is None:
            return self.rule or "none"
        if self.kind == "numbers":
            return format_numbers(self.default)
        return _num(self.default) if isinstance(self.default, (int, float)) else str(self.default)

    def json_schema(self) -> dict[str, Any]:
        """JSON Schema of this parameter's value in a report's ``params``."""
        schema = dict(KIND_JSON_SCHEMA[self.kind])
        if self.kind == "choice":
            schema["enum"] = list(self.choices)
        if self.kind in ("int", "float"):
            if self.minimum is not None:
                schema["minimum"] = self.minimum
            if self.maximum is not None:
                schema["maximum"] = self.maximum
        schema["description"] = self.help
        if self.default is None:
            return {"anyOf": [schema, {"type": "null"}], "description": self.help}
        return schema


def _num(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def format_numbers(values: Iterable[float]) -> str:
    """``[0.0, 1.0, 2.5]`` → ``"0, 1, 2.5"``."""
    return ", ".join(f"{float(v):g}" for v in values)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def check_value(metric_id: str, param: Param, value: Any, schema: "Schema | None" = None) -> Any:
    """Validate one parameter value; return it in canonical form.

    Parameters
    ----------
    metric_id : str
        The metric the parameter belongs to (named in the message).
    param : Param
        The declaration.
    value : object
        What the user gave (a number, a list, a comma-separated text of numbers...).
    schema : Schema, optional
        Needed to check column names; without it only the shape of a column list is checked.

    Returns
    -------
    object
        An ``int`` for ``int``, a ``float`` for ``float``, a sorted list of unique floats for
        ``numbers``, column lists in the table's column order.

    Raises
    ------
    ParamError
        With one sentence naming the parameter (label and ``id.name``) and what is allowed; the same
        sentence is shown by the command line and the Metrics page.

    Notes
    -----
    Kinds of parameter (:data:`KINDS`):

    - ``int`` / ``float``: a number in ``[minimum, maximum]``;
    - ``numbers``: a list of numbers ≥ ``minimum`` (or a comma-separated text of them), kept sorted and unique;
    - ``columns``: a list of analysed column names;
    - ``column_pair``: two disjoint, non-empty lists of analysed column names;
    - ``table``: a table of real records (a DataFrame), given as a file (``--reference``), never ``--param``;
    - ``choice``: one of the declared words (``choices``).

    Examples
    --------
    >>> p = Param("threshold", "float", 0.2, "Closeness threshold", "…", minimum=0.0, maximum=1.0)
    >>> check_value("cvp", p, 2)
    Traceback (most recent call last):
    ...
    privcore.data.params.ParamError: Closeness threshold (cvp.threshold) must be between 0 and 1; got 2.
    >>> check_value("sd_idr", Param("epsilons", "numbers", [0, 1], "Budgets ε", "…", minimum=0), "3, 0, 1")
    [0.0, 1.0, 3.0]
    """
    where = f"{param.label} ({metric_id}.{param.name})"
    if value is None and param.default is None:
        return None  # "derive the default from the schema" (or "no table")
    if param.kind in ("int", "float"):
        return _check_number(where, param, value)
    if param.kind == "choice":
        if not isinstance(value, str) or value not in param.choices:
            raise ParamError(f"{where} must be one of {', '.join(param.choices)}; got {value!r}.")
        return value
    if param.kind == "numbers":
        return _check_numbers(where, param, value)
    if param.kind == "columns":
        return _check_columns(where, param, value, schema)
    if param.kind == "column_pair":
        return _check_column_pair(where, param, value, schema)
    if isinstance(value, pd.DataFrame):
        return value
    raise ParamError(f"{where} must be a table of real records; give it as a file (--{param.name} FILE) or upload "
                     f"it on the Data page.")


def _check_number(where: str, param: Param, value: Any) -> int | float:
    whole = param.kind == "int"
    if param.infinite and _is_number(value) and float(value) == math.inf:
        return math.inf  # declared: ∞ is a value of its own (ε = ∞, no noise)
    if not _is_number(value) or not math.isfinite(float(value)):
        raise ParamError(f"{where} must be a {'whole ' if whole else ''}number; got {value!r}.")
    number = float(value)
    if whole and not number.is_integer():
        raise ParamError(f"{where} must be a whole number; got {value!r}.")
    low, high = param.minimum, param.maximum
    if (low is not None and number < low) or (high is not None and number > high):
        shown = int(number) if whole else value
        if high is None:
            raise ParamError(f"{where} must be at least {_num(low)}; got {shown}.")
        raise ParamError(f"{where} must be between {_num(low)} and {_num(high)}; got {shown}.")
    return int(number) if whole else number


def _check_numbers(where: str, param: Param, value: Any) -> list[float]:
    if isinstance(value, str):
        parts: Sequence[Any] = [p.strip() for p in value.replace(";", ",").split(",") if p.strip()]
    elif isinstance(value, (list, tuple, np.ndarray)):
        parts = list(value)
    else:
        parts = [value]
    numbers = []
    for part in parts:
        try:
            number = float(part) if isinstance(part, str) else (float(part) if _is_number(part) else None)
        except ValueError:
            number = None
        low = param.minimum if param.minimum is not None else -math.inf
        if number is None or not math.isfinite(number) or number < low or (
                param.maximum is not None and number > param.maximum):
            bound = (f" from {_num(param.minimum)} to {_num(param.maximum)}" if param.minimum is not None
                     and param.maximum is not None else f" ≥ {_num(param.minimum)}" if param.minimum is not None
                     else f" ≤ {_num(param.maximum)}" if param.maximum is not None else "")
            raise ParamError(f"{where}: every value must be a number{bound}, separated by commas "
                             f"(e.g. {param.describe_default()}); {part!r} is not.")
        numbers.append(number)
    if not numbers:
        raise ParamError(f"{where} needs at least one number, e.g. {param.describe_default()}.")
    return sorted(set(numbers))


def _column_list(where: str, value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(c, str) for c in value):
        raise ParamError(f"{where} must be a list of column names; got {value!r}.")
    return list(value)


def _check_columns(where: str, param: Param, value: Any, schema: "Schema | None") -> list[str]:
    columns = _column_list(where, value)
    if schema is not None:
        allowed = [c for c in schema.columns if not (param.exclude_sensitive and c == schema.sensitive)]
        unknown = [c for c in columns if c not in allowed]
        if unknown:
            why = ("analysed columns other than the sensitive one" if param.exclude_sensitive
                   else "analysed columns")
            raise ParamError(f"{where} names {', '.join(map(repr, unknown))}, which {'is' if len(unknown) == 1 else 'are'} "
                             f"not among the {why}: {', '.join(allowed)}.")
        columns = [c for c in allowed if c in set(columns)]
    if not columns:
        raise ParamError(f"{where} needs at least one column.")
    return columns


def _check_column_pair(where: str, param: Param, value: Any, schema: "Schema | None") -> list[list[str]]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ParamError(f"{where} must be two lists of columns (the attacker's two tables); got {value!r}.")
    first, second = (_check_columns(where, param, part, schema) if part else [] for part in value)
    if not first or not second:
        raise ParamError(f"{where}: each of the attacker's two tables needs at least one column.")
    shared = [c for c in first if c in second]
    if shared:
        raise ParamError(f"{where}: the two column sets must not share a column; {', '.join(shared)} "
                         f"{'is' if len(shared) == 1 else 'are'} in both.")
    return [first, second]


def check_params(metric_id: str, declared: Sequence[Param], given: Mapping[str, Any],
                 schema: "Schema | None" = None) -> dict[str, Any]:
    """Validate every given parameter of one metric against its declarations.

    Raises
    ------
    ParamError
        For an unknown name (listing the valid ones) or a bad value (see :func:`check_value`).
    """
    by_name = {p.name: p for p in declared}
    out = {}
    for name, value in given.items():
        if name not in by_name:
            valid = f"valid names: {', '.join(by_name)}" if by_name else "it has no parameters"
            raise ParamError(f"Metric {metric_id!r} has no parameter {name!r}; {valid}.")
        out[name] = check_value(metric_id, by_name[name], value, schema)
    return out


def check_settings(owner: str, params: Sequence[Param], values: Mapping[str, Any],
                   error: type[Exception] = ParamError) -> dict[str, Any]:
    """Check the settings of one owner (a generator, the lab, ``evaluate``) against their declarations.

    Each value goes through :func:`check_value`, so a setting refused here gets the same sentence as the same
    setting refused anywhere else (``make_generator``, ``--param``, the dashboard).

    Parameters
    ----------
    owner : str
        Who the settings belong to, named in the message (``"privbayes"``, ``"lab"``, ``"evaluate"``).
    params : sequence of Param
        The declarations; every key of ``values`` must be among them.
    values : mapping
        Setting name → the value given.
    error : type of Exception
        Raised instead of :class:`ParamError`, with the same sentence (e.g. ``GeneratorSettingError``).

    Returns
    -------
    dict
        Setting name → the checked value in canonical form (an ``int`` for ``int``, ...).

    Examples
    --------
    >>> k = Param("k", "int", 2, "Parents", "…", minimum=0, maximum=10)
    >>> check_settings("privbayes", [k], {"k": 3.0})
    {'k': 3}
    >>> check_settings("privbayes", [k], {"k": -1}, error=ValueError)
    Traceback (most recent call last):
    ...
    ValueError: Parents (privbayes.k) must be between 0 and 10; got -1.
    """
    by_name = {p.name: p for p in params}
    unknown = [name for name in values if name not in by_name]
    if unknown:
        raise error(f"{owner} has no setting {unknown[0]!r}; its settings are {', '.join(by_name)}.")
    try:
        return {name: check_value(owner, by_name[name], value) for name, value in values.items()}
    except ParamError as exc:
        if error is ParamError:
            raise
        raise error(str(exc)) from None
