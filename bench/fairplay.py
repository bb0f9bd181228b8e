"""Fair-play benchmark (not a test): how often games/rules/fairplay.py flags simulated Pêche
cheaters, and how rarely it flags honest players, at the thresholds in force.

    .venv/bin/python -m bench.fairplay [--seeds 3000] [--seed-base 100000] [--sweep]

Every player type plays the same N deals (seeds ``fairplay-<seed-base + i>``) through
``fairplay.WatchedGame`` (the Pêche loop with the fair-play watcher: each ask is recorded
before it is played) and the game is judged with ``fairplay.judge``, exactly what
verification stores for a ranked game.

Honest players see only a ``PublicTable``: their ranks, the public chances and the ranks
the opponent is known to hold (it asked them and was not given). Cheaters also read the
deal: all of it, on a share of their asks, or the part that throwaway players mapped on
the same deck (``DeckMap``). Weeks are 7 games through ``fairplay.accumulate``.

Thresholds are weighed with ``--sweep --seed-base 0`` (calibration seeds 0…); the
figures in docs/fairplay.md come from the default ``--seed-base 100000``, a disjoint
range. Deterministic given the arguments (every random choice comes from a
``random.Random`` seeded by deal and player type); only the time taken varies.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bench.provenance import commit as provenance_commit
from bench.provenance import cpu_model
from games.rules import fairplay
from games.rules.cards import rank_of, shuffled_deck
from games.rules.events import event_json
from games.rules.peche import ENGINE, OPPONENT, PLAYER, Recorder

Z95 = 1.959964
AIM_DETECTION = 0.95  # issue 13: full-knowledge cheaters flagged per game …
AIM_FALSE_POSITIVE = 0.005  # … at no more than this share of honest players
AIM_HONEST_WEEK = 0.002  # issue 27: honest weeks flagged, at most
AIM_PEEK_GAME = 0.95  # issue 27: a held rank on 70 % of the asks, flagged per game …
AIM_PEEK_WEEK = 0.80  # … on 50 %, flagged within a week of 5 games
AIM_SOLVER_WEEK = 0.90  # the solver's move on 50–70 % of the asks, within a week of 5 games
THROWAWAYS = (1, 3, 6, 12)  # throwaway players mapping the deck for the partial cheaters
WEEK = 7
# Where fairplay.py's thresholds were chosen: every type on deals 0 … 1999, the honest
# types also on 2000 … 9999 (their weeks).
CALIBRATION_DEALS = (0, 9999)
QUIET_WEEK = 5  # issue 27's aims for the quiet cheaters: flagged within a week of 5 games


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """95 % Wilson score interval for a binomial proportion (n > 0)."""
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


# --- What a player may look at -------------------------------------------------------


class PublicTable:
    """The honest players' whole view of a game: nothing here reads an opponent card."""

    __slots__ = ("_game",)

    def __init__(self, game: fairplay.WatchedGame) -> None:
        self._game = game

    def ranks(self) -> tuple[str, ...]:
        return self._game.ranks()

    def chances(self, ranks, *, inferred: bool = True) -> tuple[float, ...]:
        return self._game.chances(ranks, inferred=inferred)

    def known(self) -> set[str]:
        """Ranks the opponent must hold: it asked them, was not given, and has not paired them."""
        return set(self._game.knowledge.known)


def _best(ranks, chances, rng: random.Random) -> str:
    """The rank with the highest chance, ties drawn at random."""
    top = max(chances)
    return rng.choice([r for r, c in zip(ranks, chances) if c >= top - 1e-12])


# Honest choosers: (table, rng) -> rank.


def random_asker(table: PublicTable, rng: random.Random) -> str:
    return rng.choice(table.ranks())


def memory_random(table: PublicTable, rng: random.Random) -> str:
    """Remembers what the opponent asked and was not given; otherwise asks at random."""
    ranks = table.ranks()
    known = [r for r in ranks if r in table.known()]
    return rng.choice(known or ranks)


def memory_greedy(table: PublicTable, rng: random.Random) -> str:
    """Remembers, otherwise asks the rank with the highest public chance (a strong player)."""
    ranks = table.ranks()
    known = [r for r in ranks if r in table.known()]
    if known:
        return rng.choice(known)
    return _best(ranks, table.chances(ranks), rng)


def engine_mirror(table: PublicTable, rng: random.Random) -> str:
    """peche.opponent_choice from the player's side: a known rank in hand order, else the
    highest chance by the engine's own formula, the first in hand order on a tie."""
    ranks = table.ranks()
    known = table.known()
    for r in ranks:
        if r in known:
            return r
    chances = table.chances(ranks, inferred=False)
    return ranks[chances.index(max(chances))]


def soft_max(beta: float) -> Callable[[PublicTable, random.Random], str]:
    """Soft-max over the public chances: usually the likeliest rank, sometimes a hunch."""

    def choose(table: PublicTable, rng: random.Random) -> str:
        ranks = table.ranks()
        chances = table.chances(ranks)
        top = max(chances)
        return rng.choices(ranks, [math.exp(beta * (c - top)) for c in chances])[0]

    return choose


def oldest_first(table: PublicTable, rng: random.Random) -> str:
    """A habit, not a strategy: always the card held longest."""
    return table.ranks()[0]


