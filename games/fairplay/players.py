"""Simulated Pêche players, honest and not, for the detector's tests and benchmark.

An honest player sees only a ``Table``: its ranks in hand order, the ranks the opponent is
known to hold (it asked them, was refused, and has not paired or given them since), the
copies of each rank it has not seen, and the table's chances (``posterior``). Nothing there
reads an opponent card. A cheater also gets ``Truth``: the opponent's hand, and a solver
that searches the whole deal.

``PANEL`` is the honest-policy panel the detector's guarantee is measured on: fixed habits
with and without memory, random, greedy and soft-max on the table's chances; ``CHEATERS``
the players it should catch. Each is ``(name, chooser)``; a chooser takes
``(table, truth, rng)`` and honest ones never read ``truth``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from games.rules import peche
from games.rules.cards import RANK_INDEX, shuffled_deck
from games.rules.peche import OPPONENT, PLAYER, Observer, PecheState

from .detector import GameAssessment, Watcher


class Memory(Observer):
    """The ranks the opponent must hold, from public facts: it asked them and was refused;
    gone when it pairs one or gives it away."""

    __slots__ = ("known",)

    def __init__(self) -> None:
        self.known: set[str] = set()

    def asked(self, state: PecheState, seat: int, rank: str, given: str | None, fished: bool) -> None:
        if seat == OPPONENT and given is None:
            self.known.add(rank)
        else:
            self.known.discard(rank)

    def received(self, state: PecheState, seat: int, card: str, from_deck: bool, paired: bool) -> None:
        if seat == OPPONENT and paired:
            self.known.discard(card[:-1])


class Table:
    """What an honest player may look at."""

    __slots__ = ("_state", "_memory", "_watcher")

    def __init__(self, state: PecheState, memory: Memory, watcher: Watcher) -> None:
        self._state, self._memory, self._watcher = state, memory, watcher

    def ranks(self) -> tuple[str, ...]:
        return tuple(self._state.hands[PLAYER])

    def known(self) -> set[str]:
        return set(self._memory.known)

    def unseen(self, rank: str) -> int:
        """Copies of ``rank`` (one in hand) the player has not seen: in the opponent's hand or the lake."""
        return 3 - 2 * self._state.pairs_by_rank[rank]

    def chances(self, ranks: tuple[str, ...]) -> tuple[float, ...]:
        return self._watcher.chances(ranks)


class Truth:
    """What only a cheater reads."""

    __slots__ = ("_state",)

    def __init__(self, state: PecheState) -> None:
        self._state = state

    def held(self, ranks: tuple[str, ...]) -> list[str]:
        hand = self._state.hands[OPPONENT]
        return [r for r in ranks if r in hand]

    def solver(self) -> tuple[str, ...]:
        return solver_moves(self._state)


Chooser = Callable[[Table, Truth, random.Random], str]


# --- Honest habits ---------------------------------------------------------------------

Tie = Callable[[list[str], random.Random], str]
TIES: dict[str, Tie] = {
    "leftmost": lambda ranks, rng: ranks[0],
    "rightmost": lambda ranks, rng: ranks[-1],
    "highest": lambda ranks, rng: max(ranks, key=RANK_INDEX.__getitem__),
    "lowest": lambda ranks, rng: min(ranks, key=RANK_INDEX.__getitem__),
    "random": lambda ranks, rng: rng.choice(ranks),
}


def expert(tie: str) -> Chooser:
    """Perfect memory: a rank the opponent is known to hold, else one with the most copies
    unseen; ties by a habit."""
    pick = TIES[tie]

    def choose(table: Table, truth: Truth, rng: random.Random) -> str:
        ranks = table.ranks()
        known = table.known()
        sure = [r for r in ranks if r in known]
        if sure:
            return pick(sure, rng)
        most = max(table.unseen(r) for r in ranks)
        return pick([r for r in ranks if table.unseen(r) == most], rng)

    return choose


def habit(tie: str) -> Chooser:
    """No memory: always the same place in the hand (or the same end of the ranks)."""
    pick = TIES[tie]
    return lambda table, truth, rng: pick(list(table.ranks()), rng)


def greedy(tie: str) -> Chooser:
    """The strongest table-only player: a rank with the table's highest chance; ties by a habit."""
    pick = TIES[tie]

    def choose(table: Table, truth: Truth, rng: random.Random) -> str:
        ranks = table.ranks()
        chances = table.chances(ranks)
        top = max(chances)
        return pick([r for r, c in zip(ranks, chances) if c >= top - 1e-12], rng)

    return choose


