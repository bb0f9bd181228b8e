"""The Pêche table and who watches it: the state (``PecheState``), the hooks the rules'
loop calls on whoever watches a game (``Observer``; several at once: ``Observers``), and
what one seat knows of the other's hand (``Knowledge``, an observer too). The loop and the
rules that play on them are games/rules/peche.py, which names all of these as its own.
"""

from __future__ import annotations

from typing import Any

from .cards import RANK_OF, RANKS
from .events import Event

PLAYER, OPPONENT = 0, 1


class PecheState:
    __slots__ = (
        "deck",
        "lake_next",
        "hands",
        "pairs",
        "pairs_by_rank",
        "turn",
        "asks",
        "history",
        "caught",
        "knowledge",
        "over",
        "opening_events",
    )

    def __init__(
        self,
        deck: list[str],
        lake_next: int = 10,
        hands: list[dict[str, str]] | None = None,
        pairs: list[list[str]] | None = None,
        pairs_by_rank: dict[str, int] | None = None,
        asks: list[int] | None = None,
        knowledge: Knowledge | None = None,
        turn: int = PLAYER,
        over: bool = False,
    ) -> None:
        """A state before the deal (``deck`` alone), or one built from a table in the middle
        of a game: the parts given are taken, not copied (``copy``, and the analysis's
        sampled deals: ``engine.state_of``). The history starts empty either way (the rules
        only append to it)."""
        self.deck = deck
        self.lake_next = lake_next  # the lake is deck[lake_next:]
        # rank -> card, not a list of cards: "holds an r?" and "give the r" are one lookup,
        # no scan (docs/benchmarks.md); a dict keeps insertion order, the acquisition order.
        self.hands: list[dict[str, str]] = [{}, {}] if hands is None else hands
        self.pairs: list[list[str]] = [[], []] if pairs is None else pairs  # ranks, in the order formed
        self.pairs_by_rank = dict.fromkeys(RANKS, 0) if pairs_by_rank is None else pairs_by_rank
        self.turn = turn
        self.asks = [0, 0] if asks is None else asks
        # every ask: seat, rank, given, fished; tuples, as they are built on every replay
        self.history: list[tuple[int, str, bool, bool]] = []
        # the asks (indices in history) whose go fish drew the rank asked for: the mover saw
        # the card, and the pair it formed at once told the table (the share's blue square)
        self.caught: set[int] = set()
        # the opponent's knowledge of the player's hand, which its choice reads
        self.knowledge = Knowledge(PLAYER) if knowledge is None else knowledge
        self.over = over
        self.opening_events: list[Event] = []  # the deal plays nothing that a seat sees

    def copy(self) -> PecheState:
        """A state to play on without touching this one (a search's): the deck shared (the
        rules never write it), everything else copied; the history starts empty and no
        caught asks."""
        return PecheState(
            self.deck,
            self.lake_next,
            [dict(self.hands[0]), dict(self.hands[1])],
            [list(self.pairs[0]), list(self.pairs[1])],
            dict(self.pairs_by_rank),
            list(self.asks),
            self.knowledge.copy(),
            self.turn,
            self.over,
        )

    @property
    def lake_size(self) -> int:
        return 52 - self.lake_next

    @property
    def lake(self) -> list[str]:
        """The lake's cards, the next one drawn first (face up: a finished day only)."""
        return self.deck[self.lake_next :]


class Observer:
    """What the loop tells whoever watches a game, step by step in play order. Every hook
    is a no-op here: override the ones needed. A hook reads the state and never changes it.

    Hooks: ``before_ask`` (the player is about to ask ``rank``: checked, not yet played);
    ``choice`` (the opponent chose ``rank``; its ask follows); ``asked`` (``seat`` asked
    ``rank``; ``given`` is the card handed over or None; the card moves, then the fish is
    drawn if ``fished``, after this hook); ``drew`` (``seat`` took the lake's top card);
    ``received`` (a card joined ``seat``'s hand, from the deck or given; ``paired``: it
    paired at once); ``passed`` (``seat`` had no card and the lake was empty); ``ended``.
    """

    __slots__ = ()

    def before_ask(self, state: PecheState, rank: str) -> None:
        pass

    def choice(self, state: PecheState, rank: str) -> None:
        pass

    def asked(self, state: PecheState, seat: int, rank: str, given: str | None, fished: bool) -> None:
        pass

    def drew(self, state: PecheState, seat: int, card: str, reason: str) -> None:
        pass

    def received(self, state: PecheState, seat: int, card: str, from_deck: bool, paired: bool) -> None:
        pass

    def passed(self, state: PecheState, seat: int) -> None:
        pass

    def ended(self, state: PecheState) -> None:
        pass


