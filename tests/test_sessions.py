"""Django's own sessions (cached_db on Redis when REDIS_URL is set, database sessions on the
embedded default) and the credentials a player can end: log-out, a password change, a new
token. Every old credential is refused on the very next request: nothing is remembered
per process (tests/test_sessions_processes.py checks it across two real servers)."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.cache import caches
from django.test import Client, override_settings

from config import redis_client as guard
from tests.test_ops_health import free_port

pytestmark = pytest.mark.django_db

CACHED = settings.SESSION_ENGINE == "config.sessions"


def browser_player(name: str, password: str | None = None) -> tuple[Client, dict]:
    """A browser (CSRF enforced, as in production) that created the player ``name``."""
    browser = Client(enforce_csrf_checks=True)
    created = browser.post("/api/players", {"name": name}, content_type="application/json")
    assert created.status_code == 201, created.content
    csrf = {"HTTP_X_CSRFTOKEN": browser.cookies["csrftoken"].value}
    if password:
        assert (
            browser.post(
                "/api/players/me/password", {"password": password}, content_type="application/json", **csrf
            ).status_code
            == 200
        )
    return browser, {**created.json(), "csrf": csrf}


def with_cookie(key: str) -> Client:
    other = Client()
    other.cookies["sessionid"] = key
    return other


def me(client: Client, token: str | None = None) -> int:
    extra = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return client.get("/api/players/me", **extra).status_code


def test_a_request_reads_its_user_and_player_in_one_query(django_assert_num_queries):
    browser, info = browser_player("One Query")
    # The session from Redis (cached_db) or its row (database sessions), then user + player.
    with django_assert_num_queries(1 if CACHED else 2):
        assert browser.get("/api/players/me").json()["name"] == "One Query"
    with django_assert_num_queries(1):  # a token: the player with its user
        assert me(Client(), info["token"]) == 200
    if CACHED:  # from then on, the user's copy in Redis: no query (tests below: dropped at every change)
        with django_assert_num_queries(0):
            assert browser.get("/api/players/me").json()["name"] == "One Query"
        with django_assert_num_queries(0):
            assert me(Client(), info["token"]) == 200


@pytest.mark.skipif(not CACHED, reason="the sessions' cache is Redis (REDIS_URL)")
def test_a_session_is_read_from_the_cache_and_its_row_when_the_cache_lost_it(django_assert_num_queries):
    browser, _ = browser_player("Cached One")
    key = browser.cookies["sessionid"].value
    cache = caches[settings.SESSION_CACHE_ALIAS]
    assert cache.get("django.contrib.sessions.cached_db" + key)
    cache.delete("django.contrib.sessions.cached_db" + key)  # evicted
    with django_assert_num_queries(2):  # the row, then user + player; the copy is put back
        assert browser.get("/api/players/me").status_code == 200
    assert cache.get("django.contrib.sessions.cached_db" + key)


def test_log_out_ends_the_session_at_once():
    browser, info = browser_player("Leaving Soon")
    key = browser.cookies["sessionid"].value
    copy = with_cookie(key)  # the same cookie elsewhere (another tab, a stolen copy)
    assert me(copy) == 200
    out = browser.delete("/api/session", **info["csrf"])
    assert out.status_code == 204, out.content
    assert me(browser) == 401 and me(copy) == 401
    assert not Session.objects.filter(session_key=key).exists()
    if CACHED:
        assert caches[settings.SESSION_CACHE_ALIAS].get("django.contrib.sessions.cached_db" + key) is None
    # The token is a credential of its own: still valid (rotating it ends it).
    assert me(Client(), info["token"]) == 200
    # Logging out again, signed out: nothing to end.
    assert browser.delete("/api/session", HTTP_X_CSRFTOKEN=browser.cookies["csrftoken"].value).status_code == 204


def test_log_out_needs_the_csrf_token_and_is_not_counted_as_a_log_in():
    browser, info = browser_player("Csrf Guard")
    refused = browser.delete("/api/session")  # another site's request carries no CSRF header
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    assert me(browser) == 200
    with override_settings(RATE_LIMITS={**settings.RATE_LIMITS, "logins": "1/hour"}):
        for _ in range(3):
            assert browser.delete("/api/session", **info["csrf"]).status_code == 204


def test_a_token_has_no_session_to_end():
    _, info = browser_player("Token Client")
    answer = Client().delete("/api/session", HTTP_AUTHORIZATION=f"Token {info['token']}")
    assert answer.status_code == 400 and answer.json()["error"] == "not_a_session"
    assert me(Client(), info["token"]) == 200


def test_a_password_change_ends_every_other_session_and_keeps_this_one():
    first, info = browser_player("Two Devices", password="first-pass-123")
    second = Client(enforce_csrf_checks=True)
    assert (
        second.post(
            "/api/session", {"name": "Two Devices", "password": "first-pass-123"}, content_type="application/json"
        ).status_code
        == 200
    )
    assert me(second) == 200
    before = first.cookies["sessionid"].value
    changed = first.post(
        "/api/players/me/password", {"password": "second-pass-456"}, content_type="application/json", **info["csrf"]
    )
    assert changed.status_code == 200
    assert me(second) == 401  # the other device: at once
    assert me(first) == 200  # this one goes on, under a new key
    assert first.cookies["sessionid"].value != before and me(with_cookie(before)) == 401
    assert me(Client(), info["token"]) == 200  # the token is not a session
    assert (
        Client()
        .post("/api/session", {"name": "Two Devices", "password": "first-pass-123"}, content_type="application/json")
        .status_code
        == 401
    )


def test_a_token_client_changing_the_password_gets_no_session():
    browser, info = browser_player("Api Setter")
    api = Client()
    assert (
        api.post(
            "/api/players/me/password",
            {"password": "api-pass-7890"},
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Token {info['token']}",
        ).status_code
        == 200
    )
    assert "sessionid" not in api.cookies
    assert me(browser) == 401  # the browser's session held the password of before


def test_a_new_token_refuses_the_old_one_at_once():
    browser, info = browser_player("Rotating Token")
    old = info["token"]
    rotated = Client().post("/api/players/me/token", HTTP_AUTHORIZATION=f"Token {old}")
    assert rotated.status_code == 200
    new = rotated.json()["token"]
    assert new != old and len(new) >= 40
    assert me(Client(), old) == 401 and me(Client(), new) == 200
    assert me(browser) == 200  # sessions are not tokens
    # A browser can rotate too (its CSRF token required).
    assert browser.post("/api/players/me/token", content_type="application/json").status_code == 403
    again = browser.post("/api/players/me/token", content_type="application/json", **info["csrf"]).json()["token"]
    assert me(Client(), new) == 401 and me(Client(), again) == 200
    assert Client().post("/api/players/me/token").status_code == 401


# --- the user's copy in Redis (challenges/auth.py) -------------------------------------


def copy_of(user_id: int):
    from challenges.auth import USER_KEY

    return caches["default"].get(USER_KEY % user_id)


def change(kind: str, browser: Client, info: dict) -> None:
    from django.contrib.auth import get_user_model

    csrf = info["csrf"]
    if kind == "rename":
        answer = browser.patch("/api/players/me", {"name": "Renamed Now"}, content_type="application/json", **csrf)
    elif kind == "password":
        answer = browser.post(
            "/api/players/me/password", {"password": "brand-new-pass-1"}, content_type="application/json", **csrf
        )
    elif kind == "token":
        answer = browser.post("/api/players/me/token", content_type="application/json", **csrf)
    elif kind == "delete":
        answer = browser.delete("/api/players/me", **csrf)
    else:  # deactivated by staff (the admin saves the user)
        user = get_user_model().objects.get(player__pk=info["id"])
        user.is_active = False
        user.save()
        return
    assert answer.status_code in (200, 204), answer.content


@pytest.mark.skipif(not CACHED, reason="the user's copy lives in the shared Redis cache (REDIS_URL)")
@pytest.mark.parametrize("kind", ["rename", "password", "token", "delete", "deactivate"])
def test_every_change_drops_the_users_copy_and_is_seen_at_once(kind):
    from django.contrib.auth import get_user_model

    from challenges.auth import HOLD

    browser, info = browser_player(f"Copied {kind[:8]}")
    copy = with_cookie(browser.cookies["sessionid"].value)  # the same session, another tab
    user_id = get_user_model().objects.get(player__pk=info["id"]).pk
    for _ in range(2):  # the copy is made, then read
        assert me(copy) == 200 and me(Client(), info["token"]) == 200
    assert isinstance(copy_of(user_id), get_user_model())
    change(kind, browser, info)
    assert copy_of(user_id) == HOLD  # held off: the next requests read the database
    if kind == "rename":
        assert copy.get("/api/players/me").json()["name"] == "Renamed Now"
        assert (
            Client().get("/api/players/me", HTTP_AUTHORIZATION=f"Token {info['token']}").json()["name"] == "Renamed Now"
        )
    elif kind == "password":
        assert me(browser) == 200  # this session goes on under its new key
        assert me(copy) == 401  # the old key is gone
        assert me(Client(), info["token"]) == 200  # a token is not a session
    elif kind == "token":
        assert me(Client(), info["token"]) == 401 and me(copy) == 200
    else:  # deleted or deactivated: nothing of the player's works
        assert me(copy) == 401 and me(Client(), info["token"]) == 401
    assert copy_of(user_id) == HOLD  # and no request put a copy back over the mark


@contextmanager
def after_reading_the_user(then):
    """``then()`` runs inside the next request, right after it has read its user's rows from
    the database and before it answers: a change that lands in between, or a slow read."""
    from django.db import connection

    done = []

    def wrapper(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if not done and '"auth_user"' in sql and sql.lstrip().upper().startswith("SELECT"):
            done.append(sql)
            then()
        return result

    with connection.execute_wrapper(wrapper):
        yield
    assert done, "the request did not read its user from the database"


def user_reads(client: Client, token: str) -> tuple[str, int]:
    """A token request's answer (the name it shows) and how many times it read a user's rows."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        name = client.get("/api/players/me", HTTP_AUTHORIZATION=f"Token {token}").json()["name"]
    return name, sum('"auth_user"' in q["sql"] for q in queries.captured_queries)


