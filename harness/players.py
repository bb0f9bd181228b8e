"""Simulated players of the daily game, for the benchmarks (bench.play_load, bench.socket_load,
bench.report) and the tests that drive a stack with them (tests/test_ops_stack.py): each
signs up, plays whole games one ask at a time over HTTP (or, in bench.socket_load, over the
game's socket), paced to offer a rate or in a closed loop; ``measure`` runs N of them and
reports asks/s, latency quantiles, the answers and the CPU each group of processes spent
per ask (/proc, Linux only)."""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import json
import os
import random
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import urlsplit

from harness.stats import TICK, proc_stat, quantile, stat_cpu

_names = itertools.count()


class Connection:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def request(
        self, method: str, path: str, body: dict | None = None, token: str | None = None, cookies: dict | None = None
    ):
        """One request; with ``cookies`` it behaves as a browser: sends them (and the CSRF
        header), and keeps what Set-Cookie says in that dict."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        data = json.dumps(body).encode() if body is not None else b""
        headers = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}",
            "Content-Type: application/json",
            f"Content-Length: {len(data)}",
            "Connection: keep-alive",
        ]
        if token:
            headers.append(f"Authorization: Token {token}")
        if cookies:
            headers.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in cookies.items()))
            if "csrftoken" in cookies:
                headers.append(f"X-CSRFToken: {cookies['csrftoken']}")
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
            elif name.lower() == "set-cookie" and cookies is not None:
                cookie_name, _, cookie_value = value.strip().split(";", 1)[0].partition("=")
                cookies[cookie_name] = cookie_value
        payload = await self.reader.readexactly(length) if length else b""
        if close:
            self.writer.close()
            self.writer = None
        return status, json.loads(payload) if payload else None


class LoadPlayer:
    """What every simulated player shares (bench.socket_load's too): it arrives somewhere in
    the warm-up, plays whole games one after another until the deadline (each as a new
    player), paces its asks, and counts what came back from the measured window on.
    ``gap`` is the mean time between its asks (0: none, a closed loop)."""

    # What a broken connection raises, and how it is counted.
    cut: tuple[type[BaseException], ...] = (OSError, ConnectionError, asyncio.IncompleteReadError)
    cut_label = "connection errors"
    auth = "session"  # a browser: the session cookie and the CSRF header; "token": an API client

    # Games per signup (0: one signup for the whole run); set by ``measure``.
    games_per_player = 0

    def __init__(self, base, window: tuple[float, float], gap: float, latencies: list[float], counts: dict) -> None:
        self.base, self.gap = base, gap
        self.measure_from, self.deadline = window
        self.latencies, self.counts = latencies, counts
        self.games: dict = {}  # signups, ranked and practice games started (the measured window's)
        self.conn = Connection(base.hostname, base.port or 80)
        # Start somewhere in the first gap, so players do not ask in lockstep.
        self.next_ask = time.monotonic() + random.random() * gap
        # The player signed up, its credentials, and the days it has played (newest first).
        self.cookies: dict | None = None
        self.token = ""
        self.played: list[dt.date] = []

    def count(self, key) -> None:
        if time.monotonic() >= self.measure_from:
            self.counts[key] = self.counts.get(key, 0) + 1

    def tally(self, key: str) -> None:
        if time.monotonic() >= self.measure_from:
            self.games[key] = self.games.get(key, 0) + 1

    async def run(self, warmup: float) -> None:
        # Players arrive spread over the warm-up, not all in the same millisecond.
        await asyncio.sleep(random.random() * warmup)
        while time.monotonic() < self.deadline:
            try:
                await self.play_one_game()
            except self.cut:
                self.count(self.cut_label)
                self.conn = Connection(self.base.hostname, self.base.port or 80)
                await asyncio.sleep(0.05)

    async def think(self) -> None:
        if not self.gap:
            return
        self.next_ask = max(self.next_ask + random.expovariate(1 / self.gap), time.monotonic())
        await asyncio.sleep(self.next_ask - time.monotonic())

    async def ask_timed(self, ask: Callable[[], Awaitable]):
        """One ask, its latency kept if it started in the measured window."""
        measured, t = time.monotonic() >= self.measure_from, time.perf_counter()
        answer = await ask()
        if measured:
            self.latencies.append(time.perf_counter() - t)
        return answer

    def credentials(self) -> dict:
        """What the player's requests carry: the session cookie (a browser) or its token."""
        return {"cookies": self.cookies} if self.auth == "session" else {"token": self.token}

    async def start_game(self, prefix: str) -> dict | None:
        """The player's next game: today's (ranked) for a new player, else the day before the
        last it played (practice). A new player signs up first, keeping the session cookie
        in ``self.cookies``; after ``games_per_player`` games the next game is a new player's."""
        if self.cookies is None or (self.games_per_player and len(self.played) >= self.games_per_player):
            self.cookies, self.played = {}, []
            status, me = await self.conn.request(
                "POST",
                "/api/players",
                {"name": f"{prefix} {time.time_ns() % 10**9} {next(_names)}"},
                cookies=self.cookies,
            )
            if status != 201:
                self.count(f"players {status}")
                self.cookies = None
                await asyncio.sleep(0.05)
                return None
            self.token = me["token"]
            self.tally("signups")
        day = (self.played[-1] - dt.timedelta(days=1)).isoformat() if self.played else "today"
        status, view = await self.conn.request("POST", f"/api/challenges/{day}/attempt", **self.credentials())
        if status not in (200, 201):
            self.count(f"attempt {status}")
            self.cookies = None  # a new player next time
            return None
        self.played.append(dt.date.fromisoformat(view["date"]))
        self.tally("ranked" if view.get("ranked") else "practice")
        return view

    async def play_one_game(self) -> None:
        raise NotImplementedError


class Player(LoadPlayer):
    """A player whose asks are HTTP requests: a browser (session cookie and CSRF header) or,
    with ``auth="token"``, an API client."""

    def __init__(self, base, window, gap, latencies, counts, auth: str = "session") -> None:
        super().__init__(base, window, gap, latencies, counts)
        self.auth = auth

    async def play_one_game(self) -> None:
        view = await self.start_game("load")
        if view is None:
            return
        # A browser keeps the session cookie the signup set; an API client sends the token.
        auth = self.credentials()
        while view.get("status") == "playing" and time.monotonic() < self.deadline:
            await self.think()
            status, new = await self.ask_timed(
                lambda view=view: self.conn.request(
                    "POST",
                    f"/api/attempts/{view['id']}/asks",
                    {"rank": view["hand"][0][:-1], "move": view["move"]},
                    **auth,
                )
            )
            self.count(status)
            if status != 200:
                break
            view = new
        if view.get("status") != "playing":
            self.count("games")


# --- where the CPU went (Linux /proc) ------------------------------------------------

GROUPS = (
    # The ASGI server of the game's sockets, whichever it is (uvicorn, daphne, granian).
    ("sockets", "config.asgi"),
    ("web", "gunicorn"),
    ("web", "granian"),
    ("postgres", "postgres"),
    ("redis", "redis-server"),
    ("worker", "celery"),
    ("proxy", "nginx"),
)


# Which processes count, given (group, command line, session id): None counts every
# process of a group on the machine; bench.report narrows it to one stack's own processes.
Scope = Callable[[str, str, int], bool] | None


def _group(pid: str) -> tuple[str | None, str]:
    if int(pid) == os.getpid():
        return "load generator", ""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None, ""
    for group, needle in GROUPS:
        if needle in cmdline or comm == needle:
            return group, cmdline
    return None, ""


def cpu_snapshot(scope: Scope = None) -> tuple[dict[str, tuple[str, float]], float, float]:
    """({pid: (group, CPU seconds)}, machine busy seconds, machine idle seconds)."""
    procs: dict[str, tuple[str, float]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        group, cmdline = _group(entry.name)
        if group is None:
            continue
        fields = proc_stat(entry.name)
        if fields is None:
            continue
        if scope is not None and group != "load generator" and not scope(group, cmdline, int(fields[3])):
            continue
        procs[entry.name] = (group, stat_cpu(fields))
    cpu = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = (cpu[3] + cpu[4]) / TICK
    return procs, sum(cpu) / TICK - idle, idle


def cpu_per_ask(before, after, asks: int) -> dict:
    """Per group, the CPU its processes used in between (a process that started in between
    counts whole; one that ended in between, e.g. a Postgres backend whose connection
    closed, is missed: "all" is the machine's own count)."""
    if not asks:
        return {}
    (p0, busy0, idle0), (p1, busy1, idle1) = before, after
    out: dict[str, float] = {}
    for pid, (group, seconds) in p1.items():
        start = p0[pid][1] if pid in p0 and p0[pid][0] == group else 0.0
        out[group] = out.get(group, 0.0) + (seconds - start) * 1000 / asks
    out = dict(sorted(out.items()))
    out["all"] = (busy1 - busy0) * 1000 / asks
    out["idle %"] = 100 * (idle1 - idle0) / max(1e-9, (idle1 - idle0) + (busy1 - busy0))
    return out


# A player's maker: (window, gap, latencies, counts) -> the player.
MakePlayer = Callable[[tuple[float, float], float, list[float], dict], LoadPlayer]


async def measure(
    make: MakePlayer,
    players: int,
    seconds: float,
    rate: float | None,
    warmup: float,
    scope: Scope,
    games_per_player: int = 0,
) -> dict:
    """``players`` made by ``make`` arrive during ``warmup`` seconds, offering ``rate``
    asks/s together (None: a closed loop); then ``seconds`` are measured: asks/s, latency
    quantiles, what came back, the signups and games started (``games``), and the CPU per
    ask of the processes ``scope`` admits. ``games_per_player``: games per signup (0: each
    simulated player signs up once for the whole run)."""
    latencies: list[float] = []
    counts: dict = {}
    measure_from = time.monotonic() + warmup
    window = (measure_from, measure_from + seconds)
    gap = players / rate if rate else 0.0
    snapshots = []

    async def clock() -> None:
        await asyncio.sleep(warmup)
        snapshots.append((cpu_snapshot(scope), time.perf_counter()))
        await asyncio.sleep(seconds)
        snapshots.append((cpu_snapshot(scope), time.perf_counter()))

    made = [make(window, gap, latencies, counts) for _ in range(players)]
    for player in made:
        player.games_per_player = games_per_player
    await asyncio.gather(clock(), *(player.run(warmup) for player in made))
    games: dict = {}
    for player in made:
        for key, n in player.games.items():
            games[key] = games.get(key, 0) + n
    (before, start), (after, end) = snapshots
    latencies.sort()

    def q(p: float) -> float:
        return quantile(latencies, p) * 1000 if latencies else 0.0

    return {
        "players": players,
        "rate": rate,
        "asks": len(latencies),
        "asks_per_s": len(latencies) / (end - start),
        "p50": q(0.5),
        "p95": q(0.95),
        "p99": q(0.99),
        "max": latencies[-1] * 1000 if latencies else 0.0,
        "statuses": counts,
        "games": games,
        "cpu_ms_per_ask": cpu_per_ask(before, after, len(latencies)),
        "loadavg": Path("/proc/loadavg").read_text().split()[0],
    }


async def run(
    url: str,
    players: int,
    seconds: float,
    rate: float | None = None,
    warmup: float = 5.0,
    auth: str = "session",
    scope: Scope = None,
    games_per_player: int = 0,
) -> dict:
    """HTTP players (``auth``: browsers or API clients) on the server at ``url``."""
    base = urlsplit(url)
    return await measure(
        lambda window, gap, latencies, counts: Player(base, window, gap, latencies, counts, auth),
        players,
        seconds,
        rate,
        warmup,
        scope,
        games_per_player,
    )


def run_loop(coroutine):
    """uvloop where installed: the generator shares the 2 cores with the server, so the
    CPU it spends per request is taken from the server (it is reported above)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    return uvloop.run(coroutine)
