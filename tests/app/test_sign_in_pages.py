"""Sign-in on the pages (issue 25), in AppTest: the gate, the notice instead of someone else's data, signing
out, a wrong configuration, and the per-user jobs limit's message. The real sign-in against an OpenID Connect
provider is in tests/browser/test_sign_in.py; here ``at.user`` stands for the provider's identity cookie."""

from __future__ import annotations

import pytest

from dashboard.session import persistence, user_limits
from dashboard.session import store as session_store
from dashboard.session.store import owner_token

from .conftest import assert_no_exception, open_page, seed_session, texts

RESULTS = "pages/4_Results.py"
ISSUER = "https://id.example.org/realms/team"
AUTH = {"redirect_uri": "http://127.0.0.1:8501/oauth2callback", "cookie_secret": "c" * 48,
        "client_id": "privcore", "client_secret": "s",
        "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}


def user(subject: str) -> dict:
    return {"is_logged_in": True, "sub": subject, "iss": ISSUER, "email": f"{subject}@team.example"}


def signed(page: str | None, who: dict | None, auth: dict | None = AUTH):
    at = open_page(page)
    if auth is not None:
        at.secrets["auth"] = auth
    if who is not None:
        at.user = who
    return at


def session_id_of(at) -> str:
    value = at.query_params[persistence.QUERY_KEY]
    return value[0] if isinstance(value, list) else value


def all_text(at) -> str:
    parts = [texts(at.markdown), texts(at.caption), texts(at.info), texts(at.warning), texts(at.error),
             texts(at.sidebar.markdown)]
    return "\n".join(parts)


@pytest.fixture
def alices_session():
    """Alice, signed in, with tables loaded on the Results page."""
    at = signed(RESULTS, user("alice"))
    seed_session(at)
    at.run()
    assert_no_exception(at)
    assert "Signed in as" in texts(at.sidebar.caption)
    return at


def test_not_signed_in_every_page_shows_only_the_sign_in(monkeypatch):
    for page in (None, RESULTS, "pages/1_Data.py"):
        at = signed(page, {"is_logged_in": False}).run()
        assert_no_exception(at)
        assert [b.label for b in at.button] == ["Sign in"]
        assert "sign in" in texts(at.info).lower()
        assert not at.sidebar.button and "Nothing loaded yet" not in all_text(at)


def test_a_signed_in_users_session_is_bound_to_them(alices_session):
    sid = session_id_of(alices_session)
    store = session_store.current_store()
    assert store.restore(sid, owner_token(ISSUER, "alice"))["tables"].real is not None
    assert store.restore(sid, owner_token(ISSUER, "bob")) is None
    assert store.restore(sid) is None


def test_another_user_opening_the_link_sees_the_notice_and_no_data(alices_session):
    bob = signed(RESULTS, user("bob"))
    bob.query_params[persistence.QUERY_KEY] = session_id_of(alices_session)
    bob.run()
    assert_no_exception(bob)
    assert "This session belongs to someone else" in texts(bob.warning)
    assert bob.session_state["tables"].real is None
    assert "real.csv" not in all_text(bob)
    assert session_id_of(bob) != session_id_of(alices_session)
    # Alice's data is untouched by the attempt.
    again = signed(RESULTS, user("alice"))
    again.query_params[persistence.QUERY_KEY] = session_id_of(alices_session)
    again.run()
    assert again.session_state["tables"].real.name == "real.csv"
    assert "someone else" not in texts(again.warning)


def test_nobody_opening_the_link_gets_the_sign_in_page_with_the_notice(alices_session):
    at = signed(RESULTS, {"is_logged_in": False})
    at.query_params[persistence.QUERY_KEY] = session_id_of(alices_session)
    at.run()
    assert_no_exception(at)
    assert "This session belongs to someone else" in texts(at.warning)
    assert [b.label for b in at.button] == ["Sign in"]
    assert "real.csv" not in all_text(at)


def test_signing_out_deletes_the_users_data_from_the_server(alices_session):
    sid = session_id_of(alices_session)
    alices_session.button(key="sign_out").click().run()
    assert_no_exception(alices_session)
    assert session_store.current_store().restore(sid, owner_token(ISSUER, "alice")) is None
    assert "tables" not in alices_session.session_state  # this session's references are dropped too
    alices_session.run()  # the next run of this session: signed out (AppTest's st.logout empties at.user)
    assert [b.label for b in alices_session.button] == ["Sign in"]
    again = signed(RESULTS, user("alice"))
    again.query_params[persistence.QUERY_KEY] = sid
    again.run()
    assert again.session_state["tables"].real is None
    assert "No data is kept under this link" in texts(again.sidebar.info)


@pytest.mark.parametrize("change, expected", [
    ({"cookie_secret": ""}, "[auth] lacks cookie_secret"),
    ({"redirect_uri": "http://127.0.0.1:8501/"}, "/oauth2callback"),
    ({"client_id": None}, "names no provider"),
])
def test_a_wrong_configuration_names_the_setting_and_shows_nothing_else(change, expected):
    auth = {k: v for k, v in {**AUTH, **change}.items() if v is not None}
    at = signed(None, user("alice"), auth).run()
    assert_no_exception(at)
    assert expected in texts(at.error) and "Team server with sign-in" in texts(at.error)
    assert not at.button and not at.sidebar.button


def test_a_provider_without_a_subject_gets_a_message_not_a_loop():
    at = signed(None, {"is_logged_in": True, "email": "someone@team.example"}).run()
    assert_no_exception(at)
    assert "sent no subject" in texts(at.error)
    assert [b.label for b in at.button] == ["Sign out"] and "Start with demo data" not in all_text(at)


def test_without_auth_settings_there_is_no_sign_in():
    at = signed(None, None, auth=None).run()
    assert_no_exception(at)
    assert "Sign in" not in [b.label for b in at.button]
    assert "Start with demo data" in [b.label for b in at.button]
    assert "Signed in as" not in texts(at.sidebar.caption)


def test_a_user_at_the_jobs_limit_gets_a_message_and_loses_nothing(monkeypatch, alices_session):
    monkeypatch.setenv(user_limits.JOBS_VARIABLE, "1")
    at = alices_session
    at.session_state["selected_metrics"] = ["dcr"]
    at.run()
    # Alice already has one computation running (in another tab): her second is refused.
    with user_limits.job_slot(user_limits.User(owner_token(ISSUER, "alice"), jobs=1)):
        at.button(key="run_evaluation").click().run()
    assert_no_exception(at)
    message = texts(at.error)
    assert "computation running" in message and "Nothing was lost" in message, message
    assert not at.session_state["results"]
    assert at.session_state["tables"].real is not None
    # Once it has finished, the same button runs.
    at.button(key="run_evaluation").click().run()
    assert_no_exception(at)
    assert at.session_state["results"]
