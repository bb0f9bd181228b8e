"""The whole benchmark set in one command, one report (`make bench`).

    .venv/bin/python -m bench.report                      # everything, ~20 minutes
    .venv/bin/python -m bench.report --against 32f5781    # the full stack side by side with a commit
    .venv/bin/python -m bench.report --only stack scaleout --rounds 5

Writes docs/reports/bench-<UTC date>-<commit>.md (``--out`` to choose) with the commit, the
date, the machine (CPU model, cores, memory, load), Postgres and Redis versions and
settings, and every benchmark's command and output verbatim, so the next person can run
the same command on a fresh clone and compare side by side.

Every run measures fresh work: the benchmarks get a database of their own created for this
report (BENCH_DB=bench_report_<pid>, dropped at the end) and each starts a redis-server of
its own (bench/own_redis.py). The full-stack sections start `scripts/stack` with production
settings (gunicorn behind nginx, the Celery worker verifying every finished game, beat, the
per-player ask limit on; signups unlimited since every simulated player comes from
127.0.0.1), each stack on a database and a redis-server of its own; between two measured
runs the report waits for the worker to drain what the run before queued, so no run pays
for another's verifications.

Sections (``--only`` picks some): engines, ask_cpu, instructions, verification, leaderboard, stack,
sockets, floor, scaleout.
- ask_cpu: with ``--against``, that commit's bench.ask_cpu and this tree's in turns, --rounds each.
- instructions: bench.instructions (callgrind), beside ``--against`` if given.
- floor: bench.floor, what the stack's web spends on requests that do almost nothing.
- stack: 64 browsers offering 500 asks/s (the target: p99 <= 50 ms), rounds in turns with
  ``--against`` if given (a git worktree of that commit, same interpreter); then the closed
  loop (no think time) for the ceiling.
- verification: bench.verification; with ``--against``, also its throughput in turns with a
  worker of that commit's code.
- sockets: the ask over the game's WebSocket (uvicorn, /ws/) beside the HTTP ask on one
  stack (with ``--against``, that commit's socket on a stack of its own too), in turns:
  64 browsers offering 500 asks/s (the targets: p99 <= 50 ms, no error, <= 1.5 ms of the
  machine's CPU per ask, the load generator's left out), then the closed loop (the target:
  >= 1.3x ``--against``'s socket). The stack's own processes are counted apart from the
  machine's busy time, which includes anything else running.
- scaleout: one web instance + one worker vs two web instances + two workers behind the one
  proxy (scripts/stack STACK_WEB_INSTANCES / STACK_WORKER_INSTANCES), in turns: CPU per ask
  (web) and per verification (worker) side by side.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.pgdb import PG, drop_databases, fresh_database
from bench.provenance import commit as provenance_commit
from bench.provenance import machine_rows, median_ratio, round_medians
from harness.servers import RedisServer, free_port

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
SECTIONS = (
    "engines",
    "ask_cpu",
    "instructions",
    "verification",
    "leaderboard",
    "stack",
    "sockets",
    "floor",
    "scaleout",
)
# A stack's worker has this long to verify what one measured run queued before the next
# run starts (a 15 s run at 500/s finishes ~300 games; the worker does ~2,000 a second).
DRAIN_SECONDS = 120
# The day's deal is HMAC(DAILY_SEED_SECRET, date): this report's trees and stacks all deal the
# same one (a tree without the variable set would use the secret file of its own checkout).
REPORT_SEED_SECRET = "bench-report-" + os.urandom(16).hex()


def sh(*command: str, cwd: Path = ROOT, env: dict | None = None, timeout: float = 60) -> str:
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=True
    ).stdout.strip()


# --- a benchmark module, as its own process -------------------------------------------


def run_module(module: str, *args: str, env: dict, timeout: float = 1800, cwd: Path = ROOT) -> tuple[str, str]:
    """(command line, output) of ``python -m module args`` in the tree ``cwd``; a failure is
    reported, not hidden."""
    command = [PYTHON, "-m", module, *args]
    started = time.monotonic()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    took = time.monotonic() - started
    out = done.stdout + (f"\n[stderr]\n{done.stderr}" if done.returncode else "")
    status = "" if done.returncode == 0 else f" — FAILED with exit status {done.returncode}"
    return " ".join(["python -m", module, *args]), f"{out.rstrip()}\n[{took:.0f} s{status}]"


# --- a full stack of its own ------------------------------------------------------------


class Stack:
    """`scripts/stack` from ``root`` on a fresh database and a redis-server of its own."""

    def __init__(self, name: str, root: Path, **env: str) -> None:
        self.name, self.root = name, root
        self.port = free_port()
        self.db = f"bench_stack_{name}_{os.getpid()}".replace("-", "_").replace("+", "_")
        self.redis = RedisServer(free_port())
        self.run_dir = Path(tempfile.mkdtemp(prefix=f"stack-{name}-", dir="/tmp"))
        self.env = {
            **os.environ,
            "DATABASE_URL": f"{PG}/{self.db}",
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "DJANGO_SECRET_KEY": "bench-" + os.urandom(16).hex(),
            # One deal for every stack of a report: an ask's cost depends on the deal (how
            # many events it leads to), and each tree would otherwise make its own secret.
            "DAILY_SEED_SECRET": REPORT_SEED_SECRET,
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "RATE_LIMIT_PLAYERS": "off",  # every simulated player signs up from 127.0.0.1
            "STACK_RUN_DIR": str(self.run_dir),
            "STACK_BIND": f"127.0.0.1:{self.port}",
            "PYTHON": PYTHON,
            "LOG_LEVEL": "WARNING",
            **env,
        }
        self.env.pop("BENCH_DB", None)
        self.leaders: set[int] = set()  # the services' session leaders, once started

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        fresh_database(self.db)
        self.redis.start()
        self.env["REDIS_URL"] = self.redis.url
        subprocess.run(
            [str(self.root / "scripts" / "stack"), "start"],
            env=self.env,
            check=True,
            timeout=300,
            capture_output=True,
            text=True,
        )
        # The services' session leaders, read once: they live as long as the stack.
        self.leaders = set()
        for pid_file in self.run_dir.glob("*.pid"):
            with contextlib.suppress(OSError, ValueError):
                self.leaders.add(int(pid_file.read_text().strip()))

    def owns(self, group: str, cmdline: str, session: int) -> bool:
        """Whether a process is this stack's: scripts/stack starts each service in a session
        of its own (its pid file names the leader); Postgres backends show their database,
        the redis-server its port. Other processes on the machine are not counted."""
        if group == "postgres":
            return f" {self.db} " in cmdline
        if group == "redis":
            return f":{self.redis.port}" in cmdline
        return session in self.leaders

    def queued(self) -> int:
        """Tasks waiting, and finished games waiting for a verification batch (the ids the
        drain task pops from its own list: challenges/services.py VERIFY_PENDING)."""
        import redis

        client = redis.Redis.from_url(self.redis.url, socket_timeout=5)
        return int(client.llen("celery")) + int(client.llen("verify:pending"))

    def drain(self) -> None:
        deadline = time.monotonic() + DRAIN_SECONDS
        while self.queued() and time.monotonic() < deadline:
            time.sleep(0.5)
        if self.queued():
            raise RuntimeError(f"{self.name}: the worker left {self.queued()} tasks queued after {DRAIN_SECONDS} s")
        time.sleep(1)  # the last task taken off the queue finishing

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            subprocess.run(
                [str(self.root / "scripts" / "stack"), "stop"], env=self.env, timeout=120, capture_output=True
            )
        self.redis.kill()
        drop_databases(self.db)
        shutil.rmtree(self.run_dir, ignore_errors=True)


def http_asks(stack: Stack, players: int, seconds: float, rate: float | None):
    from harness.players import run

    return run(stack.url, players, seconds, rate, 5.0, "session", scope=stack.owns)


def socket_asks(stack: Stack, players: int, seconds: float, rate: float | None):
    from bench.socket_load import run_sockets

    return run_sockets(stack.url, players, seconds, rate, 5.0, scope=stack.owns)


def measure(
    stacks: list[Stack], *, rounds: int, players: int, seconds: float, rate: float | None, contenders=None
) -> tuple[str, dict]:
    """Rounds in turns (A, B, then B, A…); returns the table's text and each contender's
    runs. A contender is (name, stack, asks): by default each stack's HTTP asks."""
    from bench.play_load import in_turns
    from harness.players import run_loop

    contenders = contenders or [(s.name, s, http_asks) for s in stacks]
    lines = [
        "| round | stack | offered | asks/s | p50 ms | p95 ms | p99 ms | max ms | games | CPU ms per ask: "
        "web / sockets / proxy / postgres / worker / redis / load | idle % | load | statuses |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|",
    ]
    runs: dict[str, list[dict]] = {name: [] for name, _, _ in contenders}
    for round_, (name, stack, asks) in in_turns(contenders, rounds):
        stack.drain()
        r = run_loop(asks(stack, players, seconds, rate))
        problems = trust(r)
        runs[name].append(r if not problems else {**r, "untrusted": problems})
        cpu = r["cpu_ms_per_ask"]
        share = " / ".join(
            f"{cpu.get(k, 0.0):.2f}"
            for k in ("web", "sockets", "proxy", "postgres", "worker", "redis", "load generator")
        )
        figures = (
            f"{r['asks_per_s']:.0f} | {r['p50']:.1f} | {r['p95']:.1f} | {r['p99']:.1f} | {r['max']:.1f}"
            if not problems
            else f"not trusted: {problems} | | | | "
        )
        lines.append(
            f"| {round_ + 1} | {name} | {f'{rate:.0f}/s' if rate else 'max'} | {figures} | "
            f"{r['statuses'].get('games', 0)} | {share} | {cpu.get('idle %', 0):.0f} | {r['loadavg']} | "
            f"{ {k: v for k, v in r['statuses'].items() if k != 'games'} } |"
        )
        print(lines[-1], flush=True)
    return "\n".join(lines), runs


