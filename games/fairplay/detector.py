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

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from games.rules.cards import RANK_OF
from games.rules.peche import ENGINE, OPPONENT, PLAYER, PecheState

from .posterior import Posterior

# The peek rates the alternative of the player's own asks is averaged over, and their
# weights: half on none (θ = 0, no tilt: a factor of 1, not stored), a quarter on "always"
# (a player who sees the cards uses them), a quarter spread over 10 %, 20 %, … 90 %. The
# weight on none keeps a channel's average at log 2 or more whatever its games say: a
# cheater cannot bank a channel it leaves alone (asks that miss, say) to pay for another.
THETAS: tuple[float, ...] = tuple(i / 10 for i in range(1, 11))
PRIOR: tuple[float, ...] = (*(0.25 / 9,) * 9, 0.25)
# The other outcomes hidden cards decide (``Outcome``) are weighed against odds tilted
# ρ-fold toward what serves the player; half the weight on ρ = 1 (no tilt: a channel a
# cheater leaves alone costs its figure at most log 2), half spread over the rest.
RHOS: tuple[float, ...] = (1.0, 2.0, 4.0, 8.0, 16.0)
RHO_PRIOR: tuple[float, ...] = (0.5, *(0.5 / 4,) * 4)
# The channels a game's figure is made of, each averaged over its own grid: the product of
# the averages is a product of test martingales that never move at the same step, so
# itself one. ``asks``: the answers to the player's asks; ``opponent``: whether the
# opponent's asks found a rank the player held. The draws from the lake (``Outcome``
# channels ``player_draws`` and ``opponent_draws``, watched on request) are not counted: a
# deal-knowing line barely moves them, and a channel without signal only dilutes the
# others (docs/fairplay.md, "What each channel adds").
SEGMENTS: tuple[tuple[str, tuple[float, ...], tuple[float, ...]], ...] = (
    ("asks", THETAS, PRIOR),
    ("opponent", RHOS, RHO_PRIOR),
)
OUTCOME_CHANNELS = ("opponent", "player_draws", "opponent_draws")
PROFILE_LENGTH = sum(len(grid) for _, grid, _ in SEGMENTS)
# The honest-side bounds: a game of an honest player is flagged with chance at most
# GAME_LEVEL, a week (any number of games) at most WEEK_LEVEL, its whole history (every
# ranked game since its first, read at any time) at most HISTORY_LEVEL, whatever its policy.
GAME_LEVEL = 0.005
WEEK_LEVEL = 0.002
HISTORY_LEVEL = 0.001
FLAG_THRESHOLD = math.log(1 / GAME_LEVEL)  # 5.30 nats
WEEK_THRESHOLD = math.log(1 / WEEK_LEVEL)  # 6.21 nats
HISTORY_THRESHOLD = math.log(1 / HISTORY_LEVEL)  # 6.91 nats
# A chance of 1 tells nothing (a sure pair); one within this of 0 or 1 is taken as such.
SURE = 1e-9


def log_mean_exp(values: Sequence[float], prior: Sequence[float] = PRIOR) -> float:
    """log (Σ prior[i]·exp(values[i]) + the weight the prior leaves): the log of the
    alternative averaged over its grid, the weight not on the grid on no tilt (a factor 1)."""
    rest = max(0.0, 1.0 - sum(prior))
    top = max(max(values), 0.0 if rest > 1e-12 else -math.inf)
    if top == -math.inf:
        return -math.inf
    return top + math.log(sum(w * math.exp(v - top) for w, v in zip(prior, values)) + rest * math.exp(-top))


def segments(profile: Sequence[float]) -> dict[str, float]:
    """Each channel's figure (nats) in a profile: its log-products averaged over its grid."""
    out = {}
    start = 0
    for name, grid, prior in SEGMENTS:
        out[name] = log_mean_exp(profile[start : start + len(grid)], prior)
        start += len(grid)
    return out


def figure(profile: Sequence[float]) -> float:
    """The figure of a profile (a game's, or the sum of several): the sum of its channels'."""
    return sum(segments(profile).values())


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


