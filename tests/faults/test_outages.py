"""Faults on the full stack (gunicorn + worker + beat): Redis stopped for 30 s while 100
players finish their games; Postgres restarted mid-load. Nothing lost, nothing duplicated,
no 5xx on the play path except clean 503s while the database itself is down. The servers
broken are the tests' own (harness/servers.py), never the machine's."""

from __future__ import annotations

import threading
import time

import pytest

from challenges import days
from challenges.models import Attempt, DailyChallenge
from games.rules.peche import ENGINE
from leaderboard import selectors
from leaderboard.models import Result
from tests.conftest import fresh_session_redis, wait_for

from .conftest import Client, own_query, play_until_over

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

    # Daemons: should the test fail mid-way, players still retrying a stopped stack must
    # not keep the test process alive.
    workers = [threading.Thread(target=run, args=(players[i::threads],), daemon=True) for i in range(threads)]
    for w in workers:
        w.start()
    joiner = threading.Thread(target=lambda: [w.join() for w in workers], daemon=True)
    joiner.start()
    return joiner


def index_matches_sql(redis_url: str, challenge_id: int) -> bool:
    import redis

    from leaderboard import rank_index

    client = redis.Redis.from_url(redis_url)
    if not client.exists(rank_index.ready_key(challenge_id)):
        return False
    indexed = [int(m) for m in client.zrange(rank_index.key(challenge_id), 0, -1)]
    by_sql = list(
        selectors.ranked_results(challenge_id).order_by(*selectors.RANK_ORDER).values_list("attempt_id", flat=True)
    )
    return indexed == by_sql


def finished_and_status(attempts) -> dict[int, tuple[bool, str]]:
    return {
        pk: (finished is not None, status)
        for pk, finished, status in attempts.values_list("pk", "finished_at", "status")
    }


def test_redis_stopped_30s_while_100_players_finish(stack_factory, own_redis):
    redis_url = own_redis.url
    stack = stack_factory(redis_url)
    players = start_players(stack.port, 100, "Redis")
    ids = [view["id"] for _, view in players]
    log: list[tuple[str, int]] = []
    joiner = play_all(players, threads=10, pause=0.08, log=log)
    time.sleep(3)
    own_redis.kill()
    stopped_at = time.monotonic()
    assert not own_redis.answers()
    at_stop = finished_and_status(Attempt.objects.filter(pk__in=ids))
    logged_at_stop = len(log)
    time.sleep(30)
    logged_at_start = len(log)
    at_start = finished_and_status(Attempt.objects.filter(pk__in=ids))  # one snapshot, just before the restart
    own_redis.start()  # empty: no broker messages, no rank index, no pending list
    back_at = time.monotonic()

    # The fault hit work in flight: play went on while Redis was down, games finished
    # then, and none of those could be verified before it came back (no broker).
    assert any(status == 200 for _, status in log[logged_at_stop:logged_at_start]), "no answer while Redis was down"
    finished_while_down = [pk for pk in ids if at_start[pk][0] and not at_stop[pk][0]]
    assert finished_while_down, "no game finished while Redis was down"
    assert all(at_start[pk][1] == "verifying" for pk in finished_while_down)

    joiner.join(180)
    assert not joiner.is_alive()
    # No 5xx, and no refused or broken connection (status 0) either, on the whole play path.
    assert log and all(0 < status < 500 for _, status in log), (sorted({s for _, s in log}), Client.errors[:5])
    assert Attempt.objects.filter(pk__in=ids, finished_at__isnull=False).count() == 100
    wait_for(
        lambda: not Attempt.objects.filter(pk__in=ids).exclude(status="verified").exists(), timeout=120, interval=0.5
    )
    challenge_id = Attempt.objects.get(pk=ids[0]).challenge_id
    client = players[0][0]
    reads: list[int] = []

    def rebuilt() -> bool:
        # Players keep reading the board: a read finds no index and starts a rebuild, unless
        # one is running; one whose task could not be queued gives its claim back.
        reads.append(client.call("GET", f"/api/leaderboard/{days.today()}")[0])
        return index_matches_sql(redis_url, challenge_id)

    wait_for(rebuilt, timeout=60, interval=0.5)
    assert set(reads) == {200}, (reads, Client.errors[-3:])
    ranked_after = time.monotonic() - back_at
    print(
        f"redis down {back_at - stopped_at:.0f}s, {len(finished_while_down)} games finished meanwhile; "
        f"all 100 verified and ranked {ranked_after:.1f}s after it returned ({len(reads)} board reads)"
    )
    assert Result.objects.filter(attempt_id__in=ids).count() == 100
    status, board = client.call("GET", f"/api/leaderboard/{days.today()}?limit=200")
    assert board["total"] == 100
    status, me = client.call("GET", f"/api/leaderboard/{days.today()}/me")
    sql = selectors.sql_rank(Result.objects.get(attempt_id=ids[0]))
    assert me["rank"] == sql


def test_postgres_restarted_mid_load(own_postgres, stack_factory):  # the stack stops before the cluster goes
    """Postgres is a cluster of the test's own (never the machine's), stopped for 4 s."""
    database_url = own_postgres.url("own")
    stack = stack_factory(fresh_session_redis(13), database_url)
    players = start_players(stack.port, 20, "Restart")
    ids = [view["id"] for _, view in players]
    attempts, challenges, results = (model._meta.db_table for model in (Attempt, DailyChallenge, Result))
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
        [(playing_at_stop,)] = own_query(
            database_url, f"SELECT count(*) FROM {attempts} WHERE id = ANY(%s) AND status = 'playing'", [ids]
        )
        logged_at_stop = len(log)
        own_postgres.stop("fast")
        time.sleep(4)
        logged_at_start = len(log)
        own_postgres.start()
        joiner.join(180)
    finally:
        Client.call = original_call
    assert not joiner.is_alive()

    # The fault hit work in flight: games were being played when the server stopped,
    # and requests made while it was down were answered 503.
    assert playing_at_stop > 0, "every game was over before Postgres stopped"
    down = sorted({s for _, s in log[logged_at_stop:logged_at_start]})
    assert 503 in down, f"no 503 while Postgres was down: {down}"
    assert all(status in (200, 409, 503) for _, status in log), sorted({s for _, s in log})
    assert all(b["status"] == 503 and b.get("error") == "unavailable" for b in bodies), bodies[:3]

    def statuses() -> list[str]:
        return [s for (s,) in own_query(database_url, f"SELECT status FROM {attempts} WHERE id = ANY(%s)", [ids])]

    wait_for(lambda: statuses() == ["verified"] * 20, timeout=120, interval=0.5)
    rows = own_query(
        database_url,
        f"SELECT c.seed, a.moves, r.score FROM {attempts} a "
        f"JOIN {challenges} c ON c.id = a.challenge_id "
        f"JOIN {results} r ON r.attempt_id = a.id WHERE a.id = ANY(%s)",
        [ids],
    )
    assert len(rows) == 20  # one result each
    for seed, moves, score in rows:
        state = ENGINE.replay({"seed": seed}, moves)  # whole, valid, complete
        assert score == ENGINE.outcome(state).score
