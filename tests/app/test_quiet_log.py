"""A quiet server log (issue 23): worker processes never run the page that started them again.

Streamlit runs each page as the module ``__main__`` with the page's file; a spawned worker imports the
parent's main file again, so before the fix every new worker ran a whole page outside any session and
filled the log with "missing ScriptRunContext" warnings (about 800 per evaluation).
"""

from __future__ import annotations

import sys
import types

from dashboard import compute


def report_pid(*, progress):
    import os

    return os.getpid()


def test_a_new_worker_does_not_run_the_page_as_its_main(tmp_path, monkeypatch):
    marker = tmp_path / "ran.txt"
    page = tmp_path / "page.py"
    page.write_text(f"open({str(marker)!r}, 'w').write('the page ran in a worker')\n")
    fake = types.ModuleType("__main__")
    fake.__file__ = str(page)
    monkeypatch.setitem(sys.modules, "__main__", fake)
    pool = compute.ComputePool(1)
    try:
        assert pool.run(report_pid) > 0
    finally:
        pool.shutdown()
    assert not marker.exists()
    assert sys.modules["__main__"] is fake  # the page's module is put back
