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
Target (issue 8) at 64 players: >= 500 asks/s, p99 <= 50 ms.
"""

from __future__ import annotations

import argparse
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

from bench.provenance import median_ratio, round_medians

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

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
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
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if scope is not None and group != "load generator" and not scope(group, cmdline, int(fields[3])):
            continue
        procs[entry.name] = (group, (int(fields[11]) + int(fields[12])) / _TICK)
    cpu = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = (cpu[3] + cpu[4]) / _TICK
    return procs, sum(cpu) / _TICK - idle, idle


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
        return latencies[min(len(latencies) - 1, int(len(latencies) * p))] * 1000 if latencies else 0.0

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


def run_loop(coroutine):
    """uvloop where installed: the generator shares the 2 cores with the server, so the
    CPU it spends per request is taken from the server (it is reported above)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    return uvloop.run(coroutine)


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
