"""Holding BLAS to one thread around a block: threadpoolctl's limit over one controller kept for the process."""

from __future__ import annotations

import sys
import threading

from threadpoolctl import ThreadpoolController

_lock = threading.Lock()
_controller: ThreadpoolController | None = None
_modules_seen = 0


def _current_controller() -> ThreadpoolController:
    """The process's controller, found again only when a module was imported since (a library may have come with it).

    A fresh ``threadpool_limits`` builds a controller each time, and building one reads the process's whole map
    of loaded libraries: about 7 ms. The engine limits BLAS around every pass, so on small tables that cost more
    than the metrics (60 limits in one 36-metric evaluation of 30 rows: 0.4 of its 1.9 s).
    """
    global _controller, _modules_seen
    with _lock:
        if _controller is None or len(sys.modules) != _modules_seen:
            _controller, _modules_seen = ThreadpoolController(), len(sys.modules)
        return _controller


def one_blas_thread():
    """A context in which the BLAS libraries use one thread, their earlier limits restored on leaving it.

    The same as ``threadpoolctl.threadpool_limits(limits=1, user_api="blas")``, without reading the loaded
    libraries again at each call.

    Returns
    -------
    context manager
        The limit is set when this is called and lifted when the ``with`` block ends.

    Examples
    --------
    >>> from threadpoolctl import threadpool_info
    >>> with one_blas_thread():
    ...     all(lib["num_threads"] == 1 for lib in threadpool_info() if lib["user_api"] == "blas")
    True
    """
    return _current_controller().limit(limits=1, user_api="blas")
