"""Play-path load (not a test): N concurrent simulated players play whole daily games over
HTTP against a running server (gunicorn + Postgres), one ask at a time.

    .venv/bin/python -m bench.play_load --url http://127.0.0.1:8001 --players 32 64 128 --seconds 20
    .venv/bin/python -m bench.play_load --players 64 --rate 550        # players who think

Each simulated player signs up once, starts today's attempt and asks the first rank of
its hand until the game ends, then plays the days before, one game each (past days are
unranked practice, as a real player replays them), as long as the run lasts: a real
player signs up once, not once per game. ``--games-per-player 1`` signs a new player up
for every game instead (every game ranked; each signup, ~20 ms of the web's CPU, is then
charged to one game's ~24 asks). By default players are browsers: they keep the session
cookie the signup sets and send the CSRF header, as the site's pages do; ``--auth token``
makes them API clients sending their token instead.

Two ways to load the server:
- closed loop, no think time (default): each player asks again the moment its answer
  arrives. This finds the throughput ceiling; latency is then all queueing
  (Little's law: mean latency = players / throughput).
- ``--rate R``: players think between asks, so that together they offer about R asks/s
  (each player's asks arrive on a Poisson schedule of rate R/N; a player never has two
  requests in flight, so if an answer is late it asks as soon as the answer comes).
  Latency is then what a player waits at that load.

Reports asks/s, ask latency p50/p95/p99/max, the statuses seen, and where the CPU went:
milliseconds of CPU per ask for the gunicorn processes, Postgres, Redis, the Celery worker
and this load generator (from /proc, Linux only), and the machine's idle share.
Target at 64 players: >= 500 asks/s, p99 <= 50 ms.
"""

from __future__ import annotations

import argparse

from bench.provenance import median_ratio, round_medians
from harness.players import run, run_loop

HEADER = (
    "players | offered |   asks | asks/s | p50 ms | p95 ms | p99 ms | max ms | load | CPU ms per ask | answers"
    " | signups and games started"
)


def row(name: str, r: dict) -> str:
    """One run as a line of the table under HEADER (after a column of width 10 naming it)."""
    cpu = ", ".join(f"{k} {v:.0f}" if k == "idle %" else f"{k} {v:.2f}" for k, v in r["cpu_ms_per_ask"].items())
    offered = f"{r['rate']:.0f}/s" if r["rate"] else "max"
    return (
        f"{name[-10:]:>10} | {r['players']:>7} | {offered:>7} | {r['asks']:>6} | {r['asks_per_s']:>6.0f} | "
        f"{r['p50']:>6.1f} | {r['p95']:>6.1f} | {r['p99']:>6.1f} | {r['max']:>6.1f} | {r['loadavg']:>4} | {cpu} | "
        f"{r['statuses']} | {r.get('games', {})}"
    )


def in_turns(contenders: list, rounds: int):
    """(round, contender) in turns: A, B, then B, A… A machine that speeds up or slows down
    during the run does not favour whichever always goes second."""
    for round_ in range(rounds):
        for contender in contenders if round_ % 2 == 0 else contenders[::-1]:
            yield round_, contender


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--url",
        nargs="+",
        default=["http://127.0.0.1:8001"],
        help="server(s); several (optionally NAME=URL) are measured in turns, side by side",
    )
    parser.add_argument("--players", type=int, nargs="+", default=[32, 64, 128])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument(
        "--rate",
        type=float,
        default=None,
        help="asks/s the players offer together (they think between asks); default: no think time",
    )
    parser.add_argument(
        "--warmup", type=float, default=5.0, help="seconds in which the players arrive, before the measured seconds"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure each server this many times, in turns (order reversed every other round)",
    )
    parser.add_argument(
        "--games-per-player",
        type=int,
        default=0,
        help="games per signup: 1 signs a new player up for every game (all ranked); default 0, one signup "
        "per simulated player for the run (today's game ranked, the days before practice)",
    )
    parser.add_argument(
        "--auth",
        choices=("session", "token"),
        default="session",
        help="players as browsers (session cookie + CSRF header) or as API clients (token)",
    )
    args = parser.parse_args()
    servers = [tuple(u.split("=", 1)) if "=" in u.split("//")[0] else (u, u) for u in args.url]
    print(f"{'server':>10} | {HEADER}")
    results: dict[tuple[str, int], list[dict]] = {}
    for n in args.players:
        for _, (name, url) in in_turns(servers, args.rounds):
            r = run_loop(run(url, n, args.seconds, args.rate, args.warmup, args.auth, None, args.games_per_player))
            results.setdefault((name, n), []).append(r)
            print(row(name, r), flush=True)
    if args.rounds > 1 or len(servers) > 1:
        print("\nmedians over the rounds:")
        for (name, n), runs in results.items():
            med = round_medians(runs)
            ratio = ""
            first = results[(servers[0][0], n)]
            if name != servers[0][0]:
                pairs = [(r["asks_per_s"], f["asks_per_s"]) for r, f in zip(runs, first) if f["asks_per_s"]]
                if (asks := median_ratio(pairs)) is not None:
                    ratio = f", asks/s x{asks:.2f} of {servers[0][0]} (median of {len(pairs)} rounds)"
            print(
                f"  {name}: {n} players: {med['asks_per_s']:.0f} asks/s, p50 {med['p50']:.1f} ms, "
                f"p99 {med['p99']:.1f} ms, web CPU {med['web']:.2f} ms per ask{ratio}"
            )


if __name__ == "__main__":
    main()
