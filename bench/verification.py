"""Verification throughput (not a test): finished attempts through Redis + one Celery
worker, which replays each from seed + asks, writes its result and ranks it.

    .venv/bin/python -m bench.verification --attempts 10000 --rate 300 --concurrency 2

Phase 1 enqueues every attempt at once (throughput: results/s). Phase 2 offers a fixed
rate (default 300/s) and reports submit-to-ranked latency p50/p99 (ranked = in the Redis
rank index). Uses the `bench` database and Redis database 12; starts its own worker.
Targets (issue 8): >= 1,000 results/s on 2 cores; p99 <= 1 s at 300/s offered.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.pgdb import PG, ensure_database

os.environ["DATABASE_URL"] = f"{PG}/bench"
os.environ["REDIS_URL"] = os.environ.get("BENCH_REDIS_VERIFY", "redis://127.0.0.1:6379/12")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
os.environ.setdefault("LOG_LEVEL", "WARNING")
ROOT = Path(__file__).resolve().parent.parent


def make_attempts(n: int, tag: str):
    import datetime as dt

    from bench.fixtures import finished_attempts

    return finished_attempts(n, day=dt.date(1999, 1, 1) + dt.timedelta(days=sum(map(ord, tag)) % 300))


def start_worker(concurrency: int, log: Path) -> subprocess.Popen:
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings.local")
    proc = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "worker", "-l", "WARNING",
                             "-c", str(concurrency), "--without-gossip", "--without-mingle", "--without-heartbeat"],
                            cwd=ROOT, env=env, stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    time.sleep(4)
    return proc


def wait_ranked(challenge_id: int, expected: int, timeout: float) -> float:
    from leaderboard import rank_index

    client = rank_index._redis()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if client.zcard(rank_index.key(challenge_id)) >= expected:
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
    args = parser.parse_args()
    ensure_database()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    import redis
    from django.conf import settings

    from challenges.services import enqueue_verification
    from leaderboard import rank_index
    from leaderboard import services as lb_services

    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    worker = start_worker(args.concurrency, Path("/tmp/bench-verify-worker.log"))
    try:
        # Phase 1: throughput.
        challenge, ids = make_attempts(args.attempts, "t")
        lb_services.rebuild_index(challenge_id=challenge.pk)  # the day's index exists, empty
        wall0, perf0 = time.time(), time.perf_counter()
        submitted = {}
        for attempt_id in ids:
            submitted[attempt_id] = time.perf_counter()
            enqueue_verification(attempt_id)
        done = wait_ranked(challenge.pk, len(ids), timeout=600)
        elapsed = done - perf0
        lat = latencies(ids, submitted, wall0, perf0)
        print(f"throughput: {len(ids)} attempts verified and ranked in {elapsed:.1f}s = {len(ids) / elapsed:,.0f}/s "
              f"(worker concurrency {args.concurrency}); submit-to-verified p50 {statistics.median(lat):.2f}s")
        # Side by side: one Celery message per attempt (the sweeper's and admin's path).
        from challenges.tasks import verify_attempt

        challenge, one_by_one = make_attempts(min(args.attempts, 3000), "m")
        lb_services.rebuild_index(challenge_id=challenge.pk)
        start = time.perf_counter()
        for attempt_id in one_by_one:
            verify_attempt.apply_async((attempt_id,))
        per_message = len(one_by_one) / (wait_ranked(challenge.pk, len(one_by_one), timeout=600) - start)
        print(f"one message per attempt: {per_message:,.0f}/s; batched drain is {len(ids) / elapsed / per_message:.1f}x")
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
        lat = latencies(ids, submitted, wall0, perf0)
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        print(f"at {args.rate:.0f}/s offered for {args.rate_seconds:.0f}s: submit-to-ranked p50 "
              f"{statistics.median(lat) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms")
        assert rank_index.is_ready(challenge.pk)
    finally:
        os.killpg(worker.pid, 15)
        worker.wait(20)


if __name__ == "__main__":
    main()
