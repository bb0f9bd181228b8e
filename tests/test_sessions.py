"""The session store (config/sessions.py): a new session is one INSERT at the end of the
request that logs in, and what it holds is what the next requests find."""
from __future__ import annotations

import pytest
from django.contrib.sessions.models import Session
from django.db import transaction
from django.test import Client

from challenges import auth
from config.sessions import SessionStore


def forget_every_remembered_session():
    auth._SESSION_CACHE.clear()
    client = auth.redis_client()
    if client is not None:
        for key in client.scan_iter(auth._SHARED_PREFIX + "*"):
            client.delete(key)


@pytest.mark.django_db(transaction=True)  # as in production: no test transaction around it
def test_a_signup_writes_its_session_once_and_the_session_holds_the_player(django_assert_num_queries):
    browser = Client()
    # user and player in one transaction (4), last log-in time (1), the session row (1)
    with django_assert_num_queries(6):
        created = browser.post("/api/players", {"name": "Once Written"}, content_type="application/json")
    assert created.status_code == 201
    key = browser.cookies["sessionid"].value
    assert Session.objects.filter(session_key=key).count() == 1
    forget_every_remembered_session()  # the next request must read the row itself
    me = browser.get("/api/players/me")
    assert me.status_code == 200 and me.json()["name"] == "Once Written"


@pytest.mark.django_db
def test_a_drawn_key_that_exists_is_drawn_again_and_the_existing_session_is_untouched():
    taken = SessionStore()
    taken["who"] = "first"
    taken.save()
    assert len(taken.session_key) == 32

    store = SessionStore()
    draws = iter([taken.session_key, "k" * 32])
    store._get_new_session_key = lambda: next(draws)
    store["who"] = "second"
    with transaction.atomic():  # inside a transaction the clash must not break it
        store.save()
        assert Session.objects.count() == 2
    assert store.session_key == "k" * 32
    assert SessionStore(taken.session_key).load() == {"who": "first"}
    assert SessionStore("k" * 32).load() == {"who": "second"}


@pytest.mark.django_db
def test_a_changed_session_is_updated_in_place_and_a_vanished_one_is_not_recreated():
    from django.contrib.sessions.backends.base import UpdateError

    store = SessionStore()
    store["n"] = 1
    store.save()
    key = store.session_key
    again = SessionStore(key)
    again["n"] = 2
    again.save()
    assert again.session_key == key and SessionStore(key).load() == {"n": 2}

    Session.objects.filter(session_key=key).delete()  # logged out elsewhere meanwhile
    again["n"] = 3
    with pytest.raises(UpdateError):
        again.save()
    assert not Session.objects.filter(session_key=key).exists()
