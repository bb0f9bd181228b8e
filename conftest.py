"""Before anything loads Django's settings: with REDIS_URL given, the test session starts a
redis-server of its own and points REDIS_URL at it.

The tests flush Redis databases and fault tests kill Redis; the Redis that REDIS_URL
names on this machine may hold anyone's data, so the session never talks to it.
config/settings/test.py reads REDIS_URL as usual, and every process a test starts
(Celery workers, gunicorn, scripts/stack) inherits os.environ, so all of them use the
session's server too. It goes when the session ends (or when pytest dies: tests/servers.py).

This is the rootdir conftest, imported after pytest-django's first hook: that hook loads
the settings when DJANGO_SETTINGS_MODULE is known by then, so pytest.ini does not name
it; it is set here, after REDIS_URL, and pytest-django's pytest_configure then sets
Django up. (An early `-p` plugin would do too, but is not importable when pytest runs
as the `pytest` script rather than `python -m pytest`.)"""
from __future__ import annotations

import os
import shutil

import pytest

from tests.servers import RedisServer, free_port

_server: RedisServer | None = None


def _start_own_redis() -> None:
    global _server
    given = os.environ.get("REDIS_URL")
    if not given or os.environ.get("TESTS_OWN_REDIS_PORT"):
        return
    import django.conf

    if django.conf.settings.configured:  # DJANGO_SETTINGS_MODULE came from outside: too late
        raise pytest.UsageError(
            "REDIS_URL is set and Django's settings were loaded before the tests could start a redis-server "
            "of their own (DJANGO_SETTINGS_MODULE set in the environment?): unset it, the tests set it")
    if not shutil.which("redis-server"):
        raise pytest.UsageError(
            "REDIS_URL is set but redis-server is not on PATH: the tests run a Redis of their own "
            "(they flush and kill it), never the machine's")
    _server = RedisServer(free_port())
    _server.start()
    os.environ["TESTS_GIVEN_REDIS_URL"] = given  # for the report header; nothing connects to it
    os.environ["TESTS_OWN_REDIS_PORT"] = str(_server.port)
    os.environ["REDIS_URL"] = _server.url


_start_own_redis()
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
# Loaded now (as pytest-django would have): its pytest_configure sets Django up only if so.
getattr(__import__("django.conf").conf.settings, "DATABASES")


def pytest_report_header(config):
    if _server is not None:
        return (f"redis: the session's own redis-server on 127.0.0.1:{_server.port} "
                f"(the given {os.environ['TESTS_GIVEN_REDIS_URL']} is not used)")
    return None


def pytest_unconfigure(config):
    global _server
    if _server is not None:
        _server.kill()
        _server = None
