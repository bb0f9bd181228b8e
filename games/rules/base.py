"""The one protocol every engine follows, and the domain errors (the engines' and the
site's services'): each carries a stable ``code`` and knows nothing of HTTP — the web
layer alone (config/errors.py) decides what status a code is.

An engine is a stateless object; a state is a plain mutable object owned by the
caller. ``apply`` checks a move, plays it, then plays every step that needs no
decision (draws from an empty hand, simulated seats, passes) until a decision of a
scripted seat is awaited or the game is over. It returns the events that happened
(games/rules/events.py), with full information: ``event_view`` is the one place that
cuts an event down to what one seat may see, as ``view`` is for a state. What ``new``
itself played before the first decision is the state's ``opening_events``.
"""

from __future__ import annotations

from typing import Any, Protocol

from .cards import check_deck, shuffled_deck
from .events import Event, Outcome


class DomainError(ValueError):
    """A refusal a caller can act on (no such game, a taken name, a stale move…).
    ``code`` is a stable identifier (the API's ``error``), ``detail`` says why."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


class GameError(DomainError):
    """A move or an input that the rules refuse."""


class StaleMove(GameError):
    """The caller's move number is not the number of moves made: another request (a
    second tab, a retry) changed the game first, or the caller saw an old state."""

    def __init__(self, detail: str = "") -> None:
        super().__init__("stale_move", detail)


class GameOver(GameError):
    """The game takes no more moves."""

    def __init__(self, detail: str = "this game is over") -> None:
        super().__init__("game_over", detail)


class ReplayError(GameError):
    """Replaying a move list failed at move ``index`` (0-based) with ``code``.

    Codes (docs/rules.md §2, §4): bad_move, illegal_ask, incomplete, extra_moves,
    wrong_seat, bad_target.
    """

    def __init__(self, code: str, index: int, detail: str = "") -> None:
        super().__init__(code, detail)
        self.index = index

    def as_dict(self) -> dict[str, Any]:
        return {"error": self.code, "index": self.index}


class Engine(Protocol):
    name: str
    rules_version: int

    def new(self, *, seed: str | None = None, deck: list[str] | None = None, **options: Any) -> Any:
        """The dealt state, with automatic steps already played."""

    def to_move(self, state: Any) -> int | None:
        """The seat whose decision is awaited, or None once the game is over."""

    def legal_moves(self, state: Any) -> list[Any]:
        """Every move ``apply`` accepts now (empty once over)."""

    def apply(self, state: Any, move: Any) -> list[Event]:
        """Play ``move`` and the automatic steps after it; raise GameError if refused
        (then the state is unchanged)."""

    def is_over(self, state: Any) -> bool: ...

    def outcome(self, state: Any) -> Outcome:
        """The result of a finished game (GameError ``not_over`` before)."""

    def view(self, state: Any, seat: int) -> dict[str, Any]:
        """Exactly what ``seat`` may see of ``state`` (JSON-ready)."""

    def event_view(self, event: Event, seat: int) -> dict[str, Any]:
        """Exactly what ``seat`` may see of one event (JSON-ready)."""

    def replay(self, config: dict[str, Any], moves: list[Any], *, partial: bool = False) -> Any:
        """Deal from ``config`` and play ``moves`` to the end (``partial``: or as far as
        they go); raise ReplayError."""

    def conformance(self, case: dict[str, Any]) -> dict[str, Any]:
        """The output line of docs/rules.md §5 for one input case (errors included)."""


class EndsWithOutcome:
    """The end of a game whose state says whether it is over (``state.over``) and whose
    result is read off a finished state by ``outcome_of`` (each game's own)."""

    def outcome_of(self, state: Any) -> Outcome:
        raise NotImplementedError

    def is_over(self, state: Any) -> bool:
        return bool(state.over)

    def outcome(self, state: Any) -> Outcome:
        if not state.over:
            raise GameError("not_over", "the game is not over")
        return self.outcome_of(state)


def deck_for(seed: Any, deck: Any) -> list[str]:
    """The deal of an input: exactly one of a seed (docs/rules.md §1) or a chosen deck."""
    if (seed is None) == (deck is None):
        raise GameError("bad_input", "give exactly one of seed or deck")
    try:
        return shuffled_deck(seed) if deck is None else check_deck(deck)
    except ValueError as exc:
        raise GameError("bad_input", str(exc)) from None
