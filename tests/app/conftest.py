"""Shared helpers of the AppTest tests: the app's entry point, small tables, seeded sessions; the fixtures of the
server-memory session store's tests (a fake clock and a store that reads it).

Pages are opened the way Streamlit 1.67 documents for a ``pages/`` directory app: ``AppTest`` is
created from ``app.py`` and switched to the page before the first run. Creating it from a page file
would make that page the main script, so the ``st.page_link("pages/…")`` calls would not resolve.
A first run straight on a page is exactly a deep link on a fresh session.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # the pages import the `dashboard` package, which is not installed
    sys.path.insert(0, str(ROOT))

from dashboard.session.state import LoadedTable, Tables  # noqa: E402
from dashboard.session.store import SessionStore  # noqa: E402
from privcore.data.schema import infer_schema  # noqa: E402

APP = ROOT / "app.py"
DATA = "pages/1_Data.py"
CONFIGURE = "pages/2_Configure.py"
METRICS = "pages/3_Metrics.py"
TIMEOUT = 120  # a limit for a hung script, not a speed check: a loaded 2-core CI machine is slow


def open_page(page: str | None = None) -> AppTest:
    """An AppTest of the app, switched to ``page`` (not run yet)."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    if page is not None:
        at.switch_page(page)
    return at


def people(n: int = 40, seed: int = 0) -> pd.DataFrame:
    """A small mixed table: a number, a binary column, a text category and a binary target."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(18, 90, n),
        "sex": rng.choice(["F", "M"], n),
        "job": rng.choice(["nurse", "clerk", "farmer", "teacher"], n),
        "income": rng.choice(["low", "high"], n),
    })


def csv_bytes(frame: pd.DataFrame) -> bytes:
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    return buffer.getvalue().encode()


def seed_session(at: AppTest, *, holdout: bool = False, schema: bool = True) -> Tables:
    """Put a real and a synthetic table (and optionally a holdout and the inferred schema) in state."""
    real = people(40, seed=1)
    tables = Tables(
        real=LoadedTable.from_frame("real.csv", real),
        synthetic={"synth": LoadedTable.from_frame("synth", people(40, seed=2))},
        holdout=LoadedTable.from_frame("holdout.csv", people(40, seed=3)) if holdout else None,
    )
    at.session_state["tables"] = tables
    if schema:
        at.session_state["schema"] = infer_schema(real, sensitive="income")
    return tables


def texts(elements) -> str:
    """Every value of a list of text elements, joined (for substring assertions)."""
    return "\n".join(str(e.value) for e in elements)


def assert_no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def assert_points_to_the_data_page(at: AppTest) -> None:
    """A page opened without data: no exception, a word about the Data page and the one link to it."""
    assert_no_exception(at)
    assert "Data page" in texts(at.info)
    assert [link.value for link in at.main.page_link] == ["Go to the Data page"]


# ------------------------------------------------------------------------------------- the session store's clock


class FakeClock:
    """A clock that stands still until a test moves ``now`` (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(clock) -> SessionStore:
    """A session store whose sessions expire after 30 idle minutes of :func:`clock`."""
    return SessionStore(idle_after=30 * 60, clock=clock)
