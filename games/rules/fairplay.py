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
catches a quiet peeker whose games are each unremarkable; for a week that this ratio makes
suspect but does not settle, the same ratio with "the solver's move at rate θ" in place of
"a held rank at rate θ" (``solver_moves``: a search over the whole deal, run only then).

Only the standard library (games/ rule); everything is derived by replay.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from . import peche
from .cards import RANK_OF, miss_chance
from .peche import ENGINE, OPPONENT, PLAYER, Observer, PecheState

# Calibrated on the calibration deals (docs/fairplay.md: every bench player on fairplay-0 …
# 1999, the honest ones on … 9999 too): the smallest threshold, in steps of 0.25, at which
# every simulated honest player type stays under it in ≥ 99.7 % of its 10,000 games there
# (4.0 flagged 0.35 % of the soft-max β 10 player's, too close to issue 27's 0.5 % for a
# report to confirm it).
FLAG_THRESHOLD = 4.25
# The alternatives built on the two chance-blind models ("random, or memory, and a peek on
# a share of the asks") also explain a random asker's luck: they must beat the best honest
# model by this much more. Chosen on the calibration deals (0, 0.5, 1, 1.5, 2 nats: 1 flags
# the most quiet peekers at the per-game threshold that keeps honest players at 0.2 %).
BLIND_PENALTY = 1.0
# Weekly rule (accumulate): each game contributes its suspicion above ALLOWANCE (most
# honest games contribute 0), flagged when the total reaches PLAYER_THRESHOLD: one game at
# 9.5 nats, or two at 6, flag the week. Chosen with the pooled threshold on 20,000 honest
# 7-game weeks per type drawn from the calibration deals, for at most ~0.025 % of them
# (what a report of 3,000 weeks a type can confirm under issue 27's 0.2 %): the old 0.75
# and 7 flagged 0.25 % of them (the soft-max β 10 player's single lucky games).
ALLOWANCE = 2.5
PLAYER_THRESHOLD = 7.0
# Weekly rule, pooled (accumulate): one cheating model and one rate θ for all the player's
# games, each game against its own best honest model; flagged when the pooled ratio reaches
# POOLED_THRESHOLD. A quiet peeker leaves ~1 nat a game, never enough alone, but the same θ
# every day adds up; per-game maxima cannot (each game fits its own θ and is floored at 0).
# 4.0 before issue 27's second round: 0.06 % of the drawn honest weeks.
POOLED_THRESHOLD = 5.5
# The solver alternative of the pooled rule (issue 27: "a solver's move with probability p,
# otherwise random"): at each ask, the asks that lead to the best pair difference within
# SOLVER_DEPTH asks of the player, the opponent's replies played by the rules, searched
# over the whole deal (the server knows it). A search costs ~0.5 ms an ask, too much for
# every verified game, so it runs only for a week whose peek alternative reaches
# SOLVER_SCREEN nats (about 2 % of honest weeks, nearly every solver's).
SOLVER_DEPTH = 3
SOLVER_SCREEN = 0.5
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
    # How likely each of ``ranks`` was to be asked by the honest player who fits this game
    # best, and by the clairvoyant one the detector compares it with (its base model, which
    # picks a held rank at the fitted rate): llr = log(clairvoyant[i] / honest[i]) of the
    # rank asked. The admin's inspector shows both, so a weight reads as two chances.
    honest: tuple[float, ...] = ()
    clairvoyant: tuple[float, ...] = ()

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
            "honest": [round(p, 4) for p in self.honest],
            "clairvoyant": [round(p, 4) for p in self.clairvoyant],
        }


