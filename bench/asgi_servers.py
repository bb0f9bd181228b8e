"""Which ASGI server holds the game's sockets: uvicorn, daphne and granian side by side on one
stack (not a test; a one-off that chose uvicorn, docs/capacity.md).

    PYTHONPATH=/tmp/asgi-extra .venv/bin/python -m bench.asgi_servers --rounds 3

daphne and granian are not among the project's requirements: install them apart
(`pip install --target /tmp/asgi-extra daphne granian`, then delete from there what the
venv already has, e.g. asgiref) and put that directory on PYTHONPATH; a server that is not
installed is left out. Each serves config.asgi on a TCP port of its own, one process, with
the stack's settings, database and Redis (bench.report's Stack: scripts/stack with
config.settings.production); the simulated browsers sign up and start their games over the
stack's HTTP, then ask over a socket of the server measured (bench.socket_load), servers in
turns (A B C, C B A, …), the worker drained between rounds. CPU per ask of the stack's
processes (the server measured counted as ``sockets``) and of the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from bench.play_load import HEADER, in_turns, row
from bench.report import Stack
from bench.socket_load import run_sockets, summary
from harness.players import run_loop
from harness.servers import free_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APP = "config.asgi:application"


def commands(port: int) -> dict[str, list[str]]:
    """Each server as the stack would run it: one process, no access log; uvicorn exactly as
    scripts/stack starts it (uvloop, httptools, the sans-I/O websockets, 64 KiB frames)."""
    py = sys.executable
    return {
        "uvicorn": [
            *(py, "-m", "uvicorn", APP, "--host", "127.0.0.1", "--port", str(port), "--workers", "1"),
            *("--loop", "uvloop", "--http", "httptools", "--ws", "websockets-sansio", "--ws-max-size", "65536"),
            *("--no-access-log", "--lifespan", "off"),
        ],
        # daphne with uvicorn's frame limit (its own default is 1 MiB).
        "daphne": [
            *(py, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "-v", "0"),
            *("--websocket-max-message-size", "65536", "--websocket-max-frame-size", "65536", APP),
        ],
        # asginl: ASGI without the lifespan protocol (config.asgi has none). granian has no
        # setting for the largest WebSocket message it takes.
        "granian": [
            *(py, "-m", "granian", "--interface", "asginl", "--host", "127.0.0.1", "--port", str(port)),
            *("--workers", "1", "--loop", "uvloop", "--log-level", "warning", APP),
        ],
    }


def listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True
    return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rates", type=float, nargs="+", default=[500, 0], help="asks/s offered; 0: closed loop")
    args = parser.parse_args()

    stack = Stack("asgi", Path(ROOT), GAME_SOCKET_RATE="1000", GAME_SOCKET_BURST="1000")
    servers: list[tuple[str, int, subprocess.Popen]] = []
    try:
        stack.start()
        for name in ("uvicorn", "daphne", "granian"):
            if importlib.util.find_spec(name) is None:
                print(f"{name}: not installed, left out")
                continue
            port = free_port()
            log = open(stack.run_dir / f"{name}.log", "ab")  # noqa: SIM115 (the server keeps it)
            proc = subprocess.Popen(
                commands(port)[name],
                cwd=ROOT,
                env=stack.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            deadline = time.monotonic() + 60
            while not listening(port):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{name} did not start (see {stack.run_dir}/{name}.log)")
                time.sleep(0.2)
            stack.leaders.add(proc.pid)  # its processes count as the stack's
            servers.append((name, port, proc))
            print(f"{name}: {' '.join(commands(port)[name][1:])}", flush=True)
        for rate in args.rates:
            print(f"\n{'server':>10} | {HEADER}")
            results: dict[str, list[dict]] = {}
            for _, (name, port, _) in in_turns(servers, args.rounds):
                stack.drain()
                r = run_loop(
                    run_sockets(
                        stack.url, args.players, args.seconds, rate or None, 5.0, f"ws://127.0.0.1:{port}", stack.owns
                    )
                )
                results.setdefault(name, []).append(r)
                print(row(name, r), flush=True)
            print("medians over the rounds:")
            first = servers[0][0]
            for name, runs in results.items():
                print(summary(name, runs, results[first], first))
    finally:
        for _, _, proc in servers:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 15)
                proc.wait(20)
        stack.stop()


if __name__ == "__main__":
    main()
