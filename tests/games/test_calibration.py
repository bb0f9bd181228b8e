"""The table's chances come true for honest players, on every channel the detector weighs
(games/fairplay/, bench/calibration.py for the full measure). Pure: no Django, no database."""

from __future__ import annotations

import math
import random

from games.fairplay import players
from games.rules.cards import shuffled_deck

# A fixed panel: the perfect-memory player who breaks ties by its leftmost card (the policy
# on which the tie-break read as if at random was furthest off: +9.8 standard errors on the
# opponent's asks over 3,000 deals) and the random one, 800 deals each.
PANEL = ("memory, ties leftmost", "random")
DEALS = 800
CHANNELS = ("asks", "opponent", "player_draws", "opponent_draws")


def test_a_fixed_panel_comes_out_as_the_table_says_on_every_channel():
    """For each policy and channel, the pooled excess Σ(outcome − chance) of 800 deals stays
    within 3 standard errors (√Σ chance·(1 − chance)): the asks' hits, whether the
    opponent's asks found none of the player's ranks, whether the draws paired. With the
    opponent's tie-break taken as random among the tied ranks (the posterior before it
    read the hand's order), the opponent's channel of the first policy is at +4.7 (fails)."""
    failures = []
    for name in PANEL:
        chooser = dict(players.PANEL)[name]
        excess = dict.fromkeys(CHANNELS, 0.0)
        spread = dict.fromkeys(CHANNELS, 0.0)
        for i in range(DEALS):
            seed = f"calibration-test-{i}"
            _, assessed, _ = players.play(shuffled_deck(seed), chooser, random.Random(f"{seed}/{name}"), draws=True)
            outcomes = [(a.public_chance, a.held, "asks") for a in assessed.asks if a.counted]
            outcomes += [(o.p, o.good, o.channel) for o in assessed.outcomes if o.counted]
            for p, came, channel in outcomes:
                excess[channel] += came - p
                spread[channel] += p * (1 - p)
        for channel in CHANNELS:
            z = excess[channel] / math.sqrt(spread[channel])
            if abs(z) >= 3:
                failures.append((name, channel, round(z, 2)))
    assert not failures, failures
