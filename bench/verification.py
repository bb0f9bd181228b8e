"""Verification throughput (not a test): finished attempts through Redis + one Celery
worker, which replays each from seed + asks, writes its result and ranks it.

    .venv/bin/python -m bench.verification --attempts 10000 --rate 300 --concurrency 2

Every attempt has asks of its own, a day's field as players make it: ``--field panel`` (the
default) gives each the game of a player of the honest panel's mix (games/fairplay/players.py
PANEL, in turn: habits that repeat one another's lines, memory, greedy, soft-max, random);
``--field random`` a player who asks at random (little shared beyond the first asks);
``--field both`` runs the two side by side. ``--same-line`` gives every attempt the same asks
instead. The deal is fixed (bench/pgdb.py's seed secret): the fair-play judgement's cost
depends on the deal far more than on the code (bench.analysis_field), and a figure taken on
another clone's deal is not comparable. The worker runs with DEBUG off, as in production
(Django's debug cursor keeps every query).

Phase 1 enqueues every attempt at once (throughput: results/s). Phase 2 offers a fixed
rate (default 300/s) and reports submit-to-ranked latency p50/p99 (ranked = in the Redis
rank index). Uses the `bench` database, a redis-server of its own (BENCH_REDIS_VERIFY to
choose one: it is flushed) and its own worker. Every run starts its days afresh: the
attempts and results a previous run left on them are deleted first, so that nothing is
counted that was done before the clock started.
Targets: >= 2,000 results/s on 2 cores; p99 <= 1 s at 300/s offered.

Phase 1 also prints the CPU it cost per result, by process: the worker (its pool
included), the bench database's Postgres backends (sampled every 0.2 s from /proc: one
that lived shorter is missed), the bench's redis-server (INFO cpu) and this process (the
enqueuing and the polling), with the load average. On a machine others share, the CPU
per result is the figure to compare, not the rate.

    .venv/bin/python -m bench.verification --attempts 10000 --against 8b7601f --rounds 3

runs phase 1 only, in turns: a worker of ``--against``'s code (``git archive`` into a
temporary folder; the same virtualenv, database and attempts) and one of this tree's,
``--rounds`` times each, and prints them side by side with the medians.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.pgdb import setup_django
from harness.servers import CeleryWorker
from harness.stats import percentiles, proc_stat, process_cpu, redis_cpu

# The app's Redis client gives up after 100 ms and then fails every call for 2 s (its
# breaker, config/redis_client.py): on a 2-core machine that others load, enqueuing 10,000
# ids in a burst once tripped it and the run waited for the sweeper. The bench and its
# worker wait longer; the code measured is the same.
os.environ.setdefault("REDIS_HOT_TIMEOUT", "2")


SAME_LINE = False  # --same-line
FIELD = "panel"  # --field
DAY = dt.date(1999, 6, 1)
_LINES: dict[tuple[str, str, int], list[list[str]]] = {}  # (seed, field, n) → lines, made once a run


def random_line(seed: str, rng) -> list[str]:
    """A complete game of ``seed`` by a player who asks at random."""
    from games.rules.peche import ENGINE

    state = ENGINE.new(seed=seed)
    moves: list[str] = []
    while not state.over:
        moves.append(rng.choice(ENGINE.legal_moves(state)))
        ENGINE.apply(state, moves[-1])
    return moves


def panel_lines(seed: str, n: int, rng) -> list[list[str]]:
    """``n`` games of the deal by the honest panel's players in turn."""
    from games.fairplay import players
    from games.rules.base import deck_for

    return players.field(deck_for(seed, None), n, rng)


def lines_of(seed: str, field: str, n: int) -> list[list[str]]:
    import random

    key = (seed, field, n)
    if key not in _LINES:
        rng = random.Random(f"verification/{field}")  # the same lines on every run
        _LINES[key] = panel_lines(seed, n, rng) if field == "panel" else [random_line(seed, rng) for _ in range(n)]
    return _LINES[key]


def make_attempts(n: int, tag: str, field: str | None = None):
    from challenges.models import Attempt
    from harness.fixtures import finished_attempts
    from leaderboard.models import Result

    # One day, one deal, for every phase (``tag``: which, for the log) and field: they differ
    # by their lines only.
    day = DAY
    # A second run on the same day found the first run's results already ranked: 5,255/s
    # and a p50 of -88,124 s. The day starts empty instead.
    Result.objects.filter(challenge__date=day).delete()
    Attempt.objects.filter(challenge__date=day).delete()
    challenge, ids = finished_attempts(n, day=day)
    if not SAME_LINE:
        lines = lines_of(challenge.seed, field or FIELD, n)
        attempts = list(Attempt.objects.filter(pk__in=ids).order_by("pk"))
        for attempt, line in zip(attempts, lines):
            attempt.moves = line
        Attempt.objects.bulk_update(attempts, ["moves"], batch_size=2000)
    return challenge, ids