def soft_max(beta: float) -> Chooser:
    """Usually the likeliest rank, sometimes a hunch."""

    def choose(table: Table, truth: Truth, rng: random.Random) -> str:
        ranks = table.ranks()
        chances = table.chances(ranks)
        top = max(chances)
        return rng.choices(ranks, [math.exp(beta * (c - top)) for c in chances])[0]

    return choose


def uniform(table: Table, truth: Truth, rng: random.Random) -> str:
    return rng.choice(table.ranks())


PANEL: tuple[tuple[str, Chooser], ...] = (
    ("random", uniform),
    *((f"memory, ties {tie}", expert(tie)) for tie in TIES),
    *((f"no memory, always {tie}", habit(tie)) for tie in TIES if tie != "random"),
    ("greedy on chances, ties leftmost", greedy("leftmost")),
    ("greedy on chances, ties random", greedy("random")),
    ("soft-max β 5", soft_max(5.0)),
    ("soft-max β 15", soft_max(15.0)),
)


# --- Cheaters ----------------------------------------------------------------------------


def peeker(rate: float, base: Chooser) -> Chooser:
    """On a share ``rate`` of its asks, a rank the opponent holds (if any); else ``base``."""

    def choose(table: Table, truth: Truth, rng: random.Random) -> str:
        if rng.random() < rate:
            held = truth.held(table.ranks())
            if held:
                return rng.choice(held)
        return base(table, truth, rng)

    return choose


def solver_guided(rate: float) -> Chooser:
    """On a share ``rate`` of its asks, the solver's move; else at random."""

    def choose(table: Table, truth: Truth, rng: random.Random) -> str:
        if rng.random() < rate:
            return rng.choice(truth.solver())
        return rng.choice(table.ranks())

    return choose


CHEATERS: tuple[tuple[str, Chooser], ...] = (
    ("full knowledge", peeker(1.0, uniform)),
    ("peek 70 %, random otherwise", peeker(0.7, uniform)),
    ("peek 70 %, memory otherwise", peeker(0.7, expert("random"))),
    ("peek 50 %, random otherwise", peeker(0.5, uniform)),
    ("peek 50 %, memory otherwise", peeker(0.5, expert("random"))),
    ("solver 70 %, random otherwise", solver_guided(0.7)),
    ("solver 50 %, random otherwise", solver_guided(0.5)),
)


# --- The solver: a search over the whole deal ------------------------------------------

SOLVER_DEPTH = 3


def _line_value(state: PecheState, depth: int) -> int:
    """The best pair difference (player − opponent) reachable within ``depth`` asks."""
    if state.over or depth == 0:
        return len(state.pairs[PLAYER]) - len(state.pairs[OPPONENT])
    best = -peche.ALL_PAIRS
    for rank in list(state.hands[PLAYER]):
        twin = state.copy()
        peche.ask(twin, rank)
        best = max(best, _line_value(twin, depth - 1))
    return best


def solver_moves(state: PecheState, depth: int = SOLVER_DEPTH) -> tuple[str, ...]:
    """The asks that lead to the best pair difference within ``depth`` asks, the
    opponent's replies played by the rules: a solver that knows the deal. Hand order."""
    values = {}
    for rank in list(state.hands[PLAYER]):
        twin = state.copy()
        peche.ask(twin, rank)
        values[rank] = _line_value(twin, depth - 1)
    top = max(values.values())
    return tuple(rank for rank, value in values.items() if value == top)


# --- Playing ---------------------------------------------------------------------------


def play(
    deck: list[str], chooser: Chooser, rng: random.Random, *, draws: bool = False
) -> tuple[list[str], GameAssessment, Any]:
    """One game of ``chooser`` on ``deck``, judged as verification judges it (the same
    watcher, fed as it plays): the asks, the assessment and the outcome. ``draws``: the
    assessment's outcomes hold the draws from the lake too (not counted in its figure)."""
    watcher, memory = Watcher(draws=draws), Memory()
    observer = peche.Observers(watcher, memory)
    state = peche.deal(list(deck), observer)
    table, truth = Table(state, memory, watcher), Truth(state)
    moves = []
    while not state.over:
        rank = chooser(table, truth, rng)
        moves.append(rank)
        peche.ask(state, rank, observer)
    return moves, GameAssessment(watcher.asks, watcher.outcomes), peche.outcome_of(state)


def deal(name: str) -> list[str]:
    return shuffled_deck(name)
