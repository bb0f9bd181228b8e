"""The ask over the game's WebSocket against the HTTP ask, on one running stack (not a test).

    .venv/bin/python -m bench.socket_load --url http://127.0.0.1:8001 --players 64 --rate 500 --rounds 3
    .venv/bin/python -m bench.socket_load --players 64                 # closed loop: the ceiling
    .venv/bin/python -m bench.socket_load --modes http \\
        --sockets uvicorn=ws://127.0.0.1:9001 daphne=ws://127.0.0.1:9002   # ASGI servers side by side

Simulated browsers play whole daily games with harness.players (arrival, pacing,
measured window, CPU accounting): each signs up once and starts today's attempt over HTTP
(session cookie, CSRF header), then asks the first rank of its hand until the game ends,
and goes on with the days before as practice, one game a day, each started over HTTP
(``--games-per-player 1``: a new player for every game, the signup charged to each game,
as this benchmark did before 2026-12-03). A ``socket`` mode's asks go over ``/ws/attempts/<id>``
(one socket per game, opened with the cookie and the page's Origin, asks sent once the
server says ``ready``) at the stack's proxy, or at the servers ``--sockets`` names; in
``http`` mode they are harness.players' HTTP players. The modes run in turns (A B, B A,
…), so a machine that speeds up or slows down favours none.

Reports, per mode: asks/s, ask latency p50/p95/p99/max (send to answer), the load average
at the end, what came back (``ok`` or the error codes; ``dropped`` for a socket that closed
under an ask), and the CPU per ask of each group of processes (the ASGI server counted as
``sockets``) and of the whole machine (``all``: everything that ran, other people's work
included). The server needs its limits off for a load from one address:
RATE_LIMIT_PLAYERS=off, and GAME_SOCKET_RATE / GAME_SOCKET_BURST above what one socket asks
in a closed loop.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from urllib.parse import urlsplit

import websockets

from bench.play_load import HEADER, in_turns, row
from bench.provenance import median_ratio
from harness import players
from harness.players import LoadPlayer, Scope, measure, run_loop


class SocketPlayer(LoadPlayer):
    """A simulated browser whose asks go over the game's socket at ``sockets`` (a ws:// or
    wss:// base; default: the stack's own address)."""

    cut = (*LoadPlayer.cut, websockets.ConnectionClosed, websockets.InvalidHandshake)
    cut_label = "dropped"

    def __init__(self, base, sockets, window, gap, latencies, counts) -> None:
        super().__init__(base, window, gap, latencies, counts)
        self.sockets = sockets

    async def play_one_game(self) -> None:
        view = await self.start_game("sock")
        if view is None:
            return
        assert self.cookies is not None
        headers = {
            "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()),
            # The page's origin: the site the socket belongs to.
            "Origin": f"{'https' if self.sockets.scheme == 'wss' else 'http'}://{self.sockets.netloc}",
        }
        async with websockets.connect(
            f"{self.sockets.scheme}://{self.sockets.netloc}/ws/attempts/{view['id']}",
            additional_headers=headers,
            compression=None,
        ) as ws:
            hello = json.loads(await ws.recv())
            if not hello.get("ready"):
                self.count(f"refused {hello.get('error')}")
                return
            while view.get("status") == "playing" and time.monotonic() < self.deadline:
                await self.think()
                await ws.send(json.dumps({"move": view["move"], "rank": view["hand"][0][:-1]}))
                answer = json.loads(await self.ask_timed(ws.recv))
                if "error" in answer:
                    self.count(answer["error"])
                    return
                self.count("ok")
                view = answer
        if view.get("status") != "playing":
            self.count("games")


async def run_sockets(
    url: str,
    players: int,
    seconds: float,
    rate: float | None = None,
    warmup: float = 5.0,
    sockets: str | None = None,
    scope: Scope = None,
    games_per_player: int = 0,
) -> dict:
    base = urlsplit(url)
    at = urlsplit(sockets or f"{'wss' if base.scheme == 'https' else 'ws'}://{base.netloc}")
    return await measure(
        lambda window, gap, latencies, counts: SocketPlayer(base, at, window, gap, latencies, counts),
        players,
        seconds,
        rate,
        warmup,
        scope,
        games_per_player,
    )


