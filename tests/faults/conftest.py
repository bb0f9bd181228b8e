"""The full stack (gunicorn + worker + beat via scripts/stack) on the test database (or a
Postgres cluster of the test's own, which it may stop and start again), with a Redis of
the session's own server or of the test's own, and a small HTTP client."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings

from harness.servers import PostgresCluster, stop_stack
from tests.conftest import ROOT, free_port


class Stack:
    def __init__(self, run_dir: Path, port: int, redis_url: str, database_url: str) -> None:
        self.port = port
        self.run_dir = run_dir
        self.env = dict(
            os.environ,
            DATABASE_URL=database_url,
            REDIS_URL=redis_url,
            DJANGO_SETTINGS_MODULE="config.settings.test",
            # config/settings/test.py puts TEST_REDIS_DB into REDIS_URL: the one asked for.
            TEST_REDIS_DB=urlsplit(redis_url).path.strip("/") or "0",
            STACK_RUN_DIR=str(run_dir),
            STACK_BIND=f"127.0.0.1:{port}",
            STACK_SKIP_SETUP="1",
            SWEEP_SECONDS="1",
            WEB_CONCURRENCY="2",
            WORKER_CONCURRENCY="1",
        )

    def run(self, action: str) -> None:
        subprocess.run(
            [str(ROOT / "scripts" / "stack"), action], env=self.env, check=True, timeout=120, stdout=subprocess.DEVNULL
        )


class Client:
    """Keep-alive JSON over HTTP; a connection error counts as status 0 (and is kept in
    Client.errors, for the failure message)."""

    errors: list[str] = []

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.token: str | None = None
        self.used_at = time.monotonic()

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict | None]:
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if time.monotonic() - self.used_at > 1:
            # gunicorn closes a connection idle for 2 s (its keep-alive); writing to it then
            # fails with a broken pipe that says nothing about the server. A new one instead
            # (http.client reconnects by itself), so that status 0 means a real failure.
            self.conn.close()
        self.used_at = time.monotonic()
        try:
            self.conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
            response = self.conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            Client.errors.append(f"{method} {path}: {exc!r}")
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            return 0, None
        return response.status, json.loads(data) if data else None


@pytest.fixture
def stack_factory(tmp_path, django_db_setup):
    if not settings.REDIS_URL or "postgresql" not in settings.DATABASES["default"]["ENGINE"]:
        pytest.skip("the full stack needs DATABASE_URL (Postgres) and REDIS_URL: run through .ci/run")
    from django.db import connection

    db = settings.DATABASES["default"]
    test_database = (
        f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{connection.settings_dict['NAME']}"
    )
    stacks: list[Stack] = []

    def make(redis_url: str, database_url: str | None = None) -> Stack:
        stack = Stack(tmp_path / f"stack{len(stacks)}", free_port(), redis_url, database_url or test_database)
        stack.run("start")
        stacks.append(stack)
        return stack

    yield make
    for stack in stacks:
        stop_stack(stack.run_dir)


@pytest.fixture
def own_postgres():
    """A Postgres cluster of the test's own (harness/servers.py), with a database `own`
    migrated and holding today's challenge; the test may stop and start it. The machine's
    cluster, which may hold anything, is never stopped."""
    if not settings.REDIS_URL or "postgresql" not in settings.DATABASES["default"]["ENGINE"]:
        pytest.skip("the full stack needs DATABASE_URL (Postgres) and REDIS_URL: run through .ci/run")
    try:
        cluster = PostgresCluster()
    except (RuntimeError, KeyError) as exc:  # no server binaries, or root without a `postgres` user
        pytest.skip(f"cannot run a Postgres cluster of the test's own: {exc!r}")
    try:
        cluster.init()
        cluster.start()
        cluster.create_database("own")
        env = dict(os.environ, DATABASE_URL=cluster.url("own"), DJANGO_SETTINGS_MODULE="config.settings.test")
        for command in (["migrate", "--noinput", "-v0"], ["ensure_challenges"]):
            subprocess.run(
                [sys.executable, "manage.py", *command],
                cwd=ROOT,
                env=env,
                check=True,
                timeout=300,
                stdout=subprocess.DEVNULL,
            )
        yield cluster
    finally:
        cluster.remove()


def own_query(url: str, sql: str, params=()) -> list[tuple]:
    """One query on a cluster of the test's own, on a fresh connection (the server may have
    been restarted since). Not through the ORM: Django's test case forbids databases that
    the test did not declare, and this one exists only for the test."""
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        return conn.execute(sql, params).fetchall()


def play_until_over(client: Client, view: dict, log: list[tuple[str, int]], pause: float = 0.0) -> dict:
    """Ask the first rank in hand until the game ends; retries what a 503 refused."""
    while view.get("status") == "playing":
        status, new = client.call(
            "POST", f"/api/attempts/{view['id']}/asks", {"rank": view["hand"][0][:-1], "move": view["move"]}
        )
        log.append(("ask", status))
        if status == 200:
            view = new
        else:
            time.sleep(0.2)
            status, fresh = client.call("GET", f"/api/attempts/{view['id']}")
            log.append(("get", status))
            if status == 200:
                view = fresh
        if pause:
            time.sleep(pause)
    return view
