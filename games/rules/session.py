"""A game as its deal and its moves (lila's ``Puzzle``): every state is derived.

A ``Session`` is what the site keeps of a game — engine, deal (the engine's config:
``seed`` or ``deck`` plus options) and the moves made — and the three things it does
with one: deal it (``new``: the opening events), rebuild the state (``replay``), and
play one more move (``play``: the events and the seat's view after it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .base import Engine
from .events import Event


class Session:
    __slots__ = ("engine", "deal", "moves", "seat", "_state")

    def __init__(self, engine: Engine, deal: dict[str, Any], moves: Iterable[Any] = (), *, seat: int = 0) -> None:
        self.engine = engine
        self.deal = dict(deal)
        self.moves = list(moves)
        self.seat = seat  # whose view ``play`` returns
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

    def play(self, move: Any) -> tuple[list[Event], dict[str, Any]]:
        """Play ``move`` (GameError if refused: nothing changes) and the automatic steps
        after it; the events (full information) and the seat's view."""
        events = self.engine.apply(self.state, move)
        self.moves.append(move)
        return events, self.view()

    def view(self) -> dict[str, Any]:
        return self.engine.view(self.state, self.seat)

    def seen(self, events: Iterable[Event]) -> list[dict[str, Any]]:
        """What the seat sees of ``events``, as JSON."""
        return [self.engine.event_view(e, self.seat) for e in events]
