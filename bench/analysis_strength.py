"""How strong is the analysis engine (games/analysis/)? ``python -m bench.analysis_strength``

    .venv/bin/python -m bench.analysis_strength [--deals 1000] [--samples N] [--out FILE.json]
    .venv/bin/python -m bench.analysis_strength --cost 40   # a whole game's analysis: CPU per game

Every player plays the same deals (seeds ``analysis-<i>``) against the perfect-memory
opponent of games/rules/peche.py:

- the engine (``games.analysis.engine.choose``, from the table alone: ``engine.table_of``
  reads the hand's size, never its cards), seeded by the deal and the ask's index as the
  site seeds it (``game.rng_for``: the par's own play);
- honest players of the fair-play panel (games/fairplay/players.py): random; perfect memory,
  else the most unseen copies (random ties); perfect memory, else the likeliest rank by the
  table's chances (random ties), the strongest table-only player of the panel.

For each: the mean score (1000 + 30 per pair of difference) and the win rate (more pairs
than the opponent; 13–13 is not a win), with 95 % intervals (normal for the mean, Wilson
for the rate), the engine's margin over each on the same deals (paired), and the CPU
(process time) per game and per engine decision. ``--out`` writes the figures as JSON
after every 50 deals, so a run cut short still leaves what it measured.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import statistics
import time

from bench.provenance import commit as provenance_commit
from bench.provenance import cpu
from games.analysis import engine
from games.analysis.game import rng_for
from games.fairplay import players
from games.rules import peche
from games.rules.cards import shuffled_deck
from games.rules.peche import OPPONENT, PLAYER
from harness.stats import mean_interval, wilson

HONEST_SHOWN = ("random", "memory, ties random", "greedy on chances, ties random")
HONEST = dict(players.PANEL)


class Player:
    """One player type's tally over the deals."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.diffs: list[int] = []
        self.cpu = 0.0
        self.decisions = 0
        self.decision_cpu = 0.0

    def summary(self) -> dict:
        n = len(self.diffs)
        scores = [1000 + 30 * d for d in self.diffs]
        mean, half = mean_interval(scores)
        wins = sum(1 for d in self.diffs if d > 0)
        draws = sum(1 for d in self.diffs if d == 0)
        lo, hi = wilson(wins, n)
        return {
            "player": self.name,
            "deals": n,
            "mean_score": round(mean, 1),
            "mean_score_ci": [round(mean - half, 1), round(mean + half, 1)],
            "win_rate": round(wins / n, 4),
            "win_rate_ci": [round(lo, 4), round(hi, 4)],
            "draw_rate": round(draws / n, 4),
            "cpu_per_game_ms": round(1000 * self.cpu / n, 2),
            "cpu_per_decision_ms": round(1000 * self.decision_cpu / self.decisions, 2) if self.decisions else None,
            "decisions_searched": self.decisions,
        }


def play_engine(deck: list[str], seed: str, samples: int, tally: Player) -> int:
    follower = engine.Follower()
    state = peche.deal(list(deck), follower)
    index = 0
    while not state.over:
        table = engine.table_of(state, follower)
        start = time.process_time()
        rank = engine.choose(table, rng_for(seed, index), samples)
        spent = time.process_time() - start
        if len(table.hand) > 1 and not table.sure():
            tally.decisions += 1
            tally.decision_cpu += spent
        peche.ask(state, rank, follower)
        index += 1
    return len(state.pairs[PLAYER]) - len(state.pairs[OPPONENT])


def play_honest(deck: list[str], name: str, rng: random.Random) -> int:
    _, _, outcome = players.play(deck, HONEST[name], rng)
    return outcome.counts[PLAYER] - outcome.counts[OPPONENT]


def paired_margin(a: Player, b: Player) -> dict:
    """The mean score difference a − b on the same deals, with its 95 % interval."""
    d = [30 * (x - y) for x, y in zip(a.diffs, b.diffs)]
    mean, half = mean_interval(d)
    return {"versus": b.name, "margin": round(mean, 1), "margin_ci": [round(mean - half, 1), round(mean + half, 1)]}


def report(players: list[Player], samples: int, started: float, commit: str) -> dict:
    ours = players[0]
    return {
        "commit": commit,
        "date": dt.date.today().isoformat(),
        "machine": cpu(),
        "samples": samples,
        "wall_s": round(time.monotonic() - started, 1),
        "players": [p.summary() for p in players],
        "engine_margins": [paired_margin(ours, p) for p in players[1:]],
    }


def analysis_cost(games: int) -> dict:
    """CPU (process time) of ``game.analyse`` for whole games, as the `analysis` worker runs
    it, and of the day's par (``game.par``): games of the three honest players on deals
    ``analysis-cost-<i>``."""
    from games.analysis import game

    per_game, per_ask, pars = [], [], []
    for i in range(games):
        seed = f"analysis-cost-{i}"
        deck = shuffled_deck(seed)
        name = HONEST_SHOWN[i % len(HONEST_SHOWN)]
        rng = random.Random(seed)
        moves, _, _ = players.play(deck, HONEST[name], rng)
        start = time.process_time()
        game.analyse(seed, moves)
        spent = time.process_time() - start
        per_game.append(spent)
        per_ask.append(spent / len(moves))
        if i < 10:
            start = time.process_time()
            game.par(seed)
            pars.append(time.process_time() - start)
    per_game.sort()
    return {
        "games": games,
        "analysis_cpu_per_game_s": {
            "mean": round(statistics.fmean(per_game), 3),
            "median": round(per_game[len(per_game) // 2], 3),
            "max": round(per_game[-1], 3),
        },
        "analysis_cpu_per_ask_ms": round(1000 * statistics.fmean(per_ask), 1),
        "par_cpu_s": {"mean": round(statistics.fmean(pars), 3), "max": round(max(pars), 3)},
        "machine": cpu(),
        "commit": provenance_commit(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=engine.SAMPLES)
    parser.add_argument("--out", help="write the figures as JSON here (every 50 deals, and at the end)")
    parser.add_argument("--cost", type=int, help="measure a whole game's analysis on this many games instead")
    args = parser.parse_args()
    if args.cost:
        print(json.dumps(analysis_cost(args.cost), indent=1))
        return
    commit = provenance_commit()  # at the start: the code imported, whatever changes after
    players = [Player("analysis engine")] + [Player(name) for name in HONEST_SHOWN]
    started = time.monotonic()
    for i in range(args.deals):
        seed = f"analysis-{i}"
        deck = shuffled_deck(seed)
        ours = players[0]
        start = time.process_time()
        ours.diffs.append(play_engine(deck, seed, args.samples, ours))
        ours.cpu += time.process_time() - start
        for p in players[1:]:
            start = time.process_time()
            p.diffs.append(play_honest(deck, p.name, random.Random(f"{seed}:{p.name}")))
            p.cpu += time.process_time() - start
        if args.out and ((i + 1) % 50 == 0 or i + 1 == args.deals):
            with open(args.out, "w") as f:
                json.dump(report(players, args.samples, started, commit), f, indent=1)
    out = report(players, args.samples, started, commit)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
