"""Go Fish with books: golden vectors, the commented game, properties. Pure, no db."""

from __future__ import annotations

import copy
import inspect
import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules.base import GameError, ReplayError
from games.rules.cards import CARD_SET, RANKS, UNSHUFFLED, rank_of
from games.rules.events import Ask, Book, Deal, Draw, End, event_json
from games.rules.gofish import ENGINE, GoFishEngine, Knowledge, choose_ask

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "gofish.jsonl"


def _vector_lines() -> list[str]:
    return VECTORS.read_text(encoding="utf-8").splitlines()


def _config(players: int, hand_size: int | None = None, *, seed: str | None = None, deck=None, scripted=None) -> dict:
    cfg = {
        "players": players,
        "hand_size": hand_size,
        "scripted": frozenset(range(players)) if scripted is None else scripted,
    }
    cfg["seed" if seed is not None else "deck"] = seed if seed is not None else deck
    return cfg


# --------------------------------------------------------------------------- protocol


def test_engine_identity():
    assert isinstance(ENGINE, GoFishEngine)
    assert ENGINE.name == "gofish" and ENGINE.rules_version == 1


# --------------------------------------------------------------------------- vectors


def test_vector_file_is_complete():
    lines = _vector_lines()
    assert len(lines) == 301
    kinds = Counter(json.loads(line)["expect"].get("error", "ok") for line in lines)
    # Every replay error code is exercised by the golden file.
    assert set(kinds) == {"ok", "incomplete", "wrong_seat", "bad_target", "illegal_ask", "bad_move"}


@pytest.mark.parametrize("line_no", range(301))
def test_vector(line_no):
    case = json.loads(_vector_lines()[line_no])
    expect = case.pop("expect")
    try:
        got = ENGINE.conformance(case)
    except ReplayError as exc:
        got = exc.as_dict()
    assert got == expect


# --------------------------------------------------------------------------- replay errors


def _first_moves(seed="err", players=3):
    state = ENGINE.new(seed=seed, players=players, scripted=frozenset(range(players)))
    return state, ENGINE.legal_moves(state)[0]


@pytest.mark.parametrize(
    "patch, code",
    [
        ({"seat": 1}, "wrong_seat"),
        ({"seat": "0"}, "wrong_seat"),
        ({"seat": True}, "wrong_seat"),
        ({"seat": 1, "target": 1}, "wrong_seat"),  # pinned by vector 149: seat before target
        ({"target": 0}, "bad_target"),
        ({"target": 3}, "bad_target"),
        ({"target": -1}, "bad_target"),
        ({"target": "X"}, "bad_target"),
        ({"rank": 5}, "bad_move"),
        ({"rank": "1"}, "bad_move"),
        ({"rank": "k"}, "bad_move"),
    ],
)
def test_refused_move_codes_and_state_unchanged(patch, code):
    state, move = _first_moves()
    before = copy.deepcopy(state)
    with pytest.raises(GameError) as info:
        ENGINE.apply(state, {**move, **patch})
    assert info.value.code == code
    assert state == before


def test_malformed_moves_are_bad_move():
    state, move = _first_moves()
    for bad in (None, [0, 1, "A"], {"seat": 0, "target": 1}, {**move, "extra": 1}):
        with pytest.raises(GameError) as info:
            ENGINE.apply(state, bad)
        assert info.value.code == "bad_move"


def test_illegal_ask_and_target_with_empty_hand():
    state, move = _first_moves()
    seat = move["seat"]
    missing = next(r for r in RANKS if all(rank_of(c) != r for c in state.hands[seat]))
    with pytest.raises(GameError) as info:
        ENGINE.apply(state, {**move, "rank": missing})
    assert info.value.code == "illegal_ask"
    state.hands[1] = []  # a seat without cards cannot be asked
    with pytest.raises(GameError) as info:
        ENGINE.apply(state, {"seat": seat, "target": 1, "rank": rank_of(state.hands[seat][0])})
    assert info.value.code == "bad_target"


def _full_game(seed="full", players=2):
    state = ENGINE.new(seed=seed, players=players, scripted=frozenset(range(players)))
    while not ENGINE.is_over(state):
        ENGINE.apply(state, ENGINE.legal_moves(state)[0])
    return state


