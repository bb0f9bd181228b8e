"""Clairvoyance detection for Pêche (docs/fairplay.md): did the player's asks find the
opponent's cards more often than the table made likely?

At each ask the server knows two things the player's view does not decide: which of the
player's ranks the opponent held, and the table's chances, the posterior over every deal
consistent with what the player saw (``posterior.Posterior``, exact up to one stated
approximation). For a player who uses only what the table shows — whatever its habit,
memory, order or mood — the chance of a hit at each ask, given everything before it, *is*
the table's chance p of the rank it asked. A peeker hits more: on a share θ of its asks it
asks a held rank whenever there is one. So the running product of the chance of what
followed each ask for such a peeker over its chance at the table (``AskEvidence.log_lr``)
has expectation 1 at every ask for every honest player, and so has its average over the
peek rates of ``THETAS``. Ville's inequality then bounds the chance that it ever reaches
1/α by α: the honest-side guarantee holds for every policy that uses only the table, not
only for the ones this module can imagine. It is a bound, not an estimate: the measured
rates are lower (docs/fairplay.md).

- A game is flagged when its average reaches 1/GAME_LEVEL (``suspicion``, its logarithm in
  nats, at least FLAG_THRESHOLD).
- A week is flagged when the product of its games' figures, averaged over one θ shared by
  them (a player peeks at one rate), reaches 1/WEEK_LEVEL (``accumulate``): a quiet peeker
  who leaves a little each day adds up.

A game stores its ``profile`` (the log-product for each θ) at verification; a week is the
sum of its games' profiles, read without replaying anything. Only asks with a choice (two
ranks or more in hand, the rank asked neither sure nor impossible) count: any player asks
a forced rank or a sure pair alike.

Standard library only; everything is derived by replay.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from games.rules.peche import ENGINE, OPPONENT, PecheState

from .posterior import Posterior

# The peek rates the alternative is averaged over, and their weights: half on "always"
# (a player who sees the cards uses them), half spread over 10 %, 20 %, … 90 %.
THETAS: tuple[float, ...] = tuple(i / 10 for i in range(1, 11))
PRIOR: tuple[float, ...] = (*(0.5 / 9,) * 9, 0.5)
# The honest-side bounds: a game of an honest player is flagged with chance at most
# GAME_LEVEL, a week (any number of games) at most WEEK_LEVEL, whatever its policy.
GAME_LEVEL = 0.005
WEEK_LEVEL = 0.002
FLAG_THRESHOLD = math.log(1 / GAME_LEVEL)  # 5.30 nats
WEEK_THRESHOLD = math.log(1 / WEEK_LEVEL)  # 6.21 nats
# A chance of 1 tells nothing (a sure pair); one within this of 0 or 1 is taken as such.
SURE = 1e-9


def log_mean_exp(values: Sequence[float]) -> float:
    """log Σ PRIOR[i]·exp(values[i]): the log of the alternative averaged over the rates."""
    top = max(values)
    if top == -math.inf:
        return -math.inf
    return top + math.log(sum(w * math.exp(v - top) for w, v in zip(PRIOR, values)))


@dataclass(frozen=True, slots=True)
class AskEvidence:
    """One ask of the player, as the detector saw it (the admin's inspector shows it)."""

    index: int  # 0-based index in the move list
    rank: str  # the rank asked
    ranks: tuple[str, ...]  # the player's ranks then (its choices), hand order
    chances: tuple[float, ...]  # the table's chance that the opponent held each of ``ranks``
    any_held: float  # the table's chance that it held at least one of them
    held_ranks: tuple[str, ...]  # which of ``ranks`` it held (the server's truth)
    weight: float = 0.0  # log LR of this ask at the game's likeliest peek rate (nats)

    @property
    def held(self) -> bool:
        return self.rank in self.held_ranks

    @property
    def public_chance(self) -> float:
        return self.chances[self.ranks.index(self.rank)]

    @property
    def best_chance(self) -> float:
        return max(self.chances)

    @property
    def counted(self) -> bool:
        """A choice between two ranks or more, neither sure nor impossible to hit."""
        return len(self.ranks) > 1 and SURE < self.public_chance < 1 - SURE

    @property
    def informative(self) -> bool:
        """Only a choice between held and not-held ranks could have been informed."""
        return 0 < len(self.held_ranks) < len(self.ranks)

    def log_lr(self, theta: float) -> float:
        """log f: what followed the ask, for a peeker against the table. A peeker (on a
        share θ of its asks, a held rank whenever there is one) hits with chance
        θ·q + (1 − θ)·p, q the table's chance that any of its ranks was held, p the asked
        rank's; it misses while holding a rank the opponent had only when it did not peek.
        Three outcomes, each weighed by its chance for the peeker over the table's:

            a hit                          (θq + (1 − θ)p) / p
            a miss, none of its ranks held  1
            a miss, some held               1 − θ

        Their average over the table's chances is 1 whatever the rank asked: no honest
        choice can move it."""
        if not self.counted:
            return 0.0
        p = self.public_chance
        if self.held:
            return math.log((theta * self.any_held + (1.0 - theta) * p) / p)
        if not self.held_ranks:
            return 0.0
        return math.log1p(-theta) if theta < 1.0 else -math.inf

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "rank": self.rank,
            "ranks": list(self.ranks),
            "chances": [round(c, 4) for c in self.chances],
            "public_chance": round(self.public_chance, 4),
            "best_chance": round(self.best_chance, 4),
            "any_held": round(self.any_held, 4),
            "held": self.held,
            "held_ranks": list(self.held_ranks),
            "counted": self.counted,
            # the ask's weight (log LR at the game's likeliest peek rate); None: −∞, a
            # miss that no peeker at that rate makes
            "llr": round(self.weight, 4) if math.isfinite(self.weight) else None,
        }


