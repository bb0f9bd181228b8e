"""The ask over the game's WebSocket against the HTTP ask, on one running stack (not a test).

    .venv/bin/python -m bench.socket_load --url http://127.0.0.1:8001 --players 64 --rate 500 --rounds 3
    .venv/bin/python -m bench.socket_load --players 64                 # closed loop: the ceiling

Simulated browsers play whole daily games, as bench.play_load's do: each signs up and
starts today's attempt over HTTP (session cookie, CSRF header), then asks the first rank of
its hand until the game ends, and starts over as a new player. In ``socket`` mode the asks
go over ``/ws/attempts/<id>`` (one socket per game, opened with the cookie and the page's
Origin, asks sent once the server says ``ready``); in ``http`` mode they are
bench.play_load's own players. The modes run in turns (A B, B A, …), so a machine that
speeds up or slows down favours neither.

Reports, per mode: asks/s, ask latency p50/p95/p99/max (send to answer), what came back
(``ok`` or the error codes; ``dropped`` for a socket that closed under an ask), and the
CPU per ask of each group of processes (bench.play_load's /proc accounting, with uvicorn
counted as ``sockets``) and of the whole machine (``all``, everything that ran). The
server needs its limits off for a load from one address: RATE_LIMIT_PLAYERS=off, and
GAME_SOCKET_RATE / GAME_SOCKET_BURST above what one socket asks in a closed loop.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import statistics
import time
from urllib.parse import urlsplit

import websockets

from bench import play_load
from bench.play_load import Connection, cpu_per_ask, cpu_snapshot, run_loop

# uvicorn (config.asgi) holds the sockets: its CPU is counted beside gunicorn's.
if ("sockets", "uvicorn") not in play_load.GROUPS:
    play_load.GROUPS = (*play_load.GROUPS, ("sockets", "uvicorn"))

_names = itertools.count()


class SocketPlayer:
    """One simulated browser whose asks go over the game's socket; ``gap`` is the mean time
    between its asks (0: none, a closed loop)."""

    def __init__(self, url: str, window: tuple[float, float], gap: float, latencies: list, counts: dict) -> None:
        self.url, self.base = url, urlsplit(url)
        self.measure_from, self.deadline = window
        self.gap, self.latencies, self.counts = gap, latencies, counts
        self.conn = Connection(self.base.hostname, self.base.port or 80)
        self.next_ask = time.monotonic() + random.random() * gap

    def count(self, key: str) -> None:
        if time.monotonic() >= self.measure_from:
            self.counts[key] = self.counts.get(key, 0) + 1

    async def run(self, warmup: float) -> None:
        await asyncio.sleep(random.random() * warmup)
        while time.monotonic() < self.deadline:
            try:
                await self.play_one_game()
            except (OSError, ConnectionError, asyncio.IncompleteReadError, websockets.ConnectionClosed):
                self.count("dropped")
                self.conn = Connection(self.base.hostname, self.base.port or 80)
                await asyncio.sleep(0.05)

    async def think(self) -> None:
        if not self.gap:
            return
        self.next_ask = max(self.next_ask + random.expovariate(1 / self.gap), time.monotonic())
        await asyncio.sleep(self.next_ask - time.monotonic())

    async def play_one_game(self) -> None:
        cookies: dict = {}
        name = f"sock {time.time_ns() % 10**9} {next(_names)}"
        status, _ = await self.conn.request("POST", "/api/players", {"name": name}, cookies=cookies)
        if status != 201:
            self.count(f"players {status}")
            await asyncio.sleep(0.05)
            return
        status, view = await self.conn.request("POST", "/api/challenges/today/attempt", cookies=cookies)
        if status not in (200, 201):
            self.count(f"attempt {status}")
            return
        scheme = "wss" if self.base.scheme == "https" else "ws"
        headers = {
            "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items()),
            "Origin": f"{self.base.scheme}://{self.base.netloc}",
        }
        async with websockets.connect(
            f"{scheme}://{self.base.netloc}/ws/attempts/{view['id']}", additional_headers=headers, compression=None
        ) as ws:
            hello = json.loads(await ws.recv())
            if not hello.get("ready"):
                self.count(f"refused {hello.get('error')}")
                return
            while view.get("status") == "playing" and time.monotonic() < self.deadline:
                await self.think()
                measured, t = time.monotonic() >= self.measure_from, time.perf_counter()
                await ws.send(json.dumps({"move": view["move"], "rank": view["hand"][0][:-1]}))
                answer = json.loads(await ws.recv())
                if measured:
                    self.latencies.append(time.perf_counter() - t)
                if "error" in answer:
                    self.count(answer["error"])
                    return
                self.count("ok")
                view = answer
        if view.get("status") != "playing":
            self.count("games")


async def run_sockets(url: str, players: int, seconds: float, rate: float | None, warmup: float) -> dict:
    latencies: list[float] = []
    counts: dict = {}
    measure_from = time.monotonic() + warmup
    window = (measure_from, measure_from + seconds)
    gap = players / rate if rate else 0.0
    snapshots = []

    async def measure() -> None:
        await asyncio.sleep(warmup)
        snapshots.append((cpu_snapshot(), time.perf_counter()))
        await asyncio.sleep(seconds)
        snapshots.append((cpu_snapshot(), time.perf_counter()))

    await asyncio.gather(
        measure(), *(SocketPlayer(url, window, gap, latencies, counts).run(warmup) for _ in range(players))
    )
    (before, start), (after, end) = snapshots
    latencies.sort()

    def q(p: float) -> float:
        return latencies[min(len(latencies) - 1, int(len(latencies) * p))] * 1000 if latencies else 0.0

    return {
        "asks": len(latencies),
        "asks_per_s": len(latencies) / (end - start),
        "p50": q(0.5),
        "p95": q(0.95),
        "p99": q(0.99),
        "max": latencies[-1] * 1000 if latencies else 0.0,
        "statuses": counts,
        "cpu_ms_per_ask": cpu_per_ask(before, after, len(latencies)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8001", help="the stack (its proxy)")
    parser.add_argument("--players", type=int, nargs="+", default=[64])
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--rate", type=float, default=None, help="asks/s offered together; default: closed loop")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--modes", nargs="+", choices=("socket", "http"), default=["socket", "http"])
    args = parser.parse_args()
    print(
        f"{'mode':>6} | {'players':>7} | {'offered':>7} | {'asks':>6} | {'asks/s':>6} | {'p50 ms':>6} | "
        f"{'p95 ms':>6} | {'p99 ms':>6} | {'max ms':>6} | CPU ms per ask | answers"
    )
    results: dict[tuple[str, int], list[dict]] = {}
    for n in args.players:
        for round_ in range(args.rounds):
            for mode in args.modes if round_ % 2 == 0 else args.modes[::-1]:
                if mode == "socket":
                    r = run_loop(run_sockets(args.url, n, args.seconds, args.rate, args.warmup))
                else:
                    r = run_loop(play_load.run(args.url, n, args.seconds, args.rate, args.warmup))
                results.setdefault((mode, n), []).append(r)
                cpu = ", ".join(
                    f"{k} {v:.0f}" if k == "idle %" else f"{k} {v:.2f}" for k, v in r["cpu_ms_per_ask"].items()
                )
                offered = f"{args.rate:.0f}/s" if args.rate else "max"
                print(
                    f"{mode:>6} | {n:>7} | {offered:>7} | {r['asks']:>6} | {r['asks_per_s']:>6.0f} | "
                    f"{r['p50']:>6.1f} | {r['p95']:>6.1f} | {r['p99']:>6.1f} | {r['max']:>6.1f} | {cpu} | "
                    f"{r['statuses']}",
                    flush=True,
                )
    if args.rounds > 1:
        print("\nmedians over the rounds:")
        for (mode, n), runs in results.items():
            med = {k: statistics.median(r[k] for r in runs) for k in ("asks_per_s", "p50", "p99")}
            machine = statistics.median(r["cpu_ms_per_ask"].get("all", 0.0) for r in runs)
            print(
                f"  {mode}: {n} players: {med['asks_per_s']:.0f} asks/s, p50 {med['p50']:.1f} ms, "
                f"p99 {med['p99']:.1f} ms, whole machine {machine:.2f} ms CPU per ask"
            )


if __name__ == "__main__":
    main()
