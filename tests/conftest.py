"""Shared fixtures: API clients, a real Celery worker process, waiting helpers."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from django.conf import settings

from harness.servers import CeleryWorker, RedisServer, free_port  # noqa: F401  (free_port: imported from here by tests)

ROOT = Path(__file__).resolve().parent.parent


def _patient_hot_path() -> float:
    """The Redis hot path's timeout in this process, 1 s instead of production's 100 ms
    (unless REDIS_HOT_TIMEOUT says otherwise); the production value, returned, is kept by
    ``production_hot_timeout`` for the tests of a Redis in trouble. This process runs the
    live server, Playwright and the test on one interpreter, and with both cores full
    (`make test`) a thread may wait past 100 ms for its turn: the hot path took that for a
    Redis in trouble and a password change answered 503 (in a full run and a three-worker
    run, 2026-12-03).
    The processes the tests start (stacks, workers) keep production's value."""
    from config import redis_client

    production = redis_client.HOT_TIMEOUT
    if "REDIS_HOT_TIMEOUT" not in os.environ:
        redis_client.HOT_TIMEOUT = 1.0
    return production


PRODUCTION_HOT_TIMEOUT = _patient_hot_path()


@pytest.fixture
def production_hot_timeout(monkeypatch):
    """Production's Redis hot-path timeout for the clients and caches this test makes (the
    tests of a hung or silent Redis measure what it costs)."""
    from config import redis_client

    monkeypatch.setattr(redis_client, "HOT_TIMEOUT", PRODUCTION_HOT_TIMEOUT)


