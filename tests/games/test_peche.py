"""Pêche engine (docs/rules.md §1–2): shuffle, deal, opponent, replay errors, properties."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules.base import GameError, ReplayError
from games.rules.cards import UNSHUFFLED, shuffled_deck
from games.rules.events import Ask, Draw, Pair
from games.rules.peche import ENGINE, OPPONENT, PLAYER, Knowledge, Observer, Observers, ask, deal, opponent_choice

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "peche.jsonl"
CASES = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]


def test_shuffle_matches_the_rules_example():
    assert shuffled_deck("2026-11-29")[:12] == "5H 3H KS AS 2S AH 9C 10C QC JS KD 6H".split()


def test_shuffle_is_a_permutation_and_depends_on_the_seed():
    assert sorted(shuffled_deck("a")) == sorted(UNSHUFFLED)
    assert shuffled_deck("a") != shuffled_deck("b")
    assert shuffled_deck("é") == shuffled_deck("é")


@pytest.mark.parametrize("case", CASES, ids=[c.get("seed", "deck") for c in CASES])
def test_public_vector(case):
    got = ENGINE.conformance(case)
    assert {k: got.get(k) for k in case["expect"]} == case["expect"]


def test_deal_gives_even_cards_to_the_player_and_pairs_at_once():
    deck = list(UNSHUFFLED)  # AS AH AD AC 2S …: the player gets AS AD 2S 2D 3S -> pairs of A and 2
    state = ENGINE.new(deck=deck)
    assert list(state.hands[0].values()) == ["3S"]
    assert state.pairs[0] == ["A", "2"]
    assert state.pairs[1] == ["A", "2"]
    assert state.lake_size == 42


def chosen_deck(player: list[str], opponent: list[str], lake_top: list[str]) -> list[str]:
    """A deal of ``player``'s and ``opponent``'s five cards with ``lake_top`` drawn first."""
    dealt = [card for pair in zip(player, opponent, strict=True) for card in pair]
    return dealt + lake_top + [c for c in UNSHUFFLED if c not in dealt and c not in lake_top]


# Nothing pairs in the deal; the opponent holds a 3 and no 5; the lake starts 2C, AS.
NO_PAIRS = chosen_deck(["3S", "5S", "7S", "9S", "JS"], ["3H", "4H", "6H", "8H", "10H"], ["2C", "AS"])


def test_a_successful_ask_pairs_and_the_player_asks_again():
    state = ENGINE.new(deck=NO_PAIRS)
    events = ENGINE.apply(state, "3")
    assert events == [Ask(seat=0, target=1, rank="3", given=1, cards=("3H",)), Pair(seat=0, rank="3")]
    assert state.turn == 0 and ENGINE.legal_moves(state) == ["5", "7", "9", "J"]


def test_a_miss_fishes_and_passes_the_turn_to_the_opponent():
    state = ENGINE.new(deck=NO_PAIRS)
    events = ENGINE.apply(state, "5")
    assert events == [
        Ask(seat=0, target=1, rank="5", given=0, cards=()),
        Draw(seat=0, card="2C", reason="fish"),
        # The opponent's turn, played inside apply: its 3 is given, then a 4 is not.
        Ask(seat=1, target=0, rank="3", given=1, cards=("3S",)),
        Pair(seat=1, rank="3"),
        Ask(seat=1, target=0, rank="4", given=0, cards=()),
        Draw(seat=1, card="AS", reason="fish"),
    ]
    assert state.turn == 0 and not state.over
    assert [ENGINE.event_view(e, 0) for e in events][-1] == {"type": "draw", "seat": 1, "reason": "fish"}


def test_the_views_history_holds_each_ask_in_the_ask_events_words():
    state = ENGINE.new(deck=NO_PAIRS)
    events = ENGINE.apply(state, "5")
    asks = [e for e in events if isinstance(e, Ask)]
    history = ENGINE.view(state, 0)["history"]
    assert [{k: h[k] for k in ("seat", "target", "rank", "given")} for h in history] == [
        {"seat": a.seat, "target": a.target, "rank": a.rank, "given": a.given} for a in asks
    ]
    assert [h["fished"] for h in history] == [True, False, True]


def test_the_history_says_when_a_go_fish_drew_the_rank_asked_for():
    # The player asks for a 5, the opponent has none, and the lake's next card is a 5.
    state = ENGINE.new(deck=chosen_deck(["3S", "5S", "7S", "9S", "JS"], ["3H", "4H", "6H", "8H", "10H"], ["5C", "AS"]))
    events = ENGINE.apply(state, "5")
    assert events[:3] == [Ask(seat=0, target=1, rank="5", given=0, cards=()), Draw(0, "5C", "fish"), Pair(0, "5")]
    history = ENGINE.view(state, 0)["history"]
    assert [(h["seat"], h["rank"], h["fished"], h["caught"]) for h in history] == [
        (0, "5", True, True),  # fished the rank asked for: the share's blue square
        (1, "3", False, False),  # given
        (1, "4", True, False),  # fished another rank (the ace)
    ]


def test_illegal_and_bad_asks_leave_the_state_unchanged():
    state = ENGINE.new(seed="x")
    before = ENGINE.view(state, 0)
    missing = next(
        r for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K") if r not in state.hands[0]
    )
    with pytest.raises(GameError) as info:
        ENGINE.apply(state, missing)
    assert info.value.code == "illegal_ask"
    for bad in ("1", "AS", 7, None, ["A"]):
        with pytest.raises(GameError) as info:
            ENGINE.apply(state, bad)
        assert info.value.code == "bad_move"
    assert ENGINE.view(state, 0) == before


def test_opponent_asks_a_rank_it_knows_the_player_holds():
    # Craft a position: the player asked for a rank the opponent lacked; the opponent then
    # holding that rank must ask for it first, whatever its hand order.
    state = ENGINE.new(seed="pub-peche-0")
    state.hands[1] = {"9": "9S", "K": "KS"}
    state.hands[0] = {"K": "KH", "4": "4D"}
    state.knowledge.known = {"K"}
    assert opponent_choice(state) == "K"


def test_opponent_prefers_the_rank_most_likely_held():
    # Two pairs of 9 are impossible while it holds a 9, but one pair of 9 formed leaves a
    # single unseen 9 against three unseen kings: kings are likelier.
    state = ENGINE.new(seed="pub-peche-0")
    state.hands[1] = {"9": "9S", "K": "KS"}
    state.hands[0] = {"2": "2H", "3": "3D"}
    state.knowledge.known = set()
    state.knowledge.absent = {}
    state.pairs_by_rank = dict.fromkeys(state.pairs_by_rank, 0) | {"9": 1}
    assert opponent_choice(state) == "K"
    state.pairs_by_rank["9"] = 0  # equal chances: the earlier card in hand order wins
    assert opponent_choice(state) == "9"


def test_replay_error_codes_name_the_move():
    first = next(iter(ENGINE.new(seed="s").hands[0]))
    with pytest.raises(ReplayError) as info:
        ENGINE.replay({"seed": "s"}, [first, "Z"])
    assert info.value.as_dict() in ({"error": "bad_move", "index": 1}, {"error": "extra_moves", "index": 1})
    assert ENGINE.conformance({"seed": "s", "moves": []}) == {"error": "incomplete", "index": 0}


def play_randomly(seed: str, picks: list[int]):
    """Play with ``picks`` choosing among the legal ranks; returns (state, asks)."""
    state = ENGINE.new(seed=seed)
    moves = []
    while not state.over:
        legal = ENGINE.legal_moves(state)
        moves.append(legal[picks[len(moves) % len(picks)] % len(legal)])
        ENGINE.apply(state, moves[-1])
    return state, moves


@settings(max_examples=60, deadline=None)
@given(seed=st.text(min_size=1, max_size=12), picks=st.lists(st.integers(0, 12), min_size=1, max_size=30))
def test_replaying_the_recorded_asks_reproduces_the_result(seed, picks):
    final, moves = play_randomly(seed, picks)
    replayed = ENGINE.replay({"seed": seed}, moves)
    assert ENGINE.outcome(replayed) == ENGINE.outcome(final)
    assert replayed.history == final.history
    assert sum(ENGINE.outcome(final).counts) == 26


@settings(max_examples=60, deadline=None)
@given(seed=st.text(min_size=1, max_size=12), picks=st.lists(st.integers(0, 12), min_size=1, max_size=30))
def test_cards_are_conserved_and_views_hide_what_a_seat_cannot_see(seed, picks):
    state = ENGINE.new(seed=seed)
    deck = list(state.deck)
    i = 0
    while True:
        hands = [list(h.values()) for h in state.hands]
        lake = deck[state.lake_next :]
        paired = 2 * (len(state.pairs[0]) + len(state.pairs[1]))
        assert len(hands[0]) + len(hands[1]) + len(lake) + paired == 52
        for hand in hands:
            assert len({c[:-1] for c in hand}) == len(hand)  # never two of a rank
        text = json.dumps(ENGINE.view(state, 0))
        for card in hands[1] + lake:
            assert f'"{card}"' not in text
        if state.over:
            break
        legal = ENGINE.legal_moves(state)
        events = ENGINE.apply(state, legal[picks[i % len(picks)] % len(legal)])
        i += 1
        seen = {e.get("card") for e in (ENGINE.event_view(e, 0) for e in events)}
        opponent_draws = {e.card for e in events if isinstance(e, Draw) and e.seat == 1}
        assert not (seen & opponent_draws)
    counts = Counter(state.pairs[0] + state.pairs[1])
    assert all(v == 2 for v in counts.values()) and len(counts) == 13


class _Arrivals(Observer):
    """Each seat's deck cards that did not pair at once, in the order they came."""

    def __init__(self) -> None:
        self.cards: list[list[str]] = [[], []]

    def received(self, state, seat, card, from_deck, paired):
        if from_deck and not paired:
            self.cards[seat].append(card)


