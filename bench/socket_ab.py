"""The ask over the game's socket at another commit and in this tree, side by side (not a test).

    .venv/bin/python -m bench.socket_ab --against cab9225 --rounds 3
    .venv/bin/python -m bench.socket_ab --against cab9225 --games-per-player 1   # a signup per game

Two full stacks at once (bench.report's Stack: scripts/stack with config.settings.production,
each on a database and a redis-server of its own; the other commit's from a git worktree,
same interpreter), measured in turns (A B, B A, …) with this tree's load generator
(bench.socket_load: simulated browsers that sign up, start each game over HTTP and ask over
``/ws/attempts/<id>``), so both pay for the same games: 64 browsers offering 500 asks/s,
then the closed loop. CPU per ask of each stack's own processes, by process; the machine's
load average beside every round (a shared machine's figures are upper bounds).
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
from pathlib import Path

from bench.report import ROOT, Stack, measure, worktree
from bench.socket_load import run_sockets, stack_cpu, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", required=True, help="the other commit")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--rate", type=float, default=500)
    parser.add_argument("--games-per-player", type=int, default=0, help="games per signup (0: one for the run)")
    parser.add_argument("--no-closed-loop", action="store_true")
    args = parser.parse_args()

    def asks(stack: Stack, players: int, seconds: float, rate: float | None):
        return run_sockets(
            stack.url, players, seconds, rate, 5.0, scope=stack.owns, games_per_player=args.games_per_player
        )

    # The socket's own limits above what one simulated player asks in a closed loop, and the
    # player's ask limit too: a player who signs up once asks for the whole run, ~11 asks/s
    # in the closed loop at 700 asks/s, past 600 a minute. Every ask is still counted.
    limits = {"GAME_SOCKET_RATE": "1000", "GAME_SOCKET_BURST": "1000", "RATE_LIMIT_ASKS": "100000/minute"}
    before = Stack(f"at-{args.against}", worktree(args.against), **limits)
    after = Stack("this", ROOT, **limits)
    contenders = [(before.name, before, asks), (after.name, after, asks)]
    print(f"started {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, load {' '.join(load()[:3])}", flush=True)
    try:
        for stack in (before, after):
            stack.start()
        loads = [(args.rate, args.seconds)] + ([] if args.no_closed_loop else [(None, args.seconds / 1.5)])
        for rate, seconds in loads:
            print(f"\n{args.players} browsers, {f'offering {rate:.0f} asks/s' if rate else 'closed loop'}:\n")
            _, runs = measure(
                [before, after],
                rounds=args.rounds,
                players=args.players,
                seconds=seconds,
                rate=rate,
                contenders=contenders,
            )
            print()
            for name, rs in runs.items():
                print(summary(name, rs, runs[before.name], before.name))
                games = {k: sum(r.get("games", {}).get(k, 0) for r in rs) for k in ("signups", "ranked", "practice")}
                loads_ = [float(r["loadavg"]) for r in rs]
                print(
                    f"    stack CPU per ask by round: {', '.join(f'{stack_cpu(r):.2f}' for r in rs)}; load average "
                    f"{min(loads_):.1f}-{max(loads_):.1f} (median {statistics.median(loads_):.1f}); "
                    f"signups and games started in the measured windows: {games}",
                    flush=True,
                )
    finally:
        for stack in (before, after):
            stack.stop()
    print(f"\nended {dt.datetime.now(dt.UTC):%H:%M} UTC, load {' '.join(load()[:3])}")


def load() -> list[str]:
    return Path("/proc/loadavg").read_text().split()


if __name__ == "__main__":
    main()
