"""A league's day board asks the rank index for its members' global ranks before its query
when this process has read the board before (leagues.hints.BoardHints), so that Redis and
Postgres work side by side. What a player sees must not change for it: the same ranks as
SQL counts, a member who played since the last read ranked too, nothing sent to Redis for
a stranger, and a reply never left behind on a pooled connection."""

from __future__ import annotations

import os
import signal
import time

import pytest
from django.test import override_settings

from challenges import days, services
from challenges.models import Player
from leaderboard import rank_index
from leaderboard import services as board_services
from leaderboard.models import Result
from leagues import hints, selectors
from tests.conftest import new_player
from tests.test_leagues_api import create, join, player_of, result

pytestmark = pytest.mark.django_db


@pytest.fixture
def ready_day(own_redis):
    """A league of Ann and Bob, three outsiders, and today's rank index built and ready."""
    with override_settings(REDIS_URL=own_redis.url):
        hints.board_hints.clear()
        ann, bob, stranger = new_player("Ann"), new_player("Bob"), new_player("Stranger")
        made = create(ann)
        join(bob, made["code"])
        today = days.today()
        for n in range(3):
            outsider = Player.objects.get(pk=new_player(f"Out {n}").player["id"])
            result(outsider, today, 1000 + 100 * n, 30)  # 1000, 1100, 1200
        result(player_of(ann), today, 1150, 30)
        challenge_id = services.challenge_for_day(day=today).pk
        board_services.rebuild_index(challenge_id=challenge_id)
        Result.objects.update(indexed=True)
        assert rank_index.is_ready(challenge_id)
        yield {"ann": ann, "bob": bob, "stranger": stranger, "league": made, "challenge_id": challenge_id}
        hints.board_hints.clear()


@pytest.fixture
def order(monkeypatch):
    """What each board read did, in order: "asked" (the rank index asked ahead of the
    query), "query" (the board's query), "ranks" (the rank index asked after it)."""
    done: list[str] = []
    real_asked, real_rows, real_ranks = rank_index.AskedRanks.__init__, selectors._rows, rank_index.ranks_of

    def asked(self, *args):
        done.append("asked")
        real_asked(self, *args)

    def rows(sql, params):
        done.append("query")
        return real_rows(sql, params)

    def ranks(challenge_id, attempt_ids):
        done.append("ranks")
        return real_ranks(challenge_id, attempt_ids)

    monkeypatch.setattr(rank_index.AskedRanks, "__init__", asked)
    monkeypatch.setattr(selectors, "_rows", rows)
    monkeypatch.setattr(rank_index, "ranks_of", ranks)
    return done


def board(client, league) -> list[tuple[str, int]]:
    response = client.get(f"/api/leagues/{league['id']}/leaderboard/today")
    assert response.status_code == 200, response.content
    return [(e["name"], e["global_rank"]) for e in response.json()["entries"]]


def test_a_members_next_read_asks_the_rank_index_before_the_query_and_sees_the_same_board(ready_day, order):
    ann, league = ready_day["ann"], ready_day["league"]
    assert board(ann, league) == [("Ann", 2)]
    assert order == ["query", "ranks"]  # the league's first read here: one after the other
    for _ in range(2):  # the second time with the question as packed the first
        order.clear()
        assert board(ann, league) == [("Ann", 2)]
        assert order == ["asked", "query"]  # asked ahead, and nothing asked after


def test_a_member_who_played_since_the_last_read_and_passed_another_is_ranked_with_all_at_one_moment(
    ready_day, order, monkeypatch
):
    """Bob's result lands in the rank index between the question asked ahead (Ann's rank,
    without Bob) and the board's query (which finds Bob): ranks read at those two moments
    would give both rank 2. Every rank is asked again after the query instead."""
    from leaderboard.services import result_sort_key

    ann, bob, league = ready_day["ann"], ready_day["bob"], ready_day["league"]
    assert board(bob, league) == [("Ann", 2)]
    bobs = result(player_of(bob), days.today(), 1175, 30, indexed=True)
    real_rows = selectors._rows

    def lands_meanwhile(sql, params):
        rank_index.add(ready_day["challenge_id"], [(bobs.attempt_id, result_sort_key(bobs))])
        return real_rows(sql, params)

    monkeypatch.setattr(selectors, "_rows", lands_meanwhile)
    order.clear()
    assert board(ann, league) == [("Bob", 2), ("Ann", 3)]
    assert order == ["asked", "query", "ranks"]  # Ann asked ahead; then everyone, after the query
    # The next read asks ahead about both: the question was packed again, with Bob's attempt.
    monkeypatch.setattr(selectors, "_rows", real_rows)
    order.clear()
    assert board(ann, league) == [("Bob", 2), ("Ann", 3)]
    assert order == ["asked", "query"]


def test_a_stranger_sends_the_rank_index_nothing_even_for_a_board_read_here(ready_day, order):
    ann, stranger, league = ready_day["ann"], ready_day["stranger"], ready_day["league"]
    assert board(ann, league) == [("Ann", 2)]
    order.clear()
    response = stranger.get(f"/api/leagues/{league['id']}/leaderboard/today")
    assert response.status_code == 404
    assert order == ["query"]


def test_a_removed_member_leaves_the_connection_back_in_the_pool_with_no_reply_in_it(ready_day, order):
    """The board's query finds a member no more (404) after the rank index was asked: the
    reply is read (or the connection closed) and the connection goes back to the pool, not
    kept out of it for good, nor handed to the next command with this reply still to read."""
    ann, bob, league = ready_day["ann"], ready_day["bob"], ready_day["league"]
    assert board(bob, league) == [("Ann", 2)]
    assert ann.delete(f"/api/leagues/{league['id']}/members/{bob.player['id']}").status_code == 204
    order.clear()
    response = bob.get(f"/api/leagues/{league['id']}/leaderboard/today")
    assert response.status_code == 404
    assert order == ["asked", "query"]  # the fault: a question sent, its answer not wanted
    pool = rank_index._redis().connection_pool
    assert not pool._in_use_connections
    client = rank_index._redis()
    for n in range(3):  # whichever pooled connection comes next answers its own command
        assert client.set(f"probe:{n}", n) is True and client.get(f"probe:{n}") == str(n).encode()
    # Once: the 404 forgot the hint, so asking again costs Redis nothing.
    order.clear()
    assert bob.get(f"/api/leagues/{league['id']}/leaderboard/today").status_code == 404
    assert order == ["query"]
    assert board(ann, league) == [("Ann", 2)]


def test_a_hung_rank_index_costs_the_board_a_short_wait_not_an_error(ready_day, own_redis, order):
    ann, league = ready_day["ann"], ready_day["league"]
    assert board(ann, league) == [("Ann", 2)]
    order.clear()
    os.kill(own_redis.proc.pid, signal.SIGSTOP)  # accepts connections, answers nothing
    try:
        started = time.monotonic()
        assert board(ann, league) == [("Ann", 2)]  # counted in SQL
        took = time.monotonic() - started
    finally:
        os.kill(own_redis.proc.pid, signal.SIGCONT)
    assert order[:2] == ["asked", "query"]
    assert took < 5, f"{took:.1f} s: the hot path's timeout is 0.1 s"