@pytest.mark.skipif(not CACHED, reason="the user's copy lives in the shared Redis cache (REDIS_URL)")
def test_a_read_from_before_a_rename_is_not_served_after_it():
    from challenges.accounts import player_rename
    from challenges.models import Player

    _, info = browser_player("Racing Reader")
    player = Player.objects.get(pk=info["id"])
    # A request reads the rows; a rename commits before that request answers.
    with after_reading_the_user(lambda: player_rename(player=player, name="Renamed Meanwhile")):
        assert user_reads(Client(), info["token"])[0] == "Racing Reader"  # what it read, once
    # What it read is not kept: every request after the rename shows the new name.
    for _ in range(2):
        assert user_reads(Client(), info["token"])[0] == "Renamed Meanwhile"


@pytest.mark.skipif(not CACHED, reason="the user's copy lives in the shared Redis cache (REDIS_URL)")
def test_rows_read_too_long_ago_are_not_kept_and_a_prompt_read_is(monkeypatch):
    import time

    from challenges import auth

    _, info = browser_player("Slow Reader")
    clock = [0.0]
    real = time.monotonic
    monkeypatch.setattr(time, "monotonic", lambda: real() + clock[0])

    def slow():  # the read took longer than a copy may be kept for (a change may have come and gone)
        clock[0] += auth.FRESH_SECONDS + 1

    with after_reading_the_user(slow):
        assert user_reads(Client(), info["token"]) == ("Slow Reader", 1)
    # Not kept: the next request reads the database again, and this prompt read is kept.
    assert user_reads(Client(), info["token"]) == ("Slow Reader", 1)
    assert user_reads(Client(), info["token"]) == ("Slow Reader", 0)


