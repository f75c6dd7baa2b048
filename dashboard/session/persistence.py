"""Work survives a reload: connects every page run to the server-memory :mod:`dashboard.session.store`.

Nothing is written to disk.
"""

from __future__ import annotations

import logging

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dashboard.session import store as session_store
from dashboard.session.state import persisted_keys

LOGGER = logging.getLogger(__name__)

QUERY_KEY = "session"
COOKIE_NAME = "privcore_session"
ID_KEY = "_privcore_session_id"
NOTICE_KEY = "_privcore_session_notice"
FORGOTTEN_KEY = "_privcore_forgotten"
#: The owner token of the signed-in user this session runs for (memory only; not part of the user's work).
OWNER_KEY = "_privcore_owner"
_COOKIE_SET_KEY = "_privcore_cookie_set"


def idle_minutes() -> float:
    """The configured idle time in minutes (environment variable first, then secrets, then 30).

    Notes
    -----
    The data goes after this idle time without a page run (default 30; ``PRIVCORE_SESSION_IDLE_MINUTES`` or
    ``session_idle_minutes`` in ``.streamlit/secrets.toml``), or at once with the sidebar's "Forget my data
    now" button. Both delete the work from every session that holds the id, an open tab included. Nothing
    is written to disk.
    """
    return session_store.idle_seconds(_configured_minutes()) / 60.0


def _configured_minutes():
    try:
        return st.secrets.get("session_idle_minutes")
    except Exception:  # no secrets file: Streamlit raises rather than returning None
        return None


def _store() -> session_store.SessionStore:
    return session_store.process_store(idle_minutes() * 60.0)


def _live_state():
    """The session's own state mapping (not the ``st.session_state`` proxy).

    The proxy always resolves to the session running *now*: the store must keep pointing at this session after another
    one runs.
    """
    ctx = get_script_run_ctx(suppress_warning=True)
    return None if ctx is None else ctx.session_state


def connect(state, owner: str | None = None) -> None:
    """Restore or register this session's work; call first on every page run (before defaults are set).

    Parameters
    ----------
    state : mapping
        ``st.session_state``.
    owner : str, optional
        The signed-in user's owner token (:func:`dashboard.session.sign_in.gate`); None with sign-in off. Only
        entries of this owner are restored, and a new entry is bound to it.

    Sets a one-run notice in ``state[NOTICE_KEY]``: ``"restored"``, ``"expired"``, ``"foreign"`` (the link
    opens someone else's session) or None.

    Notes
    -----
    How a browser finds its work again:

    - Each browser session gets an unguessable id (:func:`dashboard.session.store.new_id`). The id travels
      in the URL's query string (``?session=ID``; every page link keeps it), so a reload finds it, and in a
      cookie (``privcore_session``, ``SameSite=Strict``, this site only), so a page URL typed into the same
      browser finds it too.
    - The first run of a new Streamlit session that presents a live id copies the user's work (the keys of
      :func:`dashboard.session.state.persisted_keys`: tables, schema, chosen metrics, parameters, results, audit
      results) into its own ``st.session_state``, by reference, and becomes the session the id points to.
    - The id is a key to the data: whoever has the link has the data until it expires. The sidebar says so.
    - With sign-in on (:mod:`dashboard.session.sign_in`), the entry is also bound to the signed-in user who created it
      (an in-memory owner token, never the identity itself): another user, or nobody, presenting the id gets
      no data and a notice that the session belongs to someone else; signing out deletes the user's data.
    """
    live = _live_state()
    if live is None:  # bare Python (no Streamlit runtime): nothing to persist
        return
    store = _store()
    session_id = state.get(ID_KEY)
    state[NOTICE_KEY] = None
    if session_id is not None and state.get(OWNER_KEY) != owner:
        # The user of this session changed (signed out, or in as someone else): its work is not theirs.
        _drop_work(state)
        session_id = None
    state[OWNER_KEY] = owner
    if session_id is None:
        session_id = _restore_presented_id(state, store, owner)
        store.attach(session_id, live, persisted_keys, owner=owner)
    elif not store.touch(session_id, live, owner=owner):
        # Expired (or forgotten in another tab) while this tab stayed open: the work is already deleted.
        state[NOTICE_KEY] = "expired"
        _drop_work(state)
        session_id = session_store.new_id()
        state[ID_KEY] = session_id
        store.attach(session_id, live, persisted_keys, owner=owner)
    if st.query_params.get(QUERY_KEY) != session_id:
        st.query_params[QUERY_KEY] = session_id


def _drop_work(state) -> None:
    """Remove the user's work and the id from this session's state (the store's entry is not touched)."""
    for key in persisted_keys(state):
        if key in state:
            del state[key]
    for key in (ID_KEY, _COOKIE_SET_KEY):
        state.pop(key, None)


