"""Play-path load (not a test): N concurrent simulated players play whole daily games over
HTTP against a running server (gunicorn + Postgres), one ask at a time.

    .venv/bin/python -m bench.play_load --url http://127.0.0.1:8001 --players 32 64 128 --seconds 20

Each simulated player creates itself, starts today's attempt and asks the first rank of
its hand until the game ends, then starts over as a new player. Reports asks/s and the
latency of asks (p50/p95/p99). Target (issue 8) at 64 players: >= 500 asks/s, p99 <= 50 ms.
The client is asyncio with keep-alive connections, so it costs the 2 cores little.
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import time
from urllib.parse import urlsplit

_names = itertools.count()


class Connection:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def request(self, method: str, path: str, body: dict | None = None, token: str | None = None):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        data = json.dumps(body).encode() if body is not None else b""
        headers = [f"{method} {path} HTTP/1.1", f"Host: {self.host}", "Content-Type: application/json",
                   f"Content-Length: {len(data)}", "Connection: keep-alive"]
        if token:
            headers.append(f"Authorization: Token {token}")
        self.writer.write(("\r\n".join(headers) + "\r\n\r\n").encode() + data)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            self.writer = None
            raise ConnectionError("closed")
        status = int(status_line.split()[1])
        length, close = 0, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
            elif name.lower() == "connection" and "close" in value.lower():
                close = True
        payload = await self.reader.readexactly(length) if length else b""
        if close:
            self.writer.close()
            self.writer = None
        return status, json.loads(payload) if payload else None


async def player_loop(base, deadline: float, latencies: list[float], counts: dict) -> None:
    conn = Connection(base.hostname, base.port or 80)
    while time.monotonic() < deadline:
        try:
            await play_one_game(conn, deadline, latencies, counts)
        except (OSError, ConnectionError, asyncio.IncompleteReadError):
            counts["connection errors"] = counts.get("connection errors", 0) + 1
            conn = Connection(base.hostname, base.port or 80)


async def play_one_game(conn, deadline: float, latencies: list[float], counts: dict) -> None:
    status, me = await conn.request("POST", "/api/players", {"name": f"load {time.time_ns() % 10**9} {next(_names)}"})
    if status != 201:
        counts[f"players {status}"] = counts.get(f"players {status}", 0) + 1
        await asyncio.sleep(0.05)
        return
    token = me["token"]
    status, view = await conn.request("POST", "/api/challenges/today/attempt", token=token)
    while view and view.get("status") == "playing" and time.monotonic() < deadline:
        t = time.perf_counter()
        status, new = await conn.request("POST", f"/api/attempts/{view['id']}/asks",
                                         {"rank": view["hand"][0][:-1], "move": view["move"]}, token=token)
        latencies.append(time.perf_counter() - t)
        counts[status] = counts.get(status, 0) + 1
        if status != 200:
            break
        view = new
    counts["games"] = counts.get("games", 0) + (view and view.get("status") != "playing")


async def run(url: str, players: int, seconds: float) -> dict:
    base = urlsplit(url)
    latencies: list[float] = []
    counts: dict = {}
    deadline = time.monotonic() + seconds
    start = time.perf_counter()
    await asyncio.gather(*(player_loop(base, deadline, latencies, counts) for _ in range(players)))
    elapsed = time.perf_counter() - start
    latencies.sort()
    q = lambda p: latencies[min(len(latencies) - 1, int(len(latencies) * p))] * 1000  # noqa: E731
    return {"players": players, "asks": len(latencies), "asks_per_s": len(latencies) / elapsed,
            "p50": statistics.median(latencies) * 1000 if latencies else 0, "p95": q(0.95), "p99": q(0.99),
            "statuses": counts}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default="http://127.0.0.1:8001")
    parser.add_argument("--players", type=int, nargs="+", default=[32, 64, 128])
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    print(f"{'players':>7} | {'asks':>6} | {'asks/s':>7} | {'p50 ms':>6} | {'p95 ms':>6} | {'p99 ms':>6} | statuses")
    for n in args.players:
        r = asyncio.run(run(args.url, n, args.seconds))
        print(f"{n:>7} | {r['asks']:>6} | {r['asks_per_s']:>7.0f} | {r['p50']:>6.1f} | {r['p95']:>6.1f} | "
              f"{r['p99']:>6.1f} | {r['statuses']}")


if __name__ == "__main__":
    main()
