"""One deal for the whole field (not a test): what judging and analysing a day's games costs
game by game, against the same games worked out together, each position once.

    .venv/bin/python -m bench.analysis_field [--players 2000] [--deals 3] [--alone 12] [--out …]

For each deal (``field-<i>``, the same on every clone), ``--players`` simulated players of
the honest panel's mix (games/fairplay/players.py PANEL, in turn) play it. Then, side by
side in one run:

- the positions: the asks made, the distinct positions they were made at (a position is
  the deal and the asks before it), their share;
- the fair-play judgement: every game judged alone from the deal (``detector.assess``)
  against every game judged through one ``Field`` (games/fairplay/field.py), CPU ms a game;
- the analysis: ``--alone`` games (spread over the field) analysed alone (``analyse``)
  against the whole field analysed together (``analyse_many``), CPU s a game.

Both figures are checked equal, game by game, before any time is printed. CPU is the
process's (time.process_time), one core. The deals' cost differs far more than the code's:
a deal with long opponent hands makes the posterior large (docs/fairplay.md).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from bench.provenance import commit, load_average, machine
from games.analysis import game as analysis
from games.fairplay import detector, players
from games.fairplay.field import Field
from games.rules.base import deck_for


def field_lines(seed: str, n: int) -> list[list[str]]:
    rng = random.Random(f"analysis-field/{seed}")
    deck = deck_for(seed, None)
    return players.field(deck, n, rng)


def cpu(work) -> tuple[float, object]:
    start = time.process_time()
    out = work()
    return time.process_time() - start, out


def one_deal(seed: str, n: int, alone: int, samples: int) -> dict[str, float]:
    lines = field_lines(seed, n)
    asks = sum(map(len, lines))
    positions = len({tuple(m[:k]) for m in lines for k in range(len(m))})
    t_alone, judged_alone = cpu(lambda: [detector.assess(seed, m) for m in lines])
    shared = Field(seed)
    t_field, judged_field = cpu(lambda: [shared.assess(m) for m in lines])
    if [a.profile for a in judged_alone] != [a.profile for a in judged_field]:  # type: ignore[attr-defined]
        raise SystemExit(f"{seed}: the field's figures differ from the games' alone; refusing to print a figure")
    step = max(1, n // alone)
    picked = list(range(0, n, step))[:alone]
    t_one, one = cpu(lambda: [analysis.analyse(seed, lines[i], samples=samples) for i in picked])
    t_many, many = cpu(lambda: analysis.analyse_many(seed, lines, samples=samples))
    if [many[i] for i in picked] != one:  # type: ignore[index]
        raise SystemExit(f"{seed}: analyse_many differs from analyse; refusing to print a figure")
    return {
        "players": n,
        "asks": asks,
        "positions": positions,
        "judge_alone_ms": t_alone * 1000 / n,
        "judge_field_ms": t_field * 1000 / n,
        "analyse_alone_s": t_one / len(picked),
        "analyse_many_s": t_many / n,
    }


def spread(deals: int, games: int) -> str:
    """How the judgement's cost differs from deal to deal: ``games`` random players' games
    on each of ``deals`` deals (``spread-<i>``), judged alone, CPU ms a game."""
    costs = []
    for i in range(deals):
        seed = f"spread-{i}"
        rng = random.Random(seed)
        lines = [players.play(deck_for(seed, None), players.uniform, rng)[0] for _ in range(games)]
        t, _ = cpu(lambda: [detector.assess(seed, m) for m in lines])  # noqa: B023 (called at once)
        costs.append(t * 1000 / games)
    costs.sort()
    q = statistics.quantiles(costs, n=10)
    return (
        f"The judgement alone from deal to deal ({deals} deals, {games} random players' games each, CPU ms a "
        f"game): median {statistics.median(costs):.1f}, p10 {q[0]:.1f}, p90 {q[-1]:.1f}, the cheapest "
        f"{costs[0]:.1f}, the dearest {costs[-1]:.1f} (x{costs[-1] / costs[0]:.0f} the cheapest)."
    )


def report(rows: list[tuple[str, dict[str, float]]], args: argparse.Namespace, seconds: float, code: str) -> str:
    out = [
        f"commit {code}, {time.strftime('%Y-%m-%d')}, {machine()}, load average at the end {load_average()}; "
        f"{args.players} panel players a deal, analysis at {args.samples} samples a position, "
        f"{args.alone} games a deal analysed alone; {seconds:.0f} s in all",
        "",
        "| deal | asks | distinct positions | judgement alone, ms a game | in the field | ratio "
        "| analysis alone, s a game | together | ratio |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for seed, r in rows:
        out.append(
            f"| {seed} | {r['asks']:,.0f} | {r['positions']:,.0f} ({r['positions'] / r['asks']:.0%}) "
            f"| {r['judge_alone_ms']:.2f} | {r['judge_field_ms']:.2f} | x{r['judge_alone_ms'] / r['judge_field_ms']:.1f} "
            f"| {r['analyse_alone_s']:.3f} | {r['analyse_many_s']:.3f} | x{r['analyse_alone_s'] / r['analyse_many_s']:.1f} |"
        )
    if len(rows) > 1:
        mean = {k: statistics.mean(r[k] for _, r in rows) for k in rows[0][1]}
        out.append(
            f"| mean | | | {mean['judge_alone_ms']:.2f} | {mean['judge_field_ms']:.2f} | "
            f"x{mean['judge_alone_ms'] / mean['judge_field_ms']:.1f} | {mean['analyse_alone_s']:.3f} | "
            f"{mean['analyse_many_s']:.3f} | x{mean['analyse_alone_s'] / mean['analyse_many_s']:.1f} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--first", type=int, default=0, help="the first deal's number")
    parser.add_argument("--alone", type=int, default=12, help="games a deal analysed alone")
    parser.add_argument("--samples", type=int, default=analysis.engine.SAMPLES)
    parser.add_argument("--spread", type=int, default=40, help="deals judged for the spread (0: none)")
    parser.add_argument("--out", default="", help="write the report there too")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    code = commit()  # the code that runs: read before, not after, the long run
    spread_line = spread(args.spread, 30) if args.spread else ""
    rows = []
    for i in range(args.first, args.first + args.deals):
        seed = f"field-{i}"
        rows.append((seed, one_deal(seed, args.players, args.alone, args.samples)))
        print(f"{seed} done", flush=True)
    text = report(rows, args, time.perf_counter() - start, code) + (f"\n\n{spread_line}" if spread_line else "")
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