def _restore_presented_id(state, store: session_store.SessionStore, owner: str | None) -> str:
    """The id of the URL, else of the cookie, if the store still has it for ``owner``; else a new one.

    A dead id in the URL is reported even when the cookie brings back other work: the link the user followed is stale. A
    live id of someone else in the URL is reported as such, and never restored.
    """
    from_url = st.query_params.get(QUERY_KEY)
    stale = None  # the notice about the URL's link: "expired" or "foreign"
    for candidate in (from_url, _cookie()):
        if not candidate:
            continue
        restored = store.restore(candidate, owner)
        if restored is None:
            if candidate == from_url:
                stale = "foreign" if store.belongs_to_other(candidate, owner) else "expired"
            elif stale is None and not store.belongs_to_other(candidate, owner):
                stale = "expired"  # the cookie's id died; another user's cookie in this browser is no news
            continue
        for key, value in restored.items():
            state[key] = value
        state[ID_KEY] = candidate
        holds_work = getattr(restored.get("tables"), "real", None) is not None
        state[NOTICE_KEY] = stale if stale else ("restored" if holds_work else None)
        return candidate
    state[NOTICE_KEY] = stale
    state[ID_KEY] = session_store.new_id()
    return state[ID_KEY]


def presented_foreign_session(owner: str | None) -> bool:
    """True when the URL's ``?session=`` id is live and belongs to someone other than ``owner``."""
    store = session_store.current_store()
    return store is not None and store.belongs_to_other(st.query_params.get(QUERY_KEY), owner)


#: The notice shown instead of another person's data.
FOREIGN_TEXT = ("**This session belongs to someone else.** The link you opened holds another person's data, "
                "which opens only for them when they are signed in. Nothing of it is shown here.")


def foreign_session_notice() -> None:
    """Say, in the page's main area, that the link opened someone else's session."""
    st.warning(FOREIGN_TEXT, icon=":material/lock_person:")


def page_notice(state) -> None:
    """The main-area notice of this run, if any (a link to someone else's session)."""
    if state.get(NOTICE_KEY) == "foreign":
        foreign_session_notice()


def _cookie() -> str | None:
    try:
        return st.context.cookies.get(COOKIE_NAME)
    except Exception:  # no request context (e.g. a test harness without cookies)
        return None


def keep_alive(state) -> None:
    """Count a long computation as use, so that its session does not expire while it runs.

    Call it from progress updates; it is cheap.
    """
    sid = state.get(ID_KEY)
    if sid is not None and _live_state() is not None:
        _store().touch(sid, owner=state.get(OWNER_KEY))


def session_id(state) -> str | None:
    """The session's id (None outside a Streamlit run)."""
    return state.get(ID_KEY)


def page_query(state) -> dict[str, str] | None:
    """Query parameters that keep the id in the URL when a page link is followed."""
    sid = session_id(state)
    return {QUERY_KEY: sid} if sid else None


def sidebar_controls(state) -> None:
    """The notice of a restored or expired session, the cookie, and the "Forget my data now" button."""
    sid = session_id(state)
    if sid is None:
        return
    with st.sidebar:
        notice = state.get(NOTICE_KEY)
        if state.pop(FORGOTTEN_KEY, False):
            st.success("Your data was deleted from the server.", icon=":material/delete_forever:")
        elif notice == "restored":
            st.toast("Your tables, settings and results were restored.", icon=":material/restore:")
        elif notice == "expired":
            st.info(f"No data is kept under this link any more: data is deleted {idle_minutes():g} minutes "
                    "after its last use, or at once with \"Forget my data now\".", icon=":material/timer_off:")
        _write_cookie(state, sid)
        if not _holds_data(state):
            return
        if state.get(OWNER_KEY) is None:
            who = "The link in the address bar opens them: do not share it."
        else:
            who = "The link in the address bar opens them only for you, signed in; signing out deletes them."
        st.caption(
            f"Your tables and results stay in this server's memory (never on disk) for "
            f"{idle_minutes():g} minutes after your last action, so a reload does not lose them. {who}"
        )
        if st.button("Forget my data now", icon=":material/delete_forever:", key="forget_my_data",
                     help="Deletes your tables, settings and results from the server at once."):
            forget(state)


def _holds_data(state) -> bool:
    tables = state.get("tables")
    return getattr(tables, "real", None) is not None or state.get("reference") is not None


def _write_cookie(state, sid: str) -> None:
    if _cookie() == sid or state.get(_COOKIE_SET_KEY) == sid:
        return
    max_age = int(idle_minutes() * 60)
    # The id is URL-safe base64 (no quotes or semicolons), so it can be written into the cookie as is.
    st.html(f"<script>document.cookie = '{COOKIE_NAME}={sid}; Max-Age={max_age}; Path=/; SameSite=Strict';"
            "</script>", unsafe_allow_javascript=True)
    state[_COOKIE_SET_KEY] = sid


def forget(state) -> None:
    """Delete this session's work from the server and the browser, start afresh and rerun the page."""
    sid = session_id(state)
    if sid is not None:
        _store().forget(sid, owner=state.get(OWNER_KEY))
    for key in persisted_keys(state):
        if key in state:
            del state[key]
    # The next run gets a new id, which replaces the old one in the URL and in the cookie.
    for key in (ID_KEY, _COOKIE_SET_KEY):
        state.pop(key, None)
    st.query_params.pop(QUERY_KEY, None)
    state[FORGOTTEN_KEY] = True
    st.rerun()


def forget_owner(state, owner: str) -> None:
    """Delete the data of every session of ``owner`` from the server and this session (signing out)."""
    _store().forget_owner(owner)
    _drop_work(state)
    st.query_params.pop(QUERY_KEY, None)