@dataclass(frozen=True, slots=True)
class Outcome:
    """One outcome of the other channels, decided by hidden cards: its ``channel``, the
    table's chance ``p`` of the outcome that serves the player, and whether it came."""

    channel: str  # one of OUTCOME_CHANNELS
    p: float
    good: bool

    @property
    def counted(self) -> bool:
        return SURE < self.p < 1 - SURE

    def log_lr(self, rho: float) -> float:
        """log f: the outcome under odds tilted ρ-fold toward what serves the player,
        against the table; its average over the table's chance is 1 for any ρ."""
        if not self.counted or rho == 1.0:
            return 0.0
        p = self.p
        scale = math.log(1.0 - p + rho * p)
        return (math.log(rho) - scale) if self.good else -scale


class Watcher(Posterior):
    """The fair-play observer of the Pêche loop: the posterior (public facts only), and at
    each of the player's asks, before it is played, what the detector judges (``asks``);
    at each of the opponent's asks and each draw from the lake, the table's chance of the
    outcome that serves the player and whether it came (``outcomes``). Only ``held_ranks``
    and the outcomes read a hidden card: the server's truth, never in a view."""

    __slots__ = ("asks", "outcomes", "draws")

    def __init__(self, *, draws: bool = False) -> None:
        super().__init__()
        self.asks: list[AskEvidence] = []
        self.outcomes: list[Outcome] = []
        self.draws = draws  # watch the draws from the lake too (the benchmark's channels)

    def before_ask(self, state: PecheState, rank: str) -> None:
        ranks = tuple(state.hands[0])
        hand = state.hands[OPPONENT]
        chances, any_held = self.weigh(ranks)
        self.asks.append(
            AskEvidence(
                index=state.asks[PLAYER],  # the move's index, also in a game taken up mid-way (``field``)
                rank=rank,
                ranks=ranks,
                chances=chances,
                any_held=any_held,
                held_ranks=tuple(r for r in ranks if r in hand),
            )
        )

    def fork(self) -> Watcher:
        """A watcher that goes on from this one's posterior, with nothing recorded yet (the
        shared positions of ``field``): the belief is shared, never written in place (every
        fact builds a new one), the copies seen are copied."""
        return self._fork_into(Watcher(draws=self.draws))

    def choice(self, state: PecheState, rank: str) -> None:
        # Its ask serves the player when it names no rank the player holds.
        finds = self.opponent_finds(state)
        self.outcomes.append(Outcome("opponent", 1.0 - finds, rank not in state.hands[PLAYER]))
        super().choice(state, rank)

    def drew(self, state: PecheState, seat: int, card: str, reason: str) -> None:
        if not self.draws:
            return
        # Called once the card has left the lake, before it joins the hand: the lake was
        # one card bigger. The player's draw serves it when it pairs, the opponent's when
        # it does not.
        pairs = self.draw_pairs(state, seat, 53 - state.lake_next)
        paired = RANK_OF[card] in state.hands[seat]
        if seat == PLAYER:
            self.outcomes.append(Outcome("player_draws", pairs, paired))
        else:
            self.outcomes.append(Outcome("opponent_draws", 1.0 - pairs, not paired))


def _finite(value: float) -> float | None:
    return round(value, 4) if math.isfinite(value) else None


@dataclass(frozen=True, slots=True)
class PlayerAssessment:
    """Several games of one player (a week, a history): the product of their figures at
    one shared rate for each channel, averaged over the rates."""

    suspicion: float  # nats: log of the averaged product
    games: int
    flagged: bool  # suspicion ≥ the level's threshold
    rate: float  # the likeliest shared peek rate of the asks (0 when nothing points to one)
    channels: dict[str, float]  # each channel's share of ``suspicion`` (nats)

    def as_dict(self) -> dict[str, Any]:
        return {
            "suspicion": _rounded(self.suspicion),
            "games": self.games,
            "flagged": self.flagged,
            "rate": self.rate,
            "channels": {name: _rounded(v) for name, v in self.channels.items()},
        }


def _rounded(value: float) -> float | None:
    return round(value, 3) if math.isfinite(value) else None


def _profile(counted: list[AskEvidence], outcomes: list[Outcome]) -> tuple[float, ...]:
    """The game's profile: for the asks, ``Σ a.log_lr(θ)`` over the counted asks for each
    θ of THETAS, with what each ask contributes read once (not once per θ): verification
    judges every ranked game, and the per-θ calls were a tenth of its CPU; then for each
    other channel of SEGMENTS, ``Σ o.log_lr(ρ)`` over its outcomes for each ρ of RHOS."""
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
    for name, grid, _ in SEGMENTS[1:]:
        # (log of the normaliser's argument is per ρ; the good outcomes add log ρ each)
        mine = [(o.p, o.good) for o in outcomes if o.channel == name and o.counted]
        goods = sum(good for _, good in mine)
        for rho in grid:
            if rho == 1.0:
                out.append(0.0)
                continue
            out.append(goods * math.log(rho) - sum(math.log(1.0 - p + rho * p) for p, _ in mine))
    return tuple(out)


