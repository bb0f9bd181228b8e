"""Clairvoyance detection for Pêche (docs/fairplay.md): do a player's asks follow the
opponent's hidden hand more closely than public information allows?

The server knows the deal, so at every ask of the player it knows which of the
player's ranks the opponent held (``held_ranks``). An honest player's choice depends
only on what it could see, so *given* the public information its choice is independent
of which ranks were held; a clairvoyant's is not. We therefore test the choices, not
the outcomes: outcomes carry the large variance of the hidden hand itself (a z-score of
successes flagged ~14 % of full cheaters in the first study), choices conditioned on the
held set do not.

Per game: a generalised likelihood ratio (GLR), ``suspicion``,
    max over model m, cheat rate θ of  Σ log[(1−θ)·π_m(a) + θ·π_m(a | a held)] − penalty_m
    − max over honest model m of       Σ log π_m(a)
where π_m is one of a small family of honest choosers over the *public chances*
(uniform, "a rank it is sure of, else uniform", soft-max at two temperatures, greedy on
our chances, the engine's own rule mirrored, and the two hand-order habits "oldest card
first" and "newest card first"). Fitting the honest model per game keeps random,
careful, rule-following and habit-following honest players alike near 0; the cheat rate
θ in [0, THETA_MAX] lets "careful" and partly informed cheaters be caught, and keeps one
lucky ask from dominating (it costs log(1−θ) on every held-but-missed ask). The
alternatives built on the two models that ignore the chances ("random, and a peek on a
share of the asks") pay BLIND_PENALTY: they also explain a random asker's luck.
``suspicion`` ≥ 0, in nats.

Per player (``accumulate``, a week): the per-game figures above their allowance, and a
pooled ratio with one model and one θ for all the games (``GameAssessment.profile``), which
catches a quiet peeker whose games are each unremarkable.

Only the standard library (games/ rule); everything is derived by replay.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from . import peche
from .cards import RANK_OF, RANKS, miss_chance
from .peche import ENGINE, OPPONENT, PLAYER, Knowledge, Observer, PecheState

# Calibrated with bench/fairplay.py on the calibration deals fairplay-0 … 1999
# (docs/fairplay.md): the smallest threshold, in steps of 0.25, at which every simulated
# honest player type stays under it in ≥ 99.8 % of games there.
FLAG_THRESHOLD = 4.0
# The alternatives built on the two chance-blind models ("random, or memory, and a peek on
# a share of the asks") also explain a random asker's luck: they must beat the best honest
# model by this much more. Chosen on the calibration deals (0, 0.5, 1, 1.5, 2 nats: 1 flags
# the most quiet peekers at the per-game threshold that keeps honest players at 0.2 %).
BLIND_PENALTY = 1.0
# Weekly rule (accumulate): each game contributes its suspicion above ALLOWANCE (most
# honest games contribute 0), flagged when the total reaches PLAYER_THRESHOLD. Chosen on
# the same calibration deals: of the sweep's cells with no honest week flagged, the one
# that flags the most occasional and deck-mapping cheaters' weeks.
ALLOWANCE = 0.75
PLAYER_THRESHOLD = 7.0
# Weekly rule, pooled (accumulate): one cheating model and one peek rate θ for all the
# player's games, each game against its own best honest model; flagged when the pooled
# ratio reaches POOLED_THRESHOLD. A quiet peeker leaves ~1 nat a game, never enough alone,
# but the same θ every day adds up; per-game maxima cannot (each game fits its own θ and is
# floored at 0). Chosen on 7-game honest weeks drawn from the calibration deals.
POOLED_THRESHOLD = 4.0
# The peek rates of the pooled rule (θ on a grid: the profiles are added game by game).
THETA_GRID = tuple(i / 20 for i in range(20))  # 0, 0.05, …, 0.95 (= THETA_MAX)
# θ < 1: a cheater model that never asks a rank the opponent lacks while another is held
# would make one honest-looking miss infinitely exculpatory, and a lucky ask infinitely
# damning; 0.95 bounds both.
THETA_MAX = 0.95
# Each honest model mixes in a uniform choice (a misclick, a hunch) so that no single ask
# has probability ~0 under it; this is what caps one ask's contribution (≤ log(n / LEAK)).
LEAK = 0.05


@dataclass(frozen=True, slots=True)
class AskEvidence:
    """One ask of the player, as the detector saw it."""

    index: int  # 0-based index in the move list
    rank: str  # the rank asked
    ranks: tuple[str, ...]  # the player's ranks then (its choices), hand order
    chances: tuple[float, ...]  # public chance that the opponent held each of ``ranks``
    public_chance: float  # chance of the asked rank
    best_chance: float  # the highest chance available
    held: bool  # the opponent held the asked rank (the server knows)
    held_ranks: tuple[str, ...]  # which of ``ranks`` the opponent held
    llr: float  # this ask's share of the game's suspicion (nats)

    @property
    def informative(self) -> bool:
        """Only a choice between held and not-held ranks can tell a cheater apart."""
        return 0 < len(self.held_ranks) < len(self.ranks)

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "rank": self.rank,
            "ranks": list(self.ranks),
            "chances": [round(c, 4) for c in self.chances],
            "public_chance": round(self.public_chance, 4),
            "best_chance": round(self.best_chance, 4),
            "held": self.held,
            "held_ranks": list(self.held_ranks),
            "llr": round(self.llr, 4),
        }


@dataclass(frozen=True, slots=True)
class GameAssessment:
    suspicion: float  # GLR in nats, ≥ 0
    flagged: bool  # suspicion ≥ FLAG_THRESHOLD
    informative_asks: int
    cheat_rate: float  # fitted θ: the share of informative choices explained by clairvoyance
    honest_model: str  # the honest chooser that fits this player best
    asks: tuple[AskEvidence, ...]
    # For the pooled weekly rule: per model of MODELS, per θ of THETA_GRID, the log-likelihood
    # of "this model, and a peek at rate θ" minus that of this game's best honest model.
    profile: tuple[tuple[float, ...], ...] = ()

    def as_dict(self, *, asks: bool = False) -> dict[str, Any]:
        """A compact JSON summary; ``asks=True`` adds the per-ask rows."""
        out: dict[str, Any] = {
            "suspicion": round(self.suspicion, 3),
            "flagged": self.flagged,
            "informative_asks": self.informative_asks,
            "asks": len(self.asks),
            "cheat_rate": round(self.cheat_rate, 3),
            "honest_model": self.honest_model,
        }
        if asks:
            out["ask_rows"] = [a.as_dict() for a in self.asks]
        return out


@dataclass(frozen=True, slots=True)
class PlayerAssessment:
    suspicion: float  # Σ max(0, game suspicion − ALLOWANCE)
    games: int
    flagged: bool  # suspicion ≥ PLAYER_THRESHOLD or pooled ≥ POOLED_THRESHOLD
    pooled: float = 0.0  # the pooled ratio over the games given with their profile
    pooled_model: str = ""  # its cheating model (what the player does when it does not peek)
    pooled_rate: float = 0.0  # its peek rate θ

    def as_dict(self) -> dict[str, Any]:
        return {
            "suspicion": round(self.suspicion, 3),
            "games": self.games,
            "flagged": self.flagged,
            "pooled": round(self.pooled, 3),
            "pooled_model": self.pooled_model,
            "pooled_rate": self.pooled_rate,
        }


# --- What the player can know about the opponent's hand -------------------------------


class OpponentView:
    """The player's public knowledge of the opponent's hand: the mirror of
    peche.Knowledge (what the opponent knows of the player), plus what the opponent's
    own deterministic choices reveal.

    It is updated only through the ``on_*`` methods, whose arguments are public facts
    (ranks asked, given or not, ranks of pairs, whether a draw paired): nothing here can
    see an opponent card, which is what keeps the chances honest.
    """

    __slots__ = ("basic", "absent")

    def __init__(self) -> None:
        # The engine's rules from the other side: known held, last known absent, draws.
        self.basic = Knowledge()
        # ``basic.absent`` plus absences inferred from the opponent's choices (the rule
        # is public: RULES.md §2); kept apart so that the engine's own rule can be
        # mirrored exactly as one of the honest models.
        self.absent: dict[str, int] = {}

    def _none_of(self, rank: str) -> None:
        k = self.basic
        k.known.discard(rank)
        k.absent[rank] = self.absent[rank] = k.draws

    def on_opponent_received(self, paired_rank: str | None) -> None:
        """The opponent got a card from the deck (deal or lake); ``paired_rank`` if it paired."""
        if paired_rank is None:
            self.basic.draws += 1
        else:
            self._none_of(paired_rank)

    def on_player_ask(self, rank: str, given: bool) -> None:
        # Given: it gave its only one; not given: it had none. Either way none now.
        self._none_of(rank)

    def on_opponent_ask(self, rank: str, given: bool) -> None:
        if given:  # the pair formed in its hand: it holds none now
            self._none_of(rank)
        else:  # it must hold one (a hand never holds two, so it keeps it until it pairs)
            self.basic.known.add(rank)

    def on_opponent_choice(self, rank: str, state: PecheState) -> None:
        """What the opponent's choice reveals, before its ask is played.

        ``state.knowledge``, the pairs by rank, the hand and lake sizes are all public
        (the opponent's knowledge is itself built from public facts), so the player can
        work out the opponent's choice rule for every rank it might hold:
        1. it asks a rank of ``known`` whenever it holds one, so asking another rank
           means it holds none of ``known``;
        2. otherwise it asks its highest P: every rank with a strictly higher P is not
           in its hand (equal P: the tie-break uses its hidden hand order; no inference).
        """
        knowledge = state.knowledge
        if rank in knowledge.known:
            return
        draws = self.basic.draws
        held = self.basic.known
        for q in knowledge.known:
            if q not in held:
                self.absent[q] = draws
        n_r, d_r = _opponent_miss(state, rank)
        pairs_by_rank = state.pairs_by_rank
        for q in RANKS:
            if q == rank or q in held or pairs_by_rank[q] == 2 or q in knowledge.known:
                continue
            n, d = _opponent_miss(state, q)
            if n * d_r < n_r * d:  # P(q) > P(rank), exactly
                self.absent[q] = draws

    def chances(
        self,
        ranks: Iterable[str],
        opponent_hand: int,
        lake: int,
        pairs_by_rank: dict[str, int],
        player_hand: Container[str],
        *,
        inferred: bool = True,
    ) -> tuple[float, ...]:
        """Public chance that the opponent holds each of ``ranks`` (ranks the player holds).

        ``inferred=False``: the engine's rule mirrored exactly (RULES.md §2): of the
        opponent's m unknown cards, the k that arrived since it was last known to hold no
        r are each one of the U = lake + m unknown cards, u = 3 − 2 × pairs(r) of them r:
        P = 1 − Π (U−u−i)/(U−i).

        ``inferred=True`` (the detector's): the same slots, most recent first, but each
        slot is filled from the cards that *can* be there: not a rank the opponent is
        known to hold (a hand holds one of a rank), not a rank it was known to lack after
        that slot arrived (including what its choices reveal). With c_q the unseen copies
        of q and W_s the unseen cards eligible for slot s,
        P(r) = 1 − Π_{s ≤ k_r} (1 − c_r / W_s).
        The engine's form leaves the excluded cards in the pool; this one's chances rise
        with how often the rank is held over their whole range, the engine's stop doing
        so above 60 % (docs/fairplay.md), at the cost of 13 × m additions per ask. Both
        under-state: bench/fairplay.py prints stated chance against how often held.
        """
        k_ = self.basic
        known = k_.known
        m = opponent_hand - len(known)
        draws = k_.draws
        if not inferred:
            total = lake + m
            out = []
            for r in ranks:
                if r in known:
                    out.append(1.0)
                    continue
                seen_at = k_.absent.get(r)
                k = m if seen_at is None or draws - seen_at > m else draws - seen_at
                n, d = miss_chance(total, 3 - 2 * pairs_by_rank[r], k)
                out.append(1.0 - n / d)
            return tuple(out)
        absent = self.absent
        # eligible[s] = Σ c_q over ranks q that slot s (1 = the latest) may hold.
        eligible = [0] * (m + 1)
        depth: dict[str, int] = {}
        for q in RANKS:
            if q in known:
                continue
            c = 4 - 2 * pairs_by_rank[q] - (q in player_hand)
            if c <= 0:
                continue
            seen_at = absent.get(q)
            k = m if seen_at is None or draws - seen_at > m else draws - seen_at
            depth[q] = k
            for s in range(1, k + 1):
                eligible[s] += c
        out = []
        for r in ranks:
            if r in known:
                out.append(1.0)
                continue
            k = depth.get(r, 0)
            c = 3 - 2 * pairs_by_rank[r]
            miss = 1.0
            for s in range(1, k + 1):
                miss *= 1.0 - c / eligible[s]
            out.append(1.0 - miss)
        return tuple(out)


def _opponent_miss(state: PecheState, rank: str) -> tuple[int, int]:
    """The opponent's own N/D for ``rank`` (peche.opponent_choice, P = 1 − N/D)."""
    knowledge = state.knowledge
    m = len(state.hands[PLAYER]) - len(knowledge.known)
    total = 52 - state.lake_next + m
    seen_at = knowledge.absent.get(rank)
    k = m if seen_at is None or knowledge.draws - seen_at > m else knowledge.draws - seen_at
    return miss_chance(total, 3 - 2 * state.pairs_by_rank[rank], k)


# --- Watching the game, observing only public facts ----------------------------------


class Watcher(Observer):
    """The fair-play observer of the Pêche loop (peche.Observer): keeps the player's public
    view of the opponent (``view``) as the game is played, and at each of the player's
    asks, before it is played, records what the detector judges (``observed``).

    The view is fed only public facts: ranks asked and whether given, whether a card the
    opponent drew paired (and the pair's rank), the opponent's choices. Only ``held`` in
    each record reads the opponent's hand: the server's truth, never given to the view.
    """

    __slots__ = ("view", "observed")

    def __init__(self) -> None:
        self.view = OpponentView()
        self.observed: list[Observed] = []

    def before_ask(self, state: PecheState, rank: str) -> None:
        ranks = tuple(state.hands[PLAYER])
        hand = state.hands[OPPONENT]
        self.observed.append(
            Observed(
                len(self.observed),
                rank,
                ranks,
                chances_of(self.view, state, ranks),
                chances_of(self.view, state, ranks, inferred=False),
                tuple(r for r in ranks if r in hand),
            )
        )

    def choice(self, state: PecheState, rank: str) -> None:
        self.view.on_opponent_choice(rank, state)

    def asked(self, state: PecheState, seat: int, rank: str, given: str | None, fished: bool) -> None:
        if seat == PLAYER:
            self.view.on_player_ask(rank, given is not None)
        else:
            self.view.on_opponent_ask(rank, given is not None)

    def received(self, state: PecheState, seat: int, card: str, from_deck: bool, paired: bool) -> None:
        # A card from the deck (deal, fish, empty hand): public only whether it paired, and
        # then its rank (the pair is on the table). A given card is the ask's (``asked``).
        if seat == OPPONENT and from_deck:
            self.view.on_opponent_received(RANK_OF[card] if paired else None)


def chances_of(
    view: OpponentView, state: PecheState, ranks: Sequence[str], *, inferred: bool = True
) -> tuple[float, ...]:
    """``view.chances`` with the public sizes and pairs of ``state``."""
    return view.chances(
        ranks,
        len(state.hands[OPPONENT]),
        52 - state.lake_next,
        state.pairs_by_rank,
        state.hands[PLAYER],
        inferred=inferred,
    )


class WatchedGame:
    """A Pêche game played ask by ask through the loop with a ``Watcher``: what
    bench/fairplay.py's simulated players play on (``observed`` is what ``judge`` takes).
    ``also`` watches too (e.g. a peche.Recorder for the events)."""

    __slots__ = ("state", "watcher", "observer")

    def __init__(self, deck: list[str], also: Observer | None = None) -> None:
        self.watcher = Watcher()
        self.observer: Observer = self.watcher if also is None else peche.Observers(self.watcher, also)
        self.state = peche.deal(deck, self.observer)

    @property
    def view(self) -> OpponentView:
        return self.watcher.view

    @property
    def observed(self) -> list[Observed]:
        return self.watcher.observed

    @property
    def over(self) -> bool:
        return self.state.over

    def ranks(self) -> tuple[str, ...]:
        return tuple(self.state.hands[PLAYER])

    def chances(self, ranks: Sequence[str], *, inferred: bool = True) -> tuple[float, ...]:
        return chances_of(self.watcher.view, self.state, ranks, inferred=inferred)

    def held_ranks(self, ranks: Sequence[str]) -> tuple[str, ...]:
        """Server-side truth (never fed to the view)."""
        hand = self.state.hands[OPPONENT]
        return tuple(r for r in ranks if r in hand)

    def ask(self, rank: str) -> None:
        """The player asks ``rank`` (GameError if refused), then the automatic steps."""
        peche.ask(self.state, rank, self.observer)


# --- Honest choosers and the GLR -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Model:
    name: str
    # "uniform"; "memory" (a rank it is sure of, else uniform); "soft" (soft-max at
    # temperature ``beta``); "greedy" (ties shared); "engine" (greedy on the engine's
    # formula, the first in hand order on a tie); "oldest" / "newest" (a hand-order habit).
    kind: str
    beta: float = 0.0
    # Nats the cheating alternative built on this model must gain beyond the honest fit. On
    # the two that ignore the chances: "a random asker who sometimes peeks" is, ask for
    # ask, a random asker in luck, so without it random honest players' luck turned into
    # suspicion; without the alternative at all, the quiet peekers of issue 27 (a held
    # rank on 70 % of the asks, at random otherwise) went through (docs/fairplay.md).
    penalty: float = 0.0


MODELS: tuple[_Model, ...] = (
    _Model("random", "uniform", penalty=BLIND_PENALTY),
    _Model("memory", "memory", penalty=BLIND_PENALTY),
    _Model("soft5", "soft", 5.0),
    _Model("soft15", "soft", 15.0),
    _Model("greedy", "greedy"),
    _Model("engine", "engine"),
    _Model("oldest", "oldest"),
    _Model("newest", "newest"),
)


def _policy(model: _Model, chances: Sequence[float], basic: Sequence[float]) -> list[float]:
    n = len(chances)
    kind = model.kind
    if kind == "uniform":
        return [1.0 / n] * n
    if kind == "oldest":
        w = [1.0] + [0.0] * (n - 1)
    elif kind == "newest":
        w = [0.0] * (n - 1) + [1.0]
    elif kind == "memory":
        w = [1.0 if c >= 1.0 - 1e-12 else 0.0 for c in chances]
        if not any(w):
            return [1.0 / n] * n
    elif kind == "engine":
        first = basic.index(max(basic))
        w = [1.0 if i == first else 0.0 for i in range(n)]
    else:
        best = max(chances)
        if kind == "greedy":
            w = [1.0 if c >= best - 1e-12 else 0.0 for c in chances]
        else:
            w = [math.exp(model.beta * (c - best)) for c in chances]
    s = sum(w)
    return [LEAK / n + (1.0 - LEAK) * x / s for x in w]


def _fit_theta(gains: list[float], misses: int) -> tuple[float, float]:
    """argmax and max over θ ∈ [0, THETA_MAX] of Σ log(1 + θ·g) + misses·log(1 − θ).

    ``gains``: g = 1/π(held) − 1 for each ask that hit a held rank. Concave in θ, so the
    derivative's sign locates the maximum (bisection: no convergence worries).
    """

    def slope(t: float) -> float:
        return sum(g / (1.0 + t * g) for g in gains) - misses / (1.0 - t)

    if not gains or slope(0.0) <= 0.0:
        return 0.0, 0.0
    if slope(THETA_MAX) >= 0.0:
        theta = THETA_MAX
    else:
        lo, hi = 0.0, THETA_MAX
        for _ in range(30):
            mid = (lo + hi) / 2
            if slope(mid) > 0.0:
                lo = mid
            else:
                hi = mid
        theta = (lo + hi) / 2
    value = sum(math.log1p(theta * g) for g in gains) + misses * math.log1p(-theta)
    return theta, value


@dataclass(frozen=True, slots=True)
class Observed:
    index: int
    rank: str
    ranks: tuple[str, ...]
    chances: tuple[float, ...]
    basic: tuple[float, ...]
    held_ranks: tuple[str, ...]


def _judge(raw: list[Observed]) -> GameAssessment:
    """The GLR over the asks of one game."""
    # Per model: Σ log π(a), the gains of held asks and the count of held-but-missed asks.
    per_model = []
    for model in MODELS:
        log_pi, gains, misses = 0.0, [], 0
        rows: list[tuple[float, float | None]] = []  # None: an ask that tells nothing
        for a in raw:
            pi = _policy(model, a.chances, a.basic)
            i = a.ranks.index(a.rank)
            log_pi += math.log(pi[i])
            held = a.held_ranks
            q = sum(p for r, p in zip(a.ranks, pi) if r in held)
            if not held or q >= 1.0 - 1e-12:
                rows.append((math.log(pi[i]), None))  # nothing to tell: the cheater chooses alike
            elif a.rank in held:
                gains.append(1.0 / q - 1.0)
                rows.append((math.log(pi[i]), 1.0 / q - 1.0))
            else:
                misses += 1
                rows.append((math.log(pi[i]), -1.0))
        theta, gain = _fit_theta(gains, misses)
        profile = tuple(log_pi + sum(math.log1p(t * g) for g in gains) + misses * math.log1p(-t) for t in THETA_GRID)
        per_model.append((model, log_pi, theta, gain, rows, profile))
    honest = max(per_model, key=lambda t: t[1])
    cheat = max(per_model, key=lambda t: t[1] + t[3] - t[0].penalty)
    suspicion = max(0.0, cheat[1] + cheat[3] - cheat[0].penalty - honest[1])
    theta = cheat[2]
    asks = []
    # Each ask's weight; the cheating model's penalty is not an ask's, so the weights add up
    # to the suspicion plus that penalty when the game is suspect.
    for a, (lp_c, g), (lp_h, _) in zip(raw, cheat[4], honest[4]):
        if g is None:
            extra = 0.0
        elif g < 0.0:
            extra = math.log1p(-theta)
        else:
            extra = math.log1p(theta * g)
        best = max(a.chances)
        asks.append(
            AskEvidence(
                index=a.index,
                rank=a.rank,
                ranks=a.ranks,
                chances=a.chances,
                public_chance=a.chances[a.ranks.index(a.rank)],
                best_chance=best,
                held=a.rank in a.held_ranks,
                held_ranks=a.held_ranks,
                llr=lp_c + extra - lp_h,
            )
        )
    informative = sum(1 for e in asks if e.informative)
    return GameAssessment(
        suspicion=suspicion,
        flagged=suspicion >= FLAG_THRESHOLD,
        informative_asks=informative,
        cheat_rate=theta if suspicion > 0.0 else 0.0,
        honest_model=honest[0].name,
        asks=tuple(asks),
        profile=tuple(tuple(v - honest[1] for v in t[5]) for t in per_model),
    )


def assess(
    seed: str | None, moves: list[Any], *, deck: list[str] | None = None, partial: bool = False
) -> GameAssessment:
    """The suspicion of one game, replayed from its seed (or chosen ``deck``) and asks.

    Raises ReplayError exactly as ENGINE.replay does (``partial``: an unfinished game
    is assessed on the asks it has). A finished game of a seed is kept (the review
    queue judges each player's week again on every view, ``accumulate``).
    """
    if seed is not None and deck is None and not partial and isinstance(moves, list):
        if all(isinstance(move, str) for move in moves):
            return _assess_finished(seed, tuple(moves))
    return _assess(seed, moves, deck=deck, partial=partial)


@functools.lru_cache(maxsize=4096)
def _assess_finished(seed: str, moves: tuple[str, ...]) -> GameAssessment:
    return _assess(seed, list(moves))


def _assess(
    seed: str | None, moves: list[Any], *, deck: list[str] | None = None, partial: bool = False
) -> GameAssessment:
    watcher = Watcher()
    ENGINE.replay({"seed": seed, "deck": deck}, moves, partial=partial, observer=watcher)
    return _judge(watcher.observed)


def judge(raw: list[Observed]) -> GameAssessment:
    """``assess`` from asks already observed (bench/fairplay.py plays and observes)."""
    return _judge(raw)


def accumulate(games: Iterable[GameAssessment | float]) -> PlayerAssessment:
    """Several games of one player (e.g. a week), two rules (docs/fairplay.md, calibrated
    on 7-game weeks):

    - Σ max(0, suspicion − ALLOWANCE) ≥ PLAYER_THRESHOLD. Honest games rarely exceed the
      allowance, so the total does not grow with the number of games the way a plain sum
      would; a game well above it (an occasional cheat) adds nearly all its evidence.
    - pooled ≥ POOLED_THRESHOLD: max over a cheating model and a peek rate θ shared by all
      the games of Σ (its log-likelihood − the game's best honest one). Only games given
      as a GameAssessment carry the profile this needs; a bare suspicion counts in the
      first rule only.
    """
    values: list[float] = []
    profiles: list[tuple[tuple[float, ...], ...]] = []
    for g in games:
        if isinstance(g, GameAssessment):
            values.append(g.suspicion)
            if g.profile:
                profiles.append(g.profile)
        else:
            values.append(float(g))
    total = sum(max(0.0, v - ALLOWANCE) for v in values)
    pooled, model, rate = 0.0, "", 0.0
    for m, cheat_model in enumerate(MODELS):
        for t, theta in enumerate(THETA_GRID):
            value = sum(p[m][t] for p in profiles)
            if value > pooled:
                pooled, model, rate = value, cheat_model.name, theta
    return PlayerAssessment(
        suspicion=total,
        games=len(values),
        flagged=total >= PLAYER_THRESHOLD or pooled >= POOLED_THRESHOLD,
        pooled=pooled,
        pooled_model=model,
        pooled_rate=rate,
    )