class Watcher(Posterior):
    """The fair-play observer of the Pêche loop: the posterior (public facts only), and at
    each of the player's asks, before it is played, what the detector judges (``asks``).
    Only ``held_ranks`` reads the opponent's hand: the server's truth, never in a view."""

    __slots__ = ("asks",)

    def __init__(self) -> None:
        super().__init__()
        self.asks: list[AskEvidence] = []

    def before_ask(self, state: PecheState, rank: str) -> None:
        ranks = tuple(state.hands[0])
        hand = state.hands[OPPONENT]
        chances, any_held = self.weigh(ranks)
        self.asks.append(
            AskEvidence(
                index=len(self.asks),
                rank=rank,
                ranks=ranks,
                chances=chances,
                any_held=any_held,
                held_ranks=tuple(r for r in ranks if r in hand),
            )
        )


def _finite(value: float) -> float | None:
    return round(value, 4) if math.isfinite(value) else None


@dataclass(frozen=True, slots=True)
class PlayerAssessment:
    """Several games of one player (a week): the product of their figures at one shared
    peek rate, averaged over the rates."""

    suspicion: float  # nats: log of the averaged product
    games: int
    flagged: bool  # suspicion ≥ WEEK_THRESHOLD
    rate: float  # the likeliest shared peek rate (0 when nothing points to one)

    def as_dict(self) -> dict[str, Any]:
        return {
            "suspicion": round(self.suspicion, 3) if math.isfinite(self.suspicion) else None,
            "games": self.games,
            "flagged": self.flagged,
            "rate": self.rate,
        }


def _profile(counted: list[AskEvidence]) -> tuple[float, ...]:
    """``Σ a.log_lr(θ)`` over the counted asks for each θ of THETAS, the same sums in the
    same order, with what each ask contributes read once (not once per θ): verification
    judges every ranked game, and the per-θ calls were a tenth of its CPU."""
    # (p, q) of a hit; None for a miss while holding a rank the opponent had (the other
    # misses add 0).
    steps = [(a.public_chance, a.any_held) if a.held else None for a in counted if a.held or a.held_ranks]
    out = []
    for theta in THETAS:
        miss = math.log1p(-theta) if theta < 1.0 else -math.inf
        total = 0.0
        for step in steps:
            if step is None:
                total += miss
            else:
                p, q = step
                total += math.log((theta * q + (1.0 - theta) * p) / p)
        out.append(total)
    return tuple(out)


