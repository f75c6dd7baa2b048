"""The Jinja2 environment that renders the HTML downloads from the templates shipped in ``privcore/report/templates``."""

from __future__ import annotations

import math
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

__all__ = ["ENVIRONMENT", "render", "number"]


def number(x: Any, digits: int = 3) -> str:
    """``x`` with ``digits`` decimals, or a dash when it is missing, not a number or not finite.

    Examples
    --------
    >>> number(0.12345), number(None), number(float("inf")), number("n/a"), number(2, digits=1)
    ('0.123', '—', '—', '—', '2.0')
    """
    if x is None:
        return "—"
    try:
        x = float(x)
    except (TypeError, ValueError):
        return "—"
    return f"{x:.{digits}f}" if math.isfinite(x) else "—"


#: The environment of every page: templates from the package, autoescape on, the ``number`` filter.
ENVIRONMENT = Environment(
    loader=PackageLoader("privcore.report", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    # Block tags on lines of their own leave no blank lines behind, so the templates can be laid out readably.
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
ENVIRONMENT.filters["number"] = number


def render(template: str, **context: Any) -> str:
    """Render one template of ``privcore/report/templates``.

    Parameters
    ----------
    template : str
        The template's file name, e.g. ``"report.html.j2"``.
    **context
        The names the template uses.

    Returns
    -------
    str
        The rendered text.

    Notes
    -----
    Autoescaping is on: every value a template prints is HTML-escaped unless it is :class:`markupsafe.Markup`
    (an embedded Plotly figure, a rendered part), so a table or column name such as ``<b>`` shows as text and
    cannot inject markup. Undefined names raise instead of printing nothing, so a template that asks for
    something the code does not give fails in the tests. The templates are package data, read with
    :class:`jinja2.PackageLoader` (importlib), so they are found in an installed wheel too.
    This module imports no Streamlit and no Plotly.
    """
    return ENVIRONMENT.get_template(template).render(**context)
