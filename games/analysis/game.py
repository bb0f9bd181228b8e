"""A finished game analysed, and a deal played by the engine (the day's par).

Each ask of the player is valued at the table it was made from (``engine.values``: the
expected final pair difference of each rank in hand if asked then and played on well).
The ``best`` ask is the highest-valued rank (a sure pair first), its ``loss`` how many
expected pairs the player's ask gave up against it; its label, from the loss as shown (to a
tenth of a pair):

- inaccuracy: a loss of at least INACCURACY pairs, mistake: MISTAKE, blunder: BLUNDER;
- an ask that left a sure pair in hand (a rank the opponent was known to hold: it asked
  for it, was refused and has not laid it) is at least an inaccuracy: the best ask is then
  the sure pair (a pair gained, the turn kept, nothing new shown; waiting only lets the
  opponent ask for it).

Each ask also says why, from what the table showed (``reason``: what the lessons said
before): ``sure_pair`` (a sure pair was left in hand), ``impossible`` (the opponent could
not hold the rank asked), ``weak`` (a rank likelier by WEAK_GAP was in hand), with the
table's chances (games/fairplay/posterior.py).

The game's ``accuracy`` is the mean over the asks that were a choice (two ranks or more
in hand) of 100 · exp(−loss / ACCURACY_SCALE): an ask as good as the best scores 100, one
that gives up a pair 37. ``luck`` is the result (the final pair difference) minus what
the engine expected from the player's choices: the value of its first ask, less the
losses of the asks after it; what is left is the cards.

Every figure is seeded by the deal's seed and the ask's index, so the same game always
gets the same figures, and two games that share their first asks share those asks' figures.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games.rules import peche
from games.rules.base import deck_for
from games.rules.peche import OPPONENT, PLAYER, PecheState

from . import engine

# The figures' version: a stored analysis or par of another version is worked out again
# (raise it when the engine or the thresholds change what they give).
VERSION = 2  # 2: the best ask is the highest-valued rank (was the engine's gated choice)
# Thresholds in expected pairs (a pair is 30 points of score). The engine's figures carry
# sampling noise of ~0.1–0.2 pairs between two ranks: below INACCURACY a loss is not told
# apart from noise.
INACCURACY = 0.3
MISTAKE = 0.7
BLUNDER = 1.5
ACCURACY_SCALE = 1.0
# The lessons' thresholds, kept: chances are floats, "certain" and "impossible" up to
# rounding; a likelier rank by WEAK_GAP: asking the other one mostly told the opponent.
SURE = 0.999
NONE = 0.001
WEAK_GAP = 0.25


@dataclass(frozen=True, slots=True)
class AskAnalysis:
    index: int  # 0-based ask of the player
    rank: str  # asked
    best: str  # the best ask at that table: a sure pair, else the highest-valued rank
    values: dict[str, float]  # rank in hand → expected final pair difference if asked
    loss: float  # values[best] − values[rank], in expected pairs (≥ 0)
    label: str | None  # "inaccuracy" | "mistake" | "blunder"
    chances: dict[str, float]  # rank in hand → public chance that the opponent holds one
    reason: str | None  # "sure_pair" | "impossible" | "weak": what the table showed
    choice: bool  # two ranks or more in hand

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "rank": self.rank,
            "best": self.best,
            "values": {r: round(v, 2) for r, v in self.values.items()},
            "loss": round(self.loss, 2),
            "label": self.label,
            "chances": {r: round(c, 3) for r, c in self.chances.items()},
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    asks: tuple[AskAnalysis, ...]
    accuracy: float  # %
    expected: float  # the pair difference the engine expected from the player's choices
    result: int  # the final pair difference
    luck: float = field(default=0.0)  # result − expected, in pairs

    def as_dict(self) -> dict[str, Any]:
        return {
            "accuracy": round(self.accuracy, 1),
            "luck": round(self.luck, 2),
            "expected": round(self.expected, 2),
            "result": self.result,
            "asks": [a.as_dict() for a in self.asks],
        }


def label_of(loss: float) -> str | None:
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return None


def _reason(asked: str, chances: dict[str, float]) -> str | None:
    """What the table showed against the ask (the lessons' kinds), or None."""
    better = max(chances, key=lambda r: chances[r])
    if better == asked or chances[better] - chances[asked] < NONE:
        return None
    if chances[better] >= SURE:
        return "sure_pair"
    if chances[asked] <= NONE:
        return "impossible"
    if chances[better] - chances[asked] >= WEAK_GAP:
        return "weak"
    return None


def rng_for(seed: str, index: int) -> random.Random:
    # A string seeds random.Random through SHA-512: the same in every process.
    return random.Random(f"analysis:{seed}:{index}")


@dataclass(frozen=True, slots=True)
class Position:
    """What the analysis finds at a table, whatever the player then asks: each rank's value,
    the sure pairs, the engine's ask and the table's chances (worked out once for every game
    that reached it: ``analyse_many``)."""

    ranks: tuple[str, ...]
    values: dict[str, float]
    sure: tuple[str, ...]
    engine: str  # the best ask: a sure pair, else the highest-valued rank
    chances: dict[str, float]


def position(state: PecheState, follower: engine.Follower, seed: str, index: int, samples: int) -> Position:
    """The position at the player's turn in ``state``, its ``index``-th ask (the table only
    is read; the follower's posterior names the ranks in hand, as every read of it does)."""
    table = engine.table_of(state, follower)
    found = engine.values(table, rng_for(seed, index), samples)
    sure = table.sure()
    # The engine's ask here is the highest bar of the chart (a sure pair first: the reason
    # says so in words); the engine playing its own game (the par) trusts a lead only above
    # the noise (engine.choose), and a player is measured against the bar, not that habit.
    best = sure[0] if sure else engine.best_of(table, found)
    ranks = table.ranks
    return Position(ranks, found, sure, best, dict(zip(ranks, follower.posterior.chances(ranks))))


def judged(at: Position, index: int, asked: str) -> AskAnalysis:
    """The ask ``asked`` at the position ``at``."""
    found, sure = at.values, at.sure
    # The engine's own ask, a sure pair the player took being as good as any.
    best = asked if asked in sure else at.engine
    loss = max(0.0, found[best] - found[asked])
    if sure and asked not in sure:
        loss = max(loss, INACCURACY)
    # Labelled as shown (to a tenth of a pair): "1.5 pairs" is never a mere mistake.
    shown = round(loss, 1)
    choice = len(at.ranks) > 1
    return AskAnalysis(
        index=index,
        rank=asked,
        best=best,
        values=found,
        loss=loss if choice else 0.0,
        label=label_of(shown) if choice else None,
        chances=at.chances,
        reason=_reason(asked, at.chances) if choice else None,
        choice=choice,
    )


def ask_analysis(
    state: PecheState, follower: engine.Follower, seed: str, index: int, asked: str, samples: int
) -> AskAnalysis:
    """The ask ``asked`` at the player's turn in ``state`` (the table only is read)."""
    return judged(position(state, follower, seed, index, samples), index, asked)


def _summary(asks: list[AskAnalysis], state: PecheState) -> GameAnalysis:
    result = len(state.pairs[PLAYER]) - len(state.pairs[OPPONENT])
    scored = [a for a in asks if a.choice]
    accuracy = 100.0 * sum(math.exp(-a.loss / ACCURACY_SCALE) for a in scored) / len(scored) if scored else 100.0
    expected = (asks[0].values[asks[0].rank] - sum(a.loss for a in asks[1:])) if asks else float(result)
    return GameAnalysis(tuple(asks), accuracy, expected, result, result - expected)


def analyse(
    seed: str, moves: list[str], *, deck: list[str] | None = None, samples: int = engine.SAMPLES
) -> GameAnalysis:
    """A finished game analysed (ReplayError as ENGINE.replay for moves the rules refuse)."""
    peche.ENGINE.replay({"seed": seed, "deck": deck}, moves)  # ReplayError before any search
    follower = engine.Follower()
    state = peche.deal(deck_for(seed, deck), follower)
    asks = []
    for index, move in enumerate(moves):
        asks.append(ask_analysis(state, follower, seed, index, move, samples))
        peche.ask(state, move, follower)
    return _summary(asks, state)


def analyse_many(
    seed: str,
    lines: Sequence[Sequence[str]],
    *,
    deck: list[str] | None = None,
    samples: int = engine.SAMPLES,
    known: dict[tuple[str, ...], Position] | None = None,
) -> list[GameAnalysis]:
    """A day's games analysed together: in order, exactly what ``analyse`` returns for each
    alone, each position the games share worked out once. A game is its deal and its asks,
    so the games that made the same first asks stand at the same table, and the figures of
    an ask are seeded by the deal and the ask's index: the same operations in the same
    order, whichever game is analysed first (tests/games/test_analysis.py). The positions
    are walked as a tree of the lines, depth first (a follower and a state forked at each
    branch). ``known``: positions worked out before (the asks that led there → Position),
    for the same deal and samples, read and added to (a worker keeps them for the day:
    the next batch, the next reader's game). ReplayError, as ``analyse``, for the first
    line the rules refuse."""
    for moves in lines:
        peche.ENGINE.replay({"seed": seed, "deck": deck}, list(moves))
    asks: list[list[AskAnalysis]] = [[] for _ in lines]
    results: list[GameAnalysis | None] = [None] * len(lines)
    follower = engine.Follower()
    state = peche.deal(deck_for(seed, deck), follower)
    # (state, follower, depth, the indices of the lines through this position)
    stack = [(state, follower, 0, list(range(len(lines))))]
    while stack:
        state, follower, depth, through = stack.pop()
        ended = [i for i in through if len(lines[i]) == depth]
        for i in ended:
            results[i] = _summary(asks[i], state)
        going = [i for i in through if len(lines[i]) > depth]
        if not going:
            continue
        key = tuple(lines[going[0]][:depth])
        found = None if known is None else known.get(key)
        if found is None:
            at = position(state, follower, seed, depth, samples)
            if known is not None:
                known[key] = at
        else:
            # Working a position out changes nothing in the follower (its reads of the
            # posterior name only ranks in hand, named when the player saw them).
            at = found
        by_rank: dict[str, list[int]] = {}
        for i in going:
            by_rank.setdefault(lines[i][depth], []).append(i)
        for rank, group in by_rank.items():
            answer = judged(at, depth, rank)
            for i in group:
                asks[i].append(answer)
            if len(by_rank) == 1:
                twin, twin_follower = state, follower  # no other branch needs this one
            else:
                twin, twin_follower = state.copy(), follower.fork()
            peche.ask(twin, rank, twin_follower)
            stack.append((twin, twin_follower, depth + 1, group))
    return [r for r in results if r is not None]


def engine_game(seed: str, *, deck: list[str] | None = None, samples: int = engine.SAMPLES) -> PecheState:
    """The engine plays the deal from the table alone (its asks seeded as the analysis's)."""
    follower = engine.Follower()
    state = peche.deal(deck_for(seed, deck), follower)
    index = 0
    while not state.over:
        rank = engine.choose(engine.table_of(state, follower), rng_for(seed, index), samples)
        peche.ask(state, rank, follower)
        index += 1
    return state


def par(seed: str, *, deck: list[str] | None = None, samples: int = engine.SAMPLES) -> dict[str, Any]:
    """The day's par: the engine's score on the deal, and its asks (anyone may replay them)."""
    state = engine_game(seed, deck=deck, samples=samples)
    outcome = peche.outcome_of(state)
    moves = [rank for seat, rank, _, _ in state.history if seat == PLAYER]
    return {"score": outcome.score, "pairs": list(outcome.counts), "moves": moves}