def _true_of(knowledge: Knowledge, state, arrivals: _Arrivals) -> None:
    hand = state.hands[knowledge.of]
    assert knowledge.known <= set(hand)
    assert knowledge.draws == len(arrivals.cards[knowledge.of])
    for rank, at in knowledge.absent.items():
        if rank in hand:  # then it came among the draws since it was known absent
            assert hand[rank] in arrivals.cards[knowledge.of][at:], rank


@pytest.mark.parametrize("tie", ["leftmost", "rightmost"])
def test_either_seat_s_knowledge_of_the_other_s_hand_is_true(tie):
    """What the opponent knows of the player's hand (the rules' ``state.knowledge``) and
    what the player knows of the opponent's (a ``Knowledge(of=OPPONENT)`` watching: what
    the analysis and the simulated players read) never say more than the hands hold: the
    ranks known are held, and a rank known absent is held only as one of the cards drawn
    since. The player's side also reads the opponent's choices (it asks a rank it knows
    the player holds whenever it can)."""
    inferred = 0
    for i in range(60):
        arrivals, theirs = _Arrivals(), Knowledge(OPPONENT)
        watchers = Observers(arrivals, theirs)
        state = deal(shuffled_deck(f"knowledge-{i}"), watchers)
        while not state.over:
            _true_of(state.knowledge, state, arrivals)
            _true_of(theirs, state, arrivals)
            ranks = list(state.hands[PLAYER])
            before = dict(theirs.absent)
            ask(state, ranks[0] if tie == "leftmost" else ranks[-1], watchers)
            inferred += sum(1 for r in theirs.absent if r not in before)
        _true_of(theirs, state, arrivals)
    assert inferred > 100
