"""The detector's other channel: whether the opponent's asks find the player's cards
(games/fairplay/, docs/fairplay.md §3); that its chance is the opponent's rule read on the
posterior is tests/games/test_fairplay.py's. Pure: no Django, no database."""

from __future__ import annotations

import math
import random

import pytest

from games import fairplay
from games.fairplay import players
from games.fairplay.detector import Outcome
from games.rules.cards import shuffled_deck


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
