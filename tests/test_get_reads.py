"""A GET reads: every GET route of the site and the API, anonymous and signed in, on a day
whose rank index is not built (what a page view once started a rebuild for), writes no
row, queues no task and writes nothing to Redis. Building a day's index is the beat's job
(leaderboard.services.rank_indexes_kept).

The routes are read from the URL resolver (the admin's aside), so a new one is driven
without being named here; a route whose argument this test cannot fill fails it."""

from __future__ import annotations

import datetime as dt
import re

import pytest
import redis
from celery import Celery
from celery.app.task import Task
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from challenges import days, services
from leaderboard import rank_index
from leagues.selectors import week_of
from tests.conftest import new_player, verified_game

pytestmark = pytest.mark.django_db

WRITES = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|TRUNCATE)\b", re.IGNORECASE)
# Redis commands a read may send (INFO commandstats names them); EVALSHA runs the rank
# index's read-only script, and any key it changed would show in the keyspace compared.
REDIS_READS = {"get", "mget", "exists", "zrank", "zcard", "zrange", "zscore", "evalsha", "eval", "script", "ping"}


def _routes(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.callback


def get_routes() -> list[str]:
    """Every route that answers GET (an API view without ``get`` answers 405: not a read)."""
    found = []
    for route, callback in _routes(get_resolver().url_patterns):
        if route.startswith(("admin/", "^")):
            continue  # the admin's (a reviewer's tool); the API's catch-all 404
        view = getattr(callback, "cls", None)
        if view is not None and not hasattr(view, "get"):
            continue
        found.append(route)
    return found


@pytest.fixture
def site(own_redis):
    """Ann with a finished ranked game today and yesterday, a casual game and a league Bob
    joined; nobody else's. Today's rank index is not built."""
    with override_settings(REDIS_URL=own_redis.url):
        ann, bob = new_player("Ann"), new_player("Bob")
        from challenges.models import Player

        me = Player.objects.get(pk=ann.player["id"])
        today = days.today()
        yesterday = verified_game(day=today - dt.timedelta(days=1), player=me)
        mine = verified_game(player=me)
        started = ann.post("/api/casual/kitten/games", {}, format="json")
        assert started.status_code == 201
        game_id = started.json()["id"]
        league = ann.post("/api/leagues", {"name": "Friday"}, format="json").json()
        assert bob.post("/api/leagues/join", {"code": league["code"]}, format="json").status_code in (200, 201)
        services.challenge_for_day(day=today)
        rank_index.drop(mine.challenge_id)
        rank_index.drop(yesterday.challenge_id)
        yield {
            "clients": {"anonymous": APIClient(), "Ann": ann, "Bob": bob},
            "args": {
                "date": [today.isoformat(), "today", (today - dt.timedelta(days=1)).isoformat()],
                "attempt_id": [str(mine.pk), str(yesterday.pk)],
                "game": ["kitten", "gofish"],
                "game_id": [str(game_id)],
                "league_id": [str(league["id"])],
                "code": [league["code"]],
                "week": ["current", week_of(today)],
                "player_id": [str(me.pk)],
            },
            "redis": redis.Redis.from_url(own_redis.url),
        }


def _paths(route: str, args: dict[str, list[str]]) -> list[str]:
    names = re.findall(r"<(?:\w+:)?(\w+)>", route)
    missing = [n for n in names if n not in args]
    assert not missing, f"{route}: no value for {missing}: give this test one"
    paths = [route]
    for name in names:
        paths = [re.sub(rf"<(?:\w+:)?{name}>", value, p, count=1) for p in paths for value in args[name]]
    return ["/" + p for p in paths]


def _keyspace(client) -> dict[bytes, bytes | None]:
    return {key: client.dump(key) for key in client.scan_iter(count=1000)}


def _commands(client) -> dict[str, int]:
    """Calls by command ("script|load" counts as "script")."""
    calls: dict[str, int] = {}
    for name, stats in client.info("commandstats").items():
        command = name.removeprefix("cmdstat_").split("|")[0]
        calls[command] = calls.get(command, 0) + stats["calls"]
    return calls


def test_every_get_writes_nothing_and_queues_nothing(site, monkeypatch):
    queued = []
    monkeypatch.setattr(Task, "apply_async", lambda self, *a, **kw: queued.append(self.name))
    monkeypatch.setattr(Celery, "send_task", lambda self, name, *a, **kw: queued.append(name))
    store = site["redis"]
    routes = get_routes()
    assert {
        "api/leaderboard/<str:date>",
        "leaderboard/<str:date>/",
        "",
        "api/leagues/<int:league_id>/leaderboard/<str:date>",
    } <= set(routes)
    answered: dict[str, int] = {}
    before, commands = _keyspace(store), _commands(store)
    with CaptureQueriesContext(connection) as queries:
        for route in routes:
            for path in _paths(route, site["args"]):
                for who, client in site["clients"].items():
                    status = client.get(path).status_code
                    assert status < 500, (who, path, status)
                    answered[f"{who} {path}"] = status
    writes = [q["sql"] for q in queries.captured_queries if WRITES.match(q["sql"] or "")]
    assert writes == []
    assert queued == []
    sent = {
        name: calls - commands.get(name, 0)
        for name, calls in _commands(store).items()
        if calls != commands.get(name, 0)
    }
    assert set(sent) - REDIS_READS - {"info", "scan", "dump"} == set(), sent
    assert _keyspace(store) == before
    # The rank reads were made: on SQL, the index not being ready.
    assert sent.get("exists", 0) + sent.get("evalsha", 0) > 0, sent
    assert sum(1 for status in answered.values() if status == 200) > len(routes)


def test_the_beat_builds_the_missing_index_of_each_kept_day(own_redis, monkeypatch):
    """What a page view no longer does: after each sweep the beat builds the rank index of
    today and the week before where it is missing (Redis restarted empty), once; an older
    day's ranks stay with SQL."""
    from leaderboard import services as board_services
    from leaderboard import tasks

    # The task in process (with REDIS_URL the tests' Celery queues it for a worker).
    monkeypatch.setattr(tasks.rebuild_rank_index, "apply_async", lambda args, **kw: tasks.rebuild_rank_index.run(*args))
    with override_settings(REDIS_URL=own_redis.url):
        today = days.today()
        old, recent, now = (
            verified_game(name, day=today - dt.timedelta(days=n)) for name, n in (("Old", 9), ("Eve", 1), ("Ann", 0))
        )
        for attempt in (old, recent, now):
            rank_index.drop(attempt.challenge_id)
        board_services.rank_indexes_kept()
        assert rank_index.is_ready(now.challenge_id) and rank_index.is_ready(recent.challenge_id)
        assert not rank_index.is_ready(old.challenge_id)
        assert rank_index.page(now.challenge_id, 0, 10) == (1, [now.pk])
