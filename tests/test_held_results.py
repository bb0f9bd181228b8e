"""Held until reviewed: a result the fair-play detector flags is off the public
leaderboard, its histogram, the archive and everybody's rank until a reviewer clears it
(it then ranks in its place) or disqualifies it (off, with the reason shown to its
player). At every step the Redis rank index (a redis-server of the test's own) holds
exactly what SQL ranks, and every rank read through either agrees."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.test import Client

from challenges import services
from challenges.models import Player, Review
from leaderboard import rank_index, selectors
from leaderboard import services as board_services
from leaderboard.models import Result
from tests.conftest import new_player, verified_game

pytestmark = pytest.mark.django_db(transaction=True)

DAY = dt.date(2026, 6, 2)  # closed (its archive is public), with a fixed deal


def clairvoyant(state) -> str:
    """Asks a rank the opponent holds whenever there is one: the player knows the deal."""
    return next((rank for rank in state.hands[0] if rank in state.hands[1]), next(iter(state.hands[0])))


class Someone:
    def __init__(self, name: str, *, minutes_before_close: int, choose=None) -> None:
        self.name = name
        self.client = new_player(name)
        closes = services.challenge_for_day(day=DAY).closes_at
        kwargs = {"choose": choose} if choose else {}
        self.attempt = verified_game(
            day=DAY,
            player=Player.objects.get(pk=self.client.player["id"]),
            finished=closes - dt.timedelta(minutes=minutes_before_close),
            **kwargs,
        )

    @property
    def result(self) -> Result:
        return Result.objects.select_related("challenge").get(attempt=self.attempt)

    def me(self) -> dict:
        response = self.client.get(f"/api/leaderboard/{DAY.isoformat()}/me")
        assert response.status_code == 200, response.content
        return response.json()

    def game(self) -> dict:
        """The player's own view of the attempt (GET /api/attempts/<id>)."""
        response = self.client.get(f"/api/attempts/{self.attempt.pk}")
        assert response.status_code == 200, response.content
        return response.json()["result"]


def decide(reviewer, someone: Someone, decision: str, reason: str) -> None:
    response = reviewer.post(
        "/admin/challenges/attempt/review/decide/",
        {"attempt": someone.attempt.pk, "decision": decision, "reason": reason},
    )
    assert response.status_code == 302


def published(challenge_id: int, store) -> list[int]:
    """The day's ranking, checked to be one and the same in SQL, in the rank index, through
    every rank read, and on the public API page, histogram and archive; returns its attempts."""
    sql = list(
        selectors.ranked_results(challenge_id).order_by(*selectors.RANK_ORDER).values_list("attempt_id", flat=True)
    )
    assert rank_index.is_ready(challenge_id)
    assert [int(m) for m in store.zrange(rank_index.key(challenge_id), 0, -1)] == sql
    for result in Result.objects.filter(challenge_id=challenge_id):
        expected = sql.index(result.attempt_id) + 1 if result.attempt_id in sql else None
        assert selectors.result_rank(result) == expected, result  # through the index
        if expected is not None:
            assert selectors.sql_rank(result) == expected
    page = Client().get(f"/api/leaderboard/{DAY.isoformat()}?limit=200").json()
    names = dict(Result.objects.filter(challenge_id=challenge_id).values_list("attempt_id", "player__name"))
    assert page["total"] == len(sql) and [e["name"] for e in page["entries"]] == [names[a] for a in sql]
    bins = Client().get(f"/api/leaderboard/{DAY.isoformat()}/histogram").json()["bins"]
    scores = sorted(Result.objects.filter(attempt_id__in=sql).values_list("score", flat=True))
    assert sorted(b["score"] for b in bins for _ in range(b["count"])) == scores
    archive = Client().get(f"/api/challenges/{DAY.isoformat()}/archive")
    lines = [json.loads(line) for line in b"".join(archive.streaming_content).decode().splitlines()]
    assert [line["attempt"] for line in lines] == sql
    return sql


