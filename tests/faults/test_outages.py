"""Faults on the full stack (gunicorn + worker + beat): Redis stopped for 30 s while 100
players finish their games; Postgres restarted mid-load. Nothing lost, nothing duplicated,
no 5xx on the play path except clean 503s while the database itself is down."""
from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

import pytest
from django.db import connection

from challenges import days
from challenges.models import Attempt
from games.peche import ENGINE
from leaderboard import selectors
from leaderboard.models import Result
from tests.conftest import wait_for

from .conftest import Client, play_until_over

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def start_players(port: int, n: int, tag: str) -> list[tuple[Client, dict]]:
    players = []
    for i in range(n):
        client = Client(port)
        status, me = client.call("POST", "/api/players", {"name": f"{tag} {i}"})
        assert status == 201, (status, me)
        client.token = me["token"]
        status, view = client.call("POST", "/api/challenges/today/attempt")
        assert status == 201
        players.append((client, view))
    return players


def play_all(players, threads: int, pause: float, log: list) -> threading.Thread:
    def run(chunk):
        for client, view in chunk:
            play_until_over(client, view, log, pause)

    workers = [threading.Thread(target=run, args=(players[i::threads],)) for i in range(threads)]
    for w in workers:
        w.start()
    joiner = threading.Thread(target=lambda: [w.join() for w in workers])
    joiner.start()
    return joiner


def index_matches_sql(redis_url: str, challenge_id: int) -> bool:
    import redis

    from leaderboard import rank_index

    client = redis.Redis.from_url(redis_url)
    if not client.exists(rank_index.ready_key(challenge_id)):
        return False
    indexed = [int(m) for m in client.zrange(rank_index.key(challenge_id), 0, -1)]
    by_sql = list(selectors.ranked_results(challenge_id).order_by(*selectors.RANK_ORDER)
                  .values_list("attempt_id", flat=True))
    return indexed == by_sql


def test_redis_stopped_30s_while_100_players_finish(stack_factory, own_redis):
    redis_url = own_redis.url
    stack = stack_factory(redis_url)
    players = start_players(stack.port, 100, "Redis")
    log: list[tuple[str, int]] = []
    joiner = play_all(players, threads=10, pause=0.08, log=log)
    time.sleep(3)
    own_redis.kill()
    stopped_at = time.monotonic()
    time.sleep(30)
    during = list(log)
    own_redis.start()  # empty: no broker messages, no rank index, no pending list
    back_at = time.monotonic()
    joiner.join(180)
    assert not joiner.is_alive()

    assert during and all(status < 500 for _, status in log), sorted({s for _, s in log})
    finished_while_down = Attempt.objects.filter(finished_at__isnull=False).count()
    assert finished_while_down == 100
    ids = [view["id"] for _, view in players]
    wait_for(lambda: not Attempt.objects.filter(pk__in=ids).exclude(status="verified").exists(), timeout=120,
             interval=0.5)
    challenge_id = Attempt.objects.get(pk=ids[0]).challenge_id
    client = players[0][0]
    assert client.call("GET", f"/api/leaderboard/{days.today()}")[0] == 200  # a read starts the rebuild
    wait_for(lambda: index_matches_sql(redis_url, challenge_id), timeout=60, interval=0.5)
    ranked_after = time.monotonic() - back_at
    print(f"redis down {back_at - stopped_at:.0f}s; all 100 verified and ranked {ranked_after:.1f}s after it returned")
    assert Result.objects.filter(attempt_id__in=ids).count() == 100
    status, board = client.call("GET", f"/api/leaderboard/{days.today()}?limit=200")
    assert board["total"] == 100
    status, me = client.call("GET", f"/api/leaderboard/{days.today()}/me")
    sql = selectors.sql_rank(Result.objects.get(attempt_id=ids[0]))
    assert me["rank"] == sql


def pg_cluster(action: str) -> None:
    version = sorted(p.name for p in Path("/etc/postgresql").iterdir())[-1]
    subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", action]
                   + (["-m", "fast"] if action == "stop" else []), check=True, timeout=60)


def test_postgres_restarted_mid_load(stack_factory):
    if not Path("/etc/postgresql").exists():
        pytest.skip("needs the machine's own Postgres cluster")
    stack = stack_factory("redis://127.0.0.1:6379/14")
    players = start_players(stack.port, 20, "Restart")
    log: list[tuple[str, int]] = []
    bodies: list[dict] = []
    original_call = Client.call

    def recording_call(self, method, path, body=None):
        status, data = original_call(self, method, path, body)
        if status >= 500:
            bodies.append({"status": status, **(data or {})})
        return status, data

    Client.call = recording_call
    try:
        joiner = play_all(players, threads=5, pause=0.05, log=log)
        time.sleep(2)
        pg_cluster("stop")
        time.sleep(4)
        pg_cluster("start")
        joiner.join(180)
    finally:
        Client.call = original_call
    assert not joiner.is_alive()
    connection.close()  # this process's connection died with the server too

    assert any(status == 503 for _, status in log), "the outage should have been visible"
    assert all(status in (200, 409, 503) for _, status in log), sorted({s for _, s in log})
    assert all(b["status"] == 503 and b.get("error") == "unavailable" for b in bodies), bodies[:3]
    ids = [view["id"] for _, view in players]
    wait_for(lambda: not Attempt.objects.filter(pk__in=ids).exclude(status="verified").exists(), timeout=120,
             interval=0.5)
    for attempt in Attempt.objects.filter(pk__in=ids).select_related("challenge", "result"):
        state = ENGINE.replay({"seed": attempt.challenge.seed}, attempt.moves)  # whole, valid, complete
        assert attempt.result.score == ENGINE.outcome(state)["score"]