def test_replay_incomplete_and_extra_moves():
    state = _full_game()
    cfg = state.config
    moves = state.moves
    assert ENGINE.outcome(ENGINE.replay(cfg, moves)) == ENGINE.outcome(state)
    with pytest.raises(ReplayError) as info:
        ENGINE.replay(cfg, moves[:-1])
    assert info.value.as_dict() == {"error": "incomplete", "index": len(moves) - 1}
    with pytest.raises(ReplayError) as info:
        ENGINE.replay(cfg, moves + [moves[-1], moves[-1]])
    assert info.value.as_dict() == {"error": "extra_moves", "index": len(moves)}
    with pytest.raises(GameError) as info:
        ENGINE.apply(state, moves[-1])
    assert info.value.code == "game_over"


@pytest.mark.parametrize(
    "case",
    [
        {"players": 1, "hand_size": None, "seed": "s", "moves": []},
        {"players": 7, "hand_size": None, "seed": "s", "moves": []},
        {"players": "3", "hand_size": None, "seed": "s", "moves": []},
        {"players": True, "hand_size": None, "seed": "s", "moves": []},
        {"players": 2, "hand_size": 0, "seed": "s", "moves": []},
        {"players": 2, "hand_size": 27, "seed": "s", "moves": []},
        {"players": 2, "hand_size": "7", "seed": "s", "moves": []},
        {"players": 2, "hand_size": None, "seed": "", "moves": []},
        {"players": 2, "hand_size": None, "seed": 5, "moves": []},
        {"players": 2, "hand_size": None, "moves": []},
        {"players": 2, "hand_size": None, "seed": "s", "deck": list(UNSHUFFLED), "moves": []},
        {"players": 2, "hand_size": None, "deck": list(UNSHUFFLED[:51]) + ["AS"], "moves": []},
        {"players": 2, "hand_size": None, "seed": "s", "moves": "AS"},
        {"game": "peche", "players": 2, "hand_size": None, "seed": "s", "moves": []},
    ],
)
def test_malformed_case_is_bad_input(case):
    with pytest.raises(GameError) as info:
        ENGINE.conformance({"game": "gofish", **case} if "game" not in case else case)
    assert info.value.code == "bad_input"
    assert not isinstance(info.value, ReplayError)


def test_default_hand_sizes():
    for players, size in [(2, 7), (3, 7), (4, 5), (6, 5)]:
        state = ENGINE.new(seed="h", players=players, scripted=frozenset(range(players)))
        assert state.hand_size == size
        assert sum(1 for e in state.log if isinstance(e, Deal)) == players


# --------------------------------------------------------------------------- deal and steps


def test_deal_round_robin_and_books_laid_after_deal():
    # Seat 1 is dealt all four aces; seat 0 all four kings; the rest in order.
    special = ["KS", "AS", "KH", "AH", "KD", "AD", "KC", "AC"]
    deck = special + [c for c in UNSHUFFLED if c not in special]
    state = ENGINE.new(deck=deck, players=2, hand_size=5, scripted=frozenset({0, 1}))
    assert state.books == [["K"], ["A"]]
    assert [e.seat for e in state.log if isinstance(e, Book)] == [0, 1]  # seat by seat
    assert state.hands[0] == ["2S"] and state.hands[1] == ["2H"]
    assert state.pond[0] == "2D" and len(state.pond) == 42
    assert ENGINE.to_move(state) == 0


def test_go_fish_draws_and_passes_turn_even_when_lucky():
    front = ["2S", "3S", "2H", "4S", "2D"]
    deck = front + [c for c in UNSHUFFLED if c not in front]
    # seat 0: 2S 2H; seat 1: 3S 4S; the pond starts 2D, AS, AH.
    state = ENGINE.new(deck=deck, players=2, hand_size=2, scripted=frozenset({0, 1}))
    events = ENGINE.apply(state, {"seat": 0, "target": 1, "rank": "2"})
    assert events == [
        Ask(seat=0, target=1, rank="2", given=0, cards=()),
        Draw(seat=0, card="2D", reason="fish"),  # the rank asked for...
    ]
    assert ENGINE.to_move(state) == 1  # ...and still the turn passes
    ENGINE.apply(state, {"seat": 1, "target": 0, "rank": "3"})  # go fish: AS
    ENGINE.apply(state, {"seat": 0, "target": 1, "rank": "2"})  # go fish: AH
    events = ENGINE.apply(state, {"seat": 1, "target": 0, "rank": "A"})
    assert events == [Ask(seat=1, target=0, rank="A", given=1, cards=("AH",))]
    assert ENGINE.to_move(state) == 1  # given: ask again
    assert state.asks == [2, 2] and state.hands == [["2S", "2H", "2D"], ["3S", "4S", "AS", "AH"]]