def newest_first(table: PublicTable, rng: random.Random) -> str:
    return table.ranks()[-1]


HONEST: dict[str, Callable[[PublicTable, random.Random], str]] = {
    "random": random_asker,
    "memory, else random": memory_random,
    "memory, else likeliest": memory_greedy,
    "engine's rule mirrored": engine_mirror,
    "soft-max beta 10": soft_max(10.0),
    "soft-max beta 3": soft_max(3.0),
    "oldest card first": oldest_first,
    "newest card first": newest_first,
}
# Issue 27's quiet cheaters: a held rank on a share of the asks, else one of these habits.
PEEK_RATES = (0.7, 0.5)
PEEK_BASES: dict[str, Callable[[PublicTable, random.Random], str]] = {
    "random": random_asker,
    "hand order": oldest_first,
    "memory": memory_random,
}
SOLVER_RATES = (0.7, 0.5)
CHEATERS_BASE = memory_greedy  # what every cheater plays when it does not (or cannot) peek


# --- Cheaters ----------------------------------------------------------------------


def _peek(table: PublicTable, rng: random.Random, held: list[str]) -> str:
    """Of the ranks it knows the opponent holds, the one that looks most innocent (highest
    public chance); with none, the honest choice."""
    if not held:
        return CHEATERS_BASE(table, rng)
    return _best(held, table.chances(held), rng)


def full_knowledge(game: fairplay.WatchedGame, table: PublicTable, rng: random.Random) -> str:
    return _peek(table, rng, list(game.held_ranks(table.ranks())))


def full_random_base(game: fairplay.WatchedGame, table: PublicTable, rng: random.Random) -> str:
    """Full knowledge, but asks at random when the opponent holds none of its ranks: the
    cheater the penalty on the alternative built on the uniform model
    (fairplay.BLIND_PENALTY) could miss most."""
    held = list(game.held_ranks(table.ranks()))
    return _best(held, table.chances(held), rng) if held else random_asker(table, rng)


def ties_only(game: fairplay.WatchedGame, table: PublicTable, rng: random.Random) -> str:
    """Plays "memory, else likeliest" and peeks only to break a tie between ranks of the
    same highest public chance: the least a peek can leave in the choices
    (tests/test_fairplay_review.py's weekly case)."""
    ranks = table.ranks()
    known = [r for r in ranks if r in table.known()]
    if known:
        return rng.choice(known)
    chances = table.chances(ranks)
    top = max(chances)
    tied = [r for r, c in zip(ranks, chances) if c >= top - 1e-12]
    held = [r for r in tied if r in game.held_ranks(ranks)]
    return rng.choice(held or tied)


def occasional(rate: float):
    def choose(game: fairplay.WatchedGame, table: PublicTable, rng: random.Random) -> str:
        if rng.random() < rate:
            return full_knowledge(game, table, rng)
        return CHEATERS_BASE(table, rng)

    return choose


def peeker(rate: float, base: Callable[[PublicTable, random.Random], str]):
    """Issue 27's quiet peeker: on a share ``rate`` of its asks it asks a rank the opponent
    holds (any of them, at random), when it holds one; otherwise ``base``'s choice (random,
    the hand order, or an honest memory player's)."""

    def choose(game: fairplay.WatchedGame, table: PublicTable, rng: random.Random) -> str:
        if rng.random() < rate:
            held = game.held_ranks(table.ranks())
            if held:
                return rng.choice(held)
        return base(table, rng)

    return choose


class NoisySolver:
    """Issue 27's solver with noise: the solver's move on a share ``rate`` of its asks, a
    random rank otherwise. The solver searches every line of its next ``depth`` asks over
    the whole deal (fairplay.solver_moves, the detector's own search at depth 3) and draws
    among the best moves at random, or takes the first of them in hand order (``first``):
    a solver the detector does not know when ``depth`` is not 3 or the tie-break differs."""

    def __init__(self, rate: float, depth: int = fairplay.SOLVER_DEPTH, first: bool = False) -> None:
        self.rate, self.depth, self.first = rate, depth, first

    def __call__(self, game: fairplay.WatchedGame, table: PublicTable, rng: random.Random) -> str:
        if rng.random() < self.rate:
            best = fairplay.solver_moves(game.state, self.depth)
            return best[0] if self.first else rng.choice(best)
        return random_asker(table, rng)