def trusted(lat: list[float], ids: list[int], what: str) -> list[float]:
    """The latencies, if they can be believed: one per attempt, none before its submission."""
    if len(lat) != len(ids):
        raise SystemExit(f"{what}: {len(lat)} results for {len(ids)} attempts; refusing to print a figure")
    if lat and lat[0] < 0:
        raise SystemExit(f"{what}: a result verified {-lat[0]:.3f}s before its submission; refusing to print a figure")
    return lat


class TreeWorker(CeleryWorker):
    """The same worker run from another tree of the code (``--against``)."""

    def __init__(self, env: dict[str, str], log_path: Path, tree: Path) -> None:
        super().__init__(env, log_path)
        self.tree = tree

    def start(self, concurrency: int = 1, loglevel: str = "INFO", settle: float = 4.0) -> None:
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [
                    *(sys.executable, "-m", "celery", "-A", "config", "worker"),
                    *("-l", loglevel, "-P", "prefork", "-c", str(concurrency)),
                    *("--without-gossip", "--without-mingle", "--without-heartbeat"),
                ],
                cwd=self.tree,
                env=dict(self.env, PYTHONPATH=str(self.tree)),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        time.sleep(settle)


def start_worker(concurrency: int, log: Path, tree: Path | None = None) -> CeleryWorker:
    """The tests' worker (harness/servers.py), on this benchmark's database and Redis; at
    WARNING so that logging every verification does not weigh on the figures. ``tree``:
    run it from that tree of the code instead of this one."""
    log.unlink(missing_ok=True)
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings.local", DJANGO_DEBUG="0")
    worker = CeleryWorker(env, log) if tree is None else TreeWorker(env, log, tree)
    worker.start(concurrency, loglevel="WARNING")
    return worker


def export_tree(commit: str) -> Path:
    """``commit``'s files in a temporary folder (``git archive``: no worktree registered)."""
    path = Path(tempfile.mkdtemp(prefix=f"bench-verify-{commit}-"))
    archive = subprocess.run(["git", "archive", commit], capture_output=True, check=True, timeout=120).stdout
    subprocess.run(["tar", "-x", "-C", str(path)], input=archive, check=True, timeout=120)
    return path