def test_simulated_seats_play_automatically():
    state = ENGINE.new(seed="auto", players=4)  # only seat 0 is scripted
    assert ENGINE.to_move(state) == 0 and isinstance(state.log[-1], Deal)
    while True:
        events = ENGINE.apply(state, ENGINE.legal_moves(state)[0])
        if any(isinstance(e, Ask) and e.seat != 0 for e in events):
            break
    askers = [e.seat for e in events if isinstance(e, Ask)]
    # Seat 0 fished, then seats 1, 2, 3 played their turns inside apply, in order.
    assert askers[0] == 0 and sorted(set(askers[1:])) == [1, 2, 3]
    assert askers[1:] == sorted(askers[1:])
    assert ENGINE.to_move(state) in (0, None)
    assert all(m["seat"] == 0 for m in state.moves)
    assert sum(state.asks) == sum(isinstance(e, Ask) for e in state.log)


def test_all_simulated_game_is_over_at_once_and_deterministic():
    a = ENGINE.new(seed="robots", players=5, scripted=frozenset())
    b = ENGINE.new(seed="robots", players=5, scripted=frozenset())
    assert ENGINE.is_over(a) and a.log == b.log
    assert isinstance(a.log[-1], End)
    assert ENGINE.legal_moves(a) == [] and ENGINE.to_move(a) is None


# --------------------------------------------------------------------------- the commented game

FRENCH = {"R": "K", "D": "Q", "V": "J"}
SUIT = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def fr(card: str) -> str:
    """'R♦' -> 'KD', '10♠' -> '10S' (the seed's French notation)."""
    rank, suit = card[:-1], card[-1]
    return FRENCH.get(rank, rank) + SUIT[suit]


def commented_deck() -> list[str]:
    you = [fr(c) for c in "7♠ 7♥ R♦ 3♣ 9♠".split()]
    ada = [fr(c) for c in "7♦ D♣ D♥ 2♠ 5♦".split()]
    bo = [fr(c) for c in "R♣ R♥ 9♦ 4♠ V♣".split()]
    drawn = [fr(c) for c in "2♥ D♠ 7♣ V♦".split()]  # in the order the text draws them
    dealt = [card for trio in zip(you, ada, bo) for card in trio]
    used = set(dealt) | set(drawn)
    return dealt + drawn + [c for c in UNSHUFFLED if c not in used]


# (asker, target, rank) for the nine narrated asks; 0 = you, 1 = Ada, 2 = Bo.
NARRATED = [
    (0, 1, "7"),  # Ada gives 7♦
    (0, 2, "7"),  # go fish: 2♥
    (1, 0, "Q"),  # go fish: D♠
    (2, 0, "K"),  # you give R♦
    (2, 1, "9"),  # go fish: 7♣
    (0, 1, "2"),  # Ada gives 2♠
    (0, 2, "7"),  # Bo gives 7♣: book of sevens
    (0, 2, "9"),  # Bo gives 9♦
    (0, 1, "3"),  # go fish: V♦
]


def test_commented_deck_is_the_vector_deck():
    vector = json.loads(_vector_lines()[300])
    assert vector["players"] == 3 and vector["hand_size"] == 5
    assert commented_deck() == vector["deck"]
    assert [(m["seat"], m["target"], m["rank"]) for m in vector["moves"][:9]] == NARRATED