@dataclass(frozen=True, slots=True)
class PlayerAssessment:
    suspicion: float  # Σ max(0, game suspicion − ALLOWANCE)
    games: int
    flagged: bool  # suspicion ≥ PLAYER_THRESHOLD or pooled ≥ POOLED_THRESHOLD
    pooled: float = 0.0  # the pooled ratio over the games given with their profile
    pooled_model: str = ""  # its cheating model (what the player does when it does not peek)
    pooled_rate: float = 0.0  # its rate θ
    pooled_alternative: str = ""  # "peek" (a held rank at rate θ) or "solver" (the solver's move)

    def as_dict(self) -> dict[str, Any]:
        return {
            "suspicion": round(self.suspicion, 3),
            "games": self.games,
            "flagged": self.flagged,
            "pooled": round(self.pooled, 3),
            "pooled_model": self.pooled_model,
            "pooled_rate": self.pooled_rate,
            "pooled_alternative": self.pooled_alternative,
        }


# --- What the player can know about the opponent's hand -------------------------------


class Knowledge(peche.Knowledge):
    """What the player knows of the opponent's hand: ``peche.Knowledge`` (the opponent's
    knowledge of the player) kept from the other side, plus what the opponent's own
    deterministic choices reveal (``inferred``). One record, one name, on both sides and
    in Go Fish (``gofish.Knowledge``): what a seat knows of another's hand.

    It is updated only through the ``on_*`` methods, whose arguments are public facts
    (ranks asked, given or not, ranks of pairs, whether a draw paired): nothing here can
    see an opponent card, which is what keeps the chances honest.
    """

    __slots__ = ("inferred",)

    def __init__(self) -> None:
        # known / absent / draws: the engine's rules from the other side.
        super().__init__()
        # ``absent`` plus absences inferred from the opponent's choices (the rule is public:
        # docs/rules.md §2); kept apart so that the engine's own rule can be mirrored
        # exactly as one of the honest models. Every write moves its rank to the end, so
        # the values (``draws`` then) rise along the dict: ``_inferred`` reads only the
        # ranks known absent within the last few draws, from the end.
        self.inferred: dict[str, int] = {}

    def _none_of(self, rank: str) -> None:
        self.known.discard(rank)
        self.absent[rank] = self.draws
        inferred = self.inferred
        inferred.pop(rank, None)  # to the end: ``inferred`` in the order of its writes
        inferred[rank] = self.draws

    def on_opponent_received(self, paired_rank: str | None) -> None:
        """The opponent got a card from the deck (deal or lake); ``paired_rank`` if it paired."""
        if paired_rank is None:
            self.draws += 1
        else:
            self._none_of(paired_rank)

    def on_player_ask(self, rank: str, given: bool) -> None:
        # Given: it gave its only one; not given: it had none. Either way none now.
        self._none_of(rank)

    def on_opponent_ask(self, rank: str, given: bool) -> None:
        if given:  # the pair formed in its hand: it holds none now
            self._none_of(rank)
        else:  # it must hold one (a hand never holds two, so it keeps it until it pairs)
            self.known.add(rank)

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
        known = knowledge.known
        if rank in known:
            return
        draws = self.draws
        held = self.known
        absent = self.inferred
        for q in known:
            if q not in held:
                absent.pop(q, None)
                absent[q] = draws
        # The opponent's N/D of peche.opponent_choice for each rank, inlined: this runs at
        # every opponent ask of every verified game.
        m = len(state.hands[PLAYER]) - len(known)
        total = 52 - state.lake_next + m
        seen = knowledge.absent
        its_draws = knowledge.draws
        pairs_by_rank = state.pairs_by_rank
        seen_at = seen.get(rank)
        k = m if seen_at is None or its_draws - seen_at > m else its_draws - seen_at
        n_r, d_r = miss_chance(total, 3 - 2 * pairs_by_rank[rank], k)
        higher: dict[tuple[int, int], bool] = {}  # P depends on (pairs, k) alone: most ranks share one
        for q, pairs in pairs_by_rank.items():  # every rank, as RANKS
            if pairs == 2 or q == rank or q in held or q in known or absent.get(q) == draws:
                continue
            seen_at = seen.get(q)
            k = m if seen_at is None or its_draws - seen_at > m else its_draws - seen_at
            above = higher.get((pairs, k))
            if above is None:
                n, d = miss_chance(total, 3 - 2 * pairs, k)
                above = higher[pairs, k] = n * d_r < n_r * d  # P(q) > P(rank), exactly
            if above:
                absent.pop(q, None)
                absent[q] = draws

    def chances(
        self,
        ranks: Iterable[str],
        opponent_hand: int,
        lake: int,
        pairs_by_rank: dict[str, int],
        player_hand: Collection[str],
        *,
        inferred: bool = True,
    ) -> tuple[float, ...]:
        """Public chance that the opponent holds each of ``ranks`` (ranks the player holds).

        ``inferred=False``: the engine's rule mirrored exactly (docs/rules.md §2): of the
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
        m = opponent_hand - len(self.known)
        if inferred:
            return self._inferred(ranks, m, pairs_by_rank, player_hand)
        return self._basic(ranks, m, lake + m, pairs_by_rank)

    def _basic(self, ranks: Iterable[str], m: int, total: int, pairs_by_rank: dict[str, int]) -> tuple[float, ...]:
        """``chances(inferred=False)``: ``m`` the opponent's unknown cards, ``total`` = lake + m."""
        known = self.known
        draws = self.draws
        absent = self.absent
        out = []
        for r in ranks:
            if r in known:
                out.append(1.0)
                continue
            seen_at = absent.get(r)
            k = m if seen_at is None or draws - seen_at > m else draws - seen_at
            n, d = miss_chance(total, 3 - 2 * pairs_by_rank[r], k)
            out.append(1.0 - n / d)
        return tuple(out)

    def _inferred(
        self, ranks: Iterable[str], m: int, pairs_by_rank: dict[str, int], player_hand: Collection[str]
    ) -> tuple[float, ...]:
        """``chances(inferred=True)``; ``m``: the opponent's unknown cards. This runs at every
        ask of every verified game, so it reads only what changes the slots' pools: W_s is
        every unseen copy of a rank the opponent is not known to hold, less those of the
        ranks known absent after slot s arrived (k_q < s: the few of the last m draws)."""
        known = self.known
        draws = self.draws
        # Σ c_q over the ranks the opponent is not known to hold (c_q = 0 once q is paired twice).
        unseen = 52 - 2 * sum(pairs_by_rank.values()) - len(player_hand)
        for q in known:
            unseen -= 4 - 2 * pairs_by_rank[q] - (q in player_hand)
        depth: dict[str, int] = {}  # k_q < m (every other rank: m)
        drop = [0] * (m + 1)  # drop[k] = Σ c_q of the ranks q with k_q = k
        for q, seen_at in reversed(self.inferred.items()):  # latest first (see __init__)
            k = draws - seen_at
            if k >= m:
                break
            if q in known:
                continue
            c = 4 - 2 * pairs_by_rank[q] - (q in player_hand)
            if c <= 0:
                continue
            depth[q] = k
            drop[k] += c
        eligible = [unseen] * (m + 1)  # eligible[s] = W_s: Σ c_q over the q with k_q ≥ s
        for s in range(1, m + 1):
            eligible[s] = eligible[s - 1] - drop[s - 1]
        out = []
        for r in ranks:
            if r in known:
                out.append(1.0)
                continue
            k = depth.get(r, m)
            c = 3 - 2 * pairs_by_rank[r]
            miss = 1.0
            for s in range(1, k + 1):
                miss *= 1.0 - c / eligible[s]
            out.append(1.0 - miss)
        return tuple(out)


