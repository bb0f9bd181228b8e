"""Session (deal + moves -> state), "See result" (session.play_to_end) and the
event/outcome value objects."""

from __future__ import annotations

import dataclasses
import json

import pytest

from games.rules import gofish, kitten, peche
from games.rules.base import DomainError, GameError, ReplayError
from games.rules.events import Ask, Draw, End, Outcome, Pass, event_json, event_view
from games.rules.registry import GAME_NAMES, engine
from games.rules.session import Session, play_to_end

DEALS = {
    "peche": {"seed": "session-0"},
    "kitten": {"seed": "session-0", "first": "opponent"},
    "gofish": {"seed": "session-0", "players": 3},
}


def first_legal(session: Session):
    return session.engine.legal_moves(session.state)[0]


@pytest.mark.parametrize("game", GAME_NAMES)
def test_play_then_replay_gives_the_same_view(game):
    played = Session(engine(game), DEALS[game])
    played.new()
    eng = played.engine
    for _ in range(3):
        move = first_legal(played)
        events = eng.apply(played.state, move)
        played.moves.append(move)
        assert events
        json.dumps([eng.event_view(e, 0) for e in events])
    again = Session(engine(game), DEALS[game], played.moves)
    assert eng.view(again.state, 0) == eng.view(played.state, 0)


def test_see_result_plays_the_only_move_to_the_end_and_refuses_a_game_with_choices():
    """The one "See result": a Kitten game ends as flipping by hand ends it, with the
    moves made and the last move's events; a Pêche game with a choice is refused."""
    flipped = Session(kitten.ENGINE, DEALS["kitten"])
    by_hand, last = [], []
    while not flipped.state.over:
        last = kitten.ENGINE.apply(flipped.state, "flip")
        by_hand.append("flip")
    seen = Session(kitten.ENGINE, DEALS["kitten"])
    made, events = play_to_end(kitten.ENGINE, seen.state)
    assert made == by_hand and events == last and isinstance(events[-1], End)
    assert kitten.ENGINE.outcome(seen.state) == kitten.ENGINE.outcome(flipped.state)
    with pytest.raises(DomainError) as refused:
        play_to_end(peche.ENGINE, Session(peche.ENGINE, DEALS["peche"]).state)
    assert refused.value.code == "has_decisions"


def test_new_returns_what_the_deal_played_before_the_first_decision():
    assert Session(peche.ENGINE, DEALS["peche"]).new() == []
    (flip,) = Session(kitten.ENGINE, DEALS["kitten"]).new()
    assert flip.seat == 1 and flip.move == 1  # Kitten flips first
    opening = Session(gofish.ENGINE, DEALS["gofish"]).new()
    assert [e.type for e in opening[:3]] == ["deal", "deal", "deal"]
    with pytest.raises(ValueError):
        Session(peche.ENGINE, DEALS["peche"], ["A"]).new()


def test_a_refused_move_changes_nothing_and_a_bad_stored_move_names_its_index():
    session = Session(peche.ENGINE, DEALS["peche"])
    missing = next(r for r in peche.RANKS if r not in session.state.hands[0])
    before = peche.ENGINE.view(session.state, 0)
    with pytest.raises(GameError):
        peche.ENGINE.apply(session.state, missing)
    assert peche.ENGINE.view(session.state, 0) == before
    with pytest.raises(ReplayError) as info:
        Session(peche.ENGINE, DEALS["peche"], [missing]).replay()
    assert info.value.index == 0


def test_an_ask_has_one_shape_in_pêche_and_go_fish():
    daily = peche.ENGINE.new(seed="x")
    pêche = peche.ENGINE.apply(daily, peche.ENGINE.legal_moves(daily)[0])[0]
    casual = gofish.ENGINE.new(seed="x", players=2)
    go_fish = gofish.ENGINE.apply(casual, gofish.ENGINE.legal_moves(casual)[0])[0]
    assert type(pêche) is type(go_fish) is Ask
    assert set(event_json(pêche)) == set(event_json(go_fish)) == {"type", "seat", "target", "rank", "given", "cards"}


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_game_ends_with_an_outcome_of_the_same_fields(game):
    eng = engine(game)
    deal = dict(DEALS[game], **({"scripted": frozenset()} if game == "gofish" else {}))
    state = eng.new(**deal)
    last: list = []
    while not eng.is_over(state):
        last = eng.apply(state, eng.legal_moves(state)[0])
    outcome = eng.outcome(state)
    assert [f.name for f in dataclasses.fields(outcome)] == ["winners", "counts", "asks", "moves", "reason", "score"]
    assert max(outcome.counts) == min(outcome.counts[w] for w in outcome.winners)
    assert eng.view(state, 0)["outcome"] == outcome.as_dict()
    if game == "gofish":
        assert isinstance(state.log[-1], End) and state.log[-1].outcome == outcome
    else:
        assert last[-1] == End(outcome)


def test_outcome_side_reads_a_shared_win_as_a_draw():
    outcome = Outcome(winners=(0, 2), counts=(5, 3, 5), asks=(1, 1, 1), moves=3, reason="books")
    assert [outcome.side(s) for s in range(3)] == ["draw", "loss", "draw"]
    alone = dataclasses.replace(outcome, winners=(2,))
    assert [alone.side(s) for s in range(3)] == ["loss", "loss", "win"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.moves = 4  # type: ignore[misc]


def test_event_view_hides_a_drawn_card_from_every_other_seat_only():
    draw = Draw(seat=1, card="QS", reason="empty_hand")
    assert event_view(draw, 1) == {"type": "draw", "seat": 1, "card": "QS", "reason": "empty_hand"}
    assert event_view(draw, 0) == event_view(draw, None) == {"type": "draw", "seat": 1, "reason": "empty_hand"}
    assert event_view(Pass(seat=0), 1) == {"type": "pass", "seat": 0}
    end = End(Outcome(winners=(0,), counts=(14, 12), asks=(9, 8), moves=17, reason="pairs", score=1060))
    assert event_view(end, 1)["outcome"]["score"] == 1060