def test_commented_game_first_nine_asks():
    state = ENGINE.new(deck=commented_deck(), players=3, hand_size=5, scripted=frozenset({0, 1, 2}))
    assert state.hands == [
        ["7S", "7H", "KD", "3C", "9S"],
        ["7D", "QC", "QH", "2S", "5D"],
        ["KC", "KH", "9D", "4S", "JC"],
    ]
    asks = []
    for i, (asker, target, rank) in enumerate(NARRATED):
        assert ENGINE.to_move(state) == asker
        asks += [
            e
            for e in ENGINE.apply(state, {"seat": asker, "target": target, "rank": rank})
            if isinstance(e, (Ask, Draw, Book))
        ]
        if i == 4:
            # "Bo vient d'aller à la pêche et a pu tirer n'importe quoi": Bo had no seven
            # when you asked, but has drawn one unseen card since.
            assert state.knowledge.void[2]["7"] == 1
    shown = {"ask": "cards", "draw": "card", "book": "rank"}
    assert [(e.type, event_json(e)[shown[e.type]]) for e in asks] == [
        ("ask", ["7D"]),
        ("ask", []),
        ("draw", "2H"),
        ("ask", []),
        ("draw", "QS"),
        ("ask", ["KD"]),
        ("ask", []),
        ("draw", "7C"),
        ("ask", ["2S"]),
        ("ask", ["7C"]),
        ("book", "7"),
        ("ask", ["9D"]),
        ("ask", []),
        ("draw", "JD"),
    ]
    # "votre tour se termine avec un carré posé et des paires de deux et de neuf en main"
    assert state.books == [["7"], [], []]
    assert state.hands[0] == ["3C", "9S", "2H", "2S", "9D", "JD"]
    assert Counter(rank_of(c) for c in state.hands[0]) == {"2": 2, "9": 2, "3": 1, "J": 1}
    assert state.hands[1] == ["QC", "QH", "5D", "QS"]  # Ada: her dames, and 5♦
    assert state.hands[2] == ["KC", "KH", "4S", "JC", "KD"]  # Bo: three kings
    assert len(state.pond) == 52 - 15 - 4 == 33
    assert state.pond[:3] == ["AS", "AH", "AD"]
    assert ENGINE.to_move(state) == 1 and state.asks == [6, 1, 2]
    # What the table learnt ("la question d'Ada a révélé ses dames, celle de Bo ses rois...")
    k = state.knowledge
    assert k.known == [{"2": 2, "9": 2, "3": 1}, {"Q": 1}, {"K": 2}]
    assert k.void[1] == {"9": 0, "2": 0, "3": 0}  # sevens are booked: no longer tracked
    assert k.void[2] == {"9": 0}
    assert k.hand_sizes == [6, 4, 5] and k.pond_size == 33


def test_commented_game_vector_finishes():
    case = json.loads(_vector_lines()[300])
    expect = case.pop("expect")
    assert ENGINE.conformance(case) == expect


# --------------------------------------------------------------------------- views


def _cards_in(obj) -> set[str]:
    if isinstance(obj, str):
        return {obj} if obj in CARD_SET else set()
    if isinstance(obj, dict):
        return set().union(*(_cards_in(v) for v in obj.values())) if obj else set()
    if isinstance(obj, (list, tuple)):
        return set().union(*(_cards_in(v) for v in obj)) if obj else set()
    return set()


def test_event_view_hides_drawn_and_dealt_cards():
    draw = Draw(seat=2, card="QS", reason="fish")
    assert ENGINE.event_view(draw, 2) == {"type": "draw", "seat": 2, "card": "QS", "reason": "fish"}
    assert ENGINE.event_view(draw, 1) == {"type": "draw", "seat": 2, "reason": "fish"}
    assert ENGINE.event_view(draw, None) == {"type": "draw", "seat": 2, "reason": "fish"}
    deal = Deal(seat=0, count=2, cards=("AS", "KD"))
    assert ENGINE.event_view(deal, 0) == {"type": "deal", "seat": 0, "count": 2, "cards": ["AS", "KD"]}
    assert ENGINE.event_view(deal, 1) == {"type": "deal", "seat": 0, "count": 2}
    ask = Ask(seat=0, target=1, rank="7", given=1, cards=("7D",))
    assert ENGINE.event_view(ask, 2) == {
        "type": "ask",
        "seat": 0,
        "target": 1,
        "rank": "7",
        "given": 1,
        "cards": ["7D"],
    }