class GameAssessment:
    """One game's figure (``suspicion``, nats) and what it is made of."""

    __slots__ = (
        "profile",
        "suspicion",
        "channels",
        "flagged",
        "z",
        "informative_asks",
        "cheat_rate",
        "outcomes",
        "_asks",
        "_raw",
    )

    def __init__(self, raw: list[AskEvidence], outcomes: Sequence[Outcome] = ()) -> None:
        counted = [a for a in raw if a.counted]
        self.outcomes = tuple(outcomes)
        self.profile: tuple[float, ...] = _profile(counted, list(self.outcomes))
        self.channels = segments(self.profile)
        self.suspicion = sum(self.channels.values())
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

    def tallies(self) -> dict[str, dict[str, float]]:
        """For each outcome channel: how many outcomes counted, how many served the player,
        and how many the table expected to (the sum of their chances): what a reviewer
        reads ("the opponent found your cards 1 time in 14, where the table expected 4")."""
        out: dict[str, dict[str, float]] = {}
        for o in self.outcomes:
            if not o.counted:
                continue
            t = out.setdefault(o.channel, {"count": 0, "good": 0, "expected": 0.0})
            t["count"] += 1
            t["good"] += o.good
            t["expected"] += o.p
        for t in out.values():
            t["expected"] = round(t["expected"], 2)
        return out

    def evidence(self) -> dict[str, Any]:
        """What verification stores beside the result: enough for the week, the history
        and the queue."""
        return {
            "profile": [_finite(v) for v in self.profile],
            "suspicion": _finite(self.suspicion),
            "channels": {name: _finite(v) for name, v in self.channels.items()},
            "tallies": self.tallies(),
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
    """A stored ``evidence()``'s profile (None where a value was -inf), or None if absent.
    A profile stored before the other channels were weighed (the asks' alone) reads as
    one whose other channels said nothing."""
    stored = (evidence or {}).get("profile") or ()
    if len(stored) not in (len(THETAS), PROFILE_LENGTH):
        return None
    values = tuple(-math.inf if v is None else float(v) for v in stored)
    return values + (0.0,) * (PROFILE_LENGTH - len(values))


def accumulate(
    games: Iterable[GameAssessment | Sequence[float]], threshold: float = WEEK_THRESHOLD
) -> PlayerAssessment:
    """A player's games (a week; with HISTORY_THRESHOLD, its history), each a
    GameAssessment or a stored profile: flagged at ``threshold``."""
    total = [0.0] * PROFILE_LENGTH
    count = 0
    for game in games:
        profile = game.profile if isinstance(game, GameAssessment) else game
        count += 1
        for i, v in enumerate(profile):
            total[i] += v
    if not count:
        return PlayerAssessment(0.0, 0, False, 0.0, {})
    channels = segments(total)
    suspicion = sum(channels.values())
    best = max(range(len(THETAS)), key=lambda i: total[i])
    return PlayerAssessment(
        suspicion=suspicion,
        games=count,
        flagged=suspicion >= threshold,
        rate=THETAS[best] if total[best] > 0 else 0.0,
        channels=channels,
    )


def replay_assessed(
    seed: str | None, moves: list[Any], *, deck: list[str] | None = None, partial: bool = False
) -> tuple[PecheState, GameAssessment]:
    """ENGINE.replay and the assessment in one replay: the state (its outcome is the
    result) and the game's figure. Raises ReplayError exactly as ENGINE.replay does
    (``partial``: an unfinished game is assessed on the asks it has)."""
    watcher = Watcher()
    state = ENGINE.replay({"seed": seed, "deck": deck}, moves, partial=partial, observer=watcher)
    return state, GameAssessment(watcher.asks, watcher.outcomes)


def assess(
    seed: str | None, moves: list[Any], *, deck: list[str] | None = None, partial: bool = False
) -> GameAssessment:
    """The figure of one game, replayed from its seed (or chosen ``deck``) and asks, from
    the deal (``field.assess`` judges a finished game on its deal's shared positions)."""
    return replay_assessed(seed, moves, deck=deck, partial=partial)[1]
