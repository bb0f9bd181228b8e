"""What happens in a game, as value objects with one shape per concept across the games.

An ask is an ask in Pêche and in Go Fish: the seat that asks, the seat asked, the rank,
how many cards were given and which. A draw always says why (``reason``); an ``End``
always carries the ``Outcome``, and an ``Outcome`` has the same fields in every game.
Field names are the words of the JSON and of the JavaScript that reads it.

Engines emit these with full information. ``event_json`` is the one place that turns an
event into JSON; ``event_view`` is the one place that cuts it down to what a seat may see.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

Cards = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished game's result. ``counts`` is what decides the game, per seat: pairs
    (Pêche), books (Go Fish), cards held (Kitten). ``winners`` are the seats that won:
    one seat, or several sharing the win (a draw)."""

    winners: tuple[int, ...]
    counts: tuple[int, ...]
    asks: tuple[int, ...]  # per seat; all 0 in a game without asks (Kitten)
    moves: int  # moves of every seat: asks, or flips
    reason: str  # why the game ended: "pairs", "books", "empty" (a pile ran out), "limit"
    score: int | None = None  # Pêche's score (docs/rules.md §2); None in a game without one

    def side(self, seat: int) -> str:
        """``seat``'s result: "win", "loss" or "draw" (a shared win)."""
        if seat not in self.winners:
            return "loss"
        return "win" if len(self.winners) == 1 else "draw"

    def as_dict(self) -> dict[str, Any]:
        return {
            "winners": list(self.winners),
            "counts": list(self.counts),
            "asks": list(self.asks),
            "moves": self.moves,
            "reason": self.reason,
            "score": self.score,
        }


@dataclass(frozen=True, slots=True)
class Deal:
    """``seat`` receives its hand (only that seat sees ``cards``)."""

    type: ClassVar[str] = "deal"
    seat: int
    count: int
    cards: Cards


@dataclass(frozen=True, slots=True)
class Ask:
    """``seat`` asks ``target`` for ``rank``; ``target`` gives ``cards`` (``given`` of
    them, 0 for "go fish"). Given cards are shown to the table."""

    type: ClassVar[str] = "ask"
    seat: int
    target: int
    rank: str
    given: int
    cards: Cards


@dataclass(frozen=True, slots=True)
class Draw:
    """``seat`` takes the top card of the lake or pond (only that seat sees ``card``).
    ``reason``: "fish" (after a go fish), "empty_hand", "no_target" (Go Fish)."""

    type: ClassVar[str] = "draw"
    seat: int
    card: str
    reason: str


# The events are alike in shape (a seat and a field or two); each stays its own class, one per JSON "type".
@dataclass(frozen=True, slots=True)
class Pair:
    """Pêche: ``seat`` lays a pair of ``rank``."""

    type: ClassVar[str] = "pair"
    seat: int
    rank: str


@dataclass(frozen=True, slots=True)
class Book:
    """Go Fish: ``seat`` lays the four cards of ``rank``."""

    type: ClassVar[str] = "book"
    seat: int
    rank: str


@dataclass(frozen=True, slots=True)
class Pass:
    """``seat`` has no card and nothing to draw."""

    type: ClassVar[str] = "pass"
    seat: int


@dataclass(frozen=True, slots=True)
class Capture:
    """Kitten: the flip took ``taken`` (row order, the flipped card last). ``kind`` is
    "fish" (from the card of the same rank at ``match_index``) or "jack" (the whole row,
    ``match_index`` None)."""

    kind: str
    match_index: int | None
    taken: Cards


@dataclass(frozen=True, slots=True)
class Flip:
    """Kitten: ``seat`` flips ``card``, the ``move``-th flip of the game (from 1);
    ``piles`` and ``table`` are as after the flip."""

    type: ClassVar[str] = "flip"
    seat: int
    move: int
    card: str
    capture: Capture | None
    piles: tuple[int, int]
    table: Cards


@dataclass(frozen=True, slots=True)
class End:
    type: ClassVar[str] = "end"
    outcome: Outcome


Event = Deal | Ask | Draw | Pair | Book | Pass | Flip | End

# What only the event's own seat may see.
_PRIVATE: dict[type, str] = {Draw: "card", Deal: "cards"}
_FIELDS: dict[type, tuple[str, ...]] = {
    cls: tuple(f.name for f in fields(cls)) for cls in (Deal, Ask, Draw, Pair, Book, Pass, Flip, End, Capture)
}


# Values that are their own JSON. Checked by exact type before any conversion: nearly every
# field of every event is one (a seat, a rank, a card), and an ask's view holds several
# events (docs/benchmarks.md, "Instructions per request").
_PLAIN = frozenset({str, int, bool, type(None)})


def _json(value: Any) -> Any:
    if type(value) in _PLAIN:
        return value
    if isinstance(value, tuple):
        return [v if type(v) in _PLAIN else _json(v) for v in value]
    if isinstance(value, Outcome):
        return value.as_dict()
    if isinstance(value, Capture):
        return {name: _json(getattr(value, name)) for name in _FIELDS[Capture]}
    return value


def event_json(event: Event) -> dict[str, Any]:
    """The JSON form of ``event``, with full information: ``{"type": …, fields…}``."""
    out: dict[str, Any] = {"type": event.type}
    for name in _FIELDS[type(event)]:
        value = getattr(event, name)
        out[name] = value if type(value) in _PLAIN else _json(value)
    return out


def event_view(event: Event, seat: int | None) -> dict[str, Any]:
    """The JSON form of what ``seat`` sees of ``event``; ``seat`` None is a spectator.
    A drawn or dealt card is seen by its receiver only; everything else is public."""
    out = event_json(event)
    hidden = _PRIVATE.get(type(event))
    if hidden is not None and seat != getattr(event, "seat", None):
        del out[hidden]
    return out
