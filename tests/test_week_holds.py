"""A caught week holds: when a verified game tips its player's week (the week rule over the
player's ranked games of the 7 days ending on its day), that game and the player's other
ranked results of that week leave every public ranking at once (the boards, the rank
indexes, the histograms, "of N") until a reviewer clears or disqualifies the whole week in
one decision, each game's decision kept in the trail."""

from __future__ import annotations

import datetime as dt
import io
import random

import pytest
from django.core.management import call_command
from django.test import Client

from challenges import services
from challenges.models import Player, Review
from games.fairplay import players
from games.rules.peche import ENGINE
from leaderboard import rank_index, selectors
from leaderboard import services as board_services
from leaderboard.models import Result
from tests.conftest import first_rank, new_player, verified_game

pytestmark = pytest.mark.django_db(transaction=True)

LAST = dt.date(2026, 6, 2)  # closed days with fixed deals (the test settings' seed secret)
DAYS = [LAST - dt.timedelta(days=offset) for offset in reversed(range(7))]


def quiet_peek(day: dt.date, player: Player):
    """A held rank asked on 70 % of the asks, from memory otherwise: no game is flagged
    alone, the week is (games/fairplay/players.py)."""
    challenge = services.challenge_for_day(day=day)
    peeker = dict(players.CHEATERS)["peek 70 %, memory otherwise"]
    moves, _, _ = players.play(ENGINE.new(seed=challenge.seed).deck, peeker, random.Random(f"Sly/b/{day}"))
    return verified_game(day=day, player=player, moves=moves, finished=challenge.closes_at - dt.timedelta(hours=2))


def public(day: dt.date, store) -> list[str]:
    """The day's public ranking by name, checked to be the same in SQL, in the rank index,
    on the API's page and in its histogram; and the "of N" every standing reads."""
    challenge_id = services.challenge_for_day(day=day).pk
    sql = list(
        selectors.ranked_results(challenge_id).order_by(*selectors.RANK_ORDER).values_list("attempt_id", flat=True)
    )
    if rank_index.is_ready(challenge_id):
        assert [int(m) for m in store.zrange(rank_index.key(challenge_id), 0, -1)] == sql
    page = Client().get(f"/api/leaderboard/{day.isoformat()}?limit=200").json()
    names = dict(Result.objects.filter(attempt_id__in=sql).values_list("attempt_id", "player__name"))
    assert [e["name"] for e in page["entries"]] == [names[a] for a in sql]
    bins = Client().get(f"/api/leaderboard/{day.isoformat()}/histogram").json()["bins"]
    assert sum(b["count"] for b in bins) == len(sql) == selectors.day_players(challenge_id)
    return [names[a] for a in sql]


CLUB: dict = {}


def club(day: dt.date) -> list[str]:
    """The league's day board, as a member reads it."""
    board = CLUB["client"].get(f"/api/leagues/{CLUB['id']}/leaderboard/{day.isoformat()}")
    assert board.status_code == 200, board.content
    return [e["name"] for e in board.json()["entries"]]


def play_the_week(store):
    """Sly peeks quietly day by day beside Ann, an honest player; returns Sly, its attempts
    by day, and the day whose game tipped the week."""
    sly_client, ann_client = new_player("Sly"), new_player("Ann")
    sly = Player.objects.get(pk=sly_client.player["id"])
    ann = Player.objects.get(pk=ann_client.player["id"])
    # Friends in a league: its boards follow the holds as the public one does.
    league = ann_client.post("/api/leagues", {"name": "Card Club"}, format="json").json()
    assert sly_client.post("/api/leagues/join", {"code": league["code"]}, format="json").status_code in (200, 201)
    CLUB.update(id=league["id"], client=ann_client)
    attempts, tipped = {}, None
    for day in DAYS:
        verified_game(day=day, player=ann, choose=first_rank)
        attempts[day] = quiet_peek(day, sly)
        board_services.rebuild_index(challenge_id=services.challenge_for_day(day=day).pk)
        week = Result.objects.filter(player=sly, ranked=True, challenge__date__lte=day)
        if tipped is None and Result.objects.get(attempt=attempts[day]).week_flagged:
            tipped = day
            # At once: every one of Sly's games of the week is held, out of every board.
            assert all(r.held and r.week_flagged and not r.flagged for r in week)
            for earlier in DAYS[: DAYS.index(day) + 1]:
                assert public(earlier, store) == ["Ann"] and club(earlier) == ["Ann"]
        elif tipped is None:
            # Until then Sly ranks; its games alone say nothing.
            assert not any(r.held for r in week)
            assert "Sly" in public(day, store)
    assert tipped is not None, "the week rule never flagged the quiet peeker"
    return sly, attempts, tipped