def trust(r: dict) -> str:
    """Why a run's figures cannot be trusted ('' if they can)."""
    if r["asks"] < 100:
        return f"only {r['asks']} asks measured"
    if not 0 < r["p50"] <= r["p99"] <= r["max"]:
        return "latencies out of order"
    errors = sum(v for k, v in r["statuses"].items() if k not in (200, "ok", "games"))
    if errors > r["asks"] * 0.001:
        return f"{errors} failed requests"
    return ""


def medians(runs: dict[str, list[dict]], base: str | None = None) -> str:
    out = []
    for name, rs in runs.items():
        good = [r for r in rs if "untrusted" not in r]
        if not good:
            out.append(f"- {name}: no trusted round")
            continue
        med = round_medians(good)
        web = med["web"]
        worker_per_game = (
            statistics.median(
                r["cpu_ms_per_ask"].get("worker", 0.0) * r["asks"] / r["statuses"]["games"]
                for r in good
                if r["statuses"].get("games")
            )
            if any(r["statuses"].get("games") for r in good)
            else float("nan")
        )
        line = (
            f"- {name}: median of {len(good)} rounds: {med['asks_per_s']:.0f} asks/s, p50 {med['p50']:.1f} ms, "
            f"**p99 {med['p99']:.1f} ms**, web CPU {web:.2f} ms per ask, worker CPU {worker_per_game:.2f} ms per "
            f"finished game"
        )
        if base and name != base and runs.get(base):
            p99 = median_ratio(
                (r["p99"], b["p99"]) for r, b in zip(rs, runs[base]) if "untrusted" not in r and "untrusted" not in b
            )
            cpu = median_ratio(
                (r["cpu_ms_per_ask"]["web"], b["cpu_ms_per_ask"].get("web", 0.0)) for r, b in zip(rs, runs[base])
            )
            if p99 is not None and cpu is not None:
                line += f"; p99 x{p99:.2f} and web CPU x{cpu:.2f} of {base}"
        out.append(line)
    return "\n".join(out)


