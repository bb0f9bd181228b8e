"""Kitten fishing engine (games/rules/kitten.py, docs/rules.md §3). Pure: no Django, no database."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules.base import GameError, ReplayError
from games.rules.cards import UNSHUFFLED, shuffled_deck
from games.rules.events import End, Flip, Outcome, event_json
from games.rules.kitten import ENGINE, KittenState, play_to_end, result_line

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors" / "kitten.jsonl"
FULL_DECK = Counter(UNSHUFFLED)
CARD_NAMES = frozenset(UNSHUFFLED)

seeds = st.text(min_size=1, max_size=12)
firsts = st.sampled_from(["player", "opponent"])
decks = st.permutations(list(UNSHUFFLED))


def _vector_lines() -> list[str]:
    return [line for line in VECTORS.read_text().splitlines() if line.strip()]


def deal(player: list[str], kitten: list[str]) -> list[str]:
    """A deck whose piles start with the given cards (the rest in unshuffled order)."""
    rest = [c for c in UNSHUFFLED if c not in player and c not in kitten]
    need = 26 - len(player)
    player, kitten = player + rest[:need], kitten + rest[need:]
    deck = [card for pair in zip(player, kitten) for card in pair]
    assert sorted(deck) == sorted(UNSHUFFLED)
    return deck


def reference(deck: list[str], first: str, limit: int) -> dict:
    """§3 written the plainest way, as an independent oracle for the engine."""
    piles = [list(deck[0::2]), list(deck[1::2])]
    table: list[str] = []
    turn = 0 if first == "player" else 1
    moves = captures = sweeps = 0
    while True:
        card = piles[turn].pop(0)
        moves += 1
        ranks = [c[:-1] for c in table]
        if card[:-1] == "J" and table:
            piles[turn] += table + [card]
            table = []
            captures += 1
            sweeps += 1
        elif card[:-1] in ranks:
            i = ranks.index(card[:-1])
            piles[turn] += table[i:] + [card]
            del table[i:]
            captures += 1
        else:
            table.append(card)
        if not piles[turn]:
            winner, reason = ("opponent" if turn == 0 else "player"), "empty"
            break
        if moves == limit:
            a, b = len(piles[0]), len(piles[1])
            winner, reason = ("player" if a > b else "opponent" if b > a else "draw"), "limit"
            break
        turn ^= 1
    return {
        "winner": winner,
        "reason": reason,
        "moves": moves,
        "player_cards": len(piles[0]),
        "opponent_cards": len(piles[1]),
        "table_cards": len(table),
        "captures": captures,
        "jack_sweeps": sweeps,
    }


def as_json(events: list) -> list[dict]:
    return [event_json(e) for e in events]


def flip_by_hand(state: KittenState) -> list:
    events = list(state.opening_events)
    while ENGINE.to_move(state) == 0:
        events += ENGINE.apply(state, "flip")
    return events


def all_cards(state: KittenState) -> Counter:
    return Counter(state.piles[0]) + Counter(state.piles[1]) + Counter(state.table)


def strings_in(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in strings_in(k) + strings_in(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in strings_in(v)]
    return []


# --- golden vectors -------------------------------------------------------------------


@pytest.mark.parametrize("line", _vector_lines(), ids=lambda line: str(json.loads(line).get("seed", "deck")))
def test_conformance_vector(line):
    case = json.loads(line)
    expect = case.pop("expect")
    assert ENGINE.conformance(case) == expect


def test_vectors_present():
    assert len(_vector_lines()) == 300


# --- the examples of the player description (shared/seeds/) ----------------------------


def test_fishing_takes_match_and_everything_after():
    # Table 5♠ 9♥ K♦ 3♣, the player flips 9♣: takes 9♥ K♦ 3♣ 9♣, 5♠ stays.
    state = ENGINE.new(deck=deal(["5S", "KD", "9C"], ["9H", "3C"]))
    events = as_json(ENGINE.apply(state, "flip")) + as_json(ENGINE.apply(state, "flip"))
    assert state.table == ["5S", "9H", "KD", "3C"]
    event = as_json(ENGINE.apply(state, "flip"))[0]
    assert event["seat"] == 0 and event["card"] == "9C"
    assert event["capture"] == {"kind": "fish", "match_index": 1, "taken": ["9H", "KD", "3C", "9C"]}
    assert event["table"] == ["5S"]
    assert event["piles"][0] == 26 - 3 + 4
    assert list(state.player_pile)[-4:] == ["9H", "KD", "3C", "9C"]  # under the pile, row order
    assert all(e["capture"] is None for e in events)


def test_jack_sweeps_the_row():
    state = ENGINE.new(deck=deal(["5S", "JD"], ["9H"]))
    as_json(ENGINE.apply(state, "flip"))
    event = as_json(ENGINE.apply(state, "flip"))[0]
    assert event["capture"] == {"kind": "jack", "match_index": None, "taken": ["5S", "9H", "JD"]}
    assert event["table"] == [] and state.jack_sweeps == 1 and state.captures == 1


def test_jack_on_empty_table_stays_and_next_jack_sweeps_it():
    state = ENGINE.new(deck=deal(["JD", "JC"], ["5S"]))
    first, second = as_json(ENGINE.apply(state, "flip"))
    assert first["capture"] is None and first["table"] == ["JD"]
    assert second["capture"] is None
    sweep = as_json(ENGINE.apply(state, "flip"))[0]
    # A jack on a row holding a jack is a sweep (rule 1), not a fish from that jack.
    assert sweep["capture"]["kind"] == "jack"
    assert sweep["capture"]["taken"] == ["JD", "5S", "JC"]
    assert state.jack_sweeps == 1


def test_jack_after_a_sweep_lands_on_empty_table():
    state = ENGINE.new(deck=deal(["5S", "JD"], ["JH"]))
    as_json(ENGINE.apply(state, "flip"))  # 5S stays, JH sweeps
    event = as_json(ENGINE.apply(state, "flip"))[0]
    assert event["capture"] is None and event["table"] == ["JD"]
    assert state.jack_sweeps == 1


def test_capture_gives_no_extra_move():
    state = ENGINE.new(deck=deal(["5S", "5H"], ["9H", "2C"]))
    as_json(ENGINE.apply(state, "flip"))
    events = as_json(ENGINE.apply(state, "flip"))
    assert [e["seat"] for e in events] == [0, 1]
    assert events[0]["capture"]["kind"] == "fish"


# --- end of game --------------------------------------------------------------------


def test_last_card_without_capture_loses_at_once():
    state = KittenState(["2C"], ["3D", "4D"], table=["5S"])
    events = ENGINE.apply(state, "flip")
    assert [e.type for e in events] == ["flip", "end"]  # Kitten does not flip after
    assert ENGINE.outcome(state) == Outcome(winners=(1,), counts=(0, 2), asks=(0, 0), moves=1, reason="empty")
    assert result_line(state) == {
        "winner": "opponent",
        "reason": "empty",
        "moves": 1,
        "player_cards": 0,
        "opponent_cards": 2,
        "table_cards": 2,
        "captures": 0,
        "jack_sweeps": 0,
    }
    assert events[-1] == End(ENGINE.outcome(state))
    assert ENGINE.to_move(state) is None and ENGINE.legal_moves(state) == []


def test_last_card_that_fishes_keeps_playing():
    state = KittenState(["9C"], ["2D", "4D"], table=["5S", "9H"])
    ENGINE.apply(state, "flip")
    assert not state.over
    assert list(state.player_pile) == ["9H", "9C"]
    assert state.table == ["5S", "2D"]


def test_kitten_emptying_its_pile_loses():
    state = KittenState(["2C", "3C"], ["4D"], table=["5S"])
    ENGINE.apply(state, "flip")
    assert state.over and state.winner == "player" and state.reason == "empty"


def test_empty_is_checked_before_the_limit():
    state = KittenState(["2C"], ["3D", "4D"], limit=10, moves=9, turn=0)
    ENGINE.apply(state, "flip")
    assert (state.reason, state.winner, state.moves) == ("empty", "opponent", 10)


def test_limit_counts_piles_not_table():
    state = KittenState(["2C", "3C"], ["4D"], table=["5S", "6S", "7S"], limit=1)
    ENGINE.apply(state, "flip")
    # Player 1 card, Kitten 1 card, 4 on the table: a draw.
    assert ENGINE.outcome(state).winners == (0, 1) and ENGINE.outcome(state).side(0) == "draw"
    assert state.reason == "limit" and state.moves == 1


@settings(max_examples=60, deadline=None)
@given(seed=seeds, first=firsts, limit=st.integers(1, 50))
def test_small_limit_larger_pile_wins(seed, first, limit):
    # No pile can run out within 50 moves (26 cards each), so the limit decides.
    result = ENGINE.conformance({"seed": seed, "first": first, "limit": limit})
    assert result["reason"] == "limit" and result["moves"] == limit
    a, b = result["player_cards"], result["opponent_cards"]
    assert result["winner"] == ("player" if a > b else "opponent" if b > a else "draw")


@settings(max_examples=40, deadline=None)
@given(seed=seeds, first=firsts, data=st.data())
def test_limit_only_cuts_the_game(seed, first, data):
    natural = ENGINE.conformance({"seed": seed, "first": first})
    limit = data.draw(st.integers(1, natural["moves"] + 5))
    capped = ENGINE.conformance({"seed": seed, "first": first, "limit": limit})
    if limit >= natural["moves"]:
        assert capped == natural
    else:
        assert capped["reason"] == "limit" and capped["moves"] == limit


# --- properties over random deals --------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(deck=decks, first=firsts, limit=st.sampled_from([5000, 300, 77]))
def test_engine_matches_plain_reference(deck, first, limit):
    assert ENGINE.conformance({"deck": deck, "first": first, "limit": limit}) == reference(deck, first, limit)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, first=firsts)
def test_cards_conserved_and_row_well_formed_at_every_step(seed, first):
    state = ENGINE.new(seed=seed, first=first)
    events = list(state.opening_events)
    table: list[str] = []
    piles = [26, 26]
    assert all_cards(state) == FULL_DECK
    while not state.over:
        events += ENGINE.apply(state, "flip")
        assert all_cards(state) == FULL_DECK
    for event in as_json(events):
        if event["type"] == "end":
            break
        # Each flip, rebuilt from the previous row alone, must be what the event says.
        row = table + [event["card"]]
        capture = event["capture"]
        piles[event["seat"]] -= 1
        if capture is not None:
            start = 0 if capture["kind"] == "jack" else capture["match_index"]
            assert capture["taken"] == row[start:]
            row = row[:start]
            piles[event["seat"]] += len(capture["taken"])
        assert event["table"] == row
        assert event["piles"] == piles
        assert sum(piles) + len(row) == 52
        assert len(row) <= 13
        assert len({c[:-1] for c in row}) == len(row)
        table = row
    assert [e.type for e in events].count("end") == 1 and events[-1] == End(ENGINE.outcome(state))


@settings(max_examples=30, deadline=None)
@given(seed=seeds, first=firsts, by_hand=st.integers(0, 400))
def test_see_result_equals_flipping_by_hand(seed, first, by_hand):
    hand = ENGINE.new(seed=seed, first=first)
    hand_events = flip_by_hand(hand)

    mixed = ENGINE.new(seed=seed, first=first)
    mixed_events = list(mixed.opening_events)
    for _ in range(by_hand):
        if mixed.over:
            break
        mixed_events += ENGINE.apply(mixed, "flip")
    mixed_events += play_to_end(mixed)

    fast = ENGINE.new(seed=seed, first=first)
    assert play_to_end(fast, record=False) is None

    assert mixed_events == hand_events
    assert ENGINE.outcome(mixed) == ENGINE.outcome(hand) == ENGINE.outcome(fast)
    assert ENGINE.conformance({"seed": seed, "first": first}) == result_line(hand)
    assert mixed.player_flips == hand.player_flips == fast.player_flips


@settings(max_examples=40, deadline=None)
@given(seed=seeds, first=firsts, flips=st.integers(0, 200), seat=st.sampled_from([0, 1]))
def test_view_never_shows_a_pile_card(seed, first, flips, seat):
    state = ENGINE.new(seed=seed, first=first)
    events = list(state.opening_events)
    for _ in range(flips):
        if state.over:
            break
        events += ENGINE.apply(state, "flip")
    view = ENGINE.view(state, seat)
    json.dumps(view)  # JSON-ready
    shown = {s for s in strings_in(view) if s in CARD_NAMES}
    assert shown <= set(state.table)
    assert view["table"] == state.table
    assert view["piles"] == [len(state.player_pile), len(state.opponent_pile)]
    assert view["moves"] == state.moves and view["first"] == first
    assert view["over"] == state.over
    assert view["turn"] == (None if state.over else "player")
    for event in events:
        seen = ENGINE.event_view(event, seat)
        json.dumps(seen)
        assert seen == event_json(event)


# --- protocol --------------------------------------------------------------------------


def test_deal_alternates_cards():
    deck = shuffled_deck("2026-11-29")
    state = ENGINE.new(seed="2026-11-29")
    assert list(state.player_pile) == deck[0::2]
    assert list(state.opponent_pile) == deck[1::2]
    assert state.table == [] and state.opening_events == [] and state.moves == 0
    assert ENGINE.to_move(state) == 0 and ENGINE.legal_moves(state) == ["flip"]


def test_kitten_first_plays_its_opening_flip():
    deck = shuffled_deck("2026-11-29")  # 5H 3H ...
    state = ENGINE.new(seed="2026-11-29", first="opponent")
    assert state.moves == 1 and state.table == [deck[1]]
    (event,) = as_json(state.opening_events)
    assert event == {
        "type": "flip",
        "move": 1,
        "seat": 1,
        "card": "3H",
        "capture": None,
        "piles": [26, 25],
        "table": ["3H"],
    }
    assert ENGINE.to_move(state) == 0
    events = ENGINE.apply(state, "flip")
    assert [(e.seat, e.card) for e in events if isinstance(e, Flip)] == [(0, "5H"), (1, "AS")]


@pytest.mark.parametrize("move", ["Flip", "", None, 0, ["flip"], "flip "])
def test_bad_move_leaves_state_unchanged(move):
    state = ENGINE.new(seed="x")
    before = ENGINE.view(state, 0)
    with pytest.raises(GameError) as exc:
        ENGINE.apply(state, move)
    assert exc.value.code == "bad_move"
    assert ENGINE.view(state, 0) == before


def test_unknown_new_option_is_refused():
    with pytest.raises(GameError) as exc:
        ENGINE.new(seed="x", jacks=False)
    assert exc.value.code == "bad_input"


def test_apply_after_the_end_is_refused():
    state = ENGINE.new(seed="x")
    play_to_end(state, record=False)
    with pytest.raises(GameError) as exc:
        ENGINE.apply(state, "flip")
    assert exc.value.code == "game_over"
    assert play_to_end(state) == []


def test_outcome_before_the_end_is_refused():
    with pytest.raises(GameError) as exc:
        ENGINE.outcome(ENGINE.new(seed="x"))
    assert exc.value.code == "not_over"


@pytest.mark.parametrize("seat", [2, -1, "0", None, True, 1.0])
def test_view_rejects_unknown_seats(seat):
    with pytest.raises(GameError):
        ENGINE.view(ENGINE.new(seed="x"), seat)


# --- replay --------------------------------------------------------------------------


@pytest.mark.parametrize("first", ["player", "opponent"])
def test_replay_count_and_list_agree_with_play(first):
    played = ENGINE.new(seed="pub-kitten-3", first=first)
    flip_by_hand(played)
    n = played.player_flips
    config = {"seed": "pub-kitten-3", "first": first}
    for moves in (n, ["flip"] * n):
        state = ENGINE.replay(config, moves)
        assert ENGINE.outcome(state) == ENGINE.outcome(played)
    with pytest.raises(ReplayError) as exc:
        ENGINE.replay(config, n - 1)
    assert exc.value.as_dict() == {"error": "incomplete", "index": n - 1}
    with pytest.raises(ReplayError) as exc:
        ENGINE.replay(config, ["flip"] * (n + 2))
    assert exc.value.as_dict() == {"error": "extra_moves", "index": n}
    with pytest.raises(ReplayError) as exc:
        ENGINE.replay(config, ["flip"] * n + ["bogus"])
    assert exc.value.as_dict() == {"error": "extra_moves", "index": n}
    partial = ENGINE.replay(config, 5, partial=True)
    assert not partial.over and partial.player_flips == 5


def test_replay_bad_entries():
    config = {"seed": "x"}
    with pytest.raises(ReplayError) as exc:
        ENGINE.replay(config, ["flip", "flip", "take"])
    assert exc.value.as_dict() == {"error": "bad_move", "index": 2}
    with pytest.raises(ReplayError) as exc:
        ENGINE.replay(config, -1)
    assert exc.value.code == "bad_move"
    with pytest.raises(GameError) as exc:
        ENGINE.replay(config, "flip")
    assert exc.value.code == "bad_input"


def test_partial_replay_resumes_the_same_game():
    played = ENGINE.new(seed="resume", first="opponent")
    for _ in range(7):
        ENGINE.apply(played, "flip")
    resumed = ENGINE.replay({"seed": "resume", "first": "opponent"}, 7, partial=True)
    assert ENGINE.view(resumed, 0) == ENGINE.view(played, 0)
    assert list(resumed.player_pile) == list(played.player_pile)


# --- conformance input errors ---------------------------------------------------------


@pytest.mark.parametrize(
    "case",
    [
        {"game": "kitten", "first": "player"},
        {"game": "kitten", "seed": "s", "deck": list(UNSHUFFLED)},
        {"game": "kitten", "seed": ""},
        {"game": "kitten", "seed": 7},
        {"game": "kitten", "deck": list(UNSHUFFLED[:51]) + ["AS"]},
        {"game": "kitten", "deck": "AS AH"},
        {"game": "kitten", "seed": "s", "first": "kitten"},
        {"game": "kitten", "seed": "s", "first": None},
        {"game": "kitten", "seed": "s", "limit": 0},
        {"game": "kitten", "seed": "s", "limit": -5},
        {"game": "kitten", "seed": "s", "limit": "100"},
        {"game": "kitten", "seed": "s", "limit": True},
        {"game": "kitten", "seed": "s", "limit": 10.0},
        {"game": "peche", "seed": "s"},
        ["not", "a", "case"],
    ],
)
def test_bad_conformance_case(case):
    with pytest.raises(GameError) as exc:
        ENGINE.conformance(case)
    assert exc.value.code == "bad_input"


def test_conformance_with_a_chosen_deck_matches_the_seed():
    deck = shuffled_deck("pub-kitten-0")
    assert ENGINE.conformance({"game": "kitten", "deck": deck, "first": "player"}) == ENGINE.conformance(
        {"game": "kitten", "seed": "pub-kitten-0", "first": "player"}
    )
