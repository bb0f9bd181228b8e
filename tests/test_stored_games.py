"""Both kinds of stored game (a daily attempt, a casual game) take moves through one
service (challenges/play.py): the same compare-and-set, the same refusals, the same
``move`` number in both APIs; and both answer with one view shape (``GameView``), built
without a query of its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from casual.models import CasualGame
from challenges.models import Attempt
from challenges.play import GameView
from games.rules.registry import engine
from tests.conftest import new_player
from tests.test_daily_api import all_at_once


@dataclass(frozen=True)
class Kind:
    name: str
    start: str  # POST here to get a game
    moves: str  # POST a move here: "{id}" is the game's
    model: Any

    def play_of(self, view: dict) -> dict:
        """The body fields of a legal move in ``view``, without the move number."""
        if self.model is Attempt:
            return {"rank": view["hand"][0][:-1]}
        if view["game"] == "kitten":
            return {"play": "flip"}
        return {"play": view["legal_moves"][0]}


KINDS = [
    Kind("daily attempt", "/api/challenges/today/attempt", "/api/attempts/{id}/asks", Attempt),
    Kind("kitten", "/api/casual/kitten/games", "/api/casual/kitten/games/{id}/moves", CasualGame),
    Kind("gofish", "/api/casual/gofish/games", "/api/casual/gofish/games/{id}/moves", CasualGame),
]


def start(client, kind: Kind) -> dict:
    response = client.post(kind.start, {}, format="json")
    assert response.status_code in (200, 201), response.content
    return response.json()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_twenty_concurrent_moves_with_the_same_number_apply_once(kind):
    carol = new_player("Carol")
    view = start(carol, kind)
    body = {**kind.play_of(view), "move": view["move"]}
    responses = all_at_once(
        20,
        f"Token {carol.player['token']}",
        lambda client: client.post(kind.moves.format(id=view["id"]), body, format="json"),
    )
    assert sorted(r.status_code for r in responses) == [200] + [409] * 19
    assert {r.json()["error"] for r in responses if r.status_code == 409} == {"stale_move"}
    assert len(kind.model.objects.get(pk=view["id"]).moves) == view["move"] + 1


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_a_stale_number_is_409_and_changes_nothing(kind):
    dave = new_player("Dave")
    view = start(dave, kind)
    url = kind.moves.format(id=view["id"])
    for stale in (view["move"] + 1, view["move"] + 5):
        response = dave.post(url, {**kind.play_of(view), "move": stale}, format="json")
        assert response.status_code == 409 and response.json()["error"] == "stale_move"
    assert len(kind.model.objects.get(pk=view["id"]).moves) == view["move"]
    after = dave.post(url, {**kind.play_of(view), "move": view["move"]}, format="json")
    assert after.status_code == 200 and after.json()["move"] == view["move"] + 1


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_a_finished_game_takes_no_move(kind):
    erin = new_player("Erin")
    view = start(erin, kind)
    row = kind.model.objects.get(pk=view["id"])
    kind.model.objects.filter(pk=row.pk).update(status="verifying" if kind.model is Attempt else "over")
    response = erin.post(kind.moves.format(id=view["id"]), {**kind.play_of(view), "move": view["move"]}, format="json")
    assert response.status_code == 409 and response.json()["error"] == "game_over"
    assert kind.model.objects.get(pk=view["id"]).moves == row.moves


# The queries of one move's request besides its credential's (a token's player or the
# browser's session, which the shared Redis cache may answer instead): the game's read
# (with its number and tally for a casual one) and the compare-and-set write, whatever the
# game and whoever sends it. A casual move once took 5: its owner's row and the
# game read apart, the write, then its number and its tally (the daily's took 2 already).
GAME_QUERIES_PER_MOVE = 2
CREDENTIAL_TABLES = ('"auth_user"', '"django_session"')


def browser(kind: Kind) -> APIClient:
    """A browser: its session is its credential (a player's for the daily game, none for a
    casual one)."""
    client = APIClient()
    if kind.model is Attempt:
        assert client.post("/api/players", {"name": "Gwen"}, format="json").status_code == 201
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["token", "browser"])
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_a_move_takes_the_same_few_queries_whatever_the_game_has_played(kind, who):
    client = new_player("Gwen") if who == "token" else browser(kind)
    view = start(client, kind)
    counts = []
    for _ in range(4):
        with CaptureQueriesContext(connection) as queries:
            response = client.post(
                kind.moves.format(id=view["id"]), {**kind.play_of(view), "move": view["move"]}, format="json"
            )
        assert response.status_code == 200, response.content
        view = response.json()
        game_queries = [q["sql"] for q in queries.captured_queries if not any(t in q["sql"] for t in CREDENTIAL_TABLES)]
        counts.append(len(game_queries))
    assert counts == [GAME_QUERIES_PER_MOVE] * 4, [q[:80] for q in game_queries]


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_stored_game_answers_in_the_one_view_shape(kind):
    erin = new_player("Erin")
    view = start(erin, kind)
    eng = engine(view["game"])
    row = kind.model.objects.get(pk=view["id"])
    common = set(GameView.__annotations__) - {"events"}
    assert common <= set(view) and view["move"] == len(row.moves) and view["status"] == row.status
    # The engine's view of seat 0 is at the same level, unchanged.
    seat = eng.view(row.state(), 0)
    assert {k: view[k] for k in seat} == seat
    moved = erin.post(kind.moves.format(id=view["id"]), {**kind.play_of(view), "move": view["move"]}, format="json")
    assert isinstance(moved.json()["events"], list)
    reloaded = erin.get(
        ("/api/attempts/{id}" if kind.model is Attempt else f"/api/casual/{kind.name}/games/{{id}}").format(
            id=view["id"]
        )
    )
    assert reloaded.json() == {k: v for k, v in moved.json().items() if k != "events"}


def test_no_engine_names_a_field_of_the_view_around_it():
    """The engine's view sits beside the stored game's own fields and its kind's: none may
    hide another (Go Fish's own ``game`` is its name, the same value)."""
    around = set(GameView.__annotations__) | {"date", "ranked", "asks_until", "day_closed", "reject_reason", "result"}
    around |= {"number", "tally"}
    for name, options in (("peche", {}), ("kitten", {}), ("gofish", {"players": 3})):
        eng = engine(name)
        seat = eng.view(eng.new(seed="ab" * 8, **options), 0)
        assert not (set(seat) & around) - {"game"}, name
        assert seat.get("game", name) == name
