"""The engine: what each rank in hand is worth at a position the player sees.

A rank's value is the expected final pair difference (player − opponent) if the player
asks it now and plays on well, over the deals consistent with what the table showed:

- the unseen cards (every card neither in the player's hand nor laid in a pair) are
  shared between the opponent's hand and the lake;
- a rank the opponent is known to hold (it asked for it and was refused, and has not
  laid it since) is placed in its hand;
- the ranks of the opponent's hand are drawn from the table's posterior, the fair-play
  package's (games/fairplay/posterior.py: every deal consistent with what the table showed,
  its asks, answers, pairs, draws and the opponent's choices, weighed exactly), the cards
  then from the unseen copies, in an order nobody knows;
- the opponent answers and asks exactly as the real one does (games/rules/peche.py plays
  every sampled deal), from its own knowledge of the player's hand, which is public.

Each deal is sampled once and every candidate is played on it (common random numbers: the
difference between two ranks is not drowned by the deal's own luck). After the candidate
ask, both sides play on by fixed policies: the opponent is the real one, the player a
perfect-memory player (``memory_choice``: a rank the opponent is known to hold, else the
likeliest, a rank already shown first on a tie). The rollouts use no randomness: only the
deal sampled is random, from a generator the caller seeds (``game`` seeds it from the
deal's seed and the ask's index, so a figure never changes between two views).

The engine's own ask (``choose``): a sure pair at once; else the best-valued rank when it
leads the perfect-memory choice by GATE or more, the perfect-memory choice otherwise.
Its strength and cost: docs/benchmarks.md, "The analysis engine".
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from games.fairplay.posterior import Posterior
from games.rules import peche
from games.rules.cards import RANK_OF, SUITS
from games.rules.peche import OPPONENT, PLAYER, Knowledge, PecheState

# Deals sampled per position: a whole game's analysis in ~1 s of one core (the budget is
# 2 s: docs/benchmarks.md, "Analysis"); the standard error of the difference between two
# ranks is then ~0.1 pair on the first asks (common random numbers), less later.
SAMPLES = 128
# A rank's lead the engine trusts (engine_choice), in pairs: above the sampling's noise.
GATE = 0.15


@dataclass(frozen=True, slots=True)
class Table:
    """What the player sees at its turn: its hand (rank → card, in hand order), the sizes
    of the opponent's hand and of the lake, the pairs laid, the asks made, the opponent's
    knowledge of the player's hand (public: built from public facts only), the player's
    of the opponent's (both ``peche.Knowledge``) and the table's posterior over its hand (read,
    never changed, while the position is valued). Nothing here is an opponent card."""

    hand: tuple[tuple[str, str], ...]
    opponent_hand: int
    lake: int
    pairs: tuple[tuple[str, ...], tuple[str, ...]]
    pairs_by_rank: tuple[tuple[str, int], ...]
    asks: tuple[int, int]
    # the opponent's knowledge of the player (state.knowledge)
    shown: frozenset[str]
    shown_absent: tuple[tuple[str, int], ...]
    shown_draws: int
    # the player's knowledge of the opponent (the follower's)
    held: frozenset[str]
    lacks: tuple[tuple[str, int], ...]  # rank → the opponent's draws when it was known to lack it
    draws: int
    posterior: Posterior = field(compare=False)

    @property
    def ranks(self) -> tuple[str, ...]:
        return tuple(rank for rank, _ in self.hand)

    def memory(self) -> Knowledge:
        """The rollout player's knowledge of the opponent's hand at this table."""
        return Knowledge(OPPONENT, set(self.held), dict(self.lacks), self.draws)

    def sure(self) -> tuple[str, ...]:
        """The ranks in hand that the opponent is known to hold: sure pairs."""
        return tuple(rank for rank, _ in self.hand if rank in self.held)


def table_of(state: PecheState, follower: Follower) -> Table:
    """The table the player sees in ``state`` (its turn), with what ``follower`` kept of the
    game. Reads the opponent's hand's size only, never its cards."""
    theirs = state.knowledge
    mine = follower.knowledge
    return Table(
        hand=tuple(state.hands[PLAYER].items()),
        opponent_hand=len(state.hands[OPPONENT]),
        lake=state.lake_size,
        pairs=(tuple(state.pairs[PLAYER]), tuple(state.pairs[OPPONENT])),
        pairs_by_rank=tuple(state.pairs_by_rank.items()),
        asks=(state.asks[PLAYER], state.asks[OPPONENT]),
        shown=frozenset(theirs.known),
        shown_absent=tuple(theirs.absent.items()),
        shown_draws=theirs.draws,
        held=frozenset(mine.known),
        lacks=tuple(mine.absent.items()),
        draws=mine.draws,
        posterior=follower.posterior,
    )


def _unseen(table: Table) -> dict[str, list[str]]:
    """The unseen cards by rank (suits are the rules' labels only: any unused ones do)."""
    mine = dict(table.hand)
    out = {}
    for rank, pairs in table.pairs_by_rank:
        count = 4 - 2 * pairs - (rank in mine)
        if count > 0:
            taken = mine.get(rank)
            out[rank] = [c for c in (rank + s for s in SUITS) if c != taken][:count]
    return out


def sample(table: Table, rng: random.Random) -> tuple[list[str], list[str]]:
    """One deal consistent with the table: the opponent's hand (cards) and the lake (in
    drawing order)."""
    unseen = _unseen(table)
    ranks = table.posterior.sample(rng)
    rng.shuffle(ranks)  # its hand's order, which the table does not show
    hand = []
    for rank in ranks:
        cards = unseen[rank]
        hand.append(cards.pop(rng.randrange(len(cards))))
    lake = [card for cards in unseen.values() for card in cards]
    rng.shuffle(lake)
    assert len(lake) == table.lake, "the unseen cards are the opponent's hand and the lake"
    return hand, lake


def state_of(table: Table, hand: Sequence[str], lake: Sequence[str]) -> PecheState:
    """A playable state: the table with a sampled opponent hand and lake."""
    deck = [""] * (52 - len(lake)) + list(lake)  # the cards before the lake are never read again
    return PecheState(
        deck,
        52 - len(lake),
        [dict(table.hand), {RANK_OF[c]: c for c in hand}],
        [list(table.pairs[0]), list(table.pairs[1])],
        dict(table.pairs_by_rank),
        list(table.asks),
        Knowledge(PLAYER, set(table.shown), dict(table.shown_absent), table.shown_draws),
    )


class Follower(peche.Observers):
    """What the analysis keeps of a game as it is played, from public facts only: the
    table's posterior over the opponent's hand and the perfect-memory player's knowledge of
    it."""

    __slots__ = ("posterior", "knowledge")

    def __init__(self, posterior: Posterior | None = None, knowledge: Knowledge | None = None) -> None:
        self.posterior = Posterior() if posterior is None else posterior
        self.knowledge = Knowledge(OPPONENT) if knowledge is None else knowledge
        super().__init__(self.posterior, self.knowledge)

    def fork(self) -> Follower:
        """A follower that goes on from here without touching this one (a position several
        games share: ``game.analyse_many``)."""
        return Follower(self.posterior.fork(), self.knowledge.copy())


def memory_choice(
    hand: Iterable[str], opponent_hand: int, shown: Collection[str], pairs: dict[str, int], memory: Knowledge
) -> str:
    """A perfect-memory player's ask: a rank the opponent is known to hold; else the
    likeliest in its hand by the slots that may hold it (its newest cards since it was last
    known to lack the rank) and the rank's unseen copies, a rank the opponent already knows
    the player holds first on a tie (asking it shows nothing new), then hand order."""
    held = memory.known
    for rank in hand:
        if rank in held:
            return rank
    lacked = memory.absent
    draws = memory.draws
    m = opponent_hand - len(held)
    best, best_key = "", (-1.0, False)
    for rank in hand:
        at = lacked.get(rank)
        slots = m if at is None or draws - at > m else draws - at
        # 1 − (1 − c/U)^k orders as the exact chance does for the few slots and copies
        # here, nearly, without its cost in every rollout step (U = 40: any constant
        # above the copies keeps the order).
        copies = 3 - 2 * pairs[rank]
        key = (1.0 - (1.0 - copies / 40) ** slots, rank in shown)
        if key > best_key:
            best, best_key = rank, key
    return best


def play_out(state: PecheState, memory: Knowledge) -> int:
    """Both sides play to the end (the opponent by the rules, the player by the rollout
    policy, ``memory_choice``); the final pair difference."""
    # The rules change the hands, the opponent's knowledge and the pairs in place: read once
    # here, not at every ask of the rollouts (the analysis's hot path).
    mine, theirs = state.hands
    shown = state.knowledge.known
    pairs = state.pairs_by_rank
    while not state.over:
        peche.ask(state, memory_choice(mine, len(theirs), shown, pairs, memory), memory)
    return len(state.pairs[PLAYER]) - len(state.pairs[OPPONENT])


def values(table: Table, rng: random.Random, samples: int = SAMPLES) -> dict[str, float]:
    """Each rank in hand → the expected final pair difference if asked now, over ``samples``
    deals consistent with the table, every rank played on the same deals."""
    ranks = table.ranks
    totals = dict.fromkeys(ranks, 0)
    for _ in range(samples):
        hand, lake = sample(table, rng)
        for rank in ranks:
            state = state_of(table, hand, lake)
            memory = table.memory()
            peche.ask(state, rank, memory)
            totals[rank] += play_out(state, memory)
    return {rank: totals[rank] / samples for rank in ranks}


def best_of(table: Table, found: dict[str, float]) -> str:
    """The best rank of ``found``: the highest value; a sure pair first on a tie, then hand
    order."""
    sure = set(table.sure())
    return max(table.ranks, key=lambda r: (found[r], r in sure, -table.ranks.index(r)))


def engine_choice(table: Table, found: dict[str, float]) -> str:
    """The engine's ask from the values ``found``: the best rank, unless it leads the perfect-
    memory player's choice (``memory_choice``) by less than GATE, the sampling's noise
    between two ranks: most ranks' true values differ by a few hundredths of a pair, and
    a lead that small is the deals drawn, not the rank."""
    best = best_of(table, found)
    pairs = dict(table.pairs_by_rank)
    plain = memory_choice(table.ranks, table.opponent_hand, table.shown, pairs, table.memory())
    return best if found[best] - found[plain] >= GATE else plain


def choose(table: Table, rng: random.Random, samples: int = SAMPLES) -> str:
    """The engine's ask. A sure pair is taken at once: it gains a pair, keeps the turn and
    shows nothing new, and waiting only risks the opponent asking the player for it."""
    sure = table.sure()
    if sure:
        return sure[0]
    if len(table.hand) == 1:
        return table.hand[0][0]
    return engine_choice(table, values(table, rng, samples))