@pytest.mark.skipif(not CACHED, reason="the pointers live in the shared Redis cache (REDIS_URL)")
def test_a_sessions_pointer_to_its_user_is_only_a_hint():
    from django.contrib.auth import get_user_model

    from challenges.auth import SESSION_KEY, TOKEN_KEY

    browser, mine = browser_player("Hinted Player")
    other, theirs = browser_player("Other Player")
    assert me(other) == 200 and me(Client(), theirs["token"]) == 200  # their copy and pointers exist
    their_user = get_user_model().objects.get(player__pk=theirs["id"]).pk
    cache = caches["default"]
    cache.set(SESSION_KEY % browser.cookies["sessionid"].value, their_user)  # a wrong pointer
    assert browser.get("/api/players/me").json()["name"] == "Hinted Player"
    from challenges.services import hash_token

    cache.set(TOKEN_KEY % hash_token(mine["token"]), their_user)
    answer = Client().get("/api/players/me", HTTP_AUTHORIZATION=f"Token {mine['token']}")
    assert answer.json()["name"] == "Hinted Player"


# --- Redis unreachable ----------------------------------------------------------------


def dead_cache() -> dict:
    return {"default": {"BACKEND": "config.cache.GuardedRedisCache", "LOCATION": f"redis://127.0.0.1:{free_port()}/0"}}


