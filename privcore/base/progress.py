"""The one progress-callback type: ``progress(fraction, message)``, fraction in [0, 1], called as work advances."""

from __future__ import annotations

from typing import Callable

__all__ = ["ProgressCallback"]

#: ``progress(fraction, message)``: how far the work is (0 to 1) and what it is doing, in words.
ProgressCallback = Callable[[float, str], None]
