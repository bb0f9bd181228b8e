"""The detector's other channel: whether the opponent's asks find the player's cards
(games/fairplay/, docs/fairplay.md §3). Pure: no Django, no database."""

from __future__ import annotations

import math
import random

import pytest

from games import fairplay
from games.fairplay import players
from games.fairplay.detector import Outcome
from games.fairplay.posterior import Posterior, mask_of
from games.rules import peche
from games.rules.cards import shuffled_deck
from games.rules.peche import PLAYER, PecheState, opponent_miss
from tests.games.test_fairplay import SetBySet


def plain_finds(plain: SetBySet, state: PecheState) -> float:
    """The chance that the opponent's next ask names a rank the player holds, by the
    definition: for each set of ranks it may hold, its rule (a rank it knows the player
    holds if any, else one of its ranks with the highest chance, ties alike)."""
    mine = mask_of(state.hands[PLAYER])
    known = mask_of(state.knowledge.known)
    total = found = 0.0
    for held, w in plain.belief.items():
        total += w
        if held & known:
            found += w
            continue
        chances = {}
        for q in range(13):
            if held >> q & 1:
                rank = peche.RANKS[q]
                n, d = opponent_miss(state, rank)
                chances[q] = 1 - n / d
        top = max(chances.values())
        tied = [q for q, c in chances.items() if math.isclose(c, top, rel_tol=0, abs_tol=1e-12)]
        found += w * sum(1 for q in tied if mine >> q & 1) / len(tied)
    return found / total


class Finds(peche.Observer):
    """Before each of the opponent's choices: the lumped and the plain chance of a find."""

    def __init__(self, lumped: Posterior, plain: SetBySet) -> None:
        self.lumped, self.plain, self.pairs = lumped, plain, []

    def choice(self, state: PecheState, rank: str) -> None:
        self.pairs.append((self.lumped.opponent_finds(state), plain_finds(self.plain, state)))


def test_the_chance_of_a_find_is_the_opponents_rule_over_every_set():
    """At every choice of the opponent in 60 games, the chance that its ask finds a card of
    the player (the lumped posterior, levels of chance) is the plain one (set by set, the
    rule read as written), to rounding; and both kinds of answer occur."""
    worst, finds = 0.0, []
    for i in range(60):
        lumped, plain = Posterior(), SetBySet()
        watch = Finds(lumped, plain)
        # the reader first: it must see the posterior before the choice teaches it
        both = peche.Observers(watch, lumped, plain)
        state = peche.deal(shuffled_deck(f"finds-{i}"), both)
        rng = random.Random(i)
        while not state.over:
            peche.ask(state, rng.choice(tuple(state.hands[0])), both)
        worst = max([worst, *(abs(a - b) for a, b in watch.pairs)])
        finds += [a for a, _ in watch.pairs]
    assert worst < 1e-9
    assert any(0.05 < p < 0.95 for p in finds) and any(p == 1.0 for p in finds) and any(p == 0.0 for p in finds)


@pytest.mark.parametrize("p", [0.01, 0.3, 0.77, 0.99])
def test_an_outcomes_weight_has_expectation_one_at_the_tables_chance(p):
    """Whatever the tilt ρ, the weight of an outcome averaged over the table's chance of it
    is 1: no honest luck has an edge in expectation (Ville's condition)."""
    for rho in fairplay.detector.RHOS:
        good, bad = Outcome("opponent", p, True), Outcome("opponent", p, False)
        assert p * math.exp(good.log_lr(rho)) + (1 - p) * math.exp(bad.log_lr(rho)) == pytest.approx(1.0)
        assert rho == 1.0 or good.log_lr(rho) > 0 > bad.log_lr(rho)


def test_a_line_that_steers_the_opponent_speaks_through_the_opponents_asks():
    """The solver's line (the deck known, 3 asks deep) keeps the opponent from finding its
    cards: over 120 deals the opponent channel adds to its figure in most games, and the
    game rule with it flags more of them than the answers to its own asks alone would."""
    solver = players.solver_guided(1.0)
    shares, with_it, asks_alone = [], 0, 0
    for i in range(120):
        seed = f"steer-{i}"
        _, assessed, _ = players.play(shuffled_deck(seed), solver, random.Random(seed))
        shares.append(assessed.channels["opponent"])
        with_it += assessed.flagged
        asks_alone += assessed.channels["asks"] >= fairplay.FLAG_THRESHOLD
        tally = assessed.tallies()["opponent"]
        assert tally["count"] >= tally["good"] >= 0
    assert sum(s > 0 for s in shares) > 0.7 * len(shares)
    assert with_it > asks_alone + 10, (with_it, asks_alone)


def test_a_profile_stored_before_the_opponent_was_weighed_reads_as_its_asks_alone():
    """Results verified before this channel stored 10 values: they read as a game whose
    opponent said nothing, and a week that mixes them sums as before."""
    _, assessed, _ = players.play(shuffled_deck("old-0"), players.uniform, random.Random(0))
    old = {"profile": list(assessed.profile[: len(fairplay.THETAS)])}
    read = fairplay.profile_of(old)
    assert read is not None and len(read) == len(assessed.profile)
    assert read[: len(fairplay.THETAS)] == pytest.approx(assessed.profile[: len(fairplay.THETAS)])
    assert all(v == 0.0 for v in read[len(fairplay.THETAS) :])
    assert fairplay.figure(read) == pytest.approx(assessed.channels["asks"])