def test_a_tipped_week_is_held_at_once_and_cleared_in_one_decision(indexed, reviewer):
    sly, attempts, tipped = play_the_week(indexed)
    tipping = Result.objects.get(attempt=attempts[tipped])
    assert tipping.week_evidence["flagged"] and tipping.week_evidence["games"] == DAYS.index(tipped) + 1
    held = list(Result.objects.filter(player=sly, held=True).order_by("challenge__date"))
    assert [r.challenge.date for r in held] == DAYS  # the days after the tip are held by their own weeks
    assert Client().get(f"/api/leaderboard/{tipped.isoformat()}/me").status_code in (401, 403, 404)

    # Idempotent: a re-verify of the tipping game, or of an earlier one, and the sweeper
    # change nothing: the week waits for a reviewer.
    for attempt in (attempts[tipped], attempts[DAYS[0]]):
        services.attempt_reverify(attempt_id=attempt.pk, reason="rules fix")
        services.attempt_verify(attempt_id=attempt.pk)
    services.sweep_verifying()
    board_services.index_pending()
    assert Result.objects.filter(player=sly, held=True).count() == len(DAYS)
    for day in DAYS:
        assert public(day, indexed) == ["Ann"]

    # The queue shows the week with its members; one decision clears all of them.
    queue = reviewer.get(f"/admin/challenges/attempt/review/?date={tipped.isoformat()}").content.decode()
    row = next(r for r in selectors.review_queue(challenge=tipping.challenge) if r["player"] == "Sly")
    assert row["week_flagged"] and "week" in row["reasons"]
    members = row["week_members"]
    assert members == [attempts[d].pk for d in DAYS if tipped - dt.timedelta(days=6) <= d <= tipped]
    assert "Clear the week" in queue and f'value="{",".join(map(str, members))}"' in queue
    stale = reviewer.post(
        "/admin/challenges/attempt/review/decide/",
        {"week": tipping.pk, "members": ",".join(map(str, members[1:])), "decision": "clear", "reason": "x"},
    )
    assert stale.status_code == 302 and Result.objects.get(pk=tipping.pk).held  # not the week shown: nothing done
    done = reviewer.post(
        "/admin/challenges/attempt/review/decide/",
        {"week": tipping.pk, "members": ",".join(map(str, members)), "decision": "clear", "reason": "a good week"},
    )
    assert done.status_code == 302
    for day in DAYS:
        result = Result.objects.get(attempt=attempts[day])
        if result.attempt_id in members:
            assert not result.held and result.cleared_at is not None and result.indexed
            assert sorted(public(day, indexed)) == ["Ann", "Sly"] and sorted(club(day)) == ["Ann", "Sly"]
            assert Review.objects.filter(attempt=attempts[day]).order_by("pk").values_list(
                "action", "reason"
            ).last() == (
                "restore",
                "a good week",
            )
        else:  # after the week shown: held by its own week, decided on its own day's queue
            assert result.held and public(day, indexed) == ["Ann"]

    # Cleared means cleared: judging a cleared game again does not hold it behind the reviewer.
    services.attempt_reverify(attempt_id=attempts[tipped].pk, reason="rules fix")
    services.attempt_verify(attempt_id=attempts[tipped].pk)
    assert not Result.objects.get(attempt=attempts[tipped]).held
    board_services.rebuild_index(challenge_id=tipping.challenge_id)
    assert sorted(public(tipped, indexed)) == ["Ann", "Sly"]


def test_a_tipped_week_disqualified_in_one_decision(indexed):
    sly, attempts, tipped = play_the_week(indexed)
    tipping = Result.objects.get(attempt=attempts[tipped])
    members = selectors.week_members(tipping)
    with pytest.raises(board_services.ReviewRefused):
        board_services.week_decide(result_id=tipping.pk, attempt_ids=members[:-1], decision="disqualify", reason="x")
    done = board_services.week_decide(
        result_id=tipping.pk, attempt_ids=members, decision="disqualify", reason="peeked all week"
    )
    assert done == len(members)
    for attempt_id in members:
        result = Result.objects.get(attempt_id=attempt_id)
        assert result.disqualified and not result.held and result.review_reason == "peeked all week"
        assert public(result.challenge.date, indexed) == ["Ann"]
    me = sly.results.get(attempt=attempts[tipped])
    assert selectors.standing(me)["disqualified"] and selectors.standing(me)["rank"] is None


def test_an_honest_week_is_never_held(indexed):
    ann = Player.objects.get(pk=new_player("Ann").player["id"])
    for day in DAYS:
        verified_game(day=day, player=ann, choose=first_rank)
    week = Result.objects.filter(player=ann)
    assert week.count() == len(DAYS) and not week.filter(held=True).exists()
    last = week.get(challenge__date=LAST)
    assert last.week_evidence["games"] == len(DAYS) and not last.week_flagged


def test_a_recompute_judges_the_weeks_of_results_verified_before_they_were_stored(indexed):
    sly, attempts, tipped = play_the_week(indexed)
    # As results verified before the week rule was stored: no figures, no flag, no hold.
    Result.objects.filter(player=sly).update(week_flagged=False, week_evidence=None, held=False)
    for day in DAYS:
        board_services.rebuild_index(challenge_id=services.challenge_for_day(day=day).pk)
        assert sorted(public(day, indexed)) == ["Ann", "Sly"]

    out, err = io.StringIO(), io.StringIO()
    call_command("fairplay", date=tipped.isoformat(), recompute=True, stdout=out, stderr=err)
    assert "weeks changed" in err.getvalue()
    tipping = Result.objects.get(attempt=attempts[tipped])
    assert tipping.week_flagged and tipping.week_evidence["flagged"]
    for day in DAYS:
        in_week = tipped - dt.timedelta(days=6) <= day <= tipped
        assert Result.objects.get(attempt=attempts[day]).held == in_week, day
        # The days after it are judged when their own day is recomputed.
        assert ("Sly" in public(day, indexed)) != in_week
    # Again: nothing more changes.
    assert board_services.weeks_reassess(challenge_id=tipping.challenge_id) == 0
