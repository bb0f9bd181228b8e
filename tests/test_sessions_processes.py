"""Credentials ended on one web server are refused at once by another: two real gunicorn
servers (2 workers each) on one database (and one Redis with REDIS_URL: the sessions'
cache and the users' copies). Each server first answers for the credentials several times,
so a process that remembered them would still hold them; then one server ends them and
the other must refuse them on its very next request. Runs on Postgres (+ Redis) and on SQLite."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from http.cookies import SimpleCookie

import pytest
from django.conf import settings

from tests.conftest import worker_env
from tests.test_ops_ratelimit import Gunicorn


class Browser:
    """Cookies kept by hand (a value can be replayed after the server deleted it), the
    CSRF header sent as the site's pages send it."""

    def __init__(self) -> None:
        self.cookies: dict[str, str] = {}

    def request(
        self,
        server: Gunicorn,
        method: str,
        path: str,
        body: dict | None = None,
        token: str | None = None,
        cookies: dict | None = None,
    ) -> tuple[int, dict | None]:
        jar = self.cookies if cookies is None else cookies
        headers = {"Content-Type": "application/json", "X-CSRFToken": jar.get("csrftoken", "")}
        if jar:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in jar.items())
        if token:
            headers["Authorization"] = f"Token {token}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"http://127.0.0.1:{server.port}{path}", data=data, method=method, headers=headers
        )
        try:
            response = urllib.request.urlopen(request, timeout=15)
        except urllib.error.HTTPError as exc:
            response = exc
        with response:
            for header in response.headers.get_all("Set-Cookie") or []:
                for name, morsel in SimpleCookie(header).items():
                    if morsel.value:
                        jar[name] = morsel.value
                    else:
                        jar.pop(name, None)
            raw = response.read()
            return response.status, json.loads(raw) if raw else None


def seen_by(server: Gunicorn, browser: Browser, token: str | None = None, times: int = 6) -> None:
    for _ in range(times):  # across both of its workers
        assert browser.request(server, "GET", "/api/players/me", token=token)[0] == 200


def me(server: Gunicorn, browser: Browser, token: str | None = None, cookies: dict | None = None) -> int:
    return browser.request(server, "GET", "/api/players/me", token=token, cookies=cookies)[0]


@pytest.fixture(scope="module")
def servers_of_the_module(django_db_setup, tmp_path_factory):
    """Started once for the module (a few seconds each); every test signs up players of
    its own, and the test database is emptied after each (two_servers)."""
    from django.db import connection

    logs = tmp_path_factory.mktemp("two-servers")
    if "postgresql" in settings.DATABASES["default"]["ENGINE"]:
        env = worker_env(connection.settings_dict["NAME"])
    else:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}",
        }
        env.pop("REDIS_URL", None)  # database sessions, as the embedded default
    servers = [Gunicorn(env, logs / f"gunicorn-{i}.log") for i in (1, 2)]
    for i, server in enumerate(servers, 1):
        server.access_log = logs / f"access-{i}.log"
    try:
        for server in servers:
            server.start()
        yield servers
    finally:
        for server in servers:
            server.stop()


@pytest.fixture
def two_servers(transactional_db, servers_of_the_module):
    """Two servers on the test database, each answering for a test's credentials before one
    of them ends them: a server that kept a copy of them would still accept them."""
    return servers_of_the_module


def new_player(server: Gunicorn, name: str) -> tuple[Browser, dict]:
    browser = Browser()
    code, created = browser.request(server, "POST", "/api/players", {"name": name})
    assert code == 201, created
    return browser, created


def test_a_log_out_on_one_server_is_refused_by_the_other_at_once(two_servers):
    one, two = two_servers
    browser, _ = new_player(one, "Proc Leaver")
    seen_by(two, browser)
    old = dict(browser.cookies)
    assert browser.request(one, "DELETE", "/api/session")[0] == 204
    assert "sessionid" not in browser.cookies
    assert me(two, browser, cookies=old) == 401
    assert me(one, browser, cookies=old) == 401


def test_a_password_change_on_one_server_ends_the_other_devices_session_on_the_other(two_servers):
    one, two = two_servers
    first, _ = new_player(one, "Proc Two Devices")
    assert first.request(one, "POST", "/api/players/me/password", {"password": "proc-pass-123"})[0] == 200
    second = Browser()
    assert (
        second.request(two, "POST", "/api/session", {"name": "Proc Two Devices", "password": "proc-pass-123"})[0] == 200
    )
    seen_by(two, second)
    seen_by(one, second)
    seen_by(two, first)
    assert first.request(one, "POST", "/api/players/me/password", {"password": "proc-pass-456"})[0] == 200
    assert me(two, second) == 401 and me(one, second) == 401
    assert me(two, first) == 200  # the device that changed it goes on, on every server


def test_a_token_rotated_on_one_server_is_refused_by_the_other_at_once(two_servers):
    one, two = two_servers
    client, created = new_player(one, "Proc Token")
    api = Browser()  # no cookies: an API client
    seen_by(two, api, token=created["token"])
    code, rotated = api.request(one, "POST", "/api/players/me/token", token=created["token"])
    assert code == 200
    assert me(two, api, token=created["token"]) == 401
    assert me(two, api, token=rotated["token"]) == 200
    assert me(two, client) == 200  # the browser's session is not a token


def test_a_rename_on_one_server_is_seen_by_the_other_at_once(two_servers):
    one, two = two_servers
    browser, created = new_player(one, "Proc Old Name")
    api = Browser()
    seen_by(two, browser)
    seen_by(two, api, token=created["token"])
    assert browser.request(one, "PATCH", "/api/players/me", {"name": "Proc New Name"})[0] == 200
    assert browser.request(two, "GET", "/api/players/me")[1]["name"] == "Proc New Name"
    assert api.request(two, "GET", "/api/players/me", token=created["token"])[1]["name"] == "Proc New Name"


def test_a_deletion_on_one_server_is_refused_by_the_other_at_once(two_servers):
    one, two = two_servers
    browser, created = new_player(one, "Proc Deleted")
    api = Browser()
    seen_by(two, browser)
    seen_by(two, api, token=created["token"])
    old = dict(browser.cookies)
    assert browser.request(one, "DELETE", "/api/players/me")[0] == 204
    assert me(two, browser, cookies=old) == 401
    assert me(two, api, token=created["token"]) == 401


def test_a_user_deactivated_elsewhere_is_refused_by_every_server_at_once(two_servers):
    from django.contrib.auth import get_user_model

    one, two = two_servers
    browser, created = new_player(one, "Proc Deactivated")
    api = Browser()
    for server in two_servers:
        seen_by(server, browser)
        seen_by(server, api, token=created["token"])
    user = get_user_model().objects.get(player__pk=created["id"])
    if settings.REDIS_URL:  # the servers keep the user's copy in the Redis this process writes to
        from django.core.cache import caches

        from challenges.auth import USER_KEY

        assert isinstance(caches["default"].get(USER_KEY % user.pk), get_user_model())
    user.is_active = False
    user.save()  # as the admin does, in a process of its own
    for server in (one, two):
        assert me(server, browser) == 401
        assert me(server, api, token=created["token"]) == 401
