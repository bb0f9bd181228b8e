"""A game as its deal and its moves (lila's ``Puzzle``): every state is derived.

A ``Session`` is what the site keeps of a game — engine, deal (the engine's config:
``seed`` or ``deck`` plus options) and the moves made — and what it does with one: deal
it (``new``: the opening events) and rebuild the state (``replay``). A move is played on
that state by the stored-game service (challenges/play.py), one move (``engine.apply``)
or all of them (``play_to_end``, the one "See result" of every game).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .base import DomainError, Engine
from .events import Event

# "See result" never plays more than this many moves of seat 0; engines end long before
# (Kitten's move limit is 5000 flips in all).
MAX_AUTO_MOVES = 100_000


class Session:
    __slots__ = ("engine", "deal", "moves", "_state")

    def __init__(self, engine: Engine, deal: dict[str, Any], moves: Iterable[Any] = ()) -> None:
        self.engine = engine
        self.deal = dict(deal)
        self.moves = list(moves)
        self._state: Any = None

    @property
    def state(self) -> Any:
        """The state after the moves (replayed on first use)."""
        if self._state is None:
            self.replay()
        return self._state

    def new(self) -> list[Event]:
        """Deal afresh (the moves must be none yet); the events the deal played before the
        first decision (Kitten's opening flip, Go Fish's deal and simulated seats)."""
        if self.moves:
            raise ValueError("new() deals a game with no moves yet")
        self._state = self.engine.new(**self.deal)
        return list(self._state.opening_events)

    def replay(self) -> Any:
        """Deal and play the moves; a game still in progress is fine. ReplayError names
        the first move the rules refuse."""
        self._state = self.engine.replay(self.deal, list(self.moves), partial=True)
        return self._state


def play_to_end(
    engine: Engine, state: Any, *, limit: int = MAX_AUTO_MOVES, events: list[Event] | None = None
) -> tuple[list[Any], list[Event]]:
    """ "See result": seat 0's only legal move, again and again, until the game is over,
    exactly as by hand (``engine.apply``). Returns the moves made and the events of the
    last one; ``events``, if given, receives every event. ``has_decisions`` when
    seat 0 has a choice (or is not to move) before the end, or after ``limit`` moves; the
    state has then taken the moves before."""
    made: list[Any] = []
    last: list[Event] = []
    while not engine.is_over(state):
        legal = engine.legal_moves(state)
        if engine.to_move(state) != 0 or len(legal) != 1 or len(made) >= limit:
            raise DomainError("has_decisions", "this game cannot be played to the end automatically")
        last = engine.apply(state, legal[0])
        made.append(legal[0])
        if events is not None:
            events.extend(last)
    return made, last
