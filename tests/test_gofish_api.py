"""Go Fish with books through the casual-game HTTP API."""

from __future__ import annotations

import json

import pytest

from casual.models import CasualGame
from games.rules.cards import RANKS, rank_of
from games.rules.gofish import ENGINE
from tests.conftest import new_player

pytestmark = pytest.mark.django_db

BASE = "/api/casual/gofish"


def create(client, **options):
    response = client.post(f"{BASE}/games", {"players": 2, **options}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def ask(client, game, play, move=None):
    return client.post(
        f"{BASE}/games/{game['id']}/moves",
        {"play": play, "move": game["move"] if move is None else move},
        format="json",
    )


def engine_state(row: CasualGame):
    state = ENGINE.new(seed=row.seed, **row.options)
    for move in row.moves:
        ENGINE.apply(state, move)
    return state


# The fields of a stored game's view besides the engine's own (challenges/play.py GameView);
# Go Fish's own view names its game too.
GAME_FIELDS = {"id", "status", "move", "result", "number", "tally", "events"}


def seat_view(answer: dict) -> dict:
    """The engine's seat-0 view, which a game's view holds beside its own fields."""
    return {k: v for k, v in answer.items() if k not in GAME_FIELDS}


def first_legal(game):
    return game["legal_moves"][0]


def test_options_default_hand_sizes_and_validation():
    alice = new_player("Alice")
    for players, hand in [(2, 7), (3, 7), (4, 5), (6, 5)]:
        view = create(alice, players=players)
        assert view["players"] == players
        assert len(view["hand"]) + 4 * len(view["books"][0]) >= 0
        row = CasualGame.objects.get(pk=alice.get(BASE).json()["current"]["id"])
        assert row.options == {"players": players} and engine_state(row).hand_size == hand
    assert create(alice, players=4, hand_size=3)["hand_sizes"] == [3, 3, 3, 3]
    for bad in [
        {"players": 1},
        {"players": 7},
        {"players": "3"},
        {"players": True},
        {"players": 2, "hand_size": 0},
        {"players": 6, "hand_size": 9},
        {"players": 2, "hand_size": "5"},
    ]:
        response = alice.post(f"{BASE}/games", bad, format="json")
        assert response.status_code == 400, (bad, response.content)
        assert response.json()["error"] == "bad_input"
    # Refused options abandon nothing: the last good game is still current.
    assert alice.get(BASE).json()["current"]["hand_sizes"] == [3, 3, 3, 3]
    # No options at all: two players, the engine's hand size.
    plain = alice.post(f"{BASE}/games", {}, format="json")
    assert plain.status_code == 201 and plain.json()["hand_sizes"] == [7, 7]


def test_a_move_plays_every_simulated_seat_and_resumes_exactly():
    bob = new_player("Bob")
    game = create(bob, players=4)
    assert game["move"] == 0 and game["to_move"] == 0
    assert [e["type"] for e in game["events"]][:4] == ["deal"] * 4
    move = first_legal(game)
    response = ask(bob, game, move)
    assert response.status_code == 200, response.content
    after = response.json()
    row = CasualGame.objects.get(pk=game["id"])
    assert row.moves == [move] and after["move"] == 1
    state = engine_state(row)
    assert seat_view(after) == ENGINE.view(state, 0)
    assert after["events"][0]["type"] == "ask" and after["events"][0]["seat"] == 0
    # A reload (GET) gives exactly the same view (without the move's events).
    reloaded = bob.get(f"{BASE}/games/{game['id']}").json()
    assert "events" not in reloaded and reloaded == {k: v for k, v in after.items() if k != "events"}
    assert bob.get(BASE).json()["current"] == reloaded


def test_stale_and_duplicate_moves_are_409_and_change_nothing():
    carol = new_player("Carol")
    game = create(carol)
    move = first_legal(game)
    assert ask(carol, game, move).status_code == 200
    row = CasualGame.objects.get(pk=game["id"])
    before = (list(row.moves), row.updated_at)
    duplicate = ask(carol, game, move)  # the same request again: its move number is now stale
    assert duplicate.status_code == 409 and duplicate.json()["error"] == "stale_move"
    ahead = ask(carol, game, move, move=5)
    assert ahead.status_code == 409
    row.refresh_from_db()
    assert (row.moves, row.updated_at) == before


def test_another_players_game_is_404():
    dan, eve = new_player("Dan"), new_player("Eve")
    game = create(dan)
    assert eve.get(f"{BASE}/games/{game['id']}").status_code == 404
    response = ask(eve, game, first_legal(game))
    assert response.status_code == 404 and response.json()["error"] == "not_found"
    assert CasualGame.objects.get(pk=game["id"]).moves == []
    # Nor is it reachable under another game's name.
    assert dan.get(f"/api/casual/kitten/games/{game['id']}").status_code == 404


def _empty_seat_position(players: int = 3):
    """A seed and seat-0 moves after which seat 0 decides while some other seat holds
    no cards (playing the first legal move each time)."""
    for n in range(200):
        seed = f"gofish-empty-{n}"
        state = ENGINE.new(seed=seed, players=players)
        while not state.over:
            empty = [t for t in range(1, players) if not state.hands[t]]
            if empty and state.turn == 0:
                return seed, list(state.moves), empty[0]
            ENGINE.apply(state, ENGINE.legal_moves(state)[0])
    raise AssertionError("no position with an empty seat found")


def test_asking_a_seat_without_cards_is_400():
    fay = new_player("Fay")
    game = create(fay, players=3)
    rank = rank_of(game["hand"][0])
    for target in (0, 3, -1, "1"):  # itself, no such seat, not a seat number
        response = ask(fay, game, {"seat": 0, "target": target, "rank": rank})
        assert response.status_code == 400 and response.json()["error"] == "bad_target", target
    seed, moves, empty = _empty_seat_position()
    CasualGame.objects.filter(pk=game["id"]).update(seed=seed, options={"players": 3}, moves=moves)
    view = fay.get(f"{BASE}/games/{game['id']}").json()
    assert view["hand_sizes"][empty] == 0
    assert all(m["target"] != empty for m in view["legal_moves"])
    response = ask(fay, view, {"seat": 0, "target": empty, "rank": rank_of(view["hand"][0])})
    assert response.status_code == 400 and response.json()["error"] == "bad_target"
    assert CasualGame.objects.get(pk=game["id"]).moves == moves
    # A rank seat 0 does not hold is refused too.
    missing = next(r for r in RANKS if all(rank_of(c) != r for c in view["hand"]))
    target = view["legal_moves"][0]["target"]
    response = ask(fay, view, {"seat": 0, "target": target, "rank": missing})
    assert response.status_code == 400 and response.json()["error"] == "illegal_ask"


def test_views_never_show_other_hands():
    gus = new_player("Gus")
    game = create(gus, players=5)
    responses = [game]
    while game["status"] == "playing":
        response = ask(gus, game, first_legal(game))
        assert response.status_code == 200, response.content
        game = response.json()
        responses.append(game)
        responses.append(gus.get(BASE).json()["current"])
    row = CasualGame.objects.get(pk=game["id"])
    assert row.status == "over" and row.result in {"win", "loss", "draw"}
    state = engine_state(row)
    assert game["outcome"] == ENGINE.outcome(state).as_dict()
    # Every card any other seat ever held privately (dealt or drawn) must stay out of
    # seat 0's responses, except cards made public by a give or a book.
    full = ENGINE.new(seed=row.seed, **row.options)
    private = set()
    for event in full.log + state.log:
        if event.type == "deal" and event.seat != 0:
            private.update(event.cards)
        if event.type == "draw" and event.seat != 0:
            private.add(event.card)
    for response in responses:
        view = seat_view(response)
        assert set(view) >= {"hand", "hand_sizes", "books", "pond_size", "ask_history", "legal_moves"}
        assert not {"hands", "pond", "log", "seed", "deck"} & set(response)
        for event in response.get("events", []):
            if event["type"] == "deal" and event["seat"] != 0:
                assert "cards" not in event
            if event["type"] == "draw" and event["seat"] != 0:
                assert "card" not in event
        text = json.dumps({k: v for k, v in view.items() if k not in ("ask_history", "hand")})
        assert not any(f'"{c}"' in text for c in private)
    assert row.seed not in json.dumps(responses)
