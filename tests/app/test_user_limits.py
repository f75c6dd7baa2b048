"""Per-user limits of a shared server (issue 25): settings, concurrent computations, memory held, and the
sign-in configuration's checks (plain Python, no browser)."""

from __future__ import annotations

import threading

import pandas as pd
import pytest

from dashboard import compute, uploads
from dashboard.session import sign_in, user_limits
from dashboard.session import store as session_store
from dashboard.session.state import LoadedTable, Tables, init_state, persisted_keys
from dashboard.session.store import SessionStore, new_id, owner_token
from dashboard.session.user_limits import JOBS_VARIABLE, MEMORY_VARIABLE, User, UserLimitReached
from privcore.base.errors import InputError

ALICE = owner_token("https://id.example.org", "alice")
BOB = owner_token("https://id.example.org", "bob")


class State(dict):
    """A dict that can be weakly referenced, like Streamlit's session state."""


@pytest.fixture(autouse=True)
def nobody_signed_in():
    user_limits.set_current_user(None)
    yield
    user_limits.set_current_user(None)


# ------------------------------------------------------------------------------------------ settings
def test_settings_read_the_environment_first_then_secrets_then_the_default(monkeypatch):
    monkeypatch.delenv(JOBS_VARIABLE, raising=False)
    monkeypatch.delenv(MEMORY_VARIABLE, raising=False)
    assert user_limits.max_jobs() == user_limits.DEFAULT_JOBS
    assert user_limits.max_jobs(3) == 3 and user_limits.max_jobs("4") == 4
    assert user_limits.max_memory("2GB") == 2_000_000_000
    assert user_limits.max_memory() == user_limits.default_memory() > 0
    monkeypatch.setenv(JOBS_VARIABLE, "1")
    monkeypatch.setenv(MEMORY_VARIABLE, "512MiB")
    assert user_limits.max_jobs(3) == 1
    assert user_limits.max_memory("2GB") == 512 * 1024**2


@pytest.mark.parametrize("bad", ["zero", "0", "-2", "1.5"])
def test_a_bad_jobs_setting_falls_back_to_the_default_with_a_warning(monkeypatch, caplog, bad):
    monkeypatch.setenv(JOBS_VARIABLE, bad)
    assert user_limits.max_jobs() == user_limits.DEFAULT_JOBS
    assert JOBS_VARIABLE in caplog.text


def test_a_bad_memory_setting_falls_back_to_the_default_with_a_warning(monkeypatch, caplog):
    monkeypatch.setenv(MEMORY_VARIABLE, "lots")
    assert user_limits.max_memory() == user_limits.default_memory()
    assert MEMORY_VARIABLE in caplog.text


# -------------------------------------------------------------------------------------------- jobs
def test_a_user_at_the_jobs_limit_is_refused_and_others_are_not():
    alice, bob = User(ALICE, jobs=2), User(BOB, jobs=2)
    with user_limits.job_slot(alice), user_limits.job_slot(alice):
        assert user_limits.running_jobs(ALICE) == 2
        with pytest.raises(UserLimitReached, match=r"2 computations running.*\(2\).*Nothing was lost"):
            with user_limits.job_slot(alice):
                pytest.fail("a third job of Alice's must not start")
        with user_limits.job_slot(bob):  # Bob's share is untouched by Alice's
            assert user_limits.running_jobs(BOB) == 1
    assert user_limits.running_jobs(ALICE) == 0 and user_limits.running_jobs(BOB) == 0
    with user_limits.job_slot(alice):  # a finished job gives its slot back, a failed one too
        pass
    with pytest.raises(ZeroDivisionError), user_limits.job_slot(alice):
        1 / 0
    assert user_limits.running_jobs(ALICE) == 0


def test_run_job_counts_jobs_of_the_page_s_user_over_threads(monkeypatch):
    monkeypatch.setenv(compute.WORKERS_VARIABLE, "0")  # in the calling thread: the job can be held open
    started, release = threading.Barrier(3), threading.Event()
    outcomes = []

    def job(progress):
        started.wait(timeout=10)
        release.wait(timeout=10)
        return "done"

    def page_run():  # a page run in its own thread, as Streamlit runs each session's script
        user_limits.set_current_user(User(ALICE, jobs=2))
        outcomes.append(compute.run_job(job))

    threads = [threading.Thread(target=page_run) for _ in range(2)]
    for thread in threads:
        thread.start()
    started.wait(timeout=10)  # both of Alice's jobs run now
    user_limits.set_current_user(User(ALICE, jobs=2))
    with pytest.raises(UserLimitReached) as refused:
        compute.run_job(job)
    assert isinstance(refused.value, InputError)  # the pages show InputError messages, not tracebacks
    user_limits.set_current_user(None)  # sign-in off: no limit
    monkeypatch.setattr(threading.Barrier, "wait", lambda self, timeout=None: 0)
    release.set()
    assert compute.run_job(job) == "done"
    for thread in threads:
        thread.join(timeout=10)
    assert outcomes == ["done", "done"]
    assert user_limits.running_jobs(ALICE) == 0


# ------------------------------------------------------------------------------------------ memory
def frame(rows: int) -> pd.DataFrame:
    return pd.DataFrame({"age": range(rows), "job": ["nurse"] * rows})