class GameAssessment:
    """One game's figure (``suspicion``, nats) and what it is made of."""

    __slots__ = ("profile", "suspicion", "flagged", "z", "informative_asks", "cheat_rate", "_asks", "_raw")

    def __init__(self, raw: list[AskEvidence]) -> None:
        counted = [a for a in raw if a.counted]
        self.profile: tuple[float, ...] = _profile(counted)
        self.suspicion = log_mean_exp(self.profile)
        self.flagged = self.suspicion >= FLAG_THRESHOLD
        # The raw standardised excess of hits (for the reports): Σ(hit − p)/√Σp(1 − p).
        excess = sum(a.held - a.public_chance for a in counted)
        spread = sum(a.public_chance * (1 - a.public_chance) for a in counted)
        self.z = excess / math.sqrt(spread) if spread > 0 else 0.0
        self.informative_asks = sum(1 for a in counted if a.informative)
        best = max(range(len(THETAS)), key=lambda i: self.profile[i])
        self.cheat_rate = THETAS[best] if self.profile[best] > 0 else 0.0
        self._raw = raw
        self._asks: tuple[AskEvidence, ...] | None = None

    @property
    def asks(self) -> tuple[AskEvidence, ...]:
        """Each ask with its weight at the game's likeliest peek rate (0 at none)."""
        if self._asks is None:
            t = self.cheat_rate
            self._asks = tuple(
                AskEvidence(a.index, a.rank, a.ranks, a.chances, a.any_held, a.held_ranks, a.log_lr(t) if t else 0.0)
                for a in self._raw
            )
        return self._asks

    @property
    def choices(self) -> list[bool]:
        """For each ask, whether the hand held more than one rank (the copy rules' choices)."""
        return [len(a.ranks) > 1 for a in self._raw]

    def evidence(self) -> dict[str, Any]:
        """What verification stores beside the result: enough for the week and the queue."""
        return {
            "profile": [_finite(v) for v in self.profile],
            "suspicion": _finite(self.suspicion),
            "z": round(self.z, 3),
            "asks": len(self._raw),
            "informative_asks": self.informative_asks,
            "cheat_rate": self.cheat_rate,
        }

    def as_dict(self, *, asks: bool = False) -> dict[str, Any]:
        out = {**self.evidence(), "flagged": self.flagged}
        if asks:
            out["ask_rows"] = [a.as_dict() for a in self.asks]
        return out


def profile_of(evidence: dict[str, Any] | None) -> tuple[float, ...] | None:
    """A stored ``evidence()``'s profile (None where a value was -inf), or None if absent."""
    if not evidence or len(evidence.get("profile") or ()) != len(THETAS):
        return None
    return tuple(-math.inf if v is None else float(v) for v in evidence["profile"])


def accumulate(games: Iterable[GameAssessment | Sequence[float]]) -> PlayerAssessment:
    """A player's games (e.g. a week), each a GameAssessment or a stored profile."""
    total = [0.0] * len(THETAS)
    count = 0
    for game in games:
        profile = game.profile if isinstance(game, GameAssessment) else game
        count += 1
        for i, v in enumerate(profile):
            total[i] += v
    if not count:
        return PlayerAssessment(0.0, 0, False, 0.0)
    figure = log_mean_exp(total)
    best = max(range(len(THETAS)), key=lambda i: total[i])
    return PlayerAssessment(
        suspicion=figure,
        games=count,
        flagged=figure >= WEEK_THRESHOLD,
        rate=THETAS[best] if total[best] > 0 else 0.0,
    )


def replay_assessed(
    seed: str | None, moves: list[Any], *, deck: list[str] | None = None, partial: bool = False
) -> tuple[PecheState, GameAssessment]:
    """ENGINE.replay and the assessment in one replay: the state (its outcome is the
    result) and the game's figure. Raises ReplayError exactly as ENGINE.replay does
    (``partial``: an unfinished game is assessed on the asks it has)."""
    watcher = Watcher()
    state = ENGINE.replay({"seed": seed, "deck": deck}, moves, partial=partial, observer=watcher)
    return state, GameAssessment(watcher.asks)


def assess(
    seed: str | None, moves: list[Any], *, deck: list[str] | None = None, partial: bool = False
) -> GameAssessment:
    """The figure of one game, replayed from its seed (or chosen ``deck``) and asks."""
    if seed is not None and deck is None and not partial and isinstance(moves, list):
        if all(isinstance(move, str) for move in moves):
            return _assess_finished(seed, tuple(moves))
    return replay_assessed(seed, moves, deck=deck, partial=partial)[1]


@functools.lru_cache(maxsize=1024)
def _assess_finished(seed: str, moves: tuple[str, ...]) -> GameAssessment:
    return replay_assessed(seed, list(moves))[1]
