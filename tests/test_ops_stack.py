"""scripts/stack: the full stack without Docker — gunicorn, a Celery worker and
beat as background processes — started, used end to end, and stopped."""

from __future__ import annotations

import functools
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest
from django.conf import settings

from harness.servers import stop_stack
from tests.conftest import ROOT, fresh_session_redis, wait_for, worker_env
from tests.test_ops_health import free_port
from tests.test_ops_ratelimit import http_request

STACK = str(ROOT / "scripts" / "stack")


@pytest.fixture
def stack(transactional_db, tmp_path):
    if not settings.REDIS_URL or "postgresql" not in settings.DATABASES["default"]["ENGINE"]:
        pytest.skip("needs DATABASE_URL (Postgres) and REDIS_URL: run through .ci/run")
    from django.db import connection

    port = free_port()
    env = worker_env(connection.settings_dict["NAME"])
    # A database of the session's own redis-server (never the machine's Redis), emptied,
    # for the stack alone: the session's worker (db 15) and other tests' queued work stay
    # out of it, so what verifies the game below is the stack's worker.
    env.update(TEST_REDIS_DB="14", REDIS_URL=fresh_session_redis(14))
    # The test database is migrated already; collectstatic would write into the work tree.
    env.update(
        STACK_RUN_DIR=str(tmp_path / "run"),
        STACK_BIND=f"127.0.0.1:{port}",
        STACK_SKIP_SETUP="1",
        WORKER_CONCURRENCY="1",
    )

    def stack_command(action: str, timeout: float = 90) -> subprocess.CompletedProcess:
        return subprocess.run([STACK, action], env=env, capture_output=True, text=True, timeout=timeout)

    stack_command.port = port
    stack_command.run_dir = tmp_path / "run"
    stack_command.env = env  # a test may add settings before it starts the stack
    yield stack_command
    stop_stack(stack_command.run_dir)  # the first test stops it with the script, and asserts so


def test_stack_starts_serves_verifies_and_stops(stack):
    started = stack("start")
    assert started.returncode == 0, started.stdout + started.stderr
    for name in ("web", "worker", "analysis", "beat"):
        assert f"{name} running" in started.stdout
        assert (stack.run_dir / f"{name}.pid").exists() and (stack.run_dir / f"{name}.log").exists()
    assert stack("start").returncode != 0  # never twice

    request = functools.partial(http_request, stack.port)
    assert request("GET", "/readyz")[0] == 200
    player, view = play_today(request, "Stack player")
    # The stack's own worker replays it.
    final = wait_for(
        lambda: (
            (v := request("GET", f"/api/attempts/{view['id']}", token=player["token"])[1])["status"] == "verified" and v
        ),
        timeout=30,
        interval=0.2,
    )
    assert final["result"]["score"] == final["outcome"]["score"]

    # The play-path benchmark's players play against it (briefly; its numbers are no test).
    from concurrent.futures import ThreadPoolExecutor

    from harness.players import run, run_loop

    # Its own thread: a browser test earlier in the session may leave this thread's loop running.
    with ThreadPoolExecutor(1) as pool:
        load = pool.submit(
            run_loop, run(f"http://127.0.0.1:{stack.port}", players=2, seconds=2, rate=30, warmup=0.5)
        ).result(timeout=60)
    assert load["asks"] > 10 and set(load["statuses"]) <= {200, "games"}, load["statuses"]
    assert load["cpu_ms_per_ask"]["web"] > 0 and load["p50"] <= load["p99"] <= load["max"]

    status = stack("status")
    assert status.returncode == 0 and f"web answers on http://127.0.0.1:{stack.port}" in status.stdout
    pids = [int((stack.run_dir / f"{name}.pid").read_text()) for name in ("web", "worker", "analysis", "beat")]

    stopped = stack("stop")
    assert stopped.returncode == 0, stopped.stderr
    assert stack("status").returncode == 3
    deadline = time.monotonic() + 10
    for pid in pids:
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            assert time.monotonic() < deadline, f"pid {pid} still running after stop"
            time.sleep(0.1)


