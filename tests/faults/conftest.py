"""The full stack (gunicorn + worker + beat via scripts/stack) on the test database, with
a Redis of its own that a test may stop and start again, and a small HTTP client."""
from __future__ import annotations

import http.client
import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from django.conf import settings

from tests.conftest import ROOT, free_port


class Stack:
    def __init__(self, run_dir: Path, port: int, redis_url: str, db_name: str) -> None:
        db = settings.DATABASES["default"]
        self.port = port
        self.env = dict(
            os.environ,
            DATABASE_URL=f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db_name}",
            REDIS_URL=redis_url, DJANGO_SETTINGS_MODULE="config.settings.test", TEST_REDIS_DB="0",
            STACK_RUN_DIR=str(run_dir), STACK_BIND=f"127.0.0.1:{port}", STACK_SKIP_SETUP="1",
            SWEEP_SECONDS="1", WEB_CONCURRENCY="2", WORKER_CONCURRENCY="1",
        )

    def run(self, action: str) -> None:
        subprocess.run([str(ROOT / "scripts" / "stack"), action], env=self.env, check=True, timeout=120,
                       stdout=subprocess.DEVNULL)


class Client:
    """Keep-alive JSON over HTTP; a connection error counts as status 0."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.token: str | None = None

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict | None]:
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        try:
            self.conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
            response = self.conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            return 0, None
        return response.status, json.loads(data) if data else None


@pytest.fixture
def stack_factory(tmp_path, django_db_setup):
    if "postgresql" not in settings.DATABASES["default"]["ENGINE"]:
        pytest.skip("the full stack runs on Postgres: run through .ci/run")
    from django.db import connection

    stacks: list[Stack] = []

    def make(redis_url: str) -> Stack:
        stack = Stack(tmp_path / f"stack{len(stacks)}", free_port(), redis_url, connection.settings_dict["NAME"])
        stack.run("start")
        stacks.append(stack)
        return stack

    yield make
    for stack in stacks:
        stack.run("stop")


def play_until_over(client: Client, view: dict, log: list[tuple[str, int]], pause: float = 0.0) -> dict:
    """Ask the first rank in hand until the game ends; retries what a 503 refused."""
    while view.get("status") == "playing":
        status, new = client.call("POST", f"/api/attempts/{view['id']}/asks",
                                  {"rank": view["hand"][0][:-1], "move": view["move"]})
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
