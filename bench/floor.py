"""The floor of a request on the full stack (not a test): what the web's processes spend on
requests that do almost nothing, beside what they spend on an ask.

    .venv/bin/python -m bench.floor --rate 300 --seconds 15

Starts `scripts/stack` with production settings (nginx, gunicorn with its 2 workers, the
worker, beat; a fresh database and a redis-server of its own, as bench.report does) and
offers, at a fixed rate from 16 keep-alive connections, in turns:
- GET /healthz: a plain Django view that asks Postgres and Redis one thing each;
- GET /api/challenges/today: a DRF view, no credentials;
then reports the web's CPU per request (gunicorn's master and workers, from /proc) and the
latencies. An ask costs what `bench.play_load` measures on the same stack; the difference
between the two is what the ask's own work costs, the floor what any request costs here.
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import threading
import time

from bench.provenance import commit, cpu_model
from bench.report import ROOT, Stack
from harness.players import cpu_per_ask, cpu_snapshot
from harness.stats import percentiles

CONNECTIONS = 16


def offer(port: int, path: str, rate: float, seconds: float, scope) -> dict:
    """``rate`` requests/s for ``seconds`` from CONNECTIONS threads, each on one keep-alive
    connection, each paced on its own share of the rate."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    gap = CONNECTIONS / rate
    start = time.monotonic() + 0.5
    end = start + seconds

    def client(offset: float) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        due = start + offset
        while due < end:
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            t = time.perf_counter()
            conn.request("GET", path, headers={"Accept": "application/json"})
            response = conn.getresponse()
            response.read()
            took = time.perf_counter() - t
            with lock:
                latencies.append(took)
                statuses[response.status] = statuses.get(response.status, 0) + 1
            due += gap
        conn.close()

    threads = [threading.Thread(target=client, args=(i * gap / CONNECTIONS,)) for i in range(CONNECTIONS)]
    before = cpu_snapshot(scope)
    t0 = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    after = cpu_snapshot(scope)
    elapsed = time.perf_counter() - t0
    cpu = cpu_per_ask(before, after, len(latencies))
    p50, p99 = percentiles(latencies)
    return {
        "per_s": len(latencies) / elapsed,
        "p50": p50,
        "p99": p99,
        "web": cpu.get("web", 0.0),
        "all": cpu.get("all", 0.0),
        "statuses": statuses,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=300)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--env",
        nargs="*",
        default=[],
        metavar="NAME=VALUE",
        help="the stack's environment, e.g. WEB_ACCESS_LOG=off GUNICORN_CMD_ARGS='--threads 2'",
    )
    args = parser.parse_args()
    stack = Stack("floor", ROOT, **dict(item.split("=", 1) for item in args.env))
    stack.start()
    paths = ["/healthz", "/api/challenges/today"]
    runs: dict[str, list[dict]] = {p: [] for p in paths}
    try:
        for path in paths:  # warm-up: every worker has served each once
            offer(stack.port, path, 100, 2, stack.owns)
        for _ in range(args.rounds):
            for path in paths:
                r = offer(stack.port, path, args.rate, args.seconds, stack.owns)
                if set(r["statuses"]) != {200}:
                    raise SystemExit(f"{path}: answers {r['statuses']}: not a floor")
                runs[path].append(r)
    finally:
        stack.stop()
    print(
        f"commit {commit()}, {cpu_model()}; {args.rate:.0f}/s offered, {args.seconds:.0f} s, {args.rounds} rounds"
        + (f"; {' '.join(args.env)}" if args.env else "")
    )
    print("web CPU per request (ms, gunicorn's processes) and latency, median of the rounds:")
    for path, rs in runs.items():
        m = {k: statistics.median(r[k] for r in rs) for k in ("per_s", "web", "all", "p50", "p99")}
        print(
            f"  GET {path:<24} {m['per_s']:6.0f}/s  web {m['web']:.2f} ms  whole machine {m['all']:.2f} ms  "
            f"p50 {m['p50']:.1f} ms  p99 {m['p99']:.1f} ms"
        )


if __name__ == "__main__":
    main()