def summary(name: str, runs: list[dict], base: list[dict] | None = None, base_name: str = "") -> str:
    """Medians over the rounds; beside ``base`` (run in the same turns), the median ratios."""
    med = {k: statistics.median(r[k] for r in runs) for k in ("asks_per_s", "p50", "p99")}
    cpu = {
        k: statistics.median(r["cpu_ms_per_ask"].get(k, 0.0) for r in runs)
        for k in ("sockets", "web", "postgres", "redis", "worker", "proxy", "all")
    }
    stack = statistics.median(stack_cpu(r) for r in runs)
    machine = statistics.median(machine_cpu(r) for r in runs)
    errors = sum(error_count(r) for r in runs)
    line = (
        f"  {name}: {runs[0]['players']} players: {med['asks_per_s']:.0f} asks/s, p50 {med['p50']:.1f} ms, "
        f"p99 {med['p99']:.1f} ms, {errors} errors; CPU ms per ask: stack {stack:.2f} (sockets {cpu['sockets']:.2f}, "
        f"web {cpu['web']:.2f}, postgres {cpu['postgres']:.2f}, redis {cpu['redis']:.2f}, worker {cpu['worker']:.2f}, "
        f"proxy {cpu['proxy']:.2f}), whole machine {cpu['all']:.2f}, **the machine but the load generator "
        f"{machine:.2f}**"
    )
    if base and base is not runs:
        asks = median_ratio((r["asks_per_s"], b["asks_per_s"]) for r, b in zip(runs, base))
        per_ask = median_ratio((stack_cpu(r), stack_cpu(b)) for r, b in zip(runs, base))
        per_ask_machine = median_ratio((machine_cpu(r), machine_cpu(b)) for r, b in zip(runs, base))
        if asks is not None and per_ask is not None and per_ask_machine is not None:
            line += (
                f"; **asks/s x{asks:.2f}**, stack CPU per ask x{per_ask:.2f} and the machine's (load generator "
                f"excluded) x{per_ask_machine:.2f} of {base_name}"
            )
    return line


def machine_cpu(r: dict) -> float:
    """The whole machine's busy time per ask less the load generator's CPU: what the server
    side cost, counted from the machine's idle time (whatever ran, unlisted processes and
    the kernel's work for them included)."""
    cpu = r["cpu_ms_per_ask"]
    return cpu.get("all", 0.0) - cpu.get("load generator", 0.0)


def stack_cpu(r: dict) -> float:
    """CPU per ask of the stack's processes (everything measured but the load generator)."""
    return sum(v for k, v in r["cpu_ms_per_ask"].items() if k not in ("all", "idle %", "load generator"))


def error_count(r: dict) -> int:
    return sum(v for k, v in r["statuses"].items() if k not in (200, "ok", "games"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8001", help="the stack (its proxy)")
    parser.add_argument("--players", type=int, nargs="+", default=[64])
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--rate", type=float, default=None, help="asks/s offered together; default: closed loop")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--games-per-player", type=int, default=0, help="games per signup (default 0: one signup for the run)"
    )
    parser.add_argument("--modes", nargs="+", choices=("socket", "http"), default=["socket", "http"])
    parser.add_argument(
        "--sockets",
        nargs="+",
        default=[],
        metavar="NAME=WS_URL",
        help="socket modes at these servers instead of the stack's proxy (each a mode of its own)",
    )
    args = parser.parse_args()
    modes = [tuple(s.split("=", 1)) for s in args.sockets] + [
        ("socket", None) for m in args.modes if m == "socket" and not args.sockets
    ]
    modes += [("http", None)] if "http" in args.modes else []
    print(f"{'mode':>10} | {HEADER}")
    results: dict[tuple[str, int], list[dict]] = {}
    for n in args.players:
        for _, (name, sockets) in in_turns(modes, args.rounds):
            if name == "http":
                r = run_loop(
                    players.run(
                        args.url, n, args.seconds, args.rate, args.warmup, games_per_player=args.games_per_player
                    )
                )
            else:
                r = run_loop(
                    run_sockets(
                        args.url,
                        n,
                        args.seconds,
                        args.rate,
                        args.warmup,
                        sockets,
                        games_per_player=args.games_per_player,
                    )
                )
            results.setdefault((name, n), []).append(r)
            print(row(name, r), flush=True)
    print("\nmedians over the rounds:")
    for (name, n), runs in results.items():
        first = modes[0][0]
        print(summary(name, runs, results.get((first, n)), first))


if __name__ == "__main__":
    main()
