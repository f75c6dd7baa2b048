"""What the server does once, before it lets anyone in: the imports and the demo every first visit would wait for."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import pkgutil
import sys
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class WarmUp:
    """What :func:`warm_up` did: the modules it imported, the demo it prepared, and how long it took."""

    modules: tuple[str, ...]
    demo: str | None
    seconds: float

    def line(self) -> str:
        """One line for the server's log."""
        demo = f" and the demo '{self.demo}'" if self.demo else ""
        return f"privcore: warmed up in {self.seconds:.1f} s ({len(self.modules)} dashboard modules{demo})."


def warm_up(argv: Sequence[str]) -> WarmUp:
    """Do once, at the server's start, what the first visit of every page would otherwise wait for.

    Imports every module of the dashboard (and with them privcore, pandas, scikit-learn, Plotly, pyarrow: about
    2 s on 2 cores, which the first visitor used to wait for) and loads the metric registry; with ``--demo``,
    reads and prepares the demo's tables into the loader's cache, so that the first session's copy is as quick
    as every later one's. A demo name that does not exist is left to the home page, which explains it.
    """
    # lazy: app.py imports this module in the server's first moment; these imports are the warm-up's work
    import dashboard
    from dashboard.uploads import demo_requested  # lazy: as above
    from privcore.base import InputError  # lazy: as above
    from privcore.metrics import load_all  # lazy: as above

    began = time.perf_counter()
    names = tuple(m.name for m in pkgutil.walk_packages(dashboard.__path__, "dashboard."))
    for name in names:
        importlib.import_module(name)
    load_all()
    from dashboard import run_timing  # lazy: as above

    run_timing.install_from_environment()  # test-only timing, on ahead of the first visit (not from its run)
    _streamlit_first_calls()
    demo = demo_requested(argv)
    if demo:
        from privcore.demo import load_scenario  # lazy: as above

        try:
            load_scenario(demo)
        except InputError:
            demo = None
    return WarmUp(modules=names, demo=demo, seconds=time.perf_counter() - began)


def _streamlit_first_calls() -> None:
    """Streamlit's own once-per-process work on a page's first calls, done here; outside a visit they draw nothing.

    ``st.set_page_config`` imports Streamlit's emoji table and compiles its pattern (0.18 s on 2 cores), and the
    first element sent walks the source files of the call stack once (a check for an interactive shell, 0.17 s).
    """
    import streamlit as st  # lazy: as in warm_up

    from dashboard.page_setup import PAGE_ICON  # lazy: as in warm_up

    # Streamlit warns of each call made outside a visit ("missing ScriptRunContext"); these are meant to be.
    quiet = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        st.set_page_config(page_icon=PAGE_ICON)
        st.empty()
    finally:
        quiet.setLevel(level)


@contextlib.asynccontextmanager
async def lifespan(app) -> AsyncIterator[dict]:
    """The server's start-up (``st.App``'s lifespan): warm up ahead of the first connection.

    Starlette serves nothing, not even ``/_stcore/health``, until this yields, so a health check that answers
    means a warm server. The work runs on a thread: imports hold the interpreter, not the event loop's
    start-up tasks.
    """
    done = await asyncio.to_thread(warm_up, sys.argv[1:])
    print(done.line(), file=sys.stderr, flush=True)
    yield {"warm_up": done}
