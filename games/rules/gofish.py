"""Go Fish with books (docs/rules.md §4), 2 to 6 players, and its simulated opponents.

Rules in brief: deal one card at a time round-robin from seat 0; a book (all four
cards of a rank) is laid as soon as a hand holds it. Seat 0 starts. On a turn a seat
with an empty hand draws from the pond (or passes if the pond is empty); a seat whose
rivals all have empty hands draws one card and the turn passes; otherwise it asks one
seat holding cards for a rank it holds: the target gives all its cards of that rank
and the asker asks again, or says "go fish" and the asker draws one card (if any) and
the turn passes. The game ends when the 13th book is laid; most books wins.

Seats in ``scripted`` wait for a decision (a move ``{"seat", "target", "rank"}``);
the other seats are simulated and play inside ``new``/``apply`` as automatic steps,
like empty-hand draws and passes. Conformance replays script every seat.

The simulated opponent (``choose_ask``)
---------------------------------------
It sees exactly what a player at the table sees: its own hand plus a
``Knowledge`` record. That record is fed only with ``event_view(event, None)``
(the spectator's view of each event: no dealt or drawn card), so the strategy cannot
peek; it remembers everything public:

- ``known[s][r]`` — a lower bound on the cards of rank r that seat s holds. An ask
  for r proves the asker holds one; cards handed over in a give are shown to all;
  giving away a rank or laying its book leaves the seat with none.
- ``void[s][r]`` — seat s was last seen holding no r (it gave its r away or sent an
  asker fishing for r); the value counts the unseen cards (draws) s took since then,
  the only ones that may be an r.
- hand sizes, pond size, books laid, and the full ask history.

Choice, over every (rank r it holds, seat t holding cards), largest key first:

1. ``sure`` — cards of r that t is known to hold. Any sure ask comes before every
   guess (the turn goes on, so all of them get made), the richest first.
2. Never a hopeless guess: an ask with P = 0 comes after every ask with P > 0.
3. ``own`` — the rank it holds most of. Measured (bench/gofish_strength.py), this
   beats "highest P first" clearly, against random askers and head to head: a
   near-complete rank closes a book sooner, those cards stop being exposed to
   other askers, and a failed ask only reveals a rank with few copies left to fetch.
4. ``P`` — the chance that t holds at least one r: the copies of r nobody can place
   (4 − own − known elsewhere) are spread over the unknown slots — the pond, each
   rival's cards not accounted for by ``known``, and, for a rival void of r, only
   the cards drawn since. Hypergeometric, exact (``cards.miss_chance``, the chance
   Pêche's opponent weighs too). This picks the target.
5. Ties: the lower seat, then the rank first acquired.

Deterministic (no ``random``): every tie is broken by seat, hand or rank order.

Events (games/rules/events.py; ``event_view`` cuts them to one seat):
``Deal(seat, count, cards)`` (cards: the receiver only), ``Ask(seat, target, rank,
given, cards)`` (given cards are public), ``Draw(seat, card, reason "fish" |
"empty_hand" | "no_target")`` (card: the drawer only), ``Book(seat, rank)``,
``Pass(seat)`` (empty hand, empty pond), ``End(outcome)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeGuard

from .base import GameError, ReplayError, deck_for
from .cards import RANK_INDEX, RANK_SET, RANKS, miss_chance, rank_of
from .events import Ask, Book, Deal, Draw, End, Event, Outcome, Pass, event_view

MIN_PLAYERS = 2
MAX_PLAYERS = 6
BOOKS_IN_DECK = len(RANKS)
# Simulated play always ends well before this; the cap turns a strategy bug into an
# error instead of a hung request.
_MAX_AUTOMATIC_STEPS = 100_000


def default_hand_size(players: int) -> int:
    return 7 if players <= 3 else 5


# --------------------------------------------------------------------------- knowledge


class Knowledge:
    """What every seat at the table knows of the others' hands, built only from public
    event views (the same record as ``peche.Knowledge``, for n seats and books)."""

    def __init__(self, players: int, deck_size: int = 52) -> None:
        self.players = players
        self.hand_sizes = [0] * players
        self.pond_size = deck_size
        self.books: list[list[str]] = [[] for _ in range(players)]
        self.known: list[dict[str, int]] = [{} for _ in range(players)]
        self.void: list[dict[str, int]] = [{} for _ in range(players)]
        self.ask_history: list[dict[str, Any]] = []

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Knowledge) and vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def unknown_cards(self, seat: int) -> int:
        """Cards of ``seat`` whose rank nobody outside the seat can name."""
        return self.hand_sizes[seat] - sum(self.known[seat].values())

    def observe(self, event: dict[str, Any]) -> None:
        """Precondition: ``event`` is a public view (``event_view(e, None)``)."""
        kind = event["type"]
        if kind in ("deal", "draw"):
            seat = event["seat"]
            count = event.get("count", 1)
            self.hand_sizes[seat] += count
            self.pond_size -= count
            for rank in self.void[seat]:
                self.void[seat][rank] += count
        elif kind == "ask":
            asker, target, rank, given = event["seat"], event["target"], event["rank"], event["given"]
            self.ask_history.append(
                {"seat": asker, "target": target, "rank": rank, "given": given, "cards": list(event["cards"])}
            )
            # Asking proves the asker held one before; a give adds what all saw.
            self.known[asker][rank] = max(self.known[asker].get(rank, 0), 1) + given
            self.void[asker].pop(rank, None)
            self.hand_sizes[asker] += given
            self.hand_sizes[target] -= given
            self.known[target].pop(rank, None)
            self.void[target][rank] = 0
        elif kind == "book":
            seat, rank = event["seat"], event["rank"]
            self.books[seat].append(rank)
            self.hand_sizes[seat] -= 4
            for s in range(self.players):
                self.known[s].pop(rank, None)
                self.void[s].pop(rank, None)
        # "pass" and "end" teach nothing about hands.


def choose_ask(knowledge: Knowledge, seat: int, hand: Sequence[str]) -> dict[str, Any]:
    """The simulated seat's ask, from public knowledge and its own hand only.

    Precondition: ``hand`` is not empty and some other seat holds cards.
    """
    held: Counter[str] = Counter()
    order: list[str] = []  # ranks in the order first acquired
    for card in hand:
        r = rank_of(card)
        if r not in held:
            order.append(r)
        held[r] += 1
    targets = [t for t in range(knowledge.players) if t != seat and knowledge.hand_sizes[t] > 0]
    unknown = {t: max(knowledge.unknown_cards(t), 0) for t in targets}

    best_key: tuple[Any, ...] | None = None
    best: tuple[int, str] | None = None
    for position, rank in enumerate(order):
        own = held[rank]
        known_elsewhere = sum(knowledge.known[t].get(rank, 0) for t in range(knowledge.players) if t != seat)
        loose = max(4 - own - known_elsewhere, 0)  # copies nobody can place
        slots = {}
        for t in targets:
            since_void = knowledge.void[t].get(rank)
            slots[t] = unknown[t] if since_void is None else min(unknown[t], since_void)
        total = knowledge.pond_size + sum(slots.values())
        for t in targets:
            sure = knowledge.known[t].get(rank, 0)
            if sure:
                p = Fraction(1)
            elif total:
                p = 1 - Fraction(*miss_chance(total, loose, slots[t]))
            else:
                p = Fraction(0)
            key = (sure, p > 0, own, p, -t, -position)
            if best_key is None or key > best_key:
                best_key, best = key, (t, rank)
    assert best is not None, "choose_ask needs a card in hand and a target"
    return {"seat": seat, "target": best[0], "rank": best[1]}


# --------------------------------------------------------------------------- state


@dataclass
class GoFishState:
    players: int
    hand_size: int
    scripted: frozenset[int]
    config: dict[str, Any]
    hands: list[list[str]]
    pond: list[str]  # pond[0] is drawn next
    books: list[list[str]]
    knowledge: Knowledge
    asks: list[int]
    passes: int = 0
    turn: int = 0
    over: bool = False
    moves: list[dict[str, Any]] = field(default_factory=list)  # scripted moves, in order
    log: list[Event] = field(default_factory=list)  # every event, full information
    opening_events: list[Event] = field(default_factory=list)  # what ``new`` played


def _is_int(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


# --------------------------------------------------------------------------- engine


class GoFishEngine:
    name = "gofish"
    rules_version = 1

    # -- setup

    # The signature of base.Engine.new (a seed or a deck, then this game's options), as every engine's.
    def new(
        self,
        *,
        seed: str | None = None,
        deck: list[str] | None = None,
        players: int = 2,
        hand_size: int | None = None,
        scripted: Iterable[int] = frozenset({0}),
    ) -> GoFishState:
        if not _is_int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise GameError("bad_input", f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}")
        if hand_size is None:
            hand_size = default_hand_size(players)
        if not _is_int(hand_size) or hand_size < 1 or hand_size * players > 52:
            raise GameError("bad_input", "hand_size must be a positive int with players * hand_size <= 52")
        cards = deck_for(seed, deck)
        try:
            scripted_set = frozenset(scripted)
        except TypeError:
            raise GameError("bad_input", "scripted is a set of seats") from None
        if not all(_is_int(s) and 0 <= s < players for s in scripted_set):
            raise GameError("bad_input", "scripted seats must be seats of the table")

        config: dict[str, Any] = {"players": players, "hand_size": hand_size, "scripted": sorted(scripted_set)}
        config["seed" if seed is not None else "deck"] = seed if seed is not None else list(cards)
        dealt = hand_size * players
        state = GoFishState(
            players=players,
            hand_size=hand_size,
            scripted=scripted_set,
            config=config,
            hands=[[] for _ in range(players)],
            pond=list(cards[dealt:]),
            books=[[] for _ in range(players)],
            knowledge=Knowledge(players, len(cards)),
            asks=[0] * players,
        )
        for i in range(dealt):
            state.hands[i % players].append(cards[i])
        events: list[Event] = []
        for seat in range(players):
            self._emit(state, Deal(seat, hand_size, tuple(state.hands[seat])), events)
        for seat in range(players):
            # Books in the order their fourth card arrived.
            seen: Counter[str] = Counter()
            for card in list(state.hands[seat]):
                seen[rank_of(card)] += 1
                if seen[rank_of(card)] == 4:
                    self._lay_book(state, seat, rank_of(card), events)
        self._advance(state, events)
        state.opening_events = events
        return state

    # -- queries

    def to_move(self, state: GoFishState) -> int | None:
        return None if state.over else state.turn

    def is_over(self, state: GoFishState) -> bool:
        return state.over

    def legal_moves(self, state: GoFishState) -> list[dict[str, Any]]:
        if state.over:
            return []
        seat = state.turn
        ranks = sorted({rank_of(c) for c in state.hands[seat]}, key=RANK_INDEX.__getitem__)
        targets = [t for t in range(state.players) if t != seat and state.hands[t]]
        return [{"seat": seat, "target": t, "rank": r} for t in targets for r in ranks]

    def outcome(self, state: GoFishState) -> Outcome:
        if not state.over:
            raise GameError("not_over", "the game is still being played")
        counts = tuple(len(b) for b in state.books)
        top = max(counts)
        return Outcome(
            winners=tuple(s for s, n in enumerate(counts) if n == top),
            counts=counts,
            asks=tuple(state.asks),
            moves=sum(state.asks),
            reason="books",
        )

    def result_line(self, state: GoFishState) -> dict[str, Any]:
        """The output line of docs/rules.md §4/§5 for a finished game."""
        outcome = self.outcome(state)
        return {
            "books": list(outcome.counts),
            "book_ranks": [",".join(b) for b in state.books],
            "asks": list(outcome.asks),
            "winners": list(outcome.winners),
            "passes": state.passes,
        }

    def view(self, state: GoFishState, seat: int) -> dict[str, Any]:
        """Exactly what ``seat`` may see: its own cards, everyone's counts, public history."""
        if not _is_int(seat) or not 0 <= seat < state.players:
            raise GameError("bad_seat", "no such seat")
        k = state.knowledge
        out: dict[str, Any] = {
            "game": self.name,
            "rules_version": self.rules_version,
            "seat": seat,
            "players": state.players,
            "hand": list(state.hands[seat]),
            "hand_sizes": [len(h) for h in state.hands],
            "books": [list(b) for b in state.books],
            "pond_size": len(state.pond),
            "to_move": self.to_move(state),
            "asks": list(state.asks),
            "passes": state.passes,
            "ask_history": [dict(a, cards=list(a["cards"])) for a in k.ask_history],
            "over": state.over,
            "outcome": self.outcome(state).as_dict() if state.over else None,
        }
        out["legal_moves"] = self.legal_moves(state) if self.to_move(state) == seat else []
        return out

    def event_view(self, event: Event, seat: int | None) -> dict[str, Any]:
        """What ``seat`` sees of ``event``; ``seat=None`` is a spectator (public view)."""
        return event_view(event, seat)

    # -- playing

    def apply(self, state: GoFishState, move: Any) -> list[Event]:
        seat, target, rank = self._check(state, move)
        events: list[Event] = []
        state.moves.append({"seat": seat, "target": target, "rank": rank})
        self._ask(state, seat, target, rank, events)
        self._advance(state, events)
        return events

    def _check(self, state: GoFishState, move: Any) -> tuple[int, int, str]:
        """Validate ``move`` without touching ``state``.

        Order: game over, shape (exactly seat/target/rank), wrong_seat (any seat value
        but the awaited one), bad_move (rank not one of the 13 strings), bad_target,
        illegal_ask. The vectors pin wrong_seat before bad_target and illegal_ask (a
        wrong seat asking itself is wrong_seat); the rest is this engine's choice."""
        if state.over:
            raise GameError("game_over", "the game is over")
        if not isinstance(move, dict) or set(move) != {"seat", "target", "rank"}:
            raise GameError("bad_move", "a move is {seat, target, rank}")
        seat, target, rank = move["seat"], move["target"], move["rank"]
        if not _is_int(seat) or seat != state.turn:
            raise GameError("wrong_seat", f"seat {state.turn} is to move")
        if not isinstance(rank, str) or rank not in RANK_SET:
            raise GameError("bad_move", "rank must be one of " + " ".join(RANKS))
        if not _is_int(target) or target == seat or not 0 <= target < state.players or not state.hands[target]:
            raise GameError("bad_target", "ask another seat that holds cards")
        if not any(rank_of(c) == rank for c in state.hands[seat]):
            raise GameError("illegal_ask", f"seat {seat} holds no {rank}")
        return seat, target, rank

    def replay(self, config: dict[str, Any], moves: list[Any], *, partial: bool = False) -> GoFishState:
        """Deal from ``config`` (the keyword arguments of ``new``) and play ``moves``;
        ``partial``: a game still in progress is fine (resuming a stored game)."""
        if not isinstance(config, dict):
            raise GameError("bad_input", "config is a dict")
        if not isinstance(moves, list):
            raise GameError("bad_input", "moves is a list")
        state = self.new(**config)
        for index, move in enumerate(moves):
            if state.over:
                raise ReplayError("extra_moves", index, "the game is over")
            try:
                self.apply(state, move)
            except ReplayError:
                raise
            except GameError as exc:
                raise ReplayError(exc.code, index, exc.detail) from None
        if not state.over and not partial:
            raise ReplayError("incomplete", len(moves), "the moves ran out before the end")
        return state

    def conformance(self, case: dict[str, Any]) -> dict[str, Any]:
        """docs/rules.md §5; raises ReplayError for replay errors, GameError("bad_input")
        for a malformed case."""
        if not isinstance(case, dict) or case.get("game", self.name) != self.name:
            raise GameError("bad_input", "not a gofish case")
        players = case.get("players")
        if not _is_int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise GameError("bad_input", f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}")
        config = {
            "players": players,
            "hand_size": case.get("hand_size"),
            "seed": case.get("seed"),
            "deck": case.get("deck"),
            "scripted": frozenset(range(players)),
        }
        moves: Any = case.get("moves")  # as given: replay refuses a malformed one (bad_input)
        return self.result_line(self.replay(config, moves))

    # -- steps

    def _emit(self, state: GoFishState, event: Event, events: list[Event]) -> None:
        events.append(event)
        state.log.append(event)
        # The only door into the simulated seats' memory: the spectator's view.
        state.knowledge.observe(self.event_view(event, None))

    def _next_seat(self, state: GoFishState) -> None:
        state.turn = (state.turn + 1) % state.players

    def _lay_book(self, state: GoFishState, seat: int, rank: str, events: list[Event]) -> None:
        hand = state.hands[seat]
        if sum(1 for c in hand if rank_of(c) == rank) < 4:
            return
        state.hands[seat] = [c for c in hand if rank_of(c) != rank]
        state.books[seat].append(rank)
        self._emit(state, Book(seat, rank), events)
        if sum(len(b) for b in state.books) == BOOKS_IN_DECK:
            state.over = True
            self._emit(state, End(self.outcome(state)), events)

    def _draw(self, state: GoFishState, seat: int, reason: str, events: list[Event]) -> None:
        card = state.pond.pop(0)
        state.hands[seat].append(card)
        self._emit(state, Draw(seat, card, reason), events)
        self._lay_book(state, seat, rank_of(card), events)

    def _ask(self, state: GoFishState, seat: int, target: int, rank: str, events: list[Event]) -> None:
        state.asks[seat] += 1
        given = [c for c in state.hands[target] if rank_of(c) == rank]
        state.hands[target] = [c for c in state.hands[target] if rank_of(c) != rank]
        self._emit(state, Ask(seat, target, rank, len(given), tuple(given)), events)
        if given:
            state.hands[seat].extend(given)
            self._lay_book(state, seat, rank, events)
            return  # the asker asks again
        if state.pond:
            self._draw(state, seat, "fish", events)
        if not state.over:
            self._next_seat(state)

    def _advance(self, state: GoFishState, events: list[Event]) -> None:
        """Play automatic steps until a scripted seat must decide or the game ends."""
        for _ in range(_MAX_AUTOMATIC_STEPS):
            if state.over:
                return
            seat = state.turn
            if not state.hands[seat]:
                if not state.pond:
                    state.passes += 1
                    self._emit(state, Pass(seat), events)
                    self._next_seat(state)
                else:
                    self._draw(state, seat, "empty_hand", events)
                continue
            if not any(state.hands[t] for t in range(state.players) if t != seat):
                # Not over, so the pond holds the rest of the unbooked cards.
                self._draw(state, seat, "no_target", events)
                if not state.over:
                    self._next_seat(state)
                continue
            if seat in state.scripted:
                return
            move = choose_ask(state.knowledge, seat, tuple(state.hands[seat]))
            self._ask(state, seat, move["target"], move["rank"], events)
        raise RuntimeError("gofish: automatic play did not settle")


ENGINE = GoFishEngine()
