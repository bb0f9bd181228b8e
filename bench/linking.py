"""Linking benchmark (not a test): how often the copy rule of leaderboard/linking.py would
hold an honest player, and how often it holds a main account that replays its throwaways'
best line (docs/fairplay.md, "Copies of fresh lines"). Pure play: no database.

    .venv/bin/python -m bench.linking [--deals 1000] [--seed-base 0]

Every deal: each honest player of bench/fairplay.py (``HONEST``), each habit linking knows
(``linking.HABITS``) and a few deterministic habits it does not know (``UNKNOWN``) plays the
deal twice, with two independent random streams (two players of one habit). A newcomer's
game played first, an established player's game after it: the later one is held when
``linking.judge_fresh`` finds a copy and it wins (score above linking.WON), as at
verification. Then the cheaters: k throwaways (fresh) play the deal, and the main replays
the line of theirs that scored most.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import time
from collections import Counter
from collections.abc import Callable

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from bench.fairplay import HONEST, PublicTable, memory_greedy, random_asker, wilson  # noqa: E402
from bench.provenance import commit, machine  # noqa: E402
from games.rules import fairplay  # noqa: E402
from games.rules.cards import shuffled_deck  # noqa: E402
from games.rules.peche import ENGINE, outcome_of  # noqa: E402
from leaderboard import linking  # noqa: E402

Chooser = Callable[[fairplay.WatchedGame, PublicTable, random.Random], str]


def _table_only(choose) -> Chooser:
    return lambda game, table, rng: choose(table, rng)


def _habit_only(choose) -> Chooser:
    # linking's habits read the watched game's public side only (ranks, knowledge, chances).
    return lambda game, table, rng: choose(game)


# Deterministic table-only habits that linking does not list: ties to the second card from
# the left or to the middle one, and a contrarian who asks the least likely rank.
def _second(ranks):
    return [*ranks[1:2], *ranks[:1], *ranks[2:]]


def _middle(ranks):
    return [*ranks[len(ranks) // 2 :], *ranks[: len(ranks) // 2]]


def _least_likely(game: fairplay.WatchedGame, table: PublicTable, rng: random.Random) -> str:
    ranks = table.ranks()
    chances = table.chances(ranks)
    return ranks[chances.index(min(chances))]


UNKNOWN: dict[str, Chooser] = {
    "always the second card": _habit_only(linking.habit(_second, "none")),
    "memory, else likeliest, ties to the second card": _habit_only(linking.habit(_second, "likeliest")),
    "memory, else likeliest, ties to the middle card": _habit_only(linking.habit(_middle, "likeliest")),
    "the least likely rank": _least_likely,
}
PLAYERS: dict[str, Chooser] = {
    **{f"honest: {name}": _table_only(c) for name, c in HONEST.items()},
    **{f"known habit: {name}": _habit_only(c) for name, c in linking.HABITS.items()},
    **{f"unknown habit: {name}": c for name, c in UNKNOWN.items()},
}
THROWAWAYS = (1, 3, 6, 24)
EXPLORERS: dict[str, Chooser] = {
    "random": _table_only(random_asker),
    "memory, else likeliest (random ties)": _table_only(memory_greedy),
}
T0 = dt.datetime(2026, 12, 4, 8, tzinfo=dt.UTC)


def play(deck: list[str], choose: Chooser, rng: random.Random) -> tuple[str, ...]:
    game = fairplay.WatchedGame(list(deck))
    table = PublicTable(game)
    moves: list[str] = []
    while not game.over:
        moves.append(choose(game, table, rng))
        game.ask(moves[-1])
    return tuple(moves)


def score(seed: str, moves: tuple[str, ...]) -> int:
    points = outcome_of(ENGINE.replay({"seed": seed}, list(moves))).score
    assert points is not None  # a Pêche game always scores
    return points


def held(
    seed: str, explorer: tuple[str, ...], late: tuple[str, ...], explored: tuple[tuple[str, ...], ...] = ()
) -> bool:
    """Whether ``late`` (an established player's, done last) is held as a copy of the fresh
    players' games ``explorer`` (and ``explored``), as at verification."""
    if score(seed, late) <= linking.WON:
        return False
    earlier = [
        linking.Line(i, 100 + i, line, T0 + dt.timedelta(minutes=i), True, None)
        for i, line in enumerate([explorer, *explored], start=1)
    ]
    late_line = linking.Line(0, 1, late, T0 + dt.timedelta(hours=1), True, None)
    return linking.judge_fresh(seed, late_line, earlier, {line.player_id for line in earlier}) is not None


def run(deals: int, seed_base: int) -> dict:
    same: Counter[str] = Counter()
    copies: Counter[str] = Counter()
    cross = Counter[str]()
    caught: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    best_of_habits = {"wins": 0, "gain": 0}
    for i in range(seed_base, seed_base + deals):
        seed = f"bench-linking-{i}"
        deck = shuffled_deck(seed)
        lines: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        for name, choose in PLAYERS.items():
            rng = random.Random(f"{seed}/{name}")
            lines[name] = (play(deck, choose, rng), play(deck, choose, rng))
            first, second = lines[name]
            same[name] += first == second
            copies[name] += held(seed, first, second)
        # Two honest players of different habits, one line each.
        names = sorted(lines)
        for a in names:
            for b in names:
                if a != b and lines[a][0] == lines[b][1] and held(seed, lines[a][0], lines[b][1]):
                    cross[f"{a} then {b}"] += 1
        # Throwaways map the deal; the main replays the line of theirs that scored most.
        for explorer, choose in EXPLORERS.items():
            rng = random.Random(f"{seed}/throwaways/{explorer}")
            scouted = [play(deck, choose, rng) for _ in range(max(THROWAWAYS))]
            for k in THROWAWAYS:
                best = max(scouted[:k], key=lambda line: score(seed, line))
                key = f"{k} {explorer}"
                wins[key] += score(seed, best) > linking.WON
                caught[key] += held(seed, best, best, tuple(line for line in scouted[:k] if line != best))
        # The limit: throwaways playing the known habits, the main the best of their lines.
        habit_scores = [score(seed, line) for line in linking.habit_lines(seed)]
        one = score(seed, lines["known habit: memory, else likeliest, ties leftmost"][0])
        best_of_habits["wins"] += max(habit_scores) > linking.WON
        best_of_habits["gain"] += max(habit_scores) - one
    return {
        "same": same,
        "copies": copies,
        "cross": cross,
        "caught": caught,
        "wins": wins,
        "best_of_habits": best_of_habits,
    }


def pct(hits: int, n: int) -> str:
    low, high = wilson(hits, n)
    return f"{hits / n:6.1%} [{low:.1%}, {high:.1%}]"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed-base", type=int, default=0)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    out = run(args.deals, args.seed_base)
    n = args.deals
    print(f"# bench.linking: {n} deals (bench-linking-{args.seed_base}…), commit {commit()}, {machine()}")
    print(f"# {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {time.perf_counter() - started:.0f} s")
    print(f"# a copy: linking.COPY_MIN_CHOICES = {linking.COPY_MIN_CHOICES}, a win: score above {linking.WON}")
    print()
    print("Two players of one habit, a newcomer first, an established player after (per deal, 95 % Wilson):")
    print("| player | same line | later one held |\n|---|---|---|")
    for name in PLAYERS:
        print(f"| {name} | {pct(out['same'][name], n)} | {pct(out['copies'][name], n)} |")
    print()
    pairs = len(PLAYERS) * (len(PLAYERS) - 1)
    print(f"Two players of different habits ({pairs} ordered pairs a deal): held {sum(out['cross'].values())} times")
    for key, count in out["cross"].most_common(10):
        print(f"  {key}: {count}")
    print()
    print("A main replaying the best line of k fresh throwaways:")
    print("| throwaways | best line wins | main held |\n|---|---|---|")
    for key in out["caught"]:
        print(f"| {key} | {pct(out['wins'][key], n)} | {pct(out['caught'][key], n)} |")
    print()
    b = out["best_of_habits"]
    print(
        f"The best of the known habits' lines wins on {pct(b['wins'], n)} of deals, "
        f"{b['gain'] / n:+.1f} points a deal over always playing 'memory, else likeliest, ties leftmost' (never held)"
    )


if __name__ == "__main__":
    main()
