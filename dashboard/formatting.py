"""Numbers in words, shared by the pages' views (the Audit and Compare-metrics estimates); no Streamlit import.

It sits below the views so that one view never imports another for a formatter.
"""

from __future__ import annotations


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
