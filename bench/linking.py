"""Linking benchmark (not a test): how often the copy rule of leaderboard/linking.py would
hold an honest player, and how often it holds a main account that replays its throwaways'
best line (docs/fairplay.md, "copies of a line"). Pure play: no database.

    .venv/bin/python -m bench.linking [--deals 1000] [--seed-base 0]

Every deal: each honest player of the fair-play panel (games/fairplay/players.py ``PANEL``), each habit linking knows
(``linking.HABITS``) and a few deterministic habits it does not know (``UNKNOWN``) plays the
deal twice, with two independent random streams (two players of one habit). A newcomer's
game played first, an established player's game after it (finished lines: the rule reads a
finished line whatever its player's age, so the first player's age changes nothing): the
later one is held when ``linking.judge_copy`` finds a copy and it wins (score above linking.WON), as at
verification. Then the cheaters: k throwaways (fresh) play the deal, and the main replays
the line of theirs that scored most.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import time
from collections import Counter, defaultdict, deque

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from bench.provenance import commit, machine  # noqa: E402
from games.fairplay import players  # noqa: E402
from games.rules.cards import shuffled_deck  # noqa: E402
from games.rules.peche import ENGINE, outcome_of  # noqa: E402
from harness.stats import wilson  # noqa: E402
from leaderboard import linking  # noqa: E402

Chooser = players.Chooser


# Deterministic table-only habits that linking does not list: ties to the second card from
# the left or to the middle one, and a contrarian who asks the least likely rank.
def _second(ranks):
    return [*ranks[1:2], *ranks[:1], *ranks[2:]]


def _middle(ranks):
    return [*ranks[len(ranks) // 2 :], *ranks[: len(ranks) // 2]]


def _least_likely(table: players.Table, truth: players.Truth, rng: random.Random) -> str:
    ranks = table.ranks()
    chances = table.chances(ranks)
    return ranks[chances.index(min(chances))]


UNKNOWN: dict[str, Chooser] = {
    "always the second card": linking.habit(_second, "none"),
    "memory, else likeliest, ties to the second card": linking.habit(_second, "likeliest"),
    "memory, else likeliest, ties to the middle card": linking.habit(_middle, "likeliest"),
    "the least likely rank": _least_likely,
}
PLAYERS: dict[str, Chooser] = {
    **{f"honest: {name}": c for name, c in players.PANEL},
    **{f"known habit: {name}": c for name, c in linking.HABITS.items()},
    **{f"unknown habit: {name}": c for name, c in UNKNOWN.items()},
}
THROWAWAYS = (1, 3, 6, 24)
EXPLORERS: dict[str, Chooser] = {
    "random": players.uniform,
    "memory, else likeliest (random ties)": players.greedy("random"),
}
T0 = dt.datetime(2026, 12, 4, 8, tzinfo=dt.UTC)


def play(deck: list[str], choose: Chooser, rng: random.Random) -> tuple[str, ...]:
    return tuple(players.play(deck, choose, rng)[0])


def score(seed: str, moves: tuple[str, ...]) -> int:
    points = outcome_of(ENGINE.replay({"seed": seed}, list(moves))).score
    assert points is not None  # a Pêche game always scores
    return points


Played = list[tuple[str, tuple[str, ...]]]


def held(
    seed: str,
    explorer: tuple[str, ...],
    late: tuple[str, ...],
    history: Played,
    explored: tuple[tuple[str, ...], ...] = (),
) -> bool:
    """Whether ``late`` (an established player's, done last, who played ``history`` on
    its earlier days) is held as a copy of the fresh players' games ``explorer`` (and
    ``explored``), as at verification."""
    if score(seed, late) <= linking.WON:
        return False
    earlier = [
        linking.Line(i, 100 + i, line, T0 + dt.timedelta(minutes=i), True, None)
        for i, line in enumerate([explorer, *explored], start=1)
    ]
    late_line = linking.Line(0, 1, late, T0 + dt.timedelta(hours=1), True, None)
    habits = linking.exempt_lines(seed, linking.kept_habits(history))
    return linking.judge_copy(seed, late_line, earlier, {line.player_id for line in earlier}, habits) is not None


def run(deals: int, seed_base: int) -> dict:
    """``deals`` deals measured, after linking.HISTORY_DAYS deals that only give every
    player (and main) its earlier days."""
    same: Counter[str] = Counter()
    copies: Counter[str] = Counter()
    cross = Counter[str]()
    cross_late = Counter[str]()
    caught: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    best_of_habits = {"wins": 0, "gain": 0, "score": 0, "strong": 0, "six": 0, "held": 0}
    days = linking.HISTORY_DAYS
    history: dict[str, deque[tuple[str, tuple[str, ...]]]] = defaultdict(lambda: deque(maxlen=days))
    for i in range(seed_base - days, seed_base + deals):
        measured = i >= seed_base
        seed = f"bench-linking-{i}"
        deck = shuffled_deck(seed)
        lines: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        for name, choose in PLAYERS.items():
            rng = random.Random(f"{seed}/{name}")
            lines[name] = (play(deck, choose, rng), play(deck, choose, rng))
            first, second = lines[name]
            if measured:
                same[name] += first == second
                copies[name] += held(seed, first, second, list(history[name]))
        # Two honest players of different habits, one line each.
        names = sorted(lines)
        for a in names:
            for b in names:
                if measured and a != b and lines[a][0] == lines[b][1]:
                    if held(seed, lines[a][0], lines[b][1], list(history[b])):
                        cross[f"{a} then {b}"] += 1
                        cross_late[b] += 1
        # Throwaways map the deal; the main replays the line of theirs that scored most.
        for explorer, choose in EXPLORERS.items():
            rng = random.Random(f"{seed}/throwaways/{explorer}")
            scouted = [play(deck, choose, rng) for _ in range(max(THROWAWAYS))]
            for k in THROWAWAYS:
                best = max(scouted[:k], key=lambda line: score(seed, line))
                key = f"{k} {explorer}"
                if measured:
                    wins[key] += score(seed, best) > linking.WON
                    others = tuple(line for line in scouted[:k] if line != best)
                    caught[key] += held(seed, best, best, list(history[key]), others)
                history[key].append((seed, best))
        # Throwaways playing the known habits, the main the best of their lines every day.
        habit_lines = list(linking.habit_lines(seed).values())
        top = max(habit_lines, key=lambda line: score(seed, line))
        if measured:
            one = score(seed, lines["known habit: memory, else likeliest, ties leftmost"][0])
            best_of_habits["wins"] += score(seed, top) > linking.WON
            best_of_habits["gain"] += score(seed, top) - one
            best_of_habits["score"] += score(seed, top)
            best_of_habits["strong"] += score(seed, lines["honest: greedy on chances, ties random"][0])
            best_of_habits["six"] += max(score(seed, line) for line in scouted[:6])  # the last explorers'
            others = tuple(line for line in habit_lines if line != top)
            best_of_habits["held"] += held(seed, top, top, list(history["best habit"]), others)
        history["best habit"].append((seed, top))
        for name in PLAYERS:
            history[name].append((seed, lines[name][0]))
    return {
        "cross_late": cross_late,
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
    print("The later player held, by its habit (summed over the earlier one's):")
    for key, count in out["cross_late"].most_common():
        print(f"  {key}: {count} ({count / n:.2%} of deals)")
    print()
    print("A main replaying the best line of k fresh throwaways:")
    print("| throwaways | best line wins | main held |\n|---|---|---|")
    for key in out["caught"]:
        print(f"| {key} | {pct(out['wins'][key], n)} | {pct(out['caught'][key], n)} |")
    print()
    b = out["best_of_habits"]
    print(
        f"The best of the known habits' lines wins on {pct(b['wins'], n)} of deals, "
        f"{b['gain'] / n:+.1f} points a deal over always playing 'memory, else likeliest, ties leftmost' (the habits' own players)"
    )
    print(f"That main (the best habit's line every day) held on {pct(b['held'], n)} of deals")
    print(
        f"Mean score a deal: the best of the known habits' lines {b['score'] / n:.1f}; an honest 'memory, else "
        f"likeliest' {b['strong'] / n:.1f}; the best of 6 throwaways playing 'memory, else likeliest' {b['six'] / n:.1f}"
    )


if __name__ == "__main__":
    main()
