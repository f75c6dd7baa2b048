"""Progress callbacks shaped for a progress bar; no Streamlit import.

A worker job (:mod:`dashboard.jobs`) reports ``progress(fraction, message)``; the lab counts tables instead,
so :func:`progress_update` turns its count into a fraction. It sits below the jobs and the views so that
neither has to import the other for it.
"""

from __future__ import annotations

from typing import Callable


def progress_update(update: Callable[[float, str], None]) -> Callable[[int, int, str], None]:
    """A :data:`privcore.lab.LabProgress` callback that moves a bar: fraction done and what runs now.

    Parameters
    ----------
    update : callable
        ``update(fraction, message)``, the bar's callback; ``fraction`` is clipped to [0, 1].

    Returns
    -------
    callable
        ``tick(done, total, message)``, as :func:`privcore.lab.run` and :func:`privcore.lab.run_ladder` call it.

    Examples
    --------
    >>> seen = []
    >>> progress_update(lambda f, m: seen.append((f, m)))(3, 12, "partial_copy at level 0.5, seed 1")
    >>> seen
    [(0.25, 'Table 4 of 12: partial_copy at level 0.5, seed 1')]
    """
    def tick(done: int, total: int, message: str) -> None:
        fraction = min(max(done / max(total, 1), 0.0), 1.0)
        text = "Statistics…" if done >= total else f"Table {done + 1} of {total}: {message}"
        update(fraction, text)

    return tick