def test_view_shape():
    state = ENGINE.new(deck=commented_deck(), players=3, hand_size=5, scripted=frozenset({0, 1, 2}))
    ENGINE.apply(state, {"seat": 0, "target": 1, "rank": "7"})
    view = ENGINE.view(state, 2)
    json.dumps(view)
    assert view["hand"] == ["KC", "KH", "9D", "4S", "JC"]
    assert view["hand_sizes"] == [6, 4, 5] and view["pond_size"] == 37
    assert view["ask_history"] == [{"seat": 0, "target": 1, "rank": "7", "given": 1, "cards": ["7D"]}]
    assert view["to_move"] == 0 and view["legal_moves"] == [] and view["over"] is False
    assert _cards_in(view) == set(state.hands[2]) | {"7D"}
    assert ENGINE.view(state, 0)["legal_moves"] == ENGINE.legal_moves(state)


# --------------------------------------------------------------------------- the simulated opponent


def test_choose_ask_takes_only_public_knowledge_and_own_hand():
    params = list(inspect.signature(choose_ask).parameters)
    assert params == ["knowledge", "seat", "hand"]


def test_choose_ask_prefers_a_known_holder():
    k = Knowledge(3)
    for seat, n in [(0, 5), (1, 5), (2, 5)]:
        k.observe({"type": "deal", "seat": seat, "count": n})
    k.observe({"type": "ask", "seat": 2, "target": 1, "rank": "9", "given": 0, "cards": []})
    k.observe({"type": "draw", "seat": 2, "reason": "fish"})
    move = choose_ask(k, 0, ("KS", "KH", "9S"))
    assert move == {"seat": 0, "target": 2, "rank": "9"}  # Bo asked for nines: not a gamble
    # Without that ask it plays the rank it holds most of.
    k2 = Knowledge(3)
    for seat in range(3):
        k2.observe({"type": "deal", "seat": seat, "count": 5})
    assert choose_ask(k2, 0, ("9S", "KS", "KH"))["rank"] == "K"


def test_choose_ask_avoids_a_seat_known_void():
    k = Knowledge(3)
    for seat in range(3):
        k.observe({"type": "deal", "seat": seat, "count": 5})
    k.observe({"type": "ask", "seat": 2, "target": 1, "rank": "K", "given": 0, "cards": []})
    k.observe({"type": "draw", "seat": 2, "reason": "fish"})
    # Seat 1 has no king (and drew nothing since); seat 2 certainly has one.
    assert choose_ask(k, 0, ("KS",)) == {"seat": 0, "target": 2, "rank": "K"}


def test_choose_ask_never_makes_a_hopeless_ask():
    k = Knowledge(2)
    for seat in range(2):
        k.observe({"type": "deal", "seat": seat, "count": 5})
    hand = ("KS", "KH", "5S")
    assert choose_ask(k, 0, hand)["rank"] == "K"  # the rank held most
    k.observe({"type": "ask", "seat": 0, "target": 1, "rank": "K", "given": 0, "cards": []})
    k.observe({"type": "draw", "seat": 0, "reason": "fish"})
    # Seat 1 said "go fish" for kings and has drawn nothing since: a king ask cannot work.
    assert choose_ask(k, 0, hand + ("9S",))["rank"] != "K"
    k.observe({"type": "draw", "seat": 1, "reason": "empty_hand"})
    assert choose_ask(k, 0, hand)["rank"] == "K"  # that fresh card may be a king


def _knowledge_from_public_log(state) -> Knowledge:
    k = Knowledge(state.players)
    for event in state.log:
        k.observe(ENGINE.event_view(event, None))
    return k


def _check_knowledge_truthful(state) -> None:
    k = state.knowledge
    assert k.pond_size == len(state.pond)
    for s in range(state.players):
        counts = Counter(rank_of(c) for c in state.hands[s])
        assert k.hand_sizes[s] == len(state.hands[s])
        assert k.books[s] == state.books[s]
        for r, n in k.known[s].items():
            assert 0 < n <= counts[r], (s, r, n, counts)
        for r, since in k.void[s].items():
            assert counts[r] <= since, (s, r, since, counts)


# --------------------------------------------------------------------------- properties

