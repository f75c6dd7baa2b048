"""Optional sign-in for a team server, with Streamlit's own OpenID Connect support.

Off by default: without an ``[auth]`` section in the server's secrets every page works as on one's own
laptop, with no sign-in.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st

from dashboard.session import persistence, user_limits
from dashboard.session import store as session_store

LOGGER = logging.getLogger(__name__)

AUTH_SECTION = "auth"
PROVIDER_SETTING = "sign_in_provider"
_SHARED_KEYS = ("redirect_uri", "cookie_secret")
_PROVIDER_KEYS = ("client_id", "client_secret", "server_metadata_url")
CALLBACK_PATH = "/oauth2callback"


@dataclass(frozen=True)
class Configuration:
    """What the secrets say about sign-in: on or off, which provider, or what is wrong."""

    enabled: bool
    provider: str | None = None
    problem: str | None = None


def _as_dict(value) -> dict | None:
    if isinstance(value, Mapping):
        return dict(value)
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else None


def read_configuration(secrets: Mapping | None) -> Configuration:
    """Sign-in settings from the app's secrets (a mapping; None when there is no secrets file).

    Parameters
    ----------
    secrets : mapping or None
        The whole secrets (``st.secrets`` as a mapping).

    Returns
    -------
    Configuration
        ``enabled`` False without an ``[auth]`` section; else the provider to sign in with (``"default"`` for
        keys directly in ``[auth]``), or ``problem``, a sentence naming the missing or wrong setting.

    Notes
    -----
    Settings (all in the secrets file; the provider's own in ``[auth]`` as Streamlit documents them):

    ``[auth]``: ``redirect_uri`` (this server's address + ``/oauth2callback``), ``cookie_secret``, and either
    ``client_id``, ``client_secret``, ``server_metadata_url`` directly, or one ``[auth.NAME]`` table with them.
    ``sign_in_provider`` (top level) names the table to use when there are several. ``user_jobs`` and
    ``user_memory`` (top level) set the per-user limits.

    A configuration that cannot work (a missing key, a redirect URI that is not ``…/oauth2callback``) stops every
    page with a message naming the setting, never a traceback; nothing is served without sign-in then.

    Examples
    --------
    >>> read_configuration(None).enabled
    False
    >>> read_configuration({"auth": {"redirect_uri": "http://x/oauth2callback"}}).problem[:40]
    'Sign-in is configured ([auth] in the sec'
    """
    auth = _as_dict(secrets.get(AUTH_SECTION)) if secrets is not None and AUTH_SECTION in secrets else None
    if auth is None:
        return Configuration(enabled=False)

    def problem(text: str) -> Configuration:
        return Configuration(enabled=True, problem=f"Sign-in is configured ([auth] in the secrets) but {text}")

    missing = [key for key in _SHARED_KEYS if not str(auth.get(key) or "").strip()]
    if missing:
        return problem(f"[auth] lacks {', '.join(missing)}.")
    if not str(auth["redirect_uri"]).rstrip("/").endswith(CALLBACK_PATH):
        return problem(f"redirect_uri must be this server's address followed by {CALLBACK_PATH} "
                       f"(got {auth['redirect_uri']!r}).")
    if "client_id" in auth:
        provider, section = "default", auth
    else:
        named = {name: _as_dict(value) for name, value in auth.items() if _as_dict(value) is not None}
        chosen = secrets.get(PROVIDER_SETTING)
        if chosen:
            if chosen not in named:
                return problem(f"{PROVIDER_SETTING} = {chosen!r} names no [auth.{chosen}] table.")
            provider = str(chosen)
        elif len(named) == 1:
            provider = next(iter(named))
        elif not named:
            return problem("names no provider: put client_id, client_secret and server_metadata_url in [auth] "
                           "or in one [auth.NAME] table.")
        else:
            return problem(f"has several providers ({', '.join(sorted(named))}): set {PROVIDER_SETTING} to one.")
        if "_" in provider:
            return problem(f"the provider's name {provider!r} has an underscore, which Streamlit does not allow.")
        section = named[provider]
    missing = [key for key in _PROVIDER_KEYS if not str(section.get(key) or "").strip()]
    if missing:
        where = "[auth]" if provider == "default" else f"[auth.{provider}]"
        return problem(f"{where} lacks {', '.join(missing)}.")
    return Configuration(enabled=True, provider=provider)


def _secrets() -> Mapping | None:
    try:
        return st.secrets.to_dict()
    except Exception:  # no secrets file, or one that is not valid TOML (Streamlit logs which)
        return None


def configuration() -> Configuration:
    """The server's sign-in configuration (:func:`read_configuration` of ``st.secrets``).

    A secrets file that exists but cannot be read (a TOML syntax error) keeps every page closed with a
    message: it may hold an ``[auth]`` section, and a typo must not open a team server to everyone.
    """
    try:
        secrets = st.secrets.to_dict()
    except Exception as exc:  # noqa: BLE001 - Streamlit raises StreamlitSecretNotFoundError for both cases
        if _no_secrets_file(exc):
            return Configuration(enabled=False)
        LOGGER.error("the secrets file could not be read: %s", exc)
        return Configuration(enabled=True, problem=(
            "The server's secrets file could not be read (is it valid TOML?), so whether sign-in is on cannot be "
            "told. The server's log names the file and the line."))
    return read_configuration(secrets)


def _no_secrets_file(exc: Exception) -> bool:
    """True when Streamlit found no secrets file at all (sign-in off), not a file it could not parse."""
    if getattr(exc, "error_id", None) is not None:
        return getattr(exc, "error_id") == "no-secrets-found"
    return str(exc).startswith("No secrets found")


def _setting(name: str):
    secrets = _secrets()
    return None if secrets is None else secrets.get(name)


def viewer_owner() -> str | None:
    """:func:`dashboard.session.store.owner_token` of the signed-in viewer, or None.

    None when the viewer is not signed in, or the provider gave no subject.
    """
    try:
        if not st.user.is_logged_in:
            return None
        subject, issuer = st.user.get("sub"), st.user.get("iss")
    except Exception:  # no auth section, or a Streamlit without st.user: nobody is signed in
        return None
    if not subject:
        return None
    # A provider that leaves out the issuer in its claims is told apart by the name it is configured under.
    return session_store.owner_token(str(issuer or f"provider:{st.user.get('provider')}"), str(subject))


def _signed_in_without_subject() -> bool:
    try:
        return bool(st.user.is_logged_in) and not st.user.get("sub")
    except Exception:  # as in viewer_owner: nobody is signed in
        return False


def display_name() -> str:
    """How the signed-in user is named in the sidebar (name, else e-mail, else subject)."""
    for claim in ("name", "email", "preferred_username", "sub"):
        value = st.user.get(claim)
        if value:
            return str(value)
    return "you"


def gate(state) -> str | None:
    """Call first on every page run: with sign-in on, stop the page for a visitor who is not signed in.

    Returns
    -------
    str or None
        The signed-in user's owner token (sessions are bound to it), or None when sign-in is off. Also sets
        the per-user limits for this run (:func:`dashboard.session.user_limits.set_current_user`).

    Notes
    -----
    Off by default: without an ``[auth]`` section in the server's secrets (``.streamlit/secrets.toml``, or a file
    named by ``--secrets.files``), every page works as on one's own laptop, with no sign-in. With one, every page
    first asks the visitor to sign in with the configured provider (``st.login``; Authlib underneath), and

    - each session's data is bound to the user who created it (:func:`dashboard.session.store.owner_token` of the
      provider's issuer and subject, kept in this process's memory only): a link opened by someone else, or by
      nobody, says that the session belongs to someone else and shows no data;
    - "Sign out" deletes the user's data from the server (every session of theirs), then signs out (``st.logout``);
    - the per-user limits of :mod:`dashboard.session.user_limits` apply.
    """
    config = configuration()
    if not config.enabled:
        user_limits.set_current_user(None)
        return None
    if config.problem is not None:
        user_limits.set_current_user(None)
        LOGGER.error("%s", config.problem)
        st.error(f"{config.problem} Until it is fixed, this server shows nothing. The \"Team server "
                 "with sign-in\" section of docs/server.md lists the settings.", icon=":material/error:")
        st.stop()
    owner = viewer_owner()
    if owner is None:
        user_limits.set_current_user(None)
        if _signed_in_without_subject():
            st.error("You are signed in, but the identity provider sent no subject (the \"sub\" claim), so this "
                     "server cannot keep your data apart from others'. Ask the server's administrator to check the "
                     "provider's settings (scope \"openid\").", icon=":material/error:")
            if st.button("Sign out", icon=":material/logout:", key="sign_out_no_subject"):
                st.logout()
        else:
            _sign_in_page(config.provider, state)
        st.stop()
    user_limits.set_current_user(user_limits.User(
        owner=owner, jobs=user_limits.max_jobs(_setting("user_jobs")),
        memory=user_limits.max_memory(_setting("user_memory"))))
    return owner


def _sign_in_page(provider: str, state) -> None:
    st.title("How private is your synthetic data?")
    if persistence.presented_foreign_session(owner=None):
        persistence.foreign_session_notice()
    st.info("This server is shared by a team: sign in to see and keep your own tables and results. Each "
            "person's data opens only for them, and is deleted when they sign out.", icon=":material/lock:")
    if st.button("Sign in", type="primary", icon=":material/login:", key="sign_in"):
        st.login(provider)


def sidebar_controls(state) -> None:
    """Who is signed in, and "Sign out" (which deletes the user's data first); nothing when sign-in is off."""
    owner = state.get(persistence.OWNER_KEY)
    if owner is None:
        return
    with st.sidebar:
        st.caption(f"Signed in as **{display_name()}**")
        if st.button("Sign out", icon=":material/logout:", key="sign_out",
                     help="Deletes your tables, settings and results from this server, then signs you out."):
            sign_out(state)


def sign_out(state) -> None:
    """Delete every session's data of the signed-in user from the server, then sign out (``st.logout``)."""
    owner = state.get(persistence.OWNER_KEY)
    if owner is not None:
        persistence.forget_owner(state, owner)
    st.logout()
    # st.logout only asks the browser to leave; this run must not go on drawing a page without its data.
    st.stop()