# --- Watching the game, observing only public facts ----------------------------------


class Watcher(Observer):
    """The fair-play observer of the Pêche loop (peche.Observer): keeps the player's
    knowledge of the opponent (``knowledge``) as the game is played, and at each of the player's
    asks, before it is played, records what the detector judges (``observed``).

    The knowledge is fed only public facts: ranks asked and whether given, whether a card the
    opponent drew paired (and the pair's rank), the opponent's choices. Only ``held`` in
    each record reads the opponent's hand: the server's truth, never given to the view.
    """

    __slots__ = ("knowledge", "observed")

    def __init__(self) -> None:
        self.knowledge = Knowledge()
        self.observed: list[Observed] = []

    def before_ask(self, state: PecheState, rank: str) -> None:
        mine = state.hands[PLAYER]
        ranks = tuple(mine)
        hand = state.hands[OPPONENT]
        knowledge = self.knowledge
        m = len(hand) - len(knowledge.known)
        pairs_by_rank = state.pairs_by_rank
        observed = self.observed
        observed.append(
            Observed(
                len(observed),
                rank,
                ranks,
                knowledge._inferred(ranks, m, pairs_by_rank, mine),  # knowledge.chances, inlined
                knowledge._basic(ranks, m, 52 - state.lake_next + m, pairs_by_rank),
                tuple([r for r in ranks if r in hand]),
            )
        )

    def choice(self, state: PecheState, rank: str) -> None:
        self.knowledge.on_opponent_choice(rank, state)

    def asked(self, state: PecheState, seat: int, rank: str, given: str | None, fished: bool) -> None:
        # knowledge.on_player_ask / on_opponent_ask, inlined (every ask of every verified
        # game): none of ``rank`` now, unless the opponent was refused it (then it holds one).
        knowledge = self.knowledge
        if seat == PLAYER or given is not None:
            knowledge._none_of(rank)
        else:
            knowledge.known.add(rank)

    def received(self, state: PecheState, seat: int, card: str, from_deck: bool, paired: bool) -> None:
        # A card from the deck (deal, fish, empty hand): public only whether it paired, and
        # then its rank (the pair is on the table). A given card is the ask's (``asked``).
        if seat == OPPONENT and from_deck:
            self.knowledge.on_opponent_received(RANK_OF[card] if paired else None)