class Mapped:
    """A cheater with a partial map of the deck (``DeckMap``), used only where it proves
    that the opponent holds a rank; otherwise it plays honestly.

    The proof needs only public facts of its own game, kept in a ledger fed by the
    game's events (``see``, after each ask): which deck positions the opponent
    received and when (the deal order and every draw are public), and when the opponent
    last gave or paired each rank (public). If every position that may hold the mapped r
    reached the opponent after its last loss of an r, it still holds that r: a hand
    holds at most one card of a rank, and giving or pairing is the only way out.
    """

    needs_events = True

    def __init__(self, deck_map: DeckMap, tally: list[int]) -> None:
        self.tally = tally  # [asks where the opponent held one of its ranks, of those proven]
        self.facts = [(r, frozenset((p,))) for p, r in deck_map.rank_at.items()] + deck_map.candidates
        self.arrived: dict[int, int] = {}
        self.lost: dict[str, int] = {}

    def start(self, state) -> None:
        self.arrived = dict.fromkeys((1, 3, 5, 7, 9), 0)
        self.lost = dict.fromkeys(state.pairs[OPPONENT], 0)  # paired in the deal
        self.step, self.lake = 1, 10

    def see(self, events: list[dict]) -> None:
        for event in events:
            kind, seat = event["type"], event.get("seat")
            if kind == "draw":
                if seat == OPPONENT:
                    self.arrived[self.lake] = self.step
                self.lake += 1
            elif kind == "pair" and seat == OPPONENT:
                self.lost[event["rank"]] = self.step
            elif kind == "ask" and seat == PLAYER and event["given"]:
                self.lost[event["rank"]] = self.step
            self.step += 1

    def proves(self, rank: str) -> bool:
        lost = self.lost.get(rank, -1)
        return any(
            r == rank and all(self.arrived.get(p, lost) > lost for p in positions) for r, positions in self.facts
        )

    def __call__(self, game: fairplay.WatchedGame, table: PublicTable, rng: random.Random) -> str:
        proven = [r for r in table.ranks() if self.proves(r)]
        # Soundness of the deduction, checked against the server's truth.
        assert all(r in game.state.hands[OPPONENT] for r in proven), (proven, game.state.hands[OPPONENT])
        if game.held_ranks(table.ranks()):
            self.tally[0] += 1
            self.tally[1] += bool(proven)
        return _peek(table, rng, proven)


@dataclass
class DeckMap:
    """What k throwaway players on the same deck could learn of where its ranks lie.

    Facts, all from what a player sees in its own game: the rank at each position it was
    dealt or drew; the rank of an opponent draw that paired at once (the pair is shown);
    and, for each rank the opponent gave it, that one of the positions the opponent had
    received by then holds that rank. Constraint propagation turns the last kind into
    facts when every other candidate is known to hold another rank. Sound, not exhaustive
    (a refused ask's "none of r" is not used).
    """

    deck: list[str]
    rank_at: dict[int, str] = field(default_factory=dict)
    candidates: list[tuple[str, frozenset[int]]] = field(default_factory=list)

    def add_game(self, rng: random.Random) -> None:
        """One throwaway game (a random asker: different players fish different cards)."""
        deck = self.deck
        state = ENGINE.new(deck=deck)
        for i in range(0, 10, 2):
            self.rank_at[i] = rank_of(deck[i])
        opponent_positions = {1, 3, 5, 7, 9}
        lake = 10
        while not state.over:
            events = [event_json(e) for e in ENGINE.apply(state, rng.choice(ENGINE.legal_moves(state)))]
            for i, event in enumerate(events):
                kind = event["type"]
                if kind == "draw":
                    if event["seat"] == PLAYER:
                        self.rank_at[lake] = rank_of(event["card"])  # its own card: seen
                    else:
                        opponent_positions.add(lake)
                        after = events[i + 1] if i + 1 < len(events) else None
                        if after and after["type"] == "pair" and after["seat"] == OPPONENT:
                            self.rank_at[lake] = after["rank"]  # drew and paired at once
                    lake += 1
                elif kind == "ask" and event["seat"] == PLAYER and event["given"]:
                    self.candidates.append((event["rank"], frozenset(opponent_positions)))
        self._propagate()

    def _propagate(self) -> None:
        rank_at = self.rank_at
        changed = True
        while changed:
            changed = False
            left = []
            for rank, positions in self.candidates:
                possible = frozenset(p for p in positions if rank_at.get(p, rank) == rank)
                if len(possible) == 1:
                    (p,) = possible
                    if p not in rank_at:
                        rank_at[p] = rank
                        changed = True
                    continue
                left.append((rank, possible))
            self.candidates = left

    def snapshot(self) -> DeckMap:
        return DeckMap(self.deck, dict(self.rank_at), list(self.candidates))


# --- Playing and judging -----------------------------------------------------------


class Calibration:
    """Are the public chances honest numbers? For every rank in hand at an ask, the chance
    stated (by the detector's formula and by the engine's) against whether the opponent
    held it. Only chances strictly between 0 and 1 count (a known rank is not a guess)."""

    BUCKETS = 10

    def __init__(self) -> None:
        # formula -> bucket -> [ranks, Σ stated chance, held]
        self.rows = {f: [[0, 0.0, 0] for _ in range(self.BUCKETS)] for f in ("detector's", "engine's")}

    def add(self, observed: fairplay.Observed) -> None:
        for formula, chances in (("detector's", observed.chances), ("engine's", observed.basic)):
            rows = self.rows[formula]
            for rank, chance in zip(observed.ranks, chances):
                if 0.0 < chance < 1.0:
                    row = rows[min(self.BUCKETS - 1, int(chance * self.BUCKETS))]
                    row[0] += 1
                    row[1] += chance
                    row[2] += rank in observed.held_ranks

    def merge(self, rows: dict[str, list[list]]) -> None:
        """Add another run's rows (a job's deals)."""
        for formula, buckets in rows.items():
            for mine, theirs in zip(self.rows[formula], buckets):
                for i in range(3):
                    mine[i] += theirs[i]

    def report(self) -> None:
        print("\nPublic chances against the truth (every rank in hand at the honest players' asks)")
        print(f"{'stated':>9}  " + "  ".join(f"{f + ' formula: ranks, mean stated, held':>44}" for f in self.rows))
        for b in range(self.BUCKETS):
            cells = []
            for formula in self.rows:
                n, stated, held = self.rows[formula][b]
                cells.append(
                    f"{n:>10} {stated / n:>14.1%} {held / n:>8.1%} [{wilson(held, n)[0]:.1%}, {wilson(held, n)[1]:.1%}]"
                    if n
                    else f"{'no ranks: no figure':>44}"
                )
            print(f"{b * 10:>3}–{b * 10 + 10:>3} %  " + "  ".join(f"{c:>44}" for c in cells))


