"""A whole history is a level: a player whose games each stay under the game's threshold,
and whose weeks stay under the week's, is held once the product of all its ranked games
crosses the history's (games/fairplay HISTORY_THRESHOLD); the queue, the inspector and
``manage.py fairplay`` say it is the history and which channel spoke; a reviewer's clear
starts a new history."""

from __future__ import annotations

import datetime as dt
import io
import json
import random

import pytest
from django.core.management import call_command

from challenges import services
from challenges.models import Attempt, Player
from games import fairplay
from games.fairplay import players
from games.rules.peche import ENGINE
from leaderboard import selectors, spoke
from leaderboard.models import Result
from tests.conftest import first_rank, new_player, verified_game

pytestmark = pytest.mark.django_db(transaction=True)

# One game a week (each week holds one game: its figure is the game's), fixed deals (the
# test settings' seed secret). A peeker at 50 % of its asks (memory otherwise) crosses the
# history's threshold with its 5th game on these deals, no game or week flagged.
DAYS = [dt.date(2026, 3, 1) + dt.timedelta(days=7 * k) for k in range(6)]
PEEK = players.peeker(0.5, players.expert("random"))


def quiet(day: dt.date, player: Player) -> Attempt:
    challenge = services.challenge_for_day(day=day)
    moves, _, _ = players.play(ENGINE.new(seed=challenge.seed).deck, PEEK, random.Random(f"Quiet/{day}"))
    return verified_game(day=day, player=player, moves=moves, finished=challenge.closes_at - dt.timedelta(hours=2))


def test_a_quiet_history_is_held_as_a_history_and_a_clear_starts_a_new_one(reviewer):
    quiet_player = Player.objects.get(pk=new_player("Quiet").player["id"])
    ann = Player.objects.get(pk=new_player("Ann").player["id"])
    attempts = {}
    for i, day in enumerate(DAYS[:5]):
        verified_game(day=day, player=ann, choose=first_rank)
        attempts[day] = quiet(day, quiet_player)
        result = Result.objects.get(attempt=attempts[day])
        # Each game and each week stays under its own threshold.
        assert not result.flagged and not result.week_flagged
        assert result.week_evidence["suspicion"] < fairplay.WEEK_THRESHOLD
        assert result.history_evidence["games"] == i + 1 and result.history_evidence["first"] == DAYS[0].isoformat()
        if i < 4:
            assert not result.history_flagged and not result.held, day
    tipping = Result.objects.get(attempt=attempts[DAYS[4]])
    assert tipping.history_flagged and tipping.held
    assert tipping.history_evidence["suspicion"] >= fairplay.HISTORY_THRESHOLD
    # Only this game is held: the earlier ones rank (a flagged history holds no other game).
    assert list(Result.objects.filter(player=quiet_player, held=True)) == [tipping]
    honest = Result.objects.filter(player=ann)
    assert honest.count() == 5 and not honest.filter(history_flagged=True).exists()
    assert honest.get(challenge__date=DAYS[4]).history_evidence["games"] == 5

    # The queue: its own reason, and which channel spoke, in words.
    day = DAYS[4].isoformat()
    row = next(r for r in selectors.review_queue(challenge=tipping.challenge) if r["player"] == "Quiet")
    assert row["reasons"] == ["history"] and row["history_flagged"] and row["history_games"] == 5
    assert row["spoke"]["history"], row["spoke"]
    assert all(
        w.startswith(
            (
                "your asks found the opponent's cards more often than the table allowed (",
                "the opponent found your cards",
                "your draws paired more often",
            )
        )
        for w in row["spoke"]["history"]
    )
    assert selectors.review_queue(challenge=tipping.challenge)[0]["player"] == "Quiet"  # flagged first
    page = reviewer.get(f"/admin/challenges/attempt/review/?date={day}").content.decode()
    assert "fair play: history" in page and row["spoke"]["history"][0].replace("'", "&#x27;") in page
    inspector = reviewer.get(f"/admin/challenges/attempt/{attempts[DAYS[4]].pk}/replay/").content.decode()
    assert 'id="spoke-history"' in inspector and row["spoke"]["history"][0].replace("'", "&#x27;") in inspector

    # The command: the history's figures, the reason and the words; --flagged-only keeps it.
    out = io.StringIO()
    call_command("fairplay", date=day, flagged_only=True, stdout=out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["player"] for line in lines] == ["Quiet"]
    assert lines[0]["history_flagged"] and lines[0]["history_games"] == 5 and lines[0]["reasons"] == ["history"]
    assert lines[0]["spoke"]["history"] == row["spoke"]["history"]

    # --recompute judges the history again (a result verified before it was stored).
    Result.objects.filter(pk=tipping.pk).update(history_flagged=False, history_evidence=None, held=False)
    err = io.StringIO()
    call_command("fairplay", date=day, recompute=True, stdout=io.StringIO(), stderr=err)
    assert "1 histories changed" in err.getvalue()
    tipping.refresh_from_db()
    assert tipping.history_flagged and tipping.held and tipping.history_evidence["games"] == 5

    # Continued, the next game's history would still be flagged ...
    attempts[DAYS[5]] = quiet(DAYS[5], quiet_player)
    after = Result.objects.get(attempt=attempts[DAYS[5]])
    assert after.history_flagged and after.held and after.history_evidence["games"] == 6
    # ... but a reviewer who clears the flagged history starts a new test with the next game.
    done = reviewer.post(
        "/admin/challenges/attempt/review/decide/",
        {"attempt": attempts[DAYS[4]].pk, "decision": "clear", "reason": "looked at the whole history"},
    )
    assert done.status_code == 302
    tipping.refresh_from_db()
    assert not tipping.held and tipping.cleared_at is not None
    services.attempt_reverify(attempt_id=attempts[DAYS[5]].pk, reason="judge it again")
    services.attempt_verify(attempt_id=attempts[DAYS[5]].pk)
    after.refresh_from_db()
    assert after.history_evidence["games"] == 1 and after.history_evidence["restarted_after"] == DAYS[4].isoformat()
    assert after.history_evidence["first"] == DAYS[5].isoformat()
    assert not after.history_flagged and not after.held


