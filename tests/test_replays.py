"""Public replays and lessons: a finished day's games face up for everyone;
nobody but superusers before the seed is public; lessons only for the game's player."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from games.fairplay import lessons as lesson_rules
from games.rules.peche import ENGINE
from leaderboard.models import Result
from tests.test_admin import verified_attempt

pytestmark = pytest.mark.django_db(transaction=True)


def replay_data(response) -> dict:
    found = re.search(
        r'<script id="replay-data" type="application/json">(.*?)</script>', response.content.decode(), re.S
    )
    return json.loads(found.group(1))


def logged_in_as(attempt) -> Client:
    client = Client()
    client.force_login(attempt.player.user)
    return client


def test_before_the_seed_is_public_only_superusers_replay():
    attempt = verified_attempt("Secret Sam")
    url = f"/replays/{attempt.pk}/"
    assert Client().get(url).status_code == 404
    # Its player is told when the replay opens, and is shown nothing of the deal.
    own = logged_in_as(attempt).get(url)
    assert own.status_code == 200 and b'id="opens"' in own.content
    assert b"replay-data" not in own.content and attempt.challenge.seed.encode() not in own.content
    root = get_user_model().objects.create_superuser("root", "r@example.com", "pw-Root-123")
    admin = Client()
    admin.force_login(root)
    assert admin.get(url).status_code == 200
    assert "Replay" not in Client().get(f"/leaderboard/{attempt.challenge.date}/").content.decode()


def test_after_the_seed_is_public_anyone_replays_the_whole_deal():
    attempt = verified_attempt("Open Olivia", day=dt.date(2026, 6, 2))
    assert attempt.challenge.is_revealed(timezone.now())
    result = Result.objects.get(attempt=attempt)
    response = Client().get(f"/replays/{attempt.pk}/")
    assert response.status_code == 200
    data = replay_data(response)
    steps = data["steps"]
    assert len(steps) == len(attempt.moves) + 1 and [s["ask"] for s in steps[1:]] == attempt.moves
    assert steps[-1]["outcome"]["score"] == result.score
    assert steps[0]["lake"] == ENGINE.new(seed=attempt.challenge.seed).deck[10:]  # face up, in order
    opponent_asks = [r for s in steps for r in s["reasons"]]
    asked = [e["rank"] for s in steps for e in s["events"] if e["type"] == "ask" and e["seat"] == 1]
    assert [r["rank"] for r in opponent_asks] == asked and len(asked) == steps[-1]["outcome"]["asks"][1]
    assert all(r["known"] or r["chances"] for r in opponent_asks)
    assert data["lessons"] == [] and data["mine"] is False  # lessons are the player's own
    board = Client().get(f"/leaderboard/{attempt.challenge.date}/").content.decode()
    assert f'href="/replays/{attempt.pk}/"' in board


def test_the_player_sees_the_lessons_of_their_game():
    attempt = verified_attempt("Learning Leo", day=dt.date(2026, 6, 2))
    expected = [lesson.as_dict() for lesson in lesson_rules.lessons(attempt.challenge.seed, attempt.moves)]
    assert expected, "this deal played by the first card in hand leaves lessons"
    data = replay_data(logged_in_as(attempt).get(f"/replays/{attempt.pk}/"))
    assert data["mine"] is True and data["lessons"] == expected
    me = logged_in_as(attempt).get(f"/players/{attempt.player_id}/").content.decode()
    assert f'<td class="lessons-count">{len(expected)}</td>' in me


def test_a_practice_game_or_an_unknown_one_has_no_replay():
    attempt = verified_attempt("Practising Pia", day=dt.date(2026, 6, 2))
    type(attempt).objects.filter(pk=attempt.pk).update(ranked=False)
    assert Client().get(f"/replays/{attempt.pk}/").status_code == 404
    assert Client().get("/replays/987654/").status_code == 404


def test_sure_pair_lessons_are_ranks_the_opponent_had_asked_for_and_not_laid():
    case = {
        "seed": "pub-peche-0",
        "moves": [
            "A",
            "A",
            "A",
            "4",
            "9",
            "9",
            "A",
            "9",
            "7",
            "9",
            "9",
            "A",
            "9",
            "2",
            "8",
            "9",
            "Q",
            "3",
            "Q",
            "8",
            "8",
            "8",
            "K",
            "K",
            "8",
            "8",
        ],
    }
    found = lesson_rules.lessons(case["seed"], case["moves"])
    assert {lesson.kind for lesson in found} >= {"sure_pair", "impossible"}
    for lesson in found:
        state = ENGINE.replay({"seed": case["seed"]}, case["moves"][: lesson.index], partial=True)
        assert lesson.better in state.hands[0] and lesson.asked in state.hands[0]
        if lesson.kind == "sure_pair":
            # The opponent asked for it and got none, and has not laid it since: it holds one.
            asked = [
                i
                for i, (seat, rank, given, _) in enumerate(state.history)
                if seat == 1 and rank == lesson.better and not given
            ]
            assert asked and lesson.better not in state.pairs[1]
            assert lesson.better in state.hands[1]  # (what the server knows agrees)
        if lesson.kind == "impossible":
            assert lesson.asked not in state.hands[1]