def play(
    deck: list[str], choose, rng: random.Random, calibration: Calibration | None = None
) -> fairplay.GameAssessment:
    """One judged game; ``choose(game, table, rng)``. Returns its assessment."""
    recorder = Recorder() if getattr(choose, "needs_events", False) else None
    game = fairplay.WatchedGame(deck, also=recorder)
    table = PublicTable(game)
    if recorder is not None:
        recorder.events.clear()  # the deal's steps: no seat is shown them (ENGINE.new records none)
        choose.start(game.state)
    while not game.over:
        rank = choose(game, table, rng)
        game.ask(rank)
        if calibration is not None:
            calibration.add(game.observed[-1])
        if recorder is not None:
            choose.see([event_json(e) for e in recorder.events])
            recorder.events.clear()
    return fairplay.judge(game.observed, deck)


def honest(chooser):
    # The honest chooser never receives the game: only the table.
    return lambda game, table, rng: chooser(table, rng)


def naive_full(game: fairplay.WatchedGame, table: PublicTable, rng: random.Random) -> str:
    """The first rank in hand order that the opponent holds (tests/test_fairplay_review.py)."""
    hand = game.state.hands[OPPONENT]
    return next((r for r in table.ranks() if r in hand), None) or CHEATERS_BASE(table, rng)


def player_types(
    maps: dict[int, DeckMap], tallies: dict[str, list[int]], *, honest_only: bool = False
) -> dict[str, Callable]:
    """Every player type for one deal (the mapped cheaters use that deal's maps)."""
    types: dict[str, Callable] = {f"honest: {name}": honest(c) for name, c in HONEST.items()}
    if honest_only:
        return types
    types["full knowledge"] = full_knowledge
    types["full, naive (first held rank)"] = naive_full
    types["full, random otherwise"] = full_random_base
    types["ties only"] = ties_only
    for rate in (0.5, 0.3):
        types[f"occasional {rate:.0%}"] = occasional(rate)
    for rate in PEEK_RATES:
        for base_name, base in PEEK_BASES.items():
            types[f"peek {rate:.0%}, {base_name} otherwise"] = peeker(rate, base)
    for rate in SOLVER_RATES:
        types[f"solver {rate:.0%}, random otherwise"] = NoisySolver(rate)
    # Solvers the detector does not know: another depth, another tie-break.
    types["solver 70% (depth 2), random otherwise"] = NoisySolver(0.7, depth=2)
    types["solver 70% (depth 4, first best), random otherwise"] = NoisySolver(0.7, depth=4, first=True)
    for k, deck_map in maps.items():
        name = f"mapped by {k} throwaway{'s' if k > 1 else ''}"
        types[name] = Mapped(deck_map, tallies.setdefault(name, [0, 0]))
    return types


@dataclass
class Game:
    """What the report keeps of one judged game (the first ``--seeds`` deals keep the
    pooled rule's profiles, for the ceilings and the sweep; the further honest deals only
    their figure and their weeks)."""

    suspicion: float
    profile: tuple[tuple[float, ...], ...] = ()
    solver_profile: tuple[tuple[float, ...], ...] | None = None


# Types whose games keep the solver alternative's profile too (the weekly ceiling).
SOLVER_PROFILED = (
    "honest: random",
    "peek 50%, random otherwise",
    "solver 70%, random otherwise",
    "solver 50%, random otherwise",
)
CHUNK = 35  # deals per job: whole weeks of 7 and of 5


def week_rows(out: dict[str, list[fairplay.GameAssessment]]) -> dict[str, list[list[fairplay.GameAssessment]]]:
    """The weeks of a chunk of deals (``out``: each type's games in deal order, the chunk a
    multiple of 35 deals): 7-game weeks for honest players, the occasional, mapped and
    ties-only cheaters and the mixtures; issue 27's quiet cheaters in weeks of QUIET_WEEK
    games (its aims: "within a week of 5"). Each game of a week is from a different deal."""

    def split(games, size):
        return [games[i : i + size] for i in range(0, len(games) - size + 1, size)]

    result = {name: split(games, WEEK) for name, games in out.items() if is_honest(name)}
    if "full knowledge" not in out:
        return result
    base, full = out["honest: memory, else likeliest"], out["full knowledge"]  # the cheaters' own honest play
    n = len(full) // WEEK
    result["full knowledge in 1 of 7"] = [
        base[WEEK * j : WEEK * j + 6] + full[WEEK * j + 6 : WEEK * j + 7] for j in range(n)
    ]
    result["full knowledge in 2 of 7"] = [
        base[WEEK * j : WEEK * j + 5] + full[WEEK * j + 5 : WEEK * j + 7] for j in range(n)
    ]
    for name, games in out.items():
        if name.startswith(("occasional", "mapped", "ties")):
            result[f"{name}, every game"] = split(games, WEEK)
        elif name.startswith(("peek", "solver")):
            result[f"{name}, {QUIET_WEEK} games"] = split(games, QUIET_WEEK)
    return result


