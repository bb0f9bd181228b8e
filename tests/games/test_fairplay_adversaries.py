"""The table-only adversaries of games/fairplay/players.py (issue 47): they read the table
and nothing else, and play the rules' asks. Pure: no Django, no database."""

from __future__ import annotations

import random

import pytest

from games.fairplay import players
from games.rules.cards import shuffled_deck


class _Blind(players.Truth):
    """A truth no honest player may read: any look at it fails the test."""

    def __init__(self) -> None:
        pass

    def held(self, ranks: tuple[str, ...]) -> list[str]:
        raise AssertionError("a table-only player read the opponent's hand")

    def solver(self) -> tuple[str, ...]:
        raise AssertionError("a table-only player asked the solver")


@pytest.mark.parametrize("name", [name for name, _ in players.ADVERSARIES])
def test_an_adversary_reads_only_the_table_and_plays_legal_asks(name):
    chooser = dict(players.ADVERSARIES)[name]
    blind = _Blind()

    def table_only(table: players.Table, truth: players.Truth, rng: random.Random) -> str:
        rank = chooser(table, blind, rng)
        assert rank in table.ranks()
        return rank

    for i in range(5):
        # players.play refuses an illegal ask (peche.ask raises) and plays to the end
        moves, _, outcome = players.play(shuffled_deck(f"adversary-{i}"), table_only, random.Random(i))
        assert moves and outcome.counts[0] + outcome.counts[1] == 26


def test_the_tie_reader_notes_passes_and_departs_from_the_table():
    """The reader has something to read: over a few deals the opponent passes over one of
    the player's ranks against a rank it held long, and the exploit then asks off-greedy."""
    passes = 0

    def counting(table: players.Table, truth: players.Truth, rng: random.Random) -> str:
        nonlocal passes
        passes += sum(table.passed_over().values())
        return players.tie_exploit(table, truth, rng)

    for i in range(20):
        players.play(shuffled_deck(f"reader-{i}"), counting, random.Random(i))
    assert passes > 0
