"""Fair-play benchmark (not a test): how often games/fairplay/ flags the honest panel and the
cheaters of games/fairplay/players.py, at the thresholds in force, as a Markdown report.

    .venv/bin/python -m bench.fairplay [--deals 1000] [--base 100000] [--out docs/reports/...]

Every player type plays the same deals (seeds ``fairplay-<base + i>``), judged as
verification judges a ranked game; a week is 5 consecutive deals (5 days of one player).
For each type: the share of games and of weeks flagged, with 95 % Wilson intervals; the
raw excess of hits (z per game, centred at 0 for an honest player of any policy when the
table's chances are right); the mean of the game's evidence ratio (1 or less for every
honest player: the guarantee's expectation). For the cheaters, beside the detector's rate,
its ceiling: the best rate the same statistic reaches at one fixed peek rate chosen
knowing the cheater (the most powerful test of this family that keeps the guarantee).

Deterministic given the arguments (every random choice comes from a ``random.Random``
seeded by deal and player type); only the time taken varies.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench.provenance import commit, cpu
from bench.verification import export_tree
from games import fairplay
from games.fairplay import detector, players
from games.rules.cards import shuffled_deck
from harness.stats import wilson

WEEK = 5
AIMS = {  # the share of honest games and weeks flagged, at most; of cheaters', at least
    "honest game": 0.005,
    "honest week": 0.002,
    "full knowledge game": 0.99,
    "peek 70 % week": 0.90,
}


def _type(job: tuple[str, int, int]) -> dict:
    """One player type on ``deals`` deals from ``base``: every game's figures."""
    name, deals, base = job
    chooser = dict(players.PANEL + players.CHEATERS)[name]
    games = []
    started = time.process_time()
    for i in range(base, base + deals):
        seed = f"fairplay-{i}"
        _, assessed, outcome = players.play(shuffled_deck(seed), chooser, random.Random(f"{seed}/{name}"), draws=True)
        games.append(
            (assessed.profile, assessed.flagged, assessed.z, assessed.suspicion, outcome.score, _draws(assessed))
        )
    return {"name": name, "games": games, "cpu": time.process_time() - started}


def _draws(assessed: fairplay.GameAssessment) -> dict[str, tuple[float, ...]]:
    """The draws' channels the detector does not count, weighed as it would weigh them (the
    opponent channel's grid): what each would add, for "What each channel adds"."""
    out = {}
    for channel in ("player_draws", "opponent_draws"):
        mine = [o for o in assessed.outcomes if o.channel == channel]
        out[channel] = tuple(sum(o.log_lr(rho) for o in mine) for rho in detector.RHOS)
    return out


# The figure of a game or a sum of games with other channels than the detector's: the asks
# alone; the detector's (asks and the opponent's asks); with the player's draws; with both
# draws. Each is a product of test martingales, so each keeps the same bound.
VARIANTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("asks alone", ()),
    ("asks + opponent (the detector)", ("opponent",)),
    ("+ player's draws", ("opponent", "player_draws")),
    ("+ both draws", ("opponent", "player_draws", "opponent_draws")),
)


def _variant_figure(
    profile: tuple[float, ...], draws: dict[str, tuple[float, ...]], channels: tuple[str, ...]
) -> float:
    parts = detector.segments(profile)
    total = parts["asks"] + (parts["opponent"] if "opponent" in channels else 0.0)
    for channel in ("player_draws", "opponent_draws"):
        if channel in channels:
            total += detector.log_mean_exp(draws[channel], detector.RHO_PRIOR)
    return total


def _channels_table(results: list[dict]) -> list[str]:
    """Games and weeks flagged under each VARIANTS, for every type: what each channel adds
    against a cheater, and what it costs an honest player."""
    lines = [
        "## What each channel adds",
        "",
        "Games flagged (and 5-game weeks flagged) with the figure made of: "
        + "; ".join(f"**{name}**" for name, _ in VARIANTS)
        + ". The draws are weighed on the opponent channel's grid.",
        "",
        "| player | " + " | ".join(name for name, _ in VARIANTS) + " |",
        "|---|" + "---|" * len(VARIANTS),
    ]
    for r in results:
        games = r["games"]
        cells = []
        for _, channels in VARIANTS:
            flagged = sum(_variant_figure(g[0], g[5], channels) >= fairplay.FLAG_THRESHOLD for g in games)
            weeks = [games[w : w + WEEK] for w in range(0, len(games) - WEEK + 1, WEEK)]
            week_hits = 0
            for week in weeks:
                profile = tuple(map(sum, zip(*(g[0] for g in week))))
                draws = {c: tuple(map(sum, zip(*(g[5][c] for g in week)))) for c in week[0][5]}
                week_hits += _variant_figure(profile, draws, channels) >= fairplay.WEEK_THRESHOLD
            cells.append(f"{flagged / len(games):.1%} ({week_hits / len(weeks):.1%})")
        lines.append(f"| {r['name']} | " + " | ".join(cells) + " |")
    return lines