def _chunk(job: tuple[int, int, int, int]) -> tuple[dict, dict, dict, dict]:
    """Deals ``start`` … ``stop``−1 of the range: every type on the first ``seeds``, honest
    types only beyond. Returns the games kept, the weeks judged, the mapped cheaters'
    tallies and the calibration rows."""
    start, stop, seed_base, seeds = job
    out: dict[str, list[fairplay.GameAssessment]] = {}
    tallies: dict[str, list[int]] = {}
    calibration = Calibration()
    for i in range(start, stop):
        seed = f"fairplay-{seed_base + i}"
        deck = shuffled_deck(seed)
        maps: dict[int, DeckMap] = {}
        if i < seeds:
            deck_map, made = DeckMap(deck), 0
            for k in THROWAWAYS:
                while made < k:
                    deck_map.add_game(random.Random(f"{seed}/throwaway/{made}"))
                    made += 1
                maps[k] = deck_map.snapshot()
        for name, choose in player_types(maps, tallies, honest_only=i >= seeds).items():
            out.setdefault(name, []).append(
                play(deck, choose, random.Random(f"{seed}/{name}"), calibration if is_honest(name) else None)
            )
    judged = {name: [fairplay.accumulate(w) for w in rows] for name, rows in week_rows(out).items()}
    kept = {}
    for name, games in out.items():
        full = start < seeds
        kept[name] = [
            Game(
                g.suspicion,
                g.profile if full else (),
                g.solver_profile if full and name in SOLVER_PROFILED else None,
            )
            for g in games
        ]
    return kept, judged, tallies, calibration.rows


def run(
    seeds: int, seed_base: int, honest_deals: int = 0, calibration: Calibration | None = None, jobs: int = 1
) -> tuple[dict[str, list[Game]], dict[str, list[fairplay.PlayerAssessment]], dict[str, float]]:
    """Games by player type in deal order (honest types on ``honest_deals`` deals, the
    others on ``seeds``), the weeks judged, and for each mapped cheater the share of its
    asks with a held rank available at which its map proved one. Deterministic whatever
    ``jobs`` (the deals are split in chunks of whole weeks)."""
    total = max(seeds, honest_deals)
    chunks = [(a, min(a + CHUNK, total), seed_base, seeds) for a in range(0, total, CHUNK)]
    if jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            parts = list(pool.imap(_chunk, chunks))
    else:
        parts = [_chunk(c) for c in chunks]
    games: dict[str, list[Game]] = {}
    weeks_: dict[str, list[fairplay.PlayerAssessment]] = {}
    tallies: dict[str, list[int]] = {}
    for kept, judged, tally, rows in parts:
        for name, g in kept.items():
            games.setdefault(name, []).extend(g)
        for name, w in judged.items():
            weeks_.setdefault(name, []).extend(w)
        for name, (held, proven) in tally.items():
            t = tallies.setdefault(name, [0, 0])
            t[0] += held
            t[1] += proven
        if calibration is not None:
            calibration.merge(rows)
    return games, weeks_, {name: proven / held for name, (held, proven) in tallies.items() if held}


def suspicions(games: dict[str, list[Game]]) -> dict[str, list[float]]:
    return {name: [g.suspicion for g in gs] for name, gs in games.items()}


# --- Reporting ----------------------------------------------------------------------


def machine() -> str:
    return f"{cpu_model()}, {os.cpu_count()} cores, python {platform.python_version()}"


def commit() -> str:
    return provenance_commit("games/rules/fairplay.py", "bench/fairplay.py")


def rate_row(label: str, hits: int, n: int, width: int = 34) -> tuple[str, float | None]:
    if n == 0:
        return f"{label:<{width}} {'no games: no figure':>40}", None
    lo, hi = wilson(hits, n)
    return f"{label:<{width}} {n:>6} {hits:>7} {hits / n:>8.2%}  [{lo:.2%}, {hi:.2%}]", hits / n


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def is_honest(name: str) -> bool:
    return name.startswith("honest: ")


def aim_line(label: str, hits: int, n: int, aim: float, *, at_most: bool = False) -> str:
    """One aim, its rate and 95 % Wilson interval: "confirmed" when the whole interval is
    on the aim's side, "met, not confirmed" when only the rate is, else "NOT met"."""
    if n == 0:
        return f"  {label}: no games, not judged"
    lo, hi = wilson(hits, n)
    rate = hits / n
    if at_most:
        verdict = "confirmed" if hi <= aim else "met, not confirmed" if rate <= aim else "NOT met"
        sign = "<="
    else:
        verdict = "confirmed" if lo >= aim else "met, not confirmed" if rate >= aim else "NOT met"
        sign = ">="
    return f"  {label} {sign} {aim:.1%}: {hits}/{n} = {rate:.2%} [{lo:.2%}, {hi:.2%}] — {verdict}"