def test_a_flagged_result_is_held_then_cleared_or_disqualified(indexed, reviewer):
    honest = [
        Someone("Ann", minutes_before_close=120),
        Someone("Ben", minutes_before_close=90),
        Someone("Cy", minutes_before_close=60),
    ]
    ann, ben, cy = honest
    mallory = Someone("Mallory", minutes_before_close=150, choose=clairvoyant)
    mole = Someone("Mole", minutes_before_close=30, choose=clairvoyant)
    challenge_id = mallory.result.challenge_id
    board_services.rebuild_index(challenge_id=challenge_id)

    # Flagged at verification: held, and so nowhere public; the others rank as if they were not there.
    for cheat in (mallory, mole):
        assert cheat.result.flagged and cheat.result.held and not cheat.result.indexed
    assert mallory.result.score > ann.result.score  # seeing the cards pays: it would be #1
    assert published(challenge_id, indexed) == [p.attempt.pk for p in honest]
    assert [(m["rank"], m["players"], m["top_percent"]) for m in (p.me() for p in honest)] == [
        (1, 3, 34),
        (2, 3, 67),
        (3, 3, 100),
    ]
    held = mallory.me()
    assert held["held"] and held["rank"] is None and held["top_percent"] is None and held["streak"] == 0
    assert held["score"] == mallory.result.score and held["players"] == 3
    shown = mallory.game()
    assert shown["held"] and shown["rank"] is None and shown["score"] == mallory.result.score
    assert not shown["disqualified"] and shown["reason"] is None
    queue = reviewer.get(f"/admin/challenges/attempt/review/?date={DAY.isoformat()}").content.decode()
    assert 'value="clear"' in queue and "held" in queue

    # Cleared: ranked in its place, everybody's rank moves with it.
    decide(reviewer, mallory, "clear", "looked like luck")
    assert not mallory.result.held and mallory.result.cleared_at is not None and mallory.result.indexed
    assert published(challenge_id, indexed) == [mallory.attempt.pk, *(p.attempt.pk for p in honest)]
    cleared = mallory.me()
    assert (cleared["held"], cleared["rank"], cleared["players"], cleared["top_percent"]) == (False, 1, 4, 25)
    assert cleared["streak"] == 1
    assert (ann.me()["rank"], ann.me()["top_percent"]) == (2, 50)
    assert mallory.game()["rank"] == 1 and not mallory.game()["held"]
    trail = Review.objects.filter(attempt=mallory.attempt).values_list("action", "reason").get()
    assert trail == ("restore", "looked like luck")

    # A re-assessment (a newer detector) flags the cleared game again: not held again
    # behind the reviewer's back. A re-verify does not hold it again either.
    Result.objects.filter(attempt=mallory.attempt).update(suspicion=0.0, flagged=False)
    board_services.results_reassess(challenge_id=challenge_id)
    assert mallory.result.flagged and not mallory.result.held
    services.attempt_reverify(attempt_id=mallory.attempt.pk, reason="rules fix")
    services.attempt_verify(attempt_id=mallory.attempt.pk)
    assert mallory.result.flagged and not mallory.result.held and mallory.result.indexed
    assert published(challenge_id, indexed)[0] == mallory.attempt.pk

    # Mole's re-verify keeps the hold: nobody has cleared it.
    services.attempt_reverify(attempt_id=mole.attempt.pk, reason="rules fix")
    services.attempt_verify(attempt_id=mole.attempt.pk)
    assert mole.result.held

    # Disqualified from the hold: off, and the player is told why.
    decide(reviewer, mole, "disqualify", "played from a leaked seed")
    assert mole.result.disqualified and not mole.result.held
    assert published(challenge_id, indexed) == [mallory.attempt.pk, *(p.attempt.pk for p in honest)]
    off = mole.me()
    assert (off["disqualified"], off["held"], off["rank"], off["top_percent"]) == (True, False, None, None)
    assert off["reason"] == "played from a leaked seed"
    shown = mole.game()
    assert shown["disqualified"] and shown["reason"] == "played from a leaked seed" and shown["rank"] is None
    # Clearing a disqualified result is refused (that is a restore): nothing changes.
    decide(reviewer, mole, "clear", "oops")
    assert mole.result.disqualified
    with pytest.raises(board_services.ReviewRefused):
        board_services.result_clear(result_id=mole.result.pk, reason="oops")
    # Nor is a result that is not held cleared (ahead of a flag, it would exempt it from one).
    with pytest.raises(board_services.ReviewRefused):
        board_services.result_clear(result_id=ann.result.pk, reason="trusted")
    assert ann.result.cleared_at is None

    # The index rebuilt from Postgres holds the same ranking.
    board_services.rebuild_index(challenge_id=challenge_id)
    assert published(challenge_id, indexed) == [mallory.attempt.pk, *(p.attempt.pk for p in honest)]


def test_a_reassessment_releases_a_hold_the_detector_no_longer_stands_by(indexed):
    ann = Someone("Ann", minutes_before_close=120)
    ben = Someone("Ben", minutes_before_close=90)
    challenge_id = ann.result.challenge_id
    board_services.rebuild_index(challenge_id=challenge_id)
    assert published(challenge_id, indexed) == [ann.attempt.pk, ben.attempt.pk]

    # As an older detector would have left it: Ann's honest game flagged, so held and out.
    Result.objects.filter(attempt=ann.attempt).update(flagged=True, held=True, indexed=False)
    rank_index.remove(challenge_id, ann.attempt.pk)
    assert published(challenge_id, indexed) == [ben.attempt.pk]
    assert ann.me()["held"] and ben.me()["rank"] == 1

    # Today's detector does not flag it: released, ranked in its place.
    board_services.results_reassess(challenge_id=challenge_id)
    assert not ann.result.flagged and not ann.result.held and ann.result.indexed
    assert published(challenge_id, indexed) == [ann.attempt.pk, ben.attempt.pk]
    assert (ann.me()["rank"], ben.me()["rank"]) == (1, 2)


def test_the_review_queue_and_the_list_action_clear_a_held_result(indexed, reviewer):
    ann = Someone("Ann", minutes_before_close=120)
    mallory = Someone("Mallory", minutes_before_close=150, choose=clairvoyant)
    challenge_id = ann.result.challenge_id
    board_services.rebuild_index(challenge_id=challenge_id)
    rows = {row["player"]: row for row in selectors.review_queue(challenge=mallory.result.challenge)}
    assert rows["Mallory"]["held"] and not rows["Mallory"]["cleared"] and not rows["Ann"]["held"]

    asked = reviewer.post("/admin/challenges/attempt/", {"action": "clear", "_selected_action": [mallory.attempt.pk]})
    assert asked.status_code == 200 and 'name="reason"' in asked.content.decode()
    assert mallory.result.held  # nothing done without a reason
    reviewer.post(
        "/admin/challenges/attempt/",
        {"action": "clear", "_selected_action": [mallory.attempt.pk], "apply": "1", "reason": "a lucky day"},
    )
    assert not mallory.result.held
    assert published(challenge_id, indexed) == [mallory.attempt.pk, ann.attempt.pk]
    rows = {row["player"]: row for row in selectors.review_queue(challenge=mallory.result.challenge)}
    assert rows["Mallory"]["cleared"] and rows["Mallory"]["flagged"]