def session_with(store: SessionStore, owner: str, rows: int) -> State:
    state = State()
    init_state(state)
    state["tables"] = Tables(real=LoadedTable.from_frame("real.csv", frame(rows)),
                             synthetic={"syn": LoadedTable.from_frame("syn", frame(rows // 2))})
    store.attach(new_id(), state, persisted_keys, owner=owner)
    return state


def test_memory_held_adds_up_every_session_of_the_user_only():
    store = SessionStore(idle_after=600)
    one = session_with(store, ALICE, 1000)
    two = session_with(store, ALICE, 2000)
    session_with(store, BOB, 50_000)
    expected = user_limits.state_bytes(one) + user_limits.state_bytes(two)
    assert expected > 0
    assert user_limits.held_bytes(ALICE, store) == expected
    assert user_limits.state_bytes(one) == user_limits.table_bytes(frame(1000)) + user_limits.table_bytes(frame(500))


def test_a_table_past_the_memory_limit_is_refused_with_the_numbers_and_what_to_do():
    store = SessionStore(idle_after=600)
    state = session_with(store, ALICE, 1000)
    held = user_limits.held_bytes(ALICE, store)
    alice = User(ALICE, memory=held + 100)
    user_limits.check_memory(100, "'small.csv'", alice, store)  # exactly at the limit: fine
    with pytest.raises(UserLimitReached) as refused:
        user_limits.check_memory(101, "'big.csv'", alice, store)
    message = str(refused.value)
    assert "'big.csv'" in message and "limit of" in message and MEMORY_VARIABLE in message
    assert "Forget my data now" in message
    assert state["tables"].real is not None  # nothing of what she holds was touched
    user_limits.check_memory(10**12, "'huge.csv'", None, store)  # sign-in off: no per-user limit
    user_limits.check_memory(101, "'bob.csv'", User(BOB, memory=held + 100), store)  # Bob holds nothing


class Upload:
    """Stands in for Streamlit's UploadedFile."""

    def __init__(self, name: str, data: bytes) -> None:
        self.name, self._data, self.size = name, data, len(data)

    def getvalue(self) -> bytes:
        return self._data

    def read(self) -> bytes:
        return self._data

    def seek(self, *_):
        return 0


def test_an_upload_past_the_limit_is_not_stored_and_says_why(monkeypatch):
    store = SessionStore(idle_after=600)
    monkeypatch.setattr(session_store, "_STORE", store)
    state = session_with(store, ALICE, 1000)
    csv = frame(5000).to_csv(index=False).encode()
    user_limits.set_current_user(User(ALICE, memory=user_limits.held_bytes(ALICE, store) + 1000))
    assert uploads.process_uploads(state, "synthetic", [Upload("more.csv", csv)]) is False
    assert list(state["tables"].synthetic) == ["syn"]
    errors = uploads.upload_errors(state, [Upload("more.csv", csv)])
    assert errors and "was not loaded" in errors[0][1] and "per user" in errors[0][1]
    user_limits.set_current_user(User(ALICE, memory=10**12))
    assert uploads.process_uploads(state, "synthetic", [Upload("again.csv", csv)]) is True


# ------------------------------------------------------------------------------- sign-in settings
GOOD = {"redirect_uri": "https://dash.example.org/oauth2callback", "cookie_secret": "s" * 32,
        "client_id": "privcore", "client_secret": "x",
        "server_metadata_url": "https://id.example.org/.well-known/openid-configuration"}


def test_without_an_auth_section_sign_in_is_off():
    assert sign_in.read_configuration(None) == sign_in.Configuration(enabled=False)
    assert sign_in.read_configuration({"session_idle_minutes": 5}).enabled is False


def test_a_complete_auth_section_turns_sign_in_on_with_its_provider():
    assert sign_in.read_configuration({"auth": GOOD}) == sign_in.Configuration(enabled=True, provider="default")
    shared = {k: GOOD[k] for k in ("redirect_uri", "cookie_secret")}
    named = {k: GOOD[k] for k in ("client_id", "client_secret", "server_metadata_url")}
    config = sign_in.read_configuration({"auth": {**shared, "keycloak": named}})
    assert config == sign_in.Configuration(enabled=True, provider="keycloak")
    two = {"auth": {**shared, "keycloak": named, "entra": named}}
    assert "several providers" in sign_in.read_configuration(two).problem
    assert sign_in.read_configuration({**two, "sign_in_provider": "entra"}).provider == "entra"


@pytest.mark.parametrize("change, expected", [
    ({"cookie_secret": ""}, "lacks cookie_secret"),
    ({"redirect_uri": "https://dash.example.org/"}, "must be this server's address followed by /oauth2callback"),
    ({"client_secret": None}, "[auth] lacks client_secret"),
])
def test_an_incomplete_auth_section_is_named_not_a_traceback(change, expected):
    auth = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    config = sign_in.read_configuration({"auth": auth})
    assert config.enabled and config.provider is None
    assert expected in config.problem


class BrokenSecrets:
    """``st.secrets`` whose file exists but is not valid TOML (or is missing altogether)."""

    def __init__(self, error_id: str) -> None:
        self.error_id = error_id

    def to_dict(self):
        from streamlit.errors import StreamlitSecretNotFoundError

        message = "No secrets found." if self.error_id == "no-secrets-found" else "Error parsing secrets file at {p}"
        raise StreamlitSecretNotFoundError(message, p="/etc/privcore/secrets.toml", error_id=self.error_id)


def test_an_unreadable_secrets_file_keeps_the_server_closed_and_no_file_leaves_sign_in_off(monkeypatch, caplog):
    monkeypatch.setattr(sign_in.st, "secrets", BrokenSecrets("failed-parsing-secrets-file"))
    config = sign_in.configuration()
    assert config.enabled and config.provider is None and "could not be read" in config.problem
    assert "/etc/privcore" not in config.problem and "/etc/privcore/secrets.toml" in caplog.text  # path: log only
    monkeypatch.setattr(sign_in.st, "secrets", BrokenSecrets("no-secrets-found"))
    assert sign_in.configuration() == sign_in.Configuration(enabled=False)