@pytest.fixture
def redis_down():
    """The sessions' cache on a Redis where nothing listens (the database still answers)."""
    guard.reset_breakers()
    with override_settings(SESSION_ENGINE="config.sessions", CACHES=dead_cache()):
        yield
    guard.reset_breakers()


def test_without_redis_sessions_are_read_from_the_database_and_a_log_out_waits(redis_down):
    browser, info = browser_player("Outage Player")
    key = browser.cookies["sessionid"].value
    assert me(browser) == 200
    # Ending the session would leave its copy in Redis, valid again once Redis is back:
    # refused, and nothing is ended.
    refused = browser.delete("/api/session", **info["csrf"])
    assert refused.status_code == 503 and refused.json()["error"] == "unavailable"
    assert Session.objects.filter(session_key=key).exists() and me(browser) == 200


def test_without_redis_a_browser_with_a_session_still_signs_up(redis_down):
    from config.sessions import SessionStore

    anonymous = SessionStore()
    anonymous["casual"] = "a guest's games"
    anonymous.save()
    browser = Client()
    browser.cookies["sessionid"] = anonymous.session_key
    assert browser.post("/api/players", {"name": "Outage Signup"}, content_type="application/json").status_code == 201
    assert browser.cookies["sessionid"].value != anonymous.session_key  # a new key: the old row is gone
    assert not Session.objects.filter(session_key=anonymous.session_key).exists()
    assert browser.get("/api/players/me").json()["name"] == "Outage Signup"


def test_without_redis_a_second_name_in_a_browser_waits_and_takes_nothing(redis_down):
    """Signing up another name ends the browser's player's session: without Redis it cannot
    end, so the answer is a 503 to try again, and the new name was not kept (not taken)."""
    from challenges.models import Player

    browser, info = browser_player("First Name")
    refused = browser.post("/api/players", {"name": "Second Name"}, content_type="application/json", **info["csrf"])
    assert refused.status_code == 503 and refused.json()["error"] == "unavailable"
    assert not Player.objects.filter(name="Second Name").exists()
    assert browser.get("/api/players/me").json()["name"] == "First Name"


def test_without_redis_a_change_is_refused_and_nothing_changes(redis_down):
    from challenges.models import Player

    browser, info = browser_player("Outage Renamer")
    answer = browser.patch(
        "/api/players/me", {"name": "Never Renamed"}, content_type="application/json", **info["csrf"]
    )
    # Its copy could not be held off: it would be read again once Redis answers.
    assert answer.status_code == 503 and answer.json()["error"] == "unavailable"
    password = browser.post(
        "/api/players/me/password", {"password": "outage-pass-123"}, content_type="application/json", **info["csrf"]
    )
    assert password.status_code == 503
    player = Player.objects.select_related("user").get(pk=info["id"])
    assert player.name == "Outage Renamer" and not player.user.has_usable_password()
    assert browser.get("/api/players/me").json()["name"] == "Outage Renamer"