def report(
    games: dict[str, list[Game]], judged: dict[str, list[fairplay.PlayerAssessment]], pinned: dict[str, float]
) -> bool:
    """Print the figures at the thresholds in force; True if issue 13's aim is met."""
    out = suspicions(games)
    t = fairplay.FLAG_THRESHOLD
    header = f"{'player':<34} {'games':>6} {'flagged':>7} {'rate':>8}  95% Wilson"
    print(f"\nPer game, flagged at suspicion >= FLAG_THRESHOLD = {t} nats")
    print(header + f"    {'median':>6} {'99.5%':>6} {'max':>6}")
    print("-" * (len(header) + 26))
    worst_honest: float | None = 0.0
    worst_upper = 0.0  # the highest upper 95 % bound among honest types
    for name in filter(is_honest, out):
        values = out[name]
        hits = sum(v >= t for v in values)
        line, r = rate_row(name, hits, len(values))
        if values:
            line += f"  {statistics.median(values):>6.2f} {quantile(values, 0.995):>6.2f} {max(values):>6.2f}"
            worst_upper = max(worst_upper, wilson(hits, len(values))[1])
        print(line)
        worst_honest = None if r is None or worst_honest is None else max(worst_honest, r)
    full_rate = None
    for name, values in out.items():
        if is_honest(name):
            continue
        line, r = rate_row(name, sum(v >= t for v in values), len(values), 50)
        if values:
            line += f"  {statistics.median(values):>6.2f}"
        if name in pinned:
            line += f"   (a held rank proven at {pinned[name]:.0%} of the asks with one)"
        print(line)
        if name == "full knowledge":
            full_rate = r

    print(
        f"\nWeeks of {WEEK} games ({QUIET_WEEK} for issue 27's peekers and solvers): flagged when "
        f"Σ max(0, suspicion − ALLOWANCE = {fairplay.ALLOWANCE}) >= PLAYER_THRESHOLD = {fairplay.PLAYER_THRESHOLD}"
        f" or pooled >= POOLED_THRESHOLD = {fairplay.POOLED_THRESHOLD} (the solver alternative searched when the"
        f" peek alternative reaches SOLVER_SCREEN = {fairplay.SOLVER_SCREEN})"
    )
    print(f"{'week':<56} {'weeks':>6} {'flagged':>7} {'rate':>8}  95% Wilson       by sum  by peek  by solver")
    print("-" * 120)
    week_honest: float | None = 0.0
    counts: dict[str, tuple[int, int]] = {}
    all_honest = [0, 0]
    for name, rows in judged.items():
        flagged = sum(a.flagged for a in rows)
        counts[name] = (flagged, len(rows))
        line, r = rate_row(name, flagged, len(rows), 56)
        by_sum = sum(a.suspicion >= fairplay.PLAYER_THRESHOLD for a in rows)
        by_peek = sum(a.pooled >= fairplay.POOLED_THRESHOLD and a.pooled_alternative == "peek" for a in rows)
        by_solver = sum(a.pooled >= fairplay.POOLED_THRESHOLD and a.pooled_alternative == "solver" for a in rows)
        print(line + f"  {by_sum:>6} {by_peek:>8} {by_solver:>10}")
        if is_honest(name):
            week_honest = None if r is None or week_honest is None else max(week_honest, r)
            all_honest[0] += flagged
            all_honest[1] += len(rows)

    print("\nAims of issue 27 (95 % Wilson intervals)")
    for name in filter(is_honest, out):
        hits, n = sum(v >= t for v in out[name]), len(out[name])
        print(aim_line(f"{name}: games flagged", hits, n, AIM_FALSE_POSITIVE, at_most=True))
    for name, (hits, n) in counts.items():
        if is_honest(name):
            print(aim_line(f"{name}: {WEEK}-game weeks flagged", hits, n, AIM_HONEST_WEEK, at_most=True))
    print(
        aim_line(f"every honest type together: {WEEK}-game weeks flagged", *all_honest, AIM_HONEST_WEEK, at_most=True)
    )
    for rate, aim, scope in ((0.7, AIM_PEEK_GAME, "game"), (0.5, AIM_PEEK_WEEK, "week")):
        for base in PEEK_BASES:
            name = f"peek {rate:.0%}, {base} otherwise"
            if scope == "game":
                hits, n = sum(v >= t for v in out[name]), len(out[name])
                print(aim_line(f"{name}: games flagged", hits, n, aim))
            else:
                hits, n = counts[f"{name}, {QUIET_WEEK} games"]
                print(aim_line(f"{name}: {QUIET_WEEK}-game weeks flagged", hits, n, aim))
    for name, (hits, n) in counts.items():
        if name.startswith("solver"):
            print(aim_line(f"{name}-game weeks flagged".replace(" games-game", "-game"), hits, n, AIM_SOLVER_WEEK))

    ceiling(games)
    print()
    if full_rate is None or worst_honest is None:
        print("aim (issue 13): not judged — a figure above has no games")
        return False
    met = full_rate >= AIM_DETECTION and worst_honest <= AIM_FALSE_POSITIVE
    print(
        f"aim (issue 13): >= {AIM_DETECTION:.0%} of full-knowledge cheaters flagged per game at <= "
        f"{AIM_FALSE_POSITIVE:.1%} of honest players: {full_rate:.2%} at {worst_honest:.2%} "
        f"(worst honest type) — {'met' if met else 'NOT met'}"
    )
    if met and worst_upper > AIM_FALSE_POSITIVE:
        print(f"  not confirmed: too few games (the worst honest type's upper 95 % bound is {worst_upper:.2%})")
        met = False
    if week_honest is not None:
        print(f"weekly rule: worst honest type's weeks flagged {week_honest:.2%}")
    return met


