"""A league's board asks the day's rank index for up to 200 ranks at every read. The index
keeps each question's answer (rank_index.ranks_of's ``kept``) and, asked again, answers
from it and the day's changes since instead of walking its million-member set 200 times.
What a player sees must not change for it: every rank the set's own, through results
arriving and leaving, ties, a member's own result changing, a rebuild, and more changes
than the day's log keeps."""

from __future__ import annotations

import random

import pytest
import redis
from django.test import override_settings

from leaderboard import rank_index

DAY = 7  # a challenge id: the index needs no database


@pytest.fixture
def index(own_redis):
    with override_settings(REDIS_URL=own_redis.url):
        yield redis.Redis.from_url(own_redis.url)


def zranks_used(client) -> int:
    return client.info("commandstats").get("cmdstat_zrank", {}).get("calls", 0)


def truth(client, attempts) -> dict[int, int | None]:
    return {a: client.zrank(rank_index.key(DAY), rank_index.member(a)) for a in attempts}


def asked(client, attempts, kept="league:1") -> tuple[dict[int, int | None] | None, bool]:
    """ranks_of's answer, and whether it was brought forward from a kept one (no ZRANK)."""
    before = zranks_used(client)
    found = rank_index.ranks_of(DAY, attempts, kept)
    return found, zranks_used(client) == before


def test_kept_ranks_brought_forward_are_the_sets_through_arrivals_departures_and_ties(index):
    rng = random.Random(28)
    # Few distinct keys: most results tie on theirs, and ties go by the member (attempt id).
    keys = [rank_index.sort_key(score=1000 + 30 * d, asks=20 + a, finished_ms=0) for d in range(5) for a in range(4)]
    day = {aid: rng.choice(keys) for aid in range(1000, 3000)}
    rank_index.rebuild(DAY, sorted(day.items()))
    board = sorted(rng.sample(sorted(day), 50)) + [5000, 5001]  # two not in the set (yet)
    next_id = 3000
    found, kept = asked(index, board)
    assert found == truth(index, board) and not kept
    served_kept = 0
    for _ in range(40):
        for _ in range(rng.randint(1, 20)):
            roll = rng.random()
            outsiders = [a for a in day if a not in board]
            if roll < 0.5:  # a new result, before or after the board's members on their key
                aid = rng.choice([next_id, rng.randint(1, 999)])
                next_id += 1
                day[aid] = rng.choice(keys)
                rank_index.add(DAY, [(aid, day[aid])])
            elif roll < 0.8:  # a result leaves (held, disqualified), or one not there
                aid = rng.choice(outsiders + [9999])
                day.pop(aid, None)
                rank_index.remove(DAY, aid)
            else:  # a result's key changes: it leaves its place and takes another
                aid = rng.choice(outsiders)
                day[aid] = rng.choice(keys)
                rank_index.add(DAY, [(aid, day[aid])])
        found, kept = asked(index, board)
        assert found == truth(index, board)
        served_kept += kept
    # The log keeps LOG_KEPT changes: the answer is kept until that many have come.
    assert served_kept >= 30


def test_a_change_to_one_of_the_members_asked_about_is_asked_afresh(index):
    rank_index.rebuild(DAY, [(a, 100 + a) for a in range(1, 101)])
    board = [10, 20, 30]
    assert asked(index, board)[0] == {10: 9, 20: 19, 30: 29}
    rank_index.remove(DAY, 20)
    rank_index.add(DAY, [(30, 5)])  # to the top
    found, kept = asked(index, board)
    assert found == {10: 10, 20: None, 30: 0} == truth(index, board) and not kept
    # Asked ahead (a board's question sent before its query): the same answer.
    rank_index.add(DAY, [(20, 1)])
    with rank_index.AskedRanks(DAY, tuple(board), "league:1") as early:
        pass
    assert early.answer() == {10: 11, 20: 0, 30: 1} == truth(index, board)


def test_a_rebuilt_set_is_asked_afresh(index):
    rank_index.rebuild(DAY, [(a, 100 + a) for a in range(1, 101)])
    board = [10, 20]
    assert asked(index, board)[0] == {10: 9, 20: 19}
    # The same number of changes since (none): only the set's epoch tells the answers apart.
    rank_index.rebuild(DAY, [(a, 1000 - a) for a in range(1, 101)])
    found, kept = asked(index, board)
    assert found == {10: 90, 20: 80} == truth(index, board) and not kept
    rank_index.drop(DAY)
    rank_index.rebuild(DAY, [(a, 100 + a) for a in range(1, 101)])
    assert asked(index, board)[0] == {10: 9, 20: 19}


def test_more_changes_than_the_log_keeps_are_asked_afresh(index):
    rank_index.rebuild(DAY, [(a, 10_000 + a) for a in range(1, 101)])
    board = [50]
    assert asked(index, board)[0] == {50: 49}
    rank_index.add(DAY, [(1000 + n, n) for n in range(rank_index.LOG_KEPT + 10)])  # all ahead
    found, kept = asked(index, board)
    assert found == {50: 49 + rank_index.LOG_KEPT + 10} and not kept
    rank_index.add(DAY, [(5000, 1)])
    assert asked(index, board) == ({50: 49 + rank_index.LOG_KEPT + 11}, True)


def test_each_question_is_kept_under_its_own_name(index):
    rank_index.rebuild(DAY, [(a, 100 + a) for a in range(1, 101)])
    assert asked(index, [10], "league:1")[0] == {10: 9}
    assert asked(index, [20], "league:2") == ({20: 19}, False)
    rank_index.add(DAY, [(500, 1)])
    assert asked(index, [10], "league:1") == ({10: 10}, True)
    # Other members under a name: that name's answer is asked afresh, and kept instead.
    assert asked(index, [30], "league:1") == ({30: 30}, False)
    assert asked(index, [30], "league:1") == ({30: 30}, True)
    assert index.ttl(rank_index.kept_key(DAY, "league:1")) > 0  # an answer unread goes
