"""Calibration benchmark (not a test): do the table's chances come true for honest players?

    .venv/bin/python -m bench.calibration [--deals 10000] [--base 500000] [--jobs 2] [--out …]

Every policy of the honest panel (games.fairplay.players.PANEL) plays the same deals
(seeds ``calibration-<base + i>``), watched as verification watches a ranked game. For a
player who uses only the table, each outcome the detector weighs comes with the table's
chance given everything before it, so over many outcomes the excess Σ(outcome − chance)
is centred at 0 with standard error √Σ chance·(1 − chance), on every channel:

- ``asks``: the player's asks with a choice (``AskEvidence.counted``): held or not;
- ``opponent``: the opponent's asks: it named no rank the player holds;
- ``player_draws``: the player's draws from the lake: the card paired;
- ``opponent_draws``: the opponent's draws: the card did not pair.

For each policy and channel: the pooled excess in standard errors (z), the same by bucket
of the table's chance, and the mean of the per-game standardised excess of the asks (the
figure ``bench.fairplay`` reports). The panel's policies share their deals, so their z are
not independent (the panel's pooled z overstates the evidence). Deterministic given the
arguments; only the time taken varies.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import random
import statistics
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from bench.provenance import commit, machine
from games.fairplay import players
from games.fairplay.detector import OUTCOME_CHANNELS
from games.rules.cards import shuffled_deck
from games.rules.peche import ENGINE

CHANNELS: tuple[str, ...] = ("asks", *OUTCOME_CHANNELS)
# Buckets of the table's chance (of the outcome that serves the player; for the asks, of a hit).
EDGES: tuple[float, ...] = (0.0, 0.1, 0.2, 0.4, 0.6, 0.8, 0.9, 1.0)


@dataclass
class Tally:
    """Outcomes against their chances: how many, how many came, how many were expected,
    and the variance of that count under the chances."""

    n: int = 0
    came: int = 0
    expected: float = 0.0
    variance: float = 0.0

    def add(self, p: float, came: bool) -> None:
        self.n += 1
        self.came += came
        self.expected += p
        self.variance += p * (1.0 - p)

    def merge(self, other: Tally) -> None:
        self.n += other.n
        self.came += other.came
        self.expected += other.expected
        self.variance += other.variance

    @property
    def z(self) -> float:
        """The excess in standard errors (0 when nothing was uncertain)."""
        return (self.came - self.expected) / math.sqrt(self.variance) if self.variance > 0 else 0.0


@dataclass
class Calibration:
    """One policy's games: per channel a pooled tally and one per bucket; the per-game z of
    the asks."""

    name: str
    games: int = 0
    pooled: dict[str, Tally] = field(default_factory=lambda: {c: Tally() for c in CHANNELS})
    buckets: dict[str, list[Tally]] = field(default_factory=lambda: {c: [Tally() for _ in EDGES[1:]] for c in CHANNELS})
    game_z: list[float] = field(default_factory=list)
    cpu: float = 0.0

    def add(self, channel: str, p: float, came: bool) -> None:
        self.pooled[channel].add(p, came)
        self.buckets[channel][bucket(p)].add(p, came)


def bucket(p: float) -> int:
    for i, edge in enumerate(EDGES[1:-1]):
        if p < edge:
            return i
    return len(EDGES) - 2


def calibrate(name: str, deals: Iterable[str]) -> Calibration:
    """The policy ``name`` of the panel on the deals seeded ``deals``, judged as verification
    judges a ranked game: every counted outcome against the table's chance."""
    chooser = dict(players.PANEL)[name]
    out = Calibration(name)
    started = time.process_time()
    for seed in deals:
        _, assessed, _ = players.play(shuffled_deck(seed), chooser, random.Random(f"{seed}/{name}"), draws=True)
        out.games += 1
        for a in assessed.asks:
            if a.counted:
                out.add("asks", a.public_chance, a.held)
        for o in assessed.outcomes:
            if o.counted:
                out.add(o.channel, o.p, o.good)
        out.game_z.append(assessed.z)
    out.cpu = time.process_time() - started
    return out


def seeds(deals: int, base: int) -> list[str]:
    return [f"calibration-{i}" for i in range(base, base + deals)]


def _job(job: tuple[str, int, int]) -> Calibration:
    name, deals, base = job
    return calibrate(name, seeds(deals, base))


