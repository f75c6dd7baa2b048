"""Numbers, shares, sizes and durations as text: the formatters every layer shares (no plotting, no Streamlit)."""

from __future__ import annotations

import math

__all__ = ["format_bytes", "format_duration", "format_number", "format_value", "percent"]


def format_value(x: float | None, digits: int = 3) -> str:
    """``x`` with ``digits`` decimals, or ``"n/a"`` when missing or not finite.

    Examples
    --------
    >>> format_value(0.12345), format_value(None), format_value(float("nan"))
    ('0.123', 'n/a', 'n/a')
    """
    if x is None or not math.isfinite(float(x)):
        return "n/a"
    return f"{float(x):.{digits}f}"


def percent(x: float) -> str:
    """A share as a percentage: whole percents, one decimal below 1 %.

    Examples
    --------
    >>> percent(0.25), percent(0.004), percent(0.0)
    ('25%', '0.4%', '0%')
    """
    return f"{100 * x:.0f}%" if x >= 0.01 or x == 0 else f"{100 * x:.1f}%"


def format_number(x: float) -> str:
    """Shortest faithful text of a number (integers without a decimal point).

    Examples
    --------
    >>> format_number(3.0), format_number(0.1), format_number(float("inf"))
    ('3', '0.1', 'inf')
    """
    if math.isfinite(x) and float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


def format_bytes(size: float) -> str:
    """``1.5 GB``-style text (powers of 1024, as memory is sold).

    Examples
    --------
    >>> format_bytes(512), format_bytes(1536), format_bytes(3 * 1024**3)
    ('512 bytes', '1.5 KB', '3.0 GB')
    """
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if size < 1024 or unit == "TB":
            return f"{size:,.0f} {unit}" if unit == "bytes" else f"{size:,.1f} {unit}"
        size /= 1024
    return f"{size:,.1f} TB"  # pragma: no cover - the loop always returns


def format_duration(seconds: float) -> str:
    """A run time in words, rounded the way an estimate should be.

    Parameters
    ----------
    seconds : float
        The run time, measured or estimated.

    Returns
    -------
    str
        ``"under 10 s"``, else the time to the nearest 10 s, minute, or hour and minute.

    Examples
    --------
    >>> [format_duration(s) for s in (3, 42, 95, 3600 * 1.5)]
    ['under 10 s', 'about 40 s', 'about 2 min', 'about 1 h 30 min']
    """
    if seconds < 10:
        return "under 10 s"
    if seconds < 60:
        return f"about {round(seconds, -1):.0f} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min"
    return f"about {minutes // 60} h" + (f" {minutes % 60} min" if minutes % 60 else "")