def test_a_verification_does_not_wait_behind_queued_analyses(stack):
    """The analyses (~1 s of CPU a game) have a worker of their own: with dozens of them
    queued, a game finished now is verified by the verification worker while they are
    still queued, and no analysis is worked out between its finish and its verification
    but the one already running. (One worker taking both queues, as scripts/stack had,
    verified it only after the analyses it had prefetched: four or more.)"""
    import datetime as dt
    import random

    import redis

    from challenges.models import Attempt, GameAnalysis
    from games.rules.peche import ENGINE
    from harness.fixtures import finished_attempts
    from leaderboard.models import Result

    stack.env.update(STACK_BEAT="0", WORKER_CONCURRENCY="1", ANALYSIS_CONCURRENCY="1")
    # A closed day's ranked games, each asked its own way (no two analyses alike).
    challenge, ids = finished_attempts(40, day=dt.date(2026, 6, 2))
    for n, attempt_id in enumerate(ids):
        pick, state, moves = random.Random(n), ENGINE.new(seed=challenge.seed), []
        while not state.over:
            moves.append(pick.choice(ENGINE.legal_moves(state)))
            ENGINE.apply(state, moves[-1])
        Attempt.objects.filter(pk=attempt_id).update(moves=moves, status="verified")
    started = stack("start")
    assert started.returncode == 0, started.stdout + started.stderr
    assert "analysis running" in started.stdout, started.stdout
    for name in ("worker", "analysis"):
        wait_for(lambda n=name: "ready." in (stack.run_dir / f"{n}.log").read_text(), timeout=30, interval=0.2)

    request = functools.partial(http_request, stack.port)
    for attempt_id in ids:
        code, answer = request("POST", f"/api/attempts/{attempt_id}/analysis")
        assert code == 202, answer
    # The fault condition: analyses queued for the analysis worker, most not worked out yet.
    broker = redis.Redis.from_url(stack.env["REDIS_URL"])
    assert broker.llen("analysis") >= 20, broker.llen("analysis")
    assert GameAnalysis.objects.count() <= 5

    _, view = play_today(request, "Queue Jumper")
    result = wait_for(lambda: Result.objects.filter(attempt_id=view["id"]).first(), timeout=60, interval=0.2)
    finished = Attempt.objects.get(pk=view["id"]).finished_at
    # Verified while the analyses were still queued…
    done_by_then = GameAnalysis.objects.filter(created_at__lte=result.verified_at).count()
    assert done_by_then <= len(ids) - 20, done_by_then
    # …and none was worked out in between but the one running when it finished.
    between = GameAnalysis.objects.filter(created_at__gt=finished, created_at__lt=result.verified_at).count()
    assert between <= 1, (between, result.verified_at - finished)
    # Each worker took its own queue's tasks only.
    worker_log, analysis_log = ((stack.run_dir / f"{n}.log").read_text() for n in ("worker", "analysis"))
    assert "verify_pending[" in worker_log and "analyse_attempt[" not in worker_log
    assert "analyse_attempt[" in analysis_log and "verify_pending[" not in analysis_log


def test_two_web_instances_share_the_proxy_and_either_serves_alone(stack):
    """Scale-out on one machine: STACK_WEB_INSTANCES=2 puts two gunicorn masters
    behind the one nginx, STACK_WORKER_INSTANCES=2 starts two worker processes."""
    stack.env.update(STACK_WEB_INSTANCES="2", STACK_WORKER_INSTANCES="2", WEB_CONCURRENCY="1")
    started = stack("start")
    assert started.returncode == 0, started.stdout + started.stderr
    for name in ("web", "web2", "worker", "worker2", "proxy", "beat"):
        assert f"{name} running" in started.stdout, started.stdout
    request = functools.partial(http_request, stack.port)
    for _ in range(20):
        assert request("GET", "/healthz")[0] == 200
    # Each instance answers on its own socket, the one the proxy's upstream names.
    upstream = (stack.run_dir / "peche.conf").read_text()
    for name in ("web", "web2"):
        sock = stack.run_dir / f"{name}.sock"
        assert f"server unix:{sock};" in upstream
        assert _unix_status(sock, "/healthz") == 200, name
    for name in ("worker", "worker2"):
        wait_for(lambda n=name: "ready." in (stack.run_dir / f"{n}.log").read_text(), timeout=30, interval=0.2)

    # With the first instance gone the proxy sends everything to the second…
    first = int((stack.run_dir / "web.pid").read_text())
    os.kill(first, 15)
    wait_for(lambda: _gone(first), timeout=30, interval=0.1)
    assert [request("GET", "/healthz")[0] for _ in range(10)] == [200] * 10
    # …and with both gone nothing answers (so the answers above came from the second).
    second = int((stack.run_dir / "web2.pid").read_text())
    os.kill(second, 15)
    wait_for(lambda: _gone(second), timeout=30, interval=0.1)
    assert _status(stack.port, "/healthz") == 502


def play_today(request, name: str) -> tuple[dict, dict]:
    """A new player ``name`` plays today's ranked game to its end over HTTP (the first rank
    in hand each time): the player (its token) and the attempt's last view."""
    code, player = request("POST", "/api/players", {"name": name})
    assert code == 201, player
    code, view = request("POST", "/api/challenges/today/attempt", token=player["token"])
    assert code == 201, view
    while view["status"] == "playing":
        code, view = request(
            "POST",
            f"/api/attempts/{view['id']}/asks",
            {"rank": view["hand"][0][:-1], "move": view["move"]},
            token=player["token"],
        )
        assert code == 200, view
    return player, view


def _status(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def _unix_status(path, url: str) -> int:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(10)
        sock.connect(str(path))
        sock.sendall(f"GET {url} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".encode())
        return int(sock.recv(64).split()[1])


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False