def test_an_honest_history_is_never_held():
    ann = Player.objects.get(pk=new_player("Ann").player["id"])
    for day in DAYS:
        verified_game(day=day, player=ann, choose=first_rank)
    last = Result.objects.get(player=ann, challenge__date=DAYS[-1])
    assert last.history_evidence["games"] == len(DAYS) and not last.history_evidence["flagged"]
    assert not Result.objects.filter(player=ann, held=True).exists()
    assert not Result.objects.filter(player=ann, history_flagged=True).exists()


def test_the_words_name_the_channels_that_carry_the_figure():
    channels = {"asks": 2.0, "opponent": 3.1, "player_draws": -0.4}
    tallies = {
        "asks": {"count": 15, "good": 9, "expected": 5.2},
        "opponent": {"count": 14, "good": 13, "expected": 10.0},
        "player_draws": {"count": 20, "good": 9, "expected": 5.0},
    }
    assert spoke.channel_words(channels, tallies) == [
        "the opponent found your cards 1 time in 14 where the table expected 4 (+3.10)",
        "your asks found the opponent's cards more often than the table allowed (9 of 15, expected 5.2) (+2.00)",
    ]
    assert spoke.channel_words({"player_draws": 0.5}, {}) == [
        "your draws paired more often than the table allowed (+0.50)"
    ]
    assert spoke.channel_words({"asks": 0.0, "opponent": None}, tallies) == []
    assert spoke.tallies_sum([tallies, None, {"asks": {"count": 1, "good": 1, "expected": 0.3}}])["asks"] == {
        "count": 16,
        "good": 10,
        "expected": 5.5,
    }