def socket_medians(runs: dict[str, list[dict]], against: str | None = None) -> str:
    """Each contender's medians beside the HTTP ask of this tree; this tree's socket also
    beside ``against``'s socket (the ratios the comparison is about)."""
    from bench.socket_load import summary

    lines = ["-" + summary(name, rs, runs.get("http"), "http").removeprefix(" ") for name, rs in runs.items() if rs]
    other = f"socket at {against}"
    if against and runs.get(other) and runs.get("socket"):
        lines.append("-" + summary("socket", runs["socket"], runs[other], other).removeprefix(" "))
    return "\n".join(lines)


def worktree(commit: str) -> Path:
    path = Path(tempfile.gettempdir()) / f"bench-against-{commit}"
    if not path.exists():
        sh("git", "worktree", "add", "--detach", str(path), commit, timeout=120)
    return path


# --- the report -------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--against", help="a commit whose full stack runs side by side with this tree's")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each full-stack measurement")
    parser.add_argument("--seconds", type=float, default=15, help="measured seconds of each full-stack round")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    started = dt.datetime.now(dt.UTC)
    commit = provenance_commit(length=10)
    out = args.out or ROOT / "docs" / "reports" / f"bench-{started:%Y-%m-%d}-{commit.split()[0]}.md"
    db = f"bench_report_{os.getpid()}"
    env = {**os.environ, "BENCH_DB": db, "PYTHONPATH": str(ROOT), "DAILY_SEED_SECRET": REPORT_SEED_SECRET}
    for name in ("BENCH_REDIS", "BENCH_REDIS_ASK", "BENCH_REDIS_VERIFY"):
        env.pop(name, None)  # a redis-server of each benchmark's own, fresh

    parts = [
        f"# Benchmark report: {commit}, {started:%Y-%m-%d %H:%M} UTC",
        "",
        f"Command: `python -m bench.report {' '.join(sys.argv[1:])}` (`make bench` runs it with no arguments).",
        "",
        "| | |",
        "|---|---|",
        f"| commit | {commit} |",
        f"| date | {started:%Y-%m-%d %H:%M:%S} UTC |",
        *(f"| {k} | {v} |" for k, v in machine_rows(PG)),
        "",
    ]

    def section(title: str, body: str) -> None:
        parts.extend([f"## {title}", "", body, ""])
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("\n".join(parts))  # as it goes: a cut run keeps what it measured
        print(f"\n== {title}\n{body}", flush=True)

    def verbatim(command: str, output: str) -> str:
        return f"`{command}`\n\n```\n{output}\n```"

    try:
        if "engines" in args.only:
            for module, margs in [
                ("bench.engines", []),
                ("bench.kitten_bench", []),
                ("bench.gofish_strength", []),
                ("bench.fairplay", ["--deals", "300"]),
            ]:
                section(f"Engines: {module}", verbatim(*run_module(module, *margs, env=env)))
        if "ask_cpu" in args.only:
            if not args.against:
                section(
                    "Ask CPU in process (bench.ask_cpu)",
                    verbatim(*run_module("bench.ask_cpu", "--blocks", "6", "--asks", "300", env=env)),
                )
            else:
                # In turns with the other tree (A, B, then B, A…): the machine's drift lands on both.
                # That tree's benchmark may predate BENCH_DB and its own redis-server: it gets
                # a database and a redis-server of its own here all the same.
                other = worktree(args.against)
                redis = RedisServer(free_port())
                redis.start()
                other_env = {
                    **env,
                    "PYTHONPATH": str(other),
                    "BENCH_REDIS_ASK": redis.url_for(1),
                    "BENCH_DB": f"{db}_against",  # its migrations, not this tree's
                }
                trees = [(args.against, other, other_env), ("this tree", ROOT, env)]
                try:
                    for round_ in range(args.rounds):
                        for name, tree, tree_env in trees if round_ % 2 == 0 else trees[::-1]:
                            command, output = run_module(
                                "bench.ask_cpu", "--blocks", "4", "--asks", "300", env=tree_env, cwd=tree
                            )
                            section(
                                f"Ask CPU in process (bench.ask_cpu), round {round_ + 1}: {name}",
                                verbatim(command, output),
                            )
                finally:
                    redis.kill()
        if "instructions" in args.only:
            margs = ["--asks", "100"] + (["--against", args.against] if args.against else [])
            section(
                "Instructions per request (bench.instructions, callgrind)",
                verbatim(*run_module("bench.instructions", *margs, env=env)),
            )
        if "verification" in args.only:
            section(
                "Verification (bench.verification)",
                verbatim(*run_module("bench.verification", "--attempts", "10000", "--rate", "300", env=env)),
            )
            if args.against:
                section(
                    f"Verification beside {args.against} (bench.verification, throughput in turns)",
                    verbatim(
                        *run_module(
                            "bench.verification",
                            *("--attempts", "10000", "--against", args.against, "--rounds", str(args.rounds)),
                            env=env,
                        )
                    ),
                )
        if "leaderboard" in args.only:
            section(
                "Leaderboard at scale (bench.leaderboard_scale)",
                verbatim(*run_module("bench.leaderboard_scale", "--sizes", "100000", "1000000", env=env)),
            )
        if "stack" in args.only:
            stacks = [Stack("this", ROOT)]
            if args.against:
                stacks.insert(0, Stack(f"at-{args.against}", worktree(args.against)))
            try:
                for s in stacks:
                    s.start()
                table, runs = measure(stacks, rounds=args.rounds, players=64, seconds=args.seconds, rate=500)
                section(
                    "Full stack: 64 browsers offering 500 asks/s (target p99 <= 50 ms)",
                    "scripts/stack with config.settings.production: nginx, gunicorn (2 workers), the Celery "
                    "worker (2 processes) verifying every finished game, beat; the ask limit on. Rounds in "
                    "turns; the worker drained between rounds.\n\n"
                    + table
                    + "\n\n"
                    + medians(runs, base=stacks[0].name if args.against else None),
                )
                table, runs = measure(stacks, rounds=args.rounds, players=64, seconds=args.seconds / 1.5, rate=None)
                section(
                    "Full stack: 64 browsers, closed loop (the ceiling)",
                    table + "\n\n" + medians(runs, base=stacks[0].name if args.against else None),
                )
            finally:
                for s in stacks:
                    s.stop()
        if "sockets" in args.only:
            # The socket's own limits above what one simulated player asks in a closed loop, and
            # the player's ask limit too (counted still): a simulated player signs up once and
            # asks for the whole run, past 600 a minute in a closed loop above 640 asks/s.
            limits = {"GAME_SOCKET_RATE": "1000", "GAME_SOCKET_BURST": "1000", "RATE_LIMIT_ASKS": "100000/minute"}
            stack = Stack("sockets", ROOT, **limits)
            contenders = [("socket", stack, socket_asks), ("http", stack, http_asks)]
            socket_stacks = [stack]
            if args.against:  # that tree's socket on a stack of its own, in the same turns
                other = Stack(f"sockets-at-{args.against}", worktree(args.against), **limits)
                contenders.insert(0, (f"socket at {args.against}", other, socket_asks))
                socket_stacks.insert(0, other)
            try:
                for s in socket_stacks:
                    s.start()
                for title, rate, seconds in [
                    (
                        "64 browsers offering 500 asks/s (targets: p99 <= 50 ms, no error, <= 1.5 ms of the machine per ask)",
                        500,
                        args.seconds,
                    ),
                    (
                        "64 browsers, closed loop (target: >= 1.3x the socket of --against)",
                        None,
                        args.seconds / 1.5,
                    ),
                ]:
                    table, runs = measure(
                        socket_stacks, rounds=args.rounds, players=64, seconds=seconds, rate=rate, contenders=contenders
                    )
                    section(
                        f"The ask over the game's socket beside the HTTP ask: {title}",
                        "One stack (scripts/stack, config.settings.production: nginx, gunicorn with 2 workers, "
                        "uvicorn with the sockets, the Celery worker verifying every finished game, beat; the "
                        "per-player ask limit on, at 100,000 a minute). Each browser signs up once and plays "
                        "today's game, then the days before (practice), each started over HTTP; `socket`: "
                        "its asks over /ws/attempts/<id>; `http`: every ask a POST. Modes in turns, the "
                        "worker drained between rounds. CPU per ask of the stack's own processes; `whole "
                        "machine` is the machine's busy time over the same asks (anything else running "
                        "included: an upper bound on a shared machine, see the load column).\n\n"
                        + table
                        + "\n\n"
                        + socket_medians(runs, args.against),
                    )
            finally:
                for s in socket_stacks:
                    s.stop()
        if "floor" in args.only:
            section(
                "The floor on the full stack (bench.floor)",
                verbatim(*run_module("bench.floor", "--rate", "300", "--seconds", "15", env=env)),
            )
        if "scaleout" in args.only:
            one = Stack(
                "1web+1worker", ROOT, STACK_WEB_INSTANCES="1", STACK_WORKER_INSTANCES="1", WORKER_CONCURRENCY="1"
            )
            two = Stack(
                "2web+2workers", ROOT, STACK_WEB_INSTANCES="2", STACK_WORKER_INSTANCES="2", WORKER_CONCURRENCY="1"
            )
            try:
                for s in (one, two):
                    s.start()
                table, runs = measure([one, two], rounds=args.rounds, players=64, seconds=args.seconds, rate=400)
                section(
                    "Scale-out on one machine: one web instance + one worker vs two of each",
                    "Each web instance: gunicorn with 2 workers; each worker instance: 1 process. 64 browsers "
                    "offering 400 asks/s, rounds in turns. CPU per ask (web) and per finished game (worker) "
                    "should stay flat: two of each on these 2 cores adds processes, not cores.\n\n"
                    + table
                    + "\n\n"
                    + medians(runs, base=one.name),
                )
            finally:
                for s in (one, two):
                    s.stop()
    finally:
        drop_databases(db, f"{db}_against")
        ended = dt.datetime.now(dt.UTC)
        parts.append(
            f"Ended {ended:%H:%M} UTC ({(ended - started).total_seconds() / 60:.0f} min); load average at the end "
            + " ".join(Path("/proc/loadavg").read_text().split()[:3])
            + "."
        )
        out.write_text("\n".join(parts) + "\n")
        print(f"\nreport: {out}")


if __name__ == "__main__":
    main()