def _processes(kind_of) -> dict[int, str]:
    """Every process that ``kind_of(pgrp, cmdline)`` names a kind of, by pid."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = proc_stat(entry)
                if fields is None:
                    continue
                pgrp = int(fields[2])
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmdline = f.read()
            except (OSError, ValueError, IndexError):
                continue
            if kind := kind_of(pgrp, cmdline):
                out[int(entry)] = kind
    return out


class CpuMeter:
    """CPU seconds spent between ``start`` and ``stop`` by the worker's process group, the
    bench database's Postgres backends (this process's own counts as the bench's), the
    bench's redis-server and this process. A thread samples /proc every 0.2 s and keeps each
    process's latest figure, so a backend that exits between two samples still counts up
    to its last one (one that lived less than 0.2 s is missed)."""

    def __init__(self, worker: CeleryWorker, redis_client, db: str) -> None:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("select pg_backend_pid()")
            self.own_backend = cursor.fetchone()[0]
        self.worker_pid = worker.proc.pid if worker.proc else -1
        self.redis = redis_client
        self.db = f" {db} ".encode()
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.kind: dict[int, str] = {}
        self._stop = threading.Event()

    def _kind_of(self, pgrp: int, cmdline: bytes) -> str:
        if pgrp == self.worker_pid:
            return "worker"
        if cmdline.startswith(b"postgres: ") and self.db in cmdline:
            return "postgres"
        return ""

    def _sample(self, first: bool = False) -> None:
        for pid, kind in _processes(self._kind_of).items():
            cpu = process_cpu(pid)
            if cpu is None:
                continue
            if pid not in self.kind:
                self.kind[pid] = "bench" if pid == self.own_backend else kind
                self.first[pid] = cpu if first else 0.0  # born during the run: all of it
            self.last[pid] = cpu

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            self._sample()

    def start(self) -> None:
        self._sample(first=True)
        self.redis0, self.own0 = redis_cpu(self.redis), time.process_time()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def stop(self) -> dict[str, float]:
        """CPU seconds by kind: worker, postgres (the worker's backends), redis, bench
        (this process and its backend: enqueuing and polling)."""
        self._stop.set()
        self.thread.join()
        self._sample()
        out = {"worker": 0.0, "postgres": 0.0, "redis": redis_cpu(self.redis) - self.redis0}
        out["bench"] = time.process_time() - self.own0
        for pid, kind in self.kind.items():
            out[kind] += self.last[pid] - self.first[pid]
        return out


def cpu_line(cpu: dict[str, float], n: int) -> str:
    total = sum(cpu.values())
    parts = ", ".join(f"{kind} {cpu[kind] * 1000 / n:.3f}" for kind in ("worker", "postgres", "redis", "bench"))
    return (
        f"CPU ms per result: {parts}; total {total * 1000 / n:.3f} "
        f"(on 2 cores at most {2 * n / total:,.0f}/s if nothing else ran)"
    )


def throughput(concurrency: int, tree: Path | None, attempts: int, field: str | None = None) -> dict[str, float]:
    """Phase 1 with a worker of its own (``tree``: another tree's code): every attempt
    enqueued at once, the rate until all are ranked and the CPU it cost."""
    import redis
    from django.conf import settings

    from bench.pgdb import DB
    from challenges.services import enqueue_verification
    from leaderboard import services as lb_services

    worker = start_worker(concurrency, Path("/tmp/bench-verify-worker.log"), tree)
    try:
        challenge, ids = make_attempts(attempts, "t", field)
        lb_services.rebuild_index(challenge_id=challenge.pk)  # the day's index exists, empty
        meter = CpuMeter(worker, redis.Redis.from_url(settings.REDIS_URL), DB)
        meter.start()
        load = os.getloadavg()[0]
        wall0, perf0 = time.time(), time.perf_counter()
        submitted = {}
        for attempt_id in ids:
            submitted[attempt_id] = time.perf_counter()
            enqueue_verification(attempt_id)
        done = wait_ranked(challenge.pk, len(ids), timeout=600)
        cpu = meter.stop()
        elapsed = done - perf0
        lat = trusted(latencies(ids, submitted, wall0, perf0), ids, "throughput")
    finally:
        worker.stop()
    return {
        "n": len(ids),
        "elapsed": elapsed,
        "rate": len(ids) / elapsed,
        "p50": statistics.median(lat),
        "load": max(load, os.getloadavg()[0]),
        **{f"cpu_{k}": v for k, v in cpu.items()},
    }


def fields_of(args) -> list[str]:
    return ["panel", "random"] if args.field == "both" else [args.field]


def against(args) -> None:
    """Phase 1 in turns: ``--against``'s worker, then this tree's, ``--rounds`` times, on
    each field; the worker-CPU ratio of this tree to the other beside the medians."""
    from bench.provenance import commit, machine

    tree = export_tree(args.against)
    this = commit()
    print(f"{machine()}; this tree {this}, against {args.against} (exported to {tree}); day {DAY}")
    print(
        "| field | round | code | results/s | load (1 min) | CPU ms per result: worker | postgres | redis | bench | total |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    runs: dict[tuple[str, str], list[dict[str, float]]] = {}
    for field in fields_of(args):
        for r in range(1, args.rounds + 1):
            for name, where in ((args.against, tree), ("this", None)):
                run = throughput(args.concurrency, where, args.attempts, field)
                runs.setdefault((field, name), []).append(run)
                ms = {k: run[f"cpu_{k}"] * 1000 / run["n"] for k in ("worker", "postgres", "redis", "bench")}
                print(
                    f"| {field} | {r} | {name} | {run['rate']:,.0f} | {run['load']:.2f} | {ms['worker']:.3f} | "
                    f"{ms['postgres']:.3f} | {ms['redis']:.3f} | {ms['bench']:.3f} | {sum(ms.values()):.3f} |",
                    flush=True,
                )
    medians: dict[tuple[str, str], float] = {}
    for (field, name), rs in runs.items():
        rate = statistics.median(r["rate"] for r in rs)
        worker = medians[field, name] = statistics.median(r["cpu_worker"] * 1000 / r["n"] for r in rs)
        total = statistics.median(
            sum(r[f"cpu_{k}"] for k in ("worker", "postgres", "redis", "bench")) * 1000 / r["n"] for r in rs
        )
        print(
            f"median {field} {name}: {rate:,.0f} results/s; CPU ms per result: worker {worker:.3f}, total {total:.3f}"
        )
    for field in fields_of(args):
        # how many times as many results a core of this tree's worker verifies as the other's
        print(
            f"{field}: this tree's worker does x{medians[field, args.against] / medians[field, 'this']:.2f} the work a CPU-second"
        )


def wait_ranked(challenge_id: int, expected: int, timeout: float) -> float:
    import redis
    from django.conf import settings

    from leaderboard import rank_index
    from leaderboard.models import COUNTED, Result

    # Not the app's hot-path client (100 ms timeouts and a breaker): the benchmark's own
    # polling must not fail because the worker keeps the machine busy.
    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=10)
    deadline = time.monotonic() + timeout
    counted_at = 0.0
    while time.monotonic() < deadline:
        # The polling shares the 2 cores with what it measures: counting the day's results
        # every 10 ms cost ~10 % of the machine's CPU per result (two counts over a growing
        # table). Until the index holds 95 % of them the counts cannot succeed, and the
        # index's size is one cheap Redis call; they still run every 0.5 s, should more
        # than 5 % be held out.
        indexed = client.zcard(rank_index.key(challenge_id))
        if indexed < 0.95 * expected and time.monotonic() - counted_at < 0.5:
            time.sleep(0.01)
            continue
        counted_at = time.monotonic()
        # Ranked = in the index and its result committed: the index can hold an entry a
        # moment before the worker's transaction commits (the first count checked only the
        # index and read 102 results for 300 attempts).
        # A result the detector flags is held until reviewed, out of the index
        # (docs/fairplay.md): of random players' games, a few in 10,000.
        results = Result.objects.filter(challenge_id=challenge_id)
        if (
            results.count() == expected
            and client.zcard(rank_index.key(challenge_id)) == results.filter(COUNTED).count()
        ):
            return time.perf_counter()
        time.sleep(0.01)
    raise SystemExit(f"not all ranked within {timeout}s")


def latencies(ids: list[int], submitted: dict[int, float], wall0: float, perf0: float) -> list[float]:
    from leaderboard.models import Result

    out = []
    for attempt_id, verified_at in Result.objects.filter(attempt_id__in=ids).values_list("attempt_id", "verified_at"):
        out.append(verified_at.timestamp() - (wall0 + submitted[attempt_id] - perf0))
    return sorted(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--attempts", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=300)
    parser.add_argument("--rate-seconds", type=float, default=10)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--same-line", action="store_true", help="every attempt the same asks (judged once)")
    parser.add_argument("--field", choices=("panel", "random", "both"), default="panel", help="whose games")
    parser.add_argument("--against", help="a commit whose worker runs phase 1 in turns with this tree's")
    parser.add_argument("--rounds", type=int, default=3, help="turns of each with --against")
    args = parser.parse_args()
    global SAME_LINE, FIELD
    SAME_LINE = args.same_line
    FIELD = "panel" if args.field == "both" else args.field
    setup_django("BENCH_REDIS_VERIFY")

    import redis
    from django.conf import settings

    from challenges.services import enqueue_verification
    from leaderboard import rank_index
    from leaderboard import services as lb_services

    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    if args.against:
        against(args)
        return
    # Phase 1: throughput.
    run = throughput(args.concurrency, None, args.attempts)
    elapsed, n = run["elapsed"], int(run["n"])
    print(
        f"throughput: {n} attempts verified and ranked in {elapsed:.1f}s = {run['rate']:,.0f}/s "
        f"(worker concurrency {args.concurrency}, load average {run['load']:.2f}); "
        f"submit-to-verified p50 {run['p50']:.2f}s"
    )
    print(cpu_line({k: run[f"cpu_{k}"] for k in ("worker", "postgres", "redis", "bench")}, n))
    worker = start_worker(args.concurrency, Path("/tmp/bench-verify-worker.log"))
    try:
        # Side by side: one Celery message per attempt (the sweeper's and admin's path).
        from challenges.tasks import verify_attempt

        challenge, one_by_one = make_attempts(min(args.attempts, 3000), "m")
        lb_services.rebuild_index(challenge_id=challenge.pk)
        start = time.perf_counter()
        for attempt_id in one_by_one:
            verify_attempt.apply_async((attempt_id,))
        per_message = len(one_by_one) / (wait_ranked(challenge.pk, len(one_by_one), timeout=600) - start)
        print(f"one message per attempt: {per_message:,.0f}/s; batched drain is {run['rate'] / per_message:.1f}x")
        # Phase 2: a fixed offered rate.
        n = int(args.rate * args.rate_seconds)
        challenge, ids = make_attempts(n, "r")
        lb_services.rebuild_index(challenge_id=challenge.pk)
        wall0, perf0 = time.time(), time.perf_counter()
        submitted = {}
        for i, attempt_id in enumerate(ids):
            due = perf0 + i / args.rate
            while (now := time.perf_counter()) < due:
                time.sleep(min(0.002, due - now))
            submitted[attempt_id] = time.perf_counter()
            enqueue_verification(attempt_id)
        wait_ranked(challenge.pk, len(ids), timeout=300)
        lat = trusted(latencies(ids, submitted, wall0, perf0), ids, "fixed rate")
        p50, p99 = percentiles(lat)
        print(
            f"at {args.rate:.0f}/s offered for {args.rate_seconds:.0f}s: submit-to-ranked p50 "
            f"{p50:.0f} ms, p99 {p99:.0f} ms"
        )
        assert rank_index.is_ready(challenge.pk)
    finally:
        worker.stop()


if __name__ == "__main__":
    main()