def _rate(hits: int, n: int) -> str:
    lo, hi = wilson(hits, n)
    return f"{hits / n:.1%} ({lo:.1%}–{hi:.1%})"


def _weeks(profiles: list[tuple[float, ...]]) -> list[list[tuple[float, ...]]]:
    return [profiles[w : w + WEEK] for w in range(0, len(profiles) - WEEK + 1, WEEK)]


def _ceiling(profiles: list[tuple[float, ...]]) -> tuple[float, float]:
    """The best per-game and per-week rates of the statistic at one fixed peek rate (the
    Ville threshold of a single rate is the same as the average's)."""
    game = week = 0.0
    for t in range(len(fairplay.THETAS)):
        game = max(game, sum(p[t] >= fairplay.FLAG_THRESHOLD for p in profiles) / len(profiles))
        weeks = _weeks(profiles)
        week = max(week, sum(sum(p[t] for p in w) >= fairplay.WEEK_THRESHOLD for w in weeks) / len(weeks))
    return game, week


def report(results: list[dict], deals: int, base: int, seconds: float, against: str | None = None) -> str:
    lines = [
        f"# Fair play, {dt.date.today().isoformat()}, at {commit()}",
        "",
        f"Machine: {cpu()}. `python -m bench.fairplay --deals {deals} --base {base}` "
        f"({deals} deals a type, weeks of {WEEK} consecutive deals), {seconds:.0f} s.",
        f"Thresholds: a game at {fairplay.FLAG_THRESHOLD:.2f} nats (1/{fairplay.GAME_LEVEL:g}), "
        f"a week at {fairplay.WEEK_THRESHOLD:.2f} (1/{fairplay.WEEK_LEVEL:g}).",
        "",
        "## Honest players (the table only)",
        "",
        "| player | games flagged | weeks flagged | z per game (mean ± sd) | mean evidence ratio |",
        "|---|---|---|---|---|",
    ]
    cost = []
    for r in results:
        games = r["games"]
        n = len(games)
        weeks = _weeks([g[0] for g in games])
        week_hits = sum(fairplay.accumulate(w).flagged for w in weeks)
        zs = [g[2] for g in games]
        row = (
            f"| {r['name']} | {_rate(sum(g[1] for g in games), n)} | {_rate(week_hits, len(weeks))} "
            f"| {statistics.mean(zs):+.3f} ± {statistics.pstdev(zs):.3f} "
            f"| {statistics.mean(math.exp(min(g[3], 50.0)) for g in games):.3f} |"
        )
        r["row"], r["week_hits"], r["weeks"] = row, week_hits, len(weeks)
        cost.append(r["cpu"] / n)
    honest = [r for r in results if r["name"] in dict(players.PANEL)]
    cheats = [r for r in results if r["name"] in dict(players.CHEATERS)]
    lines += [r["row"] for r in honest]
    all_games = sum(len(r["games"]) for r in honest)
    all_flagged = sum(sum(g[1] for g in r["games"]) for r in honest)
    all_weeks = sum(r["weeks"] for r in honest)
    all_week_hits = sum(r["week_hits"] for r in honest)
    lines += [
        "",
        f"Over the panel: games flagged {_rate(all_flagged, all_games)} (aim ≤ {AIMS['honest game']:.1%}, "
        f"bound {fairplay.GAME_LEVEL:.1%} for any table-only policy); weeks flagged "
        f"{_rate(all_week_hits, all_weeks)} (aim ≤ {AIMS['honest week']:.1%}, bound {fairplay.WEEK_LEVEL:.1%}).",
        "",
        "## Cheaters",
        "",
        "| player | games flagged | ceiling | weeks flagged | ceiling | z per game | mean score |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in cheats:
        games = r["games"]
        game_ceiling, week_ceiling = _ceiling([g[0] for g in games])
        zs = [g[2] for g in games]
        lines.append(
            f"| {r['name']} | {_rate(sum(g[1] for g in games), len(games))} | {game_ceiling:.1%} "
            f"| {_rate(r['week_hits'], r['weeks'])} | {week_ceiling:.1%} "
            f"| {statistics.mean(zs):+.2f} ± {statistics.pstdev(zs):.2f} | {statistics.mean(g[4] for g in games):.0f} |"
        )
    lines += [
        "",
        "The ceiling: the statistic at one fixed peek rate chosen knowing the cheater (the best of "
        f"{len(fairplay.THETAS)}), at the same threshold: what the most powerful test of this family "
        "reaches while keeping the honest-side bound.",
        "",
        f"CPU per game, play and judgement: median {statistics.median(cost) * 1000:.1f} ms "
        f"(the solver-guided players search the deal on top).",
        "",
        _verification_cost(deals, base, against),
        "",
        *_channels_table(results),
        "",
    ]
    return "\n".join(lines)


# Times verification's replay of the games in a JSON file (``[[seed, moves], ...]``), alone
# and with the judgement, in whichever tree it runs in (PYTHONPATH, cwd): the same code for
# this tree and for ``--against``'s, whose files need not know of it.
_JUDGE_CPU = """
import json, sys, time
from games import fairplay
from games.rules.peche import ENGINE
games = json.load(open(sys.argv[1]))
started = time.process_time()
for seed, moves in games:
    ENGINE.replay({"seed": seed}, moves)
alone = time.process_time() - started
started = time.process_time()
for seed, moves in games:
    fairplay.replay_assessed(seed, moves)
judged = time.process_time() - started
print(json.dumps([alone / len(games), judged / len(games)]))
"""


def _judge_cpu(tree: Path, games_file: Path) -> tuple[float, float]:
    done = subprocess.run(
        [sys.executable, "-c", _JUDGE_CPU, str(games_file)],
        cwd=tree,
        env=dict(os.environ, PYTHONPATH=str(tree)),
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    alone, judged = json.loads(done.stdout)
    return alone, judged


def _verification_cost(deals: int, base: int, against: str | None = None) -> str:
    """What judging adds to verification's replay: the random player's games replayed from
    seed and asks, alone and with the judgement, in alternating rounds (a drifting machine
    weighs on both alike), each round a fresh process; with ``against``, that commit's code
    (``git archive``) in turns with this tree's, on the same games."""
    games = []
    for i in range(base, base + deals):
        seed = f"fairplay-{i}"
        moves, _, _ = players.play(shuffled_deck(seed), players.uniform, random.Random(f"{seed}/random"))
        games.append((seed, moves))
    trees = {"this tree": Path(__file__).resolve().parent.parent}
    if against:
        trees[against] = export_tree(against)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(games, f)
    try:
        rounds: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
        for _ in range(3):
            for name, tree in trees.items():
                rounds[name].append(_judge_cpu(tree, Path(f.name)))
    finally:
        os.unlink(f.name)
        for name, tree in trees.items():
            if name != "this tree":
                shutil.rmtree(tree, ignore_errors=True)
    a, j = (statistics.median(r[k] for r in rounds["this tree"]) * 1000 for k in (0, 1))
    text = (
        f"Verification's replay of a ranked game (the random player's {len(games)} games, median of 3 rounds): "
        f"{a:.2f} ms alone, {j:.2f} ms with the judgement ({j / a:.0f}×)."
    )
    if against:
        oa, oj = (statistics.median(r[k] for r in rounds[against]) * 1000 for k in (0, 1))
        text += (
            f" At {against}, in turns with it on the same games: {oa:.2f} ms alone, {oj:.2f} ms with the judgement; "
            f"the judgement's cost here ×{j / oj:.2f} of {against}'s (rounds, this tree / {against}: "
            + ", ".join(f"{x[1] * 1000:.2f} / {y[1] * 1000:.2f}" for x, y in zip(rounds["this tree"], rounds[against]))
            + ")."
        )
    return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--base", type=int, default=100_000)
    parser.add_argument("--only", default="", help="only the player types whose name contains this")
    parser.add_argument("--out", default="", help="write the report there too")
    parser.add_argument("--against", help="a commit whose judgement is timed in turns with this tree's")
    args = parser.parse_args(argv)
    names = [name for name, _ in players.PANEL + players.CHEATERS if args.only in name]
    started = time.monotonic()
    with ProcessPoolExecutor() as pool:
        results = list(pool.map(_type, [(name, args.deals, args.base) for name in names]))
    text = report(results, args.deals, args.base, time.monotonic() - started, args.against)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