def _drawn_weeks(values: list[float], size: int, n: int, seed: str) -> list[float]:
    """Sums of ``size`` values drawn at random (with replacement): weeks for a tail."""
    rng = random.Random(seed)
    return sorted(sum(values[rng.randrange(len(values))] for _ in range(size)) for _ in range(n))


def ceiling(games: dict[str, list[Game]]) -> None:
    """How far any test can go against a quiet cheater: the Neyman–Pearson test, which
    knows the cheater's habit and rate exactly and has to spare only the one honest type
    that shares its habit (its log-likelihood ratio at that θ, from the games' profiles).
    Per game at 0.5 % of that honest type; per 5-game week at the share of honest weeks
    the weekly rule allows (AIM_HONEST_WEEK, and a tenth of it: what a report can confirm),
    from 20,000 weeks drawn from the honest type's games."""
    names = [m.name for m in fairplay.MODELS]
    print("\nCeiling per game: the most powerful test of one known alternative against one honest type")
    for base, model, honest_name in (
        ("random", "random", "honest: random"),
        ("memory", "memory", "honest: memory, else random"),
    ):
        m = names.index(model)
        for rate in PEEK_RATES:
            t = fairplay.THETA_GRID.index(rate)
            name = f"peek {rate:.0%}, {base} otherwise"
            honest_games = [g for g in games.get(honest_name, []) if g.profile]
            if not games.get(name) or not honest_games:
                continue
            honest_values = sorted(g.profile[m][t] - g.profile[m][0] for g in honest_games)
            cut = honest_values[min(len(honest_values) - 1, int(0.995 * len(honest_values)))]
            hits = sum(g.profile[m][t] - g.profile[m][0] > cut for g in games[name])
            n = len(games[name])
            lo, hi = wilson(hits, n)
            print(
                f"  {name}: {hits}/{n} = {hits / n:.1%} [{lo:.1%}, {hi:.1%}] at 0.5 % of '{honest_name}' "
                f"(ratio at θ = {rate} above {cut:.2f} nats)"
            )
    print(f"\nCeiling per {QUIET_WEEK}-game week, against 'honest: random' weeks (the same test, summed over the week)")
    m = names.index("random")
    honest_games = [g for g in games.get("honest: random", []) if g.solver_profile is not None]
    for name, rate, which in (
        ("peek 50%, random otherwise", 0.5, "profile"),
        ("solver 70%, random otherwise", 0.7, "solver_profile"),
        ("solver 50%, random otherwise", 0.5, "solver_profile"),
    ):
        cheat_games = [g for g in games.get(name, []) if getattr(g, which)]
        if not cheat_games or not honest_games:
            continue
        t = fairplay.THETA_GRID.index(rate)

        def lr(g: Game, which: str = which, t: int = t) -> float:
            p = getattr(g, which)
            return p[m][t] - p[m][0]

        honest_weeks = _drawn_weeks([lr(g) for g in honest_games], QUIET_WEEK, 20000, name)
        cheat_weeks = [
            sum(lr(g) for g in cheat_games[i : i + QUIET_WEEK])
            for i in range(0, len(cheat_games) - QUIET_WEEK + 1, QUIET_WEEK)
        ]
        cells = []
        for share in (AIM_HONEST_WEEK, AIM_HONEST_WEEK / 10):
            cut = honest_weeks[min(len(honest_weeks) - 1, int((1 - share) * len(honest_weeks)))]
            hits = sum(v > cut for v in cheat_weeks)
            lo, hi = wilson(hits, len(cheat_weeks))
            cells.append(
                f"at {share:.2%} of honest weeks {hits}/{len(cheat_weeks)} = {hits / len(cheat_weeks):.1%} [{lo:.1%}, {hi:.1%}]"
            )
        kind = "the solver's move" if which == "solver_profile" else "a held rank"
        print(f"  {name} ({kind} at θ = {rate}): " + "; ".join(cells))


