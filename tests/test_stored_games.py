"""Both kinds of stored game (a daily attempt, a casual game) take moves through one
service (challenges/play.py): the same compare-and-set, the same refusals, the same
``move`` number in both APIs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from challenges.models import Attempt
from games.web.models import CasualGame
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
        return {"play": view["view"]["legal_moves"][0]}


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
