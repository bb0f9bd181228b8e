"""Simulated Pêche players, honest and not, for the detector's tests and benchmark.

An honest player sees only a ``Table``: its ranks in hand order, the ranks the opponent is
known to hold (it asked them, was refused, and has not paired or given them since), the
copies of each rank it has not seen, and the table's chances (``posterior``). Nothing there
reads an opponent card. A cheater also gets ``Truth``: the opponent's hand, and a solver
that searches the whole deal.

``PANEL`` is the honest-policy panel the detector's guarantee is measured on: fixed habits
with and without memory, random, greedy and soft-max on the table's chances; ``ADVERSARIES``
table-only policies built to break that guarantee (issue 47: a reader of the opponent's tie
order, greedy at the extremes, streaks); ``CHEATERS`` the players it should catch. Each is ``(name, chooser)``; a chooser takes
``(table, truth, rng)`` and honest ones never read ``truth``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from games.rules import peche
from games.rules.cards import RANK_INDEX, shuffled_deck
from games.rules.peche import OPPONENT, PLAYER, Knowledge, Observer, PecheState, opponent_miss

from .detector import SURE, GameAssessment, Watcher


class Passes(Observer):
    """How often each of the player's ranks was passed over by the opponent in a tie (the
    rules' chance of the rank it chose, ``peche.opponent_miss``, equal to this one's) while
    the rank it chose was one it is known to hold since an earlier ask (``known``: the
    player's knowledge of its hand, told of each step before this). The opponent breaks
    ties by its hand's order, the order its cards came in; a rank it held that long is
    likely to come first whatever else it holds, so such a pass says less against holding
    the passed rank than the table's approximation (every tied rank first alike) takes it
    to say. Public facts only: the rules' chances read the opponent's knowledge of the
    player's hand, and the player's own hand. Forgotten once the rank is asked or paired."""

    __slots__ = ("known", "passed_over")

    def __init__(self, known: Knowledge) -> None:
        self.known = known
        self.passed_over: dict[str, int] = {}

    def choice(self, state: PecheState, rank: str) -> None:
        shown = state.knowledge.known
        held = self.known.known
        if rank in shown or rank not in held:
            return  # the rule "a rank it knows the player holds" has no tie; or an undated rank
        n, d = opponent_miss(state, rank)
        for q in state.hands[PLAYER]:
            # a rank the opponent knows the player holds would have been asked first: not a tie
            if q == rank or q in shown or q in held:
                continue
            n2, d2 = opponent_miss(state, q)
            if n2 * d == n * d2:
                self.passed_over[q] = self.passed_over.get(q, 0) + 1

    def asked(self, state: PecheState, seat: int, rank: str, given: str | None, fished: bool) -> None:
        self.passed_over.pop(rank, None)

    def received(self, state: PecheState, seat: int, card: str, from_deck: bool, paired: bool) -> None:
        if paired:
            self.passed_over.pop(card[:-1], None)


class Table:
    """What an honest player may look at: the table, what it knows of the opponent's hand
    (``known``: a ``Knowledge(of=OPPONENT)``), the ties it saw passed over (``passes``) and the
    table's chances (``watcher``)."""

    __slots__ = ("_state", "_known", "_passes", "_watcher")

    def __init__(self, state: PecheState, known: Knowledge, passes: Passes, watcher: Watcher) -> None:
        self._state, self._known, self._passes, self._watcher = state, known, passes, watcher

    def ranks(self) -> tuple[str, ...]:
        return tuple(self._state.hands[PLAYER])

    def known(self) -> set[str]:
        return set(self._known.known)

    def unseen(self, rank: str) -> int:
        """Copies of ``rank`` (one in hand) the player has not seen: in the opponent's hand or the lake."""
        return 3 - 2 * self._state.pairs_by_rank[rank]

    def chances(self, ranks: tuple[str, ...]) -> tuple[float, ...]:
        return self._watcher.chances(ranks)

    def passed_over(self) -> dict[str, int]:
        """How often each rank was passed over in a tie against a rank the opponent held
        long (``Passes``)."""
        return dict(self._passes.passed_over)

    def history(self) -> tuple[tuple[int, str, bool, bool], ...]:
        """Every ask so far, as the player's view shows it: seat, rank, given, fished."""
        return tuple(self._state.history)


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


# --- Adversaries: table-only policies built to break the bound (issue 47) ---------------


def tie_reader_chances(table: Table, ranks: tuple[str, ...]) -> tuple[float, ...]:
    """The table's chances, each passed rank's odds doubled per pass (``Passes``):
    where the table took a pass for a two-way tie settled by a coin, the reader takes it
    for one settled by age, which says nothing against the passed rank."""
    passed = table.passed_over()
    out = []
    for rank, c in zip(ranks, table.chances(ranks)):
        tilt = 2.0 ** passed.get(rank, 0)
        out.append(c * tilt / (1.0 - c + c * tilt) if c < 1.0 else c)
    return tuple(out)


def tie_reader(table: Table, truth: Truth, rng: random.Random) -> str:
    """Greedy on the reader's chances (ties leftmost)."""
    ranks = table.ranks()
    chances = tie_reader_chances(table, ranks)
    top = max(chances)
    return next(r for r, c in zip(ranks, chances) if c >= top - 1e-12)


def tie_exploit(table: Table, truth: Truth, rng: random.Random) -> str:
    """Where the reader most disagrees with the table (its chance most above the
    table's); greedy on the table where they agree."""
    ranks = table.ranks()
    gaps = [mine - table_chance for mine, table_chance in zip(tie_reader_chances(table, ranks), table.chances(ranks))]
    top = max(gaps)
    if top <= 1e-12:
        return greedy("leftmost")(table, truth, rng)
    return ranks[gaps.index(top)]


def lowest_chance(table: Table, truth: Truth, rng: random.Random) -> str:
    """The rank with the lowest chance that is not nil (the table's tail, where an error
    in its chances weighs most); leftmost when every chance is nil."""
    ranks = table.ranks()
    alive = [(c, i) for i, c in enumerate(table.chances(ranks)) if c > SURE]
    return ranks[min(alive)[1]] if alive else ranks[0]


def repeat_hit(table: Table, truth: Truth, rng: random.Random) -> str:
    """Streaky: the rank of its latest hit that it holds again (a rank pairs twice in a
    deal), else greedy."""
    ranks = table.ranks()
    for seat, rank, given, _ in reversed(table.history()):
        if seat == PLAYER and given and rank in ranks:
            return rank
    return greedy("leftmost")(table, truth, rng)


def switch_on_miss(table: Table, truth: Truth, rng: random.Random) -> str:
    """Streaky: a place in its hand, kept while it hits and moved one card right after
    each miss."""
    ranks = table.ranks()
    misses = sum(1 for seat, _, given, _ in table.history() if seat == PLAYER and not given)
    return ranks[misses % len(ranks)]


ADVERSARIES: tuple[tuple[str, Chooser], ...] = (
    ("tie-order reader", tie_reader),
    ("tie-order exploit", tie_exploit),
    ("greedy on chances, ties highest rank", greedy("highest")),
    ("lowest non-zero chance", lowest_chance),
    ("streaky, repeat the last hit", repeat_hit),
    ("streaky, switch after a miss", switch_on_miss),
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


def budgeted(threshold: float) -> Chooser:
    """A rank the opponent holds only where the table already gives it at least
    ``threshold`` (the likeliest such), else greedy on the table: a cheater who stays
    where a hit is unremarkable."""
    fallback = greedy("leftmost")

    def choose(table: Table, truth: Truth, rng: random.Random) -> str:
        ranks = table.ranks()
        held = set(truth.held(ranks))
        likely = [(c, -i) for i, (r, c) in enumerate(zip(ranks, table.chances(ranks))) if r in held and c >= threshold]
        if likely:
            return ranks[-max(likely)[1]]
        return fallback(table, truth, rng)

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
    watcher, known = Watcher(draws=draws), Knowledge(OPPONENT)
    passes = Passes(known)
    observer = peche.Observers(watcher, known, passes)
    state = peche.deal(list(deck), observer)
    table, truth = Table(state, known, passes, watcher), Truth(state)
    moves = []
    while not state.over:
        rank = chooser(table, truth, rng)
        moves.append(rank)
        peche.ask(state, rank, observer)
    return moves, GameAssessment(watcher.asks, watcher.outcomes), peche.outcome_of(state)


def field(deck: list[str], n: int, rng: random.Random) -> list[list[str]]:
    """A day's field on ``deck``: the asks of ``n`` games by the honest panel's players in
    turn (habits that repeat one another's lines, memory, greedy, soft-max, random)."""
    return [play(list(deck), PANEL[i % len(PANEL)][1], rng)[0] for i in range(n)]


def deal(name: str) -> list[str]:
    return shuffled_deck(name)
