"""Sessions bound to their owner (issue 25), at the store's level: with sign-in on, a session id guessed or
copied without its owner's sign-in never returns data, never keeps the entry alive, never deletes it."""

from __future__ import annotations

import pytest

from dashboard.session import store as session_store
from dashboard.session.state import persisted_keys
from dashboard.session.store import new_id, owner_token


class State(dict):
    """A dict that can be weakly referenced, like Streamlit's session state."""


ISSUER = "https://id.example.org/realms/team"
ALICE = owner_token(ISSUER, "alice-sub")
BOB = owner_token(ISSUER, "bob-sub")


@pytest.fixture
def alices(store):
    """Alice's session (an id and the state it points to) with her tables and results in it."""
    sid = new_id()
    state = State(tables="alice's tables", results={"run": "alice's report"}, schema="schema")
    store.attach(sid, state, persisted_keys, owner=ALICE)
    return sid, state


def test_the_owner_token_tells_users_and_providers_apart_and_holds_no_identity():
    assert owner_token(ISSUER, "alice-sub") == ALICE  # stable for the process's life
    assert ALICE != BOB
    assert owner_token("https://other.example.org", "alice-sub") != ALICE  # same subject, other provider
    assert "alice" not in ALICE and ISSUER not in ALICE and len(ALICE) == 64


def test_a_copied_id_returns_nothing_to_another_user_or_to_nobody(store, alices):
    sid, state = alices
    assert store.restore(sid, BOB) is None
    assert store.restore(sid, None) is None  # nobody signed in
    assert store.restore(sid) is None  # the pre-sign-in call: no owner given
    assert store.restore(sid, ALICE)["tables"] == "alice's tables"  # her own sign-in gets it back
    assert state["tables"] == "alice's tables"  # the refused restores took nothing away


def test_a_guessed_id_returns_nothing_to_anyone(store, alices):
    sid, _ = alices
    for guess in (new_id(), sid[:-1], sid + "A", sid.upper(), "", "0" * len(sid)):
        for owner in (ALICE, BOB, None):
            if guess == sid and owner == ALICE:
                continue
            assert store.restore(guess, owner) is None, (guess, owner)


def test_another_user_cannot_take_over_keep_alive_or_delete_the_entry(store, clock, alices):
    sid, state = alices
    intruder = State(tables="bob's tables")
    assert store.attach(sid, intruder, persisted_keys, owner=BOB) is False
    assert store.touch(sid, intruder, owner=BOB) is False
    assert store.touch(sid, intruder) is False
    assert store.restore(sid, ALICE)["tables"] == "alice's tables"  # still points to her state
    assert store.forget(sid, owner=BOB) is False and store.forget(sid) is False
    assert state["tables"] == "alice's tables" and sid in store
    clock.now += 29 * 60
    store.touch(sid, owner=BOB)  # a foreign touch does not count as use ...
    clock.now += 2 * 60
    assert store.restore(sid, ALICE) is None  # ... so the entry expires 30 minutes after her last use
    assert "tables" not in state


def test_the_store_says_a_live_id_belongs_to_someone_else_and_nothing_more(store, alices):
    sid, _ = alices
    assert store.belongs_to_other(sid, BOB) and store.belongs_to_other(sid, None)
    assert not store.belongs_to_other(sid, ALICE)
    assert not store.belongs_to_other(new_id(), BOB)  # an unknown id is not "someone else's"
    assert not store.belongs_to_other(None, BOB) and not store.belongs_to_other("", None)


def test_signing_out_forgets_every_session_of_the_user_and_no_one_elses(store, alices):
    sid, state = alices
    second = State(tables="alice's second tab")
    sid2 = new_id()
    store.attach(sid2, second, persisted_keys, owner=ALICE)
    bobs = State(tables="bob's tables")
    bob_sid = new_id()
    store.attach(bob_sid, bobs, persisted_keys, owner=BOB)
    assert len(store.owned_states(ALICE)) == 2
    assert store.forget_owner(ALICE) == 2
    assert store.restore(sid, ALICE) is None and store.restore(sid2, ALICE) is None
    assert "tables" not in state and "tables" not in second  # deleted from the open tabs too
    assert store.restore(bob_sid, BOB)["tables"] == "bob's tables"


def test_without_sign_in_the_id_alone_still_opens_the_session_as_before(store):
    sid = new_id()
    store.attach(sid, State(tables="t"), persisted_keys)
    assert store.restore(sid)["tables"] == "t"
    assert store.restore(sid, ALICE) is None  # an unowned entry is not handed to a signed-in user either


def test_nothing_about_users_is_kept_beyond_the_token(store, alices):
    sid, _ = alices
    entry = store._entries[sid]
    assert entry.owner == ALICE
    assert "alice-sub" not in repr(vars(entry)) and ISSUER not in repr(vars(entry))
    assert session_store._OWNER_KEY not in repr(vars(entry)).encode()
