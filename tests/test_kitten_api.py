"""Kitten fishing through the casual-game HTTP API."""

from __future__ import annotations

import pytest

from casual.models import CasualGame
from games.rules.kitten import ENGINE
from tests.conftest import new_player

pytestmark = pytest.mark.django_db

BASE = "/api/casual/kitten"


# The fields of a stored game's view besides the engine's own (challenges/play.py GameView).
GAME_FIELDS = {"id", "game", "status", "move", "result", "number", "tally", "events"}


def seat_view(answer: dict) -> dict:
    """The engine's seat-0 view, which a game's view holds beside its own fields."""
    return {k: v for k, v in answer.items() if k not in GAME_FIELDS}


def create(client):
    response = client.post(f"{BASE}/games", {}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def flip(client, view, move=None):
    return client.post(
        f"{BASE}/games/{view['id']}/moves",
        {"play": "flip", "move": view["move"] if move is None else move},
        format="json",
    )


def hand_outcome(seed: str, first: str) -> tuple[dict, int]:
    """Flip by hand with the pure engine: the outcome and the number of player flips."""
    state = ENGINE.new(seed=seed, first=first)
    flips = 0
    while not ENGINE.is_over(state):
        ENGINE.apply(state, "flip")
        flips += 1
    return ENGINE.outcome(state).as_dict(), flips


def test_home_without_a_game_for_a_player_and_for_a_browser_without_one():
    alice = new_player("Alice")
    response = alice.get(BASE)
    assert response.status_code == 200
    assert response.json() == {"current": None, "tally": {"win": 0, "loss": 0, "draw": 0}}
    from rest_framework.test import APIClient

    # No account needed: a browser without a player sees an empty home too,
    # and looking writes nothing.
    anonymous = APIClient().get(BASE)
    assert anonymous.status_code == 200, anonymous.content
    assert anonymous.json() == {"current": None, "tally": {"win": 0, "loss": 0, "draw": 0}}
    assert not CasualGame.objects.exists()


def test_first_player_alternates_from_game_to_game():
    bob = new_player("Bob")
    firsts = []
    for n in range(4):
        view = create(bob)
        firsts.append(view["first"])
        assert view["number"] == n + 1
        if view["first"] == "opponent":
            # Kitten's opening flip is already played and returned as events.
            assert [e["seat"] for e in view["events"]] == [1]
            assert view["moves"] == 1 and view["piles"] == view["events"][0]["piles"]
        else:
            assert view["events"] == [] and view["moves"] == 0
    assert firsts == ["player", "opponent", "player", "opponent"]
    # Only the newest game is current; replaced ones are abandoned and never counted.
    statuses = list(
        CasualGame.objects.filter(owner__player__name="Bob").order_by("id").values_list("status", flat=True)
    )
    assert statuses == ["abandoned"] * 3 + ["playing"]
    assert bob.get(BASE).json()["current"]["number"] == 4


def test_a_flip_plays_the_player_then_kitten_and_resumes_exactly():
    carol = new_player("Carol")
    view = create(carol)
    response = flip(carol, view)
    assert response.status_code == 200, response.content
    after = response.json()
    assert after["move"] == 1
    assert [e["seat"] for e in after["events"] if e["type"] == "flip"] == [0, 1]
    game = CasualGame.objects.get(pk=view["id"])
    assert game.moves == ["flip"]
    state = ENGINE.replay({"seed": game.seed, "first": "player"}, 1, partial=True)
    assert seat_view(after) == ENGINE.view(state, 0)
    # GET (a reload) gives exactly the same view (without the move's events).
    reloaded = carol.get(f"{BASE}/games/{view['id']}").json()
    assert "events" not in reloaded and reloaded == {k: v for k, v in after.items() if k != "events"}
    assert carol.get(BASE).json()["current"] == reloaded


def test_stale_move_is_409_and_changes_nothing():
    dan = new_player("Dan")
    view = create(dan)
    assert flip(dan, view).status_code == 200
    stale = flip(dan, view, move=0)
    assert stale.status_code == 409 and stale.json()["error"] == "stale_move"
    ahead = flip(dan, view, move=5)
    assert ahead.status_code == 409
    assert CasualGame.objects.get(pk=view["id"]).moves == ["flip"]
    finish = dan.post(f"{BASE}/games/{view['id']}/finish", {"move": 0}, format="json")
    assert finish.status_code == 409
    assert CasualGame.objects.get(pk=view["id"]).moves == ["flip"]


def test_other_players_game_is_404():
    erin, frank = new_player("Erin"), new_player("Frank")
    view = create(erin)
    assert frank.get(f"{BASE}/games/{view['id']}").status_code == 404
    response = flip(frank, view)
    assert response.status_code == 404 and response.json()["error"] == "not_found"
    assert frank.post(f"{BASE}/games/{view['id']}/finish", {"move": 0}, format="json").status_code == 404
    assert frank.get(BASE).json()["current"] is None
    assert CasualGame.objects.get(pk=view["id"]).moves == []


@pytest.mark.parametrize(
    "body",
    [
        {"play": "ask", "move": 0},
        {"play": "flip", "move": "0"},
        {"play": "flip", "move": True},
        {"play": "flip"},
        {"move": 0},
        [],
    ],
)
def test_bad_input_is_4xx_and_changes_nothing(body):
    gina = new_player("Gina")
    view = create(gina)
    response = gina.post(f"{BASE}/games/{view['id']}/moves", body, format="json")
    assert 400 <= response.status_code < 500, response.content
    assert set(response.json()) == {"error", "detail"}
    assert CasualGame.objects.get(pk=view["id"]).moves == []


def test_unknown_game_and_bad_json_are_4xx():
    hank = new_player("Hank")
    assert hank.get("/api/casual/peche").status_code == 404
    assert hank.post("/api/casual/chess/games", {}, format="json").status_code == 404
    view = create(hank)
    response = hank.post(f"{BASE}/games/{view['id']}/moves", "{not json", content_type="application/json")
    assert response.status_code == 400 and response.json()["error"] == "bad_json"


def test_see_result_equals_flipping_by_hand_and_counts_in_the_tally():
    ivy = new_player("Ivy")
    view = create(ivy)
    assert flip(ivy, view).status_code == 200
    response = ivy.post(f"{BASE}/games/{view['id']}/finish", {"move": 1}, format="json")
    assert response.status_code == 200, response.content
    done = response.json()
    game = CasualGame.objects.get(pk=view["id"])
    outcome, flips = hand_outcome(game.seed, "player")
    assert done["status"] == "over" and done["outcome"] == outcome
    assert len(game.moves) == flips and done["move"] == flips
    assert done["events"][-1] == {"type": "end", "outcome": outcome}
    result = {(0,): "win", (1,): "loss", (0, 1): "draw"}[tuple(outcome["winners"])]
    assert game.result == result
    expected_tally = {"win": 0, "loss": 0, "draw": 0, result: 1}
    assert done["tally"] == expected_tally
    assert ivy.get(BASE).json()["tally"] == expected_tally
    # A finished game takes no more moves; a new game does not change the tally.
    again = flip(ivy, done)
    assert again.status_code == 409 and again.json()["error"] == "game_over"
    assert create(ivy)["tally"] == expected_tally


def test_tally_counts_wins_losses_and_draws_per_player():
    jack, kate = new_player("Jack"), new_player("Kate")
    results = []
    for _ in range(3):
        view = create(jack)
        done = jack.post(f"{BASE}/games/{view['id']}/finish", {"move": 0}, format="json").json()
        results.append(done["result"])
    tally = jack.get(BASE).json()["tally"]
    assert tally == {k: results.count(k) for k in ("win", "loss", "draw")}
    assert sum(tally.values()) == 3
    assert kate.get(BASE).json()["tally"] == {"win": 0, "loss": 0, "draw": 0}


def test_a_game_played_by_hand_to_the_end_is_over_with_its_result():
    leo = new_player("Leo")
    view = create(leo)
    game = CasualGame.objects.get(pk=view["id"])
    # A short deal keeps the test fast: the limit rule ends the game early.
    game.options = {"first": "player", "limit": 40}
    game.save()
    while view["status"] == "playing":
        response = flip(leo, view)
        assert response.status_code == 200, response.content
        view = response.json()
    assert view["outcome"]["reason"] in ("limit", "empty")
    assert view["outcome"]["moves"] <= 40
    assert view["result"] in ("win", "loss", "draw")