def in_own_thread(function, *args):
    """``function(*args)`` in a thread of its own, its result or its exception here. The
    browser tests' Playwright (sync API) keeps an event loop running in the main thread for
    the rest of the session: ``asyncio.run`` and a second Playwright cannot start there after
    them. The thread's database connections are closed before it ends."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connections

    def call():
        try:
            return function(*args)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result()


def wait_for(predicate, timeout: float = 20.0, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {predicate}")
        time.sleep(interval)


@pytest.fixture
def api():
    from rest_framework.test import APIClient

    return APIClient()


def new_player(name: str):
    """An API client logged in as a new player (by token, as API clients do)."""
    from rest_framework.test import APIClient

    client = APIClient()
    response = client.post("/api/players", {"name": name}, format="json")
    assert response.status_code == 201, response.content
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    client.player = response.json()
    return client


def first_rank(state) -> str:
    return next(iter(state.hands[0]))


def verified_game(name: str | None = None, *, day=None, choose=first_rank, moves=None, finished=None, player=None):
    """A verified ranked Pêche game of ``day`` (today by default) for a new player ``name``
    (or ``player``): ``moves``, or each ask chosen by ``choose(state)`` (the first rank in
    hand by default); finished at ``finished`` (an hour before the close by default)."""
    import datetime as dt

    from challenges import days, services
    from challenges.models import Attempt, Player
    from games.rules.peche import ENGINE

    challenge = services.challenge_for_day(day=day or days.today())
    player = player or Player.objects.get(pk=new_player(name).player["id"])
    if moves is None:
        state, moves = ENGINE.new(seed=challenge.seed), []
        while not state.over:
            moves.append(choose(state))
            ENGINE.apply(state, moves[-1])
    attempt = Attempt.objects.create(
        player=player,
        challenge=challenge,
        ranked=True,
        moves=moves,
        status="verifying",
        finished_at=finished or challenge.closes_at - dt.timedelta(hours=1),
    )
    services.attempt_verify(attempt_id=attempt.pk)
    attempt.refresh_from_db()
    assert attempt.status == "verified", attempt.reject_reason
    return attempt


@pytest.fixture
def player_factory(db):
    return new_player


def worker_env(db_name: str) -> dict[str, str]:
    env = dict(os.environ)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    db = settings.DATABASES["default"]
    env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db_name}"
    env["REDIS_URL"] = settings.REDIS_URL
    return env


WORKER_APP_NAME = "peche-test-worker"


class WorkerProcess(CeleryWorker):
    """A real `celery worker` on the test database; can be killed and restarted."""

    def __init__(self, db_name: str, log_path: Path) -> None:
        # Its Postgres sessions carry this name (libpq reads PGAPPNAME): a fault test can
        # tell them from the live server's and other tests' connections.
        super().__init__({**worker_env(db_name), "PGAPPNAME": WORKER_APP_NAME}, log_path)
        self.db_name = db_name


def session_redis_url(db: int | None = None) -> str:
    """settings.REDIS_URL, or another database of the same server: always the session's
    own redis-server (./conftest.py), never the machine's — checked here, as the callers
    flush what it names."""
    port = os.environ.get("TESTS_OWN_REDIS_PORT")
    assert port and settings.REDIS_URL.startswith(f"redis://127.0.0.1:{port}/"), (
        f"{settings.REDIS_URL} is not the session's own redis-server"
    )
    return settings.REDIS_URL if db is None else settings.REDIS_URL.rsplit("/", 1)[0] + f"/{db}"


def fresh_session_redis(db: int) -> str:
    """A database of the session's own redis-server, emptied: for a stack of a test's own."""
    import redis

    url = session_redis_url(db)
    redis.Redis.from_url(url).flushdb()
    return url


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker, tmp_path_factory):
    """Needs Postgres + Redis (the CI set-up); skipped on the embedded default."""
    if not settings.REDIS_URL or "postgresql" not in settings.DATABASES["default"]["ENGINE"]:
        pytest.skip("needs DATABASE_URL (Postgres) and REDIS_URL: run through .ci/run")
    import redis

    # What earlier tests queued goes (the session's own server, asserted), but not the
    # channel layer's keys ("ws:"): the live server's listener joined its group once, and a
    # flush would leave it deaf to log-outs until it joins again (challenges/sockets.py).
    client = redis.Redis.from_url(session_redis_url())
    stale = [key for key in client.scan_iter(count=1000) if not key.startswith(b"ws:")]
    if stale:
        client.delete(*stale)
    from django.db import connection

    worker = WorkerProcess(connection.settings_dict["NAME"], tmp_path_factory.mktemp("worker") / "worker.log")
    worker.start()
    yield worker
    worker.stop()


@pytest.fixture
def own_redis():
    if not shutil.which("redis-server"):
        pytest.skip("needs redis-server")
    server = RedisServer(free_port())
    server.start()
    yield server
    server.kill()


@pytest.fixture
def indexed(own_redis, monkeypatch):
    """The rank index on a redis-server of the test's own; verification runs here (none is
    handed to a worker)."""
    import redis
    from django.test import override_settings

    from challenges import services

    monkeypatch.setattr(services, "enqueue_verification", lambda attempt_id: None)
    with override_settings(REDIS_URL=own_redis.url):
        yield redis.Redis.from_url(own_redis.url)


@pytest.fixture
def reviewer():
    """A browser signed in as a superuser (the review's pages and actions)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.create_superuser("reviewer", "r@example.com", "pw-Review-123"))
    return client


@pytest.fixture(autouse=True)
def _rate_windows_closed():
    """Each test starts with no rate-limit window open and no log-in failure counted. Without
    Redis the counters live in this process's memory (LocMemCache, or config/rates.py's
    fallback) for the whole session, and under SQLite a test's rolled-back rows hand their ids
    out again: the previous test's user 1 had spent the asks of this test's user 1. With
    Redis (the session's own server) an earlier test's failures for one name were still
    counted: its addresses filled the next test's burst."""
    from django.core.cache import cache

    from config import rates

    if "RedisCache" not in settings.CACHES["default"]["BACKEND"]:
        cache.clear()
    else:  # the session's own redis-server (./conftest.py): this test's windows and failures only
        client = cache._cache.get_client(write=True)  # type: ignore[attr-defined]
        for pattern in ("rl:*", "lf:*"):
            stale = list(client.scan_iter(match=cache.make_key(pattern), count=1000))
            if stale:
                client.delete(*stale)
    rates._HERE.clear()


@pytest.fixture(autouse=True)
def _redis_breakers_closed():
    """Each test starts with this process's Redis breakers closed: a slow call of an earlier
    test (a fault test, or a loaded machine) must not make this one's first Redis call fail
    fast as "Redis failed less than 2 s ago"."""
    from config import redis_client

    redis_client.reset_breakers()


@pytest.fixture(autouse=True)
def _database_quiet_before_flush(request):
    """A transactional test ends by truncating every table. If a worker process (or the
    stack's) is still inside a transaction on those rows — a re-verify the test handed
    off, say — the truncate can deadlock with it. Wait, bounded, until no other session
    of the test database is busy; this teardown runs before the flush."""
    marker = request.node.get_closest_marker("django_db")
    if (
        marker is None
        or not marker.kwargs.get("transaction")
        or "postgresql" not in settings.DATABASES["default"]["ENGINE"]
    ):
        yield
        return
    request.getfixturevalue("transactional_db")  # set up first, so torn down after this
    yield
    from django.db import connection

    def quiet() -> bool:
        try:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND pid <> pg_backend_pid() AND backend_type = 'client backend' "
                    "AND state IN ('active', 'idle in transaction')"
                )
                return cursor.fetchone()[0] == 0
        except Exception:  # e.g. the test restarted Postgres: nothing to wait for
            connection.close()
            return True

    deadline = time.monotonic() + 20
    while not quiet() and time.monotonic() < deadline:
        time.sleep(0.05)


@pytest.fixture
def analysis_inline():
    """The analyses' tasks run in the request that asks for them, as without Redis: with
    REDIS_URL no worker under the tests takes the `analysis` queue (the session's worker
    takes the default one), so a test of what the analysis shows would wait for ever."""
    from config.celery_app import app

    # The app reads Django's settings as it goes, under the CELERY_ namespace (the plain
    # name set on it reads back False). The override goes in its own changes and leaves
    # them as they were: a value left there would shadow every later override_settings.
    changes = app.conf.changes
    key = "CELERY_TASK_ALWAYS_EAGER"
    had, old = key in changes, changes.get(key)
    app.conf[key] = True
    assert app.conf.task_always_eager
    yield
    if had:
        changes[key] = old
    else:
        changes.pop(key, None)
