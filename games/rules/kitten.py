"""Kitten fishing (xiao mao diao yu), docs/rules.md §3: a game with no decisions.

Seat 0 is the player, seat 1 is Kitten. Each side flips the top card of its own
face-down pile onto the end of the table row; a jack sweeps a non-empty row, a
card of a rank already in the row fishes from that card to the end. Nothing is
ever chosen, so the outcome is fixed by the deal and ``first``.

The player's only move is the string ``"flip"``. Kitten's flips are the
automatic steps of the protocol (games/rules/base.py): ``apply(state, "flip")`` plays
the player's flip and then Kitten's, so ``to_move`` is 0 or None, never 1.

Events (games/rules/events.py, in play order):

- ``Flip(seat, move, card, capture, piles, table)`` — ``move`` counts flips of both
  sides from 1; ``capture`` is None or ``Capture(kind "fish"|"jack", match_index,
  taken)``, ``match_index`` the position in the row (before the flip) of the card
  fished, None for a jack sweep; ``piles`` and ``table`` as after the flip.
- ``End(outcome)`` once, right after the last flip.

Opening events: with ``first="opponent"``, ``new`` already plays Kitten's
opening flip; its events are in ``state.opening_events`` (an empty list when the
player flips first). Nothing else ever writes that attribute.

Stored moves: the server stores the number of flips the player made
(``state.player_flips``). ``replay`` accepts that count or an explicit list of
``"flip"`` strings; both mean the same game.

The rules live in one function, ``_play``: ``apply``, ``replay`` and
``conformance`` all go through it, with or without building events; ``play_to_end``
(the "See result" button) is session.play_to_end, flip by flip through ``apply``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from . import session
from .base import EndsWithOutcome, GameError, ReplayError, deck_for
from .cards import RANK_INDEX, RANK_OF, RANKS
from .events import Capture, End, Event, Flip, Outcome, event_view

PLAYER, OPPONENT = 0, 1
FIRSTS = ("player", "opponent")
SIDES = FIRSTS  # seat -> the name used in results
MOVE = "flip"
DEFAULT_LIMIT = 5000

# card -> rank index in one lookup: `where` is indexed by it on every flip (docs/benchmarks.md).
_RANK = {card: RANK_INDEX[rank] for card, rank in RANK_OF.items()}
_JACK = RANK_INDEX["J"]
_NOWHERE = (-1,) * len(RANKS)


class KittenState:
    """One game in progress. ``piles[seat]`` is in flip order (index 0 flips next).

    ``where[rank index]`` is the position of that rank in ``table`` or -1; a rank
    is never twice in the row, which is what makes this index possible.
    The caller owns the state; it is changed only through the engine, and between
    engine calls the player is to flip (``turn`` 0) unless the game is over.
    """

    __slots__ = (
        "piles",
        "table",
        "where",
        "first",
        "limit",
        "turn",
        "moves",
        "captures",
        "jack_sweeps",
        "over",
        "winner",
        "reason",
        "opening_events",
    )

    def __init__(
        self,
        player_pile: list[str],
        opponent_pile: list[str],
        *,
        table: Iterable[str] = (),
        first: str = "player",
        turn: int | None = None,
        limit: int = DEFAULT_LIMIT,
        moves: int = 0,
    ) -> None:
        """A position: normally the deal (``new``); tests also build positions."""
        if first not in FIRSTS:
            raise GameError("bad_input", "first is 'player' or 'opponent'")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise GameError("bad_input", "limit is a positive integer")
        self.piles = (deque(player_pile), deque(opponent_pile))
        self.table: list[str] = list(table)
        self.where = list(_NOWHERE)
        for i, card in enumerate(self.table):
            if self.where[_RANK[card]] != -1:
                raise GameError("bad_input", "the table never holds two cards of one rank")
            self.where[_RANK[card]] = i
        self.first = first
        self.limit = limit
        start = PLAYER if first == "player" else OPPONENT
        self.turn = (start + moves) % 2 if turn is None else turn  # seat that flips next
        self.moves = moves
        self.captures = 0
        self.jack_sweeps = 0
        self.over = False
        self.winner: str | None = None
        self.reason: str | None = None
        self.opening_events: list[Event] = []

    @property
    def player_pile(self) -> deque[str]:
        return self.piles[PLAYER]

    @property
    def opponent_pile(self) -> deque[str]:
        return self.piles[OPPONENT]

    @property
    def player_flips(self) -> int:
        """How many flips the player has made: what the server stores to replay."""
        if self.first == "player":
            return (self.moves + 1) // 2
        return self.moves // 2


def _play(state: KittenState, n: int, events: list[Event] | None) -> None:
    """Play up to ``n`` flips, alternating from ``state.turn``, stopping at the end.

    The one place the rules of §3 are written. ``events`` None is the fast path
    (conformance, replay, benchmark): identical play, no dicts built.
    """
    if state.over or n <= 0:
        return
    record = events is not None
    # Locals, not attributes, in the loop: a 5000-flip game is ~1 ms (docs/benchmarks.md).
    piles = state.piles
    table = state.table
    where = state.where
    rank_of = _RANK
    turn = state.turn
    moves = state.moves
    captures = state.captures
    sweeps = state.jack_sweeps
    stop = min(state.limit, moves + n)
    emptied = False
    capture: Capture | None = None
    while moves < stop:
        pile = piles[turn]
        card = pile.popleft()
        rank = rank_of[card]
        moves += 1
        if rank == _JACK and table:
            # Rule 1 comes first, so a jack never fishes an earlier jack.
            if record:
                capture = Capture("jack", None, (*table, card))
            pile.extend(table)
            pile.append(card)
            table.clear()
            where[:] = _NOWHERE
            captures += 1
            sweeps += 1
        else:
            i = where[rank]
            if i < 0:
                where[rank] = len(table)
                table.append(card)
                capture = None
            else:
                taken = table[i:]
                del table[i:]
                for c in taken:
                    where[rank_of[c]] = -1
                pile.extend(taken)
                pile.append(card)
                captures += 1
                if record:
                    capture = Capture("fish", i, (*taken, card))
        if events is not None:
            events.append(Flip(turn, moves, card, capture, (len(piles[0]), len(piles[1])), tuple(table)))
        if not pile:
            emptied = True
            break
        turn ^= 1
    state.turn = turn
    state.moves = moves
    state.captures = captures
    state.jack_sweeps = sweeps
    if emptied:  # checked before the limit: the mover of the last move loses
        state.over, state.reason = True, "empty"
        state.winner = SIDES[turn ^ 1]
    elif moves >= state.limit:
        n0, n1 = len(piles[0]), len(piles[1])
        state.over, state.reason = True, "limit"
        state.winner = "player" if n0 > n1 else "opponent" if n1 > n0 else "draw"
    if state.over and events is not None:
        events.append(End(outcome_of(state)))


_WINNERS = {"player": (PLAYER,), "opponent": (OPPONENT,), "draw": (PLAYER, OPPONENT)}


def outcome_of(state: KittenState) -> Outcome:
    assert state.winner is not None and state.reason is not None, "the game is over"
    return Outcome(
        winners=_WINNERS[state.winner],
        counts=(len(state.piles[PLAYER]), len(state.piles[OPPONENT])),
        asks=(0, 0),
        moves=state.moves,
        reason=state.reason,
    )


def result_line(state: KittenState) -> dict[str, Any]:
    """The output line of docs/rules.md §3/§5 for a finished game."""
    return {
        "winner": state.winner,
        "reason": state.reason,
        "moves": state.moves,
        "player_cards": len(state.piles[PLAYER]),
        "opponent_cards": len(state.piles[OPPONENT]),
        "table_cards": len(state.table),
        "captures": state.captures,
        "jack_sweeps": state.jack_sweeps,
    }


def _is_flip(move: Any) -> bool:
    return isinstance(move, str) and move == MOVE


def _check_seat(seat: Any) -> None:
    if type(seat) is not int or seat not in (PLAYER, OPPONENT):
        raise GameError("bad_seat", "a seat is 0 (player) or 1 (Kitten)")


def play_to_end(state: KittenState, *, record: bool = True) -> list[Event] | None:
    """Flip every remaining card ("See result"): session.play_to_end, the one "See result"
    of every game (flip by flip through ``apply``), returning all its events. ``record``
    False is the fast path of ``replay`` and ``conformance`` instead: the same flips by the
    same ``_play``, no events built; returns None."""
    if not record:
        _play(state, state.limit, None)
        return None
    events: list[Event] = []
    session.play_to_end(ENGINE, state, limit=state.limit, events=events)
    return events


class KittenEngine(EndsWithOutcome):
    name = "kitten"
    rules_version = 1

    # The signature of base.Engine.new (a seed or a deck, then this game's options), as every engine's.
    def new(
        self,
        *,
        seed: str | None = None,
        deck: list[str] | None = None,
        first: str = "player",
        limit: int = DEFAULT_LIMIT,
        **options: Any,
    ) -> KittenState:
        """Deal (§3) from exactly one of ``seed``/``deck``. With ``first="opponent"``
        Kitten's opening flip is played; its events are ``state.opening_events``.
        ``first`` alternates from game to game: that is the caller's to choose."""
        if options:
            raise GameError("bad_input", f"unknown options {sorted(options)}")
        cards = deck_for(seed, deck)
        state = KittenState(cards[0::2], cards[1::2], first=first, limit=limit)
        if state.turn == OPPONENT:
            _play(state, 1, state.opening_events)
        return state

    def to_move(self, state: KittenState) -> int | None:
        return None if state.over else PLAYER

    def legal_moves(self, state: KittenState) -> list[str]:
        return [] if state.over else [MOVE]

    def apply(self, state: KittenState, move: Any) -> list[Event]:
        """The player's flip, then Kitten's (unless the first one ended the game)."""
        if not _is_flip(move):
            raise GameError("bad_move", "the only move is 'flip'")
        if state.over:
            raise GameError("game_over", "the game is over")
        events: list[Event] = []
        _play(state, 2, events)
        return events

    outcome_of = staticmethod(outcome_of)

    def view(self, state: KittenState, seat: int) -> dict[str, Any]:
        """Everything flipped is public; the order of the piles is not, so a pile
        appears only as its size."""
        _check_seat(seat)
        return {
            "seat": seat,
            "piles": [len(state.piles[PLAYER]), len(state.piles[OPPONENT])],
            "table": list(state.table),
            "moves": state.moves,
            "limit": state.limit,
            "first": state.first,
            "captures": state.captures,
            "jack_sweeps": state.jack_sweeps,
            "turn": None if state.over else SIDES[state.turn],
            "over": state.over,
            "outcome": outcome_of(state).as_dict() if state.over else None,
        }

    def event_view(self, event: Event, seat: int) -> dict[str, Any]:
        """Events hold only face-up cards, so every seat sees all of them."""
        _check_seat(seat)
        return event_view(event, seat)

    def play_to_end(self, state: KittenState, *, record: bool = True) -> list[Event] | None:
        return play_to_end(state, record=record)

    def config_state(self, config: dict[str, Any]) -> KittenState:
        """The dealt state of ``{"seed" | "deck", "first"?, "limit"?}``
        (``first`` defaults to "player", ``limit`` to 5000); GameError bad_input."""
        if not isinstance(config, dict):
            raise GameError("bad_input", "a config is an object")
        if config.get("game", self.name) != self.name:
            raise GameError("bad_input", "not a kitten case")
        return self.new(
            seed=config.get("seed"),
            deck=config.get("deck"),
            first=config.get("first", "player"),
            limit=config.get("limit", DEFAULT_LIMIT),
        )

    def replay(self, config: dict[str, Any], moves: list[str] | int, *, partial: bool = False) -> KittenState:
        """Deal from ``config`` and make the player's flips; ``moves`` is the count of
        flips (what the server stores) or a list of ``"flip"``.

        ReplayError: ``bad_move`` (an entry that is not "flip", or a count that is not
        a non-negative int; index of the entry, 0 for a count), ``extra_moves`` (the
        game ended before flip ``index``), ``incomplete`` (not over after all the
        flips; index = their number) unless ``partial`` (resuming a game in progress).
        """
        state = self.config_state(config)
        if isinstance(moves, int) and not isinstance(moves, bool):
            if moves < 0:
                raise ReplayError("bad_move", 0, "a flip count is never negative")
            count, bad = moves, None
        elif isinstance(moves, (list, tuple)):
            bad = next((i for i, m in enumerate(moves) if not _is_flip(m)), None)
            count = len(moves) if bad is None else bad
        else:
            raise GameError("bad_input", "moves is a flip count or a list of 'flip'")
        before = state.player_flips
        _play(state, 2 * count, None)  # each flip and Kitten's reply
        made = state.player_flips - before
        if state.over and (made < count or bad is not None):
            raise ReplayError("extra_moves", made)
        if bad is not None:
            raise ReplayError("bad_move", bad, "the only move is 'flip'")
        if not state.over and not partial:
            raise ReplayError("incomplete", count)
        return state

    def conformance(self, case: dict[str, Any]) -> dict[str, Any]:
        """§5: the outcome fields of §3; a malformed case raises GameError bad_input."""
        state = self.config_state(case)
        _play(state, state.limit, None)
        return result_line(state)


ENGINE = KittenEngine()
