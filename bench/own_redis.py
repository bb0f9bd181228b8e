"""The benchmarks' Redis: a redis-server of their own on a free port (the same one the tests
start, harness/servers.py), so a benchmark never flushes or fills a database of the machine's
Redis, and two benchmarks never share one (bench.ask_cpu once died on its first run after
bench.leaderboard_scale: both used db 13, and flushing a 1M-member index outlasted the
client's timeout)."""

from __future__ import annotations

import atexit
import os

from harness.servers import RedisServer, free_port


def own_redis(override: str) -> str:
    """The URL to use: ``$override`` if set (a Redis the caller chose, flushed by the
    benchmark), else a fresh redis-server of this process's own, killed at exit."""
    if os.environ.get(override):
        return os.environ[override]
    server = RedisServer(free_port())
    server.start()
    atexit.register(server.kill)
    return server.url