def sweep(games: dict[str, list[Game]]) -> None:
    """Calibration: the per-game threshold, and the weekly rule's parameters (the peek
    alternative only: the solver's needs a search per ask), on honest weeks drawn from the
    games kept with their profiles."""
    out = suspicions(games)
    print("\nSweep (calibration): per-game threshold")
    cheat_names = [n for n in out if not is_honest(n)]
    print(f"{'threshold':>9} {'worst honest':>13} " + " ".join(f"{n[:14]:>14}" for n in cheat_names))
    for t in (3.0, 3.5, 3.75, 4.0, 4.25, 4.5, 4.75, 5.0, 5.5, 6.0, 7.0, 8.0):
        worst = max(sum(v >= t for v in out[n]) / len(out[n]) for n in filter(is_honest, out))
        print(
            f"{t:>9.2f} {worst:>13.3%} "
            + " ".join(f"{sum(v >= t for v in out[n]) / len(out[n]):>14.1%}" for n in cheat_names)
        )
    kept = {name: [g for g in gs if g.profile] for name, gs in games.items()}
    if len(kept.get("full knowledge", [])) < WEEK:
        print(f"\nno weekly sweep: fewer than {WEEK} deals")
        return
    names = [m for m in fairplay.MODELS]

    def pooled(week: list[Game]) -> float:
        return max(
            [0.0]
            + [
                sum(g.profile[m][t] for g in week)
                for m, model in enumerate(names)
                if model.alternative
                for t in range(1, len(fairplay.THETA_GRID))
            ]
        )

    rng = random.Random("sweep")
    honest_weeks = {
        name: [[gs[rng.randrange(len(gs))] for _ in range(WEEK)] for _ in range(5000)]
        for name, gs in kept.items()
        if is_honest(name)
    }
    base, full = kept["honest: memory, else likeliest"], kept["full knowledge"]
    cheat_weeks = {
        "full in 1 of 7": [base[i : i + 6] + full[i + 6 : i + 7] for i in range(0, len(full) - WEEK + 1, WEEK)],
        **{
            n: [kept[n][i : i + QUIET_WEEK] for i in range(0, len(kept[n]) - QUIET_WEEK + 1, QUIET_WEEK)]
            for n in kept
            if n.startswith(("peek 50", "solver 70%, ", "solver 50"))
        },
    }
    pooled_h = {n: [pooled(w) for w in ws] for n, ws in honest_weeks.items()}
    pooled_c = {n: [pooled(w) for w in ws] for n, ws in cheat_weeks.items()}
    print(
        "\nSweep (calibration): weekly rule, allowance A, sum threshold T1, pooled threshold T2 "
        "(worst honest type's drawn 7-game weeks, then each cheater's weeks; peek alternative only)"
    )
    print(f"{'A':>5} {'T1':>4} {'T2':>4} {'honest':>8} " + " ".join(f"{n[:16]:>16}" for n in cheat_weeks))
    for allowance in (0.75, 1.5, 2.5, 3.5):
        for t1 in (7.0, 9.0, 11.0):
            for t2 in (4.0, 4.5, 5.0, 6.0):

                def flag(week, p, a=allowance, t1=t1, t2=t2):
                    return sum(max(0.0, g.suspicion - a) for g in week) >= t1 or p >= t2

                worst = max(
                    sum(flag(w, p) for w, p in zip(ws, pooled_h[n])) / len(ws) for n, ws in honest_weeks.items()
                )
                print(
                    f"{allowance:>5} {t1:>4.0f} {t2:>4} {worst:>8.3%} "
                    + " ".join(
                        f"{sum(flag(w, p) for w, p in zip(ws, pooled_c[n])) / len(ws):>16.1%}"
                        for n, ws in cheat_weeks.items()
                    )
                )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1505, help="distinct deals, each played by every player type")
    parser.add_argument(
        "--honest-deals",
        type=int,
        default=21000,
        help="deals played by the honest types (the first --seeds shared with the cheaters): the weekly false positives",
    )
    parser.add_argument(
        "--seed-base", type=int, default=100000, help="first deal (reported figures: 100000…; calibration: 0…)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes (the figures do not depend on it)")
    parser.add_argument("--sweep", action="store_true", help="also print the calibration tables")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    # Whole weeks of 7 and of 5 in every chunk of deals.
    seeds = -(-args.seeds // CHUNK) * CHUNK
    honest_deals = -(-max(args.honest_deals, seeds) // CHUNK) * CHUNK
    started = time.perf_counter()
    print(
        f"fair-play detector: {seeds} deals (fairplay-{args.seed_base} … fairplay-{args.seed_base + seeds - 1}), "
        f"each played by every player type below; the honest types on {honest_deals} deals "
        f"(… fairplay-{args.seed_base + honest_deals - 1})"
    )
    print(f"commit {commit()}, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {machine()}, {args.jobs} job(s)")
    last = args.seed_base + honest_deals - 1
    if last < CALIBRATION_DEALS[0] or args.seed_base > CALIBRATION_DEALS[1]:
        print(
            f"seed range: REPORT — the thresholds were chosen on the calibration deals "
            f"fairplay-{CALIBRATION_DEALS[0]} … {CALIBRATION_DEALS[1]}, none of which is played here"
        )
    else:
        print(
            f"seed range: CALIBRATION (overlaps fairplay-{CALIBRATION_DEALS[0]} … {CALIBRATION_DEALS[1]}, "
            "where the thresholds were chosen): not a report"
        )
    calibration = Calibration()
    games, judged, pinned = run(seeds, args.seed_base, honest_deals, calibration, args.jobs)
    report(games, judged, pinned)
    calibration.report()
    if args.sweep:
        sweep(games)
    print(f"\n{time.perf_counter() - started:.1f}s")


if __name__ == "__main__":
    main()