def chances_of(
    knowledge: Knowledge, state: PecheState, ranks: Sequence[str], *, inferred: bool = True
) -> tuple[float, ...]:
    """``knowledge.chances`` with the public sizes and pairs of ``state``."""
    return knowledge.chances(
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
    def knowledge(self) -> Knowledge:
        return self.watcher.knowledge

    @property
    def observed(self) -> list[Observed]:
        return self.watcher.observed

    @property
    def over(self) -> bool:
        return self.state.over

    def ranks(self) -> tuple[str, ...]:
        return tuple(self.state.hands[PLAYER])

    def chances(self, ranks: Sequence[str], *, inferred: bool = True) -> tuple[float, ...]:
        return chances_of(self.watcher.knowledge, self.state, ranks, inferred=inferred)

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
    # False: an honest model only, never the base of a cheating alternative.
    alternative: bool = True


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
    """π_m over the player's ranks (the admin's per-ask rows; ``_choice`` is the same
    without the list)."""
    n = len(chances)
    kind = model.kind
    if kind == "uniform":
        return [1.0 / n] * n
    w = _weights(model, chances, basic)
    if w is None:
        return [1.0 / n] * n
    s = sum(w)
    return [LEAK / n + (1.0 - LEAK) * x / s for x in w]


def _weights(model: _Model, chances: Sequence[float], basic: Sequence[float]) -> list[float] | None:
    """The model's weights before the leak; None for a uniform choice."""
    n = len(chances)
    kind = model.kind
    if kind == "uniform":
        return None
    if kind == "oldest":
        return [1.0] + [0.0] * (n - 1)
    if kind == "newest":
        return [0.0] * (n - 1) + [1.0]
    if kind == "memory":
        w = [1.0 if c >= 1.0 - 1e-12 else 0.0 for c in chances]
        return w if any(w) else None
    if kind == "engine":
        first = basic.index(max(basic))
        return [1.0 if i == first else 0.0 for i in range(n)]
    best = max(chances)
    if kind == "greedy":
        return [1.0 if c >= best - 1e-12 else 0.0 for c in chances]
    return [math.exp(model.beta * (c - best)) for c in chances]


def _fit_theta(gains: Sequence[float], misses: int) -> tuple[float, float]:
    """argmax and max over θ ∈ [0, THETA_MAX] of Σ log(1 + θ·g) + misses·log(1 − θ).

    ``gains``: g = 1/π(held) − 1 for each ask that hit a held rank. Concave in θ: Newton's
    method from the side where the slope is positive, kept inside the bracket by bisection
    (a few steps reach 1e-12; the bisection it replaced took 30).
    """
    if not gains:
        return 0.0, 0.0
    slope0 = sum(gains) - misses
    if slope0 <= 0.0:
        return 0.0, 0.0
    t = THETA_MAX
    if sum(g / (1.0 + t * g) for g in gains) - misses / (1.0 - t) < 0.0:
        lo, hi, t = 0.0, THETA_MAX, 0.0
        for _ in range(60):
            d1 = d2 = 0.0
            for g in gains:
                x = g / (1.0 + t * g)
                d1 += x
                d2 += x * x
            if misses:
                y = 1.0 / (1.0 - t)
                d1 -= misses * y
                d2 += misses * y * y
            if d1 > 0.0:
                lo = t
            else:
                hi = t
            step = t + d1 / d2
            t_next = step if lo < step < hi else (lo + hi) / 2
            if abs(t_next - t) < 1e-13:
                t = t_next
                break
            t = t_next
    value = sum(math.log1p(t * g) for g in gains) + misses * math.log1p(-t)
    return t, value


class Observed(NamedTuple):
    """One ask as recorded before it was played: the player's ranks, the public chances
    (the detector's formula and the engine's), and which ranks the opponent held."""

    # Shadows tuple.index (never called on an Observed): the ask's index, named as in
    # AskEvidence and the reports.
    index: int  # type: ignore[assignment]
    rank: str
    ranks: tuple[str, ...]
    chances: tuple[float, ...]
    basic: tuple[float, ...]
    held_ranks: tuple[str, ...]


class _Fit:
    """One model's fit of one game: Σ log π(a), the gains g = 1/q − 1 of the asks that hit
    a held rank, the count of asks that missed one, and the best θ with its gain."""

    __slots__ = ("model", "log_pi", "gains", "misses", "theta", "gain")

    def __init__(self, model: _Model, log_pi: float, gains: list[float], misses: int) -> None:
        self.model = model
        self.log_pi = log_pi
        self.gains = gains
        self.misses = misses
        self.theta, self.gain = _fit_theta(gains, misses)

    def at(self, theta: float) -> float:
        """The log-likelihood of "this model, and a peek at rate θ"."""
        return self.log_pi + sum(math.log1p(theta * g) for g in self.gains) + self.misses * math.log1p(-theta)


class GameAssessment:
    """One game's figure (``suspicion``) and what it is made of. The per-ask rows (``asks``)
    and the pooled rule's ``profile`` are worked out when first read: verification stores
    only the figure."""

    __slots__ = (
        "suspicion",
        "flagged",
        "informative_asks",
        "cheat_rate",
        "honest_model",
        "_raw",
        "_fits",
        "_cheat",
        "_honest",
        "_asks",
        "_profile",
        "_deck",
        "_moves",
        "_solver_profile",
    )

    def __init__(self, raw: list[Observed], deck: list[str] | None = None, moves: list[str] | None = None) -> None:
        fits = _fit_models(raw)
        honest = max(fits, key=lambda f: f.log_pi)
        cheat = max((f for f in fits if f.model.alternative), key=lambda f: f.log_pi + f.gain - f.model.penalty)
        suspicion = max(0.0, cheat.log_pi + cheat.gain - cheat.model.penalty - honest.log_pi)
        self.suspicion = suspicion  # GLR in nats, ≥ 0
        self.flagged = suspicion >= FLAG_THRESHOLD
        # Only a choice between held and not-held ranks can tell a cheater apart.
        self.informative_asks = sum(1 for a in raw if 0 < len(a.held_ranks) < len(a.ranks))
        # The fitted θ: the share of informative choices explained by clairvoyance.
        self.cheat_rate = cheat.theta if suspicion > 0.0 else 0.0
        self.honest_model = honest.model.name  # the honest chooser that fits this player best
        self._raw, self._fits, self._cheat, self._honest = raw, fits, cheat, honest
        self._asks: tuple[AskEvidence, ...] | None = None
        self._profile: tuple[tuple[float, ...], ...] | None = None
        # The deal and the asks, for the solver alternative (worked out only when asked).
        self._deck, self._moves = deck, moves
        self._solver_profile: tuple[tuple[float, ...], ...] | None = None

    @property
    def profile(self) -> tuple[tuple[float, ...], ...]:
        """For the pooled weekly rule: per model of MODELS, per θ of THETA_GRID, the
        log-likelihood of "this model, and a peek at rate θ" minus that of this game's best
        honest model."""
        if self._profile is None:
            best = self._honest.log_pi
            self._profile = tuple(tuple(f.at(t) - best for t in THETA_GRID) for f in self._fits)
        return self._profile

    @property
    def solver_profile(self) -> tuple[tuple[float, ...], ...] | None:
        """``profile`` for "the solver's move at rate θ" instead of "a held rank at rate θ"
        (the search runs on the first read: ~0.5 ms an ask); None when the game was judged
        without its deal."""
        if self._solver_profile is None and self._deck is not None and self._moves is not None:
            state = peche.deal(list(self._deck))
            raw = []
            for o, move in zip(self._raw, self._moves):
                best = solver_moves(state)
                raw.append(Observed(o.index, o.rank, o.ranks, o.chances, o.basic, best))
                peche.ask(state, move)
            fits = _fit_models(raw)
            top = self._honest.log_pi  # the same honest fits: π does not depend on the truth
            self._solver_profile = tuple(tuple(f.at(t) - top for t in THETA_GRID) for f in fits)
        return self._solver_profile

    @property
    def asks(self) -> tuple[AskEvidence, ...]:
        """Each ask as the detector saw it, with its weight in the figure (``llr``); the
        cheating model's penalty is not an ask's, so the weights add up to the suspicion
        plus that penalty when the game is suspect."""
        if self._asks is None:
            self._asks = tuple(self._rows())
        return self._asks

    def _rows(self) -> Iterable[AskEvidence]:
        cheat, honest = self._cheat.model, self._honest.model
        theta = self._cheat.theta
        for a in self._raw:
            pi_c = _policy(cheat, a.chances, a.basic)
            pi_h = _policy(honest, a.chances, a.basic)
            i = a.ranks.index(a.rank)
            held = a.held_ranks
            q = sum(p for r, p in zip(a.ranks, pi_c) if r in held)
            if not held or q >= 1.0 - 1e-12:
                seer = pi_c  # nothing to tell: the cheater chooses alike
            else:
                # With probability θ it peeks and asks a held rank (π_c restricted to
                # them), otherwise it chooses as its base model does.
                seer = [p * (1.0 - theta + (theta / q if r in held else 0.0)) for r, p in zip(a.ranks, pi_c)]
            yield AskEvidence(
                index=a.index,
                rank=a.rank,
                ranks=a.ranks,
                chances=a.chances,
                public_chance=a.chances[i],
                best_chance=max(a.chances),
                held=a.rank in held,
                held_ranks=held,
                llr=math.log(seer[i]) - math.log(pi_h[i]),
                honest=tuple(pi_h),
                clairvoyant=tuple(seer),
            )

    def as_dict(self, *, asks: bool = False) -> dict[str, Any]:
        """A compact JSON summary; ``asks=True`` adds the per-ask rows."""
        out: dict[str, Any] = {
            "suspicion": round(self.suspicion, 3),
            "flagged": self.flagged,
            "informative_asks": self.informative_asks,
            "asks": len(self._raw),
            "cheat_rate": round(self.cheat_rate, 3),
            "honest_model": self.honest_model,
        }
        if asks:
            out["ask_rows"] = [a.as_dict() for a in self.asks]
        return out


def _fit_models(raw: list[Observed]) -> list[_Fit]:
    """Every model's fit of the game's asks: for each ask and each model of MODELS, p = π_m
    of the rank asked and q = π_m's weight on the ranks the opponent held (``_policy``
    without building the lists, and q only when a rank was held: this runs for every ask
    of every verified game)."""
    nm = len(MODELS)
    log_pi = [0.0] * nm
    gains: list[list[float]] = [[] for _ in range(nm)]
    misses = [0] * nm
    log = math.log
    exp = math.exp
    keep = 1.0 - LEAK
    plan = [(m, model.kind, model.beta) for m, model in enumerate(MODELS)]
    for a in raw:
        ranks = a.ranks
        n = len(ranks)
        if n == 1:
            continue  # π = 1 under every model, and the held set is all or nothing: no evidence
        chances = a.chances
        held = a.held_ranks
        h = len(held)
        i = ranks.index(a.rank)
        leak = LEAK / n
        best = max(chances)
        if not h:  # nothing to tell: only Σ log π
            for m, kind, beta in plan:
                if kind == "uniform":
                    p = 1.0 / n
                elif kind == "soft":
                    w = [exp(beta * (c - best)) for c in chances]
                    p = leak + keep / sum(w) * w[i]
                elif kind == "oldest":
                    p = leak + (keep if i == 0 else 0.0)
                elif kind == "newest":
                    p = leak + (keep if i == n - 1 else 0.0)
                elif kind == "engine":
                    basic = a.basic
                    p = leak + (keep if i == basic.index(max(basic)) else 0.0)
                else:
                    floor = 1.0 - 1e-12 if kind == "memory" else best - 1e-12  # else greedy
                    chosen = [j for j, c in enumerate(chances) if c >= floor]
                    p = leak + (keep / len(chosen) if i in chosen else 0.0) if chosen else 1.0 / n
                log_pi[m] += log(p)
            continue
        hit = a.rank in held
        hidx = [j for j, r in enumerate(ranks) if r in held]
        hl = h * leak
        for m, kind, beta in plan:
            if kind == "uniform":
                p, q = 1.0 / n, h / n
            elif kind == "soft":
                w = [exp(beta * (c - best)) for c in chances]
                k = keep / sum(w)
                wq = 0.0
                for j in hidx:
                    wq += w[j]
                p, q = leak + k * w[i], hl + k * wq
            elif kind == "oldest":
                p, q = leak + (keep if i == 0 else 0.0), hl + (keep if hidx and hidx[0] == 0 else 0.0)
            elif kind == "newest":
                last = n - 1
                p, q = leak + (keep if i == last else 0.0), hl + (keep if hidx and hidx[-1] == last else 0.0)
            elif kind == "engine":
                basic = a.basic
                first = basic.index(max(basic))
                p, q = leak + (keep if i == first else 0.0), hl + (keep if first in hidx else 0.0)
            else:
                floor = 1.0 - 1e-12 if kind == "memory" else best - 1e-12  # else greedy
                chosen = [j for j, c in enumerate(chances) if c >= floor]
                if chosen:
                    k = keep / len(chosen)
                    # how many chosen ranks were held (an exact count, however it is taken)
                    wq = (chosen[0] in hidx) if len(chosen) == 1 else len([j for j in chosen if j in hidx])
                    p, q = leak + (k if i in chosen else 0.0), hl + k * wq
                else:  # memory, sure of no rank: uniform
                    p, q = 1.0 / n, h / n
            log_pi[m] += log(p)
            if q >= 1.0 - 1e-12:
                continue  # nothing to tell: the cheater chooses alike
            if hit:
                gains[m].append(1.0 / q - 1.0)
            else:
                misses[m] += 1
    return [_Fit(model, log_pi[m], gains[m], misses[m]) for m, model in enumerate(MODELS)]


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
    return replay_assessed(seed, moves, deck=deck, partial=partial)[1]


def replay_assessed(
    seed: str | None, moves: list[Any], *, deck: list[str] | None = None, partial: bool = False
) -> tuple[PecheState, GameAssessment]:
    """ENGINE.replay and ``assess`` in one replay: the state (its outcome is the result)
    and the game's assessment. Verification replays a ranked game twice without it (once
    for the result, once inside ``assess``): ~10 % of its CPU (docs/fairplay.md)."""
    watcher = Watcher()
    state = ENGINE.replay({"seed": seed, "deck": deck}, moves, partial=partial, observer=watcher)
    return state, GameAssessment(watcher.observed, state.deck, list(moves))


def judge(raw: list[Observed], deck: list[str] | None = None) -> GameAssessment:
    """``assess`` from asks already observed (bench/fairplay.py plays and observes);
    ``deck``: the deal, for the solver alternative of the weekly rule."""
    return GameAssessment(raw, deck, [o.rank for o in raw])


# --- The solver: a search over the whole deal -----------------------------------------


def _copy(state: PecheState) -> PecheState:
    """A state the search may play on: the deck shared (never written), the rest copied;
    the history starts empty (the rules only append to it)."""
    twin = PecheState(state.deck)
    twin.lake_next = state.lake_next
    twin.hands = [dict(state.hands[0]), dict(state.hands[1])]
    twin.pairs = [list(state.pairs[0]), list(state.pairs[1])]
    twin.pairs_by_rank = dict(state.pairs_by_rank)
    twin.turn = state.turn
    twin.asks = list(state.asks)
    knowledge = twin.knowledge
    knowledge.known = set(state.knowledge.known)
    knowledge.absent = dict(state.knowledge.absent)
    knowledge.draws = state.knowledge.draws
    twin.over = state.over
    return twin


def _line_value(state: PecheState, depth: int) -> int:
    """The best pair difference (player − opponent) reachable within ``depth`` asks."""
    if state.over or depth == 0:
        return len(state.pairs[PLAYER]) - len(state.pairs[OPPONENT])
    best = -peche.ALL_PAIRS
    for rank in list(state.hands[PLAYER]):
        twin = _copy(state)
        peche.ask(twin, rank)
        value = _line_value(twin, depth - 1)
        if value > best:
            best = value
    return best


def solver_moves(state: PecheState, depth: int = SOLVER_DEPTH) -> tuple[str, ...]:
    """The player's asks that lead to the best pair difference it can reach within
    ``depth`` asks, the opponent's replies played by the rules: a solver that knows the
    deal (both hands and the lake). Hand order."""
    values = {}
    for rank in list(state.hands[PLAYER]):
        twin = _copy(state)
        peche.ask(twin, rank)
        values[rank] = _line_value(twin, depth - 1)
    top = max(values.values())
    return tuple(rank for rank, value in values.items() if value == top)


def _pooled(profiles: list[tuple[tuple[float, ...], ...]]) -> tuple[float, str, float]:
    """max over an alternative model m and a rate θ shared by the games of Σ profile[m][θ]."""
    pooled, model, rate = 0.0, "", 0.0
    for m, cheat_model in enumerate(MODELS):
        if not cheat_model.alternative:
            continue
        for t, theta in enumerate(THETA_GRID):
            value = sum(p[m][t] for p in profiles)
            if value > pooled:
                pooled, model, rate = value, cheat_model.name, theta
    return pooled, model, rate


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
    assessed: list[GameAssessment] = []
    for g in games:
        if isinstance(g, GameAssessment):
            values.append(g.suspicion)
            assessed.append(g)
        else:
            values.append(float(g))
    profiles = [g.profile for g in assessed]
    total = sum(max(0.0, v - ALLOWANCE) for v in values)
    pooled, model, rate = _pooled(profiles)
    alternative = "peek" if pooled > 0.0 else ""
    if SOLVER_SCREEN <= pooled < POOLED_THRESHOLD and all(g.solver_profile is not None for g in assessed):
        solved = _pooled([g.solver_profile for g in assessed if g.solver_profile is not None])
        if solved[0] > pooled:
            (pooled, model, rate), alternative = solved, "solver"
    return PlayerAssessment(
        suspicion=total,
        games=len(values),
        flagged=total >= PLAYER_THRESHOLD or pooled >= POOLED_THRESHOLD,
        pooled=pooled,
        pooled_model=model,
        pooled_rate=rate,
        pooled_alternative=alternative,
    )