game_setups = st.integers(min_value=2, max_value=6).flatmap(
    lambda players: st.tuples(
        st.just(players),
        st.one_of(st.none(), st.integers(min_value=1, max_value=min(10, 52 // players))),
        st.text(min_size=1, max_size=12),
        st.sets(st.integers(min_value=0, max_value=players - 1)),
    )
)


def _play_randomly(setup, rng, cap=20_000):
    players, hand_size, seed, scripted = setup
    state = ENGINE.new(seed=seed, players=players, hand_size=hand_size, scripted=frozenset(scripted))
    _check_invariants(state)
    for _ in range(cap):
        if ENGINE.is_over(state):
            return state
        legal = ENGINE.legal_moves(state)
        assert legal and all(m["seat"] == ENGINE.to_move(state) for m in legal)
        events = ENGINE.apply(state, rng.choice(legal))
        assert events and events == state.log[len(state.log) - len(events) :]
        _check_invariants(state)
    raise AssertionError("random legal play did not end")


def _check_invariants(state) -> None:
    booked = [rank + suit for books in state.books for rank in books for suit in "SHDC"]
    cards = [c for hand in state.hands for c in hand] + list(state.pond) + booked
    assert len(cards) == 52 and set(cards) == CARD_SET
    assert sum(len(b) for b in state.books) <= 13
    assert ENGINE.is_over(state) == (sum(len(b) for b in state.books) == 13)
    if not ENGINE.is_over(state):
        assert ENGINE.to_move(state) in state.scripted
    _check_knowledge_truthful(state)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=game_setups, rng=st.randoms(use_true_random=False))
def test_random_play_conserves_cards_and_replays(setup, rng):
    state = _play_randomly(setup, rng)
    outcome = ENGINE.outcome(state)
    assert sum(outcome.counts) == 13 and sum(outcome.asks) == sum(isinstance(e, Ask) for e in state.log)
    assert max(outcome.counts) == min(outcome.counts[w] for w in outcome.winners)
    again = ENGINE.replay(state.config, copy.deepcopy(state.moves))
    assert ENGINE.outcome(again) == outcome and again.log == state.log
    if len(state.config["scripted"]) == state.players:
        case = {k: v for k, v in state.config.items() if k != "scripted"}
        assert ENGINE.conformance({"game": "gofish", **case, "moves": state.moves}) == ENGINE.result_line(state)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=game_setups, rng=st.randoms(use_true_random=False), data=st.data())
def test_views_never_show_hidden_cards(setup, rng, data):
    state = _play_randomly(setup, rng)
    cut = data.draw(st.integers(min_value=0, max_value=len(state.moves)))
    partial = ENGINE.new(**state.config)
    for move in state.moves[:cut]:
        ENGINE.apply(partial, move)
    publicly_given = {c for e in partial.log if isinstance(e, Ask) for c in e.cards}
    for seat in range(partial.players):
        view = ENGINE.view(partial, seat)
        json.dumps(view)
        assert view["hand"] == partial.hands[seat]
        seen = _cards_in(view)
        assert not seen & set(partial.pond)
        others = {c for s, hand in enumerate(partial.hands) if s != seat for c in hand}
        assert seen & others <= publicly_given
        assert _cards_in({k: v for k, v in view.items() if k != "ask_history"}) == set(partial.hands[seat])
        for event in partial.log:
            shown = _cards_in(ENGINE.event_view(event, seat))
            mine = isinstance(event, (Deal, Draw)) and event.seat == seat
            assert shown <= (_cards_in(event_json(event)) if mine or isinstance(event, Ask) else set())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=game_setups)
def test_simulated_play_terminates_and_never_peeks(setup):
    players, hand_size, seed, _ = setup
    state = ENGINE.new(seed=seed, players=players, hand_size=hand_size, scripted=frozenset())
    assert ENGINE.is_over(state) and state.moves == []
    _check_invariants(state)
    # The seats' memory equals what a spectator can rebuild from public views alone.
    rebuilt = _knowledge_from_public_log(state)
    assert vars(rebuilt) == vars(state.knowledge)
    # And the knowledge holds no card a spectator has not seen.
    public_cards = {c for e in state.log if isinstance(e, Ask) for c in e.cards}
    assert _cards_in(vars(state.knowledge)) <= public_cards
    # Deterministic: the same deal plays the same game.
    assert ENGINE.new(**state.config).log == state.log
