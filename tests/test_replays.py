"""Public replays and their analysis: a finished day's games face up for everyone, each
analysed ask by ask (games/analysis/) once the day is closed; nobody but superusers
replays before the seed is public, and nobody reads an analysis or the par before it."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from games.analysis import game as analysis_game
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
    assert data["mine"] is False and data["id"] == attempt.pk
    board = Client().get(f"/leaderboard/{attempt.challenge.date}/").content.decode()
    assert f'href="/replays/{attempt.pk}/"' in board


@pytest.mark.usefixtures("analysis_inline")
def test_the_player_sees_their_accuracy_on_their_page_once_analysed():
    attempt = verified_attempt("Learning Leo", day=dt.date(2026, 6, 2))
    expected = analysis_game.analyse(attempt.challenge.seed, attempt.moves)
    # Nothing is worked out by a page's look (GETs read): the page shows what was asked for.
    me = logged_in_as(attempt).get(f"/players/{attempt.player_id}/").content.decode()
    assert '<td class="accuracy">—</td>' in me
    # Asked for (the replay page's POST; eager here: worked out at once), then shown.
    assert logged_in_as(attempt).post(f"/api/attempts/{attempt.pk}/analysis").status_code == 200
    me = logged_in_as(attempt).get(f"/players/{attempt.player_id}/").content.decode()
    assert f'<td class="accuracy">{expected.accuracy:.0f} %</td>' in me
    data = replay_data(logged_in_as(attempt).get(f"/replays/{attempt.pk}/"))
    assert data["mine"] is True and data["analysis"]["accuracy"] == round(expected.accuracy, 1)
    assert [a["rank"] for a in data["analysis"]["asks"]] == attempt.moves
    # Someone else's page shows no accuracy column.
    other = Client().get(f"/players/{attempt.player_id}/").content.decode()
    assert 'class="accuracy"' not in other


def test_a_practice_game_or_an_unknown_one_has_no_replay():
    attempt = verified_attempt("Practising Pia", day=dt.date(2026, 6, 2))
    type(attempt).objects.filter(pk=attempt.pk).update(ranked=False)
    assert Client().get(f"/replays/{attempt.pk}/").status_code == 404
    assert Client().get("/replays/987654/").status_code == 404


def test_an_ask_that_left_a_sure_pair_is_a_loss_and_says_why():
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
    found = analysis_game.analyse(case["seed"], case["moves"]).asks
    assert {a.reason for a in found} >= {"sure_pair", "impossible"}
    for ask in found:
        if ask.reason is None:
            continue
        state = ENGINE.replay({"seed": case["seed"]}, case["moves"][: ask.index], partial=True)
        better = max(ask.chances, key=ask.chances.__getitem__)
        assert better in state.hands[0] and ask.rank in state.hands[0]
        if ask.reason == "sure_pair":
            # The opponent asked for it and got none, and has not laid it since: it holds one.
            asked = [
                i
                for i, (seat, rank, given, _) in enumerate(state.history)
                if seat == 1 and rank == better and not given
            ]
            assert asked and better not in state.pairs[1]
            assert better in state.hands[1]  # (what the server knows agrees)
            # Leaving it in hand is a loss, and the engine's ask is the sure pair.
            assert ask.best == better and ask.loss >= analysis_game.INACCURACY and ask.label is not None
        if ask.reason == "impossible":
            assert ask.rank not in state.hands[1]