def judgement_cost(games: int = 300, base: int = 0) -> tuple[float, float]:
    """Verification's replay of a ranked game, alone and with the judgement (ms, median of
    3 rounds, the panel's policies in turn on ``games`` deals)."""
    played = []
    for i in range(games):
        name, chooser = players.PANEL[i % len(players.PANEL)]
        seed = f"calibration-cost-{base + i}"
        moves, _, _ = players.play(shuffled_deck(seed), chooser, random.Random(seed))
        played.append((seed, moves))
    from games.fairplay import replay_assessed

    alone, judged = [], []
    for _ in range(3):
        started = time.process_time()
        for seed, moves in played:
            ENGINE.replay({"seed": seed}, moves)
        alone.append((time.process_time() - started) / games)
        started = time.process_time()
        for seed, moves in played:
            replay_assessed(seed, moves)
        judged.append((time.process_time() - started) / games)
    return statistics.median(alone) * 1000, statistics.median(judged) * 1000


def _cell(t: Tally) -> str:
    if not t.n:
        return "–"
    return f"{t.came / t.n:.3f} / {t.expected / t.n:.3f} ({t.z:+.1f}, n {t.n})"


def report(results: list[Calibration], deals: int, base: int, seconds: float, cost: tuple[float, float]) -> str:
    lines = [
        f"# Calibration of the table's chances, {dt.date.today().isoformat()}, at {commit()}",
        "",
        f"Machine: {machine()}. `python -m bench.calibration --deals {deals} --base {base}` "
        f"({deals} deals a policy, seeds calibration-{base}…), {seconds:.0f} s.",
        "",
        "## Pooled: excess in standard errors (z), and excess per outcome",
        "",
        "Centred at 0 when the chances are right; |z| > 3 is a miscalibration (or a 1-in-370 draw).",
        "",
        "| policy | " + " | ".join(CHANNELS) + " | asks: mean z per game |",
        "|---|" + "---|" * len(CHANNELS) + "---|",
    ]
    panel = {c: Tally() for c in CHANNELS}
    for r in results:
        cells = []
        for c in CHANNELS:
            t = r.pooled[c]
            panel[c].merge(t)
            cells.append(f"{t.z:+.2f} ({(t.came - t.expected) / max(t.n, 1):+.4f}, n {t.n})")
        zs = r.game_z
        se = statistics.pstdev(zs) / math.sqrt(len(zs)) if len(zs) > 1 else 0.0
        lines.append(f"| {r.name} | " + " | ".join(cells) + f" | {statistics.mean(zs):+.3f} ± {se:.3f} |")
    lines.append(
        "| **panel** (shared deals: not independent) | "
        + " | ".join(f"{panel[c].z:+.2f} (n {panel[c].n})" for c in CHANNELS)
        + " | |"
    )
    labels = [f"[{lo:.1f}, {hi:.1f})" for lo, hi in zip(EDGES, EDGES[1:])]
    for c in CHANNELS:
        lines += [
            "",
            f"## {c}: by the table's chance (came / chance (z, n))",
            "",
            "| policy | " + " | ".join(labels) + " |",
            "|---|" + "---|" * len(labels),
        ]
        merged = [Tally() for _ in labels]
        for r in results:
            for m, t in zip(merged, r.buckets[c]):
                m.merge(t)
            lines.append(f"| {r.name} | " + " | ".join(_cell(t) for t in r.buckets[c]) + " |")
        lines.append("| **panel** | " + " | ".join(_cell(t) for t in merged) + " |")
    alone, judged = cost
    per_game = statistics.median(r.cpu / max(r.games, 1) for r in results) * 1000
    lines += [
        "",
        f"CPU per game, play and judgement: median over the panel {per_game:.1f} ms. Verification's replay of a "
        f"ranked game (300 games of the panel, median of 3 rounds): {alone:.2f} ms alone, {judged:.2f} ms with "
        f"the judgement (the judgement {judged - alone:.2f} ms).",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10_000)
    parser.add_argument("--base", type=int, default=500_000)
    parser.add_argument("--jobs", type=int, default=2, help="processes (one policy each at a time)")
    parser.add_argument("--only", default="", help="only the policies whose name contains this")
    parser.add_argument("--out", default="", help="write the report there too")
    args = parser.parse_args(argv)
    names = [name for name, _ in players.PANEL if args.only in name]
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(_job, [(name, args.deals, args.base) for name in names]))
    cost = judgement_cost()
    text = report(results, args.deals, args.base, time.monotonic() - started, cost)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