class Knowledge(Observer):
    """What one seat knows of the other's hand, ``of`` (the seat whose hand it is), from
    public facts only, as a perfect-memory player keeps it: the rules' opponent's knowledge
    of the player's hand (``state.knowledge``, which its choice reads), and the player's of
    the opponent's (the analysis's rollouts, the simulated players). ``gofish.Knowledge``
    keeps every seat's of the others' in Go Fish.

    ``known``: ranks that seat must hold (it asked them and has not paired or given them
    since); ``absent[r]``: the value of ``draws`` when it was last known to hold no r;
    ``draws``: the deck cards it received that did not pair at once, so a rank absent k
    draws ago can only be among its k newest cards.

    An observer: the rules tell the state's of each step as they play it, before any other
    observer (whose hooks may read it); anyone else's watches the loop like any observer.
    """

    __slots__ = ("of", "known", "absent", "draws")

    def __init__(
        self, of: int, known: set[str] | None = None, absent: dict[str, int] | None = None, draws: int = 0
    ) -> None:
        self.of = of
        self.known: set[str] = set() if known is None else known
        self.absent: dict[str, int] = {} if absent is None else absent
        self.draws = draws

    def copy(self) -> Knowledge:
        return Knowledge(self.of, set(self.known), dict(self.absent), self.draws)

    def snapshot(self) -> dict[str, Any]:
        return {
            "known": sorted(self.known, key=RANKS.index),
            "absent": dict(self.absent),
            "draws": self.draws,
        }

    def choice(self, state: PecheState, rank: str) -> None:
        """Of the opponent, one more public fact: it asks a rank it knows the player holds
        whenever it holds one (the rules' choice), so choosing another tells it holds none
        of those it is not known to hold."""
        if self.of != OPPONENT:
            return
        shown = state.knowledge.known
        if rank not in shown:
            known = self.known
            for r in shown:
                if r not in known:
                    self.absent[r] = self.draws

    def asked(self, state: PecheState, seat: int, rank: str, given: str | None, fished: bool) -> None:
        if seat == self.of:
            self.known.add(rank)  # it holds one to ask (a card given pairs it: ``received``)
        else:
            # Whether or not it had one, afterwards it holds none.
            self.known.discard(rank)
            self.absent[rank] = self.draws

    def received(self, state: PecheState, seat: int, card: str, from_deck: bool, paired: bool) -> None:
        if seat != self.of:
            return
        if paired:
            rank = RANK_OF[card]
            self.known.discard(rank)
            self.absent[rank] = self.draws
        elif from_deck:
            self.draws += 1


class Observers(Observer):
    """Several observers of one game, each told every step in the order given."""

    __slots__ = ("observers",)

    def __init__(self, *observers: Observer) -> None:
        self.observers = observers

    def before_ask(self, state: PecheState, rank: str) -> None:
        for o in self.observers:
            o.before_ask(state, rank)

    def choice(self, state: PecheState, rank: str) -> None:
        for o in self.observers:
            o.choice(state, rank)

    def asked(self, state: PecheState, seat: int, rank: str, given: str | None, fished: bool) -> None:
        for o in self.observers:
            o.asked(state, seat, rank, given, fished)

    def drew(self, state: PecheState, seat: int, card: str, reason: str) -> None:
        for o in self.observers:
            o.drew(state, seat, card, reason)

    def received(self, state: PecheState, seat: int, card: str, from_deck: bool, paired: bool) -> None:
        for o in self.observers:
            o.received(state, seat, card, from_deck, paired)

    def passed(self, state: PecheState, seat: int) -> None:
        for o in self.observers:
            o.passed(state, seat)

    def ended(self, state: PecheState) -> None:
        for o in self.observers:
            o.ended(state)
